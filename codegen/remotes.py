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
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .diagnostics import Diagnostics, SourceFile, SpecError
from .ir import DELETE, JObject
from .frontends.json.dialects import dialect_named, lower_document
from .frontends.json.parse import parse_json
from .sources import MAX_SPEC_BYTES
from .spec_bytes import UnreadableSpec, read_spec_bytes

# Bounds for what one compile reads through the map, whatever the documents refer to.
MAX_REMOTE_DOCUMENTS = 1000
MAX_REMOTE_BYTES = 64 * 1024 * 1024

HOW_TO_MAP = (
    "map its URL prefix to a local folder: --ref-map URL-PREFIX=FOLDER on the command line, or "
    'ref-map = {"URL-PREFIX" = "FOLDER"} in [tool.codegen]; codegen never fetches over the network'
)


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
    _cache: dict[str, Fetched] = field(default_factory=dict)  # as read
    _lowered: dict[tuple[str, str | None], Fetched] = field(default_factory=dict)
    _bytes: int = 0

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
        located = local_path(url, self.ref_map)
        if isinstance(located, str):
            return Fetched(problem=located)
        if len(self._cache) >= MAX_REMOTE_DOCUMENTS:
            return Fetched(
                problem=f"more than {MAX_REMOTE_DOCUMENTS} documents are referenced"
            )
        if not _inside(located.parent, self.ref_map):
            shown = located.as_posix()
            return Fetched(
                problem=f"it maps to {shown}, through a link out of the mapped folder"
            )
        try:
            data = read_spec_bytes(located, MAX_SPEC_BYTES)
        except UnreadableSpec as problem:
            shown = located.as_posix()
            return Fetched(problem=f"it maps to {shown}, which {_which(problem)}")
        self._bytes += len(data)
        if self._bytes > MAX_REMOTE_BYTES:
            limit = MAX_REMOTE_BYTES // (1024 * 1024)
            return Fetched(problem=f"the referenced documents exceed {limit} MiB")
        source = SourceFile(located, located.as_posix(), Path(located.name), "")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.diags.error(
                "encoding", f"the file is not UTF-8 (byte {exc.start})", source.span(0)
            )
            return Fetched()
        source = SourceFile(located, located.as_posix(), Path(located.name), text)
        try:
            return Fetched(parse_json(source, self.diags))
        except SpecError:
            return Fetched()
        except RecursionError:
            self.diags.error(
                "too-deep", "the document is nested too deeply to read", source.span(0)
            )
            return Fetched()


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


def _inside(folder: Path, ref_map: Mapping[str, Path]) -> bool:
    """Whether `folder`, its links resolved, is still inside a mapped folder (a link inside one may lead out)."""
    real = Path(os.path.realpath(folder))
    roots = (Path(os.path.realpath(root)) for root in ref_map.values())
    return any(real == root or root in real.parents for root in roots)


def _which(problem: UnreadableSpec) -> str:
    if problem.code == "read" and "No such file" in problem.message:
        return "does not exist"
    return f"cannot be read: {problem.message}"
