"""A refusal for unsatisfiability is sound: `required-undeclared` is an error only where the document can accept
nothing, and a warning where one subschema alone cannot be met (a branch of `oneOf`, an optional property,
`not`, ...), as the document may still be met without it.

Each case is checked against `jsonschema`: where the error is given, no instance drawn passes; where a warning
is given, a witness passes, and the package compiles.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import compile_result
from oracle import accepts

# An object that requires `a` and allows no property but `b`: no object meets it.
CLOSED: dict[str, Any] = {
    "type": "object",
    "properties": {"b": {}},
    "required": ["a"],
    "additionalProperties": False,
}
UNTYPED = {k: v for k, v in CLOSED.items() if k != "type"}  # a non-object meets it

# (schema of the tool's input, an instance the whole schema accepts)
SATISFIABLE: list[tuple[dict[str, Any], dict[str, Any]]] = [
    (  # the issue's document
        {
            "type": "object",
            "oneOf": [
                {"required": ["a"], "additionalProperties": False, "minProperties": 2},
                {"required": ["b"]},
            ],
        },
        {"b": "x"},
    ),
    ({"type": "object", "anyOf": [CLOSED, {"required": ["c"]}]}, {"c": 1}),
    ({"type": "object", "not": CLOSED}, {}),
    ({"type": "object", "if": CLOSED, "then": {"required": ["x"]}}, {}),
    (
        {"type": "object", "if": {"required": ["k"]}, "then": CLOSED},
        {"z": 1},
    ),
    ({"type": "object", "properties": {"p": CLOSED}}, {}),  # `p` is optional
    ({"type": "object", "properties": {"p": UNTYPED}, "required": ["p"]}, {"p": 1}),
    (
        {"type": "object", "properties": {"p": {"type": "array", "items": CLOSED}}},
        {"p": []},
    ),
    ({"type": "object", "$defs": {"unused": CLOSED}}, {}),
    ({"type": "object", "dependentSchemas": {"d": CLOSED}}, {}),
    (
        {
            "type": "object",
            "properties": {"p": {"type": ["object", "null"], **UNTYPED}},
            "required": ["p"],
        },
        {"p": None},
    ),
]

# (schema, where the error is) -- every instance is refused
UNSATISFIABLE: list[dict[str, Any]] = [
    CLOSED,
    UNTYPED,  # a tool's arguments are always an object
    {"type": "object", "allOf": [{"allOf": [CLOSED]}]},
    {"allOf": [{"type": "object"}, UNTYPED]},
    {"type": "object", "properties": {"p": CLOSED}, "required": ["p"]},
    {
        "type": "object",
        "allOf": [{"required": ["p"]}, {"properties": {"p": {"allOf": [CLOSED]}}}],
    },
]


def _compile(tmp_path: Path, schema: dict[str, Any]) -> tuple[bool, list[str]]:
    specs = tmp_path / "specs"
    specs.mkdir(exist_ok=True)
    tool = {"name": "t", "description": "T.", "inputSchema": schema}
    (specs / "tools.json").write_text(json.dumps({"tools": [tool]}))
    result = compile_result(specs)
    found = [
        d.severity
        for d in result.diagnostics.sorted()
        if d.code == "required-undeclared"
    ]
    return result.files is not None, found


@pytest.mark.parametrize(("schema", "witness"), SATISFIABLE)
def test_an_unsatisfiable_subschema_the_document_does_not_need_is_a_warning(
    tmp_path: Path, schema: dict[str, Any], witness: dict[str, Any]
) -> None:
    assert accepts(schema, witness)
    compiled, found = _compile(tmp_path, schema)
    assert compiled and found and set(found) == {"warning"}, found


@pytest.mark.parametrize("schema", UNSATISFIABLE)
def test_a_document_that_can_accept_nothing_is_an_error(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    compiled, found = _compile(tmp_path, schema)
    assert not compiled and "error" in found, found


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "b", "c"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "c", "p", "x"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    schema=st.sampled_from(UNSATISFIABLE),
    instance=st.dictionaries(
        st.sampled_from(["a", "b", "c", "p", "x"]), JSON_VALUES, max_size=4
    ),
)
def test_where_the_error_is_given_no_arguments_pass(
    schema: dict[str, Any], instance: dict[str, Any]
) -> None:
    """The error is sound: no object (a call's arguments) passes the document, as `jsonschema` decides."""
    assert not accepts(schema, instance)
