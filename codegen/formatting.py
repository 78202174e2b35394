"""Formatting generated Python: black, in-process, once per file (the hot path of a compile).

Large schema constants arrive as placeholders with their text already laid out the way black would
(`black_literal`); they are spliced in after black has formatted the rest, which it does far faster without them.
Big compiles format files in parallel worker processes.
"""

from __future__ import annotations

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
    for placeholder, replacement in source.splices.items():
        start = text.index(placeholder)
        line_start = text.rindex("\n", 0, start) + 1
        text = text[:line_start] + replacement + text[start + len(placeholder) :]
    return text


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
