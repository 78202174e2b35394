"""The typed `McpClient` and `codegen.snapshot`, against the served example package and against a hand-written
SDK server (tests/mcp_handwritten_server.py) whose results break their schemas, whose tool fails, or is gone.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from toolspec_runtime.mcp_client import (
    McpArgumentsError,
    McpResultError,
    McpServerError,
    McpToolError,
    McpUnknownToolError,
)

from conftest import generate_package
from mcp_sessions import (
    EXAMPLE_SERVER,
    HANDWRITTEN_SERVER,
    RecordingSession,
    free_port,
    http_server,
    python_command,
    stdio_session,
)


def _example_command(examples: tuple[Path, ModuleType], *extra: str) -> list[str]:
    out, _ = examples
    return python_command(EXAMPLE_SERVER, str(out.parent), out.name, *extra)


def _snapshot(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codegen.snapshot", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _command_text(command: list[str]) -> str:
    import shlex

    return shlex.join(command)


# -- the typed client against the served example package ----------------------------------------------------


def test_the_client_calls_the_example_server_with_types(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    _, package = examples_package
    command = _example_command(
        examples_package, "stdio", "--db", str(tmp_path / "b.sqlite")
    )

    async def main() -> None:
        async with stdio_session(command) as session:
            recorder = RecordingSession(session)
            client = package.McpClient(recorder)
            orders = await client.get_orders(customer_id=7, status="pending")
            assert isinstance(orders[0], package.Order) and orders[0].order_id == 7
            assert orders[0].created_at == datetime.datetime(
                2024, 1, 1, tzinfo=datetime.timezone.utc
            )
            people = await client.find_people(query="An", limit=1)
            assert [p.full_name for p in people] == ["Ann"]
            assert await client.say_hello(person_name="Bo") == "Hello, Bo!"
            assert (
                await client.schedule_call(
                    email="a@b",
                    starts_at=datetime.datetime(
                        2024, 5, 1, 10, tzinfo=datetime.timezone.utc
                    ),
                )
                is None
            )
            # SQL and context-fed tools take their arguments only: the server supplies tenant and signature.
            invoice = await client.get_invoice(invoice_id=1)
            assert (
                isinstance(invoice, package.Invoice) and str(invoice.amount) == "12.5"
            )
            letter = await client.dunning_letter(customer_name="Ann", invoice=invoice)
            assert letter.endswith("Accounts")
            result = await client.forecast_cash(currencies=["EUR"])
            assert isinstance(result, package.ForecastCashResult)
            sent = len(recorder.sent)
            # Checked before sending: a call the server would refuse is not sent.
            with pytest.raises(McpArgumentsError) as bad:
                await client.get_orders(customer_id=0, limit=101)
            assert {p.path for p in bad.value.problems} == {"customer_id", "limit"}
            with pytest.raises(McpArgumentsError) as unknown:
                await client.get_orders(customer_id=1, nope=2)
            assert [p.path for p in unknown.value.problems] == ["nope"]
            with pytest.raises(TypeError):
                await client.get_orders(7)
            assert len(recorder.sent) == sent
            # The wire names are sent, by alias: `person_name` goes out as `personName`.
            await client.say_hello(person_name="Cy")
            assert recorder.sent[-1] == ("sayHello", {"personName": "Cy"})

    anyio.run(main)


def test_a_server_side_failure_is_a_typed_error(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    """A server whose config lacks a tool's settings: its error comes back typed, with the server's message."""
    from toolspec_runtime.mcp_client import _server_error

    error = _server_error(
        "forecast_cash",
        json.dumps(
            {
                "error": "configuration_error",
                "tool": "forecast_cash",
                "message": "not configured",
                "problems": [],
            }
        ),
    )
    assert type(error) is McpServerError and error.message == "not configured"
    refused = _server_error(
        "x",
        json.dumps(
            {
                "error": "invalid_arguments",
                "message": "m",
                "problems": [{"path": "a", "message": "b"}],
            }
        ),
    )
    assert type(refused) is McpArgumentsError and refused.problems[0].path == "a"


# -- the hand-written server: snapshot it, generate a client package, call it -------------------------------


@pytest.fixture(scope="module")
def handwritten(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """The hand-written server's snapshot, and the package generated from it (as a client package would)."""
    import importlib

    folder = tmp_path_factory.mktemp("handwritten")
    spec = folder / "specs" / "handwritten.json"
    run = _snapshot(
        folder,
        "--command",
        _command_text(python_command(HANDWRITTEN_SERVER)),
        "-o",
        str(spec),
    )
    assert run.returncode == 0, run.stderr
    out, name = generate_package(folder / "pkg", spec.parent, name="handwritten_client")
    sys.path.insert(0, str(out.parent))
    importlib.invalidate_caches()
    try:
        yield spec, importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def test_the_snapshot_is_the_servers_listing_sorted_and_stable(
    handwritten: tuple[Path, Any], tmp_path: Path
) -> None:
    from mcp_handwritten_server import TOOLS

    spec, _ = handwritten
    data = json.loads(spec.read_text())
    assert [t["name"] for t in data["tools"]] == sorted(t["name"] for t in TOOLS)
    assert sorted(data["tools"], key=lambda t: t["name"]) == sorted(
        TOOLS, key=lambda t: t["name"]
    )  # every field as the server gave it, `annotations` too
    again = tmp_path / "again.json"
    command = _command_text(python_command(HANDWRITTEN_SERVER))
    assert _snapshot(tmp_path, "--command", command, "-o", str(again)).returncode == 0
    assert again.read_bytes() == spec.read_bytes()
    check = _snapshot(tmp_path, "--command", command, "-o", str(again), "--check")
    assert check.returncode == 0, check.stderr
    changed = _snapshot(
        tmp_path,
        "--command",
        _command_text(python_command(HANDWRITTEN_SERVER, "--drop", "shout")),
        "-o",
        str(again),
        "--check",
    )
    assert changed.returncode == 1 and "tools changed" in changed.stderr
    assert again.read_bytes() == spec.read_bytes()  # --check writes nothing


