"""Strict JSON semantics (SPEC §3): a generated model judges an instance as JSON Schema does, as JSON text and as
Python data alike. Pydantic alone would coerce most of the rejected values below; docs/semantics.md says how the
generated code prevents it, and which Python values stand for which JSON values."""

from __future__ import annotations

import datetime
import decimal
import json
import uuid
from types import MappingProxyType, ModuleType
from typing import Any

import pytest
from oracle import accepts
from pydantic import TypeAdapter, ValidationError

from conftest import generate_package

SCHEMAS: dict[str, Any] = {
    "Int": {"type": "integer"},
    "Num": {"type": "number"},
    "Flag": {"type": "boolean"},
    "Text": {"type": "string"},
    "Nothing": {"type": "null"},
    "Ints": {"type": "array", "items": {"type": "integer"}},
    "Counts": {"type": "object", "additionalProperties": {"type": "integer"}},
    "Day": {"type": "string", "format": "date"},
    "Moment": {"type": "string", "format": "date-time"},
    "Choice": {"enum": [1, 2, "a"]},
    "Off": {"const": False},
    "Primitive": {"type": ["string", "number", "boolean"]},
    "Record": {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "fooBar": {"type": "string"},
            "from": {"type": "integer"},
            "from_": {"type": "string"},
            "when": {"type": "string", "format": "date"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["count"],
    },
    "Counted": {
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    },
    "Holder": {
        "type": "object",
        "properties": {"record": {"$ref": "record.schema.json"}},
    },
    "Closed": {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "additionalProperties": False,
    },
}

# (model, instance, valid): every instance is JSON data, so JSON text and Python data must both give `valid`.
JSON_CASES: list[tuple[str, Any, bool]] = [
    # integers: the JSON number 1.0 is an integer; text, booleans and fractions are not
    ("Int", 5, True),
    ("Int", 5.0, True),
    ("Int", -0.0, True),
    ("Int", 10**30, True),
    ("Int", 1e19, True),  # integral, beyond 64 bits: Pydantic alone refuses the float
    ("Int", "5", False),
    ("Int", True, False),
    ("Int", False, False),
    ("Int", 1.5, False),
    ("Int", None, False),
    ("Int", [5], False),
    # numbers
    ("Num", 1.5, True),
    ("Num", 7, True),
    ("Num", 1e308, True),
    ("Num", "1.5", False),
    ("Num", True, False),
    ("Num", None, False),
    # booleans: no truthiness
    ("Flag", True, True),
    ("Flag", False, True),
    ("Flag", 1, False),
    ("Flag", 0, False),
    ("Flag", "true", False),
    ("Flag", "false", False),
    ("Flag", None, False),
    # strings: no numbers turned into text
    ("Text", "", True),
    ("Text", "5", True),
    ("Text", 5, False),
    ("Text", 5.5, False),
    ("Text", True, False),
    ("Text", None, False),
    ("Text", ["a"], False),
    # null is only null
    ("Nothing", None, True),
    ("Nothing", 0, False),
    ("Nothing", "", False),
    ("Nothing", False, False),
    ("Nothing", [], False),
    # arrays: an object or a string is not a list
    ("Ints", [], True),
    ("Ints", [1, 2.0], True),
    ("Ints", {"0": 1}, False),
    ("Ints", "12", False),
    ("Ints", ["1"], False),
    ("Ints", [True], False),
    # objects: a list of pairs is not an object
    ("Counts", {}, True),
    ("Counts", {"a": 1}, True),
    ("Counts", [["a", 1]], False),
    ("Counts", [], False),
    ("Counts", {"a": "1"}, False),
    ("Counts", "{}", False),
    # dates are RFC 3339 text, not timestamps or other spellings Pydantic would parse
    ("Day", "2024-02-29", True),
    ("Day", "2023-02-29", False),
    ("Day", "2024-01-02T00:00:00Z", False),
    ("Day", "20240102", False),
    ("Day", 20240102, False),
    ("Day", 1704153600, False),
    ("Moment", "2024-01-02T03:04:05Z", True),
    ("Moment", "2024-01-02t03:04:05.123456789+05:30", True),
    ("Moment", "2024-01-02T03:04:05", False),  # no offset
    ("Moment", "2024-01-02 03:04:05Z", False),
    ("Moment", "2024-01-02T03:04:60Z", False),
    ("Moment", 1704164645, False),
    ("Moment", "2024-01-02", False),
    # enum and const compare JSON values: 1.0 is 1, true is not 1, false is not 0
    ("Choice", 1, True),
    ("Choice", 1.0, True),
    ("Choice", "a", True),
    ("Choice", True, False),
    ("Choice", "1", False),
    ("Choice", "A", False),
    ("Off", False, True),
    ("Off", 0, False),
    ("Off", None, False),
    ("Primitive", "x", True),
    ("Primitive", 1, True),
    ("Primitive", 1.5, True),
    ("Primitive", False, True),
    ("Primitive", None, False),
    ("Primitive", [], False),
    # objects with declared fields
    ("Record", {"count": 1}, True),
    ("Record", {"count": 1.0, "ratio": 2}, True),
    ("Record", {"count": "1"}, False),
    ("Record", {"count": True}, False),
    ("Record", {"count": 1, "ratio": "0.5"}, False),
    ("Record", {"count": 1, "tags": "a"}, False),
    ("Record", {"count": 1, "tags": [1]}, False),
    ("Record", {"count": 1, "when": "2024-13-01"}, False),
    (
        "Record",
        {"count": 1, "anything": [1, {"x": None}]},
        True,
    ),  # open: additional properties are allowed
    (
        "Record",
        {"count": 1, "foo_bar": 5},
        True,
    ),  # a Python field name in data is an additional property
    ("Record", {"count": 1, "fooBar": "x", "foo_bar": 5}, True),
    (
        "Record",
        {"count": 1, "from_": "x"},
        True,
    ),  # the wire name of the second field, not the first's name
    ("Record", {"count": 1, "from_": 1}, False),
    ("Record", {}, False),
    ("Record", [["count", 1]], False),
    ("Closed", {"a": 1}, True),
    ("Closed", {"a": 1, "b": 2}, False),
    ("Closed", {}, True),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    import importlib
    import sys

    folder = tmp_path_factory.mktemp("semantics")
    specs = folder / "specs"
    specs.mkdir()
    for name, schema in SCHEMAS.items():
        (specs / f"{name.lower()}.schema.json").write_text(
            json.dumps({"title": name, **schema}), encoding="utf-8"
        )
    out, name = generate_package(folder, specs, name="semantics_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def judge(model: Any, instance: Any, *, as_json: bool) -> tuple[bool, Any]:
    try:
        value = (
            model.model_validate_json(json.dumps(instance))
            if as_json
            else model.model_validate(instance)
        )
    except ValidationError:
        return False, None
    return True, value


@pytest.mark.parametrize("as_json", [False, True], ids=["python", "json"])
@pytest.mark.parametrize(
    ("name", "instance", "valid"),
    JSON_CASES,
    ids=[f"{c[0]}-{c[1]!r}"[:60] for c in JSON_CASES],
)
def test_json_semantics(
    package: ModuleType, name: str, instance: Any, valid: bool, as_json: bool
) -> None:
    assert (
        accepts(SCHEMAS[name], instance) == valid
    ), "table error: jsonschema disagrees"
    accepted, _ = judge(getattr(package, name), instance, as_json=as_json)
    assert accepted == valid


def test_pydantic_alone_would_coerce() -> None:
    """Why the check exists: the same Python types, judged by Pydantic alone, accept what JSON Schema rejects."""
    assert TypeAdapter(int).validate_python("5") == 5
    assert TypeAdapter(int).validate_json("true") == 1
    assert TypeAdapter(float).validate_python(True) == 1.0
    assert TypeAdapter(bool).validate_python(1) is True
    assert TypeAdapter(bool).validate_json('"true"') is True
    assert TypeAdapter(datetime.date).validate_python(1704153600) == datetime.date(
        2024, 1, 2
    )
    assert TypeAdapter(list[int]).validate_python({1}) == [1]
    assert (
        TypeAdapter(datetime.datetime).validate_python("2024-01-02 03:04:05Z").day == 2
    )
    assert TypeAdapter(str).validate_python(b"x") == "x"


def test_accepted_values_get_their_python_types(package: ModuleType) -> None:
    for as_json in (False, True):
        assert judge(package.Int, 5.0, as_json=as_json)[1].root == 5
        assert type(judge(package.Int, 5.0, as_json=as_json)[1].root) is int
        assert judge(package.Int, 1e19, as_json=as_json)[1].root == 10**19
        assert type(judge(package.Num, 7, as_json=as_json)[1].root) is float
        assert judge(package.Day, "2024-02-29", as_json=as_json)[
            1
        ].root == datetime.date(2024, 2, 29)
        moment = judge(package.Moment, "2024-01-02T03:04:05+01:00", as_json=as_json)[
            1
        ].root
        assert moment.utcoffset() == datetime.timedelta(hours=1)
        assert judge(package.Primitive, 1, as_json=as_json)[1].root == 1
        assert type(judge(package.Primitive, 1, as_json=as_json)[1].root) is int
        record = judge(
            package.Record,
            {"count": 1.0, "when": "2024-01-02", "x": 1},
            as_json=as_json,
        )[1]
        assert (
            record.count == 1
            and record.when == datetime.date(2024, 1, 2)
            and record.model_extra == {"x": 1}
        )


def test_wire_names_in_data_python_names_in_the_constructor(
    package: ModuleType,
) -> None:
    record_cls = package.Record
    # Data is keyed by wire names only: `foo_bar` is an additional property there, not the field `fooBar`.
    record = record_cls.model_validate({"count": 1, "foo_bar": 5})
    assert record.foo_bar is None and record.model_extra == {"foo_bar": 5}
    assert record.model_dump(by_alias=True, exclude_unset=True) == {
        "count": 1,
        "foo_bar": 5,
    }
    # The wire name `from_` belongs to the second field; the first field (Python name `from_`) stays unset.
    record = record_cls.model_validate({"count": 1, "from_": "x"})
    assert (
        record.from_ is None
        and record.from__2 == "x"
        and "from_" not in record.model_fields_set
    )
    assert record.model_dump(by_alias=True, exclude_unset=True) == {
        "count": 1,
        "from_": "x",
    }
    # The constructor takes Python names and wire names.
    assert record_cls(count=1, foo_bar="a").foo_bar == "a"
    assert record_cls(**{"count": 1, "fooBar": "a"}).foo_bar == "a"
    assert record_cls(count=1, from_=2, from__2="x").model_dump(
        by_alias=True, exclude_unset=True
    ) == {
        "count": 1,
        "from": 2,
        "from_": "x",
    }
    with pytest.raises(TypeError, match="two values"):
        record_cls(**{"count": 1, "foo_bar": "a", "fooBar": "b"})
    with pytest.raises(ValidationError):
        record_cls(count="1")


# Python values that are not JSON text: what each stands for (SPEC §3 speaks of "parsed Python data").
PYTHON_CASES: list[tuple[str, Any, bool]] = [
    ("Int", decimal.Decimal("5"), True),  # a Decimal is a JSON number
    ("Int", decimal.Decimal("5.5"), False),
    ("Num", decimal.Decimal("0.1"), True),
    ("Num", float("nan"), False),  # not JSON numbers
    ("Num", float("inf"), False),
    ("Int", (1,), False),
    ("Ints", (1, 2), True),  # a tuple is a JSON array
    ("Ints", {1, 2}, False),  # a set is not JSON data
    ("Text", b"x", False),  # nor are bytes
    (
        "Text",
        datetime.date(2024, 1, 2),
        True,
    ),  # dates and UUIDs stand for their ISO / canonical text ...
    ("Text", uuid.UUID(int=1), True),
    ("Day", datetime.date(2024, 1, 2), True),
    (
        "Day",
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        False,
    ),  # ... so a datetime is not a date
    (
        "Moment",
        datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
        True,
    ),
    (
        "Moment",
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        False,
    ),  # RFC 3339 needs an offset
    (
        "Counts",
        MappingProxyType({"a": 1}),
        True,
    ),  # any mapping with text keys is an object
    ("Counts", {1: 1}, False),
    ("Record", {"count": 1, "tags": ("a",)}, True),
]


@pytest.mark.parametrize(
    ("name", "instance", "valid"),
    PYTHON_CASES,
    ids=[f"{c[0]}-{c[1]!r}"[:60] for c in PYTHON_CASES],
)
def test_python_values_mean_the_json_they_stand_for(
    package: ModuleType, name: str, instance: Any, valid: bool
) -> None:
    assert judge(getattr(package, name), instance, as_json=False)[0] == valid


def test_python_values_come_out_as_the_declared_type(package: ModuleType) -> None:
    assert package.Text.model_validate(datetime.date(2024, 1, 2)).root == "2024-01-02"
    assert (
        package.Text.model_validate(uuid.UUID(int=1)).root
        == "00000000-0000-0000-0000-000000000001"
    )
    assert package.Ints.model_validate((1, 2)).root == [1, 2]
    assert package.Int.model_validate(decimal.Decimal("5")).root == 5


def test_models_nest_by_instance_and_by_data(package: ModuleType) -> None:
    record = package.Record.model_validate({"count": 2})
    assert package.Record.model_validate(record) is record
    assert (
        package.Record.model_validate(
            record.model_dump(by_alias=True, exclude_unset=True)
        )
        == record
    )


def test_a_model_instance_in_data_stands_for_its_json(package: ModuleType) -> None:
    record = package.Record(count=1, foo_bar="x")
    holder = package.Holder(record=record)
    assert (
        holder.record == record and holder.record is not record
    )  # a copy, checked again
    # An instance of another model class with acceptable JSON is accepted too, as its JSON.
    holder = package.Holder.model_validate({"record": package.Counted(count=2)})
    assert type(holder.record) is package.Record and holder.record.count == 2
    with pytest.raises(ValidationError):
        package.Holder.model_validate(
            {"record": package.Closed(a=1)}
        )  # {"a": 1}: no count
