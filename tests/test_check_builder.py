"""Checks built as closures (runtime/src/toolspec_runtime/check_builder.py) against the interpreter: the same
problems, in the same order, with the same paths, messages and keywords; fail-fast, a problem exactly when there
are any. (Until the checks were written as source and exec'd, they were also compared with those, line for line:
equal on every compiled schema of the suite; see the history of this file.)
"""

from __future__ import annotations

import builtins
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import shared
from test_compiled_checks import (
    _INTERPRETED_NAMES,
    INSTANCES,
    JSON_SCALARS,
    KEYS,
    SCHEMAS,
    _document,
)
from toolspec_runtime import checks as runtime_checks
from toolspec_runtime.check_builder import build_check
from toolspec_runtime.check_planner import ModuleChecks
from toolspec_runtime.validation import validate

# The suite's remote meta-schemas are not fetched: a schema naming one is read as plain 2020-12 by the
# interpreter and the checks alike, whatever vocabulary it declares (tests/test_conformance_remote.py bundles
# them instead).
REMOTE = "http://localhost:1234/"


def _both(document: Any, pointer: str = "") -> tuple[Any, Any]:
    """The built check (None: the interpreter decides), and where its schema is for the interpreter."""
    return build_check(document, pointer), (document, pointer)


def _agree(built: Any, oracle: Any, instance: Any) -> list[runtime_checks.Problem]:
    """Assert the built check reports what the interpreter reports, and fail-fast fails exactly when it
    does; the problems (not fail-fast)."""
    document, pointer = oracle
    found = runtime_checks.run(built, instance)
    assert found == validate(instance, document, pointer=pointer), instance
    fast = built(instance, (), True)
    assert bool(fast) == bool(found), instance
    return found


@pytest.mark.parametrize("dialect", ["draft2020-12", "draft2019-09"])
def test_built_checks_agree_with_the_interpreter_on_the_official_suite(
    dialect: str,
) -> None:
    built_count = 0
    for path in sorted(
        shared("conformance", "json-schema-test-suite", dialect).glob("*.json")
    ):
        for group in json.loads(path.read_text(encoding="utf-8")):
            schema = group["schema"]
            if ModuleChecks().entry(schema, "") is None:
                continue
            built, written = _both(schema)
            built_count += 1
            remote = isinstance(schema, dict) and str(
                schema.get("$schema", "")
            ).startswith(REMOTE)
            for test in group["tests"]:
                where = (path.name, group["description"], test["description"])
                data = test["data"]
                problems = _agree(built, written, data)
                if not remote:
                    assert (not problems) == test["valid"], where
                    assert (not built(data, (), True)) == test["valid"], where
                assert runtime_checks.run(built, data) == validate(data, schema), where
    assert built_count > 300


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=SCHEMAS, instances=st.lists(INSTANCES, min_size=1, max_size=5))
def test_built_checks_agree_on_drawn_schemas_and_instances(
    schema: Any, instances: list[Any]
) -> None:
    document = _document(schema)
    built, written = _both(document)
    if built is None:
        return  # the interpreter decides
    for instance in instances:
        _agree(built, written, instance)
        assert runtime_checks.run(built, instance) == validate(instance, document)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    key=KEYS,
    other=KEYS,
    value=JSON_SCALARS,
    instances=st.lists(INSTANCES, max_size=3),
)
def test_built_checks_agree_with_hostile_names(
    key: str, other: str, value: Any, instances: list[Any]
) -> None:
    assume(key not in _INTERPRETED_NAMES and other not in _INTERPRETED_NAMES)
    schema = {
        "type": "object",
        "properties": {key: {"enum": [value, key]}, other: True},
        "required": [key],
        "patternProperties": {
            re.escape(key): {"const": key},
            "^" + re.escape(other): {},
        },
        "additionalProperties": {"not": {"const": other}},
        "propertyNames": {"maxLength": 3},
        "dependentRequired": {key: [other + "!"], other: []},
        "dependentSchemas": {other: {"required": [key + "?"]}},
        "anyOf": [{"properties": {key: True}}, {"required": [other]}],
        "unevaluatedProperties": {"not": {"const": key}},
    }
    built, written = _both(schema)
    assert built is not None
    for instance in (
        {key: value},
        {key: key},
        {},
        {other: 1, key + "?": value},
        {key: value, other: key, "x": [other]},
        *instances,
    ):
        _agree(built, written, instance)
        assert runtime_checks.run(built, instance) == validate(instance, schema)