def test_a_changed_server_fails_codegen_check_of_the_client_package(
    handwritten: tuple[Path, Any], tmp_path: Path
) -> None:
    """The CI recipe: a fresh snapshot over the checked-in one, then `codegen --check` of the package."""
    spec, _ = handwritten
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / spec.name).write_bytes(spec.read_bytes())
    out = tmp_path / "client_pkg"
    codegen = [
        sys.executable,
        "-m",
        "codegen",
        str(specs),
        "-o",
        str(out),
        "-q",
        "--no-cache",
    ]
    assert subprocess.run(codegen, capture_output=True).returncode == 0
    assert subprocess.run([*codegen, "--check"], capture_output=True).returncode == 0
    fresh = _command_text(python_command(HANDWRITTEN_SERVER, "--drop", "shout"))
    assert (
        _snapshot(tmp_path, "--command", fresh, "-o", str(specs / spec.name)).returncode
        == 0
    )
    assert subprocess.run([*codegen, "--check"], capture_output=True).returncode == 1


def test_the_snapshot_of_the_example_server_is_its_export_over_stdio_and_http(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    _, package = examples_package
    stdio_file = tmp_path / "stdio.json"
    command = _command_text(_example_command(examples_package, "stdio"))
    run = _snapshot(tmp_path, "--command", command, "-o", str(stdio_file))
    assert run.returncode == 0, run.stderr
    assert json.loads(stdio_file.read_text()) == package.export_tools("mcp")
    port = free_port()
    http_file = tmp_path / "http.json"
    with http_server(
        _example_command(examples_package, "streamable-http", str(port)), port
    ) as url:
        run = _snapshot(tmp_path, "--url", url, "-o", str(http_file))
    assert run.returncode == 0, run.stderr
    assert http_file.read_bytes() == stdio_file.read_bytes()


@pytest.mark.parametrize(
    "where",
    [
        ["--command", f"{sys.executable} -c pass"],  # exits at once
        ["--command", "no-such-program-anywhere"],
        ["--url", "http://127.0.0.1:9/mcp"],  # nothing listens
    ],
)
def test_an_unreachable_server_is_a_message_not_a_traceback(
    tmp_path: Path, where: list[str]
) -> None:
    run = _snapshot(tmp_path, *where, "-o", str(tmp_path / "x.json"))
    assert run.returncode == 2 and run.stderr.startswith("codegen.snapshot: error:")
    assert "Traceback" not in run.stderr and not (tmp_path / "x.json").exists()


def test_the_typed_client_against_the_hand_written_server(
    handwritten: tuple[Path, Any],
) -> None:
    _, package = handwritten

    async def main() -> None:
        async with stdio_session(python_command(HANDWRITTEN_SERVER)) as session:
            client = package.McpClient(session)
            total = await client.add(a=2, b=3)
            assert total.sum == 5 and type(total).__name__ == "AddResult"
            assert await client.shout(text="hi") == "HI"  # no output schema: the text
            # The SDK's own check catches this one ...
            with pytest.raises(McpResultError) as negative:
                await client.negative_count()
            assert "negative_count" in str(negative.value)
            # ... only the package's exact check this one (a 29th of February in 2023).
            with pytest.raises(McpResultError) as day:
                await client.bad_day()
            assert day.value.problems and day.value.problems[0].path == "day"
            with pytest.raises(McpServerError) as failed:
                await client.fails()
            assert failed.value.message == "the upstream service is down"
            assert not isinstance(failed.value, McpUnknownToolError)

        async with stdio_session(
            python_command(HANDWRITTEN_SERVER, "--drop", "add")
        ) as session:
            client = package.McpClient(session)
            with pytest.raises(McpUnknownToolError) as gone:
                await client.add(a=1, b=2)
            assert "Unknown tool: add" in gone.value.message
            assert isinstance(gone.value, McpToolError)

    anyio.run(main)
