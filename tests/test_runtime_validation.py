"""Tests of `toolspec_runtime.validation`, the JSON Schema validator every generated package carries.

The official JSON-Schema-Test-Suite (draft 2020-12) decides correctness; the focused tests below pin what the suite
does not cover: the JSON data model over Python values, the date/date-time rule, messages and paths, deep input,
and agreement with `jsonschema` on generated cases.
"""

from __future__ import annotations

import datetime
import decimal
import json
import random
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import FrozenInstanceError, dataclass
from types import MappingProxyType
from typing import Any

import jsonschema
import pytest
from bundling import SUITE_URL, bundled, suite_ref_map
from conftest import SHARED, missing_shared

from toolspec_runtime.validation import (
    PatternError,
    Problem,
    compile_pattern,
    is_valid,
    validate,
)

SUITE = SHARED / "conformance" / "json-schema-test-suite" / "draft2020-12"
# refRemote.json, vocabulary.json and some of dynamicRef.json refer to documents of the suite's remotes/ folder: the
# validator fetches nothing, so those schemas are bundled first, as the compiler does (tests/bundling.py).
EXCLUDED_FILES: set[str] = set()


@dataclass(frozen=True)
class SuiteCase:
    file: str
    group: str
    test: str
    schema: Any
    data: Any
    valid: bool

    @property
    def id(self) -> str:
        return f"{self.file}::{self.group}::{self.test}"


def load_suite() -> list[SuiteCase]:
    cases: list[SuiteCase] = []
    if not SUITE.is_dir():
        return cases  # test_suite_is_present fails instead
    for path in sorted(SUITE.glob("*.json")):
        if path.name in EXCLUDED_FILES:
            continue
        for group in json.loads(path.read_text(encoding="utf-8")):
            for test in group["tests"]:
                cases.append(
                    SuiteCase(
                        path.name,
                        group["description"],
                        test["description"],
                        group["schema"],
                        test["data"],
                        test["valid"],
                    )
                )
    return cases


SUITE_CASES = load_suite()


def suite_params() -> Iterator[Any]:
    for case in SUITE_CASES:
        yield pytest.param(case, id=case.id)


def test_suite_is_present() -> None:
    assert SUITE.is_dir(), missing_shared(SUITE)
    files = {case.file for case in SUITE_CASES}
    assert {
        "type.json",
        "ref.json",
        "unevaluatedProperties.json",
        "dynamicRef.json",
    } <= files
    assert len(SUITE_CASES) > 1000


@pytest.mark.parametrize("case", suite_params())
def test_suite(case: SuiteCase) -> None:
    schema = case.schema
    if SUITE_URL in json.dumps(schema):
        schema = bundled(schema, suite_ref_map())
    assert is_valid(case.data, schema) is case.valid
    problems = validate(case.data, schema)
    assert (problems == []) is case.valid, [problem.format() for problem in problems]


