"""Writing and checking OUT: confined to OUT, never through a link, and all-or-nothing.

OUT's previous contents are untrusted input. Every read, write and delete inside OUT goes through
`OutputFolder._parent`, which validates the relative path and walks to it one folder at a time with
O_NOFOLLOW, so no symbolic link inside OUT is ever followed (a link where codegen reads, writes or deletes is
refused). A manifest in OUT lists the files codegen generated there with their content hashes: it only says
which files codegen may replace or delete, and a stale file is deleted only if its content still has the
recorded hash. Nothing in OUT is ever reused or trusted to skip work.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import hashlib
import itertools
import json
import os
import posixpath
import re
import secrets
import stat
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from . import __version__
from .diagnostics import Diagnostics

MANIFEST = ".codegen-manifest.json"
MAX_MANIFEST_BYTES = 32 * 1024 * 1024
MAX_DIFF_BYTES = (
    8 * 1024 * 1024
)  # larger files in OUT are reported as different, not diffed
# How many entries codegen did not generate `--check` looks at, at most (a hostile OUT may hold millions): the
# files codegen generated are not counted, so a large package's own files never cut the search short.
MAX_LISTED_ENTRIES = 10_000

_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_ascii = json.encoder.encode_basestring_ascii  # json.dumps of a string (ensure_ascii)
_PATH_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
# O_NONBLOCK: opening a FIFO planted in OUT must not hang; it is then refused as not a regular file.
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
# Temporary files and folders: `.codegen-<prefix>-<pid>-<n>.tmp`, the prefix drawn once (a draw per file was a
# system call per file), the process id for a forked child, which has the same prefix and numbers.
_TEMPORARY_PREFIX = secrets.token_hex(8)
_TEMPORARY_NUMBERS = itertools.count()
_LINK_ERRORS = {errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)}
# Files at least this large are hashed, and written in place of old ones, two at a time in threads (hashlib and
# os.write release the GIL): an edit of 10,000 tools writes four export files of 20 MB each again.
_LARGE = 1 << 20

T = TypeVar("T")
R = TypeVar("R")


def _in_threads(function: Callable[[T], R], items: list[T]) -> list[R]:
    """`[function(item) for item in items]`, two at a time when there are several: this thread and one more,
    each taking the next item when done with one (the other thread is gone when it returns, so a later fork
    leaves none stopped mid-way). The first exception raised is raised. (threading, not concurrent.futures,
    whose import with logging's was 8 to 10 ms of a build.)"""
    if len(items) < 2:
        return [function(item) for item in items]
    import threading

    done: dict[int, R] = {}
    failed: list[BaseException] = []
    # (a built-in iterator: each `next` is one step under the GIL)
    work = iter(enumerate(items))

    def run() -> None:
        try:
            for index, item in work:
                done[index] = function(item)
        except BaseException as exc:  # noqa: BLE001  (raised in the calling thread)
            failed.append(exc)

    other = threading.Thread(target=run)
    other.start()
    run()
    other.join()
    if failed:
        raise failed[0]
    return [done[index] for index in range(len(items))]


def _kind(name: str, folder: int) -> str:
    """What is in the way where a folder should be (the errno does not say: Linux gives ENOTDIR for both)."""
    return "a symbolic link" if _is_link(name, folder) else "not a folder"


class WriteError(Exception):
    pass


def digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def manifest_text(files: dict[str, str]) -> str:
    """Every generated file with its content hash (relative paths, so the manifest is the same everywhere)."""
    return _manifest({path: digest(text) for path, text in files.items()})


def _manifest(digests: Mapping[str, str]) -> str:
    """The manifest listing the files `digests` names, with their hashes."""
    # json.dumps(manifest, indent=2), written out: the indenting encoder is pure Python, and slow at this size
    listing = ",".join(
        f'\n    {_ascii(path)}: {{\n      "sha256": {_ascii(digests[path])}\n    }}'
        for path in sorted(digests)
    )
    files_text = f"{{{listing}\n  }}" if digests else "{}"
    return f'{_MANIFEST_HEAD}  "files": {files_text}\n}}\n'


_MANIFEST_HEAD = f'{{\n  "generator": "codegen",\n  "version": {_ascii(__version__)},\n'


def path_problem(rel: object) -> str | None:
    """Why `rel` is not a plain relative POSIX path in normal form inside OUT (None if it is one)."""
    if not isinstance(rel, str) or not rel:
        return "not a non-empty string"
    if all_plain([rel]):  # (the same paths are checked again and again: most are plain)
        return None
    return _path_problem_of(str(rel))


def _path_problem_of(rel: str) -> str | None:
    """Why `rel` (a string) is not a plain relative path: each check in turn."""
    if _PATH_CONTROL.search(rel):
        return "it holds a control character"
    if "\\" in rel:
        return "it holds a backslash"
    if rel.startswith("/"):
        return "it is absolute"
    if any(part in (".", "..") for part in rel.split("/")):
        return "it holds a '.' or '..' component"
    if posixpath.normpath(rel) != rel:
        return "it is not in normal form"
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not valid Unicode"
    return None


def folded(name: str) -> str:
    """`name` as a file system that ignores case and Unicode normalization sees it: two names with the same
    folded form are one file on macOS (APFS and HFS+ ignore case and canonical equivalence) and on Windows
    (NTFS ignores case). Unicode's canonical caseless form, NFD(casefold(NFD(name))): casefold folds at least
    what those file systems fold ('ß' as 'ss' too, to be safe); compatibility forms (NFKC: '①' and '1') are
    kept apart, as every file system keeps them."""
    if name.isascii():
        return name.lower()  # (the case of nearly every generated path)
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def case_collisions(rels: Iterable[str]) -> list[tuple[str, str]]:
    """The pairs of paths of OUT (files, or the folders holding them) that are one path where case and
    Unicode normalization are ignored, each pair sorted: the first path of each such group with each other.
    Only names in one and the same folder are compared: folders that are one are reported, not each pair of
    files inside them."""
    paths = set(rels)
    paths |= _folders_of(paths)
    # Most paths are ASCII and lowercase already: each is its own folded form, and any other path folding to
    # it collides with it (folding every path was most of the time at 20,000 files).
    plain = {rel for rel in paths if rel.isascii() and rel.islower()}
    groups: dict[str, list[str]] = {}
    for rel in paths - plain:
        key = "/".join(map(folded, rel.split("/")))
        groups.setdefault(key, [key] if key in plain else []).append(rel)
    pairs = []
    for alike in groups.values():
        by_folder: dict[str, list[str]] = {}
        for rel in sorted(alike):
            by_folder.setdefault(posixpath.dirname(rel), []).append(rel)
        pairs += [(same[0], other) for same in by_folder.values() for other in same[1:]]
    return sorted(pairs)


def all_plain(rels: list[str]) -> bool:
    """Whether every path of `rels` is plain (`_path_problem_of` finds nothing), told of the whole list at
    once: false may also mean that one holds a character that is no control but not printable either (then
    each is checked on its own). 30,000 paths in 7 ms, where one check after another took 28 ms.
    """
    if not rels:
        return True
    try:
        # each name between slashes, the paths between backslashes, which no plain path holds
        framed = "/" + "/\\/".join(rels) + "/"
    except TypeError:  # one is no string
        return False
    return (
        framed.isprintable()  # no control character or lone surrogate
        and framed.count("\\") == len(rels) - 1
        and "//" not in framed  # no path empty or absolute, no name empty
        and "/./" not in framed
        and "/../" not in framed
    )


def _itself(info: os.stat_result) -> os.stat_result:
    return info


def _refuse_bad_path(rel: str) -> None:
    """Raise WriteError when `rel` is no plain relative path inside OUT (`path_problem`)."""
    problem = path_problem(rel)
    if problem is not None:
        raise WriteError(f"refusing the path {shown(str(rel))}: {problem}")


def _folders_of(rels: Iterable[str]) -> set[str]:
    """Every folder holding one of `rels`, at any depth (paths from OUT)."""
    folders: set[str] = set()
    for folder in {rel.rpartition("/")[0] for rel in rels}:  # (few, for many files)
        while folder and folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return folders


def _by_folder(rels: Iterable[str]) -> dict[str, list[str]]:
    """The paths grouped by the folder holding them, in the order each folder first comes."""
    groups: dict[str, list[str]] = {}
    for rel in rels:
        # (posixpath.dirname, for the paths codegen writes: a Python call per file of an edit rebuild)
        groups.setdefault(rel.rpartition("/")[0], []).append(rel)
    return groups


def shown(rel: str) -> str:
    """A path from OUT as it may be printed: untrusted names cannot forge lines of output."""
    return rel if rel.isprintable() else ascii(rel)


class OutputFolder:
    """OUT (trusted: it comes from the command line or pyproject) and confined access to what is inside it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def where(self, rel: str) -> str:
        return f"{self.root / shown(rel)}"

    @contextlib.contextmanager
    def _parent(
        self, rel: str, create: bool = False
    ) -> Iterator[tuple[int, str] | None]:
        """The one way into OUT: the folder holding `rel`, opened without following any link, and rel's last
        name; None when a folder on the way does not exist and `create` is false."""
        _refuse_bad_path(rel)
        parts = rel.split("/")
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            yield None
            return
        try:
            for depth, part in enumerate(parts[:-1], start=1):
                current, fd = fd, -1  # _enter closes `current`, even when it fails
                fd = self._enter(current, part, "/".join(parts[:depth]), create)
                if fd < 0:
                    yield None
                    return
            yield fd, parts[-1]
        finally:
            if fd >= 0:
                os.close(fd)

    def _enter(self, fd: int, name: str, rel: str, create: bool) -> int:
        """Open the sub-folder `name` of the folder `fd` (closing `fd`); -1 when it is missing."""
        try:
            try:
                return os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    return -1
                os.mkdir(name, dir_fd=fd)
                return os.open(name, _FOLDER_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRORS:
                    raise WriteError(
                        f"{self.where(rel)} is {_kind(name, fd)}; "
                        "codegen never follows links in the output folder"
                    ) from None
                raise
        finally:
            os.close(fd)

    def lstat(self, rel: str) -> os.stat_result | None:
        with self._parent(rel) as found:
            if found is None:
                return None
            fd, name = found
            try:
                return os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return None

    def read(self, rel: str, limit: int) -> bytes | None:
        """The bytes of the regular file `rel` (None if missing, at most `limit` + 1 bytes); a link or other
        kind of file is refused without being opened through."""
        with self._parent(rel) as found:
            if found is None:
                return None
            return self._read_in(found[0], found[1], rel, limit)

    def read_many(self, limits: dict[str, int]) -> dict[str, bytes | None]:
        """`read` of many files (rel -> limit), each folder on the way opened once for all the files in it."""
        contents: dict[str, bytes | None] = {}
        for rel, found in self.read_each(limits).items():
            if isinstance(found, Exception):
                raise found
            contents[rel] = found
        return contents

    def read_each(self, limits: dict[str, int]) -> dict[str, bytes | None | Exception]:
        """`read_many`, with what `read` of a file would raise (a link, an unreadable file) as its result, for
        the caller to raise when it comes to that file."""
        contents: dict[str, bytes | None | Exception] = {}
        for rels in _by_folder(limits).values():
            try:
                self._read_folder(rels, limits, contents)
            except (WriteError, OSError) as exc:
                contents.update((rel, exc) for rel in rels if rel not in contents)
        return contents

    def _read_folder(
        self,
        rels: list[str],
        limits: dict[str, int],
        contents: dict[str, bytes | None | Exception],
    ) -> None:
        """The files `rels` of one folder into `contents`."""
        with self._parent(rels[0]) as found:
            for rel in rels:
                _refuse_bad_path(rel)
                if found is None:
                    contents[rel] = None
                    continue
                try:
                    contents[rel] = self._read_in(
                        found[0], posixpath.basename(rel), rel, limits[rel]
                    )
                except (WriteError, OSError) as exc:
                    contents[rel] = exc

    def lstat_many(self, rels: list[str]) -> dict[str, os.stat_result | None]:
        """`lstat` of many files (None where one is missing), each folder on the way opened once."""
        return self.stat_many(rels, _itself)

    def stat_many(
        self, rels: list[str], of: Callable[[os.stat_result], T]
    ) -> dict[str, T | None]:
        """`of` the `lstat` of many files (None where one is missing), each folder on the way opened once."""
        if not all_plain(rels):
            for rel in rels:
                _refuse_bad_path(rel)
        found: dict[str, T | None] = {}
        for names in _by_folder(rels).values():
            with self._parent(names[0]) as parent:
                if parent is None:
                    found.update(dict.fromkeys(names))
                    continue
                # a plain loop: this is a no-op rebuild's most of the time (20,000 files for 10,000 tools)
                for rel in names:
                    try:
                        found[rel] = of(
                            os.stat(
                                rel.rpartition("/")[2],
                                dir_fd=parent[0],
                                follow_symlinks=False,
                            )
                        )
                    except FileNotFoundError:
                        found[rel] = None
        return found

    def read_stat(self, rel: str, limit: int) -> tuple[bytes, os.stat_result] | None:
        """`read`, and the file's stat once read (a change while it was read shows in it)."""
        with self._parent(rel) as found:
            if found is None:
                return None
            return self._read_stat_in(found[0], found[1], rel, limit)

    def _read_in(self, folder: int, name: str, rel: str, limit: int) -> bytes | None:
        found = self._read_stat_in(folder, name, rel, limit)
        return None if found is None else found[0]

    def _read_stat_in(
        self, folder: int, name: str, rel: str, limit: int
    ) -> tuple[bytes, os.stat_result] | None:
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise WriteError(self._not_a_file(rel)) from None
            raise
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise WriteError(self._not_a_file(rel))
            data = handle.read(limit + 1)
            return data, os.fstat(handle.fileno())

    def _not_a_file(self, rel: str) -> str:
        return f"{self.where(rel)} is a symbolic link or not a regular file; codegen does not follow or replace it"

    def write(self, rel: str, data: bytes) -> None:
        """Atomically put `data` at `rel` (a link there is replaced itself, never written through); new files
        get the usual mode for the umask, like any file the user creates."""
        self.write_many({rel: data})

    def write_many(self, files: Mapping[str, bytes]) -> None:
        """`write` of many files, each folder on the way opened once for all the files in it (folder by
        folder, in the order each folder first comes). A folder that does not exist yet is made whole under a
        temporary name, its files written in it at their own names, then renamed into place: it appears
        complete or not at all, for one rename instead of one per file (a first build's files went from a
        rename each to none, twice as fast to write).
        """
        groups = _by_folder(files)
        fresh: dict[str, list[str]] = {}  # a missing folder, topmost -> its files
        missing: dict[str, str | None] = {}
        for folder, rels in groups.items():
            top = self._missing_top(folder, missing)
            if top is not None:
                fresh.setdefault(top, []).extend(rels)
        for folder, rels in groups.items():
            if missing.get(folder) is not None:
                continue
            with self._parent(rels[0], create=True) as found:
                assert found is not None
                folder_fd = found[0]

                def write(rel: str) -> None:
                    self._write_in(folder_fd, posixpath.basename(rel), files[rel])

                for rel in rels:
                    _refuse_bad_path(rel)
                large = [rel for rel in rels if len(files[rel]) >= _LARGE]
                for rel in rels:
                    if len(files[rel]) < _LARGE:
                        write(rel)
                _in_threads(write, large)
        for top, rels in fresh.items():
            self._write_fresh(top, {rel: files[rel] for rel in rels})

    def _missing_top(self, folder: str, missing: dict[str, str | None]) -> str | None:
        """The topmost folder on the way to `folder` (itself included) that does not exist in OUT, or None;
        `missing` remembers the answer for each folder asked about."""
        if not folder:
            return None
        if folder not in missing:
            parent = posixpath.dirname(folder)
            top = self._missing_top(parent, missing)
            if top is None:
                # (a link there exists: it is refused when entered)
                top = None if self.lstat(folder) is not None else folder
            missing[folder] = top
        return missing[folder]

    def _write_fresh(self, top: str, files: Mapping[str, bytes]) -> None:
        """Make the missing folder `top` holding `files` (paths from OUT): built under a temporary name in its
        parent, then renamed to `top` (a crash leaves only a temporary folder, never `top` half-filled).
        """
        with self._parent(top, create=True) as found:
            assert found is not None
            parent, name = found
            temporary = _temporary_name()
            os.mkdir(temporary, dir_fd=parent)
            try:
                inside = os.open(temporary, _FOLDER_FLAGS, dir_fd=parent)
                try:
                    self._fill(inside, top, files)
                finally:
                    os.close(inside)
                os.rename(temporary, name, src_dir_fd=parent, dst_dir_fd=parent)
            except BaseException:
                with contextlib.suppress(OSError):
                    _remove_tree(temporary, parent)
                raise

    @staticmethod
    def _fill(root: int, top: str, files: Mapping[str, bytes]) -> None:
        """Write `files` (paths from OUT, all under `top`) into the new, empty folder `root` that will be `top`,
        making their folders inside it. Nothing else can be in it: each file is created, never replaced.
        """
        folders: dict[str, int] = {"": root}  # path within `top` -> open folder

        def folder(within: str) -> int:
            if within not in folders:
                parent = folder(posixpath.dirname(within))
                name = posixpath.basename(within)
                os.mkdir(name, dir_fd=parent)
                folders[within] = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
            return folders[within]

        try:
            for rel, data in files.items():
                _refuse_bad_path(rel)
                within = posixpath.dirname(rel[len(top) + 1 :])
                name = posixpath.basename(rel)
                fd = os.open(name, _CREATE_FLAGS, 0o666, dir_fd=folder(within))
                try:
                    _write_all(fd, data)
                finally:
                    os.close(fd)
        finally:
            for within, fd in folders.items():
                if within:
                    os.close(fd)

    @staticmethod
    def _write_in(folder: int, name: str, data: bytes) -> None:
        temporary = _temporary_name()
        fd = os.open(temporary, _CREATE_FLAGS, 0o666, dir_fd=folder)
        try:
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)
            raise

    def delete(self, rel: str) -> None:
        """Delete the file `rel` (never what a link points to), then the folders it leaves empty."""
        with self._parent(rel) as found:
            if found is None:
                return
            fd, name = found
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=fd)
        parts = rel.split("/")
        for depth in range(len(parts) - 1, 0, -1):
            with self._parent("/".join(parts[:depth])) as found:
                if found is None:
                    return
                try:
                    os.rmdir(found[1], dir_fd=found[0])
                except OSError:  # not empty (or not a folder): keep it and its parents
                    return

    def strays(self, known: set[str]) -> tuple[list[str], bool]:
        """Files and links in OUT that codegen did not generate (bytecode caches aside), following no link, and
        whether that is all of them: the search stops after MAX_LISTED_ENTRIES entries that are not `known`
        files or their folders (bytecode caches included, so that a flood of them is bounded too).
        """
        if not self.root.is_dir():
            return [], True
        folders = _folders_of(known)
        found: list[str] = []
        foreign = 0
        for top, dirs, names, top_fd in os.fwalk(self.root, follow_symlinks=False):
            links = [d for d in dirs if _is_link(d, top_fd)]  # listed, never entered
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and d not in links)
            prefix = Path(top).relative_to(self.root).as_posix()
            inside = "" if prefix == "." else f"{prefix}/"
            for name in sorted(names + links):
                rel = inside + name
                if rel not in known:
                    foreign += 1
                    if not name.endswith(".pyc"):
                        found.append(rel)
            foreign += sum(1 for d in dirs if inside + d not in folders)
            if foreign > MAX_LISTED_ENTRIES:
                return found[:MAX_LISTED_ENTRIES], False
        return found, True

    def manifest(self, diags: Diagnostics) -> dict[str, str]:
        """The files the last build says it generated, with their content hashes; anything invalid in the
        manifest is reported as a warning and ignored, never followed."""
        where = self.where(MANIFEST)
        try:
            data = self.read(MANIFEST, MAX_MANIFEST_BYTES)
        except WriteError as exc:
            diags.warning("manifest", f"{exc}; ignoring it", None)
            return {}
        if data is None:
            return {}
        if len(data) > MAX_MANIFEST_BYTES:
            diags.warning("manifest", f"{where} is too large; ignoring it", None)
            return {}
        try:
            files = json.loads(data.decode("utf-8"))["files"]
            if not isinstance(files, dict):
                raise TypeError
        except (ValueError, KeyError, TypeError, RecursionError):
            diags.warning(
                "manifest", f"{where} is not a codegen manifest; ignoring it", None
            )
            return {}
        entries: dict[str, str] = {}
        for rel, entry in files.items():
            problem = _entry_problem(rel, entry)
            if problem is not None:
                diags.warning(
                    "manifest",
                    f"{where}: ignoring the entry {ascii(rel)}: {problem}",
                    None,
                )
                continue
            entries[rel] = entry["sha256"]
        return entries


