"""A rebuild as a per-file cache: compile the spec files whose outputs may differ, keep every other file's.

A spec file's module, tool schema files and export entries depend only on its own bytes and on the entities it
uses (their names and schemas), under the settings and the codegen the record was made with (codegen/cache.py
checks both): every name in a module is the module's own. So the last build's record (outside OUT) keeps, per
spec file, the digest of its bytes and what compiling it left (`ModuleParts`): the spec files whose entities it
uses, and what the package-wide files need of it. Its outputs are OUT's files, which the record's hashes vouch
for (`Previous`).

A rebuild compiles every file that is new, whose bytes changed, or that uses an entity of a changed, new or
removed file; it reads the files defining the entities those embed too (not compiling them again). Every other
file keeps its outputs. The package-wide files (`__init__.py`, the subpackages', the export files) are composed
again from every file's part, each only when what it is made of changed: an edit that keeps a file's names costs
what that file costs, whatever the size of the package.

What only a compile of everything reports is left to one: a record that is not exactly as a build writes it,
a spec file other than JSON (the gram and Brimley front ends link files to each other), other outputs chosen,
any diagnostic at all (so that every message is the one a full compile gives), a name two files now define, an
entity with a `$id` (who refers to one by it is no dep).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from .backends.python import ambiguous_names, python_units, subpackage_inits
from .backends.schemas import ExportSpans, dump_json, respliced_export, tool_fragment
from .cache import OutFiles, Previous
from .compile_result import CompileResult
from .config import EMIT_CHOICES
from .diagnostics import Diagnostics
from .formatting import format_all
from .module_parts import (
    MALFORMED,
    ModuleParts,
    Order,
    Unusable,
    clashes,
    init_key,
    module_document,
    outline,
    parts_document,
    parts_of,
    read_module,
    reused_module,
    texts,
)
from .passes.build_plan import PlanBuilder
from .passes.naming import schemas_path
from .split import read_half
from .plan import PackagePlan, ToolPlan
from .writer import MANIFEST, WriteError, case_collisions
from toolspec_runtime import exports


def compile_changed(
    previous: Previous, emit: tuple[str, ...], prefixes: Mapping[Path, str]
) -> CompileResult | None:
    """The CompileResult of a rebuild that keeps what it can of `previous`; None when a full compile is
    needed instead (see the module's doc)."""
    record = previous.record
    if record.folded or record.every or tuple(emit) != EMIT_CHOICES:
        return None
    now = [(rel, sha) for _, rel, sha in previous.sources]
    if not all(rel.endswith(".json") for rel, _ in now):
        return None
    try:
        order, documents, spans, init = outline(record.parts_document())
        before = dict(order)
        changed = {rel for rel, sha in now if before.get(rel) != sha}
        gone = before.keys() - dict(now).keys()
        touched = changed | gone
        dirty = changed | {
            rel
            for rel, doc in documents.items()
            if rel not in gone and not touched.isdisjoint(texts(doc["deps"]))
        }
        # The entity files the files compiled again embed (`deps`: at any depth) are read too, for their
        # documents, and keep their outputs unless a change reaches them; all of them for a file new to the
        # record. A file now using an unread entity, or taking an unread file's name, is caught by a reference
        # left unresolved or by `clashes`, and compiled in full.
        entity_files = {rel for rel, doc in documents.items() if doc["entities"]} - gone
        deps = {
            dep
            for rel in dirty & before.keys()
            for dep in texts(documents[rel]["deps"])
        }
        used = entity_files if changed - before.keys() else entity_files & deps
        kept = {rel: read_module(rel, documents[rel]) for rel in used - dirty}
    except (*MALFORMED, Unusable):
        return None
    read = dirty | used
    found = [
        (Path(shown), Path(rel)) for shown, rel, _ in previous.sources if rel in read
    ]
    half = read_half(found, prefixes, {})  # (the record is off with a ref-map)
    if half is None or half[0].sources != [s for s in previous.sources if s[1] in read]:
        return None  # a full compile reports the problem (or a file changed since it was scanned)
    program, diags = half[1], Diagnostics()
    plan = PlanBuilder(program, diags, kept).build()
    if len(diags):
        return None
    try:
        return _Rebuild(previous, now, documents, spans, init).result(plan)
    except (*MALFORMED, Unusable):
        return None


class _Rebuild:
    """The files of a rebuild: those of the files compiled again (`plan`), the others kept as OUT has them,
    the package-wide ones composed again where what they are made of changed."""

    def __init__(
        self,
        previous: Previous,
        now: Order,
        documents: Mapping[str, Any],
        spans: ExportSpans,
        init: str,
    ) -> None:
        self.previous, self.now, self.documents = previous, now, documents
        self.spans, self.init = spans, init
        self.out: OutFiles = previous.out
        self.kept: dict[str, tuple[str, int]] = {}

    def result(self, plan: PackagePlan) -> CompileResult | None:
        planned = parts_of(plan)
        fresh_modules = {parts.dotted for parts in planned.values()}
        fresh = [tool for tool in plan.tools if tool.module in fresh_modules]
        same_files = [rel for rel, _ in self.now] == list(self.documents)
        # When every file compiled again has the names it had, the package's names are as they were (and were
        # without a clash), and so are the package-wide Python files: only the other files' entries are read.
        if same_files and all(
            _summary(parts) == _summary(read_module(rel, self.documents[rel]))
            for rel, parts in planned.items()
        ):
            whole, init, names = plan, self.init, self._names_as_before()
            skip = {"__init__.py", *subpackage_inits(plan)}
        else:
            every = {
                rel: planned.get(rel) or read_module(rel, self.documents[rel])
                for rel, _ in self.now
            }
            found = _whole(plan, every, [rel for rel, _ in self.now])
            if found is None:
                return None  # a name two files define: a full compile reports it
            whole, init = found, init_key(found)
            names = {
                flavour: exports.export_names([t.name for t in whole.tools], flavour)
                for flavour in self.spans
            }
            skip = {"__init__.py"} if init == self.init else set()
            skip.update(
                subpackage_inits(whole, [d["dotted"] for d in self.documents.values()])
            )
            self._keep(["py.typed", *skip])
            for rel, parts in every.items():
                if rel not in planned:
                    self._keep(
                        [parts.path, *(f"schemas/{t[1]}.json" for t in parts.tools)]
                    )
                    # its schema constants, if it has any (the last build wrote them with it)
                    data = schemas_path(parts.path)
                    self._keep([data] if data in self.out.files else [])
                    self._keep(
                        [f"schemas/entities/{cls}.json" for _, cls in parts.entities]
                    )
        skip.update(m.path for m in whole.modules if m.source_display not in planned)
        files: dict[str, str | bytes] = dict(
            format_all({u.path: u.render() for u in python_units(whole, skip=skip)})
        )
        made = self._tool_files(fresh, plan, files)
        new_spans = self._exports(files, made, names)
        if whole is plan:  # every file of OUT not made again is kept
            self._keep(
                [rel for rel in self.out.files if rel not in files and rel != MANIFEST]
            )
        if self.kept.keys() & files.keys():
            raise Unusable  # a file both kept and made again: the record is not as a build writes it
        previous = self.previous
        result = CompileResult(
            dict(sorted(files.items())), Diagnostics(), previous.read, previous.ignored
        )
        result.sources = list(previous.sources)
        result.vouched, result.kept = self.out.files, self.kept
        result.tools = previous.record.tools if whole is plan else len(whole.tools)
        modules = {
            rel: (
                module_document(planned[rel]) if rel in planned else self.documents[rel]
            )
            for rel, _ in self.now
        }
        result.parts = parts_document(self.now, modules, new_spans, init, ids=False)
        paths = {*files, *self.kept, MANIFEST}
        # (the paths of the last build, which a record vouches for, had none: 30,000 paths need not be folded)
        if paths != self.out.files.keys() and case_collisions(paths):
            return None  # a full compile reports it, at the specs making them
        return result

    def _names_as_before(self) -> dict[str, dict[str, str]]:
        """Every tool's exported names, by flavour, as the record has them (the same tools as before)."""
        return {
            flavour: {tool: name for tool, (name, _, _) in spans.items()}
            for flavour, spans in self.spans.items()
        }

    def _keep(self, rels: list[str]) -> None:
        for rel in rels:
            entry = self.out.files.get(rel)
            if entry is None:
                raise Unusable
            self.kept[rel] = entry

    def _tool_files(
        self, fresh: list[ToolPlan], plan: PackagePlan, files: dict[str, str | bytes]
    ) -> list[ToolPlan]:
        """Add the schema files of the tools compiled again (`fresh`) and of the entities planned again to
        `files`; the tools whose definition for LLMs is not what it was.

        A tool compiled again whose definition is what it was (its schema file, which names the tool, has the
        same bytes) has the same entries in the export files: they are a function of that definition and the
        exported name, so they are copied like those of the tools not compiled again.
        """
        made = []
        for tool in fresh:
            rel = f"schemas/{tool.func}.json"
            text = files[rel] = dump_json(tool.llm_schema)
            if self.out.files.get(rel, ("",))[0] != _sha(text):
                made.append(tool)
        for name, schema in plan.entity_schemas.items():
            files[f"schemas/entities/{plan.entity_classes[name]}.json"] = dump_json(
                schema
            )
        return sorted(made, key=lambda tool: tool.name)

    def _exports(
        self,
        files: dict[str, str | bytes],
        made: list[ToolPlan],
        names: Mapping[str, Mapping[str, str]],
    ) -> ExportSpans:
        """Add the export files to `files`: the entries of the tools `made` anew, the others copied from the
        files as they were; `names`: every tool's exported name, by flavour. Where each entry now stands.
        """
        spans: ExportSpans = {}
        for flavour, exported in names.items():
            fragments = {
                tool.name: tool_fragment(tool.llm_schema, flavour, exported[tool.name])
                for tool in made
            }
            rel = f"schemas/{exports.EXPORT_FILES[flavour]}"
            if rel not in self.out.files:
                raise Unusable
            try:
                before = self.out.bytes_of(rel)
                files[rel], spans[flavour] = respliced_export(
                    flavour, before, fragments, self.spans[flavour], exported
                )
            except (OSError, WriteError, ValueError) as exc:
                raise Unusable from exc
        return spans


def _summary(parts: ModuleParts) -> tuple[Any, ...]:
    """What the package-wide Python files and checks read of a file's part."""
    return (parts.dotted, parts.entities, parts.exported, parts.tools, parts.models)


def _whole(
    plan: PackagePlan, every: Mapping[str, ModuleParts], order: list[str]
) -> PackagePlan | None:
    """The plan of the whole package, the files not compiled again as reused modules; None when a name the
    package holds once is defined by two files, or a name two modules define would need a warning.
    """
    planned = {module.source_display: module for module in plan.modules}
    modules = [planned.get(rel) or reused_module(rel, every[rel]) for rel in order]
    whole = replace(plan, modules=modules, tools=[t for m in modules for t in m.tools])
    return None if clashes(every.values()) or ambiguous_names(whole) else whole


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
