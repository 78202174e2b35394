"""Brimley argument syntax lowered to JSON Schema fragments (../shared/reference/brimley.md §2, the seed §1–§7).

Types lower to exactly the fragments the gram front end produces (gram/schema.py), with the same key order,

    type|$ref, format, description, default, enum, minimum, maximum, minLength, maxLength, pattern,
    minItems, maxItems, items, properties, required, additionalProperties

so a tool written in Brimley, gram or JSON gives identical models, stubs and schema files.

`ArgumentLowering.block` reads an `arguments`-like block (`arguments`, `config`, an entity's `fields`, an inline
`return_shape`): `entity_ref` plus `inline` in shorthand, complex or JSON Schema mode, entry by entry.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from ...diagnostics import Diagnostics, Span, span_inside
from ...ir import ContextParam, JArray, JObject, to_plain
from toolspec_runtime.validation import is_valid
from .pending import Inherit, Override
from ..gram.schema import Built, near_miss
from ..json.tools import check_dialect

PRIMITIVES: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "decimal": {"type": "number", "format": "decimal"},
    "bool": {"type": "boolean"},
    "string": {"type": "string"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "primitive": {"type": ["string", "number", "boolean"]},
}
ALIASES = {
    "str": "string",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "any": "primitive",
}
TYPE_NAMES = (*PRIMITIVES, *ALIASES)
# Names people reach for from other languages, and what to write instead.
_FOREIGN = {
    "text": "string",
    "varchar": "string",
    "char": "string",
    "double": "float",
    "real": "float",
    "numeric": "decimal",
    "long": "int",
    "bigint": "int",
    "smallint": "int",
    "timestamp": "datetime",
    "time": "string",
    "uuid": "string",
    "list": "a list such as string[] or int[]",
    "array": "a list such as string[] or int[]",
    "dict": "an entity, or the JSON Schema mode (inline: {properties: …})",
    "object": "an entity, or the JSON Schema mode (inline: {properties: …})",
    "json": "an entity, or the JSON Schema mode (inline: {properties: …})",
    "void": "void only as a return_shape",
    "none": "void only as a return_shape",
    "null": "void only as a return_shape",
}
TYPE_SPELLING = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<list>(?:\[\])*)\Z")
ENTITY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
CONTEXT_PATH = re.compile(r"(?P<scope>[^.]+)(?:\.[^.\s]+)+\Z")
SCOPES = ("app", "config")

COMPLEX_KEYS = (
    "type",
    "description",
    "default",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "from_context",
    "required",
)
CONSTRAINTS = ("enum", "minimum", "maximum", "minLength", "maxLength", "pattern")
_APPLIES = {
    "string": {"enum", "minLength", "maxLength", "pattern"},
    "integer": {"enum", "minimum", "maximum"},
    "number": {"enum", "minimum", "maximum"},
    "boolean": {"enum"},
    "primitive": {"enum"},
    "entity": set(),
}
_COUNTS = ("minLength", "maxLength", "minItems", "maxItems")
_BOUNDS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))


@dataclass
class Block:
    """An arguments-like block, lowered: an object schema plus what needs other files or the runtime context."""

    schema: JObject
    context: list[ContextParam] = field(default_factory=list)
    inherit: Inherit | None = None
    names: dict[str, Span] = field(
        default_factory=dict
    )  # every declared argument -> its name's span
    # False when some entry failed (reported): the block holds the entries that lowered, for the checks that
    # still run on a definition left out (`link` checks its placeholders and inheritance)
    complete: bool = True


def complete(block: Block | None) -> Block | None:
    """The block, or None when some entry of it failed."""
    return block if block is not None and block.complete else None


@dataclass
class _Entry:
    schema: JObject | None
    required: bool
    context: str | None = None
    context_span: Span | None = None
    override: Override | None = None


def span_of(value: Any, parent: JObject, key: str) -> Span:
    return (
        value.span if isinstance(value, (JObject, JArray)) else parent.value_span(key)
    )


def describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {shown!r}"
    if isinstance(value, JArray):
        return "a list"
    return "a mapping"


class ArgumentLowering:
    """Lowers the type notation of one Brimley file; records diagnostics and returns None for what it cannot lower."""

    def __init__(self, diags: Diagnostics, local_entities: set[str]) -> None:
        self.diags = diags
        self.local_entities = local_entities

    def error(
        self, code: str, message: str, span: Span, *notes: tuple[str, Span | None]
    ) -> None:
        self.diags.error(code, message, span, *notes)

    # ── Types ───────────────────────────────────────────────────────────────────────────────────────────────

    def type_name(self, text: Any, span: Span, what: str) -> JObject | None:
        """A shorthand type — `int`, `string[]`, `Order`, `Order[]` — as a schema."""
        if not isinstance(text, str):
            self.error(
                "brimley-type",
                f"{what}: a type is a name such as 'string' or 'Order[]', not {describe(text)}",
                span,
            )
            return None
        match = TYPE_SPELLING.match(text.strip())
        if match is None:
            self.error(
                "brimley-type",
                f"{what}: {text!r} is not a type name (e.g. 'int', 'string[]', 'Order')",
                span,
            )
            return None
        depth = len(match["list"]) // 2
        element = self._base(match["name"], span, what)
        if element is None:
            return None
        schema = Built(span)
        for key, value in element.items():
            schema.put(
                key, JArray(value, span) if isinstance(value, list) else value, span
            )
        out = schema.done()
        for _ in range(depth):
            wrapper = Built(span)
            wrapper.put("type", "array", span)
            wrapper.put("items", out, span)
            out = wrapper.done()
        return out

    def _base(self, name: str, span: Span, what: str) -> dict[str, Any] | None:
        canonical = ALIASES.get(name, name)
        if canonical in PRIMITIVES:
            return dict(PRIMITIVES[canonical])
        if name in self.local_entities:
            return {"$ref": f"entity:{name}"}
        hint = _FOREIGN.get(name.lower())
        suggestion = near_miss(name, TYPE_NAMES)
        if hint is None and suggestion is not None:
            hint = suggestion
        if hint is not None:
            self.error(
                "brimley-type",
                f"{what}: unknown type '{name}'; did you mean {hint if ' ' in hint else repr(hint)}?",
                span,
                (
                    f"types: {', '.join(TYPE_NAMES)}, T[] for a list; any other name is an entity",
                    None,
                ),
            )
            return None
        if not ENTITY_NAME.match(
            name
        ):  # pragma: no cover - TYPE_SPELLING already allows only these
            self.error("brimley-type", f"{what}: {name!r} is not a type name", span)
            return None
        return {"$ref": f"entity:{name}"}

    def complex(
        self, entry: JObject, what: str, *, context: bool, inherited: bool
    ) -> _Entry | None:
        """A complex entry `{type: …, default: …, enum: …, from_context: …, required: …}`."""
        ok = self._known_keys(entry, COMPLEX_KEYS, what)
        required_ok, required = self._required(entry, what)
        path, path_span, context_ok = self._context(entry, what, context)
        if not (ok and required_ok and context_ok):
            return None
        if "type" not in entry:
            if inherited:
                return self._override(entry, what, path, required)
            self.error(
                "brimley-type",
                f"{what} has no 'type' (e.g. type: string)",
                entry.span,
                (
                    "only an argument inherited through entity_ref may omit it, to add from_context or a default",
                    None,
                ),
            )
            return None
        base = self.type_name(entry["type"], entry.value_span("type"), what)
        if base is None:
            return None
        if required is True and "default" in entry:
            self.error(
                "brimley-key",
                f"{what}: a required argument has no default",
                entry.key_span("default"),
            )
            return None
        schema = self._decorate(base, entry, what)
        if schema is None:
            return None
        is_required = (
            required
            if required is not None
            else ("default" not in entry and path is None)
        )
        return _Entry(schema, is_required, path, path_span)

    def _override(
        self, entry: JObject, what: str, path: str | None, required: bool | None
    ) -> _Entry | None:
        extra = [
            key for key in entry if key not in ("from_context", "default", "required")
        ]
        if extra:
            self.error(
                "brimley-arg-name",
                f"{what} has no 'type' but sets {extra[0]!r}: an argument inherited through entity_ref may only "
                "gain from_context, a default or required: false",
                entry.key_span(extra[0]),
            )
            return None
        override = Override(
            name="",
            span=entry.span,
            from_context=path,
            default=entry.get("default"),
            has_default="default" in entry,
            required=required,
        )
        return _Entry(
            None,
            False,
            path,
            entry.value_span("from_context") if path else None,
            override,
        )

    def _known_keys(self, entry: JObject, known: tuple[str, ...], what: str) -> bool:
        ok = True
        for key in entry:
            if key in known:
                continue
            suggestion = near_miss(key, known)
            hint = (
                f"; did you mean '{suggestion}'?"
                if suggestion
                else f" (known keys: {', '.join(known)})"
            )
            self.error(
                "brimley-key", f"{what}: unknown key '{key}'{hint}", entry.key_span(key)
            )
            ok = False
        return ok

    def _required(self, entry: JObject, what: str) -> tuple[bool, bool | None]:
        if "required" not in entry:
            return True, None
        value = entry["required"]
        if not isinstance(value, bool):
            self.error(
                "brimley-key",
                f"{what}: 'required' is true or false, not {describe(value)}",
                entry.value_span("required"),
            )
            return False, None
        return True, value

    def _context(
        self, entry: JObject, what: str, allowed: bool
    ) -> tuple[str | None, Span | None, bool]:
        """(path, its span, ok) of a `from_context` key."""
        if "from_context" not in entry:
            return None, None, True
        span = entry.value_span("from_context")
        value = entry["from_context"]
        if not allowed:
            self.error(
                "brimley-context",
                f"{what}: from_context belongs to a function's arguments (its value comes from the runtime context)",
                entry.key_span("from_context"),
            )
            return None, None, False
        if not isinstance(value, str):
            self.error(
                "brimley-context",
                f"{what}: from_context is a dot path such as 'app.user.id', not {describe(value)}",
                span,
            )
            return None, None, False
        match = CONTEXT_PATH.match(value)
        if match is None:
            self.error(
                "brimley-context",
                f"{what}: {value!r} is not a context path: write a scope and at least one key, e.g. 'app.user.id'",
                span,
            )
            return None, None, False
        if match["scope"] not in SCOPES:
            suggestion = near_miss(match["scope"], SCOPES)
            hint = f"; did you mean '{suggestion}'?" if suggestion else ""
            self.error(
                "brimley-context",
                f"{what}: unknown context scope '{match['scope']}' in {value!r}: a path starts with 'app' "
                f"(application state) or 'config' (configuration){hint}",
                span,
            )
            return None, None, False
        private = _private_segment(value)
        if private is not None:
            start, end = private
            self.error(
                "brimley-context",
                f"{what}: the context path {value!r} names {value[start:end]!r}: the runtime reads only "
                "mapping keys and public attributes, never one whose name starts with '_' (a private or "
                "dunder attribute, such as __init__, leads to the application's internals)",
                span_inside(span, value, start, end),
            )
            return None, None, False
        return value, span, True

    def _decorate(self, base: JObject, entry: JObject, what: str) -> JObject | None:
        """Add description, default and constraints to a type, in gram's key order. For a list the element takes
        the value constraints (enum, bounds, lengths, pattern) and the list description, default, minItems and
        maxItems — as gram's `Array {elementType: {type: …, enum: …}, minItems: …}`."""
        element, depth = base, 0
        while element.get("type") == "array":
            element, depth = element["items"], depth + 1
        kind = _kind(element)
        ok = True
        for key in (*CONSTRAINTS, "minItems", "maxItems"):
            if key not in entry:
                continue
            applies = (
                depth > 0 if key in ("minItems", "maxItems") else key in _APPLIES[kind]
            )
            if not applies:
                target = (
                    "a single value"
                    if key in ("minItems", "maxItems")
                    else f"{'a list of ' * min(depth, 1)}{kind}"
                )
                self.error(
                    "brimley-constraint",
                    f"{what}: '{key}' does not apply to {target}",
                    entry.key_span(key),
                )
                ok = False
            elif not self._constraint_ok(entry, key, what):
                ok = False
        if not ok or not self._bounds_agree(entry, what):
            return None
        if "description" in entry and not isinstance(entry["description"], str):
            self.error(
                "brimley-key",
                f"{what}: a description is a string",
                entry.value_span("description"),
            )
            return None
        if "enum" in entry and not self._enum_ok(entry, element, what):
            return None
        top = ("description", "default")
        out = self._with(
            element, entry, (*top, *CONSTRAINTS) if depth == 0 else CONSTRAINTS
        )
        for level in range(depth, 0, -1):
            keys = (*top, "minItems", "maxItems") if level == 1 else ()
            wrapper = Built(base.span)
            wrapper.put("type", "array", base.key_span("type"))
            for key in keys:
                if key in entry:
                    wrapper.put(
                        key, entry[key], entry.key_span(key), entry.value_span(key)
                    )
            wrapper.put("items", out, base.key_span("items"))
            out = wrapper.done()
        if "default" in entry and not self._default_ok(entry, out, what):
            return None
        return out

    def _with(self, base: JObject, entry: JObject, keys: tuple[str, ...]) -> JObject:
        out = Built(base.span)
        for key in base:
            out.put(key, base[key], base.key_span(key), base.value_span(key))
        for key in keys:
            if key in entry:
                out.put(key, entry[key], entry.key_span(key), entry.value_span(key))
        return out.done()

    def _constraint_ok(self, entry: JObject, key: str, what: str) -> bool:
        value = entry[key]
        span = entry.value_span(key)
        if key in ("minimum", "maximum"):
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return True
            self.error(
                "brimley-constraint",
                f"{what}: '{key}' takes a number, not {describe(value)}",
                span,
            )
            return False
        if key in _COUNTS:
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return True
            self.error(
                "brimley-constraint",
                f"{what}: '{key}' takes a whole number ≥ 0, not {describe(value)}",
                span,
            )
            return False
        if key == "pattern":
            if not isinstance(value, str):
                self.error(
                    "brimley-constraint",
                    f"{what}: 'pattern' takes a regular expression, not {describe(value)}",
                    span,
                )
                return False
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    re.compile(value)
            except re.error as error:
                self.error(
                    "brimley-constraint",
                    f"{what}: the pattern is not a regular expression: {error}",
                    span,
                )
                return False
            return True
        if key == "enum":
            if isinstance(value, JArray) and value:
                return True
            self.error(
                "brimley-constraint",
                f"{what}: 'enum' takes a non-empty list of values, not {describe(value)}",
                span,
            )
            return False
        return True  # pragma: no cover

    def _bounds_agree(self, entry: JObject, what: str) -> bool:
        for low, high in _BOUNDS:
            if low in entry and high in entry:
                a, b = entry[low], entry[high]
                if (
                    isinstance(a, (int, float))
                    and isinstance(b, (int, float))
                    and a > b
                ):
                    self.error(
                        "brimley-constraint",
                        f"{what}: {low} {a} is greater than {high} {b}",
                        entry.value_span(low),
                        (f"{high} is here", entry.value_span(high)),
                    )
                    return False
        return True

    def _enum_ok(self, entry: JObject, element: JObject, what: str) -> bool:
        base = to_plain(element)
        if _has_ref(base):
            return True
        members: JArray = entry["enum"]
        for index, member in enumerate(members):
            if not is_valid(to_plain(member), base):
                self.error(
                    "brimley-constraint",
                    f"{what}: enum member {describe(member)} is not a {_words(base)}",
                    members.item_span(index),
                )
                return False
        return True

    def _default_ok(self, entry: JObject, schema: JObject, what: str) -> bool:
        plain = to_plain(schema)
        if _has_ref(plain):
            return True
        if not is_valid(to_plain(entry["default"]), plain):
            self.error(
                "brimley-default",
                f"{what}: the default {describe(entry['default'])} does not match the type {_words(plain)}",
                entry.value_span("default"),
            )
            return False
        return True

    # ── Blocks: arguments, config, fields, inline return shapes ─────────────────────────────────────────────

    def arguments(
        self,
        node: Any,
        span: Span,
        what: str,
        *,
        context: bool,
        inherit: bool,
        noun: str = "argument",
    ) -> Block | None:
        """An `arguments`-like mapping {entity_ref: …, inline: …} (also `config` and a mapping `return_shape`)."""
        if node is None:
            return Block(_object(span, Built(span).done(), [], []))
        if not isinstance(node, JObject):
            self.error(
                "brimley-shape",
                f"{what}: expected a mapping with 'entity_ref' and/or 'inline', not {describe(node)}",
                span,
            )
            return None
        if not self._known_keys(node, ("entity_ref", "inline"), what):
            return None
        inherited: Inherit | None = None
        if node.get("entity_ref") is not None:
            if not inherit:
                self.error(
                    "brimley-entity-ref",
                    f"{what}: entity_ref is not allowed here",
                    node.key_span("entity_ref"),
                )
                return None
            inherited = self._entity_ref(node, what)
            if inherited is None:
                return None
        inline_span = node.value_span("inline") if "inline" in node else node.span
        return self.inline(
            node.get("inline"),
            inline_span,
            what,
            context=context,
            inherited=inherited,
            noun=noun,
        )

    def _entity_ref(self, node: JObject, what: str) -> Inherit | None:
        value = node["entity_ref"]
        span = node.value_span("entity_ref")
        if not isinstance(value, str) or not ENTITY_NAME.match(value):
            hint = ""
            if isinstance(value, str) and value.endswith("[]"):
                hint = " (not a list: the arguments are the fields of one entity)"
            self.error(
                "brimley-entity-ref",
                f"{what}: entity_ref names one entity, e.g. 'Customer'{hint}",
                span,
            )
            return None
        if ALIASES.get(value, value) in PRIMITIVES:
            self.error(
                "brimley-entity-ref",
                f"{what}: entity_ref names an entity whose fields become arguments, not the type '{value}'",
                span,
            )
            return None
        return Inherit(value, span)

    def inline(
        self,
        node: Any,
        span: Span,
        what: str,
        *,
        context: bool,
        inherited: Inherit | None,
        noun: str = "argument",
    ) -> Block | None:
        """Named types in shorthand, complex (mixed entry by entry) or JSON Schema mode."""
        if node is None:
            return Block(_object(span, Built(span).done(), [], []), inherit=inherited)
        if not isinstance(node, JObject):
            self.error(
                "brimley-shape",
                f"{what}: 'inline' is a mapping of argument names to types, not {describe(node)}",
                span,
            )
            return None
        if "properties" in node:
            return self._json_schema(node, what, inherited, noun)
        properties = Built(node.span)
        required: list[str] = []
        required_spans: list[Span] = []
        block = Block(JObject({}, span), inherit=inherited)
        overrides: list[Override] = []
        ok = True
        for name, value in node.items():
            name_span = node.key_span(name)
            block.names[name] = name_span
            entry_what = f"{what}: {noun} '{name}'"
            if isinstance(value, JObject):
                entry = self.complex(
                    value, entry_what, context=context, inherited=inherited is not None
                )
            else:
                schema = self.type_name(value, node.value_span(name), entry_what)
                entry = _Entry(schema, True) if schema is not None else None
            if entry is None:
                ok = False
                continue
            if entry.override is not None:
                overrides.append(
                    Override(name, name_span, *(_override_fields(entry.override)))
                )
                if entry.context is not None:
                    block.context.append(
                        ContextParam(name, entry.context, None, False, None, name_span)
                    )
                continue
            assert entry.schema is not None
            if entry.context is not None:
                default = entry.schema.get("default")
                has_default = "default" in entry.schema
                optional = has_default or (
                    isinstance(value, JObject) and value.get("required") is False
                )
                context_param = ContextParam(
                    name,
                    entry.context,
                    entry.schema,
                    not optional,
                    default if has_default else None,
                    name_span,
                )
                block.context.append(context_param)
                continue
            properties.put(name, entry.schema, name_span, node.value_span(name))
            if entry.required:
                required.append(name)
                required_spans.append(name_span)
        if inherited is not None:
            block.inherit = Inherit(inherited.entity, inherited.span, tuple(overrides))
        block.schema = _object(node.span, properties.done(), required, required_spans)
        block.complete = ok
        return block

    def _json_schema(
        self, node: JObject, what: str, inherited: Inherit | None, noun: str
    ) -> Block | None:
        """The JSON Schema mode: `inline` is an object schema; Brimley tools still accept no undeclared keys."""
        before = len(self.diags)
        check_dialect(node, self.diags)
        if len(self.diags) != before:
            return None
        properties = node["properties"]
        if not isinstance(properties, JObject):
            self.error(
                "brimley-shape",
                f"{what}: 'properties' is a mapping of names to schemas",
                node.value_span("properties"),
            )
            return None
        for name, schema in properties.items():
            if isinstance(schema, JObject) and "from_context" in schema:
                self.error(
                    "brimley-context",
                    f"{what}: {noun} '{name}': from_context is written in the complex mode "
                    "(inline: {name: {type: …, from_context: …}}), not inside a JSON Schema",
                    schema.key_span("from_context"),
                )
                return None
        kind = node.get("type", "object")
        if kind != "object":
            self.error(
                "brimley-shape",
                f"{what}: an inline JSON Schema has type 'object'",
                node.value_span("type"),
            )
            return None
        out = Built(node.span)
        out.put(
            "type", "object", node.key_span("type") if "type" in node else node.span
        )
        for key, value in node.items():
            if key != "type":
                out.put(key, value, node.key_span(key), node.value_span(key))
        if not any(
            key in node
            for key in (
                "additionalProperties",
                "unevaluatedProperties",
                "patternProperties",
            )
        ):
            out.put("additionalProperties", False, node.span)
        block = Block(out.done(), inherit=inherited)
        block.names = {name: properties.key_span(name) for name in properties}
        return block


