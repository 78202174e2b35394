"""The plan of one tool or entity of a spec file: its documents, models, constants and stub parameters.

Called by `PlanBuilder` (build_plan.py) for each module, in that module's own namespace (`builder.classes`,
`builder.functions`, `builder.constants`, `builder.prefixes`); Brimley's additions come from brimley_plan.py.
"""

from __future__ import annotations

from typing import Any

from ..ir import SpecModule, Tool, to_plain
from ..plan import ANY, NONE, ModulePlan, ParamPlan, PyType, ToolPlan
from .brimley_plan import context_params, sql_plan
from .naming import class_name, constant_name, function_name, snake
from .pytypes import default_source, is_structured_object
from toolspec_runtime.exports import tool_definition

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def entity_plan(
    builder: Any, entity: Any, spec: SpecModule, plan: ModulePlan
) -> dict[str, Any]:
    """Plan an entity's model into `plan`; its schema as emitted (`schemas/entities/<Class>.json`)."""
    doc = builder.documents.build(entity.schema, spec, own_entity=entity.name)
    const = builder.constants.claim(constant_name(snake(entity.name)) + "_SCHEMA")
    cls = builder.entity_classes[entity.name]
    builder.typer(doc, const, plan).root_model(cls, entity.description)
    plan.entities.append(cls)
    return _with_dialect(plan.constants[const])


def _prefix(builder: Any, name: str) -> str:
    """A tool's model prefix, whose `<prefix>Fn` protocol (named by SPEC §4) no other class has."""
    prefix: str = builder.prefixes.claim(name)
    while f"{prefix}Fn" in builder.classes.taken:
        prefix = builder.prefixes.claim(name)
    builder.classes.claim(f"{prefix}Fn")
    return prefix


def tool_plan(builder: Any, tool: Tool, spec: SpecModule, plan: ModulePlan) -> ToolPlan:
    """Plan a tool's models into `plan`: its arguments, result and config, and its stub's parameters."""
    func = builder.functions.claim(function_name(tool.name))
    prefix = _prefix(builder, class_name(tool.name))
    upper = constant_name(func)
    input_doc = builder.documents.build(tool.input_schema, spec)
    input_const = builder.constants.claim(f"{upper}_INPUT_SCHEMA")
    args_cls = builder.classes.claim(f"{prefix}Args")
    # Models carry their schema's own description, if any: a docstring that restates the class name is one
    # more line for every reviewer.
    args = builder.typer(input_doc, input_const, plan).root_model(
        args_cls, None, force_object=True
    )

    output_const = result_model = None
    result: PyType = NONE if tool.returns_void else ANY
    llm: dict[str, Any] = (
        {}
    )  # the schemas of its definition (`exports.tool_definition`)
    llm["inputSchema"] = _with_dialect(plan.constants[input_const])
    if tool.output_schema is not None:
        output_doc = builder.documents.build(tool.output_schema, spec)
        output_const = builder.constants.claim(f"{upper}_OUTPUT_SCHEMA")
        typer = builder.typer(output_doc, output_const, plan)
        if is_structured_object(output_doc.schema):
            result_model = builder.classes.claim(f"{prefix}Result")
            typer.root_model(result_model, None)
            result = PyType(result_model, frozenset({result_model}))
        else:
            result = typer.root_type(
                f"{prefix}Result"
            )  # a non-object result is returned as its plain type
        llm["outputSchema"] = _with_dialect(plan.constants[output_const])
    config_model = None
    if tool.config_schema is not None:
        config_doc = builder.documents.build(tool.config_schema, spec)
        config_const = builder.constants.claim(f"{upper}_CONFIG_SCHEMA")
        config_cls = builder.classes.claim(f"{prefix}Config")
        builder.typer(config_doc, config_const, plan).root_model(
            config_cls, None, force_object=True
        )
        config_model = config_cls

    params = tuple(
        ParamPlan(f.py_name, f.type, _default_source(f)) for f in args.fields
    )
    params += context_params(
        builder, tool, spec, plan, args.fields
    )  # Brimley `from_context`, after the LLM's
    sql = None
    if tool.sql is not None:  # a SQL tool: codegen writes its implementation
        sql = sql_plan(builder, tool, func, upper, result, params, args.fields)
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
