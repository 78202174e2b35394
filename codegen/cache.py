"""The rebuild record: codegen's own state, kept outside OUT, that lets a build with nothing to do skip the compile.

A record lives in codegen's cache folder (`$CODEGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/codegen`, else
`~/.cache/codegen`), one file per OUT named by a hash of OUT's absolute path (never by anything a spec says). It
holds the digest of every input of the last successful build (each spec file's path and bytes, the settings,
codegen's version and a digest of its own source, templates and grammars) and the digest of every file that
build left in OUT. A build whose inputs hash to the recorded digest, into an OUT whose files (looked at through
the writer's confinement: no link followed) all still hold what the record says, has nothing to do; anything
else compiles in full. OUT is never trusted: its manifest plays no part here, and a file edited there (with or
without its manifest entry) no longer matches the record. A file is vouched for by its stamp (device, inode,
size, modification and change times, as git's index does) when the record has one, else by reading and hashing
it (`stamps` says which files get one). Spec files are vouched for alike: a spec file whose stamp is the
recorded one is not read again (`scan` says which get one). `--check` never reads the record.

A cache that is missing, unreadable, corrupt or unwritable is ignored: the build compiles in full, silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .diagnostics import Diagnostics, printable
from .quick import settled, stamp_text
from .resources import data_dir
from .sources import MAX_SPEC_BYTES, discover_names
from .spec_bytes import UnreadableSpec, read_spec_bytes
from .writer import MANIFEST, OutputFolder, WriteError

FORMAT = 7
MAX_RECORD_BYTES = 256 * 1024 * 1024
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
# Libraries whose behaviour shapes the output (templates, parsing, YAML).
_LIBRARIES = ("jinja2", "lark", "yaml")


def cache_root() -> Path | None:
    """codegen's cache folder, from the environment only (None if there is no home to put it in)."""
    explicit = os.environ.get("CODEGEN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "codegen"
    try:
        return Path.home() / ".cache" / "codegen"
    except RuntimeError:
        return None


def record_path(out: Path) -> Path | None:
    """Where OUT's record is kept: a hash of OUT's absolute path under the cache folder."""
    root = cache_root()
    if root is None:
        return None
    key = hashlib.sha256(os.fsencode(Path(out).resolve())).hexdigest()
    return root / "rebuild" / f"{key}.json"


@lru_cache(maxsize=None)
def codegen_digest() -> str:
    """codegen's version, the Python running it, the libraries it renders with, and its own source, the runtime
    library's, its templates and grammars: any change to these invalidates every record. codegen's files are trusted (they
    are not input), so each counts by its stamp (see `_stamp`), as Python's bytecode cache counts a module's
    source by its size and time: an edit moves the change time even when it keeps the size and modification
    time, and a reinstall makes new files.
    """
    h = hashlib.sha256()
    h.update(f"{__version__}\0{sys.version}\0".encode())
    for (
        name
    ) in (
        _LIBRARIES
    ):  # where each is installed and when (an upgrade rewrites it), without importing it
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if origin:
            info = os.stat(origin)
            h.update(f"{name}\0{origin}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    package = Path(__file__).resolve().parent
    # The runtime library is a distribution of its own, but the compiler runs it too (exports, the validator of
    # defaults): its source counts as codegen's.
    runtime = importlib.util.find_spec("toolspec_runtime")
    assert runtime is not None and runtime.origin is not None
    roots = (Path(runtime.origin).parent, data_dir("templates"), data_dir("grammars"))
    for root in (package, *roots):
        for rel, info in _files_under(str(root)):
            h.update(f"{rel}\0{_stamp(info)}\0".encode())
    return h.hexdigest()


def codegen_paths() -> list[str]:
    """Every file and folder `codegen_digest` looks at (by absolute path), for `quick.py`."""
    found = []
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            found.append(spec.origin)
    runtime = importlib.util.find_spec("toolspec_runtime")
    assert runtime is not None and runtime.origin is not None
    for root in (Path(__file__).resolve().parent, Path(runtime.origin).parent):
        found += paths_under(str(root))
    for name in ("templates", "grammars"):
        found += paths_under(str(data_dir(name)))
    return found


def paths_under(root: str, files: bool = True) -> list[str]:
    """`root` and every folder (and file, unless not `files`) under it, bytecode caches aside (not following
    links below it)."""
    found = [root]
    for folder, folders, names in os.walk(root):
        folders[:] = [name for name in folders if name != "__pycache__"]
        found += [os.path.join(folder, name) for name in folders]
        if files:
            found += [os.path.join(folder, name) for name in names]
    return found


def vouched_stamps(
    sources: Iterable[Source],
    spec_stamps: Mapping[str, SpecStamp],
    files: Mapping[str, tuple[str, int]],
    stamped: Mapping[str, str],
    out: Path,
) -> dict[str, str | None] | None:
    """The spec files `sources` and OUT's `files` (sha256, size) of a build or a no-op that just checked them,
    by absolute path, as `quick.py` checks them: by their stamp where one vouches for them (`spec_stamps`,
    `stamped`) or they settled before this process started, else by the hash of their bytes (`=sha256:size`:
    such as the manifest a build writes last, or a spec file read this second). None when one is not there
    or no regular file.

    The stamps given are what this command saw (`scan`, `vouch`, `stamps`): each stands as it is, without a
    second look (40,000 `lstat`s for 10,000 tools). A file written since has another stamp (a new inode), and
    a change by anyone else moves its change time on, which the next check (`quick.py`) sees, as it would one
    made just after this looked."""
    found: dict[str, str | None] = {}
    paths: list[tuple[str, str]] = []
    # (string joins: os.path.join and abspath for each of 20,000 files were most of this; a spec file's name
    # is never '.' or '..', so only its folder needs making absolute)
    folders: dict[str, str] = {}
    for display, _, sha in sources:
        folder, _, name = display.rpartition("/")
        absolute = folders.get(folder)
        if absolute is None:
            absolute = folders[folder] = os.path.abspath(folder or ".").rstrip("/")
        path = f"{absolute}/{name}"
        entry = spec_stamps.get(display)
        if entry is not None:
            found[path] = entry[0]
        else:
            paths.append((path, sha))
    root = os.path.abspath(out)
    for rel, (sha, _) in files.items():
        path = f"{root}/{rel}"
        stamp = stamped.get(rel)
        if stamp is not None:
            found[path] = stamp
        else:
            paths.append((path, sha))
    for path, sha in paths:
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if settled(info):
            found[path] = _stamp(info)
        elif stat.S_ISREG(info.st_mode):
            found[path] = f"={sha}:{info.st_size}"
        else:
            return None
    return found


def _files_under(root: str, rel: str = "") -> list[tuple[str, os.stat_result]]:
    """(path relative to `root`, with `/`; its stat) of every file under `root` but bytecode caches, in the
    order of the relative paths (os.scandir, not pathlib: this runs on every no-op rebuild).
    """
    found: list[tuple[str, os.stat_result]] = []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.name == "__pycache__":
                continue
            name = f"{rel}{entry.name}"
            if entry.is_dir(follow_symlinks=True):
                found.extend(_files_under(entry.path, name + "/"))
            elif entry.is_file(follow_symlinks=True):
                found.append((name, entry.stat(follow_symlinks=True)))
    return sorted(found)


@dataclass(frozen=True)
class Settings:
    """Everything besides the spec files that decides what a build writes (and prints)."""

    specs: tuple[str, ...]
    out: str
    emit: tuple[str, ...]
    strict: bool
    prefixes: tuple[tuple[str, str], ...]
    skip_refused: str | None = (
        None  # a build leaving refused units out writes other files
    )

    @classmethod
    def of(
        cls,
        specs: Iterable[Path],
        out: Path,
        emit: Iterable[str],
        strict: bool,
        prefixes: Mapping[Path, str],
        skip_refused: str | None = None,
    ) -> Settings:
        return cls(
            tuple(os.fsdecode(p) for p in specs),
            os.fsdecode(out),
            tuple(emit),
            strict,
            tuple(sorted((os.fsdecode(p), v) for p, v in prefixes.items())),
            skip_refused,
        )


Source = tuple[
    str, str, str
]  # (path as shown, path below its spec root, sha256 of its bytes)
SpecStamp = list[str]  # a spec file's stamp (`_stamp`) and the sha256 of its bytes


def input_digest(settings: Settings, sources: Iterable[Source] | None) -> str:
    """The digest of every input of a build; with `sources` None, of everything but the spec files."""
    document = {
        "codegen": codegen_digest(),
        "cwd": os.fsdecode(os.getcwd()),
        "settings": [
            settings.specs,
            settings.out,
            settings.emit,
            settings.strict,
            settings.prefixes,
            settings.skip_refused,
        ],
        "sources": list(sources) if sources is not None else None,
    }
    text = json.dumps(document, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def base_digest(settings: Settings) -> str:
    """The digest of a build's inputs but the spec files: a record made under another one is of no use."""
    return input_digest(settings, None)


def scan(
    specs: list[Path], out: Path, known: Mapping[str, SpecStamp] | None = None
) -> tuple[list[Source], list[str], list[str], dict[str, SpecStamp]] | None:
    """The spec files a compile would read, with the hashes of their bytes (read as the compile reads them),
    the files read and ignored, and the spec files' stamps for the next scan; None when discovery or a read
    reports any problem. A file whose stamp is its `known` one is not read: its recorded hash stands.

    A stamp vouches for a file's bytes only if any later change moves it on. A change sets the change time to
    the file system's clock then, so a file whose change time is before the newest among the spec files on its
    device, all looked at before any is read, has one: the clock had passed it before the read, and a change
    after the read cannot leave the change time as it was. The newest files ("racy" in git's words: usually
    the one just edited) get none, and are read by the next scan too.
    """
    diags = Diagnostics()
    found, ignored = discover_names(specs, diags, out)
    if len(diags):
        return None
    known = known or {}
    try:
        infos = [os.lstat(path) for path, _ in found]
    except OSError:
        return None  # reading it will say what is wrong
    newest: dict[int, int] = {}
    for info in infos:
        newest[info.st_dev] = max(newest.get(info.st_dev, 0), info.st_ctime_ns)
    sources, stamps = [], {}
    for (display, rel), info in zip(found, infos):
        stamp = _stamp(info)
        entry = known.get(display)
        if entry is not None and stat.S_ISREG(info.st_mode) and entry[0] == stamp:
            sha = entry[1]
        else:
            try:
                data = read_spec_bytes(Path(display), MAX_SPEC_BYTES)
            except UnreadableSpec:
                return None
            sha = hashlib.sha256(data).hexdigest()
        if stat.S_ISREG(info.st_mode) and info.st_ctime_ns < newest[info.st_dev]:
            stamps[display] = [stamp, sha]
        sources.append((display, rel, sha))
    return sources, [s[0] for s in sources], ignored, stamps


def settled_stamps(sources: Iterable[Source]) -> dict[str, SpecStamp]:
    """Stamps of the spec files a build read without a scan before it (a first build), for the next scan:
    those whose change time is a second before this command began (`quick.settled`), whose bytes are then
    the ones it read. Else the first edit after a first build would read every spec file again.
    """
    found: dict[str, SpecStamp] = {}
    for display, _, sha in sources:
        try:
            info = os.lstat(display)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and settled(info):
            found[display] = [_stamp(info), sha]
    return found


@dataclass
class Record:
    inputs: str  # input_digest of the build
    files: dict[
        str, tuple[str, int]
    ]  # every file the build left in OUT (manifest included): sha256, size
    tools: int = 0
    warnings: int = 0
    folded: list[str] = field(default_factory=list)  # the diagnostics as printed
    every: list[str] = field(default_factory=list)  # ... and with -v (nothing folded)
    # For a rebuild after an edit (codegen/incremental.py): base_digest of the build, and what each spec file's
    # compile left (read defensively there: anything unexpected only means a full compile).
    base: str = ""
    parts: Any = None
    # Files of OUT whose content the next build may take on their stat alone (see `stamps`): path -> stamp.
    stamps: dict[str, str] = field(default_factory=dict)
    # Spec files alike (see `scan`): path as shown -> stamp and the sha256 of its bytes.
    spec_stamps: dict[str, SpecStamp] = field(default_factory=dict)
    # `parts` as the record keeps it: JSON text on a line of its own after the record's, parsed only by an
    # edit rebuild (`parts_document`), since it is most of the record and a no-op does not need it (a string
    # within the record's JSON took a tenth of reading and writing it, escaped)
    parts_json: bytes = b"null"
    # the sha256 of that text: an edit rebuild takes what it reads of it as written, and need not read the
    # whole of it to know that
    parts_sha: str = ""

    def to_json(self) -> bytes:
        """The record's JSON text, a line feed and its parts' (JSON text holds no line feed but escaped)."""
        if self.parts is None:
            parts, parts_sha = self.parts_json, self.parts_sha
        else:
            parts = _dumps(self.parts)
            parts_sha = _sha256(parts)
        document = {
            "format": FORMAT,
            "inputs": self.inputs,
            "files": {rel: list(entry) for rel, entry in self.files.items()},
            "tools": self.tools,
            "warnings": self.warnings,
            "folded": self.folded,
            "every": self.every,
            "base": self.base,
            "parts_sha": parts_sha,
            "stamps": self.stamps,
            "spec_stamps": self.spec_stamps,
        }
        return b"%s\n%s" % (_dumps(document), parts)

    @classmethod
    def from_json(cls, data: bytes) -> Record | None:
        head, _, parts = data.partition(b"\n")
        try:
            doc = _loads(head)
            if doc["format"] != FORMAT:
                return None
            files = {
                rel: (sha, size)
                for rel, (sha, size) in doc["files"].items()
                if isinstance(sha, str) and type(size) is int and size >= 0
            }
            if len(files) != len(doc["files"]):
                return None
            # A stamp of OUT only ever vouches for a file whose lstat equals it, so one that is not a stamp
            # vouches for nothing: its numbers need not be checked one by one (they were a no-op's most of
            # reading the record). A spec file's stamp also carries the hash that stands for the file's bytes.
            stamps = doc["stamps"]
            if type(stamps) is not dict:
                return None
            spec_stamps = {
                path: entry
                for path, entry in doc["spec_stamps"].items()
                if type(entry) is list
                and len(entry) == 2
                and type(entry[0]) is str
                and type(entry[1]) is str
            }
            if len(spec_stamps) != len(doc["spec_stamps"]):
                return None
            record = cls(
                doc["inputs"],
                files,
                doc["tools"],
                doc["warnings"],
                doc["folded"],
                doc["every"],
                doc["base"],
                None,
                stamps,
                spec_stamps,
                parts,
                doc["parts_sha"],
            )
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        lines_ok = all(isinstance(line, str) for line in record.folded + record.every)
        counts_ok = type(record.tools) is int and type(record.warnings) is int
        digests_ok = all(
            type(text) is str
            for text in (
                record.inputs,
                record.base,
                record.parts_sha,
            )
        )
        if not (digests_ok and lines_ok and counts_ok):
            return None
        return record

    def parts_document(self) -> Any:
        """What each spec file's compile left (codegen/incremental.py reads it defensively); None if unreadable."""
        if self.parts is None:
            try:
                if _sha256(self.parts_json) != self.parts_sha:
                    return None  # damaged: not as the build that recorded it wrote it
                self.parts = _loads(self.parts_json)
            except (ValueError, RecursionError):
                return None
        return self.parts

    def lines(self, verbose: bool) -> list[str]:
        """The recorded diagnostics, escaped again for the terminal (the record is data, never output)."""
        chosen = self.every if verbose else self.folded
        return [printable(line) for text in chosen for line in text.split("\n")]


def load(out: Path) -> Record | None:
    """OUT's record, or None if there is none or it cannot be read as one."""
    path = record_path(out)
    if path is None:
        return None
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_RECORD_BYTES:
        return None
    return Record.from_json(data)


def _dumps(document: Any) -> bytes:
    """JSON text of a record or its parts. orjson: json.dumps took 50 ms of an edit rebuild of 10,000 tools for
    the record. It refuses what JSON text cannot hold as UTF-8 (a lone surrogate), which json escapes.
    """
    try:
        return orjson.dumps(document)
    except orjson.JSONEncodeError:
        return json.dumps(document, separators=(",", ":")).encode("ascii")


def _loads(data: bytes | str) -> Any:
    """What `_dumps` wrote. orjson reads a record in two thirds of json's time (with the cyclic collector off,
    as codegen runs); json reads what orjson refuses (a lone surrogate's escape)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


# What a file's stat must still say for the record to vouch for its content without reading it: its mode,
# device, inode, size and times, as `quick.py` takes them (text: a record's 40,000 stamps read and compared as
# one string each, and carried to the no-op's record as they are). The change time cannot be set from user
# space: writing, renaming or linking a file moves it on (as git's index relies on).
_stamp = stamp_text


def _regular_stamp(info: os.stat_result) -> str | None:
    """The stamp of a regular file, None of anything else (`vouch` takes no other)."""
    return _stamp(info) if stat.S_ISREG(info.st_mode) else None


def stamps(
    out: Path,
    files: Mapping[str, tuple[str, int]],
    written: Iterable[str] = (),
    previous: Previous | None = None,
) -> dict[str, str]:
    """The stamps of the files a build just left in OUT (looked at without following links), for the record;
    the stamps the build began with (`previous`) stay true of the files it did not write (`written`).

    A file changed within the same tick of the file system's clock as it was stamped would keep its stamp
    ("racy" in git's words). So only files last changed before the manifest, which a build writes last, get
    one: any change after that moves the change time to the manifest's or later. The manifest itself, and
    every other file, is read and hashed by the next build.
    """
    rewritten = set(written)
    began = previous.out.stamped if previous is not None else {}
    still = {
        rel: stamp
        for rel, stamp in began.items()
        if rel in files and rel not in rewritten
    }
    try:
        found = OutputFolder(out).lstat_many([rel for rel in files if rel not in still])
    except (WriteError, OSError, ValueError):
        return {}
    manifest = found.get(MANIFEST)
    if manifest is None:
        return {}
    made = {
        rel: _stamp(info)
        for rel, info in found.items()
        if info is not None
        and stat.S_ISREG(info.st_mode)
        and info.st_size == files[rel][1]
        and info.st_ctime_ns < manifest.st_ctime_ns
    }
    return dict(sorted({**still, **made}.items()))


@dataclass
class OutFiles:
    """OUT's files as the last build left them (path -> sha256, size), vouched for by the record: each by its
    stamp, or read and hashed (`read`: those bytes)."""

    root: Path
    files: dict[str, tuple[str, int]]
    read: dict[str, bytes]
    # those vouched for by their stamp, as `vouch` saw them (`vouched_stamps` carries them on)
    stamped: dict[str, str]

    def bytes_of(self, rel: str) -> bytes:
        """The bytes of one of the files, read again if need be (through the writer's confinement) and
        checked against the record, by its stamp (still the same once read) or its hash; ValueError if it
        no longer holds them."""
        data = self.read.get(rel)
        if data is None:
            sha, size = self.files[rel]
            found = OutputFolder(self.root).read_stat(rel, size)
            if found is None:
                raise ValueError(f"{rel} changed during the build")
            data, info = found
            stamp = self.stamped.get(rel)
            if (stamp is None or _stamp(info) != stamp) and not _holds(data, sha, size):
                raise ValueError(f"{rel} changed during the build")
            self.read[rel] = data
        return data


def _holds(data: bytes | None, sha: str, size: int) -> bool:
    """Whether `data` are the bytes the record says a file has."""
    return data is not None and len(data) == size and _sha256(data) == sha


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def vouch(out: Path, record: Record) -> OutFiles | None:
    """OUT's files when it holds every file the record lists as recorded (read without following links),
    each checked by its stamp where it has one, else by its hash; None otherwise."""
    try:
        folder = OutputFolder(out)
        found = folder.stat_many(list(record.files), _regular_stamp)
        unstamped: dict[str, int] = {}
        stamped: dict[str, str] = {}
        for rel, (_, size) in record.files.items():
            now = found[rel]
            if now is None:  # missing, or no regular file
                return None
            if record.stamps.get(rel) == now:
                stamped[rel] = now
            else:
                unstamped[rel] = size
        read = folder.read_many(unstamped)
        for rel, size in unstamped.items():
            if not _holds(read[rel], record.files[rel][0], size):
                return None
    except (WriteError, OSError, ValueError):
        return None
    contents = {rel: data for rel, data in read.items() if data is not None}
    return OutFiles(out, dict(record.files), contents, stamped)


@dataclass
class Previous:
    """The last build into OUT, as far as it can be trusted: its record, and OUT's files as that build left
    them (checked against the record); with the spec files a build would read now."""

    record: Record
    out: OutFiles
    sources: list[Source]
    read: list[str]
    ignored: list[str]
    inputs: str  # input_digest of a build now
    # the spec files' stamps for the next record (`scan`)
    spec_stamps: dict[str, SpecStamp]

    @property
    def unchanged(self) -> bool:
        """Whether the build would change nothing."""
        return self.record.inputs == self.inputs


def previous_build(settings: Settings, specs: list[Path], out: Path) -> Previous | None:
    """The last build into OUT when it was made with the same settings and codegen and OUT still holds what
    it wrote; None otherwise (also when anything about the cache fails: it is an optimisation, never a reason
    to stop)."""
    try:
        record = load(out)
        if record is None or record.base != base_digest(settings):
            return None
        scanned = scan(specs, out, record.spec_stamps)
        if scanned is None:
            return None
        sources, read, ignored, spec_stamps = scanned
        contents = vouch(out, record)
        if contents is None:
            return None
        inputs = input_digest(settings, sources)
    except Exception:  # noqa: BLE001  (a broken cache only costs a full compile)
        return None
    return Previous(record, contents, sources, read, ignored, inputs, spec_stamps)


def up_to_date(
    settings: Settings, specs: list[Path], out: Path
) -> tuple[Record, list[str], list[str]] | None:
    """The record, and the files read and ignored, when a build would change nothing; None otherwise."""
    previous = previous_build(settings, specs, out)
    if previous is None or not previous.unchanged:
        return None
    return previous.record, previous.read, previous.ignored


def store(out: Path, record: Record) -> None:
    """Write OUT's record atomically; any failure leaves the cache as it was (or without this record)."""
    try:
        path = record_path(out)
    except Exception:  # noqa: BLE001
        return
    if path is None:
        return
    temporary = path.with_name(f".{path.stem}-{secrets.token_hex(8)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary.write_bytes(record.to_json())
        os.replace(temporary, path)
    except (
        Exception
    ):  # noqa: BLE001  (an unwritable cache only costs the next build a full compile)
        with contextlib.suppress(OSError):
            temporary.unlink()
