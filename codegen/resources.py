"""Files that ship with codegen: Jinja templates and lark grammars.

In a source checkout they live in the top-level `templates/` and `grammars/` folders; in an installed wheel the
build maps those folders into the package as `codegen/_templates` and `codegen/_grammars` (see pyproject.toml).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def data_dir(name: str) -> Path:
    """`templates` or `grammars`: the installed copy if there is one, else the checkout's top-level folder."""
    installed = _PACKAGE / f"_{name}"
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name


def grammar_text(name: str) -> str:
    return (data_dir("grammars") / name).read_text(encoding="utf-8")
