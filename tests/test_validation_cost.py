"""Validation costs a polynomial in (schema size x instance size), on every path, whatever the spec.

`allOf` / `anyOf` / `oneOf` / `not` / `if` and the other in-place applicators apply to the same value without
consuming it, so a schema reached along two paths through references is evaluated once per path, and paths
multiply: s_i = {allOf: [s_(i-1), s_(i-1)]} through `$defs`, 34 deep (a 5 KB spec), is 2**34 evaluations. The
interpreter remembers what a reference's target produced at each instance location (`resolution.py`), and the
planner leaves to it every check that could run one compiled check twice on one value (`check_planner.py`).

Costs are counted, never timed: each evaluation of a subschema (the interpreter's `eval`, a compiled check's
call) adds one, and a count past the bound stops the validation at once (`TooCostly`), so the old code fails
these tests quickly instead of hanging.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, target
from hypothesis import strategies as st

from conftest import compile_result, generate_package
from toolspec_runtime import checks as runtime_checks
from toolspec_runtime import check_builder
from toolspec_runtime.validation import evaluator as evaluator_module
from toolspec_runtime.validation import is_valid, validate

# Evaluations per (schema node x instance node): each reference's target is evaluated at most twice per
# instance location and mode (fail-fast or not, annotations wanted or not: four), and each of its nodes once
# per evaluation of it; the anyOf/oneOf failure path (tried fail-fast, then again for the report) is one
# more mode. 16 leaves room; the old code needs 2**levels.
FACTOR = 16
LEVELS = 34
COMPILED_LEVELS = (
    18  # (the planner leaves schemas nested deeper to the interpreter anyway)
)


class TooCostly(BaseException):
    """More evaluations than the bound (a BaseException: nothing in codegen catches it)."""


def size(value: Any) -> int:
    """The JSON nodes of a value: what its text is made of."""
    if isinstance(value, dict):
        return 1 + sum(size(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(size(v) for v in value)
    return 1


@contextmanager
def counted_eval(evaluator: Any, budget: int) -> Iterator[list[int]]:
    """Count calls of the interpreter's `eval` in the module `evaluator` (codegen's own, or a generated
    package's copy of the runtime); past `budget`, raise TooCostly."""
    cls = evaluator._Evaluator
    original = cls.eval
    count = [0]

    def eval(self: Any, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        if count[0] > budget:
            raise TooCostly(count[0])
        return original(self, *args, **kwargs)

    cls.eval = eval
    try:
        yield count
    finally:
        cls.eval = original


# -- drawn documents: levels of applicators, each applying references to the levels below ----------------------


def reference(level: int, form: int) -> dict[str, Any]:
    """A reference to level `level`, in one of four forms (each level declares the anchors they name)."""
    return [
        {"$ref": f"#/$defs/s{level}"},
        {"$ref": f"#a{level}"},
        {"$dynamicRef": f"#/$defs/s{level}"},
        {"$dynamicRef": f"#d{level}"},
    ][form]


LEAVES = st.sampled_from(
    [
        {"type": "integer"},
        {"type": "string"},
        {"minimum": 0},
        {"required": ["a"]},
        {"const": 1},
        {"type": "object", "maxProperties": 1},
        {"type": "array", "minItems": 1},
        {},
    ]
)


@st.composite
def applicator(draw: st.DrawFn, level: int) -> dict[str, Any]:
    """One keyword (or a pair that share their values) applying references to levels below `level`."""

    def ref() -> dict[str, Any]:
        below = draw(st.integers(max(0, level - 2), level - 1))
        return reference(below, draw(st.integers(0, 3)))

    kind = draw(st.integers(0, 13))
    if kind < 3:
        keyword = ("allOf", "anyOf", "oneOf")[kind]
        return {keyword: [ref() for _ in range(draw(st.integers(1, 3)))]}
    return [
        lambda: {"not": ref()},
        lambda: {"if": ref(), "then": ref(), "else": ref()},
        lambda: {"dependentSchemas": {"a": ref()}},
        lambda: {"properties": {"a": ref()}, "patternProperties": {"^a": ref()}},
        lambda: {"additionalProperties": ref()},
        lambda: {"prefixItems": [ref()], "items": ref()},
        lambda: {"items": ref(), "contains": ref()},
        lambda: {"allOf": [ref()], "unevaluatedProperties": ref()},
        lambda: {"anyOf": [ref()], "unevaluatedItems": ref()},
        lambda: {"propertyNames": ref()},
        lambda: {"$ref": f"#/$defs/s{level - 1}", "allOf": [ref()]},
    ][kind - 3]()


@st.composite
def documents(draw: st.DrawFn, most: int = 14) -> dict[str, Any]:
    """Levels s0 (a leaf) .. sN, each of one or two applicators of references to the one or two below."""
    levels = draw(st.integers(1, most))
    defs: dict[str, Any] = {}
    for level in range(levels + 1):
        node: dict[str, Any] = dict(draw(LEAVES)) if level == 0 else {}
        for _ in range(draw(st.integers(1, 2)) if level else 0):
            node.update(draw(applicator(level)))
        node["$anchor"] = f"a{level}"
        node["$dynamicAnchor"] = f"d{level}"
        defs[f"s{level}"] = node
    return {"$defs": defs, "$ref": f"#/$defs/s{levels}"}


INSTANCES = st.recursive(
    st.none() | st.booleans() | st.integers(-1, 2) | st.sampled_from(["a", "b"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "ab", "b"]), inner, max_size=3),
    max_leaves=8,
)


