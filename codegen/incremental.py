"""A rebuild after an edit: compile the spec files that changed and those that depend on them, reuse the rest.

The last build's record (codegen/cache.py, outside OUT) keeps, for each spec file, the digest of its bytes and
what compiling it left (`ModuleParts`): its module's names, its claims on the package's namespace in order, the
spec files whose entities it embeds, and what the package-wide files need of it; and where each tool stands in
the export files. Its outputs themselves are OUT's files, which the record's hashes vouch for (`Previous`).

A rebuild compiles again every file whose bytes changed and every file embedding an entity of one of those; it
reads the files defining entities (whose schemas the others embed) without compiling them again. Every other
file keeps its outputs when its claims, replayed in build order, still get the same names: nothing it depends
on changed, so a compile would write the same bytes. The package-wide files (`__init__.py`, the export files)
are composed again from every module's part.

Most edits (a description, a type) leave every name as it was. A file compiled again that asks for the same
names in the same order as the last build gets the same answers, whatever the other files claimed: so it is
planned alone, answered from its own recorded claims (`PlanBuilder.build_in_place`), and when it also exports
the same names and tools, nothing else of the package changes but the export files' entries of its tools.
Such an edit reads only its own entries of the record (and those of the entity files), and costs what that
file costs, not what the package does.

Anything out of the ordinary means a full compile, whose result is the same by construction: a record that is
not exactly as expected, a spec file added, removed or of a kind other than JSON (whose front ends have no
cross-file links beyond entities), other outputs chosen, any diagnostic at all (so that every message is the one
a full compile gives, and a warning of an unchanged file is not lost), a name now claimed otherwise.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, AnyStr

import orjson

from .backends.python import python_units, subpackage_inits
from .backends.schemas import (
    ExportSpans,
    dump_json,
    splice_export,
    tiles,
    tool_fragment,
)
from .cache import OutFiles, Previous
from .compile_result import CompileResult
from .config import EMIT_CHOICES
from .diagnostics import Diagnostics, SpecError
from .formatting import format_all
from .frontends import route
from .ir import SpecModule
from .passes.build_plan import (
    Claim,
    ModuleParts,
    PlanBuilder,
    ReplayMismatch,
    module_path,
)
from .passes.check_schemas import check_schemas
from .passes.resolve import Program, apply_prefixes, build_namespace
from .passes.bundle import bundler_for, entity_ids
from .remotes import RemoteDocuments
from .plan import PackagePlan, ToolPlan
from toolspec_runtime import exports
from .sources import load_source
from .writer import MANIFEST, WriteError, case_collisions

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
    order: Order,
    modules: Mapping[str, Any],
    spans: ExportSpans,
    init: str,
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
        "entity_claims": [
            [entity, label, list(names), got]
            for entity, (label, names, got) in parts.entity_claims
        ],
        "claims": [_claim_document(claim) for claim in parts.claims],
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
    if type(value) is not list or not set(map(type, value)) <= _STRING:
        raise Unusable
    return list(value)


_STRING = {str}


# A claim that got the one name it asked for (most of them) is kept as "<scope letter><name>".
_SCOPES = {"c": "classes", "f": "functions", "p": "prefixes", "k": "constants"}
_LETTERS = {label: letter for letter, label in _SCOPES.items()}


def _claim_document(claim: Claim) -> Any:
    label, names, got = claim
    if len(names) == 1 and got == names[0]:
        return _LETTERS[label] + got
    return [label, list(names), got]


def _read_claim(entry: Any) -> Claim:
    if type(entry) is str:
        label = _SCOPES.get(entry[:1])
        if label is None or len(entry) < 2:
            raise Unusable
        return (label, (entry[1:],), entry[1:])
    return _claim(*entry)


def _claim(label: Any, names: Any, got: Any) -> Claim:
    if label not in ("classes", "functions", "prefixes", "constants"):
        raise Unusable
    names = _texts(names)
    if not names or not (type(got) is bool or type(got) is str):
        raise Unusable
    return (label, tuple(names), got)


def _read_claims(entries: Any) -> list[Claim]:
    """A module's recorded claims, checked as they are read (when first replayed)."""
    try:
        if type(entries) is not list:
            raise Unusable
        return [_read_claim(entry) for entry in entries]
    except (TypeError, ValueError, IndexError) as exc:
        raise Unusable from exc


# What reading a record's entry that is not as a build writes it raises (besides Unusable).
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


