"""The native path (codegen/passes/native.py): which models Pydantic validates alone, and that it is sound.

A `NativeModel` validates in pydantic-core's strict mode first; the interpreter decides only what strict mode
refuses. So exactness rests on one property, checked here on drawn and tricky values: whatever strict native
validation accepts (Python data or JSON text), the interpreter accepts too, and the typed model is the one the
interpreter path would have built.
"""

from __future__ import annotations

import datetime
import decimal
import json
import re
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolspec_runtime.models import read_json, to_json_data
from toolspec_runtime.validation import validate
from conftest import generate_package
from toolspec_runtime.models import schema_location

# Schemas covering every keyword the native path takes, each alone and in combination.
SCHEMAS: dict[str, Any] = {
    "Scalars": {
        "type": "object",
        "properties": {
            "i": {"type": "integer", "minimum": -5, "exclusiveMaximum": 100},
            "m": {"type": "integer", "multipleOf": 3},
            "n": {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6},
            "h": {"type": "number", "multipleOf": 0.5},
            "t": {"type": "number", "multipleOf": 0.1},
            "b": {"type": "boolean"},
            "s": {"type": "string", "minLength": 1, "maxLength": 3},
            "p": {"type": "string", "pattern": "^[a-z]+$"},
            "q": {"type": "string", "pattern": "[^x]"},
            "e": {"enum": ["a", "b", None]},
            "c": {"const": "k"},
            "d": {"type": "string", "format": "date"},
            "dt": {"type": "string", "format": "date-time"},
            "z": {"type": ["integer", "null"]},
            "o": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "a": {},
            "x": {"oneOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]},
            "y": {"not": {"type": "string"}},
            "u": {"type": "array", "uniqueItems": True},
            "k": {"enum": [1, "1", True, None]},
        },
        "required": ["i"],
        "additionalProperties": False,
    },
    "Nested": {
        "type": "object",
        "properties": {
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "uniqueItems": True,
                "minItems": 1,
                "maxItems": 3,
            },
            "any": {"type": "array"},
            "map": {"type": "object", "additionalProperties": {"type": "integer"}},
            "line": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["sku"],
                "additionalProperties": False,
            },
            "lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
        },
        "$defs": {
            "Line": {
                "type": "object",
                "properties": {"qty": {"type": "integer", "minimum": 1}},
                "additionalProperties": False,
            }
        },
    },
    "Open": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
    },
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    import importlib

    folder = tmp_path_factory.mktemp("native")
    specs = folder / "specs"
    specs.mkdir()
    for name, schema in SCHEMAS.items():
        (specs / f"{name.lower()}.schema.json").write_text(
            json.dumps({"title": name, **schema})
        )
    out, name = generate_package(folder, specs, name="native_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def _models(package: ModuleType) -> list[type[Any]]:
    """The package's native model classes (its own copy of the runtime's `NativeModel`)."""
    import importlib

    base = importlib.import_module("toolspec_runtime.models").NativeModel
    found = {
        value
        for name in dir(package)
        if isinstance(value := getattr(package, name), type) and issubclass(value, base)
    }
    return sorted(found, key=lambda cls: cls.__qualname__)


def test_every_schema_here_takes_the_native_path(package: ModuleType) -> None:
    names = {cls.__name__ for cls in _models(package)}
    assert {"Scalars", "Nested", "Open"} <= names
    # Fields without a native form are checked by the interpreter alone; the model stays native.
    assert "_models.Checked(" in Path(package.scalars.__file__).read_text()
    assert package.Scalars.__json_exact_numbers__ is True  # `a` takes any JSON
    assert package.Nested.__json_exact_numbers__ is True  # so do `any`'s items


def _interpreter_accepts(cls: type[Any], data: Any) -> bool:
    document = schema_location(cls)[0]
    return not validate(to_json_data(data), document, pointer=schema_location(cls)[1])


def _strict_accepts(cls: type[Any], data: Any) -> Any:
    try:
        return cls.__pydantic_validator__.validate_python(data, strict=True)
    except Exception:
        return None


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 3, 6, -5, 99, 100, 2**64, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [0.0, 1.0, 0.5, 0.3, 0.1, 3.0, 1e19, 2.0**63, -0.0, 0.30000000000000004]
    ),
    st.decimals(allow_nan=False, allow_infinity=False, places=3),
    st.text(max_size=5),
    st.sampled_from(
        [
            "",
            "a",
            "abc",
            "abcd",
            "k",
            "x",
            "a\ud800",
            "\ud800",
            "2024-02-29",
            "2023-02-29",
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05z",
            "2024-01-02 03:04:05Z",
            "2024-01-02T03:04:05",
            "2024-01-02T03:04:60Z",
            "2024-01-02T03:04:05+24:00",
            "2024-01-02T03:04:05.123456789-05:30",
            "1.0",
            "5",
            "true",
        ]
    ),
    st.sampled_from(
        [
            datetime.date(2024, 1, 2),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc),
            datetime.datetime(
                2024, 1, 2, tzinfo=datetime.timezone(datetime.timedelta(seconds=30))
            ),
            decimal.Decimal("1.0"),
            decimal.Decimal("0.30"),
            (1, 2),
            ("a",),
            b"a",
            {1, 2},
        ]
    ),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["sku", "n", "qty", "x", "a"]), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


