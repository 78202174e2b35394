"""Running one stage of a compile in a forked child while the parent does another, on a machine with a core
to spare.

The child inherits the compile's state as it is (nothing is pickled on the way in), runs a pure function of it,
and sends back plain data (`marshal`: strings, numbers, dicts, lists, tuples). Whatever goes wrong in the child
(an exception, a crash, data marshal cannot carry) only means the parent runs the function itself: the result
is the same either way, only the time differs.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

# Forking costs a few milliseconds and the child's result must be sent back: below this much work (a caller's
# measure: the compiler counts tools and model fields, about 1,800 for 200 bench tools), the parent does it.
MIN_WORK = 1000


def _spare_core() -> bool:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2


def worth_forking(work: int) -> bool:
    """Whether `in_background` forks for this much work: it is enough, a core is free for it, and no other
    thread would be left stopped mid-way in the child."""
    return (
        work >= MIN_WORK
        and hasattr(os, "fork")
        and threading.active_count() == 1
        and _spare_core()
    )


def in_background(work: int, function: Callable[[], T]) -> Callable[[], T]:
    """Start `function` in a forked child when it is worth it and safe (no other thread that a fork would
    leave stopped mid-way); return a function that waits for its result (or computes it, if it could not).
    """
    if not worth_forking(work):
        return function
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return function
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return function
    if pid == 0:  # the child: never returns
        _child(read_end, write_end, function)
    os.close(write_end)

    def join() -> T:
        with os.fdopen(read_end, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0 and data:
            with contextlib.suppress(ValueError, EOFError, TypeError):
                result: Any = marshal.loads(data)
                return result  # type: ignore[no-any-return]
        return function()

    return join


def _child(read_end: int, write_end: int, function: Callable[[], Any]) -> None:
    status = 1
    try:
        os.close(read_end)
        data = marshal.dumps(function())
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's buffers


class WorkQueue:
    """The numbers 0 to n - 1, each handed out once, to whichever of a process and its forked child asks first,
    so that two processes share work of unknown cost evenly. It is a pipe both read: a read of four bytes from
    a pipe is never split between readers. Numbers the pipe could not hold (or all, without a pipe) are never
    handed out: the caller does what nobody took.
    """

    _CHUNK = 1024  # numbers written at once: 4,096 bytes, which a pipe takes whole or not at all

    def __init__(self, count: int) -> None:
        self._fd: int | None = None
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return
        try:
            os.set_blocking(write_end, False)
            for start in range(0, count, self._CHUNK):
                numbers = range(start, min(start + self._CHUNK, count))
                os.write(write_end, b"".join(n.to_bytes(4, "big") for n in numbers))
        except OSError:  # full (BlockingIOError) or failing: the rest is the caller's
            pass
        finally:
            os.close(write_end)  # an empty pipe then reads as its end
        self._fd = read_end

    def __iter__(self) -> Iterator[int]:
        """The numbers this process takes, until none is left."""
        while self._fd is not None:
            try:
                data = os.read(self._fd, 4)
            except OSError:
                data = b""
            if len(data) != 4:
                self.close()
                return
            yield int.from_bytes(data, "big")

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
