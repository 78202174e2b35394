"""The one way spec values become Python source.

Names, descriptions, defaults, enum values and SQL reach generated files only through these functions (as
Jinja filters), never by concatenation, so no spec text can close a string and inject code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def py_literal(value: Any) -> str:
    """Python source for a JSON value (dicts, lists, strings, numbers, booleans, None)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite numbers are not JSON")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_string(str(k))}: {py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(py_literal(v) for v in value) + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _string(text: str) -> str:
    # repr() escapes quotes, backslashes, newlines and unprintable characters; prefer double quotes as black does.
    source = repr(text)
    if source.startswith("'") and '"' not in text:
        source = '"' + source[1:-1].replace("\\'", "'") + '"'
    return source


def py_docstring(text: str) -> str:
    """A docstring literal: triple-quoted when that is safe to print as is, else an escaped string."""
    text = text.strip()
    plain = (
        '"""' not in text
        and "\\" not in text
        and not text.endswith('"')
        and all(ch == "\n" or (ch.isprintable() and ch not in "\u2028\u2029") for ch in text)
    )
    if plain:
        return f'"""{text}"""'
    return _string(text)


def py_comment(text: str) -> str:
    """Text for a `#` comment: one line, nothing that ends the comment."""
    return " ".join(text.split()).replace("\x00", "")
