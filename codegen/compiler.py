"""The driver: discover spec files, run front ends, passes and back ends, and hand back the files of OUT."""

from __future__ import annotations

import gc
from functools import partial
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .backends.python import Unit, ambiguous_names, python_units
from .backends.schemas import (
    ExportNames,
    Fragments,
    entity_file,
    entity_files,
    export_files,
    export_names,
    tool_file,
    tool_files,
)
from .compile_result import CompileResult
from .diagnostics import Diagnostics, Span
from .formatting import format_all
from .frontends import BRIMLEY_SUFFIXES
from .incremental import compile_changed
from .module_parts import init_key, module_document, parts_document, parts_of
from . import split
from .parallel import WorkQueue, in_background
from .refusals import LeaveOut, compile_leaving_out
from .remotes import RemoteDocuments, spec_tree
from .sources import discover, read_specs
from .config import EMIT_CHOICES
from .ir import Entity, SpecModule, Tool
from .passes.build_plan import PlanBuilder
from .passes.bundle import bundler_for, entity_ids, tree_documents
from .passes.check_schemas import check_schemas
from .passes.resolve import Program, apply_prefixes, build_namespace
from .passes.naming import schemas_path
from .plan import PackagePlan
from .writer import MANIFEST, case_collisions

if TYPE_CHECKING:
    from .cache import Previous


def compile_specs(
    specs: list[Path],
    exclude: Path | None = None,
    emit: tuple[str, ...] = EMIT_CHOICES,
    prefixes: Mapping[Path, str] | None = None,
    ref_map: Mapping[str, Path] | None = None,
    previous: Previous | None = None,
    skip_refused: str | None = None,
) -> CompileResult:
    """Compile `specs` into the files of OUT (in memory). With `previous` (the last build into OUT, checked
    by the rebuild record), the spec files unchanged since then and not depending on a changed one keep
    their outputs when that gives exactly what a full compile would (codegen/incremental.py); otherwise
    nothing from a previous build is reused, and the writer is only spared reading OUT's files again.
    With `skip_refused` ("fail" or "warn"), refused tools and files are left out (codegen/refusals.py).
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
        if skip_refused:
            compile_once = partial(
                _compile, specs, exclude, emit, prefixes, ref_map or {}
            )
            result = compile_leaving_out(compile_once, skip_refused)
        else:
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
    leave: LeaveOut | None = None,
) -> CompileResult:
    diags = Diagnostics()
    found, ignored = discover(specs, diags, exclude)
    if leave is not None:
        found = leave.found(found)
    # A first build of many JSON files reads and plans the last ones in a forked child (split.py).
    halves = (
        None
        if len(diags) or (leave and (leave.files or leave.entries))
        else split.start(found, prefixes or {}, ref_map)
    )
    if halves is not None:
        done = _compile_split(halves, found, ignored, emit, prefixes or {}, ref_map)
        if done is not None:
            return done
    result = _result(diags, found, ignored)
    read = read_specs(found, diags)
    result.sources = read.sources
    # Files a spec refers to by path are read as JSON Schema documents (remotes.py); a file that is no tool
    # file may be one, which the references of the others decide.
    tree = spec_tree(found, read.not_schema())
    documents = RemoteDocuments(ref_map, diags, tree)
    modules = read.modules
    if read.deferred:
        tree_documents(modules, documents.fetch, tree)
        modules = read.settle(documents.accepted, diags)
    if leave is not None:
        modules = leave.modules(modules)
    modules = apply_prefixes(modules, prefixes or {})  # [tool.codegen] prefixes
    # Every pass runs even after errors, so that every independent problem is reported in one run; what a
    # pass leaves out (a definition with an invalid schema) keeps its name, so it is not reported twice.
    dropped: list[Tool | Entity] = []
    modules = check_schemas(modules, diags, dropped=dropped)
    if any(m.source.path.name.endswith(".gram") for m in modules):
        # gram parameter names are global across .gram files too
        from .frontends.gram import check_parameter_identity

        check_parameter_identity(modules, diags)
    program = build_namespace(modules, diags, dropped, read.unread)
    program.bundler = bundler_for(program, documents.fetch, diags, tree)
    if any(_is_brimley(m) for m in program.modules):
        # Brimley: entity_ref inheritance, SQL placeholders, resources (needs every file, so after the
        # namespace); imported only then, since it brings YAML, the gram grammar and pydantic.
        from .frontends.brimley import link

        link(program, diags)
    # even after errors, so that every problem is reported in one run
    plan = PlanBuilder(program, diags).build()
    _report_ambiguous(plan, program, diags)
    if halves is not None:
        halves.join()  # (its half is not taken: it ran beside this compile)
    if diags.has_errors and (
        leave is None
        or any(d.severity == "error" and not leave.covers(d) for d in diags.sorted())
    ):
        return result
    names = export_names([tool.name for tool in plan.tools])
    files, fragments = _render_shared(plan, names)
    records = {rel: module_document(p) for rel, p in parts_of(plan).items()}
    result = _finish(result, plan, program, records, files, fragments, names, emit)
    if documents.accepted:
        # which files embed which document is not recorded: an edit rebuild would miss them
        result.parts = None
    return result


def _compile_split(
    halves: split.Split,
    found: list[tuple[Path, Path]],
    ignored: list[Path],
    emit: tuple[str, ...],
    prefixes: Mapping[Path, str],
    ref_map: Mapping[str, Path],
) -> CompileResult | None:
    """This process's half of a split build (`halves.ours`), with the child's; None when a diagnostic in
    either half, or anything the two halves would have done otherwise together, means one process compiles
    everything (and reports it)."""
    half = split.plan_half(halves.ours, prefixes, ref_map)
    if half is None:
        return None
    plan = half.plan
    names = export_names([tool.name for tool in plan.tools])
    files, fragments = split.render_half(
        plan, {module.dotted for module in plan.modules}, names
    )
    theirs = split.finish(halves, half.program, plan, names)
    if theirs is None:
        return None
    files.update(theirs.files)
    fragments.update(theirs.fragments)
    # now that every module is known (the child's are in the plan as reused ones)
    every = {module.path for module in plan.modules}
    files.update(_package_wide(python_units(plan), every))
    result = _result(Diagnostics(), found, ignored)
    result.sources = half.read.sources + theirs.sources
    records = {rel: module_document(p) for rel, p in parts_of(half.plan).items()}
    records.update(theirs.documents)
    result = _finish(
        result, plan, half.program, records, files, fragments, theirs.names, emit
    )
    # a diagnostic of the whole package (outputs that are one file): one process reports it, every span known
    return None if result.files is None else result


def _result(
    diags: Diagnostics, found: list[tuple[Path, Path]], ignored: list[Path]
) -> CompileResult:
    """A compile's result before it has files: its diagnostics, and the spec files read and ignored."""
    return CompileResult(
        None, diags, [p.as_posix() for p, _ in found], [p.as_posix() for p in ignored]
    )


