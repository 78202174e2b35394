"""Compiled checks (runtime/src/toolspec_runtime/check_planner.py plans, check_builder.py builds them as closures)
per subschema in place of the interpreter. Each must decide and word exactly as the interpreter does, whatever names
the spec holds; and the share of checks compiled is counted, so a regression shows.
"""

from __future__ import annotations

import hashlib

import ast
import copy
import importlib
import pkgutil
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolspec_runtime.check_builder import build_check
from toolspec_runtime.check_planner import ModuleChecks
from toolspec_runtime import checks as runtime_checks
from toolspec_runtime import models
from toolspec_runtime.schema_checks import SchemaCheck
from toolspec_runtime.validation import validate
from conftest import generate_package, shared
from toolspec_runtime.models import schema_location

# Names an attacker would choose: quotes, newlines, code, escapes, pointer syntax, non-ASCII.
HOSTILE = [
    "a",
    "b",
    'q"uote',
    "s'ingle",
    "new\nline",
    "__import__('os').system('x')",
    "\\",
    "~1/x",
    "é",
    "\u2028",
    "{}",
    "",
]
KEYS = st.sampled_from(HOSTILE) | st.text(max_size=4)
PATTERNS = st.sampled_from(["^a", "q", "[\"']", "\n", "é+$", "^$", "x{2,}", "\\d"])
JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from([0.5, 1.0, -2.5, 1e300])
    | KEYS
)
INSTANCES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]
LEAF_KEYWORDS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(TYPES)
        | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3),
        "enum": st.lists(JSON_SCALARS, min_size=1, max_size=3),
        "const": JSON_SCALARS,
        "minimum": st.integers(-3, 3),
        "exclusiveMaximum": st.sampled_from([2, 2.5]),
        "multipleOf": st.sampled_from([2, 0.5, 0.1]),
        "minLength": st.integers(0, 2),
        "maxLength": st.integers(0, 3),
        "pattern": PATTERNS,
        "format": st.just("date"),
        "minItems": st.integers(0, 2),
        "maxItems": st.integers(0, 3),
        "uniqueItems": st.booleans(),
        "required": st.lists(KEYS, max_size=2),
        "minProperties": st.integers(0, 2),
        "maxProperties": st.integers(0, 3),
        "dependentRequired": st.dictionaries(
            KEYS, st.lists(KEYS, max_size=2), max_size=2
        ),
    },
)


# References by pointer, anchor and URI into the document `_document` builds (resolved against the base URI the
# drawn `$id`s set: some of them then name nothing, and the interpreter decides).
REFERENCES = [
    "#/$defs/it",
    "#named",
    "urn:x-codegen:schema#named",
    "urn:x-codegen:schema#/$defs/it",
    "http://x.test/res.json",
    "http://x.test/res.json#/$defs/inner",
    "../res.json#deep",
    "http://x.test/res.json#deep",
]


# "#dyn" has one dynamic anchor in the document: the dynamic scope cannot change it, and it compiles; "#twice"
# has two, in two resources: the interpreter decides.
DYNAMIC_REFERENCES = ["#dyn", "#twice", "#named", "http://x.test/res.json#twice"]


def _document(schema: Any) -> dict[str, Any]:
    """A document holding the drawn schema, an anchor and an embedded resource with an anchor of its own."""
    return {
        "$defs": {
            "it": schema,
            # (each applies "it" to an item or a property: a reference to it from "it" does not loop)
            "named": {"$anchor": "named", "items": {"$ref": "#/$defs/it"}},
            "dyn": {"$dynamicAnchor": "dyn", "items": {"$ref": "#/$defs/it"}},
            "twice": {"$dynamicAnchor": "twice", "minItems": 1},
            "res": {
                "$id": "http://x.test/res.json",
                "properties": {"r": {"$ref": "urn:x-codegen:schema#/$defs/it"}},
                "$defs": {
                    "inner": {"$anchor": "deep", "$ref": "urn:x-codegen:schema#named"},
                    "twice": {"$dynamicAnchor": "twice", "maxItems": 1},
                },
            },
        },
        "$ref": "#/$defs/it",
    }


