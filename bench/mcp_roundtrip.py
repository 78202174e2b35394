"""Round trip of an MCP `tools/call` over stdio: the generated package's server against the SDK's own
MCPServer (FastMCP) serving the same tool with hand-written Pydantic arguments, side by side in one run.

    python bench/mcp_roundtrip.py [--calls 100] [--rounds 15]

One tool, `find_orders` (an integer with a minimum, an enum with a default, a bounded integer, a nullable
date; a list of orders as the result, each with a date-time and nested lines), compiled by codegen from a JSON
spec and served with `serve_mcp`; the peer is the tool a user writes for MCPServer by hand: Pydantic models of
the orders, the arguments as annotated parameters. Both servers are subprocesses on stdio, both run the tool's
sync function on a worker thread, both return structured content; one `ClientSession` per server (the SDK
client checks both results against their output schemas alike). Each round makes `--calls` calls to one
server, then to the other (the order alternating), after a warm-up; the figure per server is the median over
rounds of the mean time per call, and the ratio is the median of the rounds' ratios ours / peer (a round's
two batches ran seconds apart, so they met the same load: the machines are shared and noisy). Valid calls
and calls with invalid arguments (`isError`, the problems listed) are timed apart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SPEC = {
    "name": "find_orders",
    "description": "A customer's orders, newest first.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "customer_id": {"type": "integer", "minimum": 1},
            "status": {
                "type": "string",
                "enum": ["pending", "shipped", "cancelled"],
                "default": "shipped",
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 5},
            "since": {"type": ["string", "null"], "format": "date"},
        },
        "required": ["customer_id"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "order_id": {"type": "integer"},
                "status": {
                    "type": "string",
                    "enum": ["pending", "shipped", "cancelled"],
                },
                "created_at": {"type": "string", "format": "date-time"},
                "total": {"type": "number", "minimum": 0},
                "lines": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "sku": {"type": "string"},
                            "quantity": {"type": "integer", "minimum": 1},
                        },
                        "required": ["sku", "quantity"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["order_id", "status", "created_at", "total", "lines"],
            "additionalProperties": False,
        },
    },
}

# What both tools return: the same rows, as plain data.
ROWS = """[
    {
        "order_id": customer_id * 100 + n,
        "status": status,
        "created_at": "2024-01-0%dT10:00:00Z" % (n + 1),
        "total": 12.5 * (n + 1),
        "lines": [{"sku": "SKU-%d" % k, "quantity": k + 1} for k in range(3)],
    }
    for n in range(limit)
]"""

OURS = f"""
import sys
sys.path.insert(0, sys.argv[1])
import bench_orders


class Impl:
    def find_orders(self, *, customer_id, status="shipped", limit=5, since=None):
        return {ROWS}


bench_orders.serve_mcp(Impl())
"""

PEER = f"""
import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field
from mcp.server.mcpserver import MCPServer


class Line(BaseModel):
    sku: str
    quantity: Annotated[int, Field(ge=1)]


class Order(BaseModel):
    order_id: int
    status: Literal["pending", "shipped", "cancelled"]
    created_at: datetime.datetime
    total: Annotated[float, Field(ge=0)]
    lines: list[Line]


server = MCPServer("peer", log_level="WARNING")


@server.tool(description="A customer's orders, newest first.")
def find_orders(
    customer_id: Annotated[int, Field(ge=1)],
    status: Literal["pending", "shipped", "cancelled"] = "shipped",
    limit: Annotated[int, Field(ge=1, le=100)] = 5,
    since: datetime.date | None = None,
) -> list[Order]:
    return [Order.model_validate(row) for row in {ROWS}]


server.run()
"""

VALID = {"customer_id": 7, "status": "pending", "limit": 5, "since": "2024-01-01"}
INVALID = {"customer_id": 0, "status": "lost", "limit": 500}


async def _time_calls(
    session: Any, arguments: dict[str, Any], calls: int, error: bool
) -> float:
    """Mean seconds per call of `calls` sequential calls (each checked: an error exactly when expected)."""
    start = time.perf_counter()
    for _ in range(calls):
        result = await session.call_tool("find_orders", arguments)
        if bool(result.is_error) != error:
            raise SystemExit(f"unexpected result: {result}")
    return (time.perf_counter() - start) / calls


async def _run(
    folder: Path, calls: int, rounds: int
) -> dict[str, dict[str, list[float]]]:
    from contextlib import AsyncExitStack

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    scripts = {"ours": folder / "ours.py", "peer": folder / "peer.py"}
    times: dict[str, dict[str, list[float]]] = {
        side: {"valid": [], "invalid": []} for side in scripts
    }
    async with AsyncExitStack() as stack:
        sessions = {}
        for side, script in scripts.items():
            params = StdioServerParameters(
                command=sys.executable,
                args=[str(script), str(folder)],
                env=dict(os.environ),
            )
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            await session.list_tools()  # the client caches the output schema it checks results against
            sessions[side] = session
        for (
            side,
            session,
        ) in sessions.items():  # warm-up: imports, first checks built, caches filled
            await _time_calls(session, VALID, 50, False)
            await _time_calls(session, INVALID, 50, True)
        for number in range(rounds):
            order = ["ours", "peer"] if number % 2 == 0 else ["peer", "ours"]
            for side in order:
                times[side]["valid"].append(
                    await _time_calls(sessions[side], VALID, calls, False)
                )
                times[side]["invalid"].append(
                    await _time_calls(sessions[side], INVALID, calls, True)
                )
    return times


def _same_answers(folder: Path) -> None:
    """Both servers answer the same data (else the race compares different work)."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def answer(script: str) -> Any:
        params = StdioServerParameters(
            command=sys.executable,
            args=[str(folder / script), str(folder)],
            env=dict(os.environ),
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("find_orders", VALID)
                return result.structured_content

    ours, peer = anyio.run(answer, "ours.py"), anyio.run(answer, "peer.py")
    if ours != peer:
        raise SystemExit(f"the servers answer differently:\n{ours}\n{peer}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import anyio

    from codegen.compiler import compile_specs
    from codegen.writer import write_output

    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as tmp:
        folder = Path(tmp)
        spec = folder / "specs" / "find_orders.json"
        spec.parent.mkdir()
        spec.write_text(json.dumps(SPEC))
        result = compile_specs([spec])
        assert result.files is not None, [
            d.render() for d in result.diagnostics.sorted()
        ]
        write_output(folder / "bench_orders", result.files)
        (folder / "ours.py").write_text(OURS)
        (folder / "peer.py").write_text(PEER)
        _same_answers(folder)
        times = anyio.run(_run, folder, args.calls, args.rounds)
    print(
        f"tools/call round trip over stdio, {args.rounds} rounds of {args.calls} calls each"
    )
    print(f"{'':28}{'ours µs':>10}{'peer µs':>10}{'ours/peer':>11}")
    for kind in ("valid", "invalid"):
        ours = statistics.median(times["ours"][kind]) * 1e6
        peer = statistics.median(times["peer"][kind]) * 1e6
        paired = zip(times["ours"][kind], times["peer"][kind])
        ratio = statistics.median(o / p for o, p in paired)
        print(f"{kind + ' arguments':28}{ours:10.0f}{peer:10.0f}{ratio:11.2f}")
    for side in ("ours", "peer"):
        rounds = ", ".join(f"{t * 1e6:.0f}" for t in times[side]["valid"])
        print(f"  {side} valid, per round (µs): {rounds}")


if __name__ == "__main__":
    main()
