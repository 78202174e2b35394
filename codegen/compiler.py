"""The driver: discover spec files, run front ends, passes and back ends, and hand back the files of OUT."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .backends.python import python_units, runtime_files
from .backends.schemas import export_paths, exports_key, render_exports, render_schemas
from .diagnostics import Diagnostics, SpecError
from .formatting import format_all
from .frontends import route
from .sources import discover, load_source
from .config import EMIT_CHOICES
from .incremental import PreviousBuild, unit_key
from .writer import digest
from .ir import SpecModule
from .passes.build_plan import build_plan
from .passes.check_schemas import check_schemas
from .passes.resolve import build_namespace
from .plan import PackagePlan


@dataclass
class CompileResult:
    files: dict[str, str] | None  # None when the specs have errors
    diagnostics: Diagnostics
    read: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    keys: dict[str, str] = field(
        default_factory=dict
    )  # render keys of Python files (for the manifest)


def compile_specs(
    specs: list[Path],
    exclude: Path | None = None,
    previous: PreviousBuild | None = None,
    emit: tuple[str, ...] = EMIT_CHOICES,
) -> CompileResult:
    """Compile `specs` into the files of OUT (in memory); `previous` lets unchanged files be reused."""
    diags = Diagnostics()
    found, ignored = discover(specs, diags, exclude)
    result = CompileResult(
        None, diags, [p.as_posix() for p, _ in found], [p.as_posix() for p in ignored]
    )
    modules: list[SpecModule] = []
    for path, rel in found:
        source = load_source(path, rel, diags)
        front_end = route(path)
        if source is None or front_end is None:
            continue
        try:
            modules.append(front_end(source, diags))
        except SpecError:
            continue
        except RecursionError:
            diags.error(
                "too-deep", "the spec is nested too deeply to read", source.span(0)
            )
    modules = check_schemas(
        modules,
        diags,
        trusted=(previous or PreviousBuild(None)).unchanged_sources(modules),
    )
    if any(m.source.path.name.endswith(".gram") for m in modules):
        # gram parameter names are global across .gram files too
        from .frontends.gram import check_parameter_identity

        check_parameter_identity(modules, diags)
    program = build_namespace(modules, diags)
    plan = build_plan(
        program, diags
    )  # even after errors, so that every problem is reported in one run
    if diags.has_errors:
        return result
    previous = previous or PreviousBuild(None)
    files, keys = _python_files(plan, previous)
    files.update(runtime_files(plan, files))
    files["py.typed"] = ""
    files.update(render_schemas(plan))
    files.update(_exports(plan, previous, keys))
    result.files = {
        path: text for path, text in sorted(files.items()) if _emitted(path, emit)
    }
    result.keys = {path: key for path, key in keys.items() if path in result.files}
    result.sources = {m.source.rel.as_posix(): digest(m.source.text) for m in modules}
    return result


def _exports(
    plan: PackagePlan, previous: PreviousBuild, keys: dict[str, str]
) -> dict[str, str]:
    """The export files: all four list every tool, so they are reused or rebuilt together."""
    key = unit_key(exports_key(plan))
    paths = export_paths()
    keys.update(dict.fromkeys(paths, key))
    reused = {path: previous.reuse(path, key) for path in paths}
    if all(text is not None for text in reused.values()):
        return {path: text for path, text in reused.items() if text is not None}
    return render_exports(plan)


def _python_files(
    plan: PackagePlan, previous: PreviousBuild
) -> tuple[dict[str, str], dict[str, str]]:
    files: dict[str, str] = {}
    keys: dict[str, str] = {}
    pending = {}
    for unit in python_units(plan):
        keys[unit.path] = unit_key(unit.key)
        reused = previous.reuse(unit.path, keys[unit.path])
        if reused is not None:
            files[unit.path] = reused
        else:
            pending[unit.path] = unit.render()
    files.update(format_all(pending))
    return files, keys


def _emitted(path: str, emit: tuple[str, ...]) -> bool:
    """`schemas` are the per-tool and entity schema files; `exports` the flavoured tool lists (tools.*)."""
    if path.startswith("schemas/tools."):
        return "exports" in emit
    return "schemas" in emit or not path.startswith("schemas/")