def _instances(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys + ["extra"]), _VALUES, max_size=5)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_strict_native_acceptance_implies_the_interpreters(
    package: ModuleType, data: st.DataObject
) -> None:
    for cls in _models(package):
        keys = list(cls.model_fields) + [
            f.alias for f in cls.model_fields.values() if f.alias
        ]
        instance = data.draw(_instances(sorted(set(keys))))
        typed = _strict_accepts(cls, instance)
        if typed is None:
            continue
        assert _interpreter_accepts(cls, instance), (cls.__name__, instance)
        # The interpreter's path types the same model.
        via_check = cls.__pydantic_validator__.validate_python(
            to_json_data(instance), strict=False
        )
        assert via_check.model_dump(mode="json") == typed.model_dump(mode="json")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_native_json_text_acceptance_implies_the_interpreters(
    package: ModuleType, data: st.DataObject
) -> None:
    for cls in _models(package):
        keys = sorted(cls.model_fields)
        instance = data.draw(_instances(keys))
        try:
            text = json.dumps(instance, allow_nan=True)
        except (TypeError, ValueError):
            continue
        try:
            cls.__pydantic_validator__.validate_json(text, strict=True)
        except Exception:
            continue
        parsed = read_json(text)
        assert not validate(
            parsed, schema_location(cls)[0], pointer=schema_location(cls)[1]
        ), text


@pytest.mark.parametrize(
    "instance",
    [
        {"i": True},
        {"i": 1, "n": 0},
        {"i": 1, "n": math.nan},
        {"i": 1, "n": math.inf},
        {"i": 1, "t": 0.30000000000000004},
        {"i": 1, "h": 0.5000000000000001},
        {"i": 1, "m": 4},
        {"i": 1, "s": ""},
        {"i": 1, "p": "ab1"},
        {"i": 1, "e": "c"},
        {"i": 1, "c": "j"},
        {"i": 1, "b": 1},
        {"i": 1, "d": "2023-02-29"},
        {"i": 1, "d": datetime.datetime(2024, 1, 2)},
        {"i": 1, "dt": "2024-01-02T03:04:05"},
        {"i": 1, "dt": datetime.datetime(2024, 1, 2)},
        {"i": 1, "o": 5},
        {"i": 1, "a": math.nan},
        {"i": 1, "a": {1, 2}},
        {"i": 1, "extra": 1},
        {"i": "1"},
        {"i": 1, "s": None},
        {"i": 1, "x": "a"},
        {"i": 1, "x": 1.5},
        {"i": 1, "y": "s"},
        {"i": 1, "u": [1, 1.0]},
        {"i": 1, "k": 1.5},
    ],
)
def test_strict_mode_refuses_what_the_schema_refuses(
    package: ModuleType, instance: Any
) -> None:
    assert _strict_accepts(package.Scalars, instance) is None
    assert not _interpreter_accepts(package.Scalars, instance)
    with pytest.raises(Exception, match="json_schema"):
        package.Scalars.model_validate(instance)


@pytest.mark.parametrize(
    "instance",
    [
        {"i": 1.0},
        {"i": decimal.Decimal("1")},
        {"i": 1, "n": decimal.Decimal("0.25")},
        {"i": 1, "h": 1},
        {"i": 1, "d": datetime.date(2024, 1, 2)},
        {"i": 1, "dt": "2024-01-02t03:04:05z"},
        {"i": 1, "q": "a\ud800"},
        {"i": 1, "a": (1, 2)},
        {"i": 1, "x": 2.0},
        {"i": 1, "k": 1.0},
    ],
)
def test_what_strict_mode_refuses_the_interpreter_still_accepts(
    package: ModuleType, instance: Any
) -> None:
    model = package.Scalars.model_validate(instance)
    assert model.i == 1


