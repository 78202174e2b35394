"""The last pass: from resolved IR to the plan the back ends render (modules, models, tools, schema files).

Every name in a module is the module's own (package_names.py has the few the package holds once), so a spec
file plans alike whatever other files exist: which is what lets rebuilds and split builds reuse a file's outputs
(codegen/incremental.py, split.py) without any pass knowing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics
from ..ir import SpecModule, to_plain
from ..plan import AgentPlan, ModulePlan, PackagePlan
from .brimley_plan import resource_plan
from .naming import RESERVED_NAMES, Scope, module_path
from .package_names import entity_classes, module_plans, report_shared_methods
from .native import native_models
from .pytypes import DocumentTyper
from .resolve import Document, DocumentBuilder, Program
from .tool_plan import entity_plan, tool_plan
from ..module_parts import ModuleParts, reused_module


class _Uses(dict[str, str]):
    """Entity name -> class, noting which entities' classes a module asked for (it imports them)."""

    def __init__(self, classes: dict[str, str]) -> None:
        super().__init__(classes)
        self.asked: set[str] = set()  # (set afresh for each module planned)

    def __getitem__(self, name: str) -> str:
        cls = super().__getitem__(name)
        self.asked.add(cls)
        return cls


class PlanBuilder:
    def __init__(
        self,
        program: Program,
        diags: Diagnostics,
        reused: Mapping[str, ModuleParts] | None = None,
    ) -> None:
        """`reused`: modules of `program` built before (by the last build), kept as they are: only their
        entities are used (their parts say which of their models are native)."""
        self.program = program
        self.diags = diags
        self.documents = DocumentBuilder(program, diags)
        self.entity_classes = _Uses(entity_classes(program, diags))
        self.reused = dict(reused or {})
        self._package_diags = diags
        self._entity_schemas: dict[str, dict[str, Any]] = {}
        # A module's own names: set for each module planned (`_plan_module`).
        self.classes = self.functions = self.prefixes = self.constants = Scope()

    def build(self) -> PackagePlan:
        """The plan of every module of `program` (those reused only for their entities) and the reused ones."""
        built = {
            spec.source.rel.as_posix(): (spec, plan)
            for spec, plan in module_plans(self.program, self.diags)
        }
        package = PackagePlan([], [], {}, entity_classes=dict(self.entity_classes))
        for name, (_, spec) in self.program.entities.items():
            dotted = ".".join(module_path(spec.source.rel.as_posix()))
            # (`get`: only a module's own use of an entity counts as asked for)
            package.entity_modules[self.entity_classes.get(name, "")] = dotted
        for rel in built:
            parts = self.reused.get(rel)
            if parts is None:
                self._plan_module(rel, *built[rel], package)
                continue
            plan = reused_module(rel, parts)
            package.modules.append(plan)
            package.tools.extend(plan.tools)
        self._finish(package)
        report_shared_methods(self.program, package.tools, self.diags)
        return package

    def _plan_module(
        self, rel: str, spec: SpecModule, plan: ModulePlan, package: PackagePlan
    ) -> None:
        """Plan a module's entities, tools, resources and agents into `package`, noting its parts.

        Its names are claimed in a namespace of its own: the names the templates bind, its entities' classes
        and those of the entities it uses (which it imports). Which entities a module uses is known once it
        is planned; when one of its names turned out to be such a class, it is planned again with that class
        taken from the start (rare: so a plan is not made twice for every module).
        """
        own = {self.entity_classes[entity.name] for entity in spec.entities}
        imported: set[str] = set()
        while True:
            attempt, diags = replace(plan), Diagnostics()
            named = self._plan_names(
                spec, attempt, diags, RESERVED_NAMES | own | imported
            )
            asked = self.entity_classes.asked - own
            if not (named & asked) or asked <= imported:
                break
            imported |= asked
        self.diags.extend(diags)
        for entity in spec.entities:
            package.entity_schemas[entity.name] = self._entity_schemas[entity.name]
        package.modules.append(attempt)
        package.tools.extend(attempt.tools)
        for agent in spec.agents:
            metadata = to_plain(dict(agent.metadata))
            package.agents.append(
                AgentPlan(agent.name, agent.description, agent.tools, metadata)
            )
        attempt.deps = (self.documents.used or set()) - {rel}

    def _plan_names(
        self, spec: SpecModule, plan: ModulePlan, diags: Diagnostics, taken: Set[str]
    ) -> set[str]:
        """Plan a module's entities, tools and resources into `plan`, in a namespace where `taken` is taken;
        the names it claimed."""
        self.classes, self.functions, self.constants = (
            Scope(taken),
            Scope(taken),
            Scope(taken),
        )
        self.prefixes = Scope()
        self.diags = self.documents.diags = diags
        self.entity_classes.asked = set()
        self.documents.used = set()
        plan.constants, plan.models, plan.tools = {}, [], []
        plan.entities, plan.resources = [], []
        try:
            for entity in spec.entities:
                self._entity_schemas[entity.name] = entity_plan(
                    self, entity, spec, plan
                )
            for tool in spec.tools:
                plan.tools.append(tool_plan(self, tool, spec, plan))
            for resource in spec.resources:
                plan.resources.append(resource_plan(self, resource, spec, plan))
        finally:
            self.diags = self.documents.diags = self._package_diags
        return (
            self.classes.taken | self.functions.taken | self.constants.taken
        ) - taken

    def _finish(self, package: PackagePlan) -> None:
        """Which models are native, by module: it depends on the models they use, an entity of any file among
        them; the record says it of the reused modules' models (which are not planned again).
        """
        models: dict[tuple[str, str], Any] = {}
        for plan in package.modules:
            for model in plan.models:
                models[(plan.dotted, model.class_name)] = model
        known: tuple[set[Any], set[Any]] = (set(), set())
        for parts in self.reused.values():
            known[0].update((parts.dotted, name) for name in parts.native)
            known[1].update((parts.dotted, name) for name in parts.text)
        entity_modules = package.entity_modules

        def used(key: tuple[str, str], name: str) -> tuple[str, str]:
            own = (key[0], name)
            return own if own in models else (entity_modules.get(name, key[0]), name)

        native, text = native_models(models, used, known)
        for dotted, name in native:
            package.native.setdefault(dotted, set()).add(name)
        for dotted, name in text:
            package.json_native.setdefault(dotted, set()).add(name)

    def typer(self, doc: Document, const: str, plan: ModulePlan) -> DocumentTyper:
        plain = plan.constants[const] = to_plain(doc.schema)
        return DocumentTyper(
            doc, const, plan, self.classes, self.entity_classes, self.diags, plain
        )


def build_plan(program: Program, diags: Diagnostics) -> PackagePlan:
    return PlanBuilder(program, diags).build()