def _entry_problem(rel: str, entry: object) -> str | None:
    problem = path_problem(rel)
    if problem is None and rel == MANIFEST:
        problem = "it names the manifest itself"
    sha = entry.get("sha256") if isinstance(entry, dict) else None
    if problem is None and not (isinstance(sha, str) and _HEX_DIGEST.fullmatch(sha)):
        problem = "it has no valid sha256"
    return problem


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    # what OUT holds afterwards, manifest included: path -> (sha256, size) (for the rebuild record)
    files: dict[str, tuple[str, int]] = field(default_factory=dict)


def encode_all(files: Mapping[str, str | bytes]) -> dict[str, bytes]:
    """Every file as UTF-8, before anything is written (a lone surrogate fails the build, not half of it)."""
    return _encode_all(files, {})[0]


# What the last build left in OUT, as the rebuild record vouches for it: path -> (sha256, size).
Vouched = Mapping[str, tuple[str, int]]


def _encode_all(
    files: Mapping[str, str | bytes],
    kept: Vouched,
    before: tuple[bytes, Vouched] | None = None,
) -> tuple[dict[str, bytes], dict[str, str]]:
    """encode_all, and the sha256 of every file, the manifest included (which lists the `kept` files too);
    `before`: the manifest the last build wrote, and the files it lists (vouched for by the record).
    """
    encoded: dict[str, bytes] = {}
    digests: dict[str, str] = {rel: sha for rel, (sha, _) in kept.items()}
    large: list[str] = []
    for rel, text in files.items():
        problem = path_problem(rel)
        if problem is not None or rel == MANIFEST or rel in kept:
            raise WriteError(
                f"refusing to generate {shown(rel)}: {problem or 'reserved name'}"
            )
        try:
            # (bytes: ASCII text a rebuild spliced without decoding it, codegen/incremental.py)
            data = encoded[rel] = (
                text if isinstance(text, bytes) else text.encode("utf-8")
            )
        except UnicodeEncodeError as exc:
            raise WriteError(
                f"cannot write {shown(rel)}: its text is not valid Unicode ({exc.reason} at {exc.start})"
            ) from None
        if len(data) >= _LARGE:
            large.append(rel)
        else:
            digests[rel] = _sha256_hex(data)
    digests.update(zip(large, _in_threads(_sha256_hex, [encoded[r] for r in large])))
    again = _manifest_again(*before, digests) if before is not None else None
    manifest = encoded[MANIFEST] = (again or _manifest(digests)).encode("utf-8")
    digests[MANIFEST] = hashlib.sha256(manifest).hexdigest()
    return encoded, digests


