"""Deterministic instances for differential tests: a plausible instance of a schema, and mutations of it.

The instances need not be valid: each test asks the generated model and the oracle for a verdict on every one
and requires the two to agree.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote

_FORMATS = {
    "date": "2024-01-02",
    "date-time": "2024-01-02T03:04:05Z",
    "email": "someone@example.com",
    "uri": "https://example.com/x",
    "uuid": "12345678-1234-5678-1234-567812345678",
}
_JUNK: list[Any] = [
    "5",
    5,
    1.5,
    1.0,
    True,
    None,
    [],
    {},
    "",
    -1,
    "x" * 300,
    [1, "a"],
    {"k": "v"},
]


def _resolve(root: Any, ref: str) -> Any:
    node = root
    for raw in ref.lstrip("#").lstrip("/").split("/") if ref not in ("#", "") else []:
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node.get(token, {})
    return node


def sample(schema: Any, root: Any, depth: int = 0) -> Any:
    """A plausible (usually valid) instance of `schema`."""
    if not isinstance(schema, dict) or depth > 6:
        return None if depth > 6 else "x"
    if "$ref" in schema and str(schema["$ref"]).startswith("#"):
        return sample(_resolve(root, schema["$ref"]), root, depth + 1)
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return copy.deepcopy(schema["enum"][0])
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list) and schema[keyword]:
            return sample(schema[keyword][0], root, depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {}
        for branch in schema["allOf"]:
            part = sample(branch, root, depth + 1)
            if isinstance(part, dict):
                merged.update(part)
        if merged:
            return merged
    kinds = schema.get("type", "object" if "properties" in schema else "string")
    kind = (
        next((k for k in kinds if k != "null"), "null")
        if isinstance(kinds, list)
        else kinds
    )
    if kind == "string":
        if schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        return "a" * max(1, int(schema.get("minLength", 1)))
    if kind == "integer":
        low = schema.get(
            "minimum",
            (
                schema.get("exclusiveMinimum", 0) + 1
                if "exclusiveMinimum" in schema
                else 1
            ),
        )
        return int(low)
    if kind == "number":
        return float(schema.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    if kind == "array":
        items = schema.get("items", {})
        count = max(1, int(schema.get("minItems", 1)))
        return [sample(items, root, depth + 1) for _ in range(count)]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: sample(sub, root, depth + 1) for name, sub in properties.items()}
    return None


def variants(schema: Any, root: Any | None = None) -> list[Any]:
    """The sample and, for each property, the sample with that property missing, wrong, or nested-wrong."""
    root = schema if root is None else root
    base = sample(schema, root)
    found: list[Any] = [base, {}, "text", 3, None, [base]]
    if isinstance(base, dict):
        found.append({**base, "zz_unexpected": 1})
        for name in sorted(base):
            without = dict(base)
            del without[name]
            found.append(without)
            for junk in _JUNK:
                found.append({**base, name: junk})
            value = base[name]
            if isinstance(value, dict) and value:
                inner = sorted(value)[0]
                for junk in _JUNK[:6]:
                    found.append({**base, name: {**value, inner: junk}})
                found.append({**base, name: {**value, "zz_unexpected": 1}})
            if isinstance(value, list) and value:
                for junk in _JUNK[:6]:
                    found.append({**base, name: [*value, junk]})
                found.append({**base, name: []})
                if isinstance(value[0], dict) and value[0]:
                    first = sorted(value[0])[0]
                    found.append({**base, name: [{**value[0], first: "5"}]})
    return found
