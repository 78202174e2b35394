"""The last pass: from resolved IR to the plan the back ends render (modules, models, tools, schema files)."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import dataclass, field, replace
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..ir import SpecModule, Tool, to_plain
from ..plan import (
    ANY,
    NONE,
    AgentPlan,
    ModulePlan,
    PackagePlan,
    ParamPlan,
    PyType,
    ToolPlan,
)
from .brimley_plan import context_params, resource_plan, sql_plan
from .naming import (
    RESERVED_NAMES,
    Scope,
    class_name,
    constant_name,
    function_name,
    module_name,
    snake,
)
from .native import native_models
from .pytypes import DocumentTyper, default_source, is_structured_object
from .resolve import Document, DocumentBuilder, Program

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_SPEC_SUFFIXES = (".schema.json", ".json", ".gram", ".yaml", ".yml", ".sql")


def module_path(rel: str) -> list[str]:
    """`billing/Orders.schema.json` -> ['billing', 'orders']: the generated module mirroring a spec file (its
    path below its root, as discovery gives it: POSIX, normalised)."""
    *folders, name = rel.split("/")
    for suffix in _SPEC_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return [module_name(part) for part in folders] + [module_name(name)]


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


class _Uses(dict[str, str]):
    """Entity name -> class, noting which entities' classes a module asked for (it imports them)."""

    asked: set[str] = set()  # (set afresh for each module planned)

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
        order: list[str] | None = None,
    ) -> None:
        """`reused`: modules built before (the last build, or the other half of a split build), kept as they
        are and not in `program` but for their entities; `order`: every spec file (relative) in the order of
        the build, when some are reused.
        """
        self.program = program
        self.diags = diags
        self.documents = DocumentBuilder(program, diags)
        self.entity_classes = _Uses(_entity_classes(program, diags))
        self.reused = dict(reused or {})
        self.order = order
        self.parts: dict[str, ModuleParts] = (
            {}
        )  # what this build leaves for the next one
        self._package_diags = diags
        self._entity_schemas: dict[str, dict[str, Any]] = {}
        # A module's own names: set for each module planned (`_plan_module`).
        self.classes = self.functions = self.prefixes = self.constants = Scope()

    def build(self) -> PackagePlan:
        """The plan of every module of `program` (those reused only for their entities) and the reused ones."""
        built = {
            spec.source.rel.as_posix(): (spec, plan) for spec, plan in self._modules()
        }
        package = PackagePlan([], [], {}, entity_classes=dict(self.entity_classes))
        for name, (_, spec) in self.program.entities.items():
            dotted = ".".join(module_path(spec.source.rel.as_posix()))
            package.entity_modules[dict.__getitem__(self.entity_classes, name)] = dotted
        order = self.order if self.order is not None else list(built)
        for rel in order:
            parts = self.reused.get(rel)
            if parts is None:
                self._plan_module(rel, *built[rel], package)
                continue
            plan = reused_module(rel, parts)
            package.modules.append(plan)
            package.tools.extend(plan.tools)
        self._finish(package)
        self._report_shared_functions(package)
        return package

    def _report_shared_functions(self, package: PackagePlan) -> None:
        """Two tools whose names make one Python method (`getOrders`, `get_orders`) are an error naming both:
        an implementation has one method per tool, and each tool's schema file is named after it. (Only where
        both tools are in `program`: a rebuild or a split build finding one leaves it to a full compile.)
        """
        first: dict[str, str] = {}
        tools = self.program.tools
        for tool in package.tools:
            other = first.setdefault(tool.func, tool.name)
            if other != tool.name and tool.name in tools and other in tools:
                self.diags.error(
                    "method-collision",
                    f"the tools {other!r} and {tool.name!r} both become the Python method {tool.func}; "
                    "rename one of them",
                    tools[tool.name][0].span,
                    ("the other tool", tools[other][0].span),
                )

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
        parts = self.parts[rel] = ModuleParts(attempt.dotted, attempt.path)
        parts.entities = [(e.name, self.entity_classes[e.name]) for e in spec.entities]
        parts.deps = (self.documents.used or set()) - {rel}
        parts.exported = attempt.exported_names()
        parts.models = [model.class_name for model in attempt.models]
        parts.tools = [
            (t.name, t.func, t.config_model, t.sql is not None) for t in attempt.tools
        ]
        parts.resources = bool(attempt.resources)

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
                self._entity(entity, spec, plan)
            for tool in spec.tools:
                plan.tools.append(self._tool(tool, spec, plan))
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
        for parts in self.parts.values():
            native_here = package.native.get(parts.dotted, set())
            text_here = package.json_native.get(parts.dotted, set())
            parts.native = [name for name in parts.models if name in native_here]
            parts.text = [name for name in parts.models if name in text_here]

    def _modules(self) -> list[tuple[SpecModule, ModulePlan]]:
        seen: dict[str, Span] = {}
        packages: dict[str, Span] = {}  # dotted name of a folder -> a file in it
        for spec in self.program.modules:
            parts = module_path(spec.source.rel.as_posix())
            for depth in range(1, len(parts)):
                packages.setdefault(".".join(parts[:depth]), spec.source.span(0))
        result = []
        for spec in self.program.modules:
            parts = module_path(spec.source.rel.as_posix())
            dotted = ".".join(parts)
            other = seen.get(dotted)
            what = "module"
            if other is None and dotted in packages:
                other, what = packages[dotted], "package (of the other file's folder)"
            if other is not None:
                self.diags.error(
                    "module-collision",
                    f"this file and another both become the {what} {dotted!r}; rename one of them",
                    spec.source.span(0),
                    ("the other file", other),
                )
                continue
            seen[dotted] = spec.source.span(0)
            result.append(
                (
                    spec,
                    ModulePlan(
                        dotted, "/".join(parts) + ".py", spec.source.rel.as_posix()
                    ),
                )
            )
        return result

    def _typer(self, doc: Document, const: str, plan: ModulePlan) -> DocumentTyper:
        plain = plan.constants[const] = to_plain(doc.schema)
        return DocumentTyper(
            doc, const, plan, self.classes, self.entity_classes, self.diags, plain
        )

    def _entity(self, entity: Any, spec: SpecModule, plan: ModulePlan) -> None:
        doc = self.documents.build(entity.schema, spec, own_entity=entity.name)
        const = self.constants.claim(constant_name(snake(entity.name)) + "_SCHEMA")
        cls = self.entity_classes[entity.name]
        self._typer(doc, const, plan).root_model(cls, entity.description)
        plan.entities.append(cls)
        self._entity_schemas[entity.name] = _with_dialect(plan.constants[const])

    def _prefix(self, name: str) -> str:
        """A tool's model prefix, whose `<prefix>Fn` protocol (named by SPEC §4) no other class has."""
        prefix = self.prefixes.claim(name)
        while f"{prefix}Fn" in self.classes.taken:
            prefix = self.prefixes.claim(name)
        self.classes.claim(f"{prefix}Fn")
        return prefix

    def _tool(self, tool: Tool, spec: SpecModule, plan: ModulePlan) -> ToolPlan:
        func = self.functions.claim(function_name(tool.name))
        prefix = self._prefix(class_name(tool.name))
        upper = constant_name(func)
        input_doc = self.documents.build(tool.input_schema, spec)
        input_const = self.constants.claim(f"{upper}_INPUT_SCHEMA")
        args_cls = self.classes.claim(f"{prefix}Args")
        default_doc = f"Arguments of the tool `{tool.name}`."
        args = self._typer(input_doc, input_const, plan).root_model(
            args_cls, default_doc, force_object=True
        )

        output_const = result_model = None
        result: PyType = NONE if tool.returns_void else ANY
        llm: dict[str, Any] = {"name": tool.name}
        if tool.description:
            llm["description"] = tool.description
        llm["inputSchema"] = _with_dialect(plan.constants[input_const])
        if tool.output_schema is not None:
            output_doc = self.documents.build(tool.output_schema, spec)
            output_const = self.constants.claim(f"{upper}_OUTPUT_SCHEMA")
            typer = self._typer(output_doc, output_const, plan)
            if is_structured_object(output_doc.schema):
                result_model = self.classes.claim(f"{prefix}Result")
                typer.root_model(result_model, f"Result of the tool `{tool.name}`.")
                result = PyType(result_model, frozenset({result_model}))
            else:
                result = typer.root_type(
                    f"{prefix}Result"
                )  # a non-object result is returned as its plain type
            llm["outputSchema"] = _with_dialect(plan.constants[output_const])
        config_model = None
        if tool.config_schema is not None:
            config_doc = self.documents.build(tool.config_schema, spec)
            config_const = self.constants.claim(f"{upper}_CONFIG_SCHEMA")
            config_cls = self.classes.claim(f"{prefix}Config")
            own_doc = tool.config_schema.get("description")
            if not (isinstance(own_doc, str) and own_doc.strip()):
                own_doc = f"Instantiation configuration of the tool `{tool.name}`."
            default_doc = own_doc
            self._typer(config_doc, config_const, plan).root_model(
                config_cls, default_doc, force_object=True
            )
            config_model = config_cls

        params = tuple(
            ParamPlan(f.py_name, f.type, _default_source(f)) for f in args.fields
        )
        params += context_params(
            self, tool, spec, plan, args.fields
        )  # Brimley `from_context`, after the LLM's
        sql = None
        if tool.sql is not None:  # a SQL tool: codegen writes its implementation
            sql = sql_plan(self, tool, func, upper, result, params, args.fields)
        config_param = None
        if (
            config_model is not None
        ):  # passed by `dispatch(..., config=...)`, after the LLM's arguments
            taken = {p.py_name for p in params}
            config_param = "config" if "config" not in taken else "tool_config"
            number = 1
            while config_param in taken:
                number += 1
                config_param = f"tool_config_{number}"
            params += (
                ParamPlan(
                    config_param, PyType(config_model, frozenset({config_model})), None
                ),
            )
        return ToolPlan(
            name=tool.name,
            func=func,
            prefix=prefix,
            module=plan.dotted,
            description=tool.description,
            args_model=args_cls,
            input_const=input_const,
            output_const=output_const,
            result=result,
            result_model=result_model,
            params=params,
            llm_schema=llm,
            config_model=config_model,
            config_param=config_param,
            group=tool.group,
            metadata=to_plain(dict(tool.metadata)),
            sql=sql,
        )


