"""A no-op build decided before codegen imports anything else: the stamps of every file it depends on.

A no-op (`cli._up_to_date`) costs a process mostly its imports (argparse, dataclasses, pathlib, the settings
and the record's readers) and the digests it checks. When one has just found nothing to do, it leaves beside its
rebuild record the command line, the working folder and the interpreter it ran with, what it printed, and the
stamp (`lstat`: type, device, inode, size, modification and change times) of every file and folder the decision
rested on: the spec files and every folder under the specs (a file added or removed changes its folder's times),
OUT's files, codegen's own files and those of the libraries it renders with, and each `pyproject.toml` the
settings could come from (or that there is none). The next command with the same line, in the same folder,
finds every stamp as it was and prints the same lines, having imported `os`, `sys`, `time` and `zlib`.

A stamp only stands for what was checked if nothing could change unseen in the same tick of the file system's
clock: files are stamped as the no-op vouched for them (the rebuild record's rules), and folders and codegen's
files only when their change time is a second before this process started. Anything else (another flag, a
missing or unreadable record, a stamp that differs) means the ordinary command runs.
"""

from __future__ import annotations

import operator
import os
import sys
import time
import zlib

_STARTED = time.time_ns()
FORMAT = 1
_MAX_BYTES = 64 * 1024 * 1024
_STAMP_FIELDS = operator.attrgetter(
    "st_mode", "st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns"
)
_SETTLED_NS = 1_000_000_000  # a folder changed less than this before the start may change within its tick


def _command(argv: list[str]) -> tuple[list[str], str, bool] | None:
    """The spec paths, OUT and whether quiet, for `SPECS... -o OUT [-q]` alone; None for anything else."""
    specs, out, quiet, rest = [], None, False, iter(argv)
    for arg in rest:
        if arg in ("-o", "--output"):
            out = next(rest, None)
            if out is None:
                return None
        elif arg in ("-q", "--quiet"):
            quiet = True
        elif arg.startswith("-") or not arg:
            return None
        else:
            specs.append(arg)
    return (specs, out, quiet) if specs and out else None


def _record_file(out: str) -> str | None:
    """Beside OUT's rebuild record (`cache.record_path`), from the environment alone."""
    root = os.environ.get("CODEGEN_CACHE_DIR")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME")
        if xdg and os.path.isabs(xdg):
            root = os.path.join(xdg, "codegen")
        else:
            home = os.path.expanduser("~")
            if home == "~":
                return None
            root = os.path.join(home, ".cache", "codegen")
    # (zlib, not hashlib, whose import alone is a tenth of this: the record names OUT, so two OUTs of one key
    # only take each other's place)
    path = os.fsencode(os.path.realpath(out))
    key = f"{zlib.crc32(path):08x}{zlib.adler32(path):08x}"
    return os.path.join(root, "rebuild", f"{key}.quick")


def stamp_text(info: os.stat_result) -> str:
    """A file's stamp as this module records and compares it (mode, device, inode, size, times)."""
    # (one attrgetter and %-formatting: 0.7 us, an f-string of six attributes 1.2 us; 40,000 files for an
    # edit of 10,000 tools)
    return "%d,%d,%d,%d,%d,%d" % _STAMP_FIELDS(info)


def started() -> None:
    """Note that a command starts now, before it looks at any file (`settled` is measured from here)."""
    global _STARTED
    _STARTED = time.time_ns()


def settled(info: os.stat_result) -> bool:
    """Whether a file or folder last changed a second before this command started: whatever the command found
    in it, a later change moves its change time on."""
    return info.st_ctime_ns < _STARTED - _SETTLED_NS


def _context(argv: list[str]) -> list[str]:
    return [*argv, "\0", os.getcwd(), sys.executable, sys.version]


def _dump(fields: list[str]) -> bytes:
    """Length-prefixed fields (`5:hello`): read back by slicing, with nothing to import (orjson and json
    each cost a no-op more than the rest of this module)."""
    return "".join(f"{len(field)}:{field}" for field in fields).encode(
        "utf-8", "surrogateescape"
    )


def _load(data: bytes) -> list[str]:
    text, fields, at = data.decode("utf-8", "surrogateescape"), [], 0
    while at < len(text):
        colon = text.index(":", at, at + 20)
        end = colon + 1 + int(text[at:colon])
        if end > len(text):
            raise ValueError("a field past the end")
        fields.append(text[colon + 1 : end])
        at = end
    return fields