# -- the JSON data model over Python values ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instance", "schema", "valid"),
    [
        (True, {"type": "integer"}, False),
        (True, {"type": "number"}, False),
        (False, {"minimum": 1}, True),  # not a number, so numeric keywords do not apply
        (1, {"type": "boolean"}, False),
        (True, {"enum": [1]}, False),
        (1, {"enum": [True]}, False),
        (0, {"const": False}, False),
        ([True], {"const": [1]}, False),
        (1.0, {"type": "integer"}, True),
        (1.5, {"type": "integer"}, False),
        (1, {"const": 1.0}, True),
        ({"a": [1.0]}, {"const": {"a": [1]}}, True),
        (decimal.Decimal("2"), {"type": "integer"}, True),
        (decimal.Decimal("2.00"), {"type": "integer"}, True),
        (decimal.Decimal("2.5"), {"type": "integer"}, False),
        (decimal.Decimal("2.5"), {"type": "number", "multipleOf": 0.5}, True),
        (
            decimal.Decimal("0.1"),
            {"minimum": 0.1, "maximum": 0.1},
            True,
        ),  # compared as the JSON literal 0.1
        (decimal.Decimal("0.1"), {"enum": [0.1]}, True),
        (decimal.Decimal("0.30000000000000001"), {"const": 0.3}, False),
        (decimal.Decimal("1E+2"), {"const": 100}, True),
        (
            (1, "a"),
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
            },
            True,
        ),
        ((1, 1.0), {"uniqueItems": True}, False),
        ([[1], (1.0,)], {"uniqueItems": True}, False),
        ([{"a": 1, "b": 2}, {"b": 2, "a": 1}], {"uniqueItems": True}, False),
        ([1, True], {"uniqueItems": True}, True),
        (MappingProxyType({"a": 1}), {"type": "object", "required": ["a"]}, True),
        (datetime.date(2024, 1, 31), {"type": "string", "format": "date"}, True),
        (datetime.date(2024, 1, 31), {"const": "2024-01-31"}, True),
        (datetime.date(2024, 1, 31), {"type": "string", "maxLength": 9}, False),
        (
            datetime.datetime(2024, 1, 31, 9, 30, tzinfo=datetime.timezone.utc),
            {"type": "string", "format": "date-time"},
            True,
        ),
        # A naive datetime's ISO text has no offset, so it is no RFC 3339 date-time.
        (
            datetime.datetime(2024, 1, 31, 9, 30),
            {"type": "string", "format": "date-time"},
            False,
        ),
        (
            datetime.datetime(2024, 1, 31, 9, 30),
            {"type": "string", "format": "date"},
            False,
        ),
        (uuid.UUID(int=1), {"type": "string", "pattern": "^0{8}-"}, True),
        (uuid.UUID(int=1), {"enum": ["00000000-0000-0000-0000-000000000001"]}, True),
    ],
)
def test_python_data_model(
    instance: object, schema: dict[str, Any], valid: bool
) -> None:
    assert is_valid(instance, schema) is valid
    assert (validate(instance, schema) == []) is valid


class Record(Mapping[str, object]):
    """A Mapping that is not a dict."""

    def __init__(self, **items: object) -> None:
        self._items = items

    def __getitem__(self, key: str) -> object:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def test_any_mapping_is_an_object() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert validate(Record(n=1), schema) == []
    assert [p.format() for p in validate(Record(n="x"), schema)] == [
        "n: expected integer, got string"
    ]
    assert [p.keyword for p in validate(Record(n=1, m=2), schema)] == [
        "additionalProperties"
    ]


@pytest.mark.parametrize(
    ("instance", "where"),
    [
        ({1, 2}, ()),
        (b"bytes", ()),
        (object(), ()),
        (float("nan"), ()),
        (float("inf"), ()),
        (decimal.Decimal("NaN"), ()),
        ({"a": [1, {"b": frozenset()}]}, ("a", 1, "b")),
        ({1: "x"}, ()),
        (datetime.time(12, 0), ()),
    ],
)
def test_non_json_data_is_rejected_even_by_true(
    instance: object, where: tuple[str | int, ...]
) -> None:
    for schema in (
        True,
        {},
        {"type": ["object", "array", "string", "number", "null", "boolean"]},
    ):
        problems = validate(instance, schema)
        assert (
            len(problems) == 1
            and problems[0].path == where
            and problems[0].keyword == "type"
        )
        assert "JSON" in problems[0].message
        assert not is_valid(instance, schema)


def test_non_json_data_message() -> None:
    (problem,) = validate({"tags": {"a"}}, {"type": "object"})
    assert problem.format() == "tags: is not valid JSON data (got Python set)"


# -- format: date and date-time are asserted beside "type": "string" ----------------------------------------------

VALID_DATES = ["2024-01-31", "2020-02-29", "0001-01-01", "9999-12-31", "0400-02-29"]
INVALID_DATES = [
    "2021-02-29",
    "2024-13-01",
    "2024-00-10",
    "2024-01-00",
    "0000-01-01",
    "2024-1-31",
    "20240131",
    "2024-W05-3",
    "2024-01-31T00:00:00Z",
    " 2024-01-31",
    "2024-01-31\n",
    "２０２４-01-31",
    "",
]
VALID_DATE_TIMES = [
    "2024-01-31T09:30:00Z",
    "2024-01-31T09:30:00+02:00",
    "2024-01-31T09:30:00-23:59",
    "2024-01-31T09:30:00.5Z",
    "2024-01-31T09:30:00.123456789Z",
    "2024-01-31t09:30:00z",
    "2020-02-29T23:59:59+00:00",
]
INVALID_DATE_TIMES = [
    "2024-01-31T09:30:00",  # no offset
    "2024-01-31 09:30:00Z",  # RFC 3339's ABNF requires "T"
    "2024-01-31T24:00:00Z",
    "2024-01-31T09:60:00Z",
    "1998-12-31T23:59:60Z",  # leap second: Python's datetime cannot hold it
    "2024-01-31T09:30:00+24:00",
    "2024-01-31T09:30:00+01:60",
    "2024-01-31T09:30:00+01",
    "2024-01-31T09:30:00.Z",
    "2021-02-29T09:30:00Z",
    "2024-01-31",
    "2024-01-31T09:30:00Z\n",
    "2024-01-31T09:30Z",
]