def chain(keyword: str, levels: int = LEVELS, leaf: Any = None) -> dict[str, Any]:
    """The issue's document: s_i = {keyword: [s_(i-1), s_(i-1)]} through `$defs`."""
    defs: dict[str, Any] = {"s0": leaf or {"type": "integer", "minimum": 0}}
    for level in range(1, levels + 1):
        twice = [{"$ref": f"#/$defs/s{level - 1}"}] * 2
        defs[f"s{level}"] = {keyword: [dict(r) for r in twice]}
    return {"$defs": defs, "$ref": f"#/$defs/s{levels}"}


def bound(schema: Any, instance: Any) -> int:
    return FACTOR * size(schema) * size(instance)


# -- the interpreter -------------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), INSTANCES, st.booleans())
@example(chain("allOf"), 1, False)
@example(chain("anyOf"), "a", False)
@example(chain("oneOf"), 1, True)
def test_interpreter_evaluations_are_polynomial(
    schema: dict[str, Any], instance: Any, fail_fast: bool
) -> None:
    with counted_eval(evaluator_module, bound(schema, instance)) as count:
        if fail_fast:
            is_valid(instance, schema)
        else:
            validate(instance, schema)
    target(count[0] / bound(schema, instance))  # (on to the costliest documents)


@contextmanager
def forgetful() -> Iterator[None]:
    """The interpreter without its memo (each reference's target evaluated on every path, as before)."""
    cls = evaluator_module._Evaluator
    original = getattr(cls, "_remembered", None)
    if original is None:  # (the old code: nothing to take away)
        yield
        return

    def evaluate(self: Any, *args: Any) -> Any:
        return self.eval(*args)

    cls._remembered = evaluate  # type: ignore[attr-defined]
    try:
        yield
    finally:
        cls._remembered = original  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(most=5), INSTANCES)
def test_remembered_verdicts_are_the_verdicts(
    schema: dict[str, Any], instance: Any
) -> None:
    """Remembering changes no problem, path or message, nor what `unevaluated*` sees (annotations)."""
    found = validate(instance, schema), is_valid(instance, schema)
    with forgetful():
        assert (validate(instance, schema), is_valid(instance, schema)) == found