TREE = {
    "type": "object",
    "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#"}},
    },
    "required": ["value"],
    "additionalProperties": False,
}


def test_a_recursive_schema_builds_a_recursive_check() -> None:
    built, written = _both(TREE)
    assert built is not None
    deep: Any = {"value": 0}
    for depth in range(60):  # (the deepest an instance may be is 64 levels)
        deep = {"value": depth, "children": [deep, {"value": "x", "extra": 1}]}
    bad = {"value": 1, "children": [{"value": 2, "children": [{}]}, {"value": 1.5}]}
    instance: Any
    for instance in (deep, bad, {"value": 1, "children": 1}, [], {"value": 3}):
        _agree(built, written, instance)
        assert runtime_checks.run(built, instance) == validate(instance, TREE)
    assert [(p.path, p.keyword) for p in built(bad, (), False)] == [
        (("children", 0, "children", 0), "required"),
        (("children", 1, "value"), "type"),
    ]
    assert (
        len(built(deep, (), False)) == 120
    )  # a wrong type and an extra name per level
    # Mutual recursion through two definitions, each applying the other to its items.
    mutual = {
        "$defs": {
            "a": {"type": "array", "items": {"$ref": "#/$defs/b"}},
            "b": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/a"}]},
        },
        "$ref": "#/$defs/a",
    }
    built, written = _both(mutual)
    assert built is not None
    for instance in ([1, [2, [3, []]]], [1, [2, ["x"]]], "x", [[[[[None]]]]]):
        _agree(built, written, instance)
        assert runtime_checks.run(built, instance) == validate(instance, mutual)


# `unevaluated*` reads the annotations of allOf, anyOf, oneOf, if/then/else, dependentSchemas and references.
UNEVALUATED: list[tuple[Any, list[Any]]] = [
    (
        {
            "allOf": [{"properties": {"a": {"type": "integer"}}}],
            "anyOf": [
                {"properties": {"b": {"type": "string"}}},
                {"patternProperties": {"^c": True}},
            ],
            "if": {"properties": {"k": {"const": 1}}, "required": ["k"]},
            "then": {"properties": {"t": True}},
            "else": {"additionalProperties": {"type": "boolean"}},
            "unevaluatedProperties": False,
        },
        [
            {"a": 1, "b": "x", "k": 1, "t": 2},
            {"a": 1, "k": 1, "t": 2, "z": 0},
            {"a": "x", "c1": 1, "k": 2, "t": True},
            {"k": 2, "t": 1},
            {"b": 1, "c": 2, "k": 1, "zz": 3, "t": 0},
            [],
        ],
    ),
    (
        {
            "prefixItems": [{"type": "string"}],
            "allOf": [{"contains": {"type": "integer"}, "minContains": 0}],
            "anyOf": [
                {"prefixItems": [True, {"const": 2}]},
                {"items": {"type": "null"}},
            ],
            "if": {"prefixItems": [True, True, {"const": "if"}]},
            "then": {"unevaluatedItems": {"type": "number"}},
            "unevaluatedItems": {"maxLength": 1},
        },
        [
            ["a", 2, "if", 3],
            ["a", 2, "if", "x"],
            ["a", 5, "xy", 6],
            ["a", None, None],
            ["ab", "cd", "ef"],
            [],
            {},
        ],
    ),
    (
        {
            "$defs": {
                "base": {"properties": {"id": {"type": "integer"}}},
                "named": {
                    "$ref": "#/$defs/base",
                    "oneOf": [{"required": ["name"]}, {"required": ["title"]}],
                    "properties": {"name": True, "title": True},
                },
            },
            "$ref": "#/$defs/named",
            "dependentSchemas": {"tag": {"properties": {"tag": {"type": "string"}}}},
            "unevaluatedProperties": {"type": "boolean"},
        },
        [
            {"id": 1, "name": "n"},
            {"id": 1, "name": "n", "tag": "t", "flag": True},
            {"id": 1, "name": "n", "title": "t", "flag": 1},
            {"id": "x", "tag": 3, "other": "y"},
        ],
    ),
    (
        # `contains` evaluates the items it matched only when their count is right
        {
            "anyOf": [
                {"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3},
                {"items": {"type": "integer"}},
                {"prefixItems": [{"type": "string"}]},
            ],
            "unevaluatedItems": False,
        },
        [[1, "a"], [1, 2, "a"], [1, 2, 3, 4, "a"], ["a", 1], [1, 2, 3, 4], [], ["a"]],
    ),
    (
        {
            "contains": {"type": "integer"},
            "minContains": 2,
            "maxContains": 3,
            "allOf": [{"contains": {"type": "string"}}],
            "unevaluatedItems": False,
        },
        [[1, "a"], [1, 2, "a"], [1, 2, 3, 4, "a"], [1, 2, None], [], ["a"]],
    ),
]


@pytest.mark.parametrize(("schema", "instances"), UNEVALUATED)
def test_unevaluated_keywords_read_the_annotations_of_every_applicator(
    schema: Any, instances: list[Any]
) -> None:
    built, written = _both(schema)
    assert built is not None
    for instance in instances:
        _agree(built, written, instance)
        assert runtime_checks.run(built, instance) == validate(instance, schema)


def test_unevaluated_properties_sees_what_each_branch_evaluated() -> None:
    built = build_check(UNEVALUATED[0][0], "")
    assert built is not None
    # "a" by allOf, "b" by anyOf's first branch, "k" by if, "t" by then (if holds)
    assert built({"a": 1, "b": "x", "k": 1, "t": 2}, (), False) == []
    unexpected = [
        (p.path, p.message, p.keyword)
        for p in built({"a": 1, "k": 1, "t": 2, "z": 0}, (), False)
    ]
    assert unexpected == [((), "unexpected property 'z'", "unevaluatedProperties")]
    # anyOf's first branch fails on "b" (its annotations are dropped), the second evaluates "c" only
    found = built({"b": 1, "c": 2, "k": 1, "zz": 3, "t": 0}, (), False)
    assert [p.message for p in found] == ["unexpected properties 'b', 'zz'"]
    # through a reference, oneOf and dependentSchemas: nothing left for unevaluatedProperties
    built = build_check(UNEVALUATED[2][0], "")
    assert built is not None
    assert built({"id": 1, "name": "n", "tag": "t", "flag": True}, (), False) == []
    built = build_check(UNEVALUATED[3][0], "")
    assert built is not None
    assert [p.message for p in built([1, 2, "a"], (), False)] == [
        "unexpected item at index 2"
    ]
    assert [p.message for p in built(["a", 1], (), False)] == [
        "unexpected item at index 1"
    ]


def test_booleans_and_interpreted_schemas() -> None:
    assert build_check(True, "") is runtime_checks.accept
    assert build_check({"$defs": {"f": False}}, "/$defs/f") is runtime_checks.reject
    loop = {
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}
    }
    assert build_check(loop, "/$defs/a") is None  # the interpreter decides
    assert build_check({"$recursiveRef": "#"}, "") is None
    # A reference to `true` or `false` calls the runtime's own checks.
    refs = {"$defs": {"no": False}, "properties": {"x": {"$ref": "#/$defs/no"}}}
    built, written = _both(refs)
    assert built is not None
    assert _agree(built, written, {"x": 1}) == [
        runtime_checks.Problem(("x",), "no value is allowed here", "false")
    ]