def _finish(
    result: CompileResult,
    plan: PackagePlan,
    program: Program,
    records: dict[str, Any],
    files: dict[str, str],
    fragments: Fragments,
    names: ExportNames,
    emit: tuple[str, ...],
) -> CompileResult:
    """The package-wide files added to the rendered ones, and what the rebuild record keeps."""
    result.tools = len(plan.tools)
    files["py.typed"] = ""
    files.update(entity_files(plan))
    exported, spans = export_files(plan, names, fragments)
    files.update(exported)
    result.files = {
        path: text for path, text in sorted(files.items()) if _emitted(path, emit)
    }
    collisions = case_collisions([*result.files, MANIFEST])
    if collisions:
        _report_collisions(collisions, _owners(plan, program), result)
        result.files = None
        return result
    if len(records) == len(result.sources):  # every spec file has its module
        order = [(rel, sha) for _, rel, sha in result.sources]
        modules = {rel: records[rel] for rel, _ in order}
        ids = bool(entity_ids(program.entities))
        result.parts = parts_document(order, modules, spans, init_key(plan), ids)
    return result


def _report_ambiguous(plan: PackagePlan, program: Program, diags: Diagnostics) -> None:
    """A warning for each name that several modules define (each module names its own): the package does not
    re-export it, so say where each one lives."""
    sources = {spec.source.rel.as_posix(): spec.source for spec in program.modules}
    by_dotted = {module.dotted: module for module in plan.modules}
    for name, dotted in sorted(ambiguous_names(plan).items()):
        places = [sources.get(by_dotted[d].source_display) for d in dotted]
        spans = [source.span(0) for source in places if source is not None]
        if not spans:
            continue
        where = ", ".join(f"{d}.{name}" for d in dotted)
        diags.warning(
            "shared-name",
            f"{len(dotted)} modules define {name!r} ({where}): the package does not re-export it; "
            "import it from its module",
            spans[0],
            *[("also defined here", span) for span in spans[1:]],
        )


def _owners(plan: PackagePlan, program: Program) -> dict[str, Span]:
    """Where each output of `plan` that a spec makes comes from: a module from its spec file, a tool's or an
    entity's schema file from its definition (the package-wide files come from no spec).
    """
    sources = {spec.source.rel.as_posix(): spec.source for spec in program.modules}
    owners: dict[str, Span] = {}
    for module in plan.modules:
        source = sources.get(module.source_display)
        if source is not None:
            owners[module.path] = owners[schemas_path(module.path)] = source.span(0)
    for tool in plan.tools:
        if tool.name in program.tools:
            owners[tool_file(tool.func)] = program.tools[tool.name][0].span
    for name, class_name in plan.entity_classes.items():
        if name in program.entities:
            owners[entity_file(class_name)] = program.entities[name][0].span
    return owners


def _report_collisions(
    pairs: list[tuple[str, str]], owners: dict[str, Span], result: CompileResult
) -> None:
    """An error for each two outputs that are one file where letter case and Unicode normalization are
    ignored (macOS, Windows: there one would overwrite the other, and `--check` would never pass), at the
    later spec of the two, naming the other's."""

    def owner(rel: str) -> Span | None:
        """A file's, or a folder's: that of the first file in it a spec makes."""
        inside = sorted(path for path in owners if path.startswith(f"{rel}/"))
        return owners.get(rel) or (owners[inside[0]] if inside else None)

    def rank(rel: str) -> tuple[bool, tuple[str, int, int], str]:
        span = owner(rel)
        return (span is not None, span.key if span else ("", 0, 0), rel)

    for pair in pairs:
        first, second = sorted(pair, key=rank)
        here, there = owner(second), owner(first)
        origin = f"from {there.source.display}" if there else "a file codegen writes"
        result.diagnostics.error(
            "output-collision",
            f"this spec's output {ascii(second)} and {ascii(first)} ({origin}) differ only in letter case "
            "or Unicode normalization: on a file system that ignores them (macOS, Windows) they are one file; "
            "rename one of them",
            here,
            *([("the other output comes from here", there)] if there else []),
        )


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