@pytest.mark.parametrize("text", VALID_DATES)
def test_valid_date(text: str) -> None:
    assert is_valid(text, {"type": "string", "format": "date"})
    assert datetime.date.fromisoformat(text)


@pytest.mark.parametrize("text", INVALID_DATES)
def test_invalid_date(text: str) -> None:
    (problem,) = validate(text, {"type": "string", "format": "date"})
    assert problem.keyword == "format" and "YYYY-MM-DD" in problem.message


@pytest.mark.parametrize("text", VALID_DATE_TIMES)
def test_valid_date_time(text: str) -> None:
    assert is_valid(text, {"type": "string", "format": "date-time"})
    # Whatever the check accepts, Python's own parser accepts (3.11 wants an upper-case Z).
    assert datetime.datetime.fromisoformat(text.replace("z", "Z"))


@pytest.mark.parametrize("text", INVALID_DATE_TIMES)
def test_invalid_date_time(text: str) -> None:
    (problem,) = validate(text, {"type": "string", "format": "date-time"})
    assert problem.keyword == "format" and "RFC 3339" in problem.message


def test_date_rule_needs_type_string() -> None:
    assert is_valid("not a date", {"format": "date"})  # format alone is an annotation
    assert is_valid(
        "not a date", {"type": "string", "format": "email"}
    )  # other formats are annotations
    assert not is_valid("not a date", {"type": ["string", "null"], "format": "date"})
    assert is_valid(None, {"type": ["string", "null"], "format": "date"})
    assert is_valid(5, {"type": ["string", "integer"], "format": "date-time"})
    # The rule reads "type" of the same schema object, not of a sibling in allOf.
    assert is_valid("not a date", {"allOf": [{"type": "string"}, {"format": "date"}]})


def test_date_rule_matches_the_optional_format_suite_except_leap_seconds() -> None:
    folder = SUITE / "optional" / "format"
    assert folder.is_dir()
    for name in ("date.json", "date-time.json"):
        for group in json.loads((folder / name).read_text(encoding="utf-8")):
            schema = {
                **group["schema"],
                "type": [
                    "string",
                    "number",
                    "integer",
                    "object",
                    "array",
                    "boolean",
                    "null",
                ],
            }
            for test in group["tests"]:
                expected = test["valid"] and not re.search(
                    r"T\d\d:\d\d:60", str(test["data"])
                )
                assert is_valid(test["data"], schema) is expected, (
                    name,
                    test["description"],
                )


# -- pattern ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^a$", "a", True),
        ("^a$", "a\n", False),  # "$" is end of input, as in ECMA-262
        ("a\\$", "a$", True),
        ("[$]", "$", True),
        ("[]$]", "$", True),
        ("b", "abc", True),  # search, not match
        ("^\\p{Lu}+$", "ÀB", True),
        ("^\\p{Lu}+$", "Àb", False),
        ("^[\\p{L}\\d]+$", "é9", True),
        ("^\\P{L}+$", "12", True),
        ("^[^\\P{N}]+$", "٣3", True),
    ],
)
def test_pattern(pattern: str, text: str, matches: bool) -> None:
    assert is_valid(text, {"pattern": pattern}) is matches
    assert compile_pattern(pattern).search(text) is matches


def test_uncompilable_pattern_is_a_problem_not_a_crash() -> None:
    with pytest.raises(PatternError):
        compile_pattern("(")
    (problem,) = validate("x", {"pattern": "("})
    assert problem.keyword == "pattern" and "schema error" in problem.message
    (problem,) = validate({"x": 1}, {"patternProperties": {"(": True}})
    assert problem.keyword == "patternProperties"


