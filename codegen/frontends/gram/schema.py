"""gram type notation lowered to JSON Schema fragments (../shared/SPEC.md §3, reference/gram.md §3).

A type is written as a label with a record beside it — `(age::Int {default: 18, minimum: 0})` — or, inside
`fields` and `elementType`, as a type name or a map `{type: "Int", default: 18}`. Both become a `TypeSpec`, and
`TypeLowering.lower` turns a spec into a schema with a fixed key order, so the same tool written in gram, JSON or
Brimley lowers to the same schema:

    type|$ref, format, description, default, enum, minimum, maximum, minLength, maxLength, pattern,
    minItems, maxItems, items, properties, required, additionalProperties

Defaults and enum members are checked against the schema they belong to (`mismatch`), in gram terms.
"""

from __future__ import annotations

import datetime
import difflib
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

from ...diagnostics import Diagnostics, SourceFile, Span
from ...ir import JArray, JObject, to_plain
from toolspec_runtime.validation import PatternError, compile_pattern
from .syntax import Entry, Name, Value

# The type vocabulary: both the documented names and the ones pattern-agent's code uses (gram.md §4).
PRIMITIVES: dict[str, dict[str, str]] = {
    "Text": {"type": "string"},
    "String": {"type": "string"},
    "Int": {"type": "integer"},
    "Integer": {"type": "integer"},
    "Double": {"type": "number"},
    "Number": {"type": "number"},
    "Float": {"type": "number"},
    "Decimal": {"type": "number", "format": "decimal"},
    "Bool": {"type": "boolean"},
    "Boolean": {"type": "boolean"},
    "Date": {"type": "string", "format": "date"},
    "DateTime": {"type": "string", "format": "date-time"},
}
STRUCTURED = ("Object", "Array")
BUILTIN_TYPES = (*PRIMITIVES, *STRUCTURED)
TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")

CONSTRAINTS = (
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
)
_APPLIES = {  # which constraints each JSON type takes
    "string": {"enum", "minLength", "maxLength", "pattern"},
    "integer": {"enum", "minimum", "maximum"},
    "number": {"enum", "minimum", "maximum"},
    "boolean": {"enum"},
    "array": {"minItems", "maxItems"},
    "object": set(),
    "entity": set(),
}
TYPE_KEYS = ("description", "default", *CONSTRAINTS, "fields", "elementType")
_COUNTS = {"minLength", "maxLength", "minItems", "maxItems"}
_BOUNDS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))


@dataclass
class TypeSpec:
    """A type as written: its name, the record beside it, and what to call it in messages."""

    name: str
    name_span: Span
    entries: dict[str, Entry]
    span: Span  # the whole spec: a node, or a map in `fields`
    what: str  # "parameter 'age'", "field 'zip'", ...
    extra_keys: tuple[
        str, ...
    ] = ()  # keys the caller handles itself (e.g. `name` of a field entry)


@dataclass
class Built:
    """An ordered JSON object under construction, with the spans of its keys and values."""

    span: Span
    items: dict[str, Any] = field(default_factory=dict)
    key_spans: dict[str, Span] = field(default_factory=dict)
    value_spans: dict[str, Span] = field(default_factory=dict)

    def put(
        self,
        key: str,
        value: Any,
        key_span: Span | None = None,
        value_span: Span | None = None,
    ) -> None:
        self.items[key] = value
        self.key_spans[key] = key_span or self.span
        self.value_spans[key] = value_span or key_span or self.span

    def done(self) -> JObject:
        return JObject(self.items, self.span, self.key_spans, self.value_spans)


# ── Values ──────────────────────────────────────────────────────────────────────────────────────────────────────

