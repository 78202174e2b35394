"""Numbers are exact on every path: a float stands for its shortest literal (the JSON text it writes).

An integral float beyond 2**53 is a number its binary value only approximates: 3.381401931792213e+31 writes
33814019317922130000000000000000, a multiple of 1.5, while the float's binary value (…0270942404149248) is not.
The interpreter, the compiled checks, native and checked models, given the float as Python data or as JSON
text, must all read the literal, in `multipleOf`, the bounds and `enum`/`const` equality alike.
"""

from __future__ import annotations

import importlib
import json
import sys
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolspec_runtime import checks as runtime_checks
from toolspec_runtime.check_builder import build_check
from toolspec_runtime.validation import validate
from conftest import generate_package

BIG = 3.381401931792213e31  # its literal is a multiple of 1.5; its binary value is not
BIG_LITERAL = 33814019317922130000000000000000


def _schemas(value: int) -> dict[str, dict[str, Any]]:
    """One field per keyword that reads the number, each accepting `value` (a float's literal)."""
    fields: dict[str, dict[str, Any]] = {}
    for kind in ("integer", "number"):
        fields[f"{kind}_multiple"] = {"type": kind, "multipleOf": 1.5}
        fields[f"{kind}_maximum"] = {"type": kind, "maximum": value}
        fields[f"{kind}_minimum"] = {"type": kind, "minimum": value}
        fields[f"{kind}_enum"] = {"type": kind, "enum": [value, 1]}
        fields[f"{kind}_const"] = {"type": kind, "const": value}
    return fields


def _model_schema(extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": _schemas(BIG_LITERAL),
        "additionalProperties": False,
        **extra,
    }


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    folder = tmp_path_factory.mktemp("exact")
    specs = folder / "specs"
    specs.mkdir()
    for name, extra in (("Native", {}), ("Checked", {"minProperties": 0})):
        document = {"title": name, **_model_schema(extra)}
        (specs / f"{name.lower()}.schema.json").write_text(json.dumps(document))
    tool = {"name": "t", "inputSchema": _model_schema({})}
    (specs / "tools.json").write_text(json.dumps({"tools": [tool]}))
    out, name = generate_package(folder, specs, name="exact_numbers_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def _compiled(schema: dict[str, Any]) -> Any:
    check = build_check(schema, "")
    assert check is not None
    return check


def _verdicts(package: ModuleType, field: str, value: Any) -> dict[str, bool]:
    """Every path's verdict on `{field: value}`."""
    instance = {field: value}
    schema = _schemas(BIG_LITERAL)[field]
    found = {
        "interpreter": validate(value, schema) == [],
        "compiled": runtime_checks.run(_compiled(schema), value) == [],
    }
    for model in ("Native", "Checked"):
        cls = getattr(package, model)
        for how, load in (
            ("data", lambda: cls.model_validate(instance)),
            ("json", lambda: cls.model_validate_json(json.dumps(instance))),
        ):
            try:
                load()
                found[f"{model} {how}"] = True
            except ValueError:
                found[f"{model} {how}"] = False

    class Tools:
        def t(self, **kwargs: Any) -> None:
            return None

    found["dispatch"] = package.dispatch("t", instance, Tools()).error is None
    found["dispatch json"] = (
        package.dispatch("t", json.dumps(instance), Tools()).error is None
    )
    return found


def test_the_models_are_of_the_kinds_named(package: ModuleType) -> None:
    native = importlib.import_module("toolspec_runtime.models").NativeModel
    assert issubclass(package.Native, native)
    assert not issubclass(package.Checked, native)


@pytest.mark.parametrize("field", list(_schemas(BIG_LITERAL)))
def test_a_large_integral_float_is_the_number_its_literal_writes(
    package: ModuleType, field: str
) -> None:
    """`multipleOf: 1.5` under `type: integer` refused 3.381401931792213e+31 (a model turned it into the int of
    its binary value); every path now accepts it, as it accepts the integer its literal writes.
    """
    assert Decimal(repr(BIG)) == BIG_LITERAL != int(BIG)
    verdicts = _verdicts(package, field, BIG)
    assert all(verdicts.values()), verdicts
    assert all(_verdicts(package, field, BIG_LITERAL).values())


@settings(max_examples=200, deadline=None)
@given(
    value=st.floats(2.0**53, 1e300).filter(float.is_integer)
    | st.floats(-1e300, -(2.0**53)).filter(float.is_integer),
    divisor=st.sampled_from([1.5, 3, 7, 0.25, 10**20, 2.5e20]),
)
def test_the_interpreter_reads_every_large_float_as_its_literal(
    value: float, divisor: Any
) -> None:
    literal = int(Decimal(repr(value)))
    for schema in (
        {"multipleOf": divisor},
        {"maximum": literal},
        {"minimum": literal},
        {"exclusiveMaximum": literal},
        {"exclusiveMinimum": literal},
        {"enum": [literal]},
        {"const": literal},
        {"maximum": literal - 1},
        {"minimum": literal + 1},
        {"enum": [literal + 1]},
    ):
        assert (validate(value, schema) == []) == (
            validate(literal, schema) == []
        ), schema
        assert runtime_checks.run(_compiled(schema), value) == validate(value, schema)


# ── Numbers no float holds: read exactly, carried through ───────────────────────────────────────────────────

HUGE = "1e999"  # the integer 10**999, beyond a float's range
TINY = "1e-400"  # under the smallest float: it would read as 0.0
HUGE_SPEC = (
    '{"type": "object", "properties": {'
    f'"big_min": {{"type": "number", "minimum": {HUGE}}},'
    f'"tiny_min": {{"type": "number", "minimum": {TINY}}},'
    f'"tiny_step": {{"type": "number", "multipleOf": {TINY}}},'
    f'"same": {{"const": {HUGE}}},'
    f'"one_of": {{"enum": [{HUGE}, 1]}},'
    f'"long": {{"type": "string", "maxLength": {HUGE}}},'
    f'"big_default": {{"type": "number", "default": {HUGE}}},'
    f'"exact_default": {{"type": "number", "format": "decimal", "default": {HUGE}}}'
    "}}"
)
# (field, value, accepted): as the interpreter decides it on the exact numbers
HUGE_CASES: list[tuple[str, Any, bool]] = [
    ("tiny_min", 1e-300, True),
    ("tiny_min", 0, False),
    ("tiny_min", 0.0, False),
    ("tiny_min", -1e-300, False),
    ("big_min", 1e308, False),
    ("tiny_step", 1e-300, True),
    ("tiny_step", 0.5, True),
    ("same", 10**999, True),
    ("same", 10**998, False),
    ("same", 1e308, False),
    ("one_of", 10**999, True),
    ("one_of", 1.0, True),
    ("one_of", 2, False),
    ("long", "abc", True),
]


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, ModuleType]:
    folder = tmp_path_factory.mktemp("huge")
    specs = folder / "specs"
    specs.mkdir()
    (specs / "huge.schema.json").write_text(
        HUGE_SPEC.replace("{", '{"title": "Huge", ', 1)
    )
    checked = HUGE_SPEC.replace("{", '{"title": "HugeChecked", "minProperties": 0, ', 1)
    (specs / "huge_checked.schema.json").write_text(checked)
    (specs / "tools.json").write_text(
        '{"tools": [{"name": "t", "inputSchema": ' + HUGE_SPEC + "}]}"
    )
    from codegen.compiler import compile_specs

    result = compile_specs([specs])
    out, name = generate_package(folder, specs, name="huge_numbers_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return result, importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def test_a_number_no_float_holds_compiles_with_a_warning_only_for_a_float_default(
    huge: tuple[Any, ModuleType],
) -> None:
    result, _ = huge
    found = {(d.severity, d.code) for d in result.diagnostics.sorted()}
    assert found == {("warning", "default-range")}
    assert result.files is not None
    schema = json.loads(result.files["schemas/t.json"])["inputSchema"]
    assert '"minimum": 1E+999' in result.files["schemas/t.json"]
    assert '"minimum": 1E-400' in result.files["schemas/t.json"]
    assert schema["properties"]["tiny_min"]["minimum"] == 0.0  # (`json` reads it so)
    assert '_decimal.Decimal("1E+999")' in result.files["huge.py"]
    assert "import decimal as _decimal" in result.files["huge.py"]


