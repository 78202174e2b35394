"""The runtime library of packages codegen generates (the `toolspec-runtime` distribution).

It depends on nothing but Pydantic v2 (and SQLAlchemy, for `sql`): `validation` decides acceptance with JSON
Schema semantics (a subpackage, one module per job, mapped in its `__init__`), `check_planner` and
`check_builder` build exact checks of schemas as closures, `models` holds the base classes of generated models,
`dispatch` runs tool calls, `exports` writes tools in the formats LLM APIs take, `lazy` lets a package import each
module when first used; `sql` serves SQL tools and `paths` resources.

This module stays light: every generated module imports it first, for `require`.
"""

from __future__ import annotations

__version__ = "0.5.0"

# The runtime API this release provides: generated code names the one it was written for (`require`).
API = (0, 5)


def require(api: str, module: str) -> None:
    """Fail the import of generated `module` unless this runtime provides the API `"MAJOR.MINOR"` it was
    generated for: the same major version, at least that minor one (as protobuf's generated code checks its
    runtime). Called once per generated module, when it is imported."""
    major, _, minor = api.partition(".")
    wanted = (int(major), int(minor))
    if wanted[0] == API[0] and wanted[1] <= API[1]:
        return
    raise ImportError(
        f"{module} was generated for toolspec-runtime {api}, which this toolspec-runtime"
        f" {__version__} does not provide: pip install 'toolspec-runtime>={api},<{wanted[0] + 1}'"
    )
