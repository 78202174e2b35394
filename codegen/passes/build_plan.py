"""The last pass: from resolved IR to the plan the back ends render (modules, models, tools, schema files)."""

from __future__ import annotations

from pathlib import PurePosixPath
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
from .pytypes import DocumentTyper, default_source, is_structured_object
from .resolve import Document, DocumentBuilder, Program

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_SPEC_SUFFIXES = (".schema.json", ".json", ".gram", ".yaml", ".yml", ".sql")


def module_path(rel: PurePosixPath) -> list[str]:
    """`billing/Orders.schema.json` -> ['billing', 'orders']: the generated module mirroring a spec file."""
    name = rel.name
    for suffix in _SPEC_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return [module_name(part) for part in rel.parts[:-1]] + [module_name(name)]


class PlanBuilder:
    def __init__(self, program: Program, diags: Diagnostics) -> None:
        self.program = program
        self.diags = diags
        self.documents = DocumentBuilder(program, diags)
        # Classes, functions and constants share the package's namespace (`__init__` star-imports them all).
        self.classes = Scope(RESERVED_NAMES)
        self.functions = Scope(RESERVED_NAMES)
        self.prefixes = Scope()
        self.constants = Scope(RESERVED_NAMES)
        self.entity_classes: dict[str, str] = {}

    def build(self) -> PackagePlan:
        modules = self._modules()
        for spec, plan in modules:
            for entity in spec.entities:
                self.entity_classes[entity.name] = self.classes.claim(
                    class_name(entity.name)
                )
        package = PackagePlan(
            [plan for _, plan in modules], [], {}, entity_classes=self.entity_classes
        )
        for spec, plan in modules:
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
        for plan in package.modules:
            for model in plan.models:
                package.model_modules[model.class_name] = plan.dotted
        return package

    def _modules(self) -> list[tuple[SpecModule, ModulePlan]]:
        seen: dict[str, Span] = {}
        packages: dict[str, Span] = {}  # dotted name of a folder -> a file in it
        for spec in self.program.modules:
            parts = module_path(PurePosixPath(spec.source.rel.as_posix()))
            for depth in range(1, len(parts)):
                packages.setdefault(".".join(parts[:depth]), spec.source.span(0))
        result = []
        for spec in self.program.modules:
            parts = module_path(PurePosixPath(spec.source.rel.as_posix()))
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
        plan.constants[const] = to_plain(doc.schema)
        return DocumentTyper(
            doc, const, plan, self.classes, self.entity_classes, self.diags
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


def build_plan(program: Program, diags: Diagnostics) -> PackagePlan:
    return PlanBuilder(program, diags).build()
