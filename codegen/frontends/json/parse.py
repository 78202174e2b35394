"""A JSON reader that keeps positions.

The standard library's decoder forgets where values were, and diagnostics need line and column for every key
and value, so this small recursive-descent reader builds `JObject`/`JArray` nodes with spans. Strings and
numbers are decoded by `json` itself, so their semantics match the standard exactly.

What `json` accepts but no later stage can use is refused here, where it can be pointed at: an escape that leaves
a lone surrogate (`"\\ud800"` is not a character, and cannot be written as UTF-8), an integer part longer than
MAX_INT_DIGITS (Python will not print or parse integers beyond 4300 digits, in generated code either).

A numeral a float cannot hold as written (`1e400` would become infinity, `1e-400` zero, `5e-324` a subnormal
of one bit) is read exactly, as a `decimal.Decimal` (`read_float`): its cost is that of its text, as a Decimal
keeps its exponent apart (`1e1000000` is never expanded). Every later stage takes such a number: the validator
compares and divides decimals exactly, and `py_literal` and the JSON writers write it digit for digit.
"""

from __future__ import annotations

import json
import math
import re
import sys
from bisect import bisect_right
from decimal import Decimal
from typing import Any

from ...diagnostics import Diagnostics, SourceFile, SpecError, Span
from ...ir import JArray, JObject

MAX_DEPTH = 256
# Far beyond any real bound, well inside Python's 4300-digit limit on converting integers to and from text.
MAX_INT_DIGITS = 1000
SURROGATES = re.compile("[\ud800-\udfff]")
_WS = re.compile(r"[ \t\r\n]*")
_COLON = re.compile(r"[ \t\r\n]*:")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}
# A key without escapes and its colon, a string without escapes, and what follows an object's member.
_PLAIN_KEY = re.compile(r'[ \t\r\n]*"([^"\\\x00-\x1f]*)"[ \t\r\n]*:[ \t\r\n]*')
_PLAIN_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
_NEXT_MEMBER = re.compile(r"[ \t\r\n]*([,}])")
_PLAIN_ITEM = re.compile(r'[ \t\r\n]*"([^"\\\x00-\x1f]*)"[ \t\r\n]*([,\]])')
_INTEGER_PART = re.compile(r"[-+]?([0-9_]*)")

_TOO_LARGE = f"the number is too large (more than {MAX_INT_DIGITS} digits)"
# The smallest size a float holds with all 53 bits of its precision. A float literal read to a normal float is off
# by at most half its last bit; below, it would become a subnormal (`5e-324` reads as 4.94...e-324, with one bit
# of precision) or zero (`1e-400` as 0.0, so `minimum: 1e-400` would accept 0).
SMALLEST_FLOAT = sys.float_info.min
# A numeral's digits before its exponent, up to the first that is not 0: present unless the numeral writes zero.
_NONZERO_MANTISSA = re.compile(r"[^eE]*?[1-9]")


def number_too_large(text: str) -> bool:
    """Whether a numeral's integer part has more digits than Python will convert."""
    match = _INTEGER_PART.match(text)
    return match is not None and len(match.group(1)) > MAX_INT_DIGITS


def read_float(text: str) -> float | Decimal:
    """The number a decimal numeral (with a fraction or an exponent) writes: a float when one holds it to
    within rounding of its last bit, else exactly as a Decimal."""
    value = float(text)
    return Decimal(text) if beyond_float(text, value) else value


def beyond_float(text: str, value: float) -> bool:
    """Whether the float `value` read from the numeral `text` is not its number to within rounding of its last
    bit: it overflowed to infinity, or a non-zero numeral fell below the smallest normal float (to zero, or to
    a subnormal that lost digits)."""
    return math.isinf(value) or (
        -SMALLEST_FLOAT < value < SMALLEST_FLOAT
        and _NONZERO_MANTISSA.match(text) is not None
    )


_new = object.__new__
_set = object.__setattr__


