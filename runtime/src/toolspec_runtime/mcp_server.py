"""A generated package's tools as an MCP server of the official SDK (the `mcp` extra).

`tools/list` answers the package's `export_tools("mcp")` as it is (whatever fields the export carries, the
server carries: nothing is rebuilt here); `tools/call` runs through the async dispatch (`run_tool_async`), so
arguments, context values, config and the result are checked as `dispatch` checks them, and a failure is an
`isError` result whose text lists the problems an LLM can fix. The SDK is imported when a server is made, never
when the runtime is: packages that do not serve do not need it.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any, Literal

from .dispatch import ToolSpec, run_tool_async

MCP_EXTRA = "pip install 'toolspec-runtime[mcp]'"
# Loopback only, unless the application names another interface: a tool server is not for the network by default.
DEFAULT_HOST = "127.0.0.1"


def require_sdk() -> None:
    """Fail with the install command when the MCP SDK is missing (or is a 1.x release, whose API differs)."""
    try:
        import_module("mcp.server.lowlevel")
        # mcp 2 ships its types as a distribution of their own; 1.x does not
        import_module("mcp_types")
    except ImportError as exc:
        raise ImportError(
            f"serving or calling tools over MCP needs the MCP SDK 2: {MCP_EXTRA}"
        ) from exc


def mcp_server(
    name: str,
    tools: Mapping[str, ToolSpec],
    listing: Mapping[str, Any],
    impl: Any,
    *,
    context: Any = None,
    config: Mapping[str, Any] | None = None,
) -> Any:
    """An `mcp.server.lowlevel.Server` named `name` serving `tools`: `listing` is the package's
    `export_tools("mcp")`, answered to every `tools/list`; each `tools/call` runs `impl` through dispatch.
    """
    require_sdk()
    import anyio.to_thread
    from mcp.server.lowlevel import Server

    listed = dict(listing)
    schemas = {str(tool["name"]): tool.get("inputSchema") for tool in listed["tools"]}

    # The handlers answer dicts, which the SDK sends as they are (its typing names its models, its runner takes
    # both): the export itself is the answer, not the SDK's model of it, which could drop a field it lacks.
    async def list_tools(ctx: Any, params: Any) -> Any:
        return listed

    async def call_tool(ctx: Any, params: Any) -> Any:
        result = await run_tool_async(
            tools,
            params.name,
            params.arguments or {},
            impl,
            context,
            config=config,
            flavour="mcp",
            # Sync implementations run on a worker thread, as the SDK's own MCPServer runs sync tools: a slow
            # tool does not hold up the other requests.
            to_thread=anyio.to_thread.run_sync,
            # The data the output check passed is what goes out: not dumped again from the typed value.
            keep_data=True,
        )
        return result.to_mcp()

    return Server(
        name,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        # The SDK validates `Mcp-Param-*` headers against the input schema; this saves it a `tools/list` call.
        get_tool_input_schema=schemas.get,
    )


def serve_mcp(
    server: Any,
    *,
    transport: Literal["stdio", "streamable-http"] = "stdio",
    host: str = DEFAULT_HOST,
    port: int = 8000,
) -> None:
    """Run `server` (from `mcp_server`) until stopped: over stdin/stdout, or over streamable HTTP at
    `http://host:port/mcp` (loopback by default, with the SDK's DNS-rebinding protection for it).
    """
    require_sdk()
    import anyio

    if transport == "stdio":
        anyio.run(_stdio, server)
    elif transport == "streamable-http":
        import uvicorn

        app = server.streamable_http_app(host=host)
        uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level="warning")
        ).run()
    else:
        raise ValueError(
            f"unknown MCP transport {transport!r}; choose 'stdio' or 'streamable-http'"
        )


async def _stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )
