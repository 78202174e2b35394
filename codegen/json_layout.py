"""JSON text laid out for a reviewer: a value that fits on its line stays on it, anything longer is opened one
member per line, two spaces deeper (as black lays out a literal, without its trailing commas).

The modules' schema files (`<module>.schemas.json`) are written this way: `json.dumps(indent=2)` gives every
scalar a line of its own, twice the lines of the Python literals they replaced, and a diff no easier to read.
Numbers are written as `exports.dump_json` writes them (a float as its shortest text, a Decimal as its
digits), so that `toolspec_runtime.models.load_schemas` reads back the values the compiler held.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .literals import LINE_LENGTH

_string = json.encoder.encode_basestring  # (ensure_ascii=False)


class _Node:
    """A container with its one-line text, computed once, bottom up (`_Node`s measure every level)."""

    __slots__ = ("text", "opening", "closing", "members")

    def __init__(self, value: Any) -> None:
        self.text: str
        self.members: list[tuple[str, _Node | str]]
        if isinstance(value, Mapping):
            self.opening, self.closing = "{", "}"
            self.members = [(_key(k) + ": ", _element(v)) for k, v in value.items()]
        else:
            self.opening, self.closing = "[", "]"
            self.members = [("", _element(v)) for v in value]
        inner = ", ".join(
            [p + (e if isinstance(e, str) else e.text) for p, e in self.members]
        )
        self.text = self.opening + inner + self.closing


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"not a JSON object key: {type(key).__name__}")
    return _string(key)


def _element(value: Any) -> _Node | str:
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is dict or kind is list or kind is tuple or isinstance(value, Mapping):
        return _Node(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)
    if isinstance(value, Decimal) and value.is_finite():
        return str(value)
    raise TypeError(f"not a JSON value: {value!r}")


def packed_json(value: Any) -> str:
    """`value` as JSON text, laid out as the module says, with a newline at the end."""
    lines: list[str] = []
    _lay_out(_element(value), "", "", 0, lines)
    lines.append("")
    return "\n".join(lines)


def _lay_out(
    node: _Node | str, head: str, tail: str, indent: int, lines: list[str]
) -> None:
    if isinstance(node, str):
        lines.append(" " * indent + head + node + tail)
        return
    flat = " " * indent + head + node.text + tail
    if not node.members or len(flat) <= LINE_LENGTH:
        lines.append(flat)
        return
    lines.append(" " * indent + head + node.opening)
    last = len(node.members) - 1
    for at, (prefix, member) in enumerate(node.members):
        _lay_out(member, prefix, "," if at < last else "", indent + 2, lines)
    lines.append(" " * indent + node.closing + tail)