def test_a_remembered_target_keeps_its_annotations() -> None:
    """The second `$ref` to one target is answered from memory, with the properties it evaluated: so
    `unevaluatedProperties` does not see `b` as unevaluated."""
    schema = {
        "$defs": {"ab": {"properties": {"a": True, "b": True}}},
        "allOf": [{"$ref": "#/$defs/ab"}],
        "anyOf": [{"$ref": "#/$defs/ab"}, {"$ref": "#/$defs/ab"}],
        "unevaluatedProperties": False,
    }
    assert validate({"a": 1, "b": 2}, schema) == []
    assert [p.message for p in validate({"a": 1, "c": 2}, schema)] == [
        "unexpected property 'c'"
    ]


def test_contested_dynamic_anchors_tell_scopes_apart() -> None:
    """A `$dynamicRef` resolves by the outermost resource that declares its anchor: entered through `int`,
    the shared `list` means a list of integers, through `str` a list of strings, in the one validation.
    """
    schema = {
        "$id": "https://example.com/root",
        "properties": {
            "ints": {"$ref": "int"},
            "strs": {"$ref": "str"},
        },
        "$defs": {
            "list": {
                "$id": "list",
                "$dynamicAnchor": "item",
                "type": "array",
                "items": {"$dynamicRef": "#item"},
            },
            "int": {
                "$id": "int",
                "$ref": "list",
                "$defs": {"i": {"$dynamicAnchor": "item", "type": "integer"}},
            },
            "str": {
                "$id": "str",
                "$ref": "list",
                "$defs": {"s": {"$dynamicAnchor": "item", "type": "string"}},
            },
        },
    }
    assert validate({"ints": [1, 2], "strs": ["a"]}, schema) == []
    found = [
        (p.path, p.message) for p in validate({"ints": ["a"], "strs": [1]}, schema)
    ]
    assert found == [
        (("ints", 0), "expected integer, got string"),
        (("strs", 0), "expected string, got integer"),
    ]


def test_a_failed_alternative_of_alternatives_is_quoted_in_bounded_text() -> None:
    """anyOf summaries quote the summaries of their alternatives: 34 levels would double the text 34 times."""
    with counted_eval(evaluator_module, bound(chain("anyOf"), "a")):
        (problem,) = validate("a", chain("anyOf"))
    assert len(problem.message) < 5000
    assert problem.message.startswith("does not match any of the 2 anyOf alternatives")


# -- compiled checks -------------------------------------------------------------------------------------------


def compiled(schema: Any, pointer: str) -> tuple[Callable[..., Any], list[int]] | None:
    """The check the runtime builds for `schema` at `pointer` (None: the planner leaves it to the
    interpreter), its every function counting its calls into the list returned."""
    count, budget = [0], [0]
    driver = check_builder._Builder._driver

    def counting_driver(self: Any) -> Any:
        original = driver(self)

        def counting(*args: Any) -> Any:
            count[0] += 1
            if count[0] > budget[0]:
                raise TooCostly(count[0])
            return original(*args)

        return counting

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(check_builder._Builder, "_driver", counting_driver)
        check = check_builder.build_check(schema, pointer)
    if check is None or check in (runtime_checks.accept, runtime_checks.reject):
        return None

    def run(instance: Any, limit: int) -> Any:
        budget[0] = limit
        return runtime_checks.run(check, instance)

    return run, count


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(most=COMPILED_LEVELS), INSTANCES)
@example(chain("allOf", COMPILED_LEVELS), 1)
@example(chain("anyOf", COMPILED_LEVELS), "a")
@example(
    {
        "$defs": {
            "s0": {"type": "integer"},
            **{
                f"s{i}": {
                    "properties": {"a": {"$ref": f"#/$defs/s{i - 1}"}},
                    "patternProperties": {"^a$": {"$ref": f"#/$defs/s{i - 1}"}},
                }
                for i in range(1, COMPILED_LEVELS + 1)
            },
        },
        "$ref": f"#/$defs/s{COMPILED_LEVELS}",
    },
    json.loads('{"a": ' * COMPILED_LEVELS + "1" + "}" * COMPILED_LEVELS),
)
def test_compiled_checks_are_polynomial_or_left_to_the_interpreter(
    schema: dict[str, Any], instance: Any
) -> None:
    """A compiled check never runs one check twice on one value along two paths: the planner refuses such
    schemas (the interpreter, above, is polynomial)."""
    found = compiled(schema, "")
    if found is not None:
        run, count = found
        run(instance, bound(schema, instance))
        target(count[0] / bound(schema, instance))  # (on to the costliest documents)


