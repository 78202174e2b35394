"""`python -m acme_tools` serves the tools over MCP: an SDK client lists exactly the exported tools and calls them,
typed through the generated `McpClient`."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from acme_tools.generated import Forecast, McpClient, export_tools


def test_the_package_serves_its_tools(tmp_path: Path) -> None:
    db = tmp_path / "forecasts.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE forecasts (city TEXT, date TEXT, high REAL, low REAL, summary TEXT)")
        conn.execute("INSERT INTO forecasts VALUES ('Porto', '2026-01-01', 15.0, 9.0, 'rain')")
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "acme_tools", f"sqlite:///{db}"], env=dict(os.environ)
    )

    async def main() -> None:
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
                assert tools == export_tools("mcp")["tools"]
                client = McpClient(session)
                assert await client.greet(person_name="Ana", language="pt") == "Olá, Ana!"
                saved = await client.saved_forecasts(city="Porto")
                assert [type(f) for f in saved] == [Forecast] and saved[0].high == 15.0

    anyio.run(main)
