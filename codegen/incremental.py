"""Incremental builds: reuse last build's formatted file when nothing it depends on changed.

Formatting is most of a compile's time. Each generated Python file has a key — a digest of the plan it is
rendered from, of codegen's templates and version, and of black's version — recorded in OUT's manifest beside
the hash of the file's content. When the key is unchanged and the file on disk still has that content, it is
neither rendered nor formatted again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import black

from . import __version__
from .resources import data_dir
from .ir import SpecModule
from .writer import digest, read_manifest, read_sources


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
        }
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """What every generated file depends on besides its plan: codegen itself and black."""
    parts = [__version__, black.__version__]
    for template in sorted(data_dir("templates").glob("*.jinja")):
        parts.append(template.read_text(encoding="utf-8"))
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def unit_key(material: Any) -> str:
    text = json.dumps(_plain(material), sort_keys=True, default=repr)
    return hashlib.sha256((fingerprint() + text).encode("utf-8")).hexdigest()


class PreviousBuild:
    """What the last build left in OUT, to be reused where the keys match."""

    def __init__(self, out: Path | None) -> None:
        self.out = out
        self.entries = read_manifest(out) if out is not None else {}
        self.sources = read_sources(out) if out is not None else {}

    def unchanged_sources(self, modules: Iterable[SpecModule]) -> set[str]:
        """Spec files (relative paths) with the very text the last successful build compiled: their schemas
        were checked then and need no second check."""
        return {
            m.source.rel.as_posix()
            for m in modules
            if self.sources.get(m.source.rel.as_posix()) == digest(m.source.text)
        }

    def reuse(self, path: str, key: str) -> str | None:
        entry = self.entries.get(path)
        if self.out is None or entry is None or entry.get("key") != key:
            return None
        target = self.out / path
        try:
            text = target.read_text(encoding="utf-8")
        except OSError:
            return None
        return text if digest(text) == entry.get("sha256") else None
