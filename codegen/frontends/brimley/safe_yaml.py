"""Safe YAML for the Brimley front end: a YAML document as IR JSON nodes that remember where they came from.

PyYAML's `SafeLoader` composes the node graph (it never builds arbitrary Python objects); the graph is then turned
into `JObject`/`JArray` values here, so every key and value keeps the span of its YAML node. The conversion is
where aliases would multiply, so it counts every node it produces: an alias bomb (a billion laughs), a recursive
alias, or nesting deeper than `MAX_DEPTH` is a diagnostic, never a hang, a traceback or a `RecursionError`.

Scalars get the same limits as JSON numbers and strings (see json/parse.py): a number longer than MAX_INT_DIGITS
(YAML 1.1 also has hexadecimal and base-60 integers, which PyYAML converts in quadratic time) is `too-large`, a
float a float cannot hold (beyond its range, or non-zero below the smallest normal float) is read exactly as a
`Decimal` (`_exact_float`), a string with a lone surrogate (from a `"\\ud800"` escape) is `encoding`, and a value
PyYAML cannot construct (a timestamp such as 2020-02-30) is a diagnostic too. Control characters that YAML forbids
(NUL, ESC, ...) are reported where they are, also when they sit in a Brimley SQL header.
"""

from __future__ import annotations

import datetime
from decimal import Context, Decimal, Inexact
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...diagnostics import Diagnostics, SourceFile, SpecError, Span
from ...ir import JArray, JObject
from ..json.parse import MAX_INT_DIGITS, SURROGATES, beyond_float

MAX_DEPTH = 64  # containers inside containers
MAX_NODES = 100_000  # values produced, aliases counted every time they are expanded

_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_SCALAR_TAGS = {
    _STR,
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
}


class _TooDeep(Exception):
    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.mark = mark