def _applicators(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(KEYS, inner, max_size=3),
            "patternProperties": st.dictionaries(PATTERNS, inner, max_size=2),
            "additionalProperties": inner,
            "propertyNames": inner,
            "items": inner,
            "prefixItems": st.lists(inner, max_size=2),
            "contains": inner,
            "minContains": st.integers(0, 2),
            "maxContains": st.integers(0, 2),
            "allOf": st.lists(inner, min_size=1, max_size=2),
            "anyOf": st.lists(inner, min_size=1, max_size=3),
            "oneOf": st.lists(inner, min_size=1, max_size=3),
            "not": inner,
            "if": inner,
            "then": inner,
            "else": inner,
            "dependentSchemas": st.dictionaries(KEYS, inner, max_size=2),
            "unevaluatedProperties": inner,
            "unevaluatedItems": inner,
            "$ref": st.sampled_from(REFERENCES),
            "$dynamicRef": st.sampled_from(DYNAMIC_REFERENCES),
            "$id": st.sampled_from(["http://x.test/d/e.json", "urn:x-other"]),
        },
    )


SCHEMAS = st.recursive(
    st.booleans() | LEAF_KEYWORDS,
    lambda inner: st.builds(
        lambda a, b: {**a, **b}, LEAF_KEYWORDS, _applicators(inner)
    ),
    max_leaves=6,
)


def _compile(document: Any, pointer: str = "") -> Any:
    """The check the runtime builds for `document` at `pointer` (closures, no source)."""
    check = build_check(document, pointer)
    assert check is not None, "expected the schema to compile"
    return check


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=SCHEMAS, instances=st.lists(INSTANCES, min_size=1, max_size=5))
def test_compiled_checks_report_what_the_interpreter_reports(
    schema: Any, instances: list[Any]
) -> None:
    document = _document(schema)
    if ModuleChecks().entry(document, "") is None:
        return  # a reference that loops without consuming the instance, or names nothing: the interpreter decides
    check = _compile(document)
    for instance in instances:
        assert runtime_checks.run(check, instance) == validate(instance, document)


_INTERPRETED_NAMES = {
    "$id",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
}


@settings(max_examples=100, deadline=None)
@given(key=KEYS, value=JSON_SCALARS)
def test_hostile_names_are_data_to_the_checks(key: str, value: Any) -> None:
    # (the document scan that leaves dynamic references to the interpreter also sees them as property names:
    # conservative, and not what this test is about)
    assume(key not in _INTERPRETED_NAMES)
    # a fragment that decodes to a leading "/" is a JSON pointer, not the anchor this test names (the pointer
    # `#%2F` names the property "" of the root, which is not there: the interpreter reports it)
    assume(not key.startswith("/"))
    schema = {
        "$defs": {"named": {"$anchor": key or "a", "maxProperties": 3}},
        "$ref": "#" + quote(key or "a", safe=""),  # the hostile name as an anchor
        "type": "object",
        "properties": {key: {"enum": [value, key]}},
        "required": [key],
        "patternProperties": {re.escape(key): {"const": key}},
        "additionalProperties": False,
        "dependentRequired": {key: [key + "!"]},
        "anyOf": [{"properties": {key: True}}, {"required": [key + "?"]}],
        "unevaluatedProperties": {"not": {"const": key}},
    }
    check = _compile(schema)
    for instance in ({key: value}, {key: key}, {}, {key + "?": 1}, {"x": [key]}):
        assert runtime_checks.run(check, instance) == validate(instance, schema)


@pytest.mark.parametrize("dialect", ["draft2019-09", "draft2020-12"])
def test_compiled_checks_agree_with_the_interpreter_on_the_official_suite(
    dialect: str,
) -> None:
    """Every schema of the suite that compiles, on every instance of its tests: the same problems."""
    compiled = 0
    for path in sorted(
        shared("conformance", "json-schema-test-suite", dialect).glob("*.json")
    ):
        for group in json.loads(path.read_text(encoding="utf-8")):
            checks = ModuleChecks()
            if checks.entry(group["schema"], "") is None:
                continue
            check = _compile(group["schema"])
            compiled += 1
            for test in group["tests"]:
                expected = validate(test["data"], group["schema"])
                assert runtime_checks.run(check, test["data"]) == expected, (
                    path.name,
                    test,
                )
    assert compiled > 200


def test_what_stays_interpreted() -> None:
    checks = ModuleChecks()
    loop = {
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}}
    }
    assert checks.entry(loop, "/$defs/a") is None
    twice = {
        "$defs": {
            "a": {"$dynamicAnchor": "a"},
            "b": {"$id": "urn:b", "$dynamicAnchor": "a", "type": "string"},
        },
        "$dynamicRef": "#a",
    }
    assert checks.entry(twice, "") is None  # the dynamic scope may resolve it to either
    assert (
        checks.entry({"pattern": "(?>a)b"}, "") is None
    )  # refused by the linear-time engine
    one_of = {"oneOf": [{"type": "string"}, {"not": {}}]}
    assert checks.entry(one_of, "", "ONE_OF_SCHEMA") is not None
    assert (checks.compiled, checks.interpreted) == (1, 3)
    assert len(checks.functions) == 4  # nothing is left behind by the refused ones
    label = hashlib.sha256(b"ONE_OF_SCHEMA").hexdigest()[
        :4
    ]  # named after the constant, alike in every module
    assert [f.name for f in checks.functions] == [
        f"_check_{label}_1",
        f"_check_{label}_3",
        f"_check_{label}_2",
        f"_check_{label}_0",
    ]


