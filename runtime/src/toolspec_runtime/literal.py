"""Python source for JSON values: the one way spec values become code, at compile time (`codegen/literals.py`
re-exports it; `exports.py` asks `holds_decimal`).

Every value is written as a literal, never by concatenation, so no spec text can close a string and inject code;
strings are quoted as black quotes them, so generated files need no formatting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any


def py_literal(value: Any) -> str:
    """Python source for a JSON value (dicts, lists, strings, numbers, booleans, None)."""
    # Strings and plain dicts first, and Mapping (an ABC, slow to test) last: this runs once per value of
    # every schema constant.
    if isinstance(value, str):
        return string_literal(value)
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite numbers are not JSON")
        return repr(value).replace("e+", "e")  # black writes 1e16, not 1e+16
    if isinstance(value, Decimal):
        # A number no float holds (`1e999`, `1e-400`), exactly; the module imports `decimal as _decimal`
        # (`holds_decimal`). `str` of a finite Decimal is digits, a point and an exponent only.
        if not value.is_finite():
            raise ValueError("non-finite numbers are not JSON")
        return f'_decimal.Decimal("{value}")'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join([py_literal(v) for v in value]) + "]"
    if isinstance(value, dict) or isinstance(value, Mapping):
        return (
            "{"
            + ", ".join(
                [f"{string_literal(str(k))}: {py_literal(v)}" for k, v in value.items()]
            )
            + "}"
        )
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def holds_decimal(value: Any) -> bool:
    """Whether a JSON value holds a Decimal anywhere (its literal then needs `_decimal`)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, Decimal):
            return True
        if isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, Mapping):
            todo.extend(item.values())
    return False


def string_literal(text: str) -> str:
    """A string literal, quoted the way black would quote it (so black has nothing to change).

    repr() escapes backslashes, newlines and unprintable characters. black prefers double quotes unless they
    would need more escapes than single quotes.
    """
    if "'" not in text and '"' not in text:
        return (
            '"' + repr(text)[1:-1] + '"'
        )  # the common case: no quote to swap or escape
    if '"' in text and text.count('"') > text.count("'"):
        return repr(text)  # single quotes: repr escapes what it must
    quoted = repr(
        text
    )  # escapes as black keeps them; only the quotes may need swapping
    if quoted[0] == '"':
        return quoted
    body = quoted[1:-1].replace("\\'", "'").replace('"', '\\"')
    return '"' + body + '"'
