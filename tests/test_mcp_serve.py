"""The generated example package served as a real MCP server (a subprocess, as a user's `__main__` runs it) and
driven with the official SDK's `ClientSession`: over stdio and over streamable HTTP on a loopback port.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import jsonschema
import pytest

from mcp_example_server import CALLS, INVALID
from mcp_sessions import (
    EXAMPLE_SERVER,
    free_port,
    http_server,
    http_session,
    python_command,
    stdio_session,
)


def _command(examples: tuple[Path, ModuleType], *extra: str) -> list[str]:
    out, _ = examples
    return python_command(EXAMPLE_SERVER, str(out.parent), out.name, *extra)


def _structured_value(package: ModuleType, name: str, result: Any) -> Any:
    """The result value of a call, unwrapped as the MCP export wraps non-object results."""
    from toolspec_runtime.exports import MCP_RESULT_KEY, mcp_output_schema

    schema = package.TOOLS[name].output_schema
    if schema is None:
        return json.loads(result.content[0].text)
    wrapped = mcp_output_schema(schema)[1]
    content = result.structured_content
    return content[MCP_RESULT_KEY] if wrapped else content


async def _check_every_tool(session: Any, package: ModuleType) -> None:
    listed = await session.list_tools()
    # The SDK adds protocol fields (cache hints, resultType) to the result; the tools are the export.
    exported = package.export_tools("mcp")
    assert [
        t.model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in listed.tools
    ] == exported["tools"]
    assert sorted(CALLS) == sorted(package.TOOLS), "every example tool is called"
    for tool in exported["tools"]:
        name = tool["name"]
        result = await session.call_tool(name, CALLS[name])
        assert not result.is_error, (name, result.content)
        if "outputSchema" in tool:
            # Valid against the schema the server listed, and by the package's exact check of the tool's own.
            jsonschema.validate(result.structured_content, tool["outputSchema"])
        value = _structured_value(package, name, result)
        assert package.TOOLS[name].output_check is None or not package.TOOLS[
            name
        ].output_check.problems(value), name
        assert json.loads(result.content[0].text) == value, name


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_stdio_server_lists_the_export_and_runs_every_tool(
    examples_package: tuple[Path, ModuleType], flavour: str
) -> None:
    """Sync implementations run on worker threads, async ones are awaited: both serve every tool."""
    _, package = examples_package
    extra = ("--async",) if flavour == "async" else ()

    async def main() -> None:
        async with stdio_session(
            _command(examples_package, "stdio", *extra)
        ) as session:
            await _check_every_tool(session, package)

    anyio.run(main)


def test_invalid_arguments_are_errors_that_list_the_problems(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, package = examples_package
    assert sorted(INVALID) == sorted(package.TOOLS)

    async def main() -> None:
        async with stdio_session(_command(examples_package, "stdio")) as session:
            for name, (arguments, paths) in INVALID.items():
                result = await session.call_tool(name, arguments)
                assert result.is_error and result.structured_content is None, name
                error = json.loads(result.content[0].text)
                assert error["error"] == "invalid_arguments" and error["tool"] == name
                assert paths <= {p["path"] for p in error["problems"]}, (name, error)
            unknown = await session.call_tool("get_order", {"customer_id": 1})
            error = json.loads(unknown.content[0].text)
            assert unknown.is_error and error["error"] == "unknown_tool"
            assert "did you mean 'get_orders'?" in error["message"]

    anyio.run(main)


def test_sql_tools_run_against_sqlite_through_the_server(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    """The tenant comes from the server's context, never from the caller: tenant 2's invoice stays hidden."""
    db = str(tmp_path / "billing.sqlite")

    async def main() -> None:
        command = _command(examples_package, "stdio", "--db", db)
        async with stdio_session(command) as session:
            listed = await session.call_tool("list_invoices", {"account_ids": [10, 11]})
            ids = [row["invoice_id"] for row in listed.structured_content["result"]]
            assert ids == [3, 1]  # open ones of tenant 1, newest first
            hidden = await session.call_tool("get_invoice", {"invoice_id": 4})
            assert hidden.structured_content == {"result": None}
            smuggled = await session.call_tool(
                "get_invoice", {"invoice_id": 4, "tenant_id": 2}
            )
            # A caller's value for a context-fed name is dropped: the context wins.
            assert smuggled.structured_content == {"result": None}
            paid = await session.call_tool(
                "mark_invoice_paid",
                {"invoice_id": 3, "paid_at": "2024-05-01T10:00:00Z"},
            )
            assert not paid.is_error
            after = await session.call_tool("get_invoice", {"invoice_id": 3})
            assert after.structured_content["result"]["status"] == "paid"
            balance = await session.call_tool("open_balance", {"account_id": 10})
            assert balance.structured_content == {"result": 12.5}

    anyio.run(main)


def test_streamable_http_on_a_loopback_port(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, package = examples_package
    port = free_port()
    command = _command(examples_package, "streamable-http", str(port))

    async def main(url: str) -> None:
        async with http_session(url) as session:
            await _check_every_tool(session, package)
            bad = await session.call_tool("get_orders", {"customer_id": "7"})
            assert bad.is_error and "customer_id" in bad.content[0].text

    with http_server(command, port) as url:
        anyio.run(main, url)


def test_nothing_binds_beyond_loopback_by_default(
    examples_package: tuple[Path, ModuleType],
) -> None:
    from toolspec_runtime import mcp_server

    _, package = examples_package
    assert (
        inspect.signature(package.serve_mcp).parameters["host"].default == "127.0.0.1"
    )
    assert (
        inspect.signature(mcp_server.serve_mcp).parameters["host"].default
        == "127.0.0.1"
    )


def test_the_server_lists_what_the_export_lists_whatever_its_fields(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """The server answers the export as it is, not rebuilt: a field the export carries (here one added to it
    after the fact) is served too, so new export fields need no change here."""
    from toolspec_runtime.mcp_server import mcp_server

    _, package = examples_package
    listing = package.export_tools("mcp")
    listing["tools"][0]["annotations"] = {"readOnlyHint": True}
    server = mcp_server(package.__name__, package.TOOLS, listing, object())
    handler = server.get_request_handler("tools/list").handler

    async def main() -> Any:
        return await handler(None, None)

    assert anyio.run(main) == listing


def test_without_the_extras_the_package_works_and_says_what_to_install(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """The SDKs blocked from import (as if not installed): the package imports and dispatches; serving, the
    client and the Agents tools fail with the command that installs what they need."""
    import subprocess
    import sys

    out, _ = examples_package
    code = f"""
import json, sys
for name in ("mcp", "mcp_types", "agents", "anyio", "uvicorn"):
    sys.modules[name] = None  # an import of it raises ImportError
sys.path.insert(0, {str(out.parent)!r})
import {out.name} as pkg
found = [pkg.dispatch("sayHello", {{"personName": "Ann"}}, type("I", (), {{"say_hello": lambda self, **k: "hi"}})()).value]
for make in (lambda: pkg.mcp_server(None), lambda: pkg.McpClient(None), lambda: pkg.agents_tools(None)):
    try:
        make()
        found.append("no error")
    except ImportError as exc:
        found.append(str(exc))
print(json.dumps(found))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    value, server, client, agents = json.loads(run.stdout)
    assert value == "hi"
    assert "pip install 'toolspec-runtime[mcp]'" in server
    assert "pip install 'toolspec-runtime[mcp]'" in client
    assert "pip install 'toolspec-runtime[agents]'" in agents