def test_a_recursive_schema_compiles_to_a_recursive_check() -> None:
    tree = {
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"items": {"$ref": "#/$defs/node"}},
                },
                "required": ["value"],
            }
        },
        "$ref": "#/$defs/node",
    }
    check = _compile(tree)
    deep: Any = {"value": 1}
    for depth in range(70):
        deep = {"value": depth, "children": [deep, {"value": "x"}]}
    for instance in (
        {"value": 1, "children": [{"value": 2, "children": [{}]}]},
        deep,
        {"children": 1},
    ):
        assert runtime_checks.run(check, instance) == validate(instance, tree)


def test_equal_schemas_without_references_share_a_check() -> None:
    entity = {"type": "object", "properties": {"age": {"minimum": 0}}}
    first = {"$ref": "#/$defs/E", "$defs": {"E": entity}}
    second = {"items": {"$ref": "#/$defs/E"}, "$defs": {"E": copy.deepcopy(entity)}}
    other = {"items": {"$ref": "#/$defs/E"}, "$defs": {"E": {**entity, "minItems": 1}}}
    checks = ModuleChecks()
    for document, const in ((first, "A"), (second, "B"), (other, "C")):
        assert checks.entry(document, "", const)
    entities = [checks._names[id(d["$defs"]["E"])] for d in (first, second, other)]
    assert (
        entities[0] == entities[1] != entities[2]
    )  # the entity's check, shared; another one
    # A schema with a reference is never shared: its target depends on its document.
    ref = {"properties": {"a": {"$ref": "#/$defs/x"}}}
    one = {"allOf": [ref], "$defs": {"x": {"type": "string"}}}
    two = {"allOf": [copy.deepcopy(ref)], "$defs": {"x": {"type": "integer"}}}
    alone, both = ModuleChecks(), ModuleChecks()
    assert alone.entry(one, "", "ONE")
    assert both.entry(one, "", "ONE") and both.entry(two, "", "TWO")
    assert len(both.functions) == 2 * len(alone.functions)
    dynamic = [
        {
            "$defs": {"t": {"$dynamicAnchor": "t", "type": kind}},
            "properties": {"p": {"$dynamicRef": "#t"}},
        }
        for kind in ("string", "integer")
    ]
    checks = ModuleChecks()
    assert checks.entry(dynamic[0], "", "S") and checks.entry(dynamic[1], "", "I")
    shared = [checks._names[id(d["properties"]["p"])] for d in dynamic]
    assert shared[0] != shared[1]


# -- end to end: a generated package with hostile names --


def test_a_generated_module_with_hostile_names_imports_and_checks(
    tmp_path: Path,
) -> None:
    names = [n for n in HOSTILE if n]
    schema = {
        "title": "Hostile",
        "type": "object",
        "properties": {
            name: {"oneOf": [{"const": name}, {"type": "integer", "minimum": 0}]}
            for name in names
        },
        "patternProperties": {"^x": {"enum": names}},
        "propertyNames": {"maxLength": 40},
    }
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "hostile.schema.json").write_text(json.dumps(schema))
    out, package = generate_package(tmp_path, specs, name="hostile_checks_gen")
    sys.path.insert(0, str(out.parent))
    try:
        module = importlib.import_module(f"{package}.hostile")
        model = module.Hostile
        assert models.schema_check(model).check() is not None  # built, not interpreted
        document = schema_location(model)[0]
        for instance in (
            {names[2]: names[2], "xy": names[4]},
            {names[5]: -1},
            {names[3]: names[3], names[4]: 3, "x": "nope"},
            {"y" * 41: 1},
        ):
            expected = validate(instance, document, pointer=schema_location(model)[1])
            if expected:
                with pytest.raises(Exception) as raised:
                    model.model_validate(instance)
                assert expected[0].message in str(raised.value)
            else:
                model.model_validate(instance)
    finally:
        sys.path.remove(str(out.parent))


# -- how many checks are compiled --


