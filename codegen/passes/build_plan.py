"""The last pass: from resolved IR to the plan the back ends render (modules, models, tools, schema files)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
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
from toolspec_runtime.exports import tool_definition

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


# One event of the package-wide namespace: (scope, the names asked for, the name given), or for a test of
# whether a name is taken (scope, [name], True/False). A module's events in order are its claim log.
Claim = tuple[str, tuple[str, ...], "str | bool"]


class ReplayMismatch(Exception):
    """A module reused from the last build would now get other names: it has to be compiled again."""


class LoggedScope(Scope):
    """A package-wide scope that notes every claim (and every test of a name) in the current module's log, so
    that a later build can replay a module it reuses and see whether it would still get the same names.
    """

    def __init__(self, label: str, log: list[list[Claim]], taken: Any = None) -> None:
        super().__init__(taken)
        self.label = label
        self._log = log  # one shared cell: [the current module's log]

    def claim(self, name: str, *alternatives: str) -> str:
        got = super().claim(name, *alternatives)
        self._log[0].append((self.label, (name, *alternatives), got))
        return got

    def has(self, name: str) -> bool:
        taken = name in self.taken
        self._log[0].append((self.label, (name,), taken))
        return taken


class AnsweredScope(LoggedScope):
    """A scope that gives each claim (and each test of a name) the answer the last build's plan of the
    current module got, when it is asked just as it was then; raises ReplayMismatch otherwise.

    A module planned again in the namespace the last build left before it, asking for the same names in the
    same order, gets the same answers: the answers need not be worked out from the other modules' names.
    """

    def __init__(
        self, label: str, log: list[list[Claim]], answers: list[Iterator[Claim]]
    ) -> None:
        super().__init__(label, log)
        # one shared cell: [the current module's recorded claims, as yet unasked]
        self._answers = answers

    def _answer(self, names: tuple[str, ...]) -> str | bool:
        recorded = next(self._answers[0], None)
        if recorded is None or recorded[:2] != (self.label, names):
            raise ReplayMismatch(self.label, names)
        self._log[0].append(recorded)
        return recorded[2]

    def claim(self, name: str, *alternatives: str) -> str:
        got = self._answer((name, *alternatives))
        if type(got) is not str:
            raise ReplayMismatch(self.label, name)
        return got

    def has(self, name: str) -> bool:
        got = self._answer((name,))
        if type(got) is not bool:
            raise ReplayMismatch(self.label, name)
        return got


@dataclass
class ModuleParts:
    """What a build of one spec file left, for reusing it unchanged: its names, its claims on the package's
    namespace (in order), the spec files whose entities it embeds, and what the package-wide files need.
    """

    dotted: str
    path: str
    entity_claims: list[tuple[str, Claim]] = field(
        default_factory=list
    )  # (entity, claim)
    claims: list[Claim] = field(default_factory=list)
    deps: set[str] = field(
        default_factory=set
    )  # spec files (relative) whose entities it embeds
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
    # the claims as that entry keeps them, read when first needed (a rebuild replays only some modules')
    recorded: Callable[[], list[Claim]] | None = field(
        default=None, compare=False, repr=False
    )

    def recorded_claims(self) -> list[Claim]:
        if self.recorded is not None:
            self.claims, self.recorded = self.recorded(), None
        return self.claims


@dataclass
class ReusedModule(ModulePlan):
    """A module of the last build, unchanged: only what the package-wide files read of it."""

    exported: list[str] = field(default_factory=list)

    def exported_names(self) -> list[str]:
        return list(self.exported)


def reused_tool(
    name: str, func: str, config_model: str | None, module: str
) -> ToolPlan:
    """A tool of a reused module, as the package-wide files see it (its name, function and config model)."""
    return ToolPlan(
        name, func, "", module, None, "", "", None, ANY, None, (), {}, config_model
    )


class PlanBuilder:
    def __init__(
        self,
        program: Program,
        diags: Diagnostics,
        reused: Mapping[str, ModuleParts] | None = None,
        order: list[str] | None = None,
        before: Mapping[str, ModuleParts] | None = None,
    ) -> None:
        """`reused`: modules of the last build kept as they are (by spec file, relative), not in `program`;
        `order`: every spec file (relative) in the order of the build, when some are reused; `before`: what
        the last build left of every spec file, those planned again included.
        """
        self.program = program
        self.diags = diags
        self.documents = DocumentBuilder(program, diags)
        self._log: list[list[Claim]] = [[]]
        # Classes, functions and constants share the package's namespace (`__init__` star-imports them all).
        self.classes = LoggedScope("classes", self._log, RESERVED_NAMES)
        self.functions = LoggedScope("functions", self._log, RESERVED_NAMES)
        self.prefixes = LoggedScope("prefixes", self._log)
        self.constants = LoggedScope("constants", self._log, RESERVED_NAMES)
        self.entity_classes: dict[str, str] = {}
        self.reused = dict(reused or {})
        self.order = order
        self.before = dict(before or {})
        self.parts: dict[str, ModuleParts] = (
            {}
        )  # what this build leaves for the next one

    def _replay(self, claims: list[Claim]) -> None:
        scopes = {
            s.label: s
            for s in (self.classes, self.functions, self.prefixes, self.constants)
        }
        for label, names, got in claims:
            scope = scopes[label]
            # claimed as the module's own build did, but not logged: the module keeps its recorded log
            if type(got) is bool:
                now: str | bool = names[0] in scope.taken
            else:
                now = Scope.claim(scope, *names)
            if now != got:
                raise ReplayMismatch(label, names)

    def build(self) -> PackagePlan:
        """The plan of every module; raises ReplayMismatch when a reused module would now get other names."""
        built = self._built()
        order = self.order if self.order is not None else list(built)
        for rel in order:
            if rel in self.reused:
                parts = self.reused[rel]
                self._log[0] = []
                self._replay([claim for _, claim in parts.entity_claims])
                for name, claim in parts.entity_claims:
                    self.entity_classes[name] = str(claim[2])
                continue
            self._claim_entities(rel, *built[rel])
        package = PackagePlan([], [], {}, entity_classes=self.entity_classes)
        # Past the last file planned again, when every file planned again claimed just what it did in the last
        # build, the namespace goes on as it went then: the reused files' claims would all come out as they
        # did, and are not replayed.
        last = max(
            (i for i, rel in enumerate(order) if rel not in self.reused), default=-1
        )
        as_before = True
        for i, rel in enumerate(order):
            if rel in self.reused:
                replay = i < last or not as_before
                self._reuse(rel, self.reused[rel], package, replay)
                continue
            self._plan_module(rel, *built[rel], package)
            as_before = as_before and self._as_before(rel, self.parts[rel])
        self._finish(package)
        return package

    def build_in_place(self, order: list[str]) -> PackagePlan:
        """The plan of the modules of `program` not reused, alone, each answered the names the last build's
        plan of it got (`before`) while it asks for them just as then (the package's other names are then
        as they were): raises ReplayMismatch at the first claim asked otherwise, or a claim left unasked.
        `order`: the files planned, in build order. The reused modules (of `program`, as read for their
        entities) only give their entities' classes and their models.
        """
        answers: list[Iterator[Claim]] = [iter(())]
        self.classes, self.functions, self.prefixes, self.constants = (
            AnsweredScope(label, self._log, answers)
            for label in ("classes", "functions", "prefixes", "constants")
        )
        built = self._built()
        for parts in self.reused.values():
            for name, claim in parts.entity_claims:
                self.entity_classes[name] = str(claim[2])

        def answering(claims: list[Claim]) -> None:
            if next(answers[0], None) is not None:
                raise ReplayMismatch("a claim of the last build not asked")
            answers[0] = iter(claims)

        for rel in order:
            answering([claim for _, claim in self.before[rel].entity_claims])
            self._claim_entities(rel, *built[rel])
        package = PackagePlan([], [], {}, entity_classes=self.entity_classes)
        for rel in order:
            answering(self.before[rel].recorded_claims())
            self._plan_module(rel, *built[rel], package)
        answering([])
        for parts in self.reused.values():
            for name in parts.models:
                package.model_modules[name] = parts.dotted
        self._finish(package)
        return package

    def _built(self) -> dict[str, tuple[SpecModule, ModulePlan]]:
        return {
            spec.source.rel.as_posix(): (spec, plan) for spec, plan in self._modules()
        }

    def _claim_entities(self, rel: str, spec: SpecModule, plan: ModulePlan) -> None:
        """Claim the classes of a module's entities (before any other claim of any module)."""
        parts = self.parts[rel] = ModuleParts(plan.dotted, plan.path)
        for entity in spec.entities:
            self._log[0] = []
            self.entity_classes[entity.name] = self.classes.claim(
                class_name(entity.name)
            )
            parts.entity_claims.append((entity.name, self._log[0][0]))

    def _plan_module(
        self, rel: str, spec: SpecModule, plan: ModulePlan, package: PackagePlan
    ) -> None:
        """Plan a module's entities, tools, resources and agents into `package`, noting its parts."""
        package.modules.append(plan)
        parts = self.parts[rel]
        self._log[0] = parts.claims
        self.documents.used = parts.deps
        for entity in spec.entities:
            self._entity(entity, spec, plan, package)
        for tool in spec.tools:
            tool_plan = self._tool(tool, spec, plan)
            plan.tools.append(tool_plan)
            package.tools.append(tool_plan)
        for resource in spec.resources:
            plan.resources.append(resource_plan(self, resource, spec, plan))
        for agent in spec.agents:
            metadata = to_plain(dict(agent.metadata))
            package.agents.append(
                AgentPlan(agent.name, agent.description, agent.tools, metadata)
            )
        parts.deps.discard(rel)
        self._summarise(parts, plan)

    def _finish(self, package: PackagePlan) -> None:
        """Which module defines each model planned, and which models are native."""
        self._log[0] = []
        self.documents.used = None
        for plan in package.modules:
            for model in plan.models:
                package.model_modules[model.class_name] = plan.dotted
        # Which models are native depends on the models they use, in any file: decided here for all, with
        # what the record says of the reused modules' models (which are not planned again).
        known = (
            {name for parts in self.reused.values() for name in parts.native},
            {name for parts in self.reused.values() for name in parts.text},
        )
        models = [model for plan in package.modules for model in plan.models]
        package.native, package.json_native = native_models(models, known)
        for parts in self.parts.values():
            parts.native = [name for name in parts.models if name in package.native]
            parts.text = [name for name in parts.models if name in package.json_native]

    def extend(
        self, rels: list[str], parts: Mapping[str, ModuleParts], package: PackagePlan
    ) -> None:
        """Add the spec files `rels`, planned elsewhere (`parts`), after those `build` planned, as reused
        modules: their names claimed again in order; raises ReplayMismatch when one would now get another.
        """
        for rel in rels:
            self._reuse(rel, parts[rel], package, replay=True)
            self.parts[rel] = parts[rel]
        self._log[0] = []

    def _as_before(self, rel: str, parts: ModuleParts) -> bool:
        """Whether a file planned again claimed just what the last build's plan of it did."""
        before = self.before.get(rel)
        return (
            before is not None
            and parts.entity_claims == before.entity_claims
            and parts.claims == before.recorded_claims()
        )

    def _reuse(
        self, rel: str, parts: ModuleParts, package: PackagePlan, replay: bool
    ) -> None:
        """Claim a reused module's names again, in order (when `replay`), and add what the package-wide files
        need of it."""
        self._log[0] = []
        if replay:
            self._replay(parts.recorded_claims())
        plan = ReusedModule(parts.dotted, parts.path, rel, exported=parts.exported)
        plan.tools = [
            reused_tool(name, func, config, parts.dotted)
            for name, func, config, _ in parts.tools
        ]
        package.modules.append(plan)
        package.tools.extend(plan.tools)
        for name in parts.models:
            package.model_modules[name] = parts.dotted

    @staticmethod
    def _summarise(parts: ModuleParts, plan: ModulePlan) -> None:
        parts.exported = plan.exported_names()
        parts.models = [model.class_name for model in plan.models]
        parts.tools = [
            (t.name, t.func, t.config_model, t.sql is not None) for t in plan.tools
        ]
        parts.resources = bool(plan.resources)

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

    def _entity(
        self, entity: Any, spec: SpecModule, plan: ModulePlan, package: PackagePlan
    ) -> None:
        doc = self.documents.build(entity.schema, spec, own_entity=entity.name)
        const = self.constants.claim(constant_name(snake(entity.name)) + "_SCHEMA")
        cls = self.entity_classes[entity.name]
        self._typer(doc, const, plan).root_model(cls, entity.description)
        plan.entities.append(cls)
        package.entity_schemas[entity.name] = _with_dialect(plan.constants[const])

    def _prefix(self, name: str) -> str:
        """A tool's model prefix, whose `<prefix>Fn` protocol (named by SPEC §4) no other class has."""
        prefix = self.prefixes.claim(name)
        while self.classes.has(f"{prefix}Fn"):
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
        llm: dict[str, Any] = (
            {}
        )  # the schemas of its definition (`exports.tool_definition`)
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
            llm_schema=tool_definition(
                tool.name,
                tool.description,
                llm["inputSchema"],
                llm.get("outputSchema"),
                tool.mcp_fields,
            ),
            config_model=config_model,
            config_param=config_param,
            group=tool.group,
            metadata=to_plain(dict(tool.metadata)),
            mcp_fields=dict(tool.mcp_fields),
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


def build_plan(program: Program, diags: Diagnostics) -> PackagePlan:
    return PlanBuilder(program, diags).build()
