"""JSON front end: tool definition files (`*.json`) and entity schemas (`*.schema.json`).

Recognises the shapes of reference/json-tools.md §1 — function-calling, the OpenAI wrapper and flat forms, MCP
tools (also a `tools/list` result), Lilux manifests and the BFCL dialect — and lowers each to an IR `Tool` whose
types are the file's own JSON Schema fragments, each read in the dialect its `$schema` names (dialects.py).
"""

from __future__ import annotations

import re
from typing import Any

from ...diagnostics import Diagnostics, SourceFile, SpecError, Span
from ...ir import (
    DELETE,
    Entity,
    JArray,
    JObject,
    SpecModule,
    Tool,
    rewrite_schema,
)
from .dialects import check_2020_document, lower_document
from .mcp_fields import mcp_fields
from toolspec_runtime.exports import MCP_TOOL_FIELDS
from .parse import parse_json

TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,127}\Z")

# BFCL's own type names and what they mean in JSON Schema (reference/json-tools.md §1).
_BFCL_TYPES: dict[str, dict[str, Any]] = {
    "dict": {"type": "object"},
    "float": {"type": "number"},
    "tuple": {"type": "array"},
    "any": {},
    "String": {"type": "string"},
    "HashMap": {"type": "object", "additionalProperties": {"type": "string"}},
}
_INPUT_KEYS = ("parameters", "inputSchema", "inputs", "input_schema")
_OUTPUT_KEYS = ("outputSchema", "outputs", "response", "output_schema")
_TOOL_KEYS = {"name", "description", "config_schema", *_INPUT_KEYS, *_OUTPUT_KEYS}
_LILUX_KEYS = ("inputs", "outputs", "executor")
# Root keywords that may make an input schema an object one without a `type` of its own: with none of them, an
# input schema with no `type` is narrowed to objects (and said so).
_TYPED_BY = ("type", "$ref", "allOf", "anyOf", "oneOf", "const", "enum")


def with_title(schema: JObject, title: str, span: Span) -> JObject:
    """`schema` with `title` as its first keyword (in place of any title it had), spans kept."""
    items = {"title": title, **{k: v for k, v in schema.items() if k != "title"}}
    key_spans = {k: schema.key_span(k) for k in schema if k != "title"}
    value_spans = {k: schema.value_span(k) for k in schema if k != "title"}
    key_spans["title"] = value_spans["title"] = span
    return JObject(items, schema.span, key_spans, value_spans)


def load_schema_file(source: SourceFile, diags: Diagnostics) -> SpecModule:
    """A `*.schema.json` file: one entity, named by its `title`, else by the file stem."""
    doc = lower_document(parse_json(source, diags), diags)
    if doc is None:
        raise SpecError("the schema is refused in its dialect")
    if not isinstance(doc, (JObject, bool)):
        diags.error(
            "schema-shape",
            "a .schema.json file must hold a JSON Schema object",
            _span_of(doc, source),
        )
        raise SpecError("not a schema")
    stem = source.path.name[: -len(".schema.json")]
    name = doc.get("title") if isinstance(doc, JObject) else None
    if not isinstance(name, str) or not name.strip():
        name = stem
    span = doc.span if isinstance(doc, JObject) else source.span(0)
    description = doc.get("description") if isinstance(doc, JObject) else None
    if isinstance(doc, bool):  # its object twin, which can carry the title
        doc = JObject({} if doc else {"not": JObject({}, span)}, span)
    schema = entity_schema(doc, name, span)
    return SpecModule(
        source,
        entities=(
            Entity(
                name,
                span,
                description if isinstance(description, str) else None,
                schema,
            ),
        ),
    )


def entity_schema(schema: JObject, name: str, span: Span) -> JObject:
    """An entity's schema as every front end gives it: titled by the entity's name, so that the same entity
    written in any format has the same schema (and a schema file read back keeps its name).
    """
    return with_title(schema, name, span)


def check_dialect(schema: Any, diags: Diagnostics) -> bool:
    """Refuse, with a diagnostic, keywords of older drafts in a schema read as 2020-12 (schema positions only)."""
    return check_2020_document(schema, diags)


def load_tool_file(source: SourceFile, diags: Diagnostics) -> SpecModule:
    doc = parse_json(source, diags)
    tools: list[Tool] = []
    dropped: list[Tool] = []
    for entry in tool_entries(doc):
        tool = _tool(entry, source, diags, dropped)
        if tool is not None:
            tools.append(tool)
    return SpecModule(source, tools=tuple(tools), dropped=tuple(dropped))


def tool_entries(doc: Any) -> JArray | list[Any]:
    """The tool definitions of a tool file's document: a list of them, an MCP tools/list result's `tools`,
    or the document itself (one tool)."""
    if isinstance(doc, JArray):
        return doc
    listed = doc.get("tools") if isinstance(doc, JObject) else None
    if isinstance(listed, JArray) and not _looks_like_tool(doc):
        return listed  # an MCP tools/list result
    return [doc]


def _looks_like_tool(doc: JObject) -> bool:
    return any(key in doc for key in ("name", "tool_id", "function", *_INPUT_KEYS))


def _span_of(value: Any, source: SourceFile) -> Span:
    return value.span if isinstance(value, (JObject, JArray)) else source.span(0)


