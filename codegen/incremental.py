"""A rebuild as a per-file cache: compile the spec files whose outputs may differ, keep every other file's.

A spec file's module, tool schema files and export entries depend only on its own bytes and on the entities it
uses (their names and schemas), under the settings and the codegen the record was made with (codegen/cache.py
checks both): every name in a module is the module's own. So the last build's record (outside OUT) keeps, per
spec file, the digest of its bytes and what compiling it left (`ModuleParts`): the spec files whose entities it
uses, and what the package-wide files need of it. Its outputs are OUT's files, which the record's hashes vouch
for (`Previous`).

A rebuild compiles every file that is new, whose bytes changed, or that uses an entity of a changed, new or
removed file; it reads the files defining entities too, for the documents embedding them (not compiling them
again). Every other file keeps its outputs. The package-wide files (`__init__.py`, the subpackages', the export
files) are composed again from every file's part, each only when what it is made of changed: an edit that keeps
a file's names costs what that file costs, whatever the size of the package.

What only a compile of everything reports is left to one: a record that is not exactly as a build writes it,
a spec file other than JSON (the gram and Brimley front ends link files to each other), other outputs chosen,
any diagnostic at all (so that every message is the one a full compile gives), a name two files now define.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from .backends.python import ambiguous_names, python_units, subpackage_inits
from .backends.schemas import ExportSpans, dump_json, respliced_export, tool_fragment
from .cache import OutFiles, Previous
from .compile_result import CompileResult
from .config import EMIT_CHOICES
from .diagnostics import Diagnostics, SpecError
from .formatting import format_all
from .frontends import route
from .ir import SpecModule
from .passes.build_plan import ModuleParts, PlanBuilder, module_path, reused_module
from .passes.bundle import bundler_for, entity_ids
from .passes.check_schemas import check_schemas
from .passes.resolve import Program, apply_prefixes, build_namespace
from .plan import PackagePlan, ToolPlan
from .remotes import RemoteDocuments
from .sources import load_source
from .writer import MANIFEST, WriteError, case_collisions
from toolspec_runtime import exports

Order = list[
    tuple[str, str]
]  # every spec file (relative) and the sha256 of its bytes, in build order


class Unusable(Exception):
    """The record cannot be used for this rebuild."""


def init_key(plan: PackagePlan) -> str:
    """A digest of what the package `__init__` is made of (`backends/python.py: _render_init`): each module's
    name, whether it has tools, and what it exports; each tool's name and config model; the agents.
    """
    document = [
        [[m.dotted, bool(m.tools), m.exported_names()] for m in plan.modules],
        sorted([t.name, t.config_model or ""] for t in plan.tools),
        [[a.name, a.description, list(a.tools), a.metadata] for a in plan.agents],
    ]
    try:
        text = orjson.dumps(document)  # a fifth of json's time for 10,000 modules
    except orjson.JSONEncodeError:
        # a lone surrogate, a key that is no string: json takes them
        text = json.dumps(document, separators=(",", ":")).encode("ascii")
    return hashlib.sha256(text).hexdigest()


def parts_document(
    order: Order, modules: Mapping[str, Any], spans: ExportSpans, init: str
) -> dict[str, Any]:
    """What a build leaves in its record for the next one (plain JSON): `modules`, each spec file's
    `module_document`; `init`, the `init_key` of the plan."""
    return {
        "init": init,
        "order": [list(entry) for entry in order],
        "modules": modules,
        "exports": {
            flavour: {tool: list(span) for tool, span in tools.items()}
            for flavour, tools in spans.items()
        },
    }


def module_document(parts: ModuleParts) -> dict[str, Any]:
    if parts.document is not None:
        return parts.document  # type: ignore[no-any-return]
    return {
        "dotted": parts.dotted,
        "path": parts.path,
        "entities": [list(entity) for entity in parts.entities],
        "deps": sorted(parts.deps),
        "exported": parts.exported,
        "models": parts.models,
        "tools": [list(tool) for tool in parts.tools],
        "resources": parts.resources,
        "native": parts.native,
        "text": parts.text,
    }


def _text(value: Any) -> str:
    if type(value) is not str:
        raise Unusable
    return value


def _texts(value: Any) -> list[str]:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise Unusable
    return list(value)


# What reading a record's entry that is not as a build writes it raises (besides Unusable).
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


def read_module(rel: str, doc: Any) -> ModuleParts:
    """A file's entry of the record, checked as it is read; Unusable when it is not as a build writes it."""
    try:
        if type(doc) is not dict:
            raise Unusable
        parts = ModuleParts(_text(doc["dotted"]), _text(doc["path"]))
        if parts.path != "/".join(module_path(rel)) + ".py":
            raise Unusable
        parts.entities = [(_text(name), _text(cls)) for name, cls in doc["entities"]]
        parts.deps = set(_texts(doc["deps"]))
        parts.exported = _texts(doc["exported"])
        parts.models = _texts(doc["models"])
        for name, func, config, sql in doc["tools"]:
            if sql is not False or not (config is None or type(config) is str):
                raise Unusable  # a SQL tool is never reused (JSON specs have none)
            parts.tools.append((_text(name), _text(func), config, False))
        if doc["resources"] is not False:
            raise Unusable
        parts.native = _texts(doc["native"])
        parts.text = _texts(doc["text"])
    except _MALFORMED as exc:
        raise Unusable from exc
    parts.document = doc
    return parts