class _Reader:
    def __init__(self, source: SourceFile, diags: Diagnostics) -> None:
        self.source = source
        self.text = source.text
        self.diags = diags
        self.pos = 0
        self.line_starts = source._line_starts
        # Text read from a file holds no lone surrogate (it was decoded as UTF-8): only an escape can make one,
        # so strings without one are checked only if the text itself has any.
        self.raw_surrogates = SURROGATES.search(self.text) is not None

    def fail(
        self, message: str, pos: int | None = None, code: str = "json-syntax"
    ) -> SpecError:
        at = self.pos if pos is None else pos
        self.diags.error(code, message, self.source.span(at))
        return SpecError(message)

    def skip(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def describe_here(self) -> str:
        if self.pos >= len(self.text):
            return "end of file"
        return repr(self.text[self.pos])

    def span(self, start: int, end: int) -> Span:
        """`source.span(start, end)`, inlined: the reader makes one per key and value. The fields are set here,
        as the frozen dataclass's `__init__` would (in its order, so instances keep sharing their keys' table),
        without the call: that was a fifth of the reader's time."""
        starts = self.line_starts
        index = bisect_right(starts, start) - 1
        span = _new(Span)
        _set(span, "source", self.source)
        _set(span, "line", index + 1)
        _set(span, "col", start - starts[index] + 1)
        _set(span, "width", end - start if end > start else 1)
        return span

    def duplicate(
        self, key: str, where: tuple[int, int], first: tuple[int, int]
    ) -> None:
        self.diags.error(
            "json-duplicate-key",
            f"duplicate key {key!r} in one object",
            self.span(*where),
            ("first defined here", self.span(*first)),
        )

    def value(self, depth: int) -> tuple[Any, Span | tuple[int, int]]:
        """The value here, and its Span (an object or array) or its (start, end) offsets (see JObject)."""
        if depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH} levels", code="too-deep")
        text = self.text
        start = self.pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
        ch = text[start : start + 1]
        if ch == '"':
            return self.string(), (start, self.pos)
        if ch == "{":
            return self.object(depth)
        if ch == "[":
            return self.array(depth)
        match = _NUMBER.match(text, start)
        if match and match.end() > start:
            self.pos = match.end()
            return self.number(match.group(), start), (start, self.pos)
        for word, literal in _LITERALS.items():
            if text.startswith(word, start):
                self.pos = start + len(word)
                return literal, (start, self.pos)
        raise self.fail(f"expected a JSON value, found {self.describe_here()}")

    def number(self, text: str, start: int) -> int | float | Decimal:
        if number_too_large(text):
            raise self.fail(_TOO_LARGE, start, code="too-large")
        # What `json.loads` does with a numeral `_NUMBER` matched, without its per-call overhead.
        if "." in text or "e" in text or "E" in text:
            return read_float(text)
        return int(text)

    def string(self) -> str:
        start = self.pos
        match = _STRING.match(self.text, start)
        if not match:
            raise self.fail(
                "malformed string (unterminated, control character or bad escape)"
            )
        end = self.pos = match.end()
        # Without an escape the text between the quotes is the value: `json.loads` only for escapes.
        decoded: str = self.text[start + 1 : end - 1]
        if "\\" in decoded:
            decoded = json.loads(match.group())
        elif not self.raw_surrogates:
            return decoded
        if SURROGATES.search(decoded):
            raise self.fail(
                "the string holds a lone surrogate escape (such as \\ud800), which is not a character",
                start,
                code="encoding",
            )
        return decoded

    def object(self, depth: int) -> tuple[JObject, Span]:
        text = self.text
        start = self.pos
        items: dict[str, Any] = {}
        key_spans: dict[str, tuple[int, int]] = {}
        value_spans: dict[str, Span | tuple[int, int]] = {}
        pos = self.pos = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
        if text.startswith("}", pos):
            self.pos = pos + 1
            span = self.span(start, start + 1)
            return JObject(items, span), span
        plain = (
            not self.raw_surrogates
        )  # (else every string is checked for lone surrogates)
        while True:
            # The common member, `"key": "text"` or `"key": <value>` without escapes, in few matches: this loop
            # runs once per key of every spec. Anything else takes the careful path below (which reports errors).
            member = _PLAIN_KEY.match(text, self.pos) if plain else None
            if member is not None:
                key = member.group(1)
                key_span = (member.start(1) - 1, member.end(1) + 1)
                if key in items:
                    self.duplicate(key, key_span, key_spans[key])
                string = (
                    _PLAIN_STRING.match(text, member.end())
                    if depth < MAX_DEPTH
                    else None
                )
                if string is not None:
                    items[key] = string.group(1)
                    value_spans[key] = (string.start(), string.end())
                    self.pos = string.end()
                else:
                    at = self.pos = member.end()
                    nested = text[at : at + 1]
                    # value()'s dispatch, inlined
                    if nested == "{" and depth < MAX_DEPTH:
                        items[key], value_spans[key] = self.object(depth + 1)
                    elif nested == "[" and depth < MAX_DEPTH:
                        items[key], value_spans[key] = self.array(depth + 1)
                    else:
                        items[key], value_spans[key] = self.value(depth + 1)
                key_spans[key] = key_span
                after = _NEXT_MEMBER.match(text, self.pos)
                if after is not None:
                    self.pos = after.end()
                    if after.group(1) == ",":
                        continue
                    span = self.span(start, start + 1)
                    return JObject(items, span, key_spans, value_spans), span
                self.skip()
                raise self.fail(
                    f"expected ',' or '}}' in an object, found {self.describe_here()}"
                )
            key_start = self.pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
            if not text.startswith('"', key_start):
                raise self.fail(
                    f"expected a property name in double quotes, found {self.describe_here()}"
                )
            # The common key (no escape) read here: a call per key was a tenth of the reader's time.
            match = _STRING.match(text, key_start)
            key = "" if match is None else text[key_start + 1 : match.end() - 1]
            if match is None or "\\" in key or self.raw_surrogates:
                key = self.string()
            else:
                self.pos = match.end()
            key_span = (key_start, self.pos)
            if key in items:
                self.duplicate(key, key_span, key_spans[key])
            colon = _COLON.match(text, self.pos)
            if colon is None:
                self.skip()
                raise self.fail(
                    f"expected ':' after the property name, found {self.describe_here()}"
                )
            self.pos = colon.end()
            value, value_span = self.value(depth + 1)
            items[key] = value
            key_spans[key] = key_span
            value_spans[key] = value_span
            pos = self.pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
            if text.startswith(",", pos):
                self.pos = pos + 1
                continue
            if text.startswith("}", pos):
                self.pos = pos + 1
                span = self.span(start, start + 1)
                return JObject(items, span, key_spans, value_spans), span
            raise self.fail(
                f"expected ',' or '}}' in an object, found {self.describe_here()}"
            )

    def array(self, depth: int) -> tuple[JArray, Span]:
        text = self.text
        start = self.pos
        items: list[Any] = []
        spans: list[Span | tuple[int, int]] = []
        pos = self.pos = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
        if text.startswith("]", pos):
            self.pos = pos + 1
            span = self.span(start, start + 1)
            return JArray(items, span), span
        plain = not self.raw_surrogates and depth < MAX_DEPTH
        while True:
            # An item that is a string without escapes (`required`, `enum`) read with what follows it.
            item = _PLAIN_ITEM.match(text, self.pos) if plain else None
            if item is not None:
                items.append(item.group(1))
                spans.append((item.start(1) - 1, item.end(1) + 1))
                self.pos = item.end()
                if item.group(2) == ",":
                    continue
                span = self.span(start, start + 1)
                return JArray(items, span, tuple(spans)), span
            value, value_span = self.value(depth + 1)
            items.append(value)
            spans.append(value_span)
            pos = self.pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
            if text.startswith(",", pos):
                self.pos = pos + 1
                continue
            if text.startswith("]", pos):
                self.pos = pos + 1
                span = self.span(start, start + 1)
                return JArray(items, span, tuple(spans)), span
            raise self.fail(
                f"expected ',' or ']' in an array, found {self.describe_here()}"
            )


def parse_json(source: SourceFile, diags: Diagnostics) -> Any:
    """Parse a whole file; on a syntax error record a diagnostic and raise `SpecError`."""
    reader = _Reader(source, diags)
    if reader.text.startswith("\ufeff"):
        reader.pos = 1
    value, _ = reader.value(0)
    reader.skip()
    if reader.pos != len(reader.text):
        raise reader.fail(
            f"unexpected text after the JSON value: {reader.describe_here()}"
        )
    return value