def _private_segment(path: str) -> tuple[int, int] | None:
    """Where in a context path the first segment starting with `_` stands, if one does. Such a segment could
    only be read as a mapping key, as the runtime never reads a private or dunder attribute (SPEC §4), so a
    spec may not name one: the path means the same whether the context holds mappings or objects.
    """
    start = 0
    for segment in path.split("."):
        if segment.startswith("_"):
            return start, start + len(segment)
        start += len(segment) + 1
    return None


def _override_fields(override: Override) -> tuple[Any, ...]:
    return (
        override.from_context,
        override.default,
        override.has_default,
        override.required,
    )


def _object(
    span: Span, properties: JObject, required: list[str], required_spans: list[Span]
) -> JObject:
    """{"type": "object", ["description"], "properties", ["required"], "additionalProperties": false} — gram's."""
    out = Built(span)
    out.put("type", "object")
    out.put("properties", properties)
    if required:
        out.put("required", JArray(required, span, tuple(required_spans)))
    out.put("additionalProperties", False)
    return out.done()


def with_description(schema: JObject, description: str | None, span: Span) -> JObject:
    """An object schema with `description` right after `type`, where gram puts an entity's description."""
    if description is None or "description" in schema:
        return schema
    out = Built(schema.span)
    for key in schema:
        out.put(key, schema[key], schema.key_span(key), schema.value_span(key))
        if key == "type":
            out.put("description", description, span)
    return out.done()


def _kind(schema: JObject) -> str:
    if "$ref" in schema:
        return "entity"
    kind = schema.get("type")
    return kind if isinstance(kind, str) else "primitive"


def _has_ref(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "$ref" in schema or any(_has_ref(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_ref(v) for v in schema)
    return False


def _words(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if kind == "array":
        return f"list of {_words(schema.get('items', {}))}"
    if isinstance(kind, list):
        return "string, number or boolean"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)
