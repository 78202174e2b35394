"""black, in-process, once per generated Python file (the hot path of a compile)."""

from __future__ import annotations

from functools import lru_cache

import black


@lru_cache(maxsize=1)
def _mode() -> black.Mode:
    return black.Mode(target_versions={black.TargetVersion.PY310})


def format_python(source: str, path: str) -> str:
    try:
        return black.format_str(source, mode=_mode())
    except black.InvalidInput as exc:  # a template bug, never a spec problem: say so plainly
        raise RuntimeError(f"internal error: generated {path} is not valid Python ({exc})") from exc
