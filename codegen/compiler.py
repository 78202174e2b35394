"""The driver: discover spec files, run front ends, passes and back ends, and hand back the files of OUT."""

from __future__ import annotations

import gc
import hashlib
from functools import partial
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from .backends.python import Unit, python_units, runtime_files
from .backends.schemas import (
    ExportNames,
    Fragments,
    entity_files,
    export_files,
    export_names,
    tool_files,
)
from .compile_result import CompileResult
from .diagnostics import Diagnostics, SpecError
from .formatting import format_all
from .frontends import BRIMLEY_SUFFIXES, route
from .incremental import compile_changed, init_key, parts_document
from . import split
from .parallel import WorkQueue, in_background
from .remotes import RemoteDocuments
from .sources import discover, load_source
from .config import EMIT_CHOICES
from .ir import Entity, SpecModule, Tool
from .passes.build_plan import PlanBuilder
from .passes.bundle import bundler_for
from .passes.check_schemas import check_schemas
from .passes.resolve import apply_prefixes, build_namespace
from .plan import PackagePlan

if TYPE_CHECKING:
    from .cache import Previous


def compile_specs(
    specs: list[Path],
    exclude: Path | None = None,
    emit: tuple[str, ...] = EMIT_CHOICES,
    prefixes: Mapping[Path, str] | None = None,
    ref_map: Mapping[str, Path] | None = None,
    previous: Previous | None = None,
) -> CompileResult:
    """Compile `specs` into the files of OUT (in memory). With `previous` (the last build into OUT, checked
    by the rebuild record), the spec files unchanged since then and not depending on a changed one keep
    their outputs when that gives exactly what a full compile would (codegen/incremental.py); otherwise
    nothing from a previous build is reused, and the writer is only spared reading OUT's files again.
    """
    # A compile builds a large graph of objects that all live until it ends: the cyclic collector would walk
    # them again and again (the growing share of a 100,000-property spec's time) and free nothing.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if (
            previous is not None and not ref_map
        ):  # (a mapped remote document may change unseen)
            result = compile_changed(previous, emit, prefixes or {})
            if result is not None:
                result.reused = True
                return result
        result = _compile(specs, exclude, emit, prefixes, ref_map or {})
        if previous is not None:
            result.vouched = previous.out.files
        return result
    finally:
        if collecting:
            gc.enable()


def _compile(
    specs: list[Path],
    exclude: Path | None,
    emit: tuple[str, ...],
    prefixes: Mapping[Path, str] | None,
    ref_map: Mapping[str, Path],
) -> CompileResult:
    diags = Diagnostics()
    found, ignored = discover(specs, diags, exclude)
    result = CompileResult(
        None, diags, [p.as_posix() for p, _ in found], [p.as_posix() for p in ignored]
    )
    modules: list[SpecModule] = []
    unread: list[Path] = (
        []
    )  # spec files reported as unreadable: references to them are not reported again
    for path, rel in found:
        source = load_source(path, rel, diags)
        front_end = route(path)
        if front_end is None:
            continue
        if source is None:
            unread.append(path)
            continue
        digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
        result.sources.append((source.display, rel.as_posix(), digest))
        try:
            modules.append(front_end(source, diags))
        except SpecError:
            unread.append(path)
        except RecursionError:
            unread.append(path)
            diags.error(
                "too-deep", "the spec is nested too deeply to read", source.span(0)
            )
    modules = apply_prefixes(modules, prefixes or {})  # [tool.codegen] prefixes
    # Every pass runs even after errors, so that every independent problem is reported in one run; what a
    # pass leaves out (a definition with an invalid schema) keeps its name, so it is not reported twice.
    dropped: list[Tool | Entity] = []
    modules = check_schemas(modules, diags, dropped=dropped)
    if any(m.source.path.name.endswith(".gram") for m in modules):
        # gram parameter names are global across .gram files too
        from .frontends.gram import check_parameter_identity

        check_parameter_identity(modules, diags)
    program = build_namespace(modules, diags, dropped, unread)
    program.bundler = bundler_for(program, RemoteDocuments(ref_map, diags).fetch, diags)
    if any(_is_brimley(m) for m in program.modules):
        # Brimley: entity_ref inheritance, SQL placeholders, resources (needs every file, so after the
        # namespace); imported only then, since it brings YAML, the gram grammar and pydantic.
        from .frontends.brimley import link

        link(program, diags)
    # A first build of many JSON files plans the last ones in a forked child (split.py), checked here after.
    every = [tool.name for module in program.modules for tool in module.tools]
    names = export_names(every)
    halves = split.start(program, names) if not diags.has_errors else None
    shared: tuple[dict[str, str], Fragments] | None = None
    if halves is not None:
        builder = PlanBuilder(program, diags, order=halves.ours)
        plan = builder.build()
        if not diags.has_errors:
            shared = _render_split(plan, builder, halves, names)
        else:
            halves.join()  # (the child stops at the same problem)
        if shared is not None and [tool.name for tool in plan.tools] != every:
            shared = None
    if shared is None:
        builder = PlanBuilder(program, diags)
        plan = (
            builder.build()
        )  # even after errors, so that every problem is reported in one run
        if diags.has_errors:
            return result
        names = export_names([tool.name for tool in plan.tools])
        shared = _render_shared(plan, names)
    result.tools = len(plan.tools)
    files, fragments = shared
    files.update(runtime_files(plan))
    files["py.typed"] = ""
    files.update(entity_files(plan))
    exported, spans = export_files(plan, names, fragments)
    files.update(exported)
    result.files = {
        path: text for path, text in sorted(files.items()) if _emitted(path, emit)
    }
    if len(builder.parts) == len(result.sources):  # every spec file has its module
        order = [(rel, sha) for _, rel, sha in result.sources]
        result.parts = parts_document(order, builder.parts, spans, init_key(plan))
    return result