def _tool(
    entry: Any, source: SourceFile, diags: Diagnostics, dropped: list[Tool]
) -> Tool | None:
    """The tool of one entry, or None; a named tool left out after an error is appended to `dropped` (it keeps
    its name, so a duplicate is reported and a reference to it is not)."""
    if not isinstance(entry, JObject):
        diags.error(
            "tool-shape",
            "a tool definition must be a JSON object",
            _span_of(entry, source),
        )
        return None
    # OpenAI wrapper {"type": "function", "function": {...}}; the flat Responses form needs no unwrapping.
    if entry.get("type") == "function" and isinstance(entry.get("function"), JObject):
        entry = entry["function"]
    if not _looks_like_tool(entry):
        diags.error(
            "unknown-shape",
            "not a tool definition: expected 'name' with 'parameters' (function calling), 'inputSchema' (MCP), "
            "'tool_id' with 'inputs' (Lilux), or {'type': 'function', 'function': {...}} (OpenAI)",
            entry.span,
        )
        return None
    # A Lilux manifest names its tool by `tool_id` and gives `name` as a human-readable title; every other
    # shape (and a manifest without `tool_id`) names it by `name`.
    name_key = "tool_id" if "tool_id" in entry else "name"
    name = entry.get(name_key)
    title = entry.get("name") if name_key == "tool_id" else None
    if not isinstance(name, str) or not name:
        diags.error(
            "tool-name",
            "the tool has no name",
            entry.span if name is None else entry.value_span(name_key),
        )
        return None
    if not TOOL_NAME.match(name):
        hint = ""
        if name_key == "name" and any(key in entry for key in _LILUX_KEYS):
            hint = "; a Lilux manifest names its tool by 'tool_id' ('name' is then its title)"
        diags.error(
            "tool-name",
            f"{name!r} is not a valid tool name: use letters, digits, '_', '-' and '.', starting with a letter{hint}",
            entry.value_span(name_key),
        )
        return None
    if title is not None and not isinstance(title, str):
        diags.error(
            "tool-title",
            "the tool's 'name' (its human-readable title beside 'tool_id') must be a string",
            entry.value_span("name"),
        )
        title = None
    description = entry.get("description")
    if description is not None and not isinstance(description, str):
        diags.error(
            "tool-description",
            "the description must be a string",
            entry.value_span("description"),
        )
        description = None

    input_key = next((key for key in _INPUT_KEYS if key in entry), None)
    input_schema = _first(entry, _INPUT_KEYS)
    if input_schema is None:
        input_schema = JObject(
            {"type": "object", "properties": JObject({}, entry.span)}, entry.span
        )
    output_schema = _first(entry, _OUTPUT_KEYS)
    config_schema = entry.get("config_schema")
    # Each schema document in its own dialect; a tool whose schemas use keywords they cannot mean is left out
    # (its name kept), so one bad tool does not take the others of its file with it.
    input_schema = lower_document(_normalize_bfcl(input_schema, diags), diags)
    refused = input_schema is None
    if output_schema is not None:
        output_schema = lower_document(_normalize_bfcl(output_schema, diags), diags)
        refused = refused or output_schema is None
    if config_schema is not None:
        config_schema = lower_document(config_schema, diags)
        refused = refused or config_schema is None
    if refused:
        span = entry.value_span(name_key)
        dropped.append(Tool(name, span, None, JObject({}, span)))
        return None
    if (
        not isinstance(input_schema, JObject)
        or input_schema.get("type", "object") != "object"
    ):
        diags.error(
            "input-not-object",
            "a tool's parameters must be a JSON Schema of type 'object'",
            _span_of(input_schema, source),
        )
        span = entry.value_span(name_key)
        dropped.append(Tool(name, span, None, JObject({}, span)))
        return None
    if input_key is not None and not any(key in input_schema for key in _TYPED_BY):
        diags.warning(
            "input-narrowed",
            "the input schema states no 'type': it is read as 'type': 'object' (a tool's arguments are an "
            "object), so the arguments model refuses the non-object values the schema alone would accept",
            entry.value_span(input_key),
        )
    if title and title.strip() and title != name and "title" not in input_schema:
        input_schema = with_title(input_schema, title, entry.value_span("name"))
    if config_schema is not None and not isinstance(config_schema, JObject):
        diags.error(
            "config-schema",
            "'config_schema' must be a JSON Schema object",
            entry.value_span("config_schema"),
        )
        config_schema = None
    metadata = {
        key: entry[key]
        for key in sorted(entry)
        if key not in _TOOL_KEYS and key != "tool_id" and key not in MCP_TOOL_FIELDS
    }
    return Tool(
        name=name,
        span=entry.value_span(name_key),
        description=description,
        input_schema=input_schema,
        output_schema=output_schema,
        config_schema=config_schema,
        metadata=metadata,
        mcp_fields=mcp_fields(entry, diags),
    )


def _first(entry: JObject, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in entry:
            return entry[key]
    return None


def _normalize_bfcl(schema: Any, diags: Diagnostics) -> Any:
    """Rewrite BFCL's type names into JSON Schema, warning once per rewritten spot."""

    def visit(node: JObject) -> JObject:
        kind = node.get("type")
        if not isinstance(kind, str) or kind not in _BFCL_TYPES:
            return node
        replacement = _BFCL_TYPES[kind]
        diags.warning(
            "bfcl-type",
            f"BFCL type name {kind!r} read as {replacement or 'any value'}",
            node.value_span("type"),
        )
        changes: dict[str, Any] = {"type": DELETE}
        for key, value in replacement.items():
            changes[key] = (
                JObject(value, node.span) if isinstance(value, dict) else value
            )
        return node.replace(**changes)

    return rewrite_schema(schema, visit)
