"""`python -m codegen.snapshot`: a running MCP server's `tools/list`, written as a spec file.

    python -m codegen.snapshot --command "python -m weather_server" -o specs/weather.json
    python -m codegen.snapshot --url http://127.0.0.1:8000/mcp -o specs/weather.json [--check]

The file is a `tools/list` result, `{"tools": [...]}`, which the JSON front end reads as specs. Its bytes
depend only on the tools: sorted by name, every page of the listing joined, the protocol's own fields
(`nextCursor`, cache hints) left out, formatted as the exports are. So a client package checks the snapshot
in, and CI takes a fresh one: a changed file (`--check` here, or `codegen --check` after it) shows that the
server's tools changed. Nothing a server sends is run or trusted beyond being JSON: a server that cannot be
reached, or answers nonsense, is an error message and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

# How long connecting and listing may take before the snapshot gives up (a server that never answers).
TIMEOUT_SECONDS = 60.0
# Pages of `tools/list` followed at most (a server whose cursor never ends).
MAX_PAGES = 1000


class SnapshotError(Exception):
    """The server could not be reached or listed; the message says why."""


def snapshot_text(tools: list[dict[str, Any]]) -> str:
    """The spec file's text for the tools of a listing: sorted by name, as the exports are formatted."""
    from toolspec_runtime.exports import dump_json

    ordered = sorted(tools, key=lambda tool: str(tool.get("name", "")))
    return dump_json({"tools": ordered})


async def list_tools(session: Any) -> list[dict[str, Any]]:
    """Every tool an initialized `ClientSession` lists, page after page, as the JSON the server sent (by wire
    names, absent fields left out)."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp_types import PaginatedRequestParams

            page = await session.list_tools(
                params=PaginatedRequestParams(cursor=cursor)
            )
        tools += [
            tool.model_dump(mode="json", by_alias=True, exclude_none=True)
            for tool in page.tools
        ]
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise SnapshotError(f"the server's tools/list has more than {MAX_PAGES} pages")


async def take(command: str | None = None, url: str | None = None) -> str:
    """The snapshot text of the server started by `command` (stdio) or listening at `url` (streamable HTTP)."""
    import anyio
    from mcp import ClientSession

    try:
        with anyio.fail_after(TIMEOUT_SECONDS):
            async with _transport(command, url) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return snapshot_text(await list_tools(session))
    except SnapshotError:
        raise
    except TimeoutError:
        raise SnapshotError(
            f"the server did not list its tools within {TIMEOUT_SECONDS:.0f} seconds"
        ) from None
    except Exception as exc:  # a server's failure, whatever its kind, is a message
        raise SnapshotError(_reason(exc)) from None


def _transport(command: str | None, url: str | None) -> Any:
    if url is not None:
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(url)
    from mcp.client.stdio import StdioServerParameters, stdio_client

    words = shlex.split(command or "")
    if not words:
        raise SnapshotError("--command is empty")
    # The user's own environment, as a shell would give it: the SDK's default keeps only a few variables,
    # which would lose the virtualenv or PYTHONPATH the server needs.
    params = StdioServerParameters(
        command=words[0], args=words[1:], env=dict(os.environ)
    )
    return stdio_client(params)


def _reason(exc: BaseException) -> str:
    """The innermost message of an exception (task groups wrap the transport's failure)."""
    inner = getattr(
        exc, "exceptions", None
    )  # an exception group (Python 3.11+, or anyio's backport)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m codegen.snapshot",
        description="Write a running MCP server's tools/list as a spec file.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--command", help="the command that starts the server on stdio")
    where.add_argument(
        "--url",
        help="the server's streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp",
    )
    parser.add_argument(
        "-o", "--output", required=True, type=Path, help="the spec file to write"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the file differs from the server's tools",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        import anyio

        text = anyio.run(take, args.command, args.url)
    except ImportError:
        print(
            "codegen.snapshot: error: it needs the MCP SDK: pip install 'toolspec-runtime[mcp]'",
            file=sys.stderr,
        )
        return 2
    except SnapshotError as exc:
        print(f"codegen.snapshot: error: {exc}", file=sys.stderr)
        return 2
    output: Path = args.output
    current = output.read_bytes() if output.exists() else None
    new = text.encode("utf-8")
    if args.check:
        if current == new:
            return 0
        print(
            f"codegen.snapshot: {output} is out of date: the server's tools changed",
            file=sys.stderr,
        )
        return 1
    if current != new:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