# -- problems: paths, messages, order -----------------------------------------------------------------------------

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["items", "kind"],
    "additionalProperties": False,
    "properties": {
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "kind": {"enum": ["a", "b"]},
        "count": {"type": "integer", "minimum": 3},
        "note": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]},
        "owner": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
        "shape": {"oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]},
        "when": {"type": "string", "format": "date"},
    },
    "$defs": {
        "Item": {
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "required": ["id"],
        },
        "Circle": {
            "type": "object",
            "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
            "required": ["kind", "r"],
        },
        "Square": {
            "type": "object",
            "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
            "required": ["kind", "side"],
        },
    },
}


def formatted(
    instance: object, schema: Any = ORDER_SCHEMA, pointer: str = ""
) -> list[str]:
    return [problem.format() for problem in validate(instance, schema, pointer=pointer)]


def test_nested_path_and_message() -> None:
    assert formatted({"items": [{"id": "x"}], "kind": "a"}) == [
        "items[0].id: expected integer, got string"
    ]
    (problem,) = validate({"items": [{"id": "x"}], "kind": "a"}, ORDER_SCHEMA)
    assert problem == Problem(
        ("items", 0, "id"), "expected integer, got string", "type"
    )


def test_all_problems_are_collected_in_order() -> None:
    instance = {
        "items": [{"id": 1}, {}],
        "count": 2.5,
        "when": "2024-02-30",
        "extra": True,
    }
    assert formatted(instance) == [
        "(root): 'kind' is a required property",
        "items[1]: 'id' is a required property",
        "count: expected integer, got number",
        "count: must be >= 3",
        "when: must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)",
        "(root): unexpected property 'extra' (allowed: 'items', 'kind', 'count', 'note', 'owner', 'shape', 'when')",
    ]
    assert formatted(instance) == formatted(instance)  # deterministic


def test_messages() -> None:
    assert formatted({"items": [], "kind": "c"}) == ["kind: must be one of ['a', 'b']"]
    assert formatted("ab", {"minLength": 3}) == [
        "(root): must be at least 3 characters long"
    ]
    assert formatted("abcd", {"maxLength": 1}) == [
        "(root): must be at most 1 character long"
    ]
    assert formatted("x", {"pattern": "^[0-9]+$"}) == [
        "(root): must match pattern '^[0-9]+$'"
    ]
    assert formatted(7, {"multipleOf": 2}) == ["(root): must be a multiple of 2"]
    assert formatted(7, {"exclusiveMaximum": 7}) == ["(root): must be < 7"]
    assert formatted([1, 1], {"uniqueItems": True}) == [
        "(root): must not contain duplicates (items 0 and 1 are equal)"
    ]
    assert formatted([], {"minItems": 1}) == [
        "(root): must have at least 1 item (has 0)"
    ]
    assert formatted({}, {"minProperties": 2}) == [
        "(root): must have at least 2 properties (has 0)"
    ]
    assert formatted({"a": 1}, {"dependentRequired": {"a": ["b"]}}) == [
        "(root): 'b' is a required property when 'a' is present"
    ]
    assert formatted([1], {"contains": {"type": "string"}}) == [
        "(root): must contain at least 1 item matching the 'contains' schema (found 0)"
    ]
    assert formatted({"Bad": 1}, {"propertyNames": {"pattern": "^[a-z]+$"}}) == [
        "(root): property name 'Bad' is invalid: must match pattern '^[a-z]+$'"
    ]
    assert formatted(1, {"const": "x"}) == ["(root): must be equal to 'x'"]
    assert formatted(1, {"not": {"type": "integer"}}) == [
        "(root): must not match the 'not' schema {'type': 'integer'}"
    ]
    assert formatted(1, False) == ["(root): no value is allowed here"]
    assert formatted({"a": 1}, {"properties": {"a": False}}) == [
        "a: no value is allowed here"
    ]
    assert formatted({"a": 1, "b": 2}, {"unevaluatedProperties": False}) == [
        "(root): unexpected properties 'a', 'b'"
    ]
    assert formatted([1, 2], {"prefixItems": [True], "items": False}) == [
        "(root): must have at most 1 item (no additional items allowed)"
    ]
    assert formatted(None, {"type": ["string", "integer", "boolean"]}) == [
        "(root): expected string, integer or boolean, got null"
    ]


