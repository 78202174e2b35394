"""Tool definitions in the formats LLM APIs take: OpenAI strict function tools, Anthropic tools, an MCP
`tools/list` result, and AutoByteus-style XML.

Every function here starts from a tool's canonical definition, the document in `schemas/<tool>.json` and
`ToolSpec.definition()`: `{"name", "description"?, "inputSchema", "outputSchema"?}` with self-contained draft
2020-12 schemas. The compiler writes `schemas/tools.*` with `render_export`, and a generated package's
`export_tools()` calls `export_tools` below, so the files and the Python API cannot disagree.

What a format cannot say moves into a description ("Constraints: minimum 1, maximum 100.") and stays enforced
by the generated models: `dispatch` validates every call against the tool's own schema, whatever format the
LLM saw. The OpenAI strict format needs one step back on the way in, `openai_arguments`: it makes every
property required (optional ones nullable) and turns values it cannot describe into JSON text, so a strict
call sends `null` for "not given" and text for those values; `openai_arguments` undoes both.

Standard library only, and no global state (generated packages and the compiler share it).
"""

from __future__ import annotations

import copy
import json
import math
import re
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

# Keywords whose values are subschemas (for rewriting `$ref`s): the validator's own lists.
from .literal import holds_decimal
from .validation import SUBSCHEMA, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS

__all__ = [
    "EXPORT_FILES",
    "FLAVOURS",
    "anthropic_tool",
    "dump_json",
    "export_names",
    "export_tools",
    "mcp_call_result",
    "mcp_output_schema",
    "mcp_result_wrapped",
    "mcp_tool",
    "openai_arguments",
    "openai_tool",
    "render_export",
    "tool_definition",
    "xml_tool",
]

FLAVOURS = ("openai", "anthropic", "mcp", "xml")
EXPORT_FILES = {
    "openai": "tools.openai.json",
    "anthropic": "tools.anthropic.json",
    "mcp": "tools.mcp.json",
    "xml": "tools.xml",
}
DRAFT = "https://json-schema.org/draft/2020-12/schema"

# Function names OpenAI and Anthropic accept; MCP and XML take any tool name as it is.
_API_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_API_NAME_CHAR = re.compile(r"[^A-Za-z0-9_-]")
# The fields of an MCP tool definition beside its name, description and schemas (MCP 2025-06-18, 2025-11-25),
# carried as the spec gave them (codegen checked their shapes): `title` follows the name, the rest the schemas.
MCP_TOOL_FIELDS = ("title", "annotations", "execution", "icons", "_meta")
# Name of the property an MCP output schema wraps a non-object result in (as the MCP Python SDK does).
MCP_RESULT_KEY = "result"


