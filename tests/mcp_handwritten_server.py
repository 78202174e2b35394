"""A hand-written MCP server (the SDK's low-level `Server`, no codegen) that misbehaves on purpose, for the typed
client and snapshot tests: a result that breaks its output schema (one the SDK's own check catches, one only an
exact `format` check does), a failing tool, a text-only tool, and `--drop NAME` to lose a tool after a client
was generated against it.

    python tests/mcp_handwritten_server.py [--drop NAME]
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

OBJECT = "object"
TOOLS: list[dict[str, Any]] = [
    {
        "name": "add",
        "description": "Adds two integers.",
        "inputSchema": {
            "type": OBJECT,
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": OBJECT,
            "properties": {"sum": {"type": "integer"}},
            "required": ["sum"],
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "negative_count",
        "description": "Claims a count of at least 0, returns -1 (the SDK's own check catches it).",
        "inputSchema": {"type": OBJECT, "properties": {}},
        "outputSchema": {
            "type": OBJECT,
            "properties": {"count": {"type": "integer", "minimum": 0}},
            "required": ["count"],
        },
    },
    {
        "name": "bad_day",
        "description": "Claims a date, returns 2023-02-29 (only an exact format check catches it).",
        "inputSchema": {"type": OBJECT, "properties": {}},
        "outputSchema": {
            "type": OBJECT,
            "properties": {"day": {"type": "string", "format": "date"}},
            "required": ["day"],
        },
    },
    {
        "name": "fails",
        "description": "Always reports an error.",
        "inputSchema": {"type": OBJECT, "properties": {}},
    },
    {
        "name": "shout",
        "description": "Text in, text out; no output schema.",
        "inputSchema": {
            "type": OBJECT,
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]


def server(dropped: set[str]) -> Server[Any]:
    listed = [tool for tool in TOOLS if tool["name"] not in dropped]
    names = {tool["name"] for tool in listed}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return {"tools": listed}

    async def call_tool(ctx: Any, params: Any) -> Any:
        args = params.arguments or {}
        if params.name not in names:
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        if params.name == "add":
            total = args["a"] + args["b"]
            return _result({"sum": total}, str(total))
        if params.name == "negative_count":
            return _result({"count": -1}, "-1")
        if params.name == "bad_day":
            return _result({"day": "2023-02-29"}, "2023-02-29")
        if params.name == "fails":
            text = "the upstream service is down"
            return {"content": [{"type": "text", "text": text}], "isError": True}
        return {"content": [{"type": "text", "text": str(args["text"]).upper()}]}

    return Server("handwritten", on_list_tools=list_tools, on_call_tool=call_tool)


def _result(structured: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": text}],
        "structuredContent": structured,
        "isError": False,
    }


async def main(dropped: set[str]) -> None:
    app = server(dropped)
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


if __name__ == "__main__":
    argv = sys.argv[1:]
    anyio.run(main, {argv[i + 1] for i, a in enumerate(argv) if a == "--drop"})
