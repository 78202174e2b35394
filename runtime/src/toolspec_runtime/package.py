"""What a generated package's `__init__` offers beside its names: `dispatch`, `export_tools`, `mcp_server`,
`serve_mcp` and `agents_tools`, over its registry `TOOLS`.

The `__init__` binds the methods of one `Package`, typed with its own `Tools` and `ToolConfigs`
(`_PACKAGE: Package[Tools, ToolConfigs] = Package(__name__, TOOLS)`), so that type checkers see each function
with the package's types, and the package holds one line per function instead of its body.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Generic, Literal, TypeVar

from . import agent_tools, exports, mcp_server
from .dispatch import ToolResult, ToolSpec, run_tool

ImplT = TypeVar("ImplT")  # the package's `Tools`
ConfigT = TypeVar("ConfigT", bound=Mapping[str, object])  # the package's `ToolConfigs`


class Package(Generic[ImplT, ConfigT]):
    """The tools of the generated package `name` (its `TOOLS`)."""

    def __init__(self, name: str, tools: Mapping[str, ToolSpec]) -> None:
        self._name = name
        self._tools = tools

    def dispatch(
        self,
        name: str,
        arguments: str | bytes | Mapping[str, Any],
        impl: ImplT | None = None,
        context: Any = None,
        *,
        config: ConfigT | None = None,
        flavour: Literal["openai", "anthropic", "mcp"] | None = None,
    ) -> ToolResult:
        """Run the tool `name`: validate `arguments` (JSON text or a mapping), call `impl`, validate the result.

        `config` holds the tools' instantiation configs; `flavour` names the format the LLM saw the tools in
        (`export_tools`): its tool names are accepted, and "openai" strict-mode arguments are read back first.
        Failures come back as a `ToolResult` whose `error` an LLM can read; no traceback reaches the caller.
        """
        return run_tool(
            self._tools, name, arguments, impl, context, config=config, flavour=flavour
        )

    def export_tools(
        self,
        flavour: Literal["openai", "anthropic", "mcp", "xml"],
        names: Iterable[str] | None = None,
    ) -> Any:
        """The tools (all, or `names`) as an LLM API takes them, as in `schemas/tools.<flavour>.*`: a list of
        tool objects ("openai", "anthropic"), a `tools/list` result ("mcp"), or XML text ("xml").
        """
        tools = self._tools
        chosen = sorted(tools) if names is None else list(names)
        exported = exports.export_names(tools, flavour)
        return exports.export_tools(
            [tools[n].definition() for n in chosen], flavour, exported
        )

    def mcp_server(
        self, impl: Any, *, context: Any = None, config: ConfigT | None = None
    ) -> Any:
        """These tools as a server of the official MCP SDK (`mcp.server.lowlevel.Server`): `tools/list`
        answers `export_tools("mcp")`, `tools/call` runs `impl` (a `Tools`, its methods sync or async) through
        `dispatch`. Needs `pip install 'toolspec-runtime[mcp]'`.
        """
        return mcp_server.mcp_server(
            self._name,
            self._tools,
            self.export_tools("mcp"),
            impl,
            context=context,
            config=config,
        )

    def serve_mcp(
        self,
        impl: Any,
        *,
        transport: Literal["stdio", "streamable-http"] = "stdio",
        host: str = "127.0.0.1",
        port: int = 8000,
        context: Any = None,
        config: ConfigT | None = None,
    ) -> None:
        """Serve these tools over MCP until stopped: on stdin/stdout, or over streamable HTTP at
        `http://<host>:<port>/mcp` (loopback unless `host` says otherwise).
        """
        server = self.mcp_server(impl, context=context, config=config)
        mcp_server.serve_mcp(server, transport=transport, host=host, port=port)

    def agents_tools(
        self, impl: Any, *, context: Any = None, config: ConfigT | None = None
    ) -> list[Any]:
        """These tools as OpenAI Agents SDK `FunctionTool`s: strict schemas as `export_tools("openai")`
        writes them, calls through `dispatch`. Needs `pip install 'toolspec-runtime[agents]'`.
        """
        return agent_tools.agents_tools(
            self._tools,
            self.export_tools("openai"),
            impl,
            context=context,
            config=config,
        )
