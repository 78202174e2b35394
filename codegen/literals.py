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
    several (a single element keeps none), recursing into elements that still do not fit. Formatting large
    literals (`__all__`, the package's tables) this way instead of through black halves their formatting time.
    """
    lines: list[str] = []
    lay_out(_element(value), head, tail, indent, lines)
    return lines


class Bracketed:
    """A container value as a bracket of elements, with its one-line text computed once, bottom up: the layout
    measures every level of a nested value, and recomputing the text of each subtree at each level made it
    quadratic in depth. Scalar elements are kept as their text: they never split, and most elements are
    scalars. `black_literal` makes them of Python values, `json_layout.packed_json` of JSON ones.
    """

    __slots__ = ("text", "opening", "closing", "elements")
    text: str
    opening: str
    closing: str
    elements: list[tuple[str, Bracketed | str]]

    def __init__(
        self, opening: str, closing: str, elements: list[tuple[str, Bracketed | str]]
    ) -> None:
        self.opening, self.closing, self.elements = opening, closing, elements
        inner = ", ".join(
            [p + (e if isinstance(e, str) else e.text) for p, e in elements]
        )
        self.text = opening + inner + closing


def _element(value: Any) -> Bracketed | str:
    # The exact types JSON gives, tested first: this runs once per value of every literal laid out
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is list or isinstance(value, (list, tuple)):
        return Bracketed("[", "]", [("", _element(v)) for v in value])
    if kind is dict or (
        isinstance(value, Mapping) and not isinstance(value, (str, int, float))
    ):
        items = value.items()
        return Bracketed(
            "{", "}", [(_string(str(k)) + ": ", _element(v)) for k, v in items]
        )
    return py_literal(value)


def lay_out(
    node: Bracketed | str,
    head: str,
    tail: str,
    indent: int,
    lines: list[str],
    *,
    step: int = 4,
    magic_comma: bool = True,
) -> None:
    """Append `head + node + tail` at `indent` to `lines`: on one line if it fits in `LINE_LENGTH` columns,
    else the bracket opened, one element per line `step` columns deeper (each laid out alike), and closed.
    `magic_comma`: black's comma after every element of a bracket of several, the last too; else JSON's,
    between elements only."""
    flat = " " * indent + head + (node if isinstance(node, str) else node.text) + tail
    if isinstance(node, str) or not node.elements or str_width(flat) <= LINE_LENGTH:
        lines.append(flat)
        return
    last = len(node.elements) - 1
    comma = "," if last else ""
    lines.append(" " * indent + head + node.opening)
    inner = indent + step
    for at, (prefix, element) in enumerate(node.elements):
        after = comma if magic_comma or at < last else ""
        if isinstance(element, str):  # a scalar stays on its line
            lines.append(" " * inner + prefix + element + after)
        else:
            lay_out(
                element, prefix, after, inner, lines, step=step, magic_comma=magic_comma
            )
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