def _with_dialect(schema: Any) -> dict[str, Any]:
    """The emitted form of a document: an object naming draft 2020-12 (a boolean schema becomes its object twin)."""
    if isinstance(schema, bool):
        return {"$schema": DRAFT} if schema else {"$schema": DRAFT, "not": {}}
    return {"$schema": DRAFT, **{k: v for k, v in schema.items() if k != "$schema"}}


def _default_source(field: Any) -> str | None:
    if field.required:
        return None
    if not field.has_default or field.default is None:
        return "None"
    return default_source(field.type, field.default)


def _entity_classes(program: Program, diags: Diagnostics) -> dict[str, str]:
    """Each entity's class: its own name made a class name, the same in every module (entities are the
    package's shared vocabulary). Two entities whose names make one class are an error naming both (two of
    one name are reported by the namespace)."""
    classes: dict[str, str] = {}
    first: dict[str, Any] = {}
    for module in program.modules:
        for entity in module.entities:
            cls = classes.setdefault(entity.name, class_name(entity.name))
            other = first.setdefault(cls, entity)
            if other.name != entity.name:
                diags.error(
                    "entity-class-collision",
                    f"the entities {other.name!r} and {entity.name!r} both become the class {cls}; "
                    "rename one of them",
                    entity.span,
                    ("the other entity", other.span),
                )
    return classes


def build_plan(program: Program, diags: Diagnostics) -> PackagePlan:
    return PlanBuilder(program, diags).build()