def test_path_rendering() -> None:
    problem = Problem(("a b", 0, "c.d", "", "ok_1"), "m", "type")
    assert problem.format() == '["a b"][0]["c.d"][""].ok_1: m'
    assert Problem((), "m", "type").format() == "(root): m"
    assert Problem((3, "x"), "m", "type").format() == "[3].x: m"
    with pytest.raises(FrozenInstanceError):
        problem.message = "changed"  # type: ignore[misc]


def test_any_of_reports_the_alternative_the_value_was_meant_for() -> None:
    # A nullable object: the value is an object, so only the object alternative's problems are relevant.
    assert formatted({"items": [], "kind": "a", "owner": {"id": "7"}}) == [
        "owner.id: expected integer, got string"
    ]
    assert formatted({"items": [], "kind": "a", "note": "long"}) == [
        "note: must be at most 3 characters long"
    ]
    # A tagged union: the tag picks the alternative.
    assert formatted(
        {"items": [], "kind": "a", "shape": {"kind": "square", "side": "2"}}
    ) == ["shape.side: expected number, got string"]


def test_any_of_summarises_when_no_alternative_fits() -> None:
    (problem,) = validate({"items": [], "kind": "a", "note": 5}, ORDER_SCHEMA)
    assert problem.path == ("note",) and problem.keyword == "anyOf"
    assert problem.message == (
        "does not match any of the 2 anyOf alternatives: (1) expected string, got integer; (2) expected null, got integer"
    )
    (problem,) = validate(
        {"items": [], "kind": "a", "shape": {"kind": "hexagon"}}, ORDER_SCHEMA
    )
    assert (
        problem.keyword == "oneOf"
        and "(1) 'r' is a required property" in problem.message
    )
    assert "at kind: must be equal to 'square'" in problem.message


def test_one_of_reports_double_matches() -> None:
    (problem,) = validate(1, {"oneOf": [{"type": "integer"}, {"minimum": 0}]})
    assert (
        problem.message
        == "must match exactly one of the 2 oneOf alternatives, but matches alternatives 1 and 2"
    )


def test_unevaluated_properties_does_not_blame_properties_of_a_failing_branch() -> None:
    schema = {
        "allOf": [{"properties": {"a": {"type": "integer"}}}],
        "unevaluatedProperties": False,
    }
    assert formatted({"a": "x"}, schema) == ["a: expected integer, got string"]
    assert formatted({"a": 1, "b": 2}, schema) == ["(root): unexpected property 'b'"]


def test_duplicate_problems_are_reported_once() -> None:
    schema = {"allOf": [{"required": ["a"]}, {"required": ["a"]}]}
    assert formatted({}, schema) == ["(root): 'a' is a required property"]


# -- the pointer argument and the schema argument -----------------------------------------------------------------


def test_pointer_selects_a_subschema_and_refs_resolve_against_the_root() -> None:
    schema = {
        "$defs": {
            "Order": {
                "type": "object",
                "properties": {"item": {"$ref": "#/$defs/Item"}},
            },
            "Item": {"type": "object", "required": ["id"]},
            "a/b~c": {"type": "string"},
        }
    }
    assert validate({"item": {"id": 1}}, schema, pointer="/$defs/Order") == []
    assert formatted({"item": {}}, schema, pointer="/$defs/Order") == [
        "item: 'id' is a required property"
    ]
    assert formatted({"item": {}}, schema, pointer="#/$defs/Order") == [
        "item: 'id' is a required property"
    ]
    assert is_valid("x", schema, pointer="/$defs/a~1b~0c") and not is_valid(
        1, schema, pointer="/$defs/a~1b~0c"
    )
    assert is_valid(5, schema)  # the root has no constraints of its own
    with pytest.raises(ValueError):
        validate(1, schema, pointer="/$defs/Missing")
    with pytest.raises(ValueError):
        validate(1, schema, pointer="$defs/Item")


