"""Test helpers: SDK client sessions to a server in a subprocess (stdio, or streamable HTTP on a free loopback
port), started as a user would start it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

HERE = Path(__file__).resolve().parent
EXAMPLE_SERVER = HERE / "mcp_example_server.py"
HANDWRITTEN_SERVER = HERE / "mcp_handwritten_server.py"


def python_command(script: Path, *args: str) -> list[str]:
    return [sys.executable, str(script), *args]


@asynccontextmanager
async def stdio_session(command: list[str]) -> AsyncIterator[ClientSession]:
    """An initialized session to the server `command` starts on stdio (with this process's environment)."""
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ)
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def http_server(command: list[str], port: int) -> Iterator[str]:
    """Run `command` (a streamable HTTP server on `port`) until the block ends; the endpoint's URL."""
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                errors = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"the server exited: {errors}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class RecordingSession:
    """A session that records what it was asked to send, to show what a client did not send."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.sent: list[tuple[str, Any]] = []

    async def call_tool(self, name: str, arguments: Any = None) -> Any:
        self.sent.append((name, arguments))
        return await self.session.call_tool(name, arguments)
