"""A private, throwaway PostgreSQL server for the tests (Debian's `postgresql` package; .ci/run installs it).

`postgres_url` (session scope) runs `initdb` into a fresh temporary folder and `pg_ctl start` on a free loopback
port, with its unix socket in that folder, and stops and removes it when the session ends. `initdb` refuses to run
as root, so as root the server runs as the `postgres` user (which the Debian package creates).

In CI (`CI=true`) a server that cannot be started fails the tests that need it; elsewhere they are skipped, saying
why.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl: on PATH, else Debian's /usr/lib/postgresql/<version>/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: (
            int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0
        ),
    )
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """One PostgreSQL server in a temporary folder."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="codegen-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.started = False
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            shutil.chown(self.root, user="postgres", group="postgres")

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str, timeout: float = 120) -> None:
        kwargs: dict[str, object] = {}
        if self.user is not None:
            kwargs = {"user": self.user, "group": self.user, "extra_groups": []}
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C",
            "HOME": str(self.root),
        }
        run = subprocess.run(
            command,
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            **kwargs,  # type: ignore[arg-type]
        )
        if run.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command)} failed:\n{run.stdout}\n{run.stderr}\n{self._log()}"
            )

    def _log(self) -> str:
        log = self.root / "server.log"
        return log.read_text(errors="replace")[-3000:] if log.exists() else ""

    def start(self, binaries: Path) -> None:
        self._run(
            str(binaries / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.root} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            str(binaries / "pg_ctl"),
            "start",
            "-w",
            "-t",
            "60",
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-o",
            options,
        )
        self.started = True

    def stop(self, binaries: Path) -> None:
        try:
            if self.started:
                self._run(
                    str(binaries / "pg_ctl"),
                    "stop",
                    "-w",
                    "-m",
                    "fast",
                    "-D",
                    str(self.data),
                    timeout=60,
                )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(
            f"PostgreSQL is required in CI and could not be started: {reason}",
            pytrace=False,
        )
    pytest.skip(
        f"no PostgreSQL server for the tests: {reason} (.ci/run installs Debian's postgresql)"
    )


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The SQLAlchemy URL of a fresh PostgreSQL server (trust authentication, loopback only)."""
    binaries = bin_dir()
    if binaries is None:
        _unavailable("initdb and pg_ctl were not found")
    assert binaries is not None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the psycopg driver is not installed (pip install -e '.[test]')")
    cluster = Cluster()
    try:
        cluster.start(binaries)
    except (
        OSError,
        RuntimeError,
        subprocess.SubprocessError,
        KeyError,
        LookupError,
    ) as exc:
        cluster.stop(binaries)
        _unavailable(str(exc))
    try:
        yield cluster.url
    finally:
        cluster.stop(binaries)
