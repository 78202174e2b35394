"""What a build leaves in its rebuild record for each spec file (`ModuleParts`), and reading it back.

Every name in a spec file's module is its own, so what the package-wide files need of a file (its module, its
entities' classes, what it exports, its tools) and which files' entities it uses are enough to keep its outputs
while other files change (codegen/incremental.py) or to take a file planned in another process (split.py).
The record is untrusted input: each entry is checked as it is read, and anything not as a build writes it
raises `Unusable` (a full compile then).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from .backends.schemas import ExportSpans
from .passes.naming import module_path
from .plan import ANY, ModulePlan, PackagePlan, ToolPlan
from toolspec_runtime import exports

# every spec file (relative) and the sha256 of its bytes, in build order
Order = list[tuple[str, str]]


class Unusable(Exception):
    """The record cannot be used for this rebuild."""


@dataclass
class ModuleParts:
    """What a build of one spec file left, for reusing its outputs unchanged: where its module is, the classes of
    the entities it defines, the spec files whose entities it uses, and what the package-wide files need of it.
    Every name in it is the file's own (a module is named within itself), so it holds whatever the other files.
    """

    dotted: str
    path: str
    entities: list[tuple[str, str]] = field(default_factory=list)  # (entity, class)
    deps: set[str] = field(
        default_factory=set
    )  # spec files (relative) whose entities it uses
    exported: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    tools: list[tuple[str, str, str | None, bool]] = field(
        default_factory=list
    )  # (wire name, function name, config model, has SQL) of each tool
    resources: bool = False
    native: list[str] = field(default_factory=list)  # its models that are NativeModels
    text: list[str] = field(
        default_factory=list
    )  # ... whose JSON text Pydantic may read
    # the rebuild record's entry these parts were read from (codegen/incremental.py), written back as it was
    document: Any = field(default=None, compare=False, repr=False)


@dataclass
class ReusedModule(ModulePlan):
    """A module of the last build (or of the other half of a split build), unchanged: only what the
    package-wide files read of it."""

    exported: list[str] = field(default_factory=list)

    def exported_names(self) -> list[str]:
        return list(self.exported)


def reused_module(rel: str, parts: ModuleParts) -> ReusedModule:
    plan = ReusedModule(parts.dotted, parts.path, rel, exported=parts.exported)
    plan.tools = [
        ToolPlan(
            name, func, "", parts.dotted, None, "", "", None, ANY, None, (), {}, config
        )
        for name, func, config, _ in parts.tools
    ]
    plan.entities = [cls for _, cls in parts.entities]
    return plan


def clashes(every: Iterable[ModuleParts]) -> bool:
    """Whether a name the package holds once (a module or a folder's package, an entity or tool, an entity's
    class, a tool's method) comes from two of the files `every`: a full compile then reports which.
    """
    names: Counter[tuple[str, str]] = Counter()
    for parts in every:
        names[("module", parts.dotted)] += 1
        names.update(
            ("name", entity) for entity, _ in parts.entities
        )  # one namespace (resolve.py)
        names.update(("class", cls) for _, cls in parts.entities)
        names.update(("name", tool[0]) for tool in parts.tools)
        names.update(("method", tool[1]) for tool in parts.tools)
    folders = {
        dotted.rsplit(".", depth)[0]
        for kind, dotted in names
        if kind == "module"
        for depth in range(1, dotted.count(".") + 1)
    }
    return max(names.values(), default=0) > 1 or any(
        ("module", f) in names for f in folders
    )


def parts_of(plan: PackagePlan) -> dict[str, ModuleParts]:
    """The parts of every module `plan` planned (by spec file, relative), as a record keeps them."""
    entity_of = {cls: name for name, cls in plan.entity_classes.items()}
    parts: dict[str, ModuleParts] = {}
    for module in plan.modules:
        if isinstance(module, ReusedModule):
            continue
        native = plan.native.get(module.dotted, set())
        text = plan.json_native.get(module.dotted, set())
        models = [model.class_name for model in module.models]
        parts[module.source_display] = ModuleParts(
            module.dotted,
            module.path,
            [(entity_of[cls], cls) for cls in module.entities],
            set(module.deps),
            module.exported_names(),
            models,
            [(t.name, t.func, t.config_model, t.sql is not None) for t in module.tools],
            bool(module.resources),
            [name for name in models if name in native],
            [name for name in models if name in text],
        )
    return parts


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
    order: Order, modules: Mapping[str, Any], spans: ExportSpans, init: str, ids: bool
) -> dict[str, Any]:
    """What a build leaves in its record for the next one (plain JSON): `modules`, each spec file's
    `module_document`; `init`, the `init_key` of the plan; `ids`, whether an entity has a `$id` (who refers to
    an entity by it is not among a module's `deps`)."""
    return {
        "init": init,
        "ids": ids,
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


def texts(value: Any) -> list[str]:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise Unusable
    return list(value)


# What reading a record's entry that is not as a build writes it raises (besides Unusable).
MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


def read_module(rel: str, doc: Any) -> ModuleParts:
    """A file's entry of the record, checked as it is read; Unusable when it is not as a build writes it."""
    try:
        if type(doc) is not dict:
            raise Unusable
        parts = ModuleParts(_text(doc["dotted"]), _text(doc["path"]))
        if parts.path != "/".join(module_path(rel)) + ".py":
            raise Unusable
        parts.entities = [(_text(name), _text(cls)) for name, cls in doc["entities"]]
        parts.deps = set(texts(doc["deps"]))
        parts.exported = texts(doc["exported"])
        parts.models = texts(doc["models"])
        for name, func, config, sql in doc["tools"]:
            if sql is not False or not (config is None or type(config) is str):
                raise Unusable  # a SQL tool is never reused (JSON specs have none)
            parts.tools.append((_text(name), _text(func), config, False))
        if doc["resources"] is not False:
            raise Unusable
        parts.native = texts(doc["native"])
        parts.text = texts(doc["text"])
    except MALFORMED as exc:
        raise Unusable from exc
    parts.document = doc
    return parts


def outline(doc: Any) -> tuple[Order, dict[str, Any], ExportSpans, str]:
    """The parts of a record, checked entry by entry but for the module entries (`read_module` reads one
    when it is needed); Unusable when anything is not as a build writes it, or an entity has a `$id` (the
    rebuild would not know which files refer to it by that)."""
    try:
        init = _text(doc["init"])
        if doc["ids"] is not False:
            raise Unusable
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
    except MALFORMED as exc:
        raise Unusable from exc
    return order, modules, spans, init
