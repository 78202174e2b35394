"""Front ends: one per spec format; each turns a file into a `SpecModule` and diagnostics, never code.

A front end is a function `(SourceFile, Diagnostics) -> SpecModule` that records problems and raises
`SpecError` when the file as a whole cannot be read. `route` picks the front end from the file name (SPEC §2),
and for a `.sql` file from its first bytes: only one that opens with the Brimley `/* --- … --- */` block is a spec.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostics, SourceFile

if TYPE_CHECKING:  # `route` runs on every build, a no-op included, which needs no IR
    from ..ir import SpecModule

FrontEnd = Callable[[SourceFile, Diagnostics], "SpecModule"]
# A file named otherwise is never a spec (a `.sql` file is one only if it opens with the Brimley block).
SPEC_SUFFIXES = (".gram", ".json", ".yaml", ".yml", ".sql")
BRIMLEY_SUFFIXES = (".yaml", ".yml", ".sql")


def is_spec(path: Path | str) -> bool:
    """Whether `route` gives the file a front end, without importing one (discovery runs on every build, a
    no-op included) but for a `.sql` file, whose first bytes decide."""
    name = path.name if isinstance(path, Path) else posixpath.basename(path)
    if name.endswith(".sql"):
        return route(path) is not None
    return name.endswith(SPEC_SUFFIXES)


def route(path: Path | str) -> FrontEnd | None:
    """The front end for a file, or None if the file is not a spec (it is then ignored)."""
    name = path.name if isinstance(path, Path) else posixpath.basename(path)
    if name.endswith(".gram"):
        from .gram import load_gram_file

        return load_gram_file
    if name.endswith(".schema.json"):
        from .json import load_schema_file

        return load_schema_file
    if name.endswith(".json"):
        from .json import load_tool_file

        return load_tool_file
    if name.endswith((".yaml", ".yml")):  # BRIMLEY_SUFFIXES
        from .brimley import load_brimley_yaml

        return load_brimley_yaml
    if name.endswith(".sql"):
        from .brimley import has_sql_header, load_brimley_sql

        return load_brimley_sql if has_sql_header(Path(path)) else None
    return None