@pytest.mark.parametrize(("field", "value", "accepted"), HUGE_CASES)
def test_bounds_const_and_enum_no_float_holds_are_exact_on_every_path(
    huge: tuple[Any, ModuleType], field: str, value: Any, accepted: bool
) -> None:
    _, package = huge
    schema = package.huge.HUGE_SCHEMA["properties"][field]
    assert (validate(value, schema) == []) == accepted
    assert runtime_checks.run(_compiled(schema), value) == validate(value, schema)
    instance = {field: value}
    for model in (package.Huge, package.HugeChecked):
        for load in (
            lambda: model.model_validate(instance),
            lambda: model.model_validate_json(json.dumps(instance)),
        ):
            try:
                load()
                verdict = True
            except ValueError:
                verdict = False
            assert verdict == accepted, (model.__name__, instance)


def test_a_default_no_float_holds(huge: tuple[Any, ModuleType]) -> None:
    """A `float` field cannot hold 1e999 (it would be infinity): the Python default is None, the schema's
    default stays 1e999; a `decimal` field holds it exactly."""
    _, package = huge
    model = package.Huge()
    assert model.big_default is None
    assert model.exact_default == Decimal("1E+999") == 10**999
    assert package.huge.HUGE_SCHEMA["properties"]["big_default"]["default"] == 10**999


def test_equality_is_by_value() -> None:
    """1e999 == 1E+999 == 10**999 and 1.0 == 1, as JSON Schema compares numbers."""
    for schema in ({"const": Decimal("1e999")}, {"enum": [Decimal("1E+999")]}):
        assert validate(10**999, schema) == []
        assert validate(Decimal("10E+998"), schema) == []
        assert validate(10**999 + 1, schema) != []
    assert validate(1.0, {"const": 1}) == validate(1, {"const": 1.0}) == []


def test_an_exponent_is_never_expanded() -> None:
    """`1e1000000` stays a Decimal of one digit; comparing and dividing by it costs what its text does."""
    from codegen.frontends.json.parse import read_float

    bound = read_float("1e1000000")
    assert bound == Decimal("1E+1000000") and len(bound.as_tuple().digits) == 1
    assert validate(5, {"maximum": bound, "multipleOf": read_float("1e-1000000")}) == []
    assert validate(5, {"minimum": bound}) != []