def _manifest_again(
    before: bytes, listed: Vouched, digests: Mapping[str, str]
) -> str | None:
    """`_manifest(digests)` made from `before`, the manifest `_manifest` wrote of the files `listed` (and
    itself), when they are the same files: only the hashes that changed are replaced (an edit of one tool among
    10,000 changes a few of 30,000 entries, which took 20 to 30 ms to write out again). None when the files
    are not the same, or `before` is not as `_manifest` wrote it where a hash is replaced.
    """
    if listed.keys() - {MANIFEST} != digests.keys() or not before.isascii():
        return None
    text = before.decode("ascii")
    if not text.startswith(_MANIFEST_HEAD):
        return None
    pieces, at = [], 0
    changed = [rel for rel in digests if digests[rel] != listed[rel][0]]
    for rel in sorted(changed):  # in the manifest's order
        old = _ascii(listed[rel][0])
        entry = f'\n    {_ascii(rel)}: {{\n      "sha256": '
        start = text.find(entry, at) + len(entry)
        if start < len(entry) or not text.startswith(old, start):
            return None
        pieces += [text[at:start], _ascii(digests[rel])]
        at = start + len(old)
    pieces.append(text[at:])
    return "".join(pieces)


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_output(
    out: Path,
    files: Mapping[str, str | bytes],
    diags: Diagnostics | None = None,
    vouched: Vouched | None = None,
    kept: Vouched | None = None,
    manifest: bytes | None = None,
) -> WriteReport:
    """Make OUT hold exactly `files`, the `kept` files and the manifest: every target and every deletion is
    checked before anything changes, so a refusal leaves OUT untouched. `vouched`: OUT's files as the rebuild
    record vouched for them when this build began (codegen/cache.py), which need not be read again; `kept`:
    some of those, which the build keeps as they are (not in `files`); `manifest`: the manifest's bytes, as
    vouched for (the new one is made from it where it can be).
    """
    diags = diags if diags is not None else Diagnostics()
    vouched, kept = vouched or {}, kept or {}
    if any(vouched.get(rel) != entry for rel, entry in kept.items()):
        raise ValueError("only files vouched for can be kept")
    before = (
        (manifest, vouched) if manifest is not None and MANIFEST in vouched else None
    )
    encoded, digests = _encode_all(files, kept, before)
    folder = OutputFolder(out)
    if (
        MANIFEST in vouched
    ):  # the manifest the last build wrote: the files it lists are those it vouches for
        previous = {rel: sha for rel, (sha, _) in vouched.items() if rel != MANIFEST}
    else:
        previous = folder.manifest(diags)
    report, changes = WriteReport(), {}
    # A file the record vouches for is the same when its hash is, and else one codegen wrote: no need to read
    # it. Every other file is read folder by folder (a first build opens each folder once, not once per file),
    # what a read would raise raised when the loop below comes to that file, as reading them one by one would.
    read = folder.read_each(
        {rel: len(data) for rel, data in encoded.items() if rel not in vouched}
    )
    for rel, data in sorted(encoded.items()):
        have: bytes | None
        if rel in vouched:
            have = data if vouched[rel] == (digests[rel], len(data)) else None
        else:
            found = read[rel]
            if isinstance(found, Exception):
                raise found
            have = found
        if have == data:
            if rel != MANIFEST:
                report.unchanged.append(rel)
            continue
        if have is not None and rel not in previous and rel != MANIFEST:
            raise WriteError(
                f"{folder.where(rel)} exists and was not generated by codegen; move it away first"
            )
        changes[rel] = data
    report.unchanged.extend(kept)
    report.unchanged.sort()
    stale = [
        rel
        for rel in sorted(set(previous) - set(encoded) - set(kept))
        if folder.lstat(rel)
    ]
    for rel in stale:
        have = folder.read(rel, MAX_DIFF_BYTES)
        if have is not None and hashlib.sha256(have).hexdigest() != previous[rel]:
            raise WriteError(
                f"{folder.where(rel)} is no longer generated but was edited since codegen wrote it; "
                "delete or move it yourself"
            )
    written = {rel: data for rel, data in changes.items() if rel != MANIFEST}
    folder.write_many(written)
    report.written.extend(written)
    for rel in stale:
        folder.delete(rel)
        report.deleted.append(rel)
    if (
        MANIFEST in changes
    ):  # last: until it is written, the old one still lists what may be deleted
        folder.write(MANIFEST, changes[MANIFEST])
    sizes = {rel: len(data) for rel, data in encoded.items()}
    sizes.update((rel, size) for rel, (_, size) in kept.items())
    report.files = {rel: (digests[rel], sizes[rel]) for rel in sorted(sizes)}
    return report


