"""A first build of many JSON spec files, read and planned in two processes.

Every name in a spec file's module is the module's own, so a file plans alike whichever process plans it: a
forked child reads, plans and renders the last files (those after every file defining entities; it reads and
plans the entity files too, for the entities the last files use), while this process does the others. The two
halves are then one package's parts, as an edit rebuild's kept files are (codegen/incremental.py). What one
process would have checked across the two halves is checked then: that no module, tool or method is defined in
both, that each tool has the exported names one process gives it, that no name needs a warning. Anything else (a
diagnostic in either process, a child that failed to send its half) means the caller compiles everything itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from .backends.python import ambiguous_names, python_units
from .backends.schemas import ExportNames, Fragments, export_names, tool_files
from .diagnostics import Diagnostics
from .formatting import format_all
from .module_parts import (
    Unusable,
    clashes,
    module_document,
    parts_of,
    read_module,
    reused_module,
)
from .parallel import in_background, worth_forking
from .passes.build_plan import PlanBuilder
from .passes.bundle import bundler_for, entity_ids
from .passes.check_schemas import check_schemas
from .passes.resolve import Program, apply_prefixes, build_namespace
from .plan import PackagePlan
from .remotes import RemoteDocuments
from .sources import ReadSpecs, read_specs

# The child's share of the work (the spec files' bytes): a little under half, since it reads and plans the entity
# files again and starts later, and a little over, since this process renders the package-wide files after it.
# Measured on bench/run.py's tools, 0.44 to 0.52 gave the same times within the noise.
CHILD_SHARE = 0.48
# Below this share of the work after the last entity file, splitting is not worth a second plan of the entities.
MIN_CHILD_SHARE = 0.2
# `parallel.worth_forking` counts tools and model fields: a bench tool and its fields are about 1,700 bytes of
# JSON and count about 6.
BYTES_PER_UNIT = 300

Found = list[
    tuple[Path, Path]
]  # spec files as `sources.discover` finds them: (path, path below its root)
# What the child sends back: its files, its tools' export entries, the parts of each of its spec files, each
# file's source entry for the rebuild record, and the exported names it gave its tools.
Theirs = tuple[dict[str, str], Fragments, dict[str, Any], list[Any], ExportNames]


@dataclass
class Split:
    ours: Found  # the spec files this process reads and plans, in order
    theirs: Found  # the child's: the last ones
    wait: Callable[[], Theirs | None]  # the child's half (once)
    _theirs: list[Theirs | None] = field(default_factory=list)

    def join(self) -> Theirs | None:
        """The child's half, waited for once."""
        if not self._theirs:
            self._theirs.append(self.wait())
        return self._theirs[0]

    @property
    def their_rels(self) -> list[str]:
        return [rel.as_posix() for _, rel in self.theirs]


