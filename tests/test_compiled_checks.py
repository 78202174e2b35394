"""Compiled checks (codegen/runtime/check_planner.py, codegen/runtime/check_writer.py): straight-line Python per
subschema in place of the interpreter. Each must decide and word exactly as the interpreter does; spec text
only ever becomes a literal; and the share of checks compiled is counted, so a regression shows.
"""

from __future__ import annotations

import hashlib

import ast
import copy
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from codegen.runtime.check_writer import render_checks
from codegen.formatting import layout_module
from codegen.runtime.check_planner import ModuleChecks
from codegen.runtime import checks as runtime_checks
from codegen.runtime.validation import validate
from conftest import generate_package, shared

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


OWN_NAMES = {
    "value",
    "path",
    "ff",
    "problems",
    "kind",
    "count",
    "index",
    "name",
    "extra",
    "matched",
    "hits",
    "found",
    "ann",
    "outer",
    "left_names",
    "left_indices",
    "Any",
    "_checks",
    "frozenset",
    "len",
    "range",
    "str",
    "set",
    "object",
    "bool",
}


def _compile(document: Any, pointer: str = "") -> tuple[Any, str]:
    """The compiled check of `document` at `pointer`, as a function of a module laid out like generated code."""
    checks = ModuleChecks()
    name = checks.entry(document, pointer)
    assert name is not None, "expected the schema to compile"
    text = "\n".join(
        [
            "from typing import Any",
            "",
            "from codegen.runtime import checks as _checks",
            *render_checks(checks.functions),
            "",
        ]
    )
    source = layout_module(text, {})
    namespace: dict[str, Any] = {}
    exec(compile(source, "<compiled checks>", "exec"), namespace)
    if name.startswith("_checks."):  # a boolean schema: the runtime's own check
        return getattr(runtime_checks, name.partition(".")[2]), source
    return namespace[name], source


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(schema=SCHEMAS, instances=st.lists(INSTANCES, min_size=1, max_size=5))
def test_compiled_checks_report_what_the_interpreter_reports(
    schema: Any, instances: list[Any]
) -> None:
    document = _document(schema)
    if ModuleChecks().entry(document, "") is None:
        return  # a reference that loops without consuming the instance, or names nothing: the interpreter decides
    check, _ = _compile(document)
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
def test_spec_text_only_ever_becomes_a_literal(key: str, value: Any) -> None:
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
    check, source = _compile(schema)
    for instance in ({key: value}, {key: key}, {}, {key + "?": 1}, {"x": [key]}):
        assert runtime_checks.run(check, instance) == validate(instance, schema)
    # Every name in the code is the generator's own: spec text is only ever inside a string literal.
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            assert node.id in OWN_NAMES or re.fullmatch(
                r"_(check_doc|CHECK_DOC)\d+_\d+(_\d+)?", node.id
            )
        elif isinstance(node, ast.Attribute):
            assert node.attr in [
                *dir(runtime_checks),
                "search",
                "append",
                "add",
                "message",
            ], node.attr


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
            check, _ = _compile(group["schema"])
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
    check, _ = _compile(tree)
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
    module_text = (out / "hostile.py").read_text()
    assert "__json_schema_check__ = _check_" in module_text
    sys.path.insert(0, str(out.parent))
    try:
        module = importlib.import_module(f"{package}.hostile")
        model = module.Hostile
        document = model.__json_schema_document__
        for instance in (
            {names[2]: names[2], "xy": names[4]},
            {names[5]: -1},
            {names[3]: names[3], names[4]: 3, "x": "nope"},
            {"y" * 41: 1},
        ):
            expected = validate(
                instance, document, pointer=model.__json_schema_pointer__
            )
            if expected:
                with pytest.raises(Exception) as raised:
                    model.model_validate(instance)
                assert expected[0].message in str(raised.value)
            else:
                model.model_validate(instance)
    finally:
        sys.path.remove(str(out.parent))


# -- how many checks are compiled --


def _count(out: Path) -> tuple[int, int]:
    """(compiled, interpreted) checks of a generated package: models not native and `Checked` fields."""
    compiled = interpreted = 0
    for path in out.rglob("*.py"):
        if "_runtime" not in path.parts:
            module_compiled, module_interpreted = count_checks(path.read_text())
            compiled += module_compiled
            interpreted += module_interpreted
    return compiled, interpreted


