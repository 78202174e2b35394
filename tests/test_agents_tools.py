"""The example package's tools as OpenAI Agents SDK `FunctionTool`s, invoked through the SDK's own
`on_invoke_tool(ToolContext, json_arguments)` offline (no model, no network), with arguments in the strict shape
the OpenAI export asks a model for."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from agents import FunctionTool
from agents.tool_context import ToolContext

from mcp_example_server import CONFIG, CONTEXT_VALUES, AsyncExampleTools, ExampleTools


def _invoke(tool: FunctionTool, arguments: Any, context: Any = None) -> Any:
    text = json.dumps(arguments)
    tool_context = ToolContext(
        context, tool_name=tool.name, tool_call_id="call_1", tool_arguments=text
    )

    async def main() -> Any:
        return await tool.on_invoke_tool(tool_context, text)

    output = anyio.run(main)
    assert isinstance(
        output, str
    )  # the SDK sends a tool's string output to the model as it is
    return json.loads(output)


def _tools(package: ModuleType, impl: Any, **kwargs: Any) -> dict[str, FunctionTool]:
    found = package.agents_tools(impl, config=CONFIG, **kwargs)
    assert all(isinstance(tool, FunctionTool) for tool in found)
    return {tool.name: tool for tool in found}


def test_the_tools_carry_the_openai_export(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, package = examples_package
    tools = _tools(package, ExampleTools())
    exported = package.export_tools("openai")
    assert sorted(tools) == sorted(e["function"]["name"] for e in exported)
    for entry in exported:
        function = entry["function"]
        tool = tools[function["name"]]
        assert tool.params_json_schema == function["parameters"]
        assert tool.strict_json_schema is function["strict"]
        assert tool.description == function.get("description", "")


@pytest.mark.parametrize(
    "impl", [ExampleTools(), AsyncExampleTools()], ids=["sync", "async"]
)
def test_strict_arguments_are_read_back_and_dispatched(
    examples_package: tuple[Path, ModuleType], impl: Any
) -> None:
    """Strict mode makes a model send every key, null for "not given": the tool reads that back (the
    defaults apply) before validating; the result is the value's JSON."""
    _, package = examples_package
    tools = _tools(package, impl)
    orders = _invoke(
        tools["get_orders"],
        {"customer_id": 7, "status": None, "limit": None, "since": None},
    )
    assert orders[0]["order_id"] == 7 and orders[0]["status"] == "shipped"
    assert _invoke(tools["sayHello"], {"personName": None}) == "Hello, world!"
    people = _invoke(tools["findPeople"], {"query": "An", "limit": 1})
    assert people == [{"fullName": "Ann", "age": 30, "email": "ann@example.org"}]


def test_invalid_arguments_come_back_as_an_error_the_model_can_fix(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, package = examples_package
    tools = _tools(package, ExampleTools())
    error = _invoke(
        tools["get_orders"],
        {"customer_id": 0, "status": None, "limit": 101, "since": None},
    )
    assert error["error"] == "invalid_arguments" and error["tool"] == "get_orders"
    assert {p["path"] for p in error["problems"]} == {"customer_id", "limit"}


def test_context_values_come_from_the_run_context_unless_given(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """Without `context=`, a tool reads its context values from the agent run's context."""
    _, package = examples_package
    letter = {
        "customer_name": "Ann",
        "invoice": {
            "invoice_id": 1,
            "account_id": 10,
            "amount": 1,
            "status": "open",
            "issued_on": "2024-01-05",
            "paid_at": None,
            "overdue": False,
        },
        "tone": None,
    }
    from_run = _tools(package, ExampleTools())["dunning_letter"]
    assert _invoke(from_run, letter, context=CONTEXT_VALUES).endswith("Accounts")
    missing = _invoke(from_run, letter, context={})
    assert missing["error"] == "missing_context"
    given = _tools(package, ExampleTools(), context=CONTEXT_VALUES)["dunning_letter"]
    assert _invoke(given, letter, context={}).endswith("Accounts")
