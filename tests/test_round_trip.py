"""What goes out comes back in: dumps of models and tool results are valid against the emitted schemas, decimals
travel as exact JSON numbers, and results and context values get the same exact check as arguments.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from conftest import generate_package
import toolspec_runtime.dispatch
import toolspec_runtime.exports

EXACT = "12345678901234567890.123456789"


def _invoice(amount: str) -> str:
    return (
        '{"invoice_id": 1, "account_id": 2, "amount": '
        + amount
        + ', "status": "open", "issued_on": "2024-01-02", "overdue": false}'
    )


# -- 1. unset optional fields are omitted, not null --


def test_a_model_reads_its_own_dumps(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    customer = pkg.Customer(id=1, name="x")
    for dump in (
        customer.model_dump(by_alias=True),
        customer.model_dump(by_alias=True, mode="json"),
        customer.model_dump(),
    ):
        assert dump == {"id": 1, "name": "x"}
        assert pkg.Customer.model_validate(dump) == customer
    assert json.loads(customer.model_dump_json()) == {"id": 1, "name": "x"}
    schema = pkg.Customer.model_json_schema()
    jsonschema.validate(customer.model_dump(by_alias=True, mode="json"), schema)
    # A field that was given stays in the dump, typed in Python mode.
    tagged = pkg.Customer(id=1, name="x", tags=["a"])
    assert tagged.model_dump() == {"id": 1, "name": "x", "tags": ["a"]}


def test_a_nullable_field_given_null_keeps_its_null(tmp_path: Path) -> None:
    from conftest import generate_package

    spec = tmp_path / "Thing.schema.json"
    spec.write_text(
        json.dumps(
            {
                "title": "Thing",
                "type": "object",
                "properties": {"note": {"type": ["string", "null"]}, "n": {}},
            }
        )
    )
    import importlib
    import sys

    out, name = generate_package(tmp_path / "out", spec)
    sys.path.insert(0, str(out.parent))
    try:
        thing = importlib.import_module(name).Thing
    finally:
        sys.path.remove(str(out.parent))
    assert thing.model_validate({"note": None}).model_dump() == {"note": None}
    assert thing.model_validate({}).model_dump(mode="json") == {}


# -- 2. decimals are exact JSON numbers --


def test_decimal_text_is_read_exactly(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    invoice = pkg.Invoice.model_validate_json(_invoice(EXACT))
    assert invoice.amount == Decimal(EXACT)
    seen: list[Any] = []

    class Impl:
        def dunning_letter(self, **kwargs: Any) -> str:
            seen.append(kwargs["invoice"].amount)
            return "Dear customer"

    arguments = '{"customer_name": "Ann", "invoice": ' + _invoice(EXACT) + "}"
    context = {"config": {"billing": {"signature": "Billing"}}}
    result = pkg.dispatch("dunning_letter", arguments, Impl(), context)
    assert result.ok, result.error
    assert seen == [Decimal(EXACT)]
    # Ordinary numbers stay what they were.
    assert pkg.Invoice.model_validate_json(_invoice("12.5")).amount == Decimal("12.5")


def test_decimals_are_written_as_exact_json_numbers(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    invoice = pkg.Invoice.model_validate_json(_invoice(EXACT))
    text = invoice.model_dump_json()
    assert f'"amount":{EXACT}' in text
    assert pkg.Invoice.model_validate_json(text) == invoice
    data = invoice.model_dump(mode="json")
    assert data["amount"] == Decimal(EXACT)
    assert pkg.Invoice.model_validate(data) == invoice
    short = pkg.Invoice.model_validate_json(_invoice("10.5"))
    assert short.model_dump(mode="json")["amount"] == 10.5
    assert json.loads(short.model_dump_json())["amount"] == 10.5
    whole = pkg.Invoice.model_validate_json(_invoice("10"))
    assert whole.model_dump(mode="json")["amount"] == 10
    assert '"amount":10,' in whole.model_dump_json()
    schema = pkg.Invoice.model_json_schema()
    for model in (invoice, short, whole):
        jsonschema.validate(model.model_dump(mode="json"), schema)


def test_a_decimal_result_is_a_number_in_structured_content(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    spec = pkg.TOOLS["open_balance"]
    (definition,) = [
        t for t in pkg.export_tools("mcp")["tools"] if t["name"] == "open_balance"
    ]
    for value, expected in (("12.34", "12.34"), (EXACT, EXACT), ("7", "7")):
        fake = dataclasses.replace(
            spec, implementation=lambda args, context, v=value: Decimal(v)
        )
        result = toolspec_runtime.dispatch.call_tool(
            fake,
            "open_balance",
            {"account_id": 1},
            None,
            {"app": {"tenant": {"id": 1}}},
        )
        assert result.ok, result.error
        mcp = result.to_mcp()
        jsonschema.validate(mcp["structuredContent"], definition["outputSchema"])
        assert Decimal(str(mcp["structuredContent"]["result"])) == Decimal(expected)
        assert mcp["content"][0]["text"] == expected
        assert result.to_json() == expected
        assert json.loads(result.to_json(), parse_float=Decimal) == Decimal(expected)


@pytest.mark.parametrize("row", [None, "row"])
def test_a_single_row_sql_result_fits_its_output_schema_with_a_row_or_without(
    examples_package: tuple[Path, ModuleType], row: str | None
) -> None:
    # "No row" is None: the exported output schema says null too, and the result is still checked by it.
    _, pkg = examples_package
    spec = pkg.TOOLS["get_invoice"]
    (definition,) = [
        t for t in pkg.export_tools("mcp")["tools"] if t["name"] == "get_invoice"
    ]
    value = (
        None
        if row is None
        else pkg.Invoice.model_validate(json.loads(_invoice("12.50")))
    )
    fake = dataclasses.replace(spec, implementation=lambda args, context: value)
    result = toolspec_runtime.dispatch.call_tool(
        fake, "get_invoice", {"invoice_id": 1}, None, {"app": {"tenant": {"id": 1}}}
    )
    assert result.ok, result.error
    assert (result.value is None) == (row is None)
    jsonschema.validate(
        result.to_mcp()["structuredContent"], definition["outputSchema"]
    )
    jsonschema.validate(json.loads(result.to_json()), spec.output_schema)


# -- 3. results are checked exactly --


@pytest.mark.parametrize("bad", ["1.5", True, None, float("nan")])
def test_a_result_is_checked_exactly(
    examples_package: tuple[Path, ModuleType], bad: Any
) -> None:
    _, pkg = examples_package

    class Impl:
        def exchange_rate(self, **kwargs: Any) -> Any:
            return bad

    result = pkg.dispatch("exchange_rate", {"base": "EUR", "quote": "USD"}, Impl())
    assert not result.ok
    assert result.error.kind == "invalid_result"


def test_a_valid_result_is_typed(examples_package: tuple[Path, ModuleType]) -> None:
    _, pkg = examples_package

    class Impl:
        def exchange_rate(self, **kwargs: Any) -> Any:
            return 2

    result = pkg.dispatch("exchange_rate", {"base": "EUR", "quote": "USD"}, Impl())
    assert result.ok, result.error
    assert result.value == 2.0 and type(result.value) is float


# -- 4. context values are checked exactly, constraints included --


def _context_tool(pkg: ModuleType, schema: dict[str, Any], kind: Any) -> Any:
    runtime = toolspec_runtime.dispatch
    spec = pkg.TOOLS["exchange_rate"]
    arg = runtime.ContextArg(
        name="tenant", path="app.tenant", wire="tenant", type=kind, schema=schema
    )
    return dataclasses.replace(spec, context_args=(arg,))


@pytest.mark.parametrize("value", ["5", True, 5.5, 0, "2024-01-02T00:00:00Z"], ids=repr)
def test_a_context_value_is_checked_exactly(
    examples_package: tuple[Path, ModuleType], value: Any
) -> None:
    _, pkg = examples_package
    spec = _context_tool(pkg, {"type": "integer", "minimum": 1}, int)

    class Impl:
        def exchange_rate(self, **kwargs: Any) -> float:
            return 1.0

    result = toolspec_runtime.dispatch.call_tool(
        spec,
        "exchange_rate",
        {"base": "EUR", "quote": "USD"},
        Impl(),
        {"app": {"tenant": value}},
    )
    assert not result.ok
    assert result.error.kind == "invalid_context"


def test_a_valid_context_value_is_typed(
    examples_package: tuple[Path, ModuleType],
) -> None:
    import datetime

    _, pkg = examples_package
    spec = _context_tool(pkg, {"type": "string", "format": "date"}, datetime.date)
    seen: list[Any] = []

    class Impl:
        def exchange_rate(self, **kwargs: Any) -> float:
            seen.append(kwargs["tenant"])
            return 1.0

    for value in ("2024-01-02", datetime.date(2024, 1, 2)):
        result = toolspec_runtime.dispatch.call_tool(
            spec,
            "exchange_rate",
            {"base": "EUR", "quote": "USD"},
            Impl(),
            {"app": {"tenant": value}},
        )
        assert result.ok, result.error
    assert seen == [datetime.date(2024, 1, 2)] * 2


def test_sql_context_values_are_checked_exactly(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    # The package imports its `_runtime.sql` with its first SQL tool module, not at once.
    sql = importlib.import_module("toolspec_runtime.sql")
    schema = {"type": "integer", "minimum": 1}
    assert sql.from_context({"t": 3}, "t", int, "tool", schema=schema) == 3
    for bad in ("5", True, 0, 1.5):
        with pytest.raises(ValueError):
            sql.from_context({"t": bad}, "t", int, "tool", schema=schema)


CONTEXT_SPEC = """\
name: greet_tenant
type: python_function
description: Greets a tenant.
arguments:
  inline:
    greeting: string
    tenant_id:
      type: int
      minimum: 1
      from_context: app.tenant.id
return_shape: string
"""


@pytest.mark.parametrize("value", ["7", 0, True, 7.5])
def test_generated_code_checks_its_context_values_exactly(
    tmp_path: Path, import_package: Any, value: Any
) -> None:
    """Through generated code: the compiler hands each context-fed value's schema to the runtime."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "greet_tenant.yaml").write_text(CONTEXT_SPEC)
    out, name = generate_package(tmp_path, tmp_path / "specs")
    pkg = import_package(out, name)

    class Impl:
        def greet_tenant(self, *, greeting: str, tenant_id: int) -> str:
            return f"{greeting}, {tenant_id}"

    arguments = {"greeting": "hi"}
    refused = pkg.dispatch(
        "greet_tenant", arguments, Impl(), {"app": {"tenant": {"id": value}}}
    )
    assert not refused.ok and refused.error.kind == "invalid_context", refused
    accepted = pkg.dispatch(
        "greet_tenant", arguments, Impl(), {"app": {"tenant": {"id": 7}}}
    )
    assert accepted.ok and accepted.value == "hi, 7"
