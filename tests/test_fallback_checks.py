"""What strict native validation refuses, and SQL tools' context values, are decided by the exact checks the
runtime builds on first use from their schemas (`toolspec_runtime/schema_checks.py`), never the interpreter. They
must report exactly what the interpreter reports.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path
from types import ModuleType
from typing import Any

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from toolspec_runtime import checks
from toolspec_runtime.schema_checks import SchemaCheck, check_of
from toolspec_runtime.models import _is_json_data, to_json_data
from toolspec_runtime.validation.data import _check_data
from instances import _resolve, variants
from toolspec_runtime.models import schema_location

PACKAGES = ("examples_package", "real_tools_package")


def _runtime(package: ModuleType, name: str) -> ModuleType:
    """A module of the runtime library the package imports."""
    return importlib.import_module(f"toolspec_runtime.{name}")


def _native_models(package: ModuleType) -> list[type[Any]]:
    """Every native model class of the package, from every module (exported or not)."""
    base = _runtime(package, "models").NativeModel
    found: dict[str, type[Any]] = {}
    path = [str(Path(package.__file__).parent)]
    for info in pkgutil.walk_packages(path, prefix=f"{package.__name__}."):
        if "._runtime" in info.name:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, base)
                and value is not base
                and value.__module__ == module.__name__
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def _instances(cls: type[Any]) -> list[Any]:
    document = schema_location(cls)[0]
    schema = _resolve(document, "#" + schema_location(cls)[1])
    return [*variants(schema, document), {"_": (1, 2)}, 1.0]


def _no_interpreter(package: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every use of the package's interpreter fail the test."""

    def interpreter(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the interpreter was called")

    monkeypatch.setattr(_runtime(package, "validation.evaluator"), "_run", interpreter)


def _verdict(cls: type[Any], instance: Any, *, text: bool = False) -> Any:
    """The model's dump, or its errors as a list of (type, message)."""
    try:
        if text:
            model = cls.model_validate_json(json.dumps(instance))
        else:
            model = cls.model_validate(instance)
    except ValidationError as exc:
        return [(e["type"], e["msg"]) for e in exc.errors(include_url=False)]
    return model.model_dump(mode="json", by_alias=True)


@pytest.mark.parametrize("fixture", PACKAGES)
def test_native_models_never_fall_back_to_the_interpreter(
    fixture: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every native model decides drawn and mutated instances (Python data and JSON text) without the
    interpreter, with the interpreter's verdicts and messages."""
    _, package = request.getfixturevalue(fixture)
    models = _native_models(package)
    assert len(models) > 20
    cases = [(cls, instance) for cls in models for instance in _instances(cls)]
    # The interpreter's answers: the fallback checks disabled.
    with monkeypatch.context() as interpreted:
        interpreted.setattr(SchemaCheck, "check", _none)
        expected = [
            (_verdict(cls, data), _verdict(cls, data, text=True)) for cls, data in cases
        ]
    _no_interpreter(package, monkeypatch)
    found = [
        (_verdict(cls, data), _verdict(cls, data, text=True)) for cls, data in cases
    ]
    assert found == expected
    refused = sum(isinstance(verdict, list) for verdict, _ in found)
    assert refused > len(cases) // 3  # the refusal path is exercised


def _none(self: Any) -> None:
    """No check is built: the interpreter decides."""
    return None


@pytest.mark.parametrize("fixture", PACKAGES)
def test_dispatch_checks_native_arguments_without_the_interpreter(
    fixture: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dispatch` reports the same problems, at the same paths, for the arguments strict validation refuses
    as the interpreter would."""
    _, package = request.getfixturevalue(fixture)
    native = _runtime(package, "models").NativeModel
    calls = [
        (name, data)
        for name, spec in sorted(package.TOOLS.items())
        if issubclass(spec.args_model, native)
        for data in _instances(spec.args_model)
    ]
    assert calls

    def outcome(name: str, data: Any) -> Any:
        error = package.dispatch(name, data, _Anything(), {}).error
        if error is None or error.kind != "invalid_arguments":
            return None
        return [(p.path, p.message) for p in error.problems]

    with monkeypatch.context() as interpreted:
        interpreted.setattr(SchemaCheck, "check", _none)
        expected = [outcome(name, data) for name, data in calls]
    _no_interpreter(package, monkeypatch)
    assert [outcome(name, data) for name, data in calls] == expected
    assert sum(found is not None for found in expected) > len(calls) // 3


class _Anything:
    def __getattr__(self, name: str) -> Any:
        return lambda **kwargs: None


def test_sql_context_values_are_checked_by_their_compiled_check(
    examples_package: tuple[Path, ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SQL tool's bind parameters from the context are checked by the check built for their schema."""
    out, package = examples_package
    source = (out / "brimley" / "invoices" / "open_balance.py").read_text()
    assert "schema={" in source.split("def bind_open_balance")[1]
    module = importlib.import_module(
        f"{package.__name__}.brimley.invoices.open_balance"
    )
    args = module.OpenBalanceArgs.model_validate({"account_id": 1})
    _no_interpreter(package, monkeypatch)
    context = {"app": {"tenant": {"id": "7"}}}
    with pytest.raises(ValueError) as raised:
        module.bind_open_balance(args, context)
    assert str(raised.value) == (
        "the context value at 'app.tenant.id' is invalid: "
        "value: expected integer, got string"
    )
    context = {"app": {"tenant": {"id": 7.0}}}
    assert module.bind_open_balance(args, context)["tenant_id"] == 7


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        (True, ""),
        (False, ""),
        ({"$defs": {"a": {"type": "integer"}}}, "/$defs/a"),
        # The dynamic scope decides this reference: the interpreter keeps it.
        (
            {
                "$id": "https://x.invalid/root",
                "$dynamicAnchor": "node",
                "$defs": {
                    "inner": {
                        "$id": "inner",
                        "$dynamicAnchor": "node",
                        "items": {"$dynamicRef": "#node"},
                    }
                },
                "$ref": "inner",
            },
            "",
        ),
    ],
)
def test_check_of(schema: Any, pointer: str) -> None:
    check = check_of(schema, pointer)
    if isinstance(schema, dict) and "$ref" in schema:
        assert check is None
        return
    assert check is not None
    assert (check(5, (), False) == []) == (schema is not False)
    if pointer:
        assert [p.message for p in check("5", (), False)] == [
            "expected integer, got string"
        ]


# Python data of every kind the fallback path meets: JSON data, its other forms (tuples, decimals), and what
# is no JSON data (non-finite numbers, keys that are not strings, other objects; over-long numbers, which no
# test report could print, are in NOT_PLAIN).
PYTHON_DATA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([10**4000, 2**63, 2.0**63, 2.0**70, 1.0])
    | st.floats()
    | st.decimals()
    | st.text(max_size=3)
    | st.just(object()),
    lambda inner: st.lists(inner, max_size=3)
    | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(st.text(max_size=2) | st.integers(0, 2), inner, max_size=3),
    max_leaves=10,
)


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@settings(max_examples=400, deadline=None)
@given(PYTHON_DATA)
def test_the_quick_tests_of_json_data_agree_with_the_full_ones(value: Any) -> None:
    """The compiled checks skip the full JSON-data check (`_check_data`) for plain data, and the fallback path
    skips `to_json_data` for data already in its JSON form: both shortcuts must change nothing.
    """
    if checks._plain(value, 0):
        assert _check_data(value, False) == []
    if _is_json_data(value, 0):
        assert to_json_data(value) == value or _has_nan(value)


def _has_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (list, tuple)):
        return any(_has_nan(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nan(item) for item in value.values())
    return isinstance(value, Decimal) and value.is_nan()


NOT_PLAIN = [
    _nested(65),
    {"a": _nested(64)},
    10**5000,
    float("inf"),
    {1: 2},
    (1,),
    Decimal(1),
]


@pytest.mark.parametrize("value", NOT_PLAIN, ids=range(len(NOT_PLAIN)))
def test_what_is_not_plain_json_data(value: Any) -> None:
    assert not checks._plain(value, 0)
    assert checks._plain(_nested(64), 0) and checks._plain([1.5, "a", None], 0)
    assert _check_data(_nested(64), False) == []