class _Loader(yaml.SafeLoader):
    """Composes one document; refuses nesting beyond MAX_DEPTH before PyYAML's recursion could."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(source: SourceFile, text: str, offset: int, diags: Diagnostics) -> Any:
    """The single YAML document in `text`, which sits at `offset` in `source`, as IR JSON values.

    A problem is recorded as a diagnostic and raised as `SpecError`.
    """
    try:
        loader = _Loader(text)  # the reader refuses forbidden characters right here
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except _TooDeep as error:
        index = offset + error.mark.index
        diags.error(
            "brimley-yaml",
            f"the YAML is nested more than {MAX_DEPTH} levels deep",
            source.span(index),
        )
        raise SpecError("too deep") from None
    except yaml.MarkedYAMLError as error:
        _syntax_error(source, offset, error, diags)
    except yaml.reader.ReaderError as error:
        character = (
            error.character
            if isinstance(error.character, int)
            else ord(error.character)
        )
        message = f"the file holds a character YAML does not allow (U+{character:04X})"
        diags.error("brimley-yaml", message, source.span(offset + error.position))
        raise SpecError(message) from None
    except yaml.YAMLError as error:  # pragma: no cover - PyYAML marks what it reports
        diags.error(
            "brimley-yaml", f"the YAML cannot be read: {error}", source.span(offset)
        )
        raise SpecError(str(error)) from None
    if node is None:
        return None
    return _Converter(source, offset, diags).convert(node)


def _syntax_error(
    source: SourceFile, offset: int, error: yaml.MarkedYAMLError, diags: Diagnostics
) -> None:
    mark = error.problem_mark or error.context_mark
    problem = error.problem or error.context or "invalid YAML"
    notes = []
    if (
        error.context
        and error.context_mark is not None
        and error.problem_mark is not None
    ):
        notes.append((error.context, source.span(offset + error.context_mark.index)))
    span = source.span(offset + mark.index) if mark is not None else source.span(offset)
    diags.error("brimley-yaml", f"YAML syntax: {problem}", span, *notes)
    raise SpecError(problem)


class _Converter:
    """Node graph -> JObject/JArray/scalars, counting what it produces."""

    def __init__(self, source: SourceFile, offset: int, diags: Diagnostics) -> None:
        self.source = source
        self.offset = offset
        self.diags = diags
        self.count = 0
        self.constructor = yaml.SafeLoader(
            ""
        )  # for scalar values only: ints, floats, booleans, timestamps

    def span(self, node: Node) -> Span:
        start = self.offset + node.start_mark.index
        end = self.offset + node.end_mark.index
        if isinstance(node, ScalarNode) and node.style in ("|", ">"):
            end = start + 1  # a block scalar: point at its indicator, not at every line
        return self.source.span(start, max(end, start + 1))

    def fail(self, message: str, node: Node, code: str = "brimley-yaml") -> None:
        self.diags.error(code, message, self.span(node))
        raise SpecError(message)

    def text(self, node: ScalarNode) -> str:
        if SURROGATES.search(node.value):
            self.fail(
                "the string holds a lone surrogate escape (such as \\ud800), which is not a character",
                node,
                "encoding",
            )
        return str(node.value)

    def convert(self, root: Node) -> Any:
        # Recursion is bounded: the composer refused anything deeper than MAX_DEPTH.
        return self._value(root, 0, frozenset())

    def _value(self, node: Node, depth: int, ancestors: frozenset[int]) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail(
                f"the YAML expands to more than {MAX_NODES} values (aliases are counted each time they are used)",
                node,
            )
        if depth > MAX_DEPTH:
            self.fail(f"the YAML is nested more than {MAX_DEPTH} levels deep", node)
        if id(node) in ancestors:
            self.fail(
                "this alias refers to a value that contains it (a recursive alias)",
                node,
            )
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        inner = ancestors | {id(node)}
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self.fail(f"unsupported YAML tag {node.tag!r}: use plain lists", node)
            items = [self._value(item, depth + 1, inner) for item in node.value]
            return JArray(
                items,
                self.span(node),
                tuple(self._item_span(item) for item in node.value),
            )
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                self.fail(
                    f"unsupported YAML tag {node.tag!r}: use plain mappings", node
                )
            return self._mapping(node, depth, inner)
        self.fail("unsupported YAML node", node)  # pragma: no cover
        return None

    def _item_span(self, node: Node) -> Span:
        return self.span(node)

    def _scalar(self, node: ScalarNode) -> Any:
        if node.tag not in _SCALAR_TAGS:
            self.fail(
                f"unsupported YAML tag {node.tag!r}: a spec holds plain strings, numbers and booleans",
                node,
            )
        if node.tag == _STR:
            return self.text(node)
        too_large = f"the number is too large (more than {MAX_INT_DIGITS} digits)"
        if (
            len(node.value) > MAX_INT_DIGITS
        ):  # before PyYAML converts it (base 60 takes quadratic time)
            self.fail(too_large, node, "too-large")
        try:
            value = self.constructor.construct_object(node, deep=True)
        except (ValueError, OverflowError) as error:  # e.g. a date that does not exist
            self.fail(f"{node.value!r} is not a valid value: {error}", node)
        if isinstance(value, float):
            if "inf" in node.value.lower() or "nan" in node.value.lower():
                self.fail(f"{node.value!r} is not a JSON number", node)
            if beyond_float(node.value, value):
                value = _exact_float(node.value)
        if isinstance(value, int) and abs(value) >= 10**MAX_INT_DIGITS:  # hexadecimal
            self.fail(too_large, node, "too-large")
        if isinstance(value, datetime.datetime):
            return value.isoformat()
        if isinstance(value, datetime.date):
            return value.isoformat()
        return value

    def _mapping(
        self, node: MappingNode, depth: int, ancestors: frozenset[int]
    ) -> JObject:
        items: dict[str, Any] = {}
        key_spans: dict[str, Span] = {}
        value_spans: dict[str, Span] = {}
        merged: list[tuple[str, Any, Span, Span]] = []
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                merged.extend(self._merge(value_node, depth, ancestors))
                continue
            if not isinstance(key_node, ScalarNode):
                self.fail(
                    "a key must be a plain string, not a list or a mapping", key_node
                )
            key = self.text(key_node)
            if key in items:
                self.diags.error(
                    "brimley-yaml",
                    f"the key {key!r} is given twice",
                    self.span(key_node),
                    ("first given here", key_spans[key]),
                )
                raise SpecError("duplicate key")
            items[key] = self._value(value_node, depth + 1, ancestors)
            key_spans[key] = self.span(key_node)
            value_spans[key] = self.span(value_node)
        if (
            merged
        ):  # `<<: *base` — explicit keys win; merged keys come first, as PyYAML orders them
            front = {k: (v, ks, vs) for k, v, ks, vs in merged if k not in items}
            items = {**{k: v[0] for k, v in front.items()}, **items}
            key_spans = {**{k: v[1] for k, v in front.items()}, **key_spans}
            value_spans = {**{k: v[2] for k, v in front.items()}, **value_spans}
        return JObject(items, self.span(node), key_spans, value_spans)

    def _merge(
        self, node: Node, depth: int, ancestors: frozenset[int]
    ) -> list[tuple[str, Any, Span, Span]]:
        sources = node.value if isinstance(node, SequenceNode) else [node]
        found: list[tuple[str, Any, Span, Span]] = []
        seen: set[str] = set()
        for source in sources:
            if not isinstance(source, MappingNode):
                self.fail("'<<' merges a mapping or a list of mappings", source)
            value = self._value(source, depth + 1, ancestors)
            for key in value:
                if key not in seen:  # earlier mappings in the list win
                    seen.add(key)
                    found.append(
                        (key, value[key], value.key_span(key), value.value_span(key))
                    )
        return found


def _exact_float(text: str) -> Decimal:
    """The number a YAML 1.1 float writes, exactly (one a float cannot hold, as json/parse.py's `read_float`
    reads it): `_` separates digits, and `a:b:c.d` is base 60 (no exponent: its digits are at most its
    text's, which MAX_INT_DIGITS bounds, so exact arithmetic costs what reading it does).
    """
    clean = text.replace("_", "")
    sign = "-" if clean.startswith("-") else ""
    parts = clean.lstrip("+-").split(":")
    if len(parts) == 1:
        return Decimal(sign + parts[0])
    whole = 0
    for part in parts[:-1]:
        whole = whole * 60 + int(part)
    exact = Context(prec=3 * len(clean) + 10, traps=[Inexact])
    value = exact.add(Decimal(whole * 60), Decimal(parts[-1]))
    return value.copy_negate() if sign else value
