"""Formatting generated Python: black, in-process, once per file (the hot path of a compile).

Large schema constants arrive as placeholders with their text already laid out the way black would
(`black_literal`); they are spliced in after black has formatted the rest, which it does far faster without them.
Big compiles format files in parallel worker processes.
"""

from __future__ import annotations

import ast
import os
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import black

from .backends.python import PythonFile

# Characters of source below which starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 50_000


@lru_cache(maxsize=1)
def _mode() -> black.Mode:
    return black.Mode(target_versions={black.TargetVersion.PY310})


def format_python(source: PythonFile, path: str) -> str:
    try:
        text = black.format_str(source.text, mode=_mode())
    except (
        black.InvalidInput
    ) as exc:  # a template bug, never a spec problem: say so plainly
        raise RuntimeError(
            f"internal error: generated {path} is not valid Python ({exc})"
        ) from exc
    return splice(text, source.splices, path) if source.splices else text


def splice(text: str, splices: dict[str, str], path: str) -> str:
    """Put each pre-formatted constant in place of its placeholder.

    A placeholder is found as code, never as text: it is the value of a module-level `NAME: T = <placeholder>`
    statement in the parsed file. Spec text only ever reaches generated code inside string literals and
    comments, so however it spells a placeholder, it cannot be mistaken for one.
    """
    # Split as ast counts lines (splitlines would also split at \f, \x1c, ...).
    lines = text.split("\n")
    found = [
        statement
        for statement in ast.parse(text).body
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.value, ast.Name)
        and statement.value.id in splices
    ]
    if sorted(s.value.id for s in found) != sorted(splices):  # type: ignore[union-attr]
        raise RuntimeError(f"internal error: generated {path} lost a constant")
    # From the bottom up, so that line numbers above stay valid.
    for statement in sorted(found, key=lambda s: -s.lineno):
        value = statement.value
        assert isinstance(value, ast.Name) and value.end_lineno is not None
        last = lines[value.end_lineno - 1].encode("utf-8")  # ast columns count bytes
        rest = last[value.end_col_offset :].decode("utf-8")
        lines[statement.lineno - 1 : value.end_lineno] = [splices[value.id] + rest]
    return "\n".join(lines)


def _format_item(item: tuple[str, PythonFile]) -> tuple[str, str]:
    return item[0], format_python(item[1], item[0])


def format_all(files: dict[str, PythonFile]) -> dict[str, str]:
    """Format every file; across processes when there is enough work to pay for them."""
    size = sum(len(f.text) for f in files.values())
    workers = min(os.cpu_count() or 1, 8)
    if size < PARALLEL_THRESHOLD or workers < 2:
        return dict(map(_format_item, files.items()))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        # Largest first, so that no big file starts last and leaves the other workers idle.
        order = sorted(files.items(), key=lambda item: -len(item[1].text))
        formatted = dict(pool.map(_format_item, order))
        return {path: formatted[path] for path in files}
