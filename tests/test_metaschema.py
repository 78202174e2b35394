"""The precompiled meta-schema check (codegen/passes/metaschema.py) against the meta-schema itself.

Its keyword table must be the meta-schema's, and its verdicts `jsonschema`'s (Draft202012Validator validating
against the 2020-12 meta-schema): on drawn schemas that are mostly valid with a wrong value here and there, on
every schema of the JSON-Schema-Test-Suite and the real-tools corpus, and on those schemas mutated in every
subschema position.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import jsonschema_specifications
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from codegen.sources import discover, read_specs
from codegen.diagnostics import Diagnostics
from codegen.ir import to_plain
from codegen.passes.metaschema import KEYWORDS, check_metaschema
from conftest import shared

META = Draft202012Validator(Draft202012Validator.META_SCHEMA)
VOCABULARIES = [
    "core",
    "applicator",
    "unevaluated",
    "validation",
    "meta-data",
    "format-annotation",
    "content",
]


def agree(doc: Any) -> None:
    plain = to_plain(doc)
    expected = META.is_valid(plain)
    problems = check_metaschema(doc)
    assert (not problems) == expected, (json.dumps(plain)[:2000], problems)
    for path, _ in problems:  # every problem points into the document
        node = plain
        for token in path:
            node = node[token]


def test_keyword_table_is_the_metaschemas() -> None:
    documents = [Draft202012Validator.META_SCHEMA] + [
        jsonschema_specifications.REGISTRY[
            f"https://json-schema.org/draft/2020-12/meta/{name}"
        ].contents
        for name in VOCABULARIES
    ]
    keywords = {key for doc in documents for key in doc.get("properties", {})}
    assert set(KEYWORDS) == keywords


# -- drawn schemas ---------------------------------------------------------------------------------------------

# No "\n": Python's `$` (which jsonschema uses) also matches before a final newline, ECMA-262's does not.
TEXT = st.text(alphabet="aZ_-.#:/09 é", max_size=6)
NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from([0.0, -0.0, 2.0, -1.0, 0.5, 1e300]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
TYPE_NAMES = st.sampled_from(
    ["array", "boolean", "integer", "null", "number", "object", "string", "strnig"]
)
ANCHORS = st.one_of(TEXT, st.sampled_from(["a", "_x-1.2", "1a", "a b", "", "a#"]))


def _keyword_values(schema: st.SearchStrategy[Any]) -> dict[str, st.SearchStrategy]:
    """A plausible value per kind of keyword; `_entries` mixes in any JSON value too."""
    schemas = st.lists(schema, max_size=3)
    schema_map = st.dictionaries(TEXT, schema, max_size=3)
    strings = st.lists(TEXT, max_size=3) | st.lists(
        st.sampled_from(["a", "b"]), max_size=3
    )
    counts = st.integers(-2, 5) | st.sampled_from([1.0, 1.5, True])
    numbers = NUMBERS
    booleans = st.booleans()
    texts = TEXT
    values = {
        "schema": schema,
        "schema list": schemas,
        "schema map": schema_map,
        "string": texts,
        "boolean": booleans,
        "number": numbers,
        "positive": numbers,
        "count": counts,
        "strings": strings,
        "strings map": st.dictionaries(TEXT, strings, max_size=2),
        "type": TYPE_NAMES | st.lists(TYPE_NAMES, max_size=3),
        "anchor": ANCHORS,
        "id": texts,
        "array": st.lists(DATA, max_size=3),
        "any": DATA,
        "vocabulary": st.dictionaries(TEXT, booleans | SCALARS, max_size=2),
        "dependencies": st.dictionaries(TEXT, schema | strings, max_size=2),
    }
    return {keyword: values[kind] for keyword, kind in KEYWORDS.items()}


def _entries(schema: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[str, Any]]:
    values = _keyword_values(schema)
    known = st.sampled_from(sorted(values)).flatmap(
        lambda key: st.tuples(
            st.just(key), st.one_of(values[key], values[key], values[key], DATA)
        )
    )
    unknown = st.tuples(st.sampled_from(["x-extra", "foo", "$x"]), DATA | schema)
    return known | unknown


SCHEMAS = st.recursive(
    st.booleans() | st.just({}) | st.just({"type": "string"}),
    lambda inner: st.lists(_entries(inner), max_size=4).map(dict),
    max_leaves=12,
)


@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(SCHEMAS)
def test_agrees_with_jsonschema_on_drawn_schemas(schema: Any) -> None:
    agree(schema)


@settings(max_examples=300, deadline=None)
@given(DATA)
def test_agrees_with_jsonschema_on_any_json_value(value: Any) -> None:
    agree(value)


# -- real schemas, as they are and mutated ---------------------------------------------------------------------


def suite_schemas() -> list[Any]:
    """Every draft's (earlier drafts' schemas are often invalid under 2020-12: negative cases for free)."""
    folder = shared("conformance", "json-schema-test-suite")
    return [
        group["schema"]
        for path in sorted(folder.glob("draft*/**/*.json"))
        for group in json.loads(path.read_text(encoding="utf-8"))
    ]


def corpus_schemas() -> list[Any]:
    """Every schema document a tool or entity of the real-tools corpus owns, as the front ends read it."""
    diags = Diagnostics()
    found, _ = discover([shared("corpus", "real-tools")], diags, None)
    docs = []
    for module in read_specs(found, diags).modules:
        for tool in module.tools:
            docs += [
                doc
                for doc in (tool.input_schema, tool.output_schema, tool.config_schema)
                if doc is not None
            ]
        docs += [entity.schema for entity in module.entities]
    return docs


@pytest.fixture(scope="module")
def real_schemas() -> list[Any]:
    return suite_schemas() + [to_plain(doc) for doc in corpus_schemas()]


def test_agrees_on_the_suite_and_the_corpus() -> None:
    suite, corpus = suite_schemas(), corpus_schemas()
    assert len(suite) > 1000 and len(corpus) > 40, (len(suite), len(corpus))
    for doc in (
        suite + corpus
    ):  # the corpus as JObject trees, as check_schemas sees them
        agree(doc)


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every object in a document, in schema positions or not."""
    found, stack = [], [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.append(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_agrees_on_mutated_real_schemas(real_schemas: list[Any], data: Any) -> None:
    doc = copy.deepcopy(data.draw(st.sampled_from(real_schemas)))
    objects = _objects(doc)
    assume(objects)
    for _ in range(data.draw(st.integers(1, 3))):
        target = objects[data.draw(st.integers(0, len(objects) - 1))]
        key, value = data.draw(_entries(SCHEMAS))
        target[key] = value
    agree(doc)


# -- the messages a compile reports ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"minimum": "3"}, [(("minimum",), "expected number, got string")]),
        ({"minLength": -1}, [(("minLength",), "must be >= 0")]),
        ({"minLength": 1.5}, [(("minLength",), "expected integer, got number")]),
        ({"minLength": 2.0}, []),
        (
            {"required": ["a", "a"]},
            [(("required",), "must not contain duplicates (items 0 and 1 are equal)")],
        ),
        ({"required": [1]}, [(("required", 0), "expected string, got integer")]),
        ({"type": []}, [(("type",), "must have at least 1 item (has 0)")]),
        (
            {"$anchor": "1a"},
            [(("$anchor",), "must match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'")],
        ),
        (
            {"$anchor": "a\n"},
            [(("$anchor",), "must match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'")],
        ),
        ({"$id": "a#b"}, [(("$id",), "must match pattern '^[^#]*#?$'")]),
        (
            {"properties": {"a": 3}},
            [(("properties", "a"), "expected object or boolean, got integer")],
        ),
        ({"allOf": []}, [(("allOf",), "must have at least 1 item (has 0)")]),
        ({"multipleOf": 0}, [(("multipleOf",), "must be > 0")]),
        (
            {"$defs": {"a": {"type": 3}}},
            [
                (
                    ("$defs", "a", "type"),
                    "does not match any of the 2 anyOf alternatives: (1) must be one of ['array', 'boolean', "
                    "'integer', 'null', 'number', 'object', 'string']; (2) expected array, got integer",
                )
            ],
        ),
        ({"minimum": math.inf}, [(("minimum",), "inf is not a JSON number")]),
        (
            {"x": [[[[]]]], "minimum": "3", "default": {"y": math.nan}},
            [(("default", "y"), "nan is not a JSON number")],
        ),
    ],
)
def test_messages(schema: Any, expected: list[Any]) -> None:
    assert check_metaschema(schema) == expected


def test_nesting_beyond_the_runtime_limit_is_reported_alone() -> None:
    doc: Any = {"type": "strnig"}
    for _ in range(40):
        doc = {"properties": {"a": doc}}
    (problem,) = check_metaschema(doc)
    assert problem[1] == "nested too deeply (more than 64 levels)"
    assert len(problem[0]) == 64


def test_a_wide_schema_is_checked_in_linear_time() -> None:
    import time

    def seconds(n: int) -> float:
        doc = {"properties": {f"p{i}": {"type": "string"} for i in range(n)}}
        start = time.perf_counter()
        assert check_metaschema(doc) == []
        return time.perf_counter() - start

    small, large = seconds(10_000), seconds(100_000)
    assert large < 30 * max(small, 0.01)
