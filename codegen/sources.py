"""Reading spec files: which files under SPECS are specs (sorted, routed by name), and their text.

File names, folder contents and file bytes are untrusted input: every problem here is a diagnostic.
"""

from __future__ import annotations

import os
from pathlib import Path

from .diagnostics import Diagnostics, SourceFile
from .frontends import route

MAX_SPEC_BYTES = 8 * 1024 * 1024


def discover(
    specs: list[Path], exclude: Path | None = None
) -> tuple[list[tuple[Path, Path]], list[Path]]:
    """Spec files as (path, path relative to the argument it was found under), in sorted order; and ignored files."""
    found: list[tuple[Path, Path]] = []
    ignored: list[Path] = []
    excluded = exclude.resolve() if exclude is not None else None
    for spec in specs:
        if spec.is_file():
            candidates = [(spec, Path(spec.name))]
        else:
            candidates = []
            for folder, dirs, names in os.walk(spec):
                here = Path(folder)
                dirs[:] = sorted(
                    d
                    for d in dirs
                    if not d.startswith(".") and (here / d).resolve() != excluded
                )
                candidates += [
                    (here / n, (here / n).relative_to(spec))
                    for n in sorted(names)
                    if not n.startswith(".")
                ]
        for path, rel in candidates:
            if route(path) is None:
                ignored.append(path)
            else:
                found.append((path, rel))
    found.sort(key=lambda item: item[1].as_posix())
    return found, ignored


def load_source(path: Path, rel: Path, diags: Diagnostics) -> SourceFile | None:
    display = path.as_posix()
    empty = SourceFile(path, display, rel, "")
    try:
        data = path.read_bytes()
    except OSError as exc:
        diags.error("read", f"cannot read the file: {exc.strerror}", empty.span(0))
        return None
    if len(data) > MAX_SPEC_BYTES:
        diags.error(
            "too-large",
            f"the file is larger than {MAX_SPEC_BYTES // (1024 * 1024)} MiB",
            empty.span(0),
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        diags.error(
            "encoding", f"the file is not UTF-8 (byte {exc.start})", empty.span(0)
        )
        return None
    return SourceFile(path, display, rel, text)