def count_checks(text: str) -> tuple[int, int]:
    """(compiled, interpreted) checks of a generated module."""
    classes = re.findall(r"^class \w+\(_models\.Schema(?:Root)?Model", text, re.M)
    checked = len(re.findall(r"__json_schema_check__ = _check_\w+", text))
    fields = re.findall(
        r"_models\.Checked\(\s*\w+,\s*(?:\"[^\"]*\"|'[^']*')(?:,\s*(_check_\w+))?,?\s*\)",
        text,
    )
    compiled = checked + sum(1 for name in fields if name)
    interpreted = len(classes) - checked + sum(1 for name in fields if not name)
    return compiled, interpreted


# (compiled, interpreted) when this test was written: fewer compiled is a regression; more is progress
# (raise the figures).
EXPECTED = {"examples_package": (5, 0), "real_tools_package": (16, 0)}


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_count_of_compiled_checks(fixture: str, request: pytest.FixtureRequest) -> None:
    out, _ = request.getfixturevalue(fixture)
    compiled, interpreted = _count(out)
    print(f"{fixture}: {compiled} compiled, {interpreted} interpreted")
    assert (compiled, interpreted) == EXPECTED[fixture]


def test_dispatch_checks_arguments_by_the_compiled_check(
    examples_package: tuple[Path, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`search_web`'s arguments model is not native: dispatch checks them by its compiled check, with the
    interpreter's messages and paths (the interpreter is not called)."""
    _, package = examples_package
    dispatch = importlib.import_module(f"{package.__name__}._runtime.dispatch")
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
    dispatch = importlib.import_module(f"{package.__name__}._runtime.dispatch")
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


LONG = "k" * 120


LAID_OUT: list[Any] = [
    {
        "properties": {
            LONG: {"not": {"const": "v" * 100}},
            "b": {"enum": list(range(40))},
        },
        "required": [LONG, "r" * 90],
        "dependentRequired": {"d" * 90: ["e" * 90]},
        "dependentSchemas": {LONG: {"minProperties": 2}},
        "patternProperties": {"^x" + "y" * 90: {"maxLength": 3}},
        "additionalProperties": {"type": ["string", "number", "boolean", "null"]},
        "propertyNames": {"pattern": "^[a-z]" + "z" * 80},
    },
    {
        "type": "array",
        "prefixItems": [{"type": "string"}, {"multipleOf": 0.1}],
        "items": False,
        "contains": {"oneOf": [{"type": "string"}] * 12},
        "minContains": 2,
        "maxContains": 3,
        "uniqueItems": True,
        "minItems": 1,
    },
    {
        "if": {"const": LONG},
        "then": {"anyOf": [{"minimum": 10**30}, {"exclusiveMaximum": -0.5}]},
    },
    {
        "allOf": [{"properties": {LONG: {"type": "string"}, "b": True}}],
        "anyOf": [{"prefixItems": [True]}, {"contains": {"const": 1}}],
        "if": {"patternProperties": {"^x" + "y" * 90: True}},
        "then": {"additionalProperties": True},
        "dependentSchemas": {LONG: {"items": {"maxLength": 3}}},
        "unevaluatedProperties": {"maxLength": 3},
        "unevaluatedItems": False,
    },
]


@pytest.mark.parametrize("schema", LAID_OUT)
def test_compiled_checks_are_laid_out_as_black_lays_them_out(schema: Any) -> None:
    import black

    _, source = _compile(schema)
    formatted = black.format_str(source, mode=black.Mode())
    # (after the test's own imports, where black's blank lines differ from a generated module's)
    assert formatted.partition("_checks\n")[2].lstrip("\n") == source.partition(
        "_checks\n"
    )[2].lstrip("\n")


def test_compiled_checks_with_annotations_pass_mypy_strict(tmp_path: Path) -> None:
    """Checks that record and read annotations (`unevaluated*`), and every other keyword, type-check."""
    schema = {
        "$defs": {"it": LAID_OUT[3]},
        "allOf": [{"$ref": "#/$defs/it"}, *LAID_OUT[:3]],
        "unevaluatedProperties": False,
    }
    _, source = _compile(schema)
    (tmp_path / "checked.py").write_text(source)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "checked.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(Path(__file__).parents[1])},
    )
    assert run.returncode == 0, run.stdout + run.stderr
