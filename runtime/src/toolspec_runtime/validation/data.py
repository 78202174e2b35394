"""The JSON data model over Python values: what is JSON data, its type, JSON
equality and how a value is shown in a message."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from uuid import UUID

from .limits import _MAX_DEPTH, _MAX_DIGITS, _MAX_SHOWN_BITS
from .numbers import _float_key, _is_integral, _too_long
from .problems import Problem, _Loc, _path


def _check_data(instance: object, fail_fast: bool) -> list[Problem]:
    """Report values that are not JSON data, and nesting beyond _MAX_DEPTH.

    Iterative, so arbitrarily deep or cyclic input cannot exhaust the stack.
    """
    problems: list[Problem] = []
    stack: list[tuple[object, _Loc | None, int]] = [(instance, None, 0)]
    while stack:
        value, loc, depth = stack.pop()
        if isinstance(value, (int, Decimal)) and _too_long(value):
            message = f"numbers of more than {_MAX_DIGITS} digits are not accepted"
            problems.append(Problem(_path(loc), message, "type"))
        elif value is None or isinstance(value, (str, int, date, UUID)):
            continue  # bool is an int; datetime is a date
        elif isinstance(value, float):
            if not math.isfinite(value):
                problems.append(
                    Problem(_path(loc), f"{value} is not a JSON number", "type")
                )
        elif isinstance(value, Decimal):
            if not value.is_finite():
                problems.append(
                    Problem(_path(loc), f"{value} is not a JSON number", "type")
                )
        elif isinstance(value, (list, tuple, Mapping)):
            if depth >= _MAX_DEPTH:
                message = f"nested too deeply (more than {_MAX_DEPTH} levels)"
                problems.append(Problem(_path(loc), message, "depth"))
            elif isinstance(value, Mapping):
                children: list[tuple[object, _Loc | None, int]] = []
                for key, item in value.items():
                    if isinstance(key, str):
                        children.append((item, _Loc(loc, key), depth + 1))
                    else:
                        message = (
                            f"object key {key!r} is not a string (not valid JSON data)"
                        )
                        problems.append(Problem(_path(loc), message, "type"))
                stack.extend(reversed(children))
            else:
                stack.extend(
                    (value[i], _Loc(loc, i), depth + 1)
                    for i in range(len(value) - 1, -1, -1)
                )
        else:
            message = f"is not valid JSON data (got Python {type(value).__name__})"
            problems.append(Problem(_path(loc), message, "type"))
        if fail_fast and problems:
            break
    return problems


def _native_str(value: object) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


def _json_type(value: object) -> str:
    """JSON type name of (already checked) JSON data; integral floats are
    "number" here and count as integers in :func:`_has_type`."""
    if isinstance(value, (str, date, UUID)):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, (float, Decimal)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _has_type(value: object, kind: str, expected: object) -> bool:
    if expected == kind:
        return True
    if expected == "number":
        return kind == "integer"
    if expected == "integer":
        return kind == "number" and _is_integral(value)
    return False


def _key(value: object) -> object:
    """Hashable form under JSON equality: 1 == 1.0, true != 1, deep, and
    object key order ignored."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, float):
        return _float_key(value)
    if value is None or isinstance(value, (str, int)):
        return value  # numbers of different types already compare by value
    if isinstance(value, Decimal):
        if _is_integral(value):
            return value  # equal to (and hashed as) the int, never expanded
        as_float = float(value)
        # Same JSON literal as a float (Decimal("0.1") vs 0.1): use the float.
        return as_float if Decimal(repr(as_float)) == value else value
    if isinstance(value, (date, UUID)):
        return _native_str(value)
    if isinstance(value, (list, tuple)):
        return ("array", tuple(_key(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", frozenset((k, _key(v)) for k, v in value.items()))
    return ("other", id(value))


def _show(value: object, limit: int = 100) -> str:
    """Short JSON-like rendering of a value for messages."""
    text = _render(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > _MAX_SHOWN_BITS:
        return f"an integer of {value.bit_length()} bits"  # str() would refuse it
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    if isinstance(value, (date, UUID)):
        return repr(_native_str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_render(v)}" for k, v in value.items()) + "}"
    return repr(value)