def test_pointer_honours_base_uri_changes_on_the_way() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "inner": {
                "$id": "nested/inner.json",
                "$defs": {"target": {"$ref": "other.json"}},
            },
            "other": {
                "$id": "https://example.com/nested/other.json",
                "type": "integer",
            },
        },
    }
    assert is_valid(1, schema, pointer="/$defs/inner/$defs/target")
    assert not is_valid("1", schema, pointer="/$defs/inner/$defs/target")


def test_boolean_and_bad_schemas() -> None:
    assert validate(1, True) == [] and is_valid(1, True)
    assert not is_valid(1, False)
    with pytest.raises(TypeError):
        validate(1, [])  # type: ignore[arg-type]
    (problem,) = validate(1, {"not": 5})
    assert problem.keyword == "schema"


def test_unresolvable_ref_is_a_problem() -> None:
    (problem,) = validate(1, {"$ref": "https://example.com/elsewhere.json"})
    assert problem.keyword == "$ref" and "cannot resolve" in problem.message


def test_meta_schema_is_available_offline() -> None:
    schema = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    assert is_valid({"type": "object", "properties": {"a": {"minLength": 1}}}, schema)
    assert not is_valid({"properties": {"a": {"minLength": -1}}}, schema)
    assert not is_valid({"$defs": {"a": {"type": "strin"}}}, schema)


# -- depth, loops, cost ---------------------------------------------------------------------------------------------


def nested_lists(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def test_ten_thousand_nested_lists_give_a_problem_not_a_crash() -> None:
    instance = nested_lists(10_000)
    for schema in (
        {"type": "array"},
        True,
        {"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"},
    ):
        problems = validate(instance, schema)
        assert len(problems) == 1 and problems[0].keyword == "depth"
        assert "nested too deeply" in problems[0].message
        assert not is_valid(instance, schema)


def test_deeply_nested_objects_and_cycles() -> None:
    value: dict[str, Any] = {}
    for _ in range(10_000):
        value = {"child": value}
    assert [p.keyword for p in validate(value, {})] == ["depth"]
    loop: list[Any] = []
    loop.append(loop)
    assert [p.keyword for p in validate(loop, {"type": "array"})] == ["depth"]


def test_recursion_within_the_limit_is_validated() -> None:
    schema = {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "child": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                    "v": {"type": "integer"},
                },
                "unevaluatedProperties": False,
            }
        },
    }
    leaf: dict[str, Any] = {"v": "bad", "child": None}
    instance = leaf
    for _ in range(60):
        instance = {"v": 1, "child": instance}
    (problem,) = validate(instance, schema)
    assert problem.path == ("child",) * 60 + ("v",) and problem.keyword == "type"
    leaf["v"] = 1
    assert validate(instance, schema) == []


def test_ref_loops_are_reported() -> None:
    for schema in (
        {"$ref": "#"},
        {
            "$ref": "#/$defs/a",
            "$defs": {
                "a": {"$ref": "#/$defs/b"},
                "b": {"allOf": [{"$ref": "#/$defs/a"}]},
            },
        },
    ):
        (problem,) = validate({"a": 1}, schema)
        assert problem.keyword == "$ref" and "loops" in problem.message


def test_nested_alternatives_are_not_exponential() -> None:
    # Twenty levels of failing anyOf over a chain of references: evaluated once per level, not 2**20 times.
    defs: dict[str, Any] = {
        f"L{i}": {"anyOf": [{"$ref": f"#/$defs/L{i + 1}"}, {"type": "string"}]}
        for i in range(20)
    }
    defs["L20"] = {"type": "boolean"}
    assert not is_valid(1, {"$ref": "#/$defs/L0", "$defs": defs})
    assert len(validate(1, {"$ref": "#/$defs/L0", "$defs": defs})) == 1


# -- agreement with jsonschema on generated cases -------------------------------------------------------------------


def random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, 1, 2, -1, 1.0, 2.5, 3])
    if choice == 3:
        return rng.choice(["", "a", "ab", "abc", "b"])
    if choice == 4:
        return rng.choice([1.5, 0.5])
    if choice == 5:
        return rng.choice([1, "a"])
    if choice in (6, 8):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice("abc"): random_value(rng, depth + 1) for _ in range(rng.randrange(4))
    }