def read_module(rel: str, doc: Any) -> ModuleParts:
    if type(doc) is not dict:
        raise Unusable
    parts = ModuleParts(_text(doc["dotted"]), _text(doc["path"]))
    if parts.path != "/".join(module_path(rel)) + ".py":
        raise Unusable
    for entry in doc["entity_claims"]:
        entity, label, names, got = entry
        parts.entity_claims.append((_text(entity), _claim(label, names, _text(got))))
    parts.recorded = partial(_read_claims, doc["claims"])
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
    parts.document = doc
    return parts


def _read(doc: Any) -> tuple[Order, dict[str, ModuleParts], ExportSpans, str]:
    """The parts of a record, checked entry by entry; Unusable when anything is not as a build writes it."""
    order, documents, spans, init = _outline(doc)
    try:
        modules = {rel: read_module(rel, entry) for rel, entry in documents.items()}
    except _MALFORMED as exc:
        raise Unusable from exc
    return order, modules, spans, init


def _outline(doc: Any) -> tuple[Order, dict[str, Any], ExportSpans, str]:
    """The parts of a record, checked entry by entry but for the module entries (`read_module` reads one
    when it is needed); Unusable when anything is not as a build writes it."""
    try:
        init = _text(doc["init"])
        order = [(_text(rel), _text(sha)) for rel, sha in doc["order"]]
        modules = doc["modules"]
        if type(modules) is not dict:
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
    if [rel for rel, _ in order] != list(modules):
        raise Unusable
    return order, modules, spans, init


def compile_changed(
    previous: Previous,
    emit: tuple[str, ...],
    prefixes: Mapping[Path, str],
) -> CompileResult | None:
    """The CompileResult of a rebuild that reuses what it can of `previous`; None when a full compile is
    needed instead (see the module's doc)."""
    record = previous.record
    if record.folded or record.every or tuple(emit) != EMIT_CHOICES:
        return None
    try:
        order, documents, spans, init = _outline(record.parts_document())
    except Unusable:
        return None
    now = [(rel, sha) for _, rel, sha in previous.sources]
    if [rel for rel, _ in now] != [rel for rel, _ in order]:
        return None  # a spec file added or removed
    if not all(rel.endswith(".json") for rel, _ in now):
        return None
    changed = {rel for (rel, sha), (_, before) in zip(now, order) if sha != before}
    try:
        dirty = changed | {
            rel for rel, doc in documents.items() if not changed.isdisjoint(doc["deps"])
        }
        # Files defining entities are read again too, for the documents embedding their entities; unless an
        # edit reaches them they are reused like the others (the record says which of their models are native).
        read = dirty | {rel for rel, doc in documents.items() if doc["entity_claims"]}
        recorded = {rel: read_module(rel, documents[rel]) for rel in read}
    except (*_MALFORMED, Unusable):
        return None
    diags = Diagnostics()
    program = _namespace(previous, read, prefixes, diags)
    if program is None or len(diags):
        return None  # a full compile reports the problem
    edit = _Edit(previous, now, program, spans, init)
    in_place = edit.in_place(
        [rel for rel, _ in order if rel in dirty], recorded, documents
    )
    if in_place is not None:
        return _without_collisions(in_place)
    try:
        modules = {
            rel: recorded[rel] if rel in recorded else read_module(rel, doc)
            for rel, doc in documents.items()
        }
    except (*_MALFORMED, Unusable):
        return None
    if _duplicates(modules, read, program):
        return None
    return _without_collisions(edit.replayed(dirty, modules))


def _without_collisions(result: CompileResult | None) -> CompileResult | None:
    """`result`, unless two of its outputs (those it keeps included) are one file where case is ignored: a
    full compile reports that, at the specs making them."""
    if result is None or result.files is None:
        return result
    return None if case_collisions([*result.files, *result.kept, MANIFEST]) else result


