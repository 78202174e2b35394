"""The build backend of this repository: setuptools', except that an editable install is a plain path entry.

setuptools installs a project whose folders are mapped into its package (`templates/` and `grammars/` become
`codegen/_templates` and `codegen/_grammars` in a wheel) in editable mode through an import hook, which every
interpreter start then loads: 20 ms of `pathlib`, `importlib.util` and `urllib` before any command, as much as a
no-op of 1,000 tools costs on its own. Its "compat" mode puts the checkout on `sys.path` instead, which is all a
checkout needs: `codegen.resources` finds the templates and grammars beside the package there. Wheels and
sdists are setuptools' own, untouched. A `--config-settings editable_mode=...` given to pip still wins.
"""

from __future__ import annotations

from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every other hook is setuptools')


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    settings = {"editable_mode": "compat", **(config_settings or {})}
    return _setuptools.build_editable(wheel_directory, settings, metadata_directory)