def test_constructor_and_json_text(package: ModuleType) -> None:
    line = package.Nested.model_validate_json(
        '{"line": {"sku": "a"}, "lines": [{"qty": 1.0}]}'
    )
    assert line.lines[0].qty == 1
    assert package.Scalars(i=2, s="ab").s == "ab"
    with pytest.raises(Exception, match="json_schema"):
        package.Scalars(i=2, s="abcd")


def _native_count(out: Path) -> tuple[int, int]:
    """(native, not native) object models of a generated package, by their base classes."""
    text = "\n".join(p.read_text() for p in out.rglob("*.py"))
    bases = re.findall(r"^class \w+\(\s*_models\.(Native|Schema)Model,", text, re.M)
    return bases.count("Native"), bases.count("Schema")


def test_native_models_of_the_examples(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """How many models of the examples take the native path: a drop is a regression to look at."""
    native, interpreted = _native_count(examples_package[0])
    assert (native, interpreted) == (33, 2)


def test_native_models_of_the_real_tools(
    real_tools_package: tuple[Path, ModuleType],
) -> None:
    native, interpreted = _native_count(real_tools_package[0])
    assert (native, interpreted) == (65, 13)


def test_sound_inside_an_applications_own_types(package: ModuleType) -> None:
    """Validated through a `TypeAdapter` or inside another Pydantic model, a native model stays strict: it
    never takes what its schema refuses (at worst it refuses `1.0` for an integer there).
    """
    from pydantic import BaseModel, TypeAdapter, ValidationError

    class Holder(BaseModel):
        scalars: package.Scalars  # type: ignore[name-defined]

    for bad in ({"i": "5"}, {"i": True}, {"i": 1, "b": 1}, {"i": 1, "n": math.nan}):
        with pytest.raises(ValidationError):
            TypeAdapter(list[package.Scalars]).validate_python([bad])
        with pytest.raises(ValidationError):
            Holder.model_validate({"scalars": bad})
    assert Holder.model_validate({"scalars": {"i": 5}}).scalars.i == 5


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from("ABCDEFGH"), st.sets(st.sampled_from("ABCDEFGHXY")), max_size=8
    ),
    st.sets(st.sampled_from("ABCDEFGH")),
)
def test_native_models_are_those_whose_every_model_used_is_native(
    uses: dict[str, set[str]], others: set[str]
) -> None:
    """The one-pass closure gives what the plain fixed point gives (X and Y are used but never candidates)."""
    from codegen.passes.native import _closed_under_use

    candidates = set(uses) - others
    expected = set(candidates)
    changed = True
    while changed:
        changed = False
        for name in sorted(expected):
            if any(used not in expected for used in uses[name]):
                expected.discard(name)
                changed = True
    assert _closed_under_use(candidates, uses) == expected


_DIVISORS = st.one_of(
    st.integers(-45, 12).map(
        lambda k: 2.0**k
    ),  # powers of two, with and without an exact short literal
    st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False),
)
_VALUES = st.one_of(
    st.integers(-(2**80), 2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(2**40), 2**40).flatmap(
        lambda n: st.integers(-45, 12).map(lambda k: n * 2.0**k)
    ),
)


@settings(max_examples=2000, deadline=None)
@given(divisor=_DIVISORS, value=_VALUES)
def test_multiple_of_decides_as_the_interpreter(divisor: float, value: Any) -> None:
    """`_models.MultipleOf`'s shortcuts (a float by a power of two, an integer by one at most 1) agree with the
    interpreter's exact test, which divides by the divisor's literal: 2**-30 is 9.313225746154785e-10 there,
    of which 1.0 is no multiple."""
    from toolspec_runtime.models import MultipleOf
    from toolspec_runtime.validation.numbers import _is_multiple

    check = MultipleOf(divisor)._checker()  # what the model runs, shortcuts and all
    try:
        check(value)
        accepted = True
    except ValueError:  # PydanticCustomError
        accepted = False
    assert accepted == _is_multiple(value, divisor)
