"""Files that ship with codegen: Jinja templates, lark grammars and the runtime copied into generated packages.

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


def runtime_source(name: str) -> str:
    """The source of a runtime module that generated packages carry (codegen/runtime/<name>, where name may
    name a subpackage's module: `validation/patterns.py`)."""
    return (_PACKAGE / "runtime" / name).read_text(encoding="utf-8")


def runtime_subpackage(folder: str) -> tuple[str, ...]:
    """The modules of a runtime subpackage as `runtime_source` names (`validation/__init__.py`, ...), sorted."""
    return tuple(
        sorted(
            f"{folder}/{path.name}"
            for path in (_PACKAGE / "runtime" / folder).glob("*.py")
        )
    )