def test_a_check_is_built_without_writing_or_running_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No source text is compiled (imports compile files, by name) and nothing is exec'd or eval'd as text."""
    schema = {
        "$defs": UNEVALUATED[2][0]["$defs"],
        "allOf": [UNEVALUATED[0][0], TREE, {"$ref": "#/$defs/named"}],
        "patternProperties": {"^p": {"pattern": "x+"}},
        "propertyNames": {"maxLength": 5},
    }
    build_check(schema, "")  # (imports what the planner and the checks import lazily)
    real_compile, real_exec, real_eval = builtins.compile, builtins.exec, builtins.eval

    def compile_file(source: Any, filename: Any, *args: Any, **kwargs: Any) -> Any:
        assert str(filename).endswith(".py"), "source compiled"
        return real_compile(source, filename, *args, **kwargs)

    def no_text(run: Any) -> Any:
        def guarded(code: Any, *args: Any, **kwargs: Any) -> Any:
            assert not isinstance(code, (str, bytes)), "source run"
            assert code.co_filename.endswith(".py"), "written code run"
            return run(code, *args, **kwargs)

        return guarded

    monkeypatch.setattr(builtins, "compile", compile_file)
    monkeypatch.setattr(builtins, "exec", no_text(real_exec))
    monkeypatch.setattr(builtins, "eval", no_text(real_eval))
    built = build_check(schema, "")
    with pytest.raises(AssertionError, match="source compiled"):
        compile("1", "<written>", "eval")  # the guard works
    monkeypatch.undo()
    assert built is not None
    for instance in ({"value": 1, "a": 1}, {"pa": "y", "long_name": 1}, {"id": 1}):
        _agree(built, (schema, ""), instance)
