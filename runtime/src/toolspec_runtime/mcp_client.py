"""A typed client of a package's tools on an MCP server, over an SDK `ClientSession` (the `mcp` extra).

Each generated module's `_McpClient` subclasses `McpClient` here with a method per tool (the package's
`McpClient` combines them, `lazy.mcp_client`):

    @_mcp_client.remote("get_orders")
    def get_orders(self, signature: GetOrdersFn, /) -> None: ...

`remote` turns the stub's signature (the tool's `Fn` protocol) into an async method of the same keyword-only
parameters returning the same type, which mypy checks at the call site; at run time the method checks the
arguments against the tool's input schema, calls the tool, and checks the result against its output schema
(`dispatch.check_result`, the check dispatch gives an implementation's value). Anything else than a valid
result is a `McpToolError` carrying the server's message, never a silent dict.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, ClassVar, Generic, ParamSpec, TypeVar, overload

from .dispatch import Problem, ToolSpec, check_result, problems_of
from .exports import MCP_RESULT_KEY, mcp_result_wrapped
from .mcp_server import require_sdk
from .models import read_json, schema_problems, to_json_data, to_json_output

P = ParamSpec("P")
R = TypeVar("R")


class McpToolError(Exception):
    """A tool call that gave no valid result. `message` is the server's (or says what was checked here),
    `problems` what an argument or the result got wrong, by path."""

    kind = "tool_error"

    def __init__(
        self, tool: str, message: str, problems: tuple[Problem, ...] = ()
    ) -> None:
        listed = "".join(f"\n  {p.path or '(root)'}: {p.message}" for p in problems)
        super().__init__(f"{tool}: {message}{listed}")
        self.tool = tool
        self.message = message
        self.problems = problems


class McpArgumentsError(McpToolError):
    """The arguments break the tool's input schema (found before sending, or reported by the server)."""

    kind = "invalid_arguments"


class McpServerError(McpToolError):
    """The server reported the call as failed (`isError`, or a protocol error)."""

    kind = "server_error"


class McpUnknownToolError(McpServerError):
    """The server has no tool of that name."""

    kind = "unknown_tool"


class McpResultError(McpToolError):
    """The server's result breaks the tool's output schema."""

    kind = "invalid_result"


class Remote(Generic[P, R]):
    """A tool as a method of a client: `P` and `R` are the parameters and the return type of its stub."""

    def __init__(self, tool: str) -> None:
        self.tool = tool

    @overload
    def __get__(self, client: None, owner: type[Any]) -> Remote[P, R]: ...

    @overload
    def __get__(
        self, client: McpClient, owner: type[Any]
    ) -> Callable[P, Coroutine[Any, Any, R]]: ...

    def __get__(self, client: McpClient | None, owner: type[Any]) -> Any:
        if client is None:
            return self
        return functools.partial(client._call_remote, self.tool)


def remote(
    tool: str,
) -> Callable[[Callable[[Any, Callable[P, R]], None]], Remote[P, R]]:
    """The decorator of a client's method for the tool `tool`: the decorated function's only use is the type
    of its parameter (the tool's `Fn` protocol), from which type checkers read the method's signature.
    """

    def make(stub: Callable[[Any, Callable[P, R]], None]) -> Remote[P, R]:
        return Remote(tool)

    return make


class McpClient:
    """Calls tools on an MCP server through `session` (an initialized `mcp.ClientSession`), with the types and
    the checks of the tools in `tools` (the generated package's `TOOLS`)."""

    # The generated subclass sets it to its package's TOOLS (underscored: tool methods take the plain names).
    _tools: ClassVar[Mapping[str, ToolSpec]] = {}

    def __init__(self, session: Any) -> None:
        require_sdk()
        self._session = session

    async def _call_remote(self, tool: str, /, *args: Any, **kwargs: Any) -> Any:
        """Call `tool` with keyword arguments by their Python names; its result, typed and checked."""
        if args:
            raise TypeError(f"{tool}() takes keyword arguments only")
        from mcp.shared.exceptions import MCPError

        spec = self._tools[tool]
        arguments = _arguments(spec, kwargs)
        try:
            result = await self._session.call_tool(tool, arguments)
        except MCPError as exc:
            raise _server_error(tool, exc.message) from None
        except RuntimeError as exc:
            # The SDK checks structured content against the output schema it listed, and raises this.
            raise McpResultError(tool, str(exc)) from None
        text = "".join(
            getattr(item, "text", "")
            for item in result.content
            if getattr(item, "type", "") == "text"
        )
        if result.is_error:
            raise _server_error(tool, text)
        checked = check_result(spec, _value(spec, tool, result, text))
        if checked.error is not None:
            raise McpResultError(
                tool,
                "the server's result does not match the tool's output schema",
                checked.error.problems,
            )
        return checked.value


def _arguments(spec: ToolSpec, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments (Python names, Python values) as the JSON arguments the input schema describes,
    checked against it: a call the server would refuse is not sent."""
    fields = spec.args_model.model_fields
    data: dict[str, Any] = {}
    unknown: list[Problem] = []
    for key, value in kwargs.items():
        field = fields.get(key)
        if field is None:
            unknown.append(Problem(key, "no such parameter"))
        else:
            data[field.alias or key] = value
    data = to_json_output(to_json_data(data))
    found = unknown + list(problems_of(schema_problems(data, spec.input_check)))
    if found:
        raise McpArgumentsError(
            spec.name,
            "the arguments do not match the tool's input schema",
            tuple(found),
        )
    return data


def _value(spec: ToolSpec, tool: str, result: Any, text: str) -> Any:
    """The result value: the structured content (unwrapped as the MCP export wraps it), or the text content's
    JSON (the text itself if it is not JSON) for a tool without an output schema."""
    if spec.output_schema is None:
        try:
            return read_json(text)
        except ValueError:
            return text
    value = result.structured_content
    if value is None:
        raise McpResultError(
            tool,
            "the server sent no structuredContent for a tool with an output schema",
        )
    if mcp_result_wrapped(spec.output_schema):
        if not isinstance(value, dict) or MCP_RESULT_KEY not in value:
            raise McpResultError(
                tool, f"the server's structuredContent has no {MCP_RESULT_KEY!r} key"
            )
        value = value[MCP_RESULT_KEY]
    return value


def _server_error(tool: str, text: str) -> McpToolError:
    """The error a server reported: a dispatch error (JSON with its kind and problems) keeps its kind; another
    server's text is kept as it is."""
    try:
        data = read_json(text)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        found = tuple(
            Problem(str(p.get("path", "")), str(p.get("message", "")))
            for p in data.get("problems") or ()
            if isinstance(p, dict)
        )
        kinds = {
            "unknown_tool": McpUnknownToolError,
            "invalid_arguments": McpArgumentsError,
        }
        return kinds.get(str(data.get("error")), McpServerError)(
            tool, data["message"], found
        )
    # Other servers say it in words; the SDK's own servers write "Unknown tool: <name>".
    if "unknown tool" in text.lower():
        return McpUnknownToolError(tool, text)
    return McpServerError(
        tool, text or "the server reported an error without a message"
    )
