"""The intermediate representation every front end produces and every back end reads (SPEC §1).

Types are JSON Schema (draft 2020-12) fragments: JSON tool files carry them already, and the gram and Brimley
front ends lower their own type notations into the same fragments. One representation means one mapping from
types to Python and identical output for the same tool written in any format. Fragments are immutable
`JObject`/`JArray` nodes that remember the span of every key and value, so passes can point at the spot.
"""

from __future__ import annotations

from collections.abc import (
    Callable,
    ItemsView,
    Iterator,
    KeysView,
    Mapping,
    ValuesView,
)
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from .diagnostics import SourceFile, Span

JSON = Union["JObject", "JArray", str, int, float, bool, None]


if TYPE_CHECKING:
    _MappingBase = Mapping[str, Any]
else:
    # A Mapping by registration, not by inheritance: an ABC subclass makes every `isinstance(x, JObject)` of
    # something else (a string, a list) a call of ABCMeta's `__instancecheck__`, and the passes ask that of
    # every value of every schema (75,000 times for 1,000 tools). It defines every method Mapping would add.
    _MappingBase = object


class JObject(_MappingBase):
    """An immutable JSON object with the spans of the object, its keys and its values."""

    __slots__ = ("_items", "span", "_key_spans", "_value_spans")

    def __init__(
        self,
        items: Mapping[str, Any],
        span: Span,
        key_spans: Mapping[str, Span | tuple[int, int]] | None = None,
        value_spans: Mapping[str, Span | tuple[int, int]] | None = None,
    ) -> None:
        self._items = dict(items)
        self.span = span
        self._key_spans = dict(key_spans or {})
        self._value_spans = dict(value_spans or {})

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    # The dict's own methods: Mapping's generic ones cost a Python call per key, on every walk of a schema.
    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: str, default: Any = None) -> Any:
        return self._items.get(key, default)

    def keys(self) -> KeysView[str]:
        return self._items.keys()

    def items(self) -> ItemsView[str, Any]:
        return self._items.items()

    def values(self) -> ValuesView[Any]:
        return self._items.values()

    def __repr__(self) -> str:
        return f"JObject({self._items!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._items) == dict(other)

    __hash__ = None  # type: ignore[assignment]

    # The JSON reader records a key's or a scalar value's place as (start, end) offsets in the object's file,
    # made a Span only when asked for (most never are): a Span per key and value was a fifth of its time.
    def key_span(self, key: str) -> Span:
        found = self._key_spans.get(key)
        if found is None:
            return self.span
        return self.span.source.span(*found) if isinstance(found, tuple) else found

    def value_span(self, key: str) -> Span:
        """Span of the value under `key` (falls back to the key, then the object)."""
        value = self._items.get(key)
        if isinstance(value, (JObject, JArray)):
            return value.span
        found = self._value_spans.get(key)
        if found is None:
            return self.key_span(key)
        return self.span.source.span(*found) if isinstance(found, tuple) else found

    def replace(self, /, **changes: Any) -> JObject:
        # `self` positional-only: a key of the document may be called "self" (or anything else)
        items = dict(self._items)
        for key, value in changes.items():
            if value is _DELETE:
                items.pop(key, None)
            else:
                items[key] = value
        return JObject(items, self.span, self._key_spans, self._value_spans)


Mapping.register(JObject)

_DELETE = object()
DELETE: Any = _DELETE  # sentinel for JObject.replace(key=DELETE)


class JArray(tuple[Any, ...]):
    """An immutable JSON array with its span and the spans of its items."""

    span: Span
    item_spans: tuple[Span | tuple[int, int], ...]  # a scalar's: offsets, as in JObject

    def __new__(
        cls,
        items: Any,
        span: Span,
        item_spans: tuple[Span | tuple[int, int], ...] = (),
    ) -> JArray:
        self = super().__new__(cls, items)
        self.span = span
        self.item_spans = item_spans
        return self

    def item_span(self, index: int) -> Span:
        item = self[index]
        if isinstance(item, (JObject, JArray)):
            return item.span
        if index >= len(self.item_spans):
            return self.span
        found = self.item_spans[index]
        return self.span.source.span(*found) if isinstance(found, tuple) else found


# Keywords whose values are instance data, not schemas: walks over a schema never look inside them.
DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})


# Types of values with no schema inside. Walks test these by exact type first: `isinstance` against `JObject`
# (a Mapping, so an ABC) costs a Python-level check per value, which dominated walks over large schemas.
_LEAVES = frozenset({str, int, float, bool, type(None)})