_KIND_WORDS = {
    "integer": "an integer",
    "hexadecimal": "an integer",
    "octal": "an integer",
    "decimal": "a decimal number",
    "boolean": "a boolean",
    "string": "a string",
    "tagged": "a tagged string",
    "symbol": "an unquoted name",
    "measurement": "a measurement",
    "range": "a range",
    "array": "an array",
    "map": "a map",
}
_INTEGER_KINDS = {"integer", "hexadecimal", "octal"}
_NUMBER_KINDS = _INTEGER_KINDS | {"decimal"}
_STRING_KINDS = {"string", "tagged"}
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z"
)


def describe(value: Value) -> str:
    """A value in words, for messages: "the integer 18", "the unquoted name world", "an array"."""
    word = _KIND_WORDS[value.kind]
    if value.kind in ("array", "map"):
        return word
    shown = json.dumps(value.data) if value.kind in _STRING_KINDS else value.text
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return f"the {word.split(' ', 1)[1]} {shown}"


def plain(value: Value, text: str) -> Any:
    """A gram value as plain JSON data; measurements and ranges are kept as written."""
    if value.kind == "array":
        return [plain(item, text) for item in value.data]
    if value.kind == "map":
        return {entry.key.text: plain(entry.value, text) for entry in value.data}
    if value.kind in ("measurement", "range"):
        return text[value.start : value.end]
    return value.data


def mismatch(value: Value, schema: dict[str, Any], text: str) -> str | None:
    """Why `value` is not an instance of `schema` (a plain lowered schema), or None if it is."""
    kind_error = _kind_mismatch(value, schema, text)
    if kind_error:
        return kind_error
    return _constraint_mismatch(value, schema, text)


def _kind_mismatch(value: Value, schema: dict[str, Any], text: str) -> str | None:
    if "$ref" in schema:
        return None  # an entity: the core knows its schema, this file may not
    kind = schema.get("type")
    wanted = {
        "string": (_STRING_KINDS, "a string"),
        "integer": (_INTEGER_KINDS, "an integer"),
        "number": (_NUMBER_KINDS, "a number"),
        "boolean": ({"boolean"}, "true or false"),
        "array": ({"array"}, "an array"),
        "object": ({"map"}, "a map {key: value, …}"),
    }
    if kind not in wanted:
        return None
    kinds, words = wanted[kind]
    if value.kind not in kinds:
        hint = (
            " (put text in quotes)"
            if value.kind == "symbol" and kind == "string"
            else ""
        )
        return f"expected {words}, found {describe(value)}{hint}"
    if kind == "string":
        return _format_mismatch(value.data, schema.get("format"))
    if kind == "array":
        return _items_mismatch(value, schema, text)
    if kind == "object":
        return _object_mismatch(value, schema, text)
    return None


def _format_mismatch(data: str, fmt: str | None) -> str | None:
    if fmt == "date":
        try:
            datetime.date.fromisoformat(data)
            return (
                None
                if re.fullmatch(r"\d{4}-\d{2}-\d{2}", data)
                else "expected a date YYYY-MM-DD"
            )
        except ValueError:
            return f"{data!r} is not a date (YYYY-MM-DD)"
    if fmt == "date-time":
        try:
            datetime.datetime.fromisoformat(
                data.replace("Z", "+00:00").replace("z", "+00:00")
            )
        except ValueError:
            return f"{data!r} is not a date-time"
        if not _DATE_TIME.match(data):
            return f"{data!r} is not an RFC 3339 date-time (e.g. 2024-04-05T17:35:00Z, with a time zone)"
    return None


def _items_mismatch(value: Value, schema: dict[str, Any], text: str) -> str | None:
    items = schema.get("items")
    if not isinstance(items, dict):
        return None
    for index, item in enumerate(value.data):
        problem = mismatch(item, items, text)
        if problem:
            return f"item {index}: {problem}"
    return None


def _object_mismatch(value: Value, schema: dict[str, Any], text: str) -> str | None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return None
    given = {entry.key.text: entry.value for entry in value.data}
    for name in schema.get("required", []):
        if name not in given:
            return f"missing the required field {name!r}"
    for name, item in given.items():
        if name not in properties:
            return (
                f"{name!r} is not one of the fields ({', '.join(properties) or 'none'})"
            )
        problem = mismatch(item, properties[name], text)
        if problem:
            return f"field {name!r}: {problem}"
    return None