def test_sharing_a_definition_at_different_properties_stays_compiled() -> None:
    """What the planner refuses is one check met twice at one value, not a definition used in two places."""
    schema = {
        "$defs": {
            "address": {"type": "object", "properties": {"zip": {"type": "string"}}}
        },
        "properties": {
            "home": {"$ref": "#/$defs/address"},
            "work": {"$ref": "#/$defs/address"},
            "old": {"type": "array", "items": {"$ref": "#/$defs/address"}},
        },
    }
    assert compiled(schema, "") is not None


# -- end to end: the compiler, dispatch and an output schema ---------------------------------------------------


def deep_tool(tmp_path: Path) -> Path:
    """A tool whose parameter (with a default, which the compiler checks) and output (anyOf the same or a
    string) are the 34-level allOf chain."""
    schema = chain("allOf")
    tool = {
        "name": "deep",
        "description": "A tool with a deep schema.",
        "parameters": {
            "type": "object",
            "properties": {"x": {"$ref": schema["$ref"], "default": 1}},
            "$defs": schema["$defs"],
        },
        "outputSchema": {
            "anyOf": [{"$ref": schema["$ref"]}, {"type": "string"}],
            "$defs": schema["$defs"],
        },
    }
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "deep.json").write_text(json.dumps(tool), encoding="utf-8")
    return specs


class Deep:
    def __init__(self, result: Any) -> None:
        self.result = result

    def deep(self, x: Any = 1) -> Any:
        return self.result


def test_a_deep_spec_compiles_and_dispatches_in_polynomial_time(
    tmp_path: Path, import_package: Callable[[Path, str], ModuleType]
) -> None:
    specs = deep_tool(tmp_path)
    budget = 100 * size(chain("allOf"))
    with counted_eval(evaluator_module, budget):
        assert compile_result(specs).files is not None  # the default 1 is checked
    out, name = generate_package(tmp_path, specs)
    package = import_package(out, name)
    runtime = importlib.import_module("toolspec_runtime.validation.evaluator")
    calls = [
        ({"x": 5}, 3, None),
        ({"x": -1}, 3, ("invalid_arguments", "x", "must be >= 0")),
        ({}, "ok", None),
        ({"x": 5}, -2, ("invalid_result", "", "must be >= 0")),
        (
            {"x": 5},
            1.5,
            (
                "invalid_result",
                "",
                "does not match any of the 2 anyOf alternatives: (1) expected integer, got number;"
                " (2) expected string, got number",
            ),
        ),
    ]
    for arguments, result, error in calls:
        with counted_eval(runtime, budget):
            done = package.dispatch("deep", arguments, Deep(result))  # type: ignore[attr-defined]
        if error is None:
            assert done.error is None and done.value == result
        else:
            found = done.error
            assert (
                found.kind,
                *[(p.path, p.message) for p in found.problems][0],
            ) == error


# -- dynamic anchors: the bindings a `$dynamicRef` tells apart ------------------------------------------------


