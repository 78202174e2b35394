"""The bytes of one spec file, read without trusting the file.

A spec is read only if it is a regular file (`not-a-file` otherwise: a FIFO, a device, a socket), checked with
`lstat` before it is opened and with `fstat` on what was opened: it is opened with O_NONBLOCK | O_NOFOLLOW, so
neither a FIFO nor a link swapped in meanwhile can block or redirect the read. At most `limit` + 1 bytes are read.

Below both `sources` (which reads whole specs) and the front ends (the Brimley router sniffs a `.sql` file's
first bytes), so that neither imports the other.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_OPEN_FLAGS = (
    os.O_RDONLY
    | os.O_NONBLOCK
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


class UnreadableSpec(Exception):
    """Why a spec file cannot be read: a diagnostic code and message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def read_spec_bytes(path: Path, limit: int, *, whole: bool = True) -> bytes:
    """The bytes of a regular file, never following a final symbolic link and never blocking.

    With `whole`, a file larger than `limit` is refused; without it, only its first `limit` bytes are read.
    Raises `UnreadableSpec`.
    """
    try:
        _require_regular(os.lstat(path))
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise _unreadable(exc) from None
    try:
        info = os.fstat(fd)
        _require_regular(info)
        if whole and info.st_size > limit:
            raise _too_large(limit)
        data = _read_at_most(fd, limit + 1 if whole else limit)
    except OSError as exc:
        raise _unreadable(exc) from None
    finally:
        os.close(fd)
    if whole and len(data) > limit:  # it grew after fstat
        raise _too_large(limit)
    return data


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _require_regular(info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise UnreadableSpec(
            "symlink", "the spec is a symbolic link; it is not followed"
        )
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a folder"
            if stat.S_ISDIR(info.st_mode)
            else "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device or socket"
        )
        raise UnreadableSpec("not-a-file", f"the spec is {kind}, not a regular file")


def _unreadable(exc: OSError) -> UnreadableSpec:
    if exc.errno == errno.ELOOP:
        return UnreadableSpec(
            "symlink", "the spec is a symbolic link; it is not followed"
        )
    return UnreadableSpec("read", f"cannot read the file: {exc.strerror or exc}")


def _too_large(limit: int) -> UnreadableSpec:
    return UnreadableSpec(
        "too-large", f"the file is larger than {limit // (1024 * 1024)} MiB"
    )
