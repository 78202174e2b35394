"""Reading spec files: which files under SPECS are specs (sorted, routed by name), and their text.

The command line is trusted; what is inside the folders it names is not. File names, folder contents and file
bytes are untrusted input, and every problem with them is a diagnostic:

- A folder that cannot be listed is an error (`read`), never silently skipped.
- Symbolic links met while walking a folder are never followed, wherever they point: a link named like a spec
  file is an error (`symlink`), and a link to a folder is skipped (listed with `-v`). So no file outside the trees
  named on the command line is read or quoted, and a walk cannot loop. A path named on the command line may
  itself be a link (the command line is trusted); it is then read, and shown, as its target.
- A spec whose path below its folder is not UTF-8, or holds control or bidirectional-override characters, is an
  error (`file-name`): that path names a generated module and appears in messages. Other files with such names
  are ignored like any non-spec file, and listed with their characters escaped.
- A spec is read only if it is a regular file (`not-a-file` otherwise: a FIFO, a device, a socket), checked with
  `lstat` before it is opened and with `fstat` on what was opened: it is opened with O_NONBLOCK | O_NOFOLLOW, so
  neither a FIFO nor a link swapped in meanwhile can block or redirect the read. Its size is checked before
  reading (`too-large`), and at most MAX_SPEC_BYTES + 1 bytes are ever read (spec_bytes.py).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Collection
from typing import TYPE_CHECKING

from .diagnostics import (
    UNSAFE_CHARACTERS,
    Diagnostics,
    SourceFile,
    SpecError,
    printable,
)
from .frontends import SPEC_SUFFIXES, is_spec, route
from .spec_bytes import UnreadableSpec, read_spec_bytes

if TYPE_CHECKING:  # a no-op build discovers the spec files, and needs no IR
    from .ir import SpecModule

MAX_SPEC_BYTES = 8 * 1024 * 1024
# The status of a spec file that could not be read, to a `$ref` naming it (remotes.py): its own diagnostics
# say why, so the reference is not reported again.
UNREAD = "unread"


_LINK_NOT_FOLLOWED = (
    "the spec is a symbolic link, and links inside a specs folder are not followed "
    "(name the file itself on the command line, or copy it here)"
)
_UNUSABLE_NAME = "the path is not UTF-8 or holds control characters, so it cannot name a module; rename it"


def discover(
    specs: list[Path], diags: Diagnostics, exclude: Path | None = None
) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """Spec files as (path, path relative to the argument it was found under), in sorted order; and ignored files.

    Problems with the folders' contents (unlistable folders, links, unusable names) are recorded in `diags`.
    """
    found, ignored = discover_names(specs, diags, exclude)
    return [(Path(path), Path(rel)) for path, rel in found], [
        Path(path) for path in ignored
    ]


def discover_names(
    specs: list[Path], diags: Diagnostics, exclude: Path | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    """`discover` as the strings `Path.as_posix` gives (a Path per entry was most of a walk's time, which a
    rebuild's scan need not spend)."""
    found: list[tuple[str, str]] = []
    ignored: list[str] = []
    excluded = exclude.resolve() if exclude is not None else None
    for spec in specs:
        if spec.is_dir():
            _walk(spec.as_posix(), excluded, diags, found, ignored)
        elif not is_spec(spec):
            ignored.append(printable(spec.as_posix()))
        elif UNSAFE_CHARACTERS.search(spec.name):
            _report(diags, spec, "file-name", _UNUSABLE_NAME)
        else:  # named on the command line: a link is followed, so it is read (and shown) as its target
            target = Path(os.path.realpath(spec)) if spec.is_symlink() else spec
            found.append((target.as_posix(), spec.name))
    found.sort(key=lambda item: item[1])
    return found, ignored


def _walk(
    root: str,
    excluded: Path | None,
    diags: Diagnostics,
    found: list[tuple[str, str]],
    ignored: list[str],
) -> None:
    """Walk `root` without recursion, folders in sorted order, files of a folder before its subfolders."""
    pending = [(root, "")]  # a folder, and its path below root (with a final slash)
    while pending:
        folder, below = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            _report(
                diags, Path(folder), "read", f"cannot list the folder: {exc.strerror}"
            )
            continue
        # as `Path(folder) / name` prints: no `./` before the names in `.`
        prefix = "" if folder == "." else folder.rstrip("/") + "/"
        subfolders = []
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            path = prefix + name
            try:
                is_link = entry.is_symlink()
                is_folder = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                _report(
                    diags,
                    Path(path),
                    "read",
                    f"cannot inspect the file: {exc.strerror}",
                )
                continue
            if is_folder:
                if excluded is None or Path(path).resolve() != excluded:
                    subfolders.append((path, f"{below}{name}/"))
            else:
                _candidate(path, below + name, is_link, diags, found, ignored)
        pending.extend(reversed(subfolders))


def _candidate(
    path: str,
    rel: str,
    is_link: bool,
    diags: Diagnostics,
    found: list[tuple[str, str]],
    ignored: list[str],
) -> None:
    """Sort one directory entry into found, ignored or a diagnostic; a link is judged by its name alone."""
    spec_like = path.endswith(SPEC_SUFFIXES)
    if is_link and spec_like:
        _report(diags, Path(path), "symlink", _LINK_NOT_FOLLOWED)
    elif is_link or not is_spec(path):
        ignored.append(printable(path))
    elif UNSAFE_CHARACTERS.search(rel):
        _report(diags, Path(path), "file-name", _UNUSABLE_NAME)
    else:
        found.append((path, rel))


def _report(diags: Diagnostics, path: Path, code: str, message: str) -> None:
    """A diagnostic about a file or folder as a whole: its path only, never its content."""
    diags.error(
        code, message, SourceFile(path, path.as_posix(), Path(path.name), "").span(0)
    )


def load_source(path: Path, rel: Path, diags: Diagnostics) -> SourceFile | None:
    display = path.as_posix()
    try:
        data = read_spec_bytes(path, MAX_SPEC_BYTES)
    except UnreadableSpec as problem:
        _report(diags, path, problem.code, problem.message)
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        _report(diags, path, "encoding", f"the file is not UTF-8 (byte {exc.start})")
        return None
    return SourceFile(path, display, rel, text)


@dataclass
class ReadSpecs:
    """Spec files read by their front ends."""

    modules: list[SpecModule] = field(default_factory=list)
    # spec files reported as unreadable: references to them are not reported again
    unread: list[Path] = field(default_factory=list)
    # every file read: (path as shown, path below its root, sha256 of its text), for the rebuild record
    sources: list[tuple[str, str, str]] = field(default_factory=list)
    # Files read as tool files or Brimley definitions that define nothing and hold errors (not a tool, no
    # Brimley type): a JSON Schema document another spec may refer to by its path. Posix path -> the
    # diagnostics its front end gave, reported only if no schema refers to it (`settle`).
    deferred: dict[str, Diagnostics] = field(default_factory=dict)

    def settle(
        self, referenced: Collection[str], diags: Diagnostics
    ) -> list[SpecModule]:
        """The modules, without the deferred files a schema refers to (JSON Schema documents, embedded where
        they are referred to); the others' diagnostics added to `diags`."""
        documents = {path for path in self.deferred if path in referenced}
        for path, own in self.deferred.items():
            if path not in documents:
                diags.extend(own)
        return [m for m in self.modules if m.source.path.as_posix() not in documents]

    def not_schema(self) -> dict[str, str]:
        """Posix path -> why the file may not be read as a JSON Schema document (UNREAD, or a sentence)."""
        why = {
            path.as_posix(): UNREAD
            for path in self.unread
            if path.as_posix() not in self.deferred
        }
        for module in self.modules:
            path = module.source.path.as_posix()
            if path not in self.deferred and not path.endswith(".schema.json"):
                why[path] = (
                    f"{module.source.rel.as_posix()} is a spec of its own (tools, agents or Brimley "
                    "definitions), not a JSON Schema document"
                )
        return why


def read_specs(found: list[tuple[Path, Path]], diags: Diagnostics) -> ReadSpecs:
    """Each spec file `found` read by its front end, in order."""
    read = ReadSpecs()
    for path, rel in found:
        source = load_source(path, rel, diags)
        front_end = route(path)
        if front_end is None:
            continue
        if source is None:
            read.unread.append(path)
            continue
        digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
        read.sources.append((source.display, rel.as_posix(), digest))
        # what a schema may refer to as a document: its diagnostics wait until that is known
        own = Diagnostics() if _maybe_document(path.name) else diags
        module: SpecModule | None = None
        try:
            module = front_end(source, own)
        except SpecError:
            read.unread.append(path)
        except RecursionError:
            read.unread.append(path)
            own.error(
                "too-deep", "the spec is nested too deeply to read", source.span(0)
            )
        if module is not None:
            read.modules.append(module)
        if own is diags:
            continue
        if own.has_errors and (module is None or _defines_nothing(module)):
            read.deferred[path.as_posix()] = own
        else:
            diags.extend(own)
    return read


def _maybe_document(name: str) -> bool:
    """Whether a file routed as a tool file or a Brimley definition by its name may be a JSON Schema document
    in fact, named by a spec's `$ref` (an entity's `.schema.json` is one anyway)."""
    return name.endswith((".json", ".yaml", ".yml")) and not name.endswith(
        ".schema.json"
    )


def _defines_nothing(module: SpecModule) -> bool:
    return not (
        module.tools
        or module.entities
        or module.agents
        or module.resources
        or module.dropped
    )
