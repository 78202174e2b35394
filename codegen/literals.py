"""The one way spec values become Python source.

Names, descriptions, defaults, enum values and SQL reach generated files only through these functions (as
Jinja filters), never by concatenation, so no spec text can close a string and inject code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._width import str_width  # black's measure: East Asian wide characters count 2
from toolspec_runtime.literal import holds_decimal as holds_decimal
from toolspec_runtime.literal import py_literal as py_literal
from toolspec_runtime.literal import string_literal as _string

LINE_LENGTH = 88  # black's default, which generated files are formatted with


def black_literal(
    value: Any, head: str = "", tail: str = "", indent: int = 0
) -> list[str]:
    """`head + <literal> + tail` as the lines black would format it into, without running black.

    Black explodes a bracket that does not fit: one element per line, with a trailing comma when there are
    several (a single element keeps none), recursing into elements that still do not fit. Formatting the large
    schema constants this way instead of through black halves a compile's formatting time.
    """
    lines: list[str] = []
    _black(_element(value), head, tail, indent, lines)
    return lines


class _Node:
    """A container value with its `py_literal` text, computed once bottom-up: `black_literal` measures every
    level of a nested value, and recomputing the text of each subtree at each level made it quadratic in depth.
    Scalar elements are kept as their text: they never split, and most elements are scalars.
    """

    __slots__ = ("text", "opening", "closing", "elements")

    def __init__(self, value: Any) -> None:
        self.elements: list[tuple[str, _Node | str]]
        if isinstance(value, (list, tuple)):
            self.opening, self.closing = "[", "]"
            self.elements = [("", _element(v)) for v in value]
            self.text = "[" + ", ".join([_text(e) for _, e in self.elements]) + "]"
        else:
            self.opening, self.closing = "{", "}"
            self.elements = [
                (_string(str(k)) + ": ", _element(v)) for k, v in value.items()
            ]
            self.text = "{" + ", ".join([p + _text(e) for p, e in self.elements]) + "}"


def _is_container(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict)) or (
        not isinstance(value, (str, int, float)) and isinstance(value, Mapping)
    )


def _element(value: Any) -> _Node | str:
    # The exact types JSON gives, tested first: this runs once per value of every schema constant
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is dict or kind is list:
        return _Node(value)
    return _Node(value) if _is_container(value) else py_literal(value)


def _text(element: _Node | str) -> str:
    return element if isinstance(element, str) else element.text


def _black(
    node: _Node | str, head: str, tail: str, indent: int, lines: list[str]
) -> None:
    flat = " " * indent + head + _text(node) + tail
    if isinstance(node, str) or not node.elements or str_width(flat) <= LINE_LENGTH:
        lines.append(flat)
        return
    comma = "," if len(node.elements) > 1 else ""
    lines.append(" " * indent + head + node.opening)
    for prefix, element in node.elements:
        if isinstance(element, str):  # a scalar stays on its line
            lines.append(" " * (indent + 4) + prefix + element + comma)
        else:
            _black(element, prefix, comma, indent + 4, lines)
    lines.append(" " * indent + node.closing + tail)


def py_docstring(text: str) -> str:
    """A docstring literal: triple-quoted when that is safe to print as is, else an escaped string."""
    text = text.strip()
    plain = (
        '"""' not in text
        and "\\" not in text
        and not text.endswith('"')
        and all(
            ch == "\n" or (ch.isprintable() and ch not in "\u2028\u2029") for ch in text
        )
    )
    if plain:
        return f'"""{text}"""'
    return _string(text)


def black_docstring(text: str, depth: int) -> str:
    """`py_docstring(text)` as black prints a docstring (the first statement of a body) at block `depth`:
    continuation lines re-indented by their common indentation, trailing spaces dropped, a space between
    the text and a quote next to the triple quotes, the closing quotes on their own line when they would
    not fit."""
    literal = py_docstring(text)
    if not literal.startswith('"""'):
        return _black_short_docstring(literal)
    body = literal[3:-3]
    indent = "    " * depth
    if "\n" in body:
        body = _fix_indentation(body, indent)
    if body and body[0] == '"':
        body = " " + body
    lines = body.split("\n")  # a plain docstring breaks lines at \n only
    if (
        len(lines) > 1
        and len(lines[-1]) + 3 > LINE_LENGTH
        and len(indent) + 3 <= LINE_LENGTH
    ):
        return '"""' + body + "\n" + indent + '"""'
    return '"""' + body + '"""'


def _black_short_docstring(literal: str) -> str:
    quote, body = literal[0], literal[1:-1].strip()
    if body and body[0] == quote:
        body = " " + body
    if body and body[-1] == quote:
        body += " "
    if body and body[-1] == "\\" and (len(body) - len(body.rstrip("\\"))) % 2:
        body += " "
    return quote + body + quote


def _fix_indentation(body: str, indent: str) -> str:
    """black's fix_multiline_docstring (PEP 257's trim, re-indented to the block)."""
    lines = body.split("\n")
    common = min(
        (len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()),
        default=None,
    )
    trimmed = [lines[0].strip()]
    if common is not None:
        last = len(lines) - 2
        for i, line in enumerate(lines[1:]):
            stripped = line[common:].rstrip()
            trimmed.append(indent + stripped if stripped or i == last else "")
    return "\n".join(trimmed)


def py_comment(text: str) -> str:
    """Text for a `#` comment: one line, nothing that ends the comment."""
    return " ".join(text.split()).replace("\x00", "")
