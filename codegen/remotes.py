"""Documents that `$ref`s name by URL, read from local folders the user maps URL prefixes to; never the network.

    [tool.codegen]
    ref-map = { "https://example.com/schemas/" = "schemas/" }   # or: --ref-map https://example.com/schemas/=schemas

The map is trusted (it comes from the command line or pyproject.toml); the URLs in specs are not. A reference is
first resolved as a URI (RFC 3986 removes its literal `.` and `..` segments, so one that climbs above a prefix no
longer matches it); the rest after the longest matching prefix becomes a path below that prefix's folder only
when it is plain path segments: no `.` or `..` left once percent-decoded, no encoded `/`, no empty segment, no
backslash, no NUL, no query. Anything else is refused, never normalised. A folder reached through a link that
leads out of the mapped folder is refused too. The file is read as a spec is
(`spec_bytes`: a regular file, links never followed, size-limited) and parsed by the JSON reader that keeps
positions, so its text gets the diagnostics, depth and number limits of a spec.

A relative `$ref` from a spec file to another file of the specs tree (`"$ref": "child.json"`, `"sub/c.yaml#/x"`)
is read here too, by the URI `SpecTree` gives each spec file: only a file that discovery found (a regular file
with a spec's name, no link, no hidden name) inside the same folder named on the command line can be named, so
such a reference cannot leave the tree, and the file is one of the inputs the rebuild record hashes. Such a file
is read as a JSON Schema document (JSON, or YAML by its name) unless it is a spec of its own (a tool file, a
Brimley definition, gram): a reference to that is an error naming it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from .diagnostics import Diagnostics, SourceFile, SpecError
from .ir import DELETE, JObject
from .frontends.json.dialects import dialect_named, lower_document
from .frontends.json.parse import parse_json
from .sources import MAX_SPEC_BYTES, UNREAD
from .spec_bytes import UnreadableSpec, read_spec_bytes

# Bounds for what one compile reads through the map, whatever the documents refer to.
MAX_REMOTE_DOCUMENTS = 1000
MAX_REMOTE_BYTES = 64 * 1024 * 1024

HOW_TO_MAP = (
    "map its URL prefix to a local folder: --ref-map URL-PREFIX=FOLDER on the command line, or "
    'ref-map = {"URL-PREFIX" = "FOLDER"} in [tool.codegen]; codegen never fetches over the network'
)


# Spec files are named `x-codegen-spec://<number of the root folder>/<path below it>`: a scheme no real document
# has, and a hierarchy, so a reference relative to one resolves as relative paths do.
SPEC_SCHEME = "x-codegen-spec"
SPEC_PREFIX = SPEC_SCHEME + "://"


@dataclass(frozen=True)
class SpecTree:
    """The spec files of one compile, by URI, and what each one is to a `$ref`."""

    # posix path of a spec file as discovered -> its URI
    uris: dict[str, str] = field(default_factory=dict)
    # (root number, path below the root) -> (the file, None when it may be read as a JSON Schema document, else
    # why not: UNREAD, or the sentence to report at the `$ref`)
    files: dict[tuple[str, str], tuple[Path, str | None]] = field(default_factory=dict)

    def uri_of(self, path: Path) -> str | None:
        return self.uris.get(path.as_posix())

    def locate(self, url: str) -> tuple[Path, str | None] | str:
        """The spec file `url` (a SPEC_PREFIX URI without fragment) names, or why it names none."""
        root, _, rest = url[len(SPEC_PREFIX) :].partition("/")
        segments = [unquote(segment) for segment in rest.split("/")]
        if "?" in rest or any(
            segment in ("", ".", "..") or "\\" in segment or "/" in segment
            for segment in segments
        ):
            return f"{'/'.join(segments)!r} does not name a file of the specs tree"
        found = self.files.get((root, "/".join(segments)))
        if found is None:
            return (
                f"no spec file {'/'.join(segments)} is in the specs tree (a referenced document must be a "
                ".json, .yaml or .yml file inside the folder the spec was found under, not a link or hidden)"
            )
        return found


def spec_tree(
    found: list[tuple[Path, Path]], not_schema: Mapping[str, str]
) -> SpecTree:
    """The tree of the spec files `found` (path, path below its root); `not_schema`: posix path -> why that
    file is no JSON Schema document (UNREAD, or a sentence)."""
    tree = SpecTree()
    roots: dict[str, str] = {}
    for path, rel in found:
        parts = rel.parts
        root = path.parents[len(parts) - 1].as_posix() if parts else path.as_posix()
        number = roots.setdefault(root, str(len(roots)))
        posix = path.as_posix()
        below = "/".join(parts)
        tree.uris[posix] = f"{SPEC_PREFIX}{number}/{quote('/'.join(parts))}"
        tree.files[(number, below)] = (path, not_schema.get(posix))
    return tree


@dataclass(frozen=True)
class Fetched:
    """A mapped document: its parsed schema (None when its text was reported as broken), or why it has none."""

    schema: Any = None
    # a reason to report at the `$ref` (unmapped, escaping, missing)
    problem: str | None = None


@dataclass
class RemoteDocuments:
    """Reads mapped documents once per compile; problems inside a document are reported once, at the file."""

    ref_map: Mapping[str, Path]
    diags: Diagnostics
    tree: SpecTree | None = None
    # posix paths of the spec files read as JSON Schema documents
    accepted: set[str] = field(default_factory=set)
    _cache: dict[str, Fetched] = field(default_factory=dict)  # as read
    _lowered: dict[tuple[str, str | None], Fetched] = field(default_factory=dict)
    _bytes: int = 0
    _spec_uris: dict[str, str] | None = None  # real path of each spec file -> its URI

    def fetch(self, url: str, dialect: str | None = None) -> Fetched:
        """The document at `url`, in 2020-12: read in the dialect its `$schema` names, or else in `dialect`
        (the `$schema` of the document referring to it; 2020-12 when None), as a validator reads it.
        """
        if url not in self._cache:
            self._cache[url] = self._load(url)
        key = (url, dialect)
        if key not in self._lowered:
            read = self._cache[url]
            if read.schema is not None:
                schema = lower_document(read.schema, self.diags, dialect_named(dialect))
                if isinstance(schema, JObject) and "$schema" in schema:
                    # lowered: embedded under another document's `$defs`, it must not name an old dialect
                    schema = schema.replace(**{"$schema": DELETE})
                read = Fetched(schema)
            self._lowered[key] = read
        return self._lowered[key]

    def _load(self, url: str) -> Fetched:
        if url.startswith(SPEC_PREFIX):
            return self._load_spec(url)
        located = local_path(url, self.ref_map)
        if isinstance(located, str):
            return Fetched(problem=located)
        located = _with_json_suffix(located)
        if len(self._cache) >= MAX_REMOTE_DOCUMENTS:
            return Fetched(
                problem=f"more than {MAX_REMOTE_DOCUMENTS} documents are referenced"
            )
        if not _inside(located.parent, self.ref_map):
            shown = located.as_posix()
            return Fetched(
                problem=f"it maps to {shown}, through a link out of the mapped folder"
            )
        spec = self._spec_at(located)
        if spec is not None:
            # a spec file reached through the map (a root `$id` URL mapped onto the specs tree) is read as one:
            # accepted as a document, not then compiled again as a tool file, or refused if it is a spec of its own
            return self._load_spec(spec)
        try:
            data = read_spec_bytes(located, MAX_SPEC_BYTES)
        except UnreadableSpec as problem:
            shown = located.as_posix()
            return Fetched(problem=f"it maps to {shown}, which {_which(problem)}")
        self._bytes += len(data)
        if self._bytes > MAX_REMOTE_BYTES:
            limit = MAX_REMOTE_BYTES // (1024 * 1024)
            return Fetched(problem=f"the referenced documents exceed {limit} MiB")
        return self._parse(located, data)

    def _spec_at(self, located: Path) -> str | None:
        """The URI of the spec file at `located` (links resolved), if it is one of the specs tree."""
        if self.tree is None:
            return None
        if self._spec_uris is None:
            self._spec_uris = {
                os.path.realpath(path): uri for path, uri in self.tree.uris.items()
            }
        return self._spec_uris.get(os.path.realpath(located))

    def _load_spec(self, url: str) -> Fetched:
        """A spec file read as a JSON Schema document (the specs' own limits; it is a spec, so not counted
        against the map's)."""
        located = (
            self.tree.locate(url) if self.tree is not None else "no specs tree is read"
        )
        if isinstance(located, str):
            return Fetched(problem=located)
        path, status = located
        if status == UNREAD:
            return Fetched()
        if status is not None:
            return Fetched(problem=status)
        try:
            data = read_spec_bytes(path, MAX_SPEC_BYTES)
        except UnreadableSpec as problem:
            return Fetched(problem=f"{path.as_posix()} {_which(problem)}")
        fetched = self._parse(path, data, Path(_below_root(url)))
        if fetched.schema is not None:
            self.accepted.add(path.as_posix())
        return fetched

    def _parse(self, located: Path, data: bytes, rel: Path | None = None) -> Fetched:
        """The document in `data`, read from `located` (`rel`: its path below its root folder, if a spec):
        YAML by its name, else JSON (None after a diagnostic)."""
        rel = rel or Path(located.name)
        source = SourceFile(located, located.as_posix(), rel, "")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.diags.error(
                "encoding", f"the file is not UTF-8 (byte {exc.start})", source.span(0)
            )
            return Fetched()
        source = SourceFile(located, located.as_posix(), rel, text)
        try:
            if located.name.endswith((".yaml", ".yml")):
                from .frontends.brimley.safe_yaml import load_yaml

                return Fetched(load_yaml(source, text, 0, self.diags))
            return Fetched(parse_json(source, self.diags))
        except SpecError:
            return Fetched()
        except RecursionError:
            self.diags.error(
                "too-deep", "the document is nested too deeply to read", source.span(0)
            )
            return Fetched()


def _below_root(url: str) -> str:
    """A spec file's path below its root folder, from its URI."""
    return unquote(url[len(SPEC_PREFIX) :].partition("/")[2])


def local_path(url: str, ref_map: Mapping[str, Path]) -> Path | str:
    """The file a remote URL (without fragment) maps to, or why it maps to none."""
    prefixes = [p for p in ref_map if url.startswith(p)]
    if not prefixes:
        return f"{url!r} is not mapped to a local folder; {HOW_TO_MAP}"
    prefix = max(prefixes, key=len)
    rest = url[len(prefix) :]
    if "?" in rest:
        return f"{url!r} has a query, which no local file can answer"
    segments = [unquote(segment) for segment in rest.split("/")]
    if not rest or any(
        segment in ("", ".", "..")
        or "\\" in segment
        or "\x00" in segment
        or "/" in segment
        for segment in segments
    ):
        return (
            f"{url!r} does not name a file inside the folder mapped to {prefix!r} "
            "(empty, '.' or '..' segments, also percent-encoded, are refused)"
        )
    return Path(ref_map[prefix], *segments)


def _with_json_suffix(located: Path) -> Path:
    """A URL naming a document without its extension (`https://json.schemastore.org/grunt-task`, as schema hosts
    serve them) maps to the `.json` file of that name in the same folder, when no file has the name itself.
    """
    if "." in located.name or os.path.lexists(located):
        return located
    candidate = located.with_name(located.name + ".json")
    return candidate if candidate.is_file() else located


def _inside(folder: Path, ref_map: Mapping[str, Path]) -> bool:
    """Whether `folder`, its links resolved, is still inside a mapped folder (a link inside one may lead out)."""
    real = Path(os.path.realpath(folder))
    roots = (Path(os.path.realpath(root)) for root in ref_map.values())
    return any(real == root or root in real.parents for root in roots)


def _which(problem: UnreadableSpec) -> str:
    if problem.code == "read" and "No such file" in problem.message:
        return "does not exist"
    return f"cannot be read: {problem.message}"