# Keywords that decide the shape of a value (everything else is an annotation or a constraint).
_STRUCTURE = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "items",
        "prefixItems",
        "anyOf",
        "oneOf",
        "allOf",
        "enum",
        "const",
        "$ref",
    }
)
# Keywords that no format needs: identifiers, comments, definitions (reached through `$ref`).
_IGNORED = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$comment",
        "$vocabulary",
        "$defs",
        "definitions",
        "title",
        "description",
        "readOnly",
        "writeOnly",
        "default",
        "examples",
        "deprecated",
    }
)
# Constraints on properties beyond the declared ones: moot once an object is closed.
_EXTRA_PROPERTY_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
    }
)
# What OpenAI strict mode keeps, by type (its "supported properties"); the rest goes into descriptions.
_OPENAI_KEPT = {
    "string": ("pattern", "format"),
    "integer": (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ),
    "number": (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ),
    "array": ("minItems", "maxItems"),
}
_COUNT_KEYWORDS = frozenset({"minItems", "maxItems"})
_INT64 = 2**63 - 1
_OPENAI_FORMATS = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
# Keywords that apply to one JSON type only (to split `"type": [a, b]` into alternatives).
_TYPE_KEYWORDS = {
    "string": frozenset({"pattern", "format", "minLength", "maxLength"}),
    "number": frozenset(
        {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    ),
    "array": frozenset(
        {
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
        }
    ),
    "object": frozenset(
        {
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        }
    ),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]
_ALL_TYPE_KEYWORDS = frozenset().union(*_TYPE_KEYWORDS.values())
_MAX_REF_HOPS = 64
# Strict mode inlines the target of a `$ref` with siblings, and such targets may refer on with siblings: a
# target is inlined only this many conversions deep (beyond, it is a `$defs` entry like any other), so chains
# of references, which no nesting limit of a document bounds, cannot make the conversion recurse without end.
_MAX_INLINE_DEPTH = 32
# Inlinings of a target inlined before, per tool: past them a repeated target is a `$defs` entry, so
# definitions each inlining the next twice cannot double the export at every link.
_INLINE_BUDGET = 64
# Instance nesting `openai_arguments` undoes (the validator refuses deeper instances: validation/limits.py).
_MAX_UNDO_DEPTH = 64
# `$ref`s one XML element may be nested through: deeper, a definition is named, not shown (as a cycle is).
_MAX_XML_REFS = 32
# Elements of one tool's XML after which a definition already shown is named instead of repeated.
_XML_BUDGET = 200
# Characters XML 1.0 cannot carry at all, not even as character references: what its Char production leaves
# out (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]), written as the few ranges left
# out, since the negated class of the ranges allowed took 5 ms to compile, in every process.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# -- entry points -------------------------------------------------------------------------------------------


def export_tools(
    definitions: Iterable[Mapping[str, Any]],
    flavour: str,
    names: Mapping[str, str] | None = None,
) -> Any:
    """The tools in one LLM format: "openai" and "anthropic" give a list of tool objects, "mcp" a
    `tools/list` result `{"tools": [...]}`, "xml" the text of a `<tools>` document. Tools keep the order given.
    `names` maps tool names to exported names (default: `export_names` of these tools).
    """
    # Copies: the callers' definitions share their objects with the schemas the generated models enforce.
    exported = _export(definitions, flavour, names)
    return exported if isinstance(exported, str) else copy.deepcopy(exported)


def _export(
    definitions: Iterable[Mapping[str, Any]],
    flavour: str,
    names: Mapping[str, str] | None,
) -> Any:
    """`export_tools` without the copy, which text made of the result does not need."""
    tools = list(definitions)
    if flavour in ("openai", "anthropic"):
        if names is None:
            names = export_names([str(tool["name"]) for tool in tools], flavour)
        convert = openai_tool if flavour == "openai" else anthropic_tool
        return [convert(tool, names[str(tool["name"])]) for tool in tools]
    if flavour == "mcp":
        return {"tools": [mcp_tool(tool) for tool in tools]}
    if flavour == "xml":
        root = ET.Element("tools")
        root.extend(xml_tool(tool) for tool in tools)
        ET.indent(root, space="    ")
        text = ET.tostring(root, encoding="unicode")
        # A carriage return in text content would be read back as a line feed: write it as a reference
        # (attributes are escaped already, and the indentation has none).
        return text.replace("\r", "&#13;") + "\n"
    raise ValueError(f"unknown export flavour {flavour!r}; choose one of {FLAVOURS}")


def render_export(
    definitions: Iterable[Mapping[str, Any]],
    flavour: str,
    names: Mapping[str, str] | None = None,
) -> str:
    """The text of `schemas/<EXPORT_FILES[flavour]>`."""
    exported = _export(definitions, flavour, names)
    return exported if isinstance(exported, str) else dump_json(exported)


def dump_json(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)` and a newline. Written here because the standard
    encoder, once asked to indent, runs a Python generator per value, which dominated large exports.
    """
    parts: list[str] = []
    try:
        _dump(value, parts, "\n")
    except _Unusual:
        return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    parts.append("\n")
    return "".join(parts)


class _Unusual(Exception):
    """A value `dump_json` leaves to `json.dumps` (which writes it or says why it cannot)."""


_json_string = json.encoder.encode_basestring  # ensure_ascii=False


def _dump(value: Any, out: list[str], newline: str) -> None:
    # Containers first and string members written in place: most values of a schema are strings in objects,
    # and a call per value was most of the time of a large export.
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unusual
            if type(item) is str:
                out.append(separator + _json_string(key) + ": " + _json_string(item))
            else:
                out.append(separator + _json_string(key) + ": ")
                _dump(item, out, inner)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            if type(item) is str:
                out.append(separator + _json_string(item))
            else:
                out.append(separator)
                _dump(item, out, inner)
            separator = "," + inner
        out.append(newline + "]")
    elif isinstance(value, str):
        out.append(_json_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if value != value:
            out.append("NaN")
        elif value in (math.inf, -math.inf):
            out.append("Infinity" if value > 0 else "-Infinity")
        else:
            out.append(float.__repr__(value))
    elif isinstance(value, Decimal) and value.is_finite():
        # A number no float holds (`1E+999`), digit for digit: `str` of it is JSON number text.
        out.append(str(value))
    else:
        raise _Unusual


def export_names(names: Iterable[str], flavour: str) -> dict[str, str]:
    """Tool name -> the name the flavour's API sees. OpenAI and Anthropic take 1-64 of `[A-Za-z0-9_-]`: other
    characters become `_`, and a name that would clash gets a numbered suffix. MCP and XML keep names.
    """
    ordered = sorted(set(names))
    if flavour not in ("openai", "anthropic"):
        return {name: name for name in ordered}
    result = {name: name for name in ordered if _API_NAME.match(name)}
    taken = set(result.values())
    for name in ordered:
        if name in result:
            continue
        base = _API_NAME_CHAR.sub("_", name)[:64] or "tool"
        candidate, number = base, 1
        while candidate in taken:
            number += 1
            suffix = f"_{number}"
            candidate = base[: 64 - len(suffix)] + suffix
        result[name] = candidate
        taken.add(candidate)
    return {name: result[name] for name in ordered}


# -- Anthropic and MCP --------------------------------------------------------------------------------------


def anthropic_tool(
    definition: Mapping[str, Any], name: str | None = None
) -> dict[str, Any]:
    """`{name, description, input_schema}`: the schema as it is (Anthropic takes full JSON Schema), without
    `$schema`, with `type: object` at the root."""
    tool: dict[str, Any] = {"name": name or str(definition["name"])}
    if definition.get("description"):
        tool["description"] = definition["description"]
    schema = _object_root(definition["inputSchema"])
    tool["input_schema"] = {k: v for k, v in schema.items() if k != "$schema"}
    return tool


def mcp_tool(definition: Mapping[str, Any]) -> dict[str, Any]:
    """`{name, description, inputSchema, outputSchema?}` as in an MCP `tools/list` result. MCP wants object
    schemas at the root of both: a non-object result is wrapped as `{"result": <value>}` (`mcp_output_schema`).
    """
    output = definition.get("outputSchema")
    tool = tool_definition(
        definition["name"],
        definition.get("description"),
        _object_root(definition["inputSchema"]),
        mcp_output_schema(output)[0] if output is not None else None,
        definition,
    )
    return tool


def tool_definition(
    name: str,
    description: str | None,
    input_schema: Any,
    output_schema: Any,
    fields: Mapping[str, Any],
) -> dict[str, Any]:
    """A tool's definition in the order of the MCP schema: name, title, description, input and output schemas,
    then the other MCP fields of `fields` (those of `MCP_TOOL_FIELDS` it has)."""
    tool: dict[str, Any] = {"name": name}
    if "title" in fields:
        tool["title"] = fields["title"]
    if description:
        tool["description"] = description
    tool["inputSchema"] = input_schema
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    for key in MCP_TOOL_FIELDS[1:]:
        if key in fields:
            tool[key] = fields[key]
    return tool


def mcp_output_schema(schema: Any) -> tuple[dict[str, Any], bool]:
    """An output schema as MCP takes it, and whether results are wrapped as `{"result": <value>}`.

    A schema whose root is an object (directly or through a root `$ref`) is kept, with `type: object` stated;
    any other is wrapped, its `$ref`s moved under `#/properties/result` so they still resolve.
    """
    document = _schema_document(schema)
    if _root_is_object(document):
        return _object_root(document), False
    inner = {k: v for k, v in document.items() if k != "$schema"}
    # (Inside an `$id` resource, `$ref`s resolve against the resource and stay as they are.)
    if "$id" not in inner:
        inner = _prefix_refs(inner, "/properties/" + MCP_RESULT_KEY)
    wrapped = {
        "$schema": document.get("$schema", DRAFT),
        "type": "object",
        "properties": {MCP_RESULT_KEY: inner},
        "required": [MCP_RESULT_KEY],
        "additionalProperties": False,
    }
    return wrapped, True


def mcp_result_wrapped(schema: Any) -> bool:
    """Whether `mcp_output_schema` wraps results of `schema` as `{"result": <value>}`: decided without
    building the wrapped schema, which a server asks once per call."""
    return not _root_is_object(_schema_document(schema))


def mcp_call_result(
    definition: Mapping[str, Any],
    value: Any = None,
    error: Mapping[str, Any] | None = None,
    text: str | None = None,
) -> dict[str, Any]:
    """A `tools/call` result: `value` (JSON data) as text content (`text` when given: the caller's JSON of
    it, e.g. decimals written exactly) and, where the tool has an output schema, as `structuredContent`
    (wrapped like its schema); or `error` (a ToolError's `to_dict()`) with `isError`.
    """
    if error is not None:
        text = json.dumps(dict(error), ensure_ascii=False)
        return {"content": [{"type": "text", "text": text}], "isError": True}
    if text is None:
        text = json.dumps(value, ensure_ascii=False)
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if definition.get("outputSchema") is not None:
        wrapped = mcp_result_wrapped(definition["outputSchema"])
        result["structuredContent"] = {MCP_RESULT_KEY: value} if wrapped else value
    result["isError"] = False
    return result


def _schema_document(schema: Any) -> dict[str, Any]:
    if isinstance(schema, bool):
        return {"$schema": DRAFT} if schema else {"$schema": DRAFT, "not": {}}
    return dict(schema)


def _object_root(schema: Any) -> dict[str, Any]:
    """A tool's input schema with `type: object` stated at the root (arguments are always an object)."""
    document = _schema_document(schema)
    if "type" in document:
        return document
    head = {"$schema": document["$schema"]} if "$schema" in document else {}
    rest = {k: v for k, v in document.items() if k != "$schema"}
    return {**head, "type": "object", **rest}


def _root_is_object(document: Mapping[str, Any]) -> bool:
    node: Any = document
    for _ in range(_MAX_REF_HOPS):
        if not isinstance(node, Mapping):
            return False
        if node.get("type") == "object":
            return True
        ref = node.get("$ref")
        if "type" in node or not isinstance(ref, str):
            return False
        node = _resolve(document, ref)
    return False


def _prefix_refs(schema: Any, prefix: str) -> Any:
    """`schema` with every local `$ref` ("#...") moved under the JSON pointer `prefix`."""
    if not isinstance(schema, Mapping):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$ref" and isinstance(value, str) and value.startswith("#"):
            fragment = value[1:]
            result[key] = (
                "#" + prefix + fragment if fragment[:1] in ("", "/") else value
            )
        elif key in SUBSCHEMA:
            result[key] = _prefix_refs(value, prefix)
        elif key in SUBSCHEMA_MAPS and isinstance(value, Mapping):
            result[key] = {k: _prefix_refs(v, prefix) for k, v in value.items()}
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            result[key] = [_prefix_refs(v, prefix) for v in value]
        else:
            result[key] = value
    return result


# -- OpenAI strict ------------------------------------------------------------------------------------------


def openai_tool(
    definition: Mapping[str, Any], name: str | None = None
) -> dict[str, Any]:
    """`{"type": "function", "function": {name, description, parameters, strict: true}}` in strict form: every
    object closed and with all its properties required, optional ones nullable, `$defs` at the root, and only
    the keywords strict mode supports; the others are described in words. A tool whose arguments are not an
    object with declared properties (free-form arguments) cannot be strict: it keeps its schema, `strict: false`.
    """
    document = _schema_document(definition["inputSchema"])
    strict = _Strict(document)
    description = definition.get("description")
    parameters: dict[str, Any] | None = None
    root = strict.root_target()
    if strict.shape(root) == "object" and not _accepts_type(root, "null"):
        parameters, notes = strict.root_object()
        description = _describe(description, notes)
    function: dict[str, Any] = {"name": name or str(definition["name"])}
    if description:
        function["description"] = description
    if parameters is None:
        schema = _object_root(document)
        function["parameters"] = {k: v for k, v in schema.items() if k != "$schema"}
        function["strict"] = False
    else:
        function["parameters"] = parameters
        function["strict"] = True
    return {"type": "function", "function": function}


def openai_arguments(
    input_schema: Any, arguments: Any
) -> tuple[Any, list[tuple[str, str]]]:
    """Arguments from a strict OpenAI call as the tool's own schema means them: `null` for an optional
    property that does not admit null means "not given" and is dropped; JSON text stands for the values
    strict mode could not describe and is decoded. Returns the arguments and (path, message) problems.
    """
    document = _schema_document(input_schema)
    problems: list[tuple[str, str]] = []
    value = _Strict(document).undo(document, arguments, "", problems)
    return value, problems


class _Strict:
    """The strict form of one schema document, and the way back for instances (`undo`).

    Both directions ask `shape` what each subschema becomes, so they cannot disagree."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        # name -> strict schema, in the order first needed
        self.defs: dict[str, Any] = {}
        self.def_names: dict[str, str] = {}  # JSON pointer -> name
        # definitions named but not yet converted (name, target): converted one after another by
        # `root_object`, not inside the conversion that named them, so a chain of references is a loop
        self.pending: list[tuple[str, Any]] = []
        # pointers being inlined (a ref with siblings), against cycles; pointers inlined so far
        self.inlining: list[str] = []
        self.inlined: set[str] = set()
        self.repeats = 0  # inlinings of a pointer inlined before
        self.level = 0  # conversions under way (`convert` within `convert`)
        # Memos by identity; each keeps its schema alive, so an id is never reused while it is cached.
        self.shapes: dict[int, tuple[Any, str]] = {}
        self.transparency: dict[int, tuple[Any, bool]] = {}

    # -- what each subschema becomes

    def shape(self, schema: Any) -> str:
        """One of "object", "array", "scalar", "union" (anyOf), "nullable" (anyOf [X, null]), "ref", "allof" (one
        member), or "json": a value strict mode cannot describe, sent as JSON text."""
        if not isinstance(schema, Mapping):
            return "json"  # true (anything) or false (nothing)
        key = id(schema)
        if key not in self.shapes:
            # Provisional, for reference cycles.
            self.shapes[key] = (schema, "json")
            self.shapes[key] = (schema, self._shape(schema))
        return self.shapes[key][1]

    def _shape(self, schema: Mapping[str, Any]) -> str:
        structure = _structure(schema)
        if "$ref" in structure:
            ref = schema["$ref"]
            if structure != ["$ref"] or not isinstance(ref, str):
                return "json"
            return "ref" if _resolve(self.root, ref) is not None else "json"
        if "allOf" in structure:
            members = schema["allOf"]
            single = isinstance(members, list) and len(members) == 1
            return "allof" if single and structure == ["allOf"] else "json"
        if "prefixItems" in structure:
            return "json"
        if "anyOf" in structure or "oneOf" in structure:
            alternatives = _alternatives(schema)
            if alternatives is None or "anyOf" in structure and "oneOf" in structure:
                return "json"
            if any(k not in ("anyOf", "oneOf") for k in structure):
                return "json"  # alternatives beside a type: an intersection
            others = [a for a in alternatives if not _is_null_schema(a)]
            if len(others) == 1 and len(others) < len(alternatives):
                return "nullable"
            return "union" if self.transparent(schema) else "json"
        values = _enum_values(schema)
        if values is not None:
            if any(isinstance(v, (dict, list)) for v in values):
                return "json"
            return "scalar"
        types = _types(schema)
        if types is None:
            if "properties" in schema:
                types = ["object"]
            elif "items" in schema:
                types = ["array"]
            else:
                return "json"  # any value
        real = [t for t in types if t != "null"]
        if len(real) > 1:
            return "union" if self.transparent(schema) else "json"
        kind = real[0] if real else "null"
        if kind == "object":
            closed = schema.get("additionalProperties") is False
            declared = isinstance(schema.get("properties"), Mapping)
            return "object" if declared or closed else "json"
        if kind == "array":
            return "array"
        return "scalar" if kind in _JSON_TYPES else "json"

    def transparent(self, schema: Any) -> bool:
        """Whether a strict call's values need no undoing here: alternatives must be, since `undo` cannot tell
        which one a value took. True when no object below has an optional, non-nullable property and nothing
        below is sent as JSON text.

        Below means reachable through alternatives, items, properties and `$ref`s, so the walk is a loop
        (Tarjan's strongly connected components, with a stack of its own): a chain of references as long as
        the document allows cannot exhaust Python's. A cycle adds nothing new: all the schemas of one
        component are transparent together or not at all.
        """
        if not isinstance(schema, Mapping):
            return False
        if id(schema) in self.transparency:
            return self.transparency[id(schema)][1]
        order: dict[int, int] = {}  # schema -> its visit number
        low: dict[int, int] = {}  # the least visit number reachable in its component
        clear: dict[int, bool] = {}  # itself and what it reaches outside its component
        component: list[Any] = []
        on_component: set[int] = set()
        work: list[tuple[Any, Iterator[Any]]] = []

        def visit(node: Any) -> None:
            key = id(node)
            order[key] = low[key] = len(order)
            own, below = self._transparency_step(node)
            clear[key] = own
            component.append(node)
            on_component.add(key)
            work.append((node, iter(below)))

        visit(schema)
        while work:
            node, below = work[-1]
            key = id(node)
            child = next(below, _DONE)
            if child is not _DONE:
                child_key = id(child)
                if not isinstance(child, Mapping):
                    clear[key] = False
                elif child_key in self.transparency:
                    clear[key] = clear[key] and self.transparency[child_key][1]
                elif child_key not in order:
                    visit(child)
                elif child_key in on_component:
                    low[key] = min(low[key], order[child_key])
                continue
            work.pop()
            if work:  # (a member of the parent's component, unless settled below)
                parent = id(work[-1][0])
                low[parent] = min(low[parent], low[key])
            if low[key] == order[key]:  # the root of a component: settle it
                members: list[Any] = []
                while True:
                    member = component.pop()
                    on_component.discard(id(member))
                    members.append(member)
                    if member is node:
                        break
                result = all(clear[id(m)] for m in members)
                for member in members:
                    self.transparency[id(member)] = (member, result)
                if work:
                    parent = id(work[-1][0])
                    clear[parent] = clear[parent] and result
        return self.transparency[id(schema)][1]

    def _transparency_step(self, schema: Mapping[str, Any]) -> tuple[bool, list[Any]]:
        """Whether `schema` itself keeps values as they are, and the schemas below it that must too."""
        alternatives = _alternatives(schema)
        types = _types(schema) or []
        if isinstance(alternatives, list) and not _enum_values(schema):
            return True, list(alternatives)
        if len([t for t in types if t != "null"]) > 1:
            return True, list(_split_types(schema))
        shape = self.shape(schema)
        if shape == "json":
            return False, []
        if shape == "ref":
            return True, [_resolve(self.root, schema["$ref"])]
        if shape == "allof":
            return True, [schema["allOf"][0]]
        if shape == "array":
            return True, [schema.get("items", True)]
        below: list[Any] = []
        if shape == "object":
            required = _required(schema)
            for name, sub in _properties(schema).items():
                if sub is False:
                    continue
                if name not in required and not self.accepts_null(sub):
                    return False, []
                below.append(sub)
        return True, below

    def accepts_null(self, schema: Any, hops: int = 0) -> bool:
        """Whether the schema (clearly) admits null; unsure answers are False, so null means "not given"."""
        if not isinstance(schema, Mapping):
            return bool(schema)
        if hops > _MAX_REF_HOPS:
            return False
        if isinstance(schema.get("$ref"), str):
            target = _resolve(self.root, schema["$ref"])
            if target is None or not self.accepts_null(target, hops + 1):
                return False
        values = _enum_values(schema)
        if values is not None and None not in values:
            return False
        types = _types(schema)
        if types is not None and "null" not in types:
            return False
        for keyword in ("anyOf", "oneOf"):
            alternatives = schema.get(keyword)
            if isinstance(alternatives, list) and not any(
                self.accepts_null(a, hops + 1) for a in alternatives
            ):
                return False
        members = schema.get("allOf")
        if isinstance(members, list) and not all(
            self.accepts_null(m, hops + 1) for m in members
        ):
            return False
        return "not" not in schema

    # -- schema to strict schema

    def root_target(self) -> Any:
        """The root schema, through a root `$ref` (to an entity's object schema, say)."""
        root: Any = self.root
        for _ in range(_MAX_REF_HOPS):
            if self.shape(root) != "ref":
                break
            root = _resolve(self.root, root["$ref"])
        return root

    def root_object(self) -> tuple[dict[str, Any], list[str]]:
        """The strict parameters schema, and notes for the tool's description (root-level constraints)."""
        parameters, notes = self.object(self.root_target(), top=True)
        done = 0
        while done < len(self.pending):  # (each conversion may name more)
            name, target = self.pending[done]
            self.defs[name] = self.convert(target)
            done += 1
        if self.defs:
            parameters["$defs"] = self.defs
        return parameters, notes

    def convert(self, schema: Any, optional: bool = False) -> dict[str, Any]:
        self.level += 1
        try:
            return self._convert(schema, optional)
        finally:
            self.level -= 1

    def _convert(self, schema: Any, optional: bool) -> dict[str, Any]:
        shape = self.shape(schema)
        if shape == "object":
            result, notes = self.object(schema)
        elif shape == "array":
            result, notes = self.array(schema)
        elif shape == "scalar":
            result, notes = self.scalar(schema)
        elif shape == "union":
            result, notes = self.union(schema)
        elif shape == "nullable":
            result, notes = self.nullable_union(schema)
        elif shape == "ref":
            result, notes = self.ref(schema)
        elif shape == "allof":
            result = self.convert(schema["allOf"][0])
            notes = _notes(schema, _STRUCTURE | _IGNORED)
            result = _annotate(result, schema, notes)
            notes = []
        else:
            result, notes = _json_text(schema), []
        if notes:
            result = _annotate(result, {}, notes)
        if optional:  # strict mode has every property sent: null stands for "not given"
            result = _make_nullable(result)
        return result

    def object(
        self, schema: Mapping[str, Any], top: bool = False
    ) -> tuple[dict[str, Any], list[str]]:
        result: dict[str, Any] = {"type": _with_null("object", schema)}
        required = _required(schema)
        properties = {
            name: self.convert(sub, optional=name not in required)
            for name, sub in _properties(schema).items()
            if sub is not False
        }
        result["properties"] = properties
        result["required"] = list(properties)
        result["additionalProperties"] = False
        handled = _STRUCTURE | _IGNORED | _EXTRA_PROPERTY_KEYWORDS
        notes = _notes(schema, handled)
        if top:  # constraints on the arguments as a whole go to the tool's description
            return _annotate(result, schema, []), notes
        return _annotate(result, schema, notes), []

    def array(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        result: dict[str, Any] = {"type": _with_null("array", schema)}
        result["items"] = self.convert(schema.get("items", True))
        kept = _strict_kept(schema, _OPENAI_KEPT["array"])
        result.update(kept)
        notes = _notes(schema, _STRUCTURE | _IGNORED | set(kept))
        return _annotate(result, schema, notes), []

    def scalar(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        values = _enum_values(schema)
        result: dict[str, Any]
        kept: dict[str, Any] = {}
        # An enum's values say its type; values of several types become alternatives.
        if values is not None:
            kinds = _value_types(values)
            real = [k for k in kinds if k != "null"]
            if len(real) > 1:
                groups = [_enum_group(kind, kinds, values) for kind in real]
                if "null" in kinds:
                    groups.append({"type": "null"})
                result = {"anyOf": groups}
            else:
                result = {
                    "type": kinds[0] if len(kinds) == 1 else kinds,
                    "enum": values,
                }
        else:
            types = _types(schema) or ["null"]
            result = {"type": types[0] if len(types) == 1 else types}
            keywords = [k for kind in types for k in _OPENAI_KEPT.get(kind, ())]
            kept = _strict_kept(schema, keywords)
            result.update(kept)
        notes = _notes(schema, _STRUCTURE | _IGNORED | set(kept))
        return _annotate(result, schema, notes), []

    def union(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        alternatives = _alternatives(schema)
        handled = _STRUCTURE | _IGNORED
        # "type": [a, b]: each type's keywords go to its alternative
        if not isinstance(alternatives, list):
            alternatives = _split_types(schema)
            handled |= _ALL_TYPE_KEYWORDS
        result: dict[str, Any] = {"anyOf": [self.convert(a) for a in alternatives]}
        notes = _notes(schema, handled)
        if "oneOf" in _structure(schema):
            notes.append("Exactly one of the alternatives must match.")
        return _annotate(result, schema, notes), []

    def nullable_union(
        self, schema: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[str]]:
        alternatives = _alternatives(schema)
        assert alternatives is not None
        (inner,) = [a for a in alternatives if not _is_null_schema(a)]
        result = _make_nullable(self.convert(inner))
        notes = _notes(schema, _STRUCTURE | _IGNORED)
        return _annotate(result, schema, notes), []

    def ref(self, schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        pointer = _pointer(schema["$ref"])
        target = _resolve(self.root, schema["$ref"])
        assert pointer is not None  # `shape` said "ref": it resolves
        notes = _notes(schema, _STRUCTURE | _IGNORED)
        siblings = notes or any(
            k in schema for k in ("description", "title", "default", "examples")
        )
        if pointer == "":
            return _annotate({"$ref": "#"}, schema, notes), []
        if siblings and self.may_inline(pointer):
            # Strict mode takes no keywords beside `$ref`: inline the target (its own refs stay refs).
            self.repeats += pointer in self.inlined
            self.inlined.add(pointer)
            self.inlining.append(pointer)
            try:
                inlined = self.convert(target)
            finally:
                self.inlining.pop()
            return _annotate(inlined, schema, notes), []
        reference = {"$ref": "#/$defs/" + self.define(pointer, target)}
        return _annotate(reference, schema, notes), []

    def may_inline(self, pointer: str) -> bool:
        """Whether the target at `pointer` of a `$ref` with siblings is inlined here: not inside its own
        inlining, not too deep, and not once more past the budget (else it is named, siblings beside it).
        """
        if pointer in self.inlining or self.level >= _MAX_INLINE_DEPTH:
            return False
        return pointer not in self.inlined or self.repeats < _INLINE_BUDGET

    def define(self, pointer: str, target: Any) -> str:
        name = self.def_names.get(pointer)
        if name is None:
            base = _API_NAME_CHAR.sub("_", _last_token(pointer)) or "definition"
            name, number = base, 1
            while name in self.def_names.values():
                number += 1
                name = f"{base}_{number}"
            self.def_names[pointer] = name
            self.defs[name] = {}  # its place, in the order first needed
            self.pending.append((name, target))
        return name

    # -- strict instance back to the tool's own meaning

    def undo(
        self,
        schema: Any,
        value: Any,
        path: str,
        problems: list[tuple[str, str]],
        depth: int = 0,
    ) -> Any:
        """`value` as the tool's own `schema` means it. `depth` counts the values it is nested in: past the
        validator's bound the value is left as it is (the validator refuses it anyway), so no instance makes
        this recurse deeper, and the `$ref`s and single members at one value are followed in a loop.
        """
        schema = self.through(schema)
        shape = self.shape(schema)
        if shape == "json":
            if not isinstance(value, str):
                return value
            try:
                return json.loads(value)
            except RecursionError:
                problems.append(
                    (path, "the JSON text of the value is nested too deeply")
                )
                return value
            except ValueError as exc:
                problems.append((path, f"expected JSON text of the value ({exc})"))
                return value
        if value is None or depth > _MAX_UNDO_DEPTH:
            return value
        if shape == "array" and isinstance(value, list):
            items = schema.get("items", True)
            return [
                self.undo(items, item, f"{path}[{index}]", problems, depth + 1)
                for index, item in enumerate(value)
            ]
        if shape == "object" and isinstance(value, Mapping):
            required = _required(schema)
            properties = _properties(schema)
            result: dict[str, Any] = {}
            for key, item in value.items():
                sub = properties.get(key)
                if sub is None:
                    result[key] = item
                    continue
                if item is None and key not in required and not self.accepts_null(sub):
                    continue  # strict mode's way of leaving it out
                child = f"{path}.{key}" if path else str(key)
                result[key] = self.undo(sub, item, child, problems, depth + 1)
            return result
        return value  # scalars, and alternatives (transparent by construction)

    def through(self, schema: Any) -> Any:
        """The schema a value of `schema` takes its shape from: through `$ref`s, single `allOf` members and
        nullable alternatives, however many (a loop of them that never reaches another shape ends where it
        closes)."""
        seen: set[int] = set()
        while id(schema) not in seen:
            seen.add(id(schema))
            shape = self.shape(schema)
            if shape == "ref":
                schema = _resolve(self.root, schema["$ref"])
            elif shape == "allof":
                schema = schema["allOf"][0]
            elif shape == "nullable":
                alternatives = _alternatives(schema) or []
                (schema,) = [a for a in alternatives if not _is_null_schema(a)]
            else:
                break
        return schema


_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})
_DONE = object()  # the end of an iterator, for `next`


def _json_text(schema: Any) -> dict[str, Any]:
    """A value strict mode cannot describe, sent as a string of JSON text (decoded by `openai_arguments`)."""
    own = schema.get("description") if isinstance(schema, Mapping) else None
    rest = (
        {k: v for k, v in schema.items() if k not in ("description", "$schema")}
        if isinstance(schema, Mapping)
        else schema
    )
    if rest is True or rest == {}:
        text = "JSON text of any JSON value."
    else:
        compact = _compact(rest)
        text = f"JSON text of a value matching this JSON Schema: {compact}"
    return {"type": "string", "description": f"{own}\n{text}" if own else text}


def _make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The same schema, admitting null as well."""
    result = dict(schema)
    kind = result.get("type")
    if "anyOf" in result:
        if not any(_is_null_schema(a) for a in result["anyOf"]):
            result["anyOf"] = [*result["anyOf"], {"type": "null"}]
        return result
    if kind is not None and "$ref" not in result:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        if "null" not in kinds:
            result["type"] = [*kinds, "null"]
        if "enum" in result and None not in result["enum"]:
            result["enum"] = [*result["enum"], None]
        return result
    wrapper: dict[str, Any] = {}
    for key in ("title", "description"):
        if key in result:
            wrapper[key] = result.pop(key)
    wrapper["anyOf"] = [result, {"type": "null"}]
    return wrapper


def _with_null(kind: str, schema: Mapping[str, Any]) -> Any:
    types = _types(schema)
    return [kind, "null"] if types is not None and "null" in types else kind


def _annotate(
    result: dict[str, Any], schema: Mapping[str, Any], notes: list[str]
) -> dict[str, Any]:
    """Put the schema's title and description (plus notes) on a converted schema, in a stable key order."""
    description = _describe(schema.get("description"), notes)
    title = schema.get("title")
    if description is None and not isinstance(title, str):
        return result
    if "$ref" in result:  # nothing may stand beside `$ref`
        result = {"anyOf": [result]}
    head: dict[str, Any] = {}
    for key in ("type", "$ref"):
        if key in result:
            head[key] = result[key]
    if isinstance(title, str):
        head["title"] = title
    elif "title" in result:
        head["title"] = result["title"]
    if description is not None:
        head["description"] = description
    return {**head, **{k: v for k, v in result.items() if k not in head}}


def _describe(description: Any, notes: list[str]) -> str | None:
    parts = [description] if isinstance(description, str) and description else []
    parts += notes
    return "\n".join(parts) if parts else None


def _strict_kept(schema: Mapping[str, Any], keywords: Iterable[str]) -> dict[str, Any]:
    """Those of `keywords` in `schema` that strict mode says as they are, with the values it is given; the
    others go into the description (`_notes`), as any keyword it cannot say."""
    kept: dict[str, Any] = {}
    for keyword in keywords:
        if keyword in schema and keyword not in kept:
            value = _strict_value(keyword, schema[keyword])
            if value is not None:
                kept[keyword] = value
    return kept


def _strict_value(keyword: str, value: Any) -> Any:
    """`value` as strict mode takes it for `keyword`, or None if it cannot: a format it knows; a count as an
    integer (2.0 as 2) of 64 bits at most; a bound or divisor a float or such an integer. (Its limits are not
    documented: a 64-bit integer or a float is what any reader of JSON numbers holds; `maxItems: 1e20`, which
    bounds nothing, or an integer of 400 digits goes into the description instead.)"""
    if keyword == "format":
        return value if value in _OPENAI_FORMATS else None
    if keyword == "pattern":
        return value
    if keyword in _COUNT_KEYWORDS:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        return value if type(value) is int and 0 <= value <= _INT64 else None
    if type(value) is float:
        return value
    return value if type(value) is int and -_INT64 <= value <= _INT64 else None


def _notes(schema: Mapping[str, Any], handled: Iterable[str]) -> list[str]:
    """What a schema says that its converted form does not: default, constraints, examples."""
    skip = set(handled) - _constraint_combinators(schema)
    notes: list[str] = []
    if "default" in schema:
        notes.append(f"Default: {_compact(schema['default'])}.")
    constraints = [
        _constraint(key, value)
        for key, value in schema.items()
        if key not in skip and key not in _IGNORED and not key.startswith("x-")
    ]
    if constraints:
        notes.append(f"Constraints: {', '.join(constraints)}.")
    if schema.get("deprecated") is True:
        notes.append("Deprecated.")
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        notes.append(f"Examples: {', '.join(_compact(e) for e in examples)}.")
    return notes


def _compact(value: Any) -> str:
    kind = type(value)  # the usual constraint values without the encoder's walk
    if kind is int:
        return int.__repr__(value)
    if kind is str:
        return _json_string(value)
    if holds_decimal(value):
        return _compact_decimals(value)
    return _COMPACT(value)


def _compact_decimals(value: Any) -> str:
    """`_compact` of a value holding a Decimal (a number no float holds), which `json` cannot write: each
    Decimal is written as its own digits in the place of a mark no string holds by chance.
    """
    found: list[Decimal] = []
    nonce = uuid.uuid4().hex

    def mark(item: Any) -> Any:
        if isinstance(item, Decimal):
            found.append(item)
            return f"{nonce}:{len(found) - 1}"
        if isinstance(item, Mapping):
            return {key: mark(member) for key, member in item.items()}
        if isinstance(item, (list, tuple)):
            return [mark(member) for member in item]
        return item

    text = _COMPACT(mark(value))
    for index, number in enumerate(found):
        text = text.replace(f'"{nonce}:{index}"', str(number), 1)
    return text


# `json.dumps(value, ensure_ascii=False, separators=(",", ":"))`, whose arguments make it build an encoder
# per call.
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _constraint(key: str, value: Any) -> str:
    """`minimum 1`, `pattern "^[a-z]+$"`, `format date`: one constraint in words."""
    if key == "format" and isinstance(value, str):
        return f"{key} {value}"
    return f"{key} {_compact(value)}"


# -- schema helpers -----------------------------------------------------------------------------------------


def _constraint_combinators(schema: Mapping[str, Any]) -> set[str]:
    """`anyOf`/`oneOf`/`allOf` whose members only constrain (`{"required": ["a"]}`, bounds, ...): they shape
    nothing, so they are described like any other constraint."""
    found: set[str] = set()
    if "anyOf" not in schema and "oneOf" not in schema and "allOf" not in schema:
        return found  # the common case, and this runs several times per schema
    for keyword in ("anyOf", "oneOf", "allOf"):
        members = schema.get(keyword)
        if isinstance(members, list) and all(
            isinstance(m, Mapping) and not (set(m) & _STRUCTURE) - {"required"}
            for m in members
        ):
            found.add(keyword)
    return found


def _structure(schema: Mapping[str, Any]) -> list[str]:
    """The keywords that shape the schema's values, in the schema's order."""
    constraints = _constraint_combinators(schema)
    return [k for k in schema if k in _STRUCTURE and k not in constraints]


def _alternatives(schema: Mapping[str, Any]) -> list[Any] | None:
    """The members of the schema's shaping `anyOf` (or `oneOf`)."""
    for keyword in ("anyOf", "oneOf"):
        members = schema.get(keyword)
        if isinstance(members, list) and keyword not in _constraint_combinators(schema):
            return members
    return None


def _types(schema: Mapping[str, Any]) -> list[str] | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and kind and all(isinstance(k, str) for k in kind):
        return list(kind)
    return None


def _enum_values(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    values = schema.get("enum")
    return list(values) if isinstance(values, list) else None


def _value_types(values: list[Any]) -> list[str]:
    found: list[str] = []
    for value in values:
        if value is None:
            kind = "null"
        elif isinstance(value, bool):
            kind = "boolean"
        elif isinstance(value, int):
            kind = "integer"
        elif isinstance(value, float):
            kind = "number"
        elif isinstance(value, Decimal):
            kind = "integer" if value == value.to_integral_value() else "number"
        elif isinstance(value, str):
            kind = "string"
        else:
            kind = "object" if isinstance(value, Mapping) else "array"
        if kind not in found:
            found.append(kind)
    if "integer" in found and "number" in found:
        found.remove("integer")
    return found or ["null"]


def _enum_group(kind: str, kinds: list[str], values: list[Any]) -> dict[str, Any]:
    """`{"type": kind, "enum": [the values of that type]}` (integers count as numbers beside numbers)."""
    chosen = []
    for value in values:
        own = _value_types([value])[0]
        if own == "integer" and "number" in kinds:
            own = "number"
        if own == kind:
            chosen.append(value)
    return {"type": kind, "enum": chosen}


def _accepts_type(schema: Mapping[str, Any], kind: str) -> bool:
    types = _types(schema)
    return types is not None and kind in types


def _split_types(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`{"type": [a, b], ...}` as alternatives `[{"type": a, <a's keywords>}, {"type": b, ...}]`."""
    alternatives: list[dict[str, Any]] = []
    for kind in _types(schema) or []:
        own = _TYPE_KEYWORDS.get(kind, frozenset())
        branch: dict[str, Any] = {"type": kind}
        branch.update((k, v) for k, v in schema.items() if k in own)
        alternatives.append(branch)
    return alternatives


def _is_null_schema(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    properties = schema.get("properties")
    return properties if isinstance(properties, Mapping) else {}


def _required(schema: Mapping[str, Any]) -> set[str]:
    required = schema.get("required")
    return (
        {r for r in required if isinstance(r, str)}
        if isinstance(required, list)
        else set()
    )


def _pointer(ref: str) -> str | None:
    """The JSON pointer of a document-local `$ref` ("#", "#/a/b"), or None."""
    if not ref.startswith("#"):
        return None
    pointer = unquote(ref[1:])
    return pointer if pointer == "" or pointer.startswith("/") else None


def _resolve(root: Mapping[str, Any], ref: str) -> Any:
    """The subschema a document-local `$ref` points to, or None."""
    pointer = _pointer(ref)
    if pointer is None:
        return None
    node: Any = root
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, (Mapping, bool)) else None


def _last_token(pointer: str) -> str:
    return pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")


# -- XML ----------------------------------------------------------------------------------------------------


def xml_tool(definition: Mapping[str, Any]) -> ET.Element:
    """One `<tool name=… description=…><arguments><arg …/>…</arguments></tool>` element, in the AutoByteus
    style: an `<arg>` has `name`, `type`, `description`, `required`, `default` and `constraints`; an object's
    properties are nested `<arg>`s, an array's items an `<items>` element, enum values `<enum><value>`
    children (so any value, commas included, survives), and a schema XML cannot show is given as JSON Schema
    text in a `<json_schema>` child. Text XML cannot carry at all (control characters) becomes U+FFFD.
    """
    document = _schema_document(definition["inputSchema"])
    tool = ET.Element("tool")
    tool.set("name", _xml_text(str(definition["name"])))
    tool.set("description", _xml_text(str(definition.get("description") or "")))
    arguments = ET.SubElement(tool, "arguments")
    xml = _Xml(document)
    root, _ = xml.follow(document, [""])
    if isinstance(root, Mapping):  # constraints on the arguments as a whole
        _set_constraints(arguments, root, _EXTRA_PROPERTY_KEYWORDS)
    xml.members(arguments, document, [""])
    return tool


def _set_constraints(
    element: ET.Element, schema: Mapping[str, Any], skip: Iterable[str] = ()
) -> None:
    """A `constraints` attribute: what the element's schema says beyond type, description and default."""
    combinators = _constraint_combinators(schema)
    constraints = [
        _constraint(key, value)
        for key, value in schema.items()
        if (key not in _STRUCTURE or key in combinators)
        and key not in _IGNORED
        and key not in skip
        and not key.startswith("x-")
    ]
    if constraints:
        element.set("constraints", _xml_text(", ".join(constraints)))


class _Xml:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.elements = 0
        # Definitions already shown in full: past the budget, a `$ref` to one is named, not repeated, so
        # a chain of definitions each using the next twice cannot double the document at every link.
        self.expanded: set[str] = set()
        self.types: dict[str, str] = (
            {}
        )  # type_of a bare `$ref`, by pointer ("" while being worked out)

    def members(self, parent: ET.Element, schema: Any, stack: list[str]) -> None:
        schema, _ = self.follow(schema, stack)
        if not isinstance(schema, Mapping):
            return
        required = _required(schema)
        for name, sub in _properties(schema).items():
            if sub is not False:
                self.node(parent, "arg", sub, stack, name, name in required)

    def follow(
        self, schema: Any, stack: list[str], sharing: bool = False
    ) -> tuple[Any, str | None]:
        """Through `$ref`s (the referring schema's own keywords win) and nullable alternatives
        (`anyOf [X, null]` shows as X admitting null): (the target, the name of the last `$ref` followed).
        With `sharing`, stop at a definition already expanded once the element budget is spent.
        """
        name = None
        for _ in range(_MAX_REF_HOPS):
            if not isinstance(schema, Mapping):
                break
            nullable = _nullable_alternative(schema)
            if nullable is not None:
                schema = nullable
                continue
            if not isinstance(schema.get("$ref"), str):
                break
            pointer = _pointer(schema["$ref"])
            target = _resolve(self.root, schema["$ref"])
            if target is None or pointer is None or pointer in stack:
                break
            if sharing and pointer in self.expanded and self.elements >= _XML_BUDGET:
                break
            if sharing and len(stack) > _MAX_XML_REFS:
                break
            stack.append(pointer)
            name = _last_token(pointer) or None
            merged = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **merged} if isinstance(target, Mapping) else target
        return schema, name

    def node(
        self,
        parent: ET.Element,
        tag: str,
        original: Any,
        stack: list[str],
        name: str | None = None,
        required: bool | None = None,
    ) -> None:
        depth = len(stack)
        schema, ref_name = self.follow(original, stack, sharing=True)
        self.expanded.update(stack[depth:])
        pointer = _pointer_of(schema) if isinstance(schema, Mapping) else None
        # An enclosing element's structure, one shown before, or one nested through too many `$ref`s (which no
        # nesting limit of a document bounds): named, not shown.
        cycle = pointer is not None and (
            pointer in stack or pointer in self.expanded or len(stack) > _MAX_XML_REFS
        )
        element = ET.SubElement(parent, tag)
        self.elements += 1
        if name is not None:
            element.set("name", _xml_text(name))
        shown = _resolve(self.root, schema["$ref"]) if cycle else schema
        element.set("type", self.type_of(shown))
        if ref_name:
            element.set("schema", _xml_text(ref_name))
        if not isinstance(schema, Mapping):
            del stack[depth:]
            return
        if isinstance(schema.get("description"), str):
            element.set("description", _xml_text(schema["description"]))
        if required is not None:
            element.set("required", "true" if required else "false")
        if "default" in schema:
            element.set("default", _xml_text(_plain_text(schema["default"])))
        _set_constraints(element, schema)
        values = _enum_values(schema)
        if cycle:
            if not ref_name:
                target = _pointer_of(schema) or ""
                element.set("schema", _xml_text(_last_token(target) or "(root)"))
        elif values is not None:
            enum = ET.SubElement(element, "enum")
            for value in values:
                ET.SubElement(enum, "value").text = _xml_text(_plain_text(value))
        elif self.simple_object(schema):
            self.members(element, schema, stack)
        elif self.simple_array(schema):
            self.node(element, "items", schema.get("items", True), stack)
        elif not self.simple_scalar(schema):
            body = {k: v for k, v in schema.items() if k != "description"}
            ET.SubElement(element, "json_schema").text = _xml_text(_compact(body))
        del stack[depth:]

    def type_of(self, schema: Any, depth: int = 0) -> str:
        """The `type` attribute of an element of `schema`. `depth` counts the alternatives it is nested in (a
        chain of alternatives referring on, which no nesting limit of a document bounds, is "any" beyond).
        """
        if not isinstance(schema, Mapping) or depth > _MAX_REF_HOPS:
            return "any"
        types = _types(schema)
        if types is None:
            values = _enum_values(schema)
            if values is not None:
                types = _value_types(values)
            elif "properties" in schema:
                types = ["object"]
            elif "items" in schema:
                types = ["array"]
            else:
                found: list[str] = []
                for keyword in ("anyOf", "oneOf"):
                    for alternative in schema.get(keyword) or []:
                        kinds = self.alternative_type(alternative, depth + 1)
                        for kind in kinds.split("|"):
                            if kind not in found:
                                found.append(kind)
                types = found if found and "any" not in found else ["any"]
        return "|".join(types)

    def alternative_type(self, alternative: Any, depth: int) -> str:
        """type_of an alternative, once per definition a bare `$ref` names (so nested alternatives
        referring to the same definition cost nothing, and a definition among its own alternatives is "any").
        """
        pointer = _pointer_of(alternative) if isinstance(alternative, Mapping) else None
        if pointer is None or len(alternative) != 1:
            return self.type_of(self.follow(alternative, [])[0], depth)
        if pointer not in self.types:
            self.types[pointer] = ""
            self.types[pointer] = self.type_of(self.follow(alternative, [])[0], depth)
        return self.types[pointer] or "any"

    @staticmethod
    def simple_object(schema: Mapping[str, Any]) -> bool:
        return _only(schema, "object") and isinstance(schema.get("properties"), Mapping)

    @staticmethod
    def simple_array(schema: Mapping[str, Any]) -> bool:
        return _only(schema, "array") and "prefixItems" not in schema

    @staticmethod
    def simple_scalar(schema: Mapping[str, Any]) -> bool:
        types = _types(schema)
        structure = set(_structure(schema)) - {"type"}
        return types is not None and not structure and set(types) <= _JSON_TYPES


def _nullable_alternative(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{"anyOf": [X, {"type": "null"}], ...}` as X admitting null (X's `type` gains "null"), else None."""
    if "anyOf" not in schema and "oneOf" not in schema:
        return None  # the common case, asked at every `$ref` followed
    structure = [k for k in schema if k in _STRUCTURE]
    if len(structure) != 1 or structure[0] not in ("anyOf", "oneOf"):
        return None
    alternatives = schema[structure[0]]
    if not isinstance(alternatives, list):
        return None
    others = [a for a in alternatives if not _is_null_schema(a)]
    if len(others) != 1 or len(others) == len(alternatives):
        return None
    inner = others[0]
    if not isinstance(inner, Mapping) or not isinstance(inner.get("type"), (str, list)):
        return None
    merged = {**inner, **{k: v for k, v in schema.items() if k != structure[0]}}
    kinds = _types(inner) or []
    merged["type"] = kinds if "null" in kinds else [*kinds, "null"]
    return merged


def _pointer_of(schema: Mapping[str, Any]) -> str | None:
    ref = schema.get("$ref")
    return _pointer(ref) if isinstance(ref, str) else None


_COMBINED = frozenset({"anyOf", "oneOf", "allOf", "$ref"})


def _only(schema: Mapping[str, Any], kind: str) -> bool:
    """`type` is `kind` (perhaps nullable), and no alternatives or intersections complicate it."""
    types = _types(schema) or (
        [kind] if kind == "object" and "properties" in schema else []
    )
    combined = not _COMBINED.isdisjoint(schema) and not _COMBINED.isdisjoint(
        _structure(schema)
    )
    return [t for t in types if t != "null"] == [kind] and not combined


def _plain_text(value: Any) -> str:
    return value if isinstance(value, str) else _compact(value)


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)
