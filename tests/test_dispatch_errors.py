"""`dispatch` never lets a traceback reach the caller: every failure is a `ToolError` naming the tool, the kind of
failure, and for arguments each problem's path and what was expected, as data and as JSON text.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, model_validator

from toolspec_runtime.dispatch import ToolResult, ToolSpec, call_tool, run_tool

FIX = "the arguments do not match the tool's input schema; fix each problem listed and call the tool again"


def _problems(result: ToolResult) -> list[tuple[str, str]]:
    assert result.error is not None, result
    return [(p.path, p.message) for p in result.error.problems]


def _check_shape(result: ToolResult, tool: str, kind: str) -> dict[str, Any]:
    """The error as data and as JSON text agree, name the tool and the kind, and carry no traceback."""
    error = result.error
    assert type(error).__name__ == "ToolError" and error is not None and not result.ok
    assert (error.tool, error.kind) == (tool, kind)
    data = json.loads(result.to_json())
    assert data == error.to_dict() == json.loads(error.to_json()) == result.to_data()
    assert list(data) == ["error", "tool", "message", "problems"]
    assert data["error"] == kind and data["tool"] == tool and data["message"]
    assert all(list(p) == ["path", "message"] for p in data["problems"])
    assert "Traceback" not in result.to_json() and 'File "' not in result.to_json()
    return data


class Shop:
    def __init__(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result = result
        self.error = error

    def _run(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.result

    def get_orders(self, **kwargs: Any) -> Any:
        return self._run() if (self.result is not None or self.error) else []

    def search_web(self, **kwargs: Any) -> Any:
        return self._run()

    def say_hello(self, **kwargs: Any) -> Any:
        return self._run()


@pytest.fixture
def pkg(examples_package: tuple[Path, ModuleType]) -> ModuleType:
    return examples_package[1]


# -- unknown tools ------------------------------------------------------------------------------------------


def test_unknown_tool_names_the_tools_there_are(pkg: ModuleType) -> None:
    result = pkg.dispatch("get_order", {"customer_id": 1}, Shop())
    data = _check_shape(result, "get_order", "unknown_tool")
    assert data["message"].startswith(
        "there is no tool named 'get_order'; did you mean 'get_orders'?"
    )
    listed = data["message"].split(" The tools are: ", 1)[1]
    assert listed == ", ".join(sorted(pkg.TOOLS)) + "."
    assert data["problems"] == []
    far = pkg.dispatch("zzz", {}, Shop())
    assert "did you mean" not in far.error.message


def test_unknown_tool_in_a_big_registry_lists_no_names() -> None:
    spec = ToolSpec(name="t", args_model=BaseModel, input_schema={"type": "object"})
    tools = {f"tool_{i}": spec for i in range(40)}
    result = run_tool(tools, "tool_x", {}, None)
    assert result.error is not None and "The tools are" not in result.error.message
    assert call_tool(None, "gone", {}, None, None).error.message == "there is no tool named 'gone'"  # type: ignore[union-attr]


# -- arguments that are not JSON, not an object -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["{not json", '{"customer_id": 1', "[1,", b"\xff\xfe\x00", "{'a': 1}", "NaN?"],
)
def test_arguments_that_are_not_json(pkg: ModuleType, text: Any) -> None:
    data = _check_shape(
        pkg.dispatch("get_orders", text, Shop()), "get_orders", "invalid_arguments"
    )
    assert data["message"].startswith("the arguments are not valid JSON (")
    assert data["message"].endswith(
        "send one JSON object whose keys are the tool's parameters"
    )


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ("[]", "expected object, got array"),
        ("null", "expected object, got null"),
        ('"customer_id"', "expected object, got string"),
        ("7", "expected object, got integer"),
        ([1], "expected object, got array"),
    ],
)
def test_arguments_that_are_not_an_object(
    pkg: ModuleType, arguments: Any, expected: str
) -> None:
    result = pkg.dispatch("get_orders", arguments, Shop())
    data = _check_shape(result, "get_orders", "invalid_arguments")
    assert data["message"] == FIX and _problems(result) == [("", expected)]


@pytest.mark.parametrize("empty", ["", "   ", b"", "\n"])
def test_empty_text_means_no_arguments(pkg: ModuleType, empty: Any) -> None:
    assert pkg.dispatch("sayHello", empty, Shop(result="hi")).value == "hi"
    missing = pkg.dispatch("get_orders", empty, Shop())
    assert _problems(missing) == [("", "'customer_id' is a required property")]


def test_json_text_and_data_give_the_same_problems(pkg: ModuleType) -> None:
    arguments = {
        "customer_id": "7",
        "status": "lost",
        "limit": 0,
        "since": "2023-02-29",
        "x": 1,
    }
    from_data = pkg.dispatch("get_orders", arguments, Shop())
    from_text = pkg.dispatch("get_orders", json.dumps(arguments), Shop())
    from_bytes = pkg.dispatch("get_orders", json.dumps(arguments).encode(), Shop())
    assert from_data == from_text == from_bytes
    assert _problems(from_data) == [
        ("customer_id", "expected integer, got string"),
        ("status", "must be one of ['pending', 'shipped', 'cancelled']"),
        ("limit", "must be >= 1"),
        ("since", "must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)"),
        (
            "",
            "unexpected property 'x' (allowed: 'customer_id', 'status', 'limit', 'since')",
        ),
    ]


# -- paths: where each problem is, what was expected -----------------------------------------------------------


def test_nested_paths_name_the_argument(pkg: ModuleType) -> None:
    arguments = {
        "query": "",
        "num_results": 0,
        "filters": [{"field": "a"}, {"from": 1, "values": [None]}],
        "headers": {"Content-Type": 1, "ok": "x"},
    }
    result = pkg.dispatch("search_web", arguments, Shop())
    _check_shape(result, "search_web", "invalid_arguments")
    assert _problems(result) == [
        ("query", "must be at least 1 character long"),
        ("num_results", "must be > 0"),
        ("filters[1]", "'field' is a required property"),
        ("filters[1].from", "expected string, got integer"),
        ("filters[1].values[0]", "expected string, number or boolean, got null"),
        ('headers["Content-Type"]', "expected string, got integer"),
    ]


def test_nested_records_and_patterns(pkg: ModuleType) -> None:
    arguments = {
        "person": {
            "fullName": "A",
            "age": -1,
            "address": {"street": "s", "city": "c", "zip": "1"},
        }
    }
    result = pkg.dispatch("registerPerson", arguments, Shop())
    assert _problems(result) == [
        ("person.age", "must be >= 0"),
        ("person.address.zip", "must match pattern '^[0-9]{5}$'"),
    ]


def test_values_that_are_not_json_data(pkg: ModuleType) -> None:
    result = pkg.dispatch(
        "search_web", {"query": {1, 2}, "num_results": float("nan")}, Shop()
    )
    _check_shape(result, "search_web", "invalid_arguments")
    assert [path for path, _ in _problems(result)] == ["query", "num_results"]


def test_deep_nesting_is_a_problem_not_a_crash(pkg: ModuleType) -> None:
    deep: list[Any] = []
    node = deep
    for _ in range(5000):
        node.append([])
        node = node[0]
    result = pkg.dispatch("search_web", {"query": "q", "filters": deep}, Shop())
    data = _check_shape(result, "search_web", "invalid_arguments")
    assert data["problems"] and len(result.to_json()) < 10_000
    text = "[" * 100_000 + "]" * 100_000
    _check_shape(
        pkg.dispatch("search_web", text, Shop()), "search_web", "invalid_arguments"
    )


# -- failures of the tool, not of the call ------------------------------------------------------------------


def test_an_exception_in_the_implementation(pkg: ModuleType) -> None:
    result = pkg.dispatch(
        "get_orders", {"customer_id": 1}, Shop(error=KeyError("order 7"))
    )
    data = _check_shape(result, "get_orders", "implementation_error")
    assert data["message"] == "the tool failed while running: KeyError: 'order 7'"
    long = pkg.dispatch(
        "get_orders", {"customer_id": 1}, Shop(error=RuntimeError("x" * 50_000))
    )
    assert len(long.error.message) < 1100 and long.error.message.endswith("…")


def test_an_interrupt_is_not_swallowed(pkg: ModuleType) -> None:
    with pytest.raises(KeyboardInterrupt):
        pkg.dispatch("get_orders", {"customer_id": 1}, Shop(error=KeyboardInterrupt()))


def test_a_missing_implementation(pkg: ModuleType) -> None:
    for impl in (None, object()):
        result = pkg.dispatch("cancel_order", {"order_id": 1, "reason": None}, impl)
        data = _check_shape(result, "cancel_order", "implementation_error")
        assert (
            data["message"]
            == "the tool is not implemented (the implementation has no method 'cancel_order')"
        )


def test_a_result_that_breaks_the_output_schema(pkg: ModuleType) -> None:
    bad = {"results": [{"url": "u", "title": "t", "score": 7}, {"url": 1}]}
    result = pkg.dispatch("search_web", {"query": "q"}, Shop(result=bad))
    data = _check_shape(result, "search_web", "invalid_result")
    assert "a fault in the tool, not in the arguments" in data["message"]
    assert data["problems"], data
    wrong_type = pkg.dispatch("sayHello", {}, Shop(result=5))
    _check_shape(wrong_type, "sayHello", "invalid_result")


def test_a_fault_inside_codegen_is_still_an_error() -> None:
    class Broken(BaseModel):
        @model_validator(mode="before")
        @classmethod
        def explode(cls, data: Any) -> Any:
            raise RuntimeError("boom")

    spec = ToolSpec(name="broken", args_model=Broken, input_schema={"type": "object"})
    result = call_tool(spec, "broken", {}, None, None)
    data = _check_shape(result, "broken", "internal_error")
    assert data["message"] == "the tool could not be run (RuntimeError: boom)"


def test_a_call_flavour_must_be_known(pkg: ModuleType) -> None:
    with pytest.raises(ValueError, match="unknown call flavour"):
        pkg.dispatch("get_orders", {}, Shop(), flavour="gemini")


# -- success, for contrast --------------------------------------------------------------------------------


def test_a_successful_call_as_json_and_data(pkg: ModuleType) -> None:
    order = {
        "order_id": 3,
        "total": 2.5,
        "status": "shipped",
        "created_at": "2024-01-01T00:00:00Z",
    }
    result = pkg.dispatch("get_orders", '{"customer_id": 3}', Shop(result=[order]))
    assert result.ok and result.error is None
    assert json.loads(result.to_json()) == result.to_data() == [order]