def diff_output(
    out: Path, files: Mapping[str, str | bytes], diags: Diagnostics | None = None
) -> list[str]:
    """Unified diffs between OUT and what a build would leave there: changed, missing and stale files and the
    manifest. Links are reported, never followed; files codegen did not generate are errors in `diags`.
    """
    diags = diags if diags is not None else Diagnostics()
    encoded = encode_all(files)
    folder = OutputFolder(out)
    previous = folder.manifest(diags)
    chunks = []
    for rel in sorted(set(encoded) | set(previous)):
        want = encoded.get(rel)
        if want is None and folder.lstat(rel) is None:
            continue
        chunk = _diff_one(folder, rel, want)
        if chunk:
            chunks.append(chunk)
    strays, complete = folder.strays(set(encoded) | set(previous))
    for rel in strays:
        diags.error(
            "stray-file",
            f"{folder.where(rel)} was not generated by codegen; OUT holds only generated files: move it away",
            None,
        )
    if not complete:  # what was not looked at may hold more: the check cannot pass
        diags.error(
            "stray-file",
            f"{out} holds more than {MAX_LISTED_ENTRIES:,} entries codegen did not generate; "
            "--check stopped looking for more",
            None,
        )
    return chunks


def _diff_one(folder: OutputFolder, rel: str, want: bytes | None) -> str:
    name = shown(rel)
    try:
        have = folder.read(rel, MAX_DIFF_BYTES)
    except WriteError as exc:
        return f"--- a/{name}\n+++ b/{name}\n# {exc}\n"
    if have == want:
        return ""
    if have is not None and len(have) > MAX_DIFF_BYTES:
        return f"--- a/{name}\n+++ b/{name}\n# too large to diff: it differs\n"
    lines = difflib.unified_diff(
        _printable_lines(have or b""),
        _printable_lines(want or b""),
        fromfile=f"a/{name}" if have is not None else "/dev/null",
        tofile=f"b/{name}" if want is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _printable_lines(data: bytes) -> list[str]:
    """Lines to print in a diff: control characters from OUT (terminal escapes, carriage returns that hide a
    line in a CI log) are shown escaped."""
    text = _CONTROL.sub(
        lambda m: ascii(m.group())[1:-1], data.decode("utf-8", "replace")
    )
    return text.splitlines(
        keepends=True
    )  # only at "\n": every other line break is escaped


def _temporary_name() -> str:
    return f".codegen-{_TEMPORARY_PREFIX}-{os.getpid()}-{next(_TEMPORARY_NUMBERS)}.tmp"


def _remove_tree(name: str, parent: int) -> None:
    """Remove the folder `name` of the folder `parent` and all in it, following no link (shutil.rmtree takes a
    folder descriptor only from Python 3.11)."""
    fd = os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    try:
        for entry in os.scandir(fd):
            if entry.is_dir(follow_symlinks=False):
                _remove_tree(entry.name, fd)
            else:
                os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _is_link(name: str, folder: int) -> bool:
    return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
