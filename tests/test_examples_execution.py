"""The generated example package runs: it imports, its models accept and reject exactly what the schemas do,
and `dispatch` validates, calls and reports errors as data."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import ValidationError
from oracle import accepts, model_accepts
from toolspec_runtime.models import schema_location

# model name -> (valid instances, invalid instances); each verdict is also checked against jsonschema.
TABLE: dict[str, tuple[list[Any], list[Any]]] = {
    "GetOrdersArgs": (
        [
            {"customer_id": 1},
            {
                "customer_id": 7,
                "status": "pending",
                "limit": 100,
                "since": "2024-02-29",
            },
            {"customer_id": 1.0},
            {"customer_id": 2, "since": None},
        ],
        [
            {},
            {"customer_id": "1"},
            {"customer_id": 0},
            {"customer_id": True},
            {"customer_id": 1, "limit": 101},
            {"customer_id": 1, "status": "lost"},
            {"customer_id": 1, "since": "2023-02-29"},
            {"customer_id": 1, "x": 1},
            {"customer_id": 1.5},
            [],
            "customer_id",
        ],
    ),
    "CancelOrderArgs": (
        [{"order_id": 1, "reason": None}, {"order_id": 1, "reason": "late"}],
        [
            {"order_id": 1},
            {"order_id": 1, "reason": "x" * 501},
            {"order_id": 1, "reason": 5},
        ],
    ),
    "SearchWebArgs": (
        [
            {"query": "q"},
            {
                "query": "q",
                "filters": [{"field": "a", "from": "b", "values": ["x", 1, 2.5, True]}],
            },
            {"query": "q", "headers": {"a": "b"}, "anything": [1]},
        ],
        [
            {"query": ""},
            {"query": "q", "num_results": 0},
            {"query": "q", "filters": [{"from": "b"}]},
            {"query": "q", "filters": [{"field": "a", "values": [None]}]},
            {"query": "q", "headers": {"a": 1}},
        ],
    ),
    "Order": (
        [
            {
                "order_id": 1,
                "total": 0,
                "status": "shipped",
                "created_at": "2024-01-01T10:00:00Z",
                "lines": [{"sku": "ABC-1234", "quantity": 2}],
                "customer": {"id": 1, "name": "Ann", "tags": ["a", "b"]},
            }
        ],
        [
            {
                "order_id": 1,
                "total": -1,
                "status": "shipped",
                "created_at": "2024-01-01T10:00:00Z",
            },
            {
                "order_id": 1,
                "total": 1,
                "status": "shipped",
                "created_at": "2024-01-01T10:00:00Z",
                "lines": [],
            },
            {
                "order_id": 1,
                "total": 1,
                "status": "shipped",
                "created_at": "2024-01-01T10:00:00Z",
                "lines": [{"sku": "abc", "quantity": 1}],
            },
            {
                "order_id": 1,
                "total": 1,
                "status": "shipped",
                "created_at": "2024-01-01T10:00:00Z",
                "customer": {"id": 1, "name": "Ann", "tags": ["a", "a"]},
            },
            {"order_id": 1, "total": 1, "status": "shipped", "created_at": "yesterday"},
        ],
    ),
    "Category": (
        [
            {"name": "a"},
            {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]},
        ],
        [
            {"name": "a", "children": [{"name": "b", "children": [{"title": "c"}]}]},
            {"name": 1},
        ],
    ),
    "RunSandboxedScriptConfig": (
        [{"api_key": "k"}, {"api_key": "k", "max_runtime_seconds": 5}],
        [{}, {"api_key": 1}],
    ),
}


def _schema(model: Any) -> Any:
    document = schema_location(model)[0]
    pointer = schema_location(model)[1]
    return document if not pointer else {**document, "$ref": "#" + pointer}


@pytest.mark.parametrize("model_name", sorted(TABLE))
def test_models_accept_exactly_what_the_schema_accepts(
    examples_package: tuple[Any, ModuleType], model_name: str
) -> None:
    _, package = examples_package
    model = getattr(package, model_name)
    valid, invalid = TABLE[model_name]
    for instance in valid:
        assert accepts(
            _schema(model), instance
        ), f"table error: {instance!r} should be valid"
        assert model_accepts(
            model, instance
        ), f"{model_name} rejected valid {instance!r}"
    for instance in invalid:
        assert not accepts(
            _schema(model), instance
        ), f"table error: {instance!r} should be invalid"
        assert not model_accepts(
            model, instance
        ), f"{model_name} accepted invalid {instance!r}"


def test_python_names_and_wire_names_are_both_accepted(
    examples_package: tuple[Any, ModuleType],
) -> None:
    _, package = examples_package
    item = package.SearchWebArgsFiltersItem
    assert item.model_validate({"field": "a", "from": "x"}).from_ == "x"
    assert item(field="a", from_="y").from_ == "y"
    assert item(field="a", from_="y").model_dump(by_alias=True, exclude_unset=True) == {
        "field": "a",
        "from": "y",
    }


def test_typed_values_come_out_typed(examples_package: tuple[Any, ModuleType]) -> None:
    import datetime

    _, package = examples_package
    args = package.GetOrdersArgs.model_validate_json(
        '{"customer_id": 3, "since": "2024-03-01"}'
    )
    assert (
        args.since == datetime.date(2024, 3, 1)
        and args.status == "shipped"
        and args.limit == 20
    )
    order = package.Order.model_validate(
        {
            "order_id": 1,
            "total": 2,
            "status": "pending",
            "created_at": "2024-01-01T00:00:00+02:00",
            "lines": [{"sku": "ABC-0001", "quantity": 1}],
        }
    )
    assert isinstance(
        order.lines[0], package.Line
    ) and order.created_at.utcoffset() == datetime.timedelta(hours=2)


class ShopImpl:
    def get_orders(
        self,
        *,
        customer_id: int,
        status: str = "shipped",
        limit: int = 20,
        since: Any = None,
    ) -> Any:
        return [
            {
                "order_id": customer_id,
                "total": 1.5,
                "status": status,
                "created_at": "2024-01-01T00:00:00Z",
            }
        ][:limit]

    def cancel_order(self, *, order_id: int, reason: str | None) -> Any:
        raise RuntimeError(f"order {order_id} already shipped")

    def search_web(self, **kwargs: Any) -> Any:
        return {
            "results": [{"url": "https://x", "title": "t", "score": 7}]
        }  # score > 1: an invalid result


def test_dispatch_validates_calls_and_reports(
    examples_package: tuple[Any, ModuleType],
) -> None:
    _, package = examples_package
    impl = ShopImpl()
    ok = package.dispatch("get_orders", '{"customer_id": 4, "status": "pending"}', impl)
    assert (
        ok.ok
        and isinstance(ok.value[0], package.Order)
        and ok.value[0].status == "pending"
    )
    assert json.loads(ok.to_json())[0]["order_id"] == 4

    bad = package.dispatch("get_orders", {"customer_id": "4", "limit": 0}, impl)
    assert not bad.ok and bad.error.kind == "invalid_arguments"
    assert {p.path for p in bad.error.problems} == {"customer_id", "limit"}
    assert json.loads(bad.error.to_json())["tool"] == "get_orders"

    assert (
        package.dispatch("get_orders", "{not json", impl).error.kind
        == "invalid_arguments"
    )
    assert package.dispatch("nope", {}, impl).error.kind == "unknown_tool"
    failed = package.dispatch("cancel_order", {"order_id": 9, "reason": None}, impl)
    assert (
        failed.error.kind == "implementation_error"
        and "already shipped" in failed.error.message
    )
    wrong = package.dispatch("search_web", {"query": "q"}, impl)
    assert wrong.error.kind == "invalid_result"


def test_schema_files_are_self_contained_llm_definitions(
    examples_package: tuple[Any, ModuleType],
) -> None:
    import jsonschema

    out, package = examples_package
    definition = json.loads((out / "schemas" / "get_orders.json").read_text())
    assert definition == package.TOOLS["get_orders"].definition()
    assert set(definition) == {"name", "description", "inputSchema", "outputSchema"}
    for key in ("inputSchema", "outputSchema"):
        jsonschema.Draft202012Validator.check_schema(definition[key])
        assert "Order" in definition["outputSchema"]["$defs"]
    order = {
        "order_id": 1,
        "total": 1,
        "status": "shipped",
        "created_at": "2024-01-01T00:00:00Z",
    }
    assert accepts(definition["outputSchema"], [order])
    entity = json.loads((out / "schemas" / "entities" / "Order.json").read_text())
    assert entity["title"] == "Order" and "Customer" in entity["$defs"]


def test_a_subclass_of_a_generated_model_keeps_its_schema(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """A model's class line names its schema (`schema="ORDER_SCHEMA"`); an application's subclass of it, in a
    module of its own, enforces the same schema."""
    _, package = examples_package

    class MyOrder(package.Order):  # type: ignore[name-defined, misc]
        pass

    assert schema_location(MyOrder) == schema_location(package.Order)
    order = {
        "order_id": 1,
        "total": 2.5,
        "status": "pending",
        "created_at": "2024-01-31T09:30:00Z",
    }
    assert MyOrder.model_validate(order).order_id == 1
    with pytest.raises(ValidationError):
        MyOrder.model_validate({**order, "status": "lost"})