class _Edit:
    """A rebuild after an edit: the last build (`previous`, its record's `spans` and `init`), the spec files
    now (relative, sha256) in build order, and the namespace of those read again (`program`).
    """

    def __init__(
        self,
        previous: Previous,
        now: Order,
        program: Program,
        spans: ExportSpans,
        init: str,
    ) -> None:
        self.previous, self.now, self.program = previous, now, program
        self.spans, self.init = spans, init

    def in_place(
        self,
        planned: list[str],
        recorded: Mapping[str, ModuleParts],
        documents: Mapping[str, Any],
    ) -> CompileResult | None:
        """The rebuild when the files `planned` again (in build order) ask for every name just as they did,
        and export the same names and tools: then every other name, module and file of the package is as it
        was, and only their own files and the export files are made again. None otherwise. `recorded`: the
        parts of the files read again, as the record has them; `documents`: every file's entry there.
        """
        diags = Diagnostics()
        planned_set = set(planned)
        reused = {rel: p for rel, p in recorded.items() if rel not in planned_set}
        builder = PlanBuilder(self.program, diags, reused, None, recorded)
        try:
            plan = builder.build_in_place(planned)
        except (ReplayMismatch, Unusable):
            return None
        if len(diags):
            return None
        for rel in planned:
            new, old = builder.parts[rel], recorded[rel]
            if (new.entity_claims, new.exported, new.models, new.tools) != (
                old.entity_claims,
                old.exported,
                old.models,
                old.tools,
            ):
                return None
        skip = {"__init__.py", *subpackage_inits(plan)}  # as they were
        files: dict[str, str | bytes] = dict(
            format_all({u.path: u.render() for u in python_units(plan, skip=skip)})
        )
        try:
            made = self._tool_files(plan.tools, plan, files)
            # the same tools as before, so exported under the same names
            names = {
                flavour: {tool: name for tool, (name, _, _) in spans.items()}
                for flavour, spans in self.spans.items()
            }
            new_spans = self._exports(files, made, names)
        except (KeyError, Unusable):
            return None  # a tool the record does not place: not as a build writes it
        kept = {
            rel: entry
            for rel, entry in self.previous.out.files.items()
            if rel not in files and rel != MANIFEST
        }
        modules = {
            rel: module_document(builder.parts[rel]) if rel in planned_set else doc
            for rel, doc in documents.items()
        }
        result = self._result(dict(sorted(files.items())), kept)
        result.tools = self.previous.record.tools
        result.parts = parts_document(self.now, modules, new_spans, self.init)
        return result

    def replayed(
        self, dirty: set[str], modules: Mapping[str, ModuleParts]
    ) -> CompileResult | None:
        """The rebuild planning the `dirty` files again in the namespace the others' recorded claims,
        replayed in build order, make; None when one of them would now get another name.
        """
        diags = Diagnostics()
        reused = {rel: parts for rel, parts in modules.items() if rel not in dirty}
        builder = PlanBuilder(
            self.program, diags, reused, [rel for rel, _ in self.now], modules
        )
        try:
            plan = builder.build()
        except (ReplayMismatch, Unusable):
            return None
        if len(diags):
            return None
        now_init = init_key(plan)
        try:
            files, kept, new_spans = self._files(plan, reused, now_init == self.init)
        except Unusable:
            return None
        result = self._result(files, kept)
        result.tools = len(plan.tools)
        every = {**reused, **builder.parts}
        documents = {rel: module_document(every[rel]) for rel, _ in self.now}
        result.parts = parts_document(self.now, documents, new_spans, now_init)
        return result

    def _result(
        self, files: dict[str, str | bytes], kept: dict[str, tuple[str, int]]
    ) -> CompileResult:
        previous = self.previous
        result = CompileResult(files, Diagnostics(), previous.read, previous.ignored)
        result.sources = list(previous.sources)
        result.vouched, result.kept = previous.out.files, kept
        return result

    def _files(
        self, plan: PackagePlan, reused: Mapping[str, ModuleParts], same_init: bool
    ) -> tuple[dict[str, str | bytes], dict[str, tuple[str, int]], ExportSpans]:
        """Every file of OUT: those of the modules compiled again rendered, those of the reused ones kept as
        OUT has them (path -> sha256, size: never read), and the package-wide ones composed
        again (`__init__.py` only when what it is made of changed: `same_init` when it did not).
        """
        out = self.previous.out
        kept: dict[str, tuple[str, int]] = {}

        def keep(rel: str) -> None:
            entry = out.files.get(rel)
            if entry is None:
                raise Unusable
            kept[rel] = entry

        # A rebuild after an edit has the same spec files, so the same modules in each subpackage.
        reused_paths = {parts.path for parts in reused.values()}
        for rel in subpackage_inits(plan):
            reused_paths.add(rel)
            keep(rel)
        if same_init:
            reused_paths.add("__init__.py")
            keep("__init__.py")
        units = python_units(plan, skip=reused_paths)
        files: dict[str, str | bytes] = dict(
            format_all({unit.path: unit.render() for unit in units})
        )
        kept_modules = {parts.dotted for parts in reused.values()}
        for parts in reused.values():
            keep(parts.path)
            for _, func, _, _ in parts.tools:
                keep(f"schemas/{func}.json")
            for _, (_, _, cls) in parts.entity_claims:
                keep(f"schemas/entities/{cls}.json")
        keep("py.typed")
        fresh = [tool for tool in plan.tools if tool.module not in kept_modules]
        made = self._tool_files(fresh, plan, files)
        tools = [tool.name for tool in plan.tools]
        new_spans = self._exports(
            files,
            made,
            {flavour: exports.export_names(tools, flavour) for flavour in self.spans},
        )
        if kept.keys() & files.keys():
            raise Unusable  # a file both kept and made again: the record is not as a build writes it
        return dict(sorted(files.items())), kept, new_spans

    def _tool_files(
        self, fresh: list[ToolPlan], plan: PackagePlan, files: dict[str, str | bytes]
    ) -> list[ToolPlan]:
        """Add the schema files of the tools compiled again (`fresh`) and of the entities planned again to
        `files`; the tools whose definition for LLMs is not what it was.

        A tool compiled again whose definition is what it was (its schema file, which names the tool, has the
        same bytes) has the same entries in the export files: they are a function of that definition and the
        exported name, so they are copied like those of the tools not compiled again.
        """
        recorded = self.previous.out.files
        made = []
        for tool in fresh:
            rel = f"schemas/{tool.func}.json"
            text = files[rel] = dump_json(tool.llm_schema)
            if recorded.get(rel, ("",))[0] != _sha(text):
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
            files[rel], spans[flavour] = _export_file(
                flavour,
                _bytes_of(self.previous.out, rel),
                fragments,
                self.spans[flavour],
                exported,
            )
        return spans