def _constraint_mismatch(value: Value, schema: dict[str, Any], text: str) -> str | None:
    data = plain(value, text)
    if "enum" in schema and not any(_same(data, member) for member in schema["enum"]):
        return f"{describe(value)} is not one of {json.dumps(schema['enum'])}"
    if (
        "minimum" in schema
        and isinstance(data, (int, float))
        and data < schema["minimum"]
    ):
        return f"{data} is less than the minimum {schema['minimum']}"
    if (
        "maximum" in schema
        and isinstance(data, (int, float))
        and data > schema["maximum"]
    ):
        return f"{data} is more than the maximum {schema['maximum']}"
    if isinstance(data, str):
        if len(data) < schema.get("minLength", 0):
            return f"{describe(value)} is shorter than minLength {schema['minLength']}"
        if "maxLength" in schema and len(data) > schema["maxLength"]:
            return f"{describe(value)} is longer than maxLength {schema['maxLength']}"
        if "pattern" in schema and not _matches(schema["pattern"], data):
            return f"{describe(value)} does not match the pattern {schema['pattern']!r}"
    if isinstance(data, list):
        if len(data) < schema.get("minItems", 0):
            return f"the array has fewer than minItems {schema['minItems']} items"
        if "maxItems" in schema and len(data) > schema["maxItems"]:
            return f"the array has more than maxItems {schema['maxItems']} items"
    return None


def _matches(pattern: str, text: str) -> bool:
    """`pattern` found in `text` by the runtime's linear-time matcher; a refused pattern is reported elsewhere."""
    try:
        return compile_pattern(pattern).search(text)
    except PatternError:
        return True


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    return (
        type(a) is type(b) and a == b
        if isinstance(a, bool) or isinstance(b, bool)
        else a == b
    )


_TYPE_KEYWORDS = (
    "type",
    "format",
    "$ref",
    "items",
    "properties",
    "required",
    "additionalProperties",
)


def type_key(schema: Any) -> str:
    """The type part of a schema, canonical: what two declarations of one global parameter must agree on
    (descriptions, defaults and constraints may differ)."""
    return json.dumps(_type_only(to_plain(schema)), sort_keys=True)