def random_schema(rng: random.Random, depth: int = 0) -> Any:
    def sub() -> Any:
        return random_schema(rng, depth + 1)

    if depth > 3 or rng.random() < 0.2:
        return rng.choice(
            [
                True,
                False,
                {},
                {"type": rng.choice(["integer", "string", "object", "array", "null"])},
            ]
        )
    schema: dict[str, Any] = {}
    for _ in range(rng.randrange(1, 4)):
        keyword = rng.choice(
            [
                "type", "enum", "const", "minimum", "multipleOf", "maxLength", "pattern", "items", "prefixItems",
                "contains", "minContains", "maxContains", "uniqueItems", "properties", "patternProperties",
                "additionalProperties", "required", "dependentRequired", "dependentSchemas", "propertyNames",
                "minProperties", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "unevaluatedItems",
                "unevaluatedProperties", "$ref", "minItems",
            ]
        )  # fmt: skip
        if keyword == "type":
            schema[keyword] = rng.choice(
                ["integer", "string", "object", "array", ["null", "integer"], "number"]
            )
        elif keyword == "enum":
            schema[keyword] = [random_value(rng, 2) for _ in range(rng.randrange(1, 4))]
        elif keyword == "const":
            schema[keyword] = random_value(rng, 2)
        elif keyword == "minimum":
            schema[keyword] = rng.choice([0, 1, 1.5])
        elif keyword == "multipleOf":
            schema[keyword] = rng.choice([2, 0.5, 1.5])
        elif keyword == "maxLength":
            schema[keyword] = rng.randrange(3)
        elif keyword == "pattern":
            schema[keyword] = rng.choice(["a", "^a", "b+", "^$"])
        elif keyword == "prefixItems":
            schema[keyword] = [sub() for _ in range(rng.randrange(1, 3))]
        elif keyword in ("minContains", "maxContains", "minProperties", "minItems"):
            schema[keyword] = rng.randrange(3)
        elif keyword == "uniqueItems":
            schema[keyword] = True
        elif keyword == "properties":
            schema[keyword] = {
                rng.choice("abc"): sub() for _ in range(rng.randrange(1, 3))
            }
        elif keyword == "patternProperties":
            schema[keyword] = {rng.choice(["^a", "b", "c$"]): sub()}
        elif keyword == "required":
            schema[keyword] = rng.sample("abc", rng.randrange(1, 3))
        elif keyword == "dependentRequired":
            schema[keyword] = {rng.choice("abc"): rng.sample("abc", 1)}
        elif keyword == "dependentSchemas":
            schema[keyword] = {rng.choice("abc"): sub()}
        elif keyword in ("allOf", "anyOf", "oneOf"):
            schema[keyword] = [sub() for _ in range(rng.randrange(1, 4))]
        elif keyword == "$ref":
            schema[keyword] = rng.choice(["#/$defs/X", "#/$defs/Y"])
        else:
            schema[keyword] = sub()
    schema["$defs"] = {
        "X": {"type": "object", "properties": {"a": {"type": "integer"}}},
        "Y": {
            "items": {"$ref": "#/$defs/X"},
            "unevaluatedItems": False,
            "prefixItems": [True],
        },
    }
    return schema


def test_agrees_with_jsonschema_on_random_cases() -> None:
    rng = random.Random(20240131)
    outcomes = {True: 0, False: 0}
    for _ in range(3000):
        schema, instance = random_schema(rng), random_value(rng)
        expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
        assert is_valid(instance, schema) is expected, (schema, instance)
        assert (validate(instance, schema) == []) is expected, (schema, instance)
        outcomes[expected] += 1
    assert min(outcomes.values()) > 500  # both verdicts well exercised


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        (10**4300 - 1, False),
        (10**4300, True),
        (-(10**4300), True),
        (
            10**4305,
            True,
        ),  # a bit-length estimate of the digits let 4,301 to 4,310 through, which str() refuses
    ],
    ids=["4300-digits", "4301-digits", "4301-digits-negative", "4306-digits"],
)
def test_integers_of_more_than_4300_digits_are_refused_exactly(
    value: int, refused: bool
) -> None:
    from toolspec_runtime.validation import is_valid

    assert is_valid(value, {"type": "integer"}) is not refused
