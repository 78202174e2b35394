"""A first build of many JSON spec files, planned in two processes.

Planning names things in the order of the spec files (a name one file takes, a later one cannot have), so it cannot
simply be divided. But a file rarely wants a name an earlier one took: so a forked child plans and renders the last
files (those after every file defining entities; it plans the entity files too, for the entities the last files
use) while this process plans and renders the others. Then this process claims the names of the child's files
again, in order, as an edit rebuild claims those of the files it reuses (codegen/incremental.py): when every claim
comes out as it did in the child, the child named everything as one process would have, and its files are what
one process would have rendered. Anything else (a claim that comes out otherwise, a diagnostic in the child, a
child that failed) means the caller plans everything itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .backends.python import python_units
from .backends.schemas import ExportNames, Fragments, tool_files
from .diagnostics import Diagnostics
from .formatting import format_all
from .incremental import Unusable, module_document, read_module
from .ir import JObject, SpecModule
from .parallel import in_background, worth_forking
from .passes.build_plan import PlanBuilder, ReplayMismatch
from .passes.resolve import Program
from .plan import PackagePlan

# The child's share of the work (as `_weight` counts it): a little under half, since it plans the entity files
# again and starts later, and a little over, since this process renders the package-wide files after it.
# Measured on bench/run.py's tools, 0.44 to 0.52 gave the same times within the noise.
CHILD_SHARE = 0.48
# Below this share of the work after the last entity file, splitting is not worth a second plan of the entities.
MIN_CHILD_SHARE = 0.2

# What the child sends back: its files, its tools' export entries, and the parts of each of its spec files.
Theirs = tuple[dict[str, str], Fragments, dict[str, Any]]


@dataclass
class Split:
    ours: list[str]  # the spec files (relative) this process plans, in order
    theirs: list[str]  # the child's: the last ones
    join: Callable[[], Theirs | None]


def start(program: Program, names: ExportNames) -> Split | None:
    """Fork a child planning and rendering the last spec files of `program`, when that is possible and worth it;
    `names`: each flavour's name of each tool."""
    modules = program.modules
    if not all(m.source.rel.as_posix().endswith(".json") for m in modules):
        return None  # only JSON spec files are planned alike in any order of claims (as for edit rebuilds)
    weights = [_weight(m) for m in modules]
    total = sum(weights)
    if not worth_forking(total):
        return None
    last_entities = max((i for i, m in enumerate(modules) if m.entities), default=-1)
    split, theirs_work = len(modules), 0
    while split - 1 > last_entities and theirs_work < CHILD_SHARE * total:
        split -= 1
        theirs_work += weights[split]
    if theirs_work < MIN_CHILD_SHARE * total:
        return None
    order = [m.source.rel.as_posix() for m in modules]
    theirs = order[split:]
    entity_files = [rel for rel, m in zip(order, modules) if m.entities]
    child = partial(_theirs, program, entity_files + theirs, theirs, names)
    return Split(order[:split], theirs, in_background(total, child))


def _weight(module: SpecModule) -> int:
    """A spec file's planning and rendering work: its definitions and their properties."""
    schemas: list[Any] = [tool.input_schema for tool in module.tools]
    schemas += [entity.schema for entity in module.entities]
    work = 0
    for schema in schemas:
        properties = schema.get("properties") if isinstance(schema, JObject) else None
        work += 1 + (len(properties) if isinstance(properties, JObject) else 0)
    return work


def _theirs(
    program: Program, order: list[str], theirs: list[str], names: ExportNames
) -> Theirs | None:
    """In the child: plan the spec files `order` (the entity files, then its own), and render its own."""
    diags = Diagnostics()
    builder = PlanBuilder(program, diags, order=order)
    plan = builder.build()
    if len(diags):
        return None  # the caller plans everything itself, and reports it
    parts = {rel: builder.parts[rel] for rel in theirs}
    paths = {part.path for part in parts.values()}
    dotted = {part.dotted for part in parts.values()}
    files = format_all(
        {unit.path: unit.render() for unit in python_units(plan) if unit.path in paths}
    )
    rendered, fragments = tool_files(
        [tool for tool in plan.tools if tool.module in dotted], names
    )
    files.update(rendered)
    return files, fragments, {rel: module_document(part) for rel, part in parts.items()}


def finish(
    split: Split, builder: PlanBuilder, plan: PackagePlan
) -> tuple[dict[str, str], Fragments] | None:
    """The child's files and export entries, its spec files' modules added to `plan` (as reused ones) and their
    names claimed again by `builder`, which planned `split.ours`; None when the child's plan cannot be taken.
    """
    theirs = split.join()
    if theirs is None:
        return None
    files, fragments, documents = theirs
    try:
        parts = {rel: read_module(rel, documents[rel]) for rel in split.theirs}
        builder.extend(split.theirs, parts, plan)
    except (Unusable, ReplayMismatch, KeyError, TypeError, ValueError):
        return None
    return files, fragments