def _outline(doc: Any) -> tuple[Order, dict[str, Any], ExportSpans, str]:
    """The parts of a record, checked entry by entry but for the module entries (`read_module` reads one
    when it is needed); Unusable when anything is not as a build writes it."""
    try:
        init = _text(doc["init"])
        order = [(_text(rel), _text(sha)) for rel, sha in doc["order"]]
        modules = doc["modules"]
        if type(modules) is not dict or [rel for rel, _ in order] != list(modules):
            raise Unusable
        spans: ExportSpans = {}
        for flavour in exports.EXPORT_FILES:
            spans[flavour] = {}
            for tool, (name, start, end) in doc["exports"][flavour].items():
                if not (type(start) is int and type(end) is int and 0 <= start <= end):
                    raise Unusable
                spans[flavour][_text(tool)] = (_text(name), start, end)
    except _MALFORMED as exc:
        raise Unusable from exc
    return order, modules, spans, init


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
        order, documents, spans, init = _outline(record.parts_document())
        before = dict(order)
        changed = {rel for rel, sha in now if before.get(rel) != sha}
        gone = before.keys() - dict(now).keys()
        touched = changed | gone
        dirty = changed | {
            rel
            for rel, doc in documents.items()
            if rel not in gone and not touched.isdisjoint(_texts(doc["deps"]))
        }
        # Files defining entities are read again too, for the documents embedding their entities; unless a
        # change reaches them they keep their outputs (the record says which of their models are native).
        entity_files = {rel for rel, doc in documents.items() if doc["entities"]} - gone
        kept = {rel: read_module(rel, documents[rel]) for rel in entity_files - dirty}
    except (*_MALFORMED, Unusable):
        return None
    diags = Diagnostics()
    program = _namespace(previous, dirty | entity_files, prefixes, diags)
    if program is None or len(diags):
        return None  # a full compile reports the problem
    builder = PlanBuilder(program, diags, kept)
    plan = builder.build()
    if len(diags):
        return None
    try:
        return _Rebuild(previous, now, documents, spans, init).result(plan, builder)
    except (*_MALFORMED, Unusable):
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

    def result(self, plan: PackagePlan, builder: PlanBuilder) -> CompileResult | None:
        planned = builder.parts
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
        result.parts = parts_document(self.now, modules, new_spans, init)
        if case_collisions([*files, *self.kept, MANIFEST]):
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
    package must hold once (a module, a tool, an entity, an entity's class, a tool's method) is defined by two
    files, or a name two modules define would need a warning."""
    planned = {module.source_display: module for module in plan.modules}
    modules = [planned.get(rel) or reused_module(rel, every[rel]) for rel in order]
    whole = replace(plan, modules=modules, tools=[t for m in modules for t in m.tools])
    names = Counter(("module", m.dotted) for m in modules)
    for parts in every.values():
        names.update(("name", entity) for entity, _ in parts.entities)
        names.update(("class", cls) for _, cls in parts.entities)
    names.update(("name", t.name) for t in whole.tools)  # one namespace (resolve.py)
    names.update(("method", t.func) for t in whole.tools)
    folders = {
        m.dotted.rsplit(".", depth)[0]
        for m in modules
        for depth in range(1, m.dotted.count(".") + 1)
    }
    if max(names.values(), default=0) > 1 or any(
        ("module", f) in names for f in folders
    ):
        return None
    return None if ambiguous_names(whole) else whole


def _namespace(
    previous: Previous, read: set[str], prefixes: Mapping[Path, str], diags: Diagnostics
) -> Program | None:
    """The namespace of the spec files `read`, read and checked again; None when one cannot be read as it
    was scanned."""
    parsed: list[SpecModule] = []
    for display, rel, sha in previous.sources:
        if rel not in read:
            continue
        source = load_source(Path(display), Path(rel), diags)
        front_end = route(Path(display))
        if source is None or front_end is None:
            return None
        if _sha(source.text) != sha:
            return None  # changed since it was scanned
        try:
            parsed.append(front_end(source, diags))
        except (SpecError, RecursionError):
            return None
    parsed = apply_prefixes(parsed, prefixes)
    dropped: list[Any] = []
    parsed = check_schemas(parsed, diags, dropped=dropped)
    if dropped or len(diags):
        return None
    program = build_namespace(parsed, diags)
    if entity_ids(program.entities):
        return (
            None  # who refers to an entity by its `$id` is not recorded: a full compile
        )
    # as in a full compile (the rebuild record is off with a ref-map, so no remote document is mapped)
    program.bundler = bundler_for(program, RemoteDocuments({}, diags).fetch, diags)
    return program


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