def _type_only(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "properties":  # a map of names to schemas, not a schema
            out[key] = {name: _type_only(schema) for name, schema in value.items()}
        elif key in _TYPE_KEYWORDS:
            out[key] = _type_only(value)
    return out


def type_words(schema: Any) -> str:
    """A schema's type in words: "string", "array of integer", "entity User", "object {a, b}"."""
    node = to_plain(schema)
    if "$ref" in node:
        return f"entity {str(node['$ref']).removeprefix('entity:')}"
    kind = node.get("type", "any")
    if kind == "array":
        return f"array of {type_words(node.get('items', {}))}"
    if kind == "object" and "properties" in node:
        return "object {" + ", ".join(node["properties"]) + "}"
    return f"{kind} ({node['format']})" if "format" in node else str(kind)


# ── Lowering ────────────────────────────────────────────────────────────────────────────────────────────────────


class TypeLowering:
    """Lowers `TypeSpec`s of one file, recording diagnostics; returns None for a type it cannot lower."""

    def __init__(
        self, source: SourceFile, diags: Diagnostics, local_entities: set[str]
    ) -> None:
        self.source = source
        self.text = source.text
        self.diags = diags
        self.local_entities = local_entities  # entity names this file defines (never "did you mean" those)

    def span(self, node: Name | Value) -> Span:
        return self.source.span(node.start, node.end)

    # The entry point: one spec to one schema.
    def lower(self, spec: TypeSpec) -> JObject | None:
        if spec.name in ("Void", "Unit"):
            self.diags.error(
                "gram-type",
                f"{spec.what}: '{spec.name}' is only a return type",
                spec.name_span,
            )
            return None
        base = self._base(spec)
        if base is None:
            return None
        kind = "entity" if "$ref" in base else base["type"]
        if not self._check_keys(spec, kind):
            return None
        out = Built(spec.span)
        for key, value in base.items():
            out.put(key, value, spec.name_span)
        self._describe(spec, out)
        structure = self._structure(spec, kind)
        if structure is None:
            return None
        constraints = self._constraints(spec, kind, base)
        if constraints is None:
            return None
        self._default(
            spec,
            out,
            {
                **base,
                **{key: value for key, value, *_ in constraints},
                **structure.items,
            },
        )
        for key, value, key_span, value_span in constraints:
            out.put(key, value, key_span, value_span)
        for key, value in structure.items.items():
            out.put(key, value, structure.key_spans[key], structure.value_spans[key])
        return out.done()

    def _base(self, spec: TypeSpec) -> dict[str, Any] | None:
        """The schema a type name stands for; an unknown name is an entity unless it looks like a typo."""
        if spec.name in PRIMITIVES:
            return dict(PRIMITIVES[spec.name])
        if spec.name == "Object":
            return {"type": "object"}
        if spec.name == "Array":
            return {"type": "array"}
        if not TYPE_NAME.match(spec.name):
            self.diags.error(
                "gram-type",
                f"{spec.what}: {spec.name!r} is not a type name",
                spec.name_span,
            )
            return None
        suggestion = (
            None
            if spec.name in self.local_entities
            else near_miss(spec.name, BUILTIN_TYPES)
        )
        if suggestion:
            self.diags.error(
                "gram-type",
                f"{spec.what}: unknown type '{spec.name}'; did you mean '{suggestion}'?",
                spec.name_span,
                (
                    f"types: {', '.join(BUILTIN_TYPES)}; any other name is an entity",
                    None,
                ),
            )
            return None
        return {"$ref": f"entity:{spec.name}"}

    def _check_keys(self, spec: TypeSpec, kind: str) -> bool:
        """Every record key must be known and fit the type; say which one does not and why."""
        ok = True
        for key, entry in spec.entries.items():
            if key in spec.extra_keys or key in ("description", "default"):
                continue
            problem = self._key_problem(key, kind, spec)
            if problem:
                code, message = problem
                self.diags.error(code, f"{spec.what}: {message}", self.span(entry.key))
                ok = False
        return ok

    def _key_problem(
        self, key: str, kind: str, spec: TypeSpec
    ) -> tuple[str, str] | None:
        if key in CONSTRAINTS:
            if key in _APPLIES[kind]:
                return None
            hint = (
                " (constraints of the elements go in elementType: {type: …, …})"
                if kind == "array"
                else ""
            )
            return "gram-constraint", f"'{key}' does not apply to {spec.name}{hint}"
        if key == "fields":
            element = spec.entries.get("elementType")
            element_object = element is not None and element.value.data == "Object"
            if spec.name == "Object" or (spec.name == "Array" and element_object):
                return None
            return (
                "gram-key",
                "'fields' belongs to an Object (or an Array whose elementType is \"Object\")",
            )
        if key == "elementType":
            return (
                None
                if spec.name == "Array"
                else ("gram-key", f"'elementType' belongs to an Array, not {spec.name}")
            )
        known = (*TYPE_KEYS, *spec.extra_keys)
        suggestion = near_miss(key, known)
        hint = (
            f"; did you mean '{suggestion}'?"
            if suggestion
            else f" (known keys: {', '.join(known)})"
        )
        return "gram-key", f"unknown key '{key}'{hint}"

    def _describe(self, spec: TypeSpec, out: Built) -> None:
        entry = spec.entries.get("description")
        if entry is None:
            return
        if entry.value.kind not in _STRING_KINDS:
            self.diags.error(
                "gram-description",
                f"{spec.what}: a description is a quoted string",
                self.span(entry.value),
            )
            return
        out.put(
            "description",
            entry.value.data,
            self.span(entry.key),
            self.span(entry.value),
        )

    def _default(self, spec: TypeSpec, out: Built, schema: dict[str, Any]) -> None:
        entry = spec.entries.get("default")
        if entry is None:
            return
        problem = mismatch(entry.value, to_plain(schema), self.text)
        if problem:
            self.diags.error(
                "gram-default",
                f"{spec.what}: the default does not match the type {spec.name}: {problem}",
                self.span(entry.value),
            )
            return
        out.put(
            "default",
            self.json_value(entry.value),
            self.span(entry.key),
            self.span(entry.value),
        )

    def json_value(self, value: Value) -> Any:
        """A gram value as an IR JSON value, keeping the span of every array item and map entry."""
        span = self.span(value)
        if value.kind == "array":
            items = [self.json_value(item) for item in value.data]
            return JArray(items, span, tuple(self.span(item) for item in value.data))
        if value.kind == "map":
            out = Built(span)
            for entry in value.data:
                out.put(
                    entry.key.text,
                    self.json_value(entry.value),
                    self.span(entry.key),
                    self.span(entry.value),
                )
            return out.done()
        return plain(value, self.text)

    # ── Constraints ─────────────────────────────────────────────────────────────────────────────────────────

    def _constraints(
        self, spec: TypeSpec, kind: str, base: dict[str, Any]
    ) -> list[tuple[str, Any, Span, Span]] | None:
        """The constraints in schema order, each checked for its own shape; None when one is malformed."""
        found: list[tuple[str, Any, Span, Span]] = []
        ok = True
        for key in CONSTRAINTS:
            entry = spec.entries.get(key)
            if entry is None:
                continue
            value = self._constraint(spec, key, entry, base)
            if value is None:
                ok = False
                continue
            found.append((key, value, self.span(entry.key), self.span(entry.value)))
        return found if ok and self._bounds_agree(spec, found) else None

    def _constraint(
        self, spec: TypeSpec, key: str, entry: Entry, base: dict[str, Any]
    ) -> Any:
        value = entry.value
        where = self.span(value)
        if key in ("minimum", "maximum"):
            if value.kind in _NUMBER_KINDS:
                return value.data
            self._bad(spec, key, "a number", value, where)
            return None
        if key in _COUNTS:
            if value.kind in _INTEGER_KINDS and value.data >= 0:
                return value.data
            self._bad(spec, key, "a whole number ≥ 0", value, where)
            return None
        if key == "pattern":
            return self._pattern(spec, value, where)
        return self._enum(spec, value, base)

    def _bad(
        self, spec: TypeSpec, key: str, wanted: str, value: Value, where: Span
    ) -> None:
        self.diags.error(
            "gram-constraint",
            f"{spec.what}: '{key}' takes {wanted}, not {describe(value)}",
            where,
        )

    def _pattern(self, spec: TypeSpec, value: Value, where: Span) -> str | None:
        if value.kind not in _STRING_KINDS:
            self._bad(spec, "pattern", "a regular expression in quotes", value, where)
            return None
        try:
            with (
                warnings.catch_warnings()
            ):  # Python's hints about future syntax are not the spec author's problem
                warnings.simplefilter("ignore")
                re.compile(value.data)
        except re.error as error:
            self.diags.error(
                "gram-constraint",
                f"{spec.what}: the pattern is not a regular expression: {error}",
                where,
            )
            return None
        return str(value.data)

    def _enum(
        self, spec: TypeSpec, value: Value, base: dict[str, Any]
    ) -> JArray | None:
        where = self.span(value)
        if value.kind != "array" or not value.data:
            self._bad(spec, "enum", "a non-empty array of values", value, where)
            return None
        for item in value.data:
            problem = mismatch(item, base, self.text)
            if problem:
                self.diags.error(
                    "gram-constraint",
                    f"{spec.what}: enum member: {problem}",
                    self.span(item),
                )
                return None
        return self.json_value(value)  # type: ignore[no-any-return]

    def _bounds_agree(
        self, spec: TypeSpec, found: list[tuple[str, Any, Span, Span]]
    ) -> bool:
        values = {key: (value, span) for key, value, _, span in found}
        for low, high in _BOUNDS:
            if low in values and high in values and values[low][0] > values[high][0]:
                self.diags.error(
                    "gram-constraint",
                    f"{spec.what}: {low} {values[low][0]} is greater than {high} {values[high][0]}",
                    values[low][1],
                    (f"{high} is here", values[high][1]),
                )
                return False
        return True

    # ── Structure: items of an Array, properties of an Object ───────────────────────────────────────────────

    def _structure(self, spec: TypeSpec, kind: str) -> Built | None:
        out = Built(spec.span)
        if kind == "array":
            items = self._items(spec)
            if items is None:
                return None
            out.put("items", items, self._key_span(spec, "elementType"))
        elif kind == "object" and "fields" in spec.entries:
            if not self._object(spec, out):
                return None
        return out

    def _key_span(self, spec: TypeSpec, key: str) -> Span:
        entry = spec.entries.get(key)
        return self.span(entry.key) if entry else spec.span

    def _items(self, spec: TypeSpec) -> JObject | None:
        """The element type of an Array: a type name, or a map {type: …, …}; `fields` may sit beside it."""
        entry = spec.entries.get("elementType")
        if entry is None:
            self.diags.error(
                "gram-type",
                f'{spec.what}: an Array needs its elementType, e.g. {{elementType: "Text"}}',
                spec.name_span,
            )
            return None
        value = entry.value
        if value.kind in ("string", "symbol"):
            beside = (
                {"fields": spec.entries["fields"]} if "fields" in spec.entries else {}
            )
            element = TypeSpec(
                value.data,
                self.span(value),
                beside,
                self.span(value),
                f"{spec.what} (elements)",
            )
            return self.lower(element)
        if value.kind == "map":
            return self.map_spec(value, f"{spec.what} (elements)", ())
        self.diags.error(
            "gram-type",
            f'{spec.what}: elementType names a type, e.g. "Text", not {describe(value)}',
            self.span(value),
        )
        return None

    def map_spec(
        self, value: Value, what: str, extra_keys: tuple[str, ...]
    ) -> JObject | None:
        """A type written as a map: {type: "Int", default: 18, …} (in `fields` and `elementType`)."""
        entries = self.entries(value.data, what)
        if entries is None:
            return None
        type_entry = entries.pop("type", None)
        if type_entry is None:
            self.diags.error(
                "gram-type",
                f"{what}: no 'type', e.g. {{type: \"Text\"}}",
                self.span(value),
            )
            return None
        if type_entry.value.kind not in ("string", "symbol"):
            self.diags.error(
                "gram-type",
                f"{what}: 'type' names a type, not {describe(type_entry.value)}",
                self.span(type_entry.value),
            )
            return None
        name = type_entry.value.data
        spec = TypeSpec(
            name,
            self.span(type_entry.value),
            entries,
            self.span(value),
            what,
            extra_keys,
        )
        return self.lower(spec)

    def entries(self, entries: list[Entry], what: str) -> dict[str, Entry] | None:
        """Record or map entries by key; a key given twice is an error."""
        seen: dict[str, Entry] = {}
        ok = True
        for entry in entries:
            if entry.key.text in seen:
                self.diags.error(
                    "gram-key",
                    f"{what}: the key '{entry.key.text}' is given twice",
                    self.span(entry.key),
                    ("first given here", self.span(seen[entry.key.text].key)),
                )
                ok = False
                continue
            seen[entry.key.text] = entry
        return seen if ok else None

    def _object(self, spec: TypeSpec, out: Built) -> bool:
        """`fields` in the list form [{name: "a", type: "Text"}, …] or the map form {a: "Text", …}."""
        entry = spec.entries["fields"]
        fields = self._field_specs(entry.value, spec.what)
        if fields is None:
            return False
        properties = Built(self.span(entry.value))
        required: list[str] = []
        required_spans: list[Span] = []
        ok = True
        for name, name_span, schema in fields:
            if schema is None:
                ok = False
                continue
            properties.put(name, schema, name_span)
            if "default" not in schema:
                required.append(name)
                required_spans.append(name_span)
        if not ok:
            return False
        out.put("properties", properties.done(), self.span(entry.key))
        if required:
            out.put(
                "required",
                JArray(required, self.span(entry.key), tuple(required_spans)),
                self.span(entry.key),
            )
        out.put("additionalProperties", False, self.span(entry.key))
        return True

    def _field_specs(
        self, value: Value, owner: str
    ) -> list[tuple[str, Span, JObject | None]] | None:
        if value.kind == "array":
            return self._list_fields(value, owner)
        if value.kind == "map":
            return self._map_fields(value, owner)
        self.diags.error(
            "gram-type",
            f'{owner}: fields are a list [{{name: "a", type: "Text"}}, …] or a map {{a: "Text", …}}, '
            f"not {describe(value)}",
            self.span(value),
        )
        return None

    def _list_fields(
        self, value: Value, owner: str
    ) -> list[tuple[str, Span, JObject | None]] | None:
        out: list[tuple[str, Span, JObject | None]] = []
        seen: dict[str, Span] = {}
        for item in value.data:
            if item.kind != "map":
                self.diags.error(
                    "gram-type",
                    f"{owner}: a field is a map {{name: …, type: …}}, not {describe(item)}",
                    self.span(item),
                )
                return None
            name_entry = next((e for e in item.data if e.key.text == "name"), None)
            if (
                name_entry is None
                or name_entry.value.kind not in ("string", "symbol")
                or not name_entry.value.data
            ):
                where = self.span(name_entry.value) if name_entry else self.span(item)
                self.diags.error(
                    "gram-param-name",
                    f'{owner}: a field has no name, e.g. {{name: "age", …}}',
                    where,
                )
                return None
            name = name_entry.value.data
            if not self._unique_field(name, self.span(name_entry.value), seen, owner):
                return None
            schema = self.map_spec(item, f"field '{name}' of {owner}", ("name",))
            out.append((name, self.span(name_entry.value), schema))
        return out

    def _map_fields(
        self, value: Value, owner: str
    ) -> list[tuple[str, Span, JObject | None]] | None:
        out: list[tuple[str, Span, JObject | None]] = []
        seen: dict[str, Span] = {}
        for entry in value.data:
            name, name_span = entry.key.text, self.span(entry.key)
            if not self._unique_field(name, name_span, seen, owner):
                return None
            what = f"field '{name}' of {owner}"
            if entry.value.kind in ("string", "symbol"):
                spec = TypeSpec(
                    entry.value.data,
                    self.span(entry.value),
                    {},
                    self.span(entry.value),
                    what,
                )
                out.append((name, name_span, self.lower(spec)))
            elif entry.value.kind == "map":
                out.append((name, name_span, self.map_spec(entry.value, what, ())))
            else:
                self.diags.error(
                    "gram-type",
                    f"{what}: give a type name or {{type: …}}, not {describe(entry.value)}",
                    self.span(entry.value),
                )
                return None
        return out

    def _unique_field(
        self, name: str, span: Span, seen: dict[str, Span], owner: str
    ) -> bool:
        if name in seen:
            self.diags.error(
                "gram-param-name",
                f"{owner}: the field '{name}' is declared twice",
                span,
                ("first here", seen[name]),
            )
            return False
        seen[name] = span
        return True


def near_miss(word: str, candidates: tuple[str, ...] | list[str]) -> str | None:
    """The candidate `word` is probably a misspelling of (case-insensitive, difflib), or None."""
    lowered = {c.lower(): c for c in candidates}
    if word.lower() in lowered:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.8)
    return lowered[close[0]] if close else None
