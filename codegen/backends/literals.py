"""The one way spec values become Python source.

Names, descriptions, defaults, enum values and SQL reach generated files only through these functions (as
Jinja filters), never by concatenation, so no spec text can close a string and inject code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

try:  # black measures East Asian wide characters as two columns; so must we, to split where it splits
    from black.strings import str_width
except ImportError:  # pragma: no cover - an older black
    str_width = len


def py_literal(value: Any) -> str:
    """Python source for a JSON value (dicts, lists, strings, numbers, booleans, None)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite numbers are not JSON")
        return repr(value).replace("e+", "e")  # black writes 1e16, not 1e+16
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        return (
            "{"
            + ", ".join(f"{_string(str(k))}: {py_literal(v)}" for k, v in value.items())
            + "}"
        )
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _string(text: str) -> str:
    """A string literal, quoted the way black would quote it (so black has nothing to change).

    repr() escapes backslashes, newlines and unprintable characters. black prefers double quotes unless they
    would need more escapes than single quotes.
    """
    if '"' in text and text.count('"') > text.count("'"):
        return repr(text)  # single quotes: repr escapes what it must
    return '"' + "".join('\\"' if ch == '"' else repr(ch)[1:-1] for ch in text) + '"'


LINE_LENGTH = 88  # black's default, which generated files are formatted with


def black_literal(
    value: Any, head: str = "", tail: str = "", indent: int = 0
) -> list[str]:
    """`head + <literal> + tail` as the lines black would format it into, without running black.

    Black explodes a bracket that does not fit: one element per line, with a trailing comma when there are
    several (a single element keeps none), recursing into elements that still do not fit. Formatting the large
    schema constants this way instead of through black halves a compile's formatting time.
    """
    flat = " " * indent + head + py_literal(value) + tail
    if (
        str_width(flat) <= LINE_LENGTH
        or not isinstance(value, (Mapping, list, tuple))
        or not value
    ):
        return [flat]
    opening, closing = ("{", "}") if isinstance(value, Mapping) else ("[", "]")
    if isinstance(value, Mapping):
        elements = [(_string(str(k)) + ": ", v) for k, v in value.items()]
    else:
        elements = [("", v) for v in value]
    comma = "," if len(elements) > 1 else ""
    lines = [" " * indent + head + opening]
    for prefix, element in elements:
        lines.extend(black_literal(element, prefix, comma, indent + 4))
    lines.append(" " * indent + closing + tail)
    return lines


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


def py_comment(text: str) -> str:
    """Text for a `#` comment: one line, nothing that ends the comment."""
    return " ".join(text.split()).replace("\x00", "")