def start(
    found: Found, prefixes: Mapping[Path, str], ref_map: Mapping[str, Path]
) -> Split | None:
    """Fork a child reading, planning and rendering the last spec files `found`, when that is possible and
    worth it."""
    if not all(rel.name.endswith(".json") for _, rel in found):
        return None  # only JSON spec files are planned alike in any order of claims (as for edit rebuilds)
    try:
        weights = [os.stat(path).st_size for path, _ in found]
    except OSError:
        return None  # reading it will say what is wrong
    total = sum(weights)
    if not worth_forking(total // BYTES_PER_UNIT):
        return None
    # Only a `*.schema.json` file defines entities (codegen/frontends/json).
    entity_files = [
        i for i, (_, rel) in enumerate(found) if rel.name.endswith(".schema.json")
    ]
    last_entities = max(entity_files, default=-1)
    split, theirs_work = len(found), 0
    while split - 1 > last_entities and theirs_work < CHILD_SHARE * total:
        split -= 1
        theirs_work += weights[split]
    if theirs_work < MIN_CHILD_SHARE * total:
        return None
    theirs = found[split:]
    child = partial(
        _theirs, [found[i] for i in entity_files] + theirs, theirs, prefixes, ref_map
    )
    return Split(found[:split], theirs, in_background(total // BYTES_PER_UNIT, child))


@dataclass
class Half:
    """Spec files read, checked and planned on their own."""

    read: ReadSpecs
    program: Program
    plan: PackagePlan


def read_half(
    files: Found, prefixes: Mapping[Path, str], ref_map: Mapping[str, Path]
) -> tuple[ReadSpecs, Program] | None:
    """Read and check the JSON spec files `files` on their own, into one namespace; None at any diagnostic,
    or where what a file refers to only a compile of every file knows (one process then compiles them all).
    """
    diags = Diagnostics()
    read = read_specs(files, diags)
    dropped: list[Any] = []
    modules = check_schemas(
        apply_prefixes(read.modules, prefixes), diags, dropped=dropped
    )
    if len(diags) or dropped or read.deferred or len(read.sources) != len(files):
        return None  # (a file that may be a JSON Schema document a spec refers to: one process decides)
    program = build_namespace(modules, diags)
    if len(diags) or entity_ids(program.entities):
        return None  # (who refers to an entity by its `$id` is not recorded)
    program.bundler = bundler_for(program, RemoteDocuments(ref_map, diags).fetch, diags)
    return read, program


def plan_half(
    files: Found, prefixes: Mapping[Path, str], ref_map: Mapping[str, Path]
) -> Half | None:
    """Read, check and plan the spec files `files` on their own; None at any diagnostic (one process then
    compiles everything, and reports it)."""
    found = read_half(files, prefixes, ref_map)
    if found is None:
        return None
    diags = Diagnostics()
    plan = PlanBuilder(found[1], diags).build()
    return None if len(diags) else Half(*found, plan)


def render_half(
    plan: PackagePlan, modules: set[str], names: ExportNames
) -> tuple[dict[str, str], Fragments]:
    """The Python files of the `modules` (dotted) of `plan`, their tools' JSON files and export entries."""
    paths = {module.path for module in plan.modules if module.dotted in modules}
    files = format_all(
        {unit.path: unit.render() for unit in python_units(plan) if unit.path in paths}
    )
    rendered, fragments = tool_files(
        [tool for tool in plan.tools if tool.module in modules], names
    )
    files.update(rendered)
    return files, fragments


def _theirs(
    files: Found,
    theirs: Found,
    prefixes: Mapping[Path, str],
    ref_map: Mapping[str, Path],
) -> Theirs | None:
    """In the child: read and plan the spec files `files` (the entity files, then its own), and render its own."""
    half = plan_half(files, prefixes, ref_map)
    if half is None:
        return None
    own = {rel.as_posix() for _, rel in theirs}
    names = export_names(_tool_names(half.program, own))
    parts = {rel: p for rel, p in parts_of(half.plan).items() if rel in own}
    rendered, fragments = render_half(
        half.plan, {part.dotted for part in parts.values()}, names
    )
    sources = [list(entry) for entry in half.read.sources if entry[1] in own]
    documents = {rel: module_document(part) for rel, part in parts.items()}
    return rendered, fragments, documents, sources, names


def _tool_names(program: Program, rels: set[str]) -> list[str]:
    return [
        tool.name
        for module in program.modules
        if module.source.rel.as_posix() in rels
        for tool in module.tools
    ]


@dataclass
class Joined:
    """The child's half, taken into this process's plan."""

    files: dict[str, str]
    fragments: Fragments
    sources: list[tuple[str, str, str]]
    names: ExportNames  # every tool's exported names
    documents: dict[str, Any]  # the rebuild record's entry of each of the child's files


def finish(
    split: Split, program: Program, plan: PackagePlan, names: ExportNames
) -> Joined | None:
    """The child's half, its spec files' modules added to `plan` (which planned `split.ours` into `program`)
    as reused ones; `names`: the exported names of this half's tools. None when it cannot be taken.
    """
    theirs = split.join()
    if theirs is None:
        return None
    files, fragments, documents, sources, their_names = theirs
    rels = split.their_rels
    try:
        parts = [read_module(rel, documents[rel]) for rel in rels]
        entries = [(str(display), str(rel), str(sha)) for display, rel, sha in sources]
    except (Unusable, KeyError, TypeError, ValueError):
        return None
    ours = parts_of(plan)
    plan.modules.extend(reused_module(rel, p) for rel, p in zip(rels, parts))
    their_tools = [
        tool for module in plan.modules[-len(rels) :] for tool in module.tools
    ]
    plan.tools.extend(their_tools)
    every = export_names(
        _tool_names(program, set(ours)) + [tool.name for tool in their_tools]
    )
    if (
        clashes([*ours.values(), *parts])
        or ambiguous_names(plan)
        or every
        != _merged(names, their_names)  # two names cut alike to an API's length
        or [rel for _, rel, _ in entries] != rels
    ):
        return None  # one process reports it
    return Joined(files, fragments, entries, every, dict(documents))


def _merged(ours: ExportNames, theirs: ExportNames) -> ExportNames:
    """Both halves' exported names, as one `export_names` of every tool orders them."""
    return {flavour: {**ours[flavour], **theirs.get(flavour, {})} for flavour in ours}
