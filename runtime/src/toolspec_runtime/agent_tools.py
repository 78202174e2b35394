"""A generated package's tools as OpenAI Agents SDK `FunctionTool`s (the `agents` extra).

Each tool carries the strict schema the OpenAI export writes (`export_tools("openai")`), and its invocation runs
the async dispatch with `flavour="openai"`, which reads strict-mode arguments back (nulls for "not given") before
validating them. The result is the JSON text of the value, or of the error an LLM can act on: the SDK sends a
tool's string output to the model, and a string error lets the model retry rather than failing the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .dispatch import ToolSpec, run_tool_async

AGENTS_EXTRA = "pip install 'toolspec-runtime[agents]'"


def agents_tools(
    tools: Mapping[str, ToolSpec],
    exported: Iterable[Mapping[str, Any]],
    impl: Any,
    *,
    context: Any = None,
    config: Mapping[str, Any] | None = None,
) -> list[Any]:
    """One `agents.FunctionTool` per entry of `exported` (the package's `export_tools("openai")`). Without a
    `context`, a tool reads its context values from the agent run's context (`RunContextWrapper.context`).
    """
    try:
        import anyio.to_thread
        from agents import FunctionTool
    except ImportError as exc:
        raise ImportError(
            f"agents_tools needs the OpenAI Agents SDK: {AGENTS_EXTRA}"
        ) from exc

    def function_tool(entry: Mapping[str, Any]) -> Any:
        function = entry["function"]
        name = str(function["name"])

        async def invoke(tool_context: Any, arguments: str) -> str:
            found = tool_context.context if context is None else context
            result = await run_tool_async(
                tools,
                name,
                arguments,
                impl,
                found,
                config=config,
                flavour="openai",
                to_thread=anyio.to_thread.run_sync,
            )
            return result.to_json()

        return FunctionTool(
            name=name,
            description=str(function.get("description") or ""),
            params_json_schema=dict(function["parameters"]),
            on_invoke_tool=invoke,
            strict_json_schema=bool(function.get("strict", False)),
        )

    return [function_tool(entry) for entry in exported]