def _holds(path: str, expected: str, out: str) -> bool:
    """Whether the regular file `path` has the bytes `=sha256:size` names. A file of OUT is opened folder by
    folder below OUT, following no link (as the writer reads OUT: OUT's previous contents are untrusted); a
    spec file is opened as the compiler reads it, without following a link at the end.
    """
    import hashlib

    sha, _, size = expected[1:].partition(":")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    folder = None
    if path.startswith(out + os.sep):
        *parts, path = path[len(out) + 1 :].split(os.sep)
        folder = os.open(out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            for part in parts:
                inner = os.open(
                    part, flags | getattr(os, "O_DIRECTORY", 0), dir_fd=folder
                )
                os.close(folder)
                folder = inner
            fd = os.open(path, flags, dir_fd=folder)
        finally:
            os.close(folder)
    else:
        fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if (os.fstat(fd).st_mode & 0o170000) != 0o100000:  # not a regular file
            return False
        data = handle.read(int(size) + 1)
    return len(data) == int(size) and hashlib.sha256(data).hexdigest() == sha


def up_to_date(argv: list[str]) -> bool:
    """Whether the command `argv` is a no-op, as one before it recorded; if so, its output is printed again."""
    command = _command(argv)
    path = _record_file(command[1]) if command else None
    if command is None or path is None:
        return False
    try:
        with open(path, "rb") as handle:
            fields = _load(handle.read(_MAX_BYTES + 1))
        context = _context(argv)
        if fields[: len(context) + 1] != [str(FORMAT), *context]:
            return False
        out, stdout, stderr, listed = fields[len(context) + 1 :]
        if out != os.path.abspath(command[1]):
            return False
        stamps = listed.split("\0")  # (no path holds a NUL)
        if len(stamps) % 2:
            return False
        # Thousands of files: one `lstat` each and a string compared, the stamp written as `stamp_text`
        # writes it (a list per file and `map(str, ...)` were most of a no-op's time).
        lstat = os.lstat
        settled_since = False
        for index in range(1, len(stamps), 2):
            name, expected = stamps[index - 1], stamps[index]
            try:
                i = lstat(name)
            except FileNotFoundError:
                if expected != "-":
                    return False
                continue
            if expected != stamp_text(i):
                if expected[:1] != "=" or not _holds(name, expected, out):
                    return False
                # settled: its bytes are the ones checked, and its stamp now vouches for them
                if settled(i):
                    stamps[index], settled_since = stamp_text(i), True
    except (OSError, ValueError):
        return False
    sys.stderr.write(stderr)
    sys.stdout.write(stdout)
    if settled_since:
        # (the manifest a build writes last is checked by its bytes, importing hashlib: 4 ms of every no-op)
        _write(
            path, [*fields[: len(context) + 1], out, stdout, stderr, "\0".join(stamps)]
        )
    return True


def save(
    argv: list[str],
    out: str,
    vouched: dict[str, str | None],
    folders: list[str],
    stdout: str,
    stderr: str,
) -> None:
    """Record a no-op of the command `argv` (see the module's doc): `vouched`, the files the command just
    vouched for (by path: the stamp it vouched for, as this module takes it; `=sha256:size` for one to be
    checked by its bytes; None for a file that must stay absent);
    `folders`, the folders and codegen's files, stamped when they have settled. Best effort: a cache that
    cannot be written is no reason to stop."""
    path = _command(argv) and _record_file(out)
    if not path:
        return
    stamps: list[str] = []
    # (each taken by the caller from what it vouched for)
    for name, stamp in vouched.items():
        stamps += [name, "-" if stamp is None else stamp]
    for name in folders:
        try:
            info = os.lstat(name)
        except OSError:
            return
        if not settled(info):
            return
        stamps += [name, stamp_text(info)]
    try:  # (the working folder may be gone)
        context = [*_context(argv), os.path.abspath(out)]
    except OSError:
        return
    _write(path, [str(FORMAT), *context, stdout, stderr, "\0".join(stamps)])


def _write(path: str, fields: list[str]) -> None:
    """Replace the record `path` with `fields` at once; best effort."""
    try:
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            handle.write(_dump(fields))
        os.replace(temporary, path)
    except (OSError, UnicodeError):
        return
