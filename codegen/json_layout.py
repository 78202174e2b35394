"""JSON text laid out for a reviewer: a value that fits on its line stays on it, anything longer is opened one
member per line, two spaces deeper (`literals.lay_out`, black's layout of a literal, without its trailing
commas).

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

from .literals import Bracketed, lay_out

_string = json.encoder.encode_basestring  # (ensure_ascii=False)
_SCALARS = frozenset({int, float, bool, type(None)})


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"not a JSON object key: {type(key).__name__}")
    return _string(key) + ": "


def _element(value: Any) -> Bracketed | str:
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is list or kind is tuple:
        return Bracketed("[", "]", [("", _element(v)) for v in value])
    # (scalars before the Mapping ABC's isinstance, which is a Python call)
    if kind is dict or (kind not in _SCALARS and isinstance(value, Mapping)):
        return Bracketed("{", "}", [(_key(k), _element(v)) for k, v in value.items()])
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
    lay_out(_element(value), "", "", 0, lines, step=2, magic_comma=False)
    lines.append("")
    return "\n".join(lines)