def _render_shared(
    plan: PackagePlan, names: ExportNames
) -> tuple[dict[str, str], Fragments]:
    """Every Python file of `plan`, its tools' JSON files and their export entries."""
    # Rendered by this process and, when a core is free for it, a forked child: each module and each run of
    # tools' JSON goes to whichever is free first, so that both finish together.
    units = python_units(plan)
    module_paths = {module.path for module in plan.modules}
    items: list[Item] = [
        partial(_module_file, unit) for unit in units if unit.path in module_paths
    ]
    items += [
        partial(tool_files, plan.tools[start : start + _TOOLS_PER_ITEM], names)
        for start in range(0, len(plan.tools), _TOOLS_PER_ITEM)
    ]
    queue = WorkQueue(len(items))
    work = len(plan.tools) + sum(len(m.fields) for p in plan.modules for m in p.models)
    background = in_background(work, partial(_take, items, queue))
    try:
        files = _package_wide(units, module_paths)
        ours = _take(items, queue)
    finally:
        queue.close()
    fragments: Fragments = {}
    done: set[int] = set()
    for rendered, entries, taken in (ours, background()):
        files.update(rendered)
        fragments.update(entries)
        done.update(taken)
    # what the queue could not hold, or a child which failed took
    rendered, entries, _ = _take(items, (i for i in range(len(items)) if i not in done))
    files.update(rendered)
    fragments.update(entries)
    return files, fragments


def _render_split(
    plan: PackagePlan, builder: PlanBuilder, halves: split.Split, names: ExportNames
) -> tuple[dict[str, str], Fragments] | None:
    """This process's half of a split build (the modules `builder` planned), with the child's; None when the
    child's half cannot be taken (split.py)."""
    ours = {module.path for module in plan.modules}
    files = format_all(
        {unit.path: unit.render() for unit in python_units(plan) if unit.path in ours}
    )
    rendered, fragments = tool_files(plan.tools, names)
    files.update(rendered)
    theirs = split.finish(halves, builder, plan)
    if theirs is None:
        return None
    files.update(theirs[0])
    fragments.update(theirs[1])
    # now that every module is known (the child's are in the plan as reused ones)
    every = {module.path for module in plan.modules}
    files.update(_package_wide(python_units(plan), every))
    return files, fragments


def _package_wide(units: list[Unit], module_paths: set[str]) -> dict[str, str]:
    """The Python files that are not a spec file's module: the package's and its folders' `__init__.py`."""
    return format_all(
        {unit.path: unit.render() for unit in units if unit.path not in module_paths}
    )


# A unit of rendering work: the files it makes and its entries in the export files.
Item = Callable[[], tuple[dict[str, str], Fragments]]
# Tools whose JSON files are one item (a module is one item, whatever its size).
_TOOLS_PER_ITEM = 16


def _module_file(unit: Unit) -> tuple[dict[str, str], Fragments]:
    return format_all({unit.path: unit.render()}), {}


def _take(
    items: list[Item], numbers: Iterable[int]
) -> tuple[dict[str, str], Fragments, list[int]]:
    """Render the items `numbers` names (a WorkQueue: those this process takes): their files, their export
    entries, and which items they were (plain data, for the way back from a child)."""
    files: dict[str, str] = {}
    fragments: Fragments = {}
    done: list[int] = []
    for number in numbers:
        rendered, entries = items[number]()
        files.update(rendered)
        fragments.update(entries)
        done.append(number)
    return files, fragments, done


def _is_brimley(module: SpecModule) -> bool:
    return module.source.path.name.endswith(BRIMLEY_SUFFIXES)


def _emitted(path: str, emit: tuple[str, ...]) -> bool:
    """`schemas` are the per-tool and entity schema files; `exports` the flavoured tool lists (tools.*)."""
    if path.startswith("schemas/tools."):
        return "exports" in emit
    return "schemas" in emit or not path.startswith("schemas/")