def schema_objects(doc: Any) -> Iterator[JObject]:
    """Every object in a schema document outside data keywords; iterative, so depth is no risk."""
    stack = [doc]
    pop = stack.pop
    extend = stack.extend
    while stack:
        node = pop()
        cls = type(node)
        if cls in _LEAVES:
            continue
        if cls is JArray or (cls is not JObject and isinstance(node, JArray)):
            extend(reversed(node))
        elif cls is JObject or isinstance(node, JObject):
            yield node
            extend(
                [
                    value
                    for key, value in reversed(node._items.items())
                    if key not in DATA_KEYWORDS
                ]
            )


def rewrite_schema(schema: Any, visit: Callable[[JObject], JObject]) -> Any:
    """`schema` with `visit` applied to every object in it, children first, data keywords left alone. Nodes
    nothing changed in are returned as they are, so callers can tell (`is`) whether anything changed.
    """
    cls = type(schema)
    if cls in _LEAVES:
        return schema
    if cls is JArray or (cls is not JObject and isinstance(schema, JArray)):
        items = [rewrite_schema(item, visit) for item in schema]
        if all(new is old for new, old in zip(items, schema)):
            return schema
        return JArray(items, schema.span, schema.item_spans)
    if cls is not JObject and not isinstance(schema, JObject):
        return schema
    changes = {}
    for key, value in schema._items.items():
        if key not in DATA_KEYWORDS and type(value) not in _LEAVES:
            new = rewrite_schema(value, visit)
            if new is not value:
                changes[key] = new
    return visit(schema.replace(**changes) if changes else schema)


def to_plain(value: Any) -> Any:
    """A JSON fragment as plain dicts and lists (for serialising and for `jsonschema`)."""
    cls = type(value)
    if cls in _LEAVES:
        return value
    if cls is JObject:
        return {k: to_plain(v) for k, v in value._items.items()}
    if isinstance(value, Mapping):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


def from_plain(value: Any, span: Span) -> Any:
    """Wrap plain data (built by a front end) as JSON nodes that all carry `span`."""
    if isinstance(value, JObject | JArray):
        return value
    if isinstance(value, Mapping):
        return JObject({k: from_plain(v, span) for k, v in value.items()}, span)
    if isinstance(value, (list, tuple)):
        return JArray([from_plain(v, span) for v in value], span)
    return value


@dataclass(frozen=True)
class ContextParam:
    """An argument whose value comes from the runtime context (Brimley `from_context`), never from the LLM."""

    name: str  # wire name
    path: str  # dot path such as "app.user.id"
    schema: JSON
    required: bool
    default: Any
    span: Span


@dataclass(frozen=True)
class SqlStatement:
    """The SQL of a SQL tool, kept verbatim, with the placeholders the front end found in it."""

    text: str
    connection: str
    placeholders: tuple[tuple[str, Span], ...]


@dataclass(frozen=True)
class Tool:
    name: str  # wire name, as the LLM sees it
    span: Span
    description: str | None
    input_schema: JObject  # JSON Schema object of what the LLM supplies
    output_schema: JSON = None  # None: the tool returns no structured result
    config_schema: JObject | None = (
        None  # instantiation config (set once by the application)
    )
    context_params: tuple[ContextParam, ...] = ()
    sql: SqlStatement | None = None
    returns_void: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
    group: str | None = None  # e.g. the agent a gram tool is nested in
    # MCP fields of its definition beside the schemas (title, annotations, ...): plain JSON data, shapes checked
    mcp_fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Entity:
    name: str
    span: Span
    description: str | None
    schema: JSON


@dataclass(frozen=True)
class Resource:
    """A resource (Brimley): a path template whose `{parameters}` are its arguments."""

    name: str
    span: Span
    description: str | None
    path: str
    path_span: Span
    input_schema: JObject
    context_params: tuple[ContextParam, ...] = ()
    inherit: Any = None  # the front end's pending `entity_ref`, None once linked
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SpecModule:
    """Everything one spec file defines; the unit that becomes one generated module."""

    source: SourceFile
    tools: tuple[Tool, ...] = ()
    entities: tuple[Entity, ...] = ()
    agents: tuple[Agent, ...] = ()
    resources: tuple[Resource, ...] = ()
    # definitions the front end left out after an error: they keep their names, so nothing cascades
    dropped: tuple[Tool | Entity, ...] = ()


@dataclass(frozen=True)
class Agent:
    name: str
    span: Span
    description: str | None
    tools: tuple[str, ...]  # wire names of the tools it may call
    metadata: Mapping[str, Any] = field(default_factory=dict)
