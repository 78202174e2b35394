"""What a compile hands back: the files of OUT (or None), its diagnostics, and what the rebuild record keeps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostics


@dataclass
class CompileResult:
    # None when the specs have errors; a value is text, or ASCII text as bytes (an edit's spliced export files)
    files: dict[str, str | bytes] | None
    diagnostics: Diagnostics
    read: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    tools: int = 0  # tools in the package (the summary line), whatever --emit writes
    # every spec compiled: (path as shown, path below its root, sha256 of the bytes read), for the rebuild record
    sources: list[tuple[str, str, str]] = field(default_factory=list)
    # what each spec file's compile left, for a rebuild after an edit (codegen/incremental.py)
    parts: dict[str, Any] | None = None
    reused: bool = False  # whether this result reused a previous build's outputs
    # OUT's files as the rebuild record vouched for them (path -> sha256, size): the writer need not read them
    vouched: dict[str, tuple[str, int]] = field(default_factory=dict)
    # those of them a rebuild after an edit keeps as they are (not in `files`)
    kept: dict[str, tuple[str, int]] = field(default_factory=dict)
    # the refused units `skip-refused` left out (codegen/refusals.py), as the summary names them
    left_out: list[str] = field(default_factory=list)