def _count(package: ModuleType) -> tuple[int, int]:
    """(compiled, interpreted) checks of a generated package: models not native and `Checked` fields."""
    compiled = interpreted = 0
    path = [str(Path(str(package.__file__)).parent)]
    for info in pkgutil.walk_packages(path, prefix=f"{package.__name__}."):
        module_compiled, module_interpreted = count_checks(
            importlib.import_module(info.name)
        )
        compiled += module_compiled
        interpreted += module_interpreted
    return compiled, interpreted


def count_checks(module: ModuleType) -> tuple[int, int]:
    """(compiled, interpreted) checks of a generated module: of each model that is not native, and of each
    `Checked` field (found in its source: a field's annotation is read when its model is first built), whether
    the runtime builds a check for it (else the interpreter decides)."""
    found: list[SchemaCheck] = [
        models.schema_check(value)
        for value in vars(module).values()
        if isinstance(value, type)
        and value.__module__ == module.__name__
        and issubclass(value, (models.SchemaModel, models.SchemaRootModel))
    ]
    source = Path(str(module.__file__)).read_text(encoding="utf-8")
    for const, pointer in re.findall(
        r'_models\.Checked\(\s*(\w+),\s*("(?:[^"\\]|\\.)*")\s*\)', source
    ):
        found.append(SchemaCheck(getattr(module, const), ast.literal_eval(pointer)))
    compiled = sum(check.check() is not None for check in found)
    return compiled, len(found) - compiled


# (compiled, interpreted) when this test was written: fewer compiled is a regression; more is progress
# (raise the figures).
EXPECTED = {"examples_package": (5, 0), "real_tools_package": (16, 0)}


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_count_of_compiled_checks(fixture: str, request: pytest.FixtureRequest) -> None:
    _, package = request.getfixturevalue(fixture)
    compiled, interpreted = _count(package)
    print(f"{fixture}: {compiled} compiled, {interpreted} interpreted")
    assert (compiled, interpreted) == EXPECTED[fixture]


def test_dispatch_checks_arguments_by_the_compiled_check(
    examples_package: tuple[Path, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`search_web`'s arguments model is not native: dispatch checks them by its compiled check, with the
    interpreter's messages and paths (the interpreter is not called)."""
    _, package = examples_package
    dispatch = importlib.import_module("toolspec_runtime.dispatch")
    arguments = {
        "query": "",
        "num_results": 0,
        "filters": [{"from": 1, "values": [None]}],
    }
    expected = [
        ("query", "must be at least 1 character long"),
        ("num_results", "must be > 0"),
        ("filters[0]", "'field' is a required property"),
        ("filters[0].from", "expected string, got integer"),
        ("filters[0].values[0]", "expected string, number or boolean, got null"),
    ]

    def interpreter(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the interpreter was called")

    monkeypatch.setattr(dispatch, "validate", interpreter)

    class Shop:
        def search_web(self, **kwargs: Any) -> Any:
            return []

    result = package.dispatch("search_web", arguments, Shop())
    assert result.error is not None
    assert [(p.path, p.message) for p in result.error.problems] == expected


def test_dispatch_checks_results_and_context_values_by_compiled_checks(
    examples_package: tuple[Path, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool's result and its context values are checked by the checks compiled for their schemas, with
    the interpreter's messages and paths (the interpreter is not called)."""
    _, package = examples_package
    dispatch = importlib.import_module("toolspec_runtime.dispatch")
    search, letter = package.TOOLS["search_web"], package.TOOLS["dunning_letter"]
    assert search.output_check is not None
    [signature] = letter.context_args
    assert signature.check is not None
    bad = {"results": [{"url": "u", "title": "t", "score": 7}, {"url": 1}]}
    expected = [
        (dispatch._dotted(p.path), p.message)
        for p in validate(bad, search.output_schema)
    ]
    context_expected = [p.message for p in validate(5, signature.schema)]

    def interpreter(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the interpreter was called")

    monkeypatch.setattr(dispatch, "validate", interpreter)

    class Shop:
        def search_web(self, **kwargs: Any) -> Any:
            return bad

    result = package.dispatch("search_web", {"query": "q"}, Shop())
    assert result.error is not None and result.error.kind == "invalid_result"
    assert [(p.path, p.message) for p in result.error.problems] == expected
    with pytest.raises(dispatch.ContextValueError) as raised:
        dispatch._context_value(signature, 5)
    assert [p.message for p in raised.value.problems] == context_expected
    assert dispatch._context_value(signature, "Ada") == "Ada"