def _namespace(
    previous: Previous,
    read: set[str],
    prefixes: Mapping[Path, str],
    diags: Diagnostics,
) -> Program | None:
    """The namespace of the spec files `read`, read and checked again; None
    when one cannot be read as it was scanned."""
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


def _duplicates(
    modules: Mapping[str, ModuleParts], needed: set[str], program: Program
) -> bool:
    """Whether a name is defined twice: in the files read again, or there and in one not read."""
    names = Counter(
        name
        for rel, parts in modules.items()
        if rel not in needed
        for name in (
            *(entity for entity, _ in parts.entity_claims),
            *(tool[0] for tool in parts.tools),
        )
    )
    names.update([*program.entities, *program.tools])
    return any(count > 1 for count in names.values())


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _export_file(
    flavour: str,
    before: bytes,
    made: Mapping[str, str],
    spans: Mapping[str, tuple[str, int, int]],
    names: Mapping[str, str],
) -> tuple[str | bytes, dict[str, tuple[str, int, int]]]:
    """An export file again (`before`: as OUT has it): the entries `made` anew, the others copied from where
    `spans` places them; every tool `names` has, in the order of their names, exported as it says. As bytes
    when ASCII.
    """
    if before.isascii() and all(fragment.isascii() for fragment in made.values()):
        # ASCII: the recorded offsets (in characters) are offsets in the bytes, which are spliced as they are
        # (decoding and encoding 80 MB of export files again was a tenth of an edit of 10,000 tools)
        remade = {tool: fragment.encode("ascii") for tool, fragment in made.items()}
        return _spliced(flavour, before, remade, spans, names)
    return _spliced(flavour, _decoded(before), made, spans, names)


def _spliced(
    flavour: str,
    before: AnyStr,
    made: Mapping[str, AnyStr],
    spans: Mapping[str, tuple[str, int, int]],
    names: Mapping[str, str],
) -> tuple[AnyStr, dict[str, tuple[str, int, int]]]:
    """An export file again: the entries `made` anew, the others copied from where `spans` (the record) places
    them in the file as it was (`before`)."""
    # the recorded places must tile the file exactly (a damaged record is caught here, not copied from)
    places = [(start, end) for _, (_, start, end) in sorted(spans.items())]
    if not tiles(flavour, before, places):
        raise Unusable
    entries: list[tuple[str, str, AnyStr | tuple[int, int]]] = []
    for tool, name in sorted(names.items()):
        if tool in made:
            entries.append((tool, name, made[tool]))
            continue
        recorded = spans.get(tool)
        if recorded is None or recorded[0] != name:
            raise Unusable
        entries.append((tool, name, recorded[1:]))
    return splice_export(flavour, before, entries)


def _bytes_of(out: OutFiles, rel: str) -> bytes:
    """A file of OUT the record vouches for."""
    if rel not in out.files:
        raise Unusable
    try:
        return out.bytes_of(rel)
    except (OSError, WriteError) as exc:
        raise Unusable from exc


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Unusable from exc