def dynamic_chain(anchors: int, levels: int = LEVELS) -> dict[str, Any]:
    """The allOf chain through two resources per level, `p<i>` and `q<i>`, which declare the dynamic anchors
    `x0` .. `x<anchors - 1>` in turn (`p` as an integer, `q` as a number), down to a leaf resource that refers
    to each anchor by `$dynamicRef`: the outermost resource of the path taken that declares it wins.
    """
    leaf = {
        "$id": "leaf",
        "allOf": [{"$dynamicRef": f"#x{n}"} for n in range(anchors)],
        "$defs": {f"x{n}": {"$dynamicAnchor": f"x{n}"} for n in range(anchors)},
    }
    defs: dict[str, Any] = {"s0": leaf}
    for level in range(1, levels + 1):
        defs[f"s{level}"] = {"allOf": [{"$ref": f"p{level}"}, {"$ref": f"q{level}"}]}
        for side, kind in (("p", "integer"), ("q", "number")):
            defs[f"{side}{level}"] = {
                "$id": f"{side}{level}",
                "$ref": f"root#/$defs/s{level - 1}",
                "$defs": {"x": {"$dynamicAnchor": f"x{level % anchors}", "type": kind}},
            }
    return {
        "$id": "https://example.com/root",
        "$defs": defs,
        "$ref": f"#/$defs/s{levels}",
    }


def test_dynamic_references_cost_a_polynomial_times_their_bindings() -> None:
    from toolspec_runtime.validation.index import _bindings, _index_for

    schema = dynamic_chain(2)
    ways = _bindings(_index_for(schema))
    with counted_eval(evaluator_module, bound(schema, 1) * ways):
        assert validate(1, schema) == []
        assert [p.message for p in validate(1.5, schema)] == [
            "expected integer, got number"
        ]


@pytest.mark.parametrize(("anchors", "refused"), [(1, False), (6, True)])
def test_the_compiler_bounds_the_bindings_of_dynamic_anchors(
    tmp_path: Path, anchors: int, refused: bool
) -> None:
    """An anchor declared by k resources is bound in k + 1 ways (to any, or to none yet): one anchor in 25
    resources (12 levels of two, and the leaf) is 26 combinations; six anchors in 5 resources each are
    6**6 = 46656, more than the 256 allowed."""
    schema = dynamic_chain(anchors, levels=12)
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"x": schema}}}
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "t.json").write_text(json.dumps(tool, indent=1), encoding="utf-8")
    found = [
        (d.code, d.message.split(":")[0])
        for d in compile_result(specs).diagnostics.sorted()
    ]
    if refused:
        assert found == [
            (
                "invalid-schema",
                "$dynamicAnchor 'x0' is one of the dynamic anchors more than one resource declares,"
                " which a $dynamicRef may resolve to in 46656 combinations (at most 256, so that validation"
                " stays polynomial)",
            )
        ]
    else:
        assert found == []


# -- typing: the compiler's type of a shared subschema -----------------------------------------------------------


@pytest.mark.parametrize("keyword", ["anyOf", "oneOf", "allOf"])
def test_a_shared_subschema_is_typed_once(
    keyword: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parameter typed as the 34-level chain: `anyOf: [s, s]` is a union of the same type, and typing it must
    not walk the 2**34 paths to find that out (the compiler hung in `passes/pytypes.py`).
    """
    from codegen.passes import pytypes

    schema = chain(keyword, leaf={"type": "string"})
    tool = {
        "name": "shared",
        "parameters": {
            "type": "object",
            "properties": {"x": {"$ref": schema["$ref"]}},
            "$defs": schema["$defs"],
        },
    }
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "shared.json").write_text(json.dumps(tool), encoding="utf-8")
    calls = [0]
    typed = pytypes.DocumentTyper.map

    def counting(self: Any, *args: Any) -> Any:
        calls[0] += 1
        assert calls[0] <= 10 * size(schema), "typing walks the paths through $refs"
        return typed(self, *args)

    monkeypatch.setattr(pytypes.DocumentTyper, "map", counting)
    assert compile_result(specs).files is not None
