"""Plan pieces for what Brimley adds to a tool: context-fed parameters, SQL implementations, and resources.

Called by `PlanBuilder` (build_plan.py); every name comes from its scopes, every type from `DocumentTyper`.
"""

from __future__ import annotations

from typing import Any

from ..ir import JArray, JObject, Resource, SpecModule, Tool, schema_objects, to_plain
from toolspec_runtime.validation import is_valid
from ..plan import (
    NONE,
    FieldPlan,
    ModulePlan,
    ParamPlan,
    PyType,
    ResourcePlan,
    SqlBind,
    SqlPlan,
)
from .naming import Scope, class_name, constant_name, field_name, function_name, snake
from .pytypes import DocumentTyper, default_source


def context_params(
    builder: Any,
    tool: Tool,
    spec: SpecModule,
    plan: ModulePlan,
    fields: tuple[FieldPlan, ...],
) -> tuple[ParamPlan, ...]:
    """The stub's keyword parameters fed from the context (`from_context`), after the LLM's arguments."""
    names = Scope({f.py_name for f in fields})
    params = []
    for param in tool.context_params:
        doc = builder.documents.build(param.schema, spec)
        scratch = ModulePlan(
            plan.dotted, plan.path, plan.source_display
        )  # context types lift no models
        typer = DocumentTyper(
            doc,
            "_CONTEXT",
            scratch,
            builder.classes,
            builder.entity_classes,
            builder.diags,
        )
        kind = typer.root_type(class_name(tool.name) + class_name(param.name))
        py_name = names.claim(field_name(param.name))
        # The runtime checks the value against this schema exactly; one that refers to an entity is left to the
        # entity's model, which checks itself.
        refers = any("$ref" in node for node in schema_objects(param.schema))
        schema = None if refers else to_plain(param.schema)
        if param.required:
            params.append(
                ParamPlan(py_name, kind, None, param.path, param.name, schema=schema)
            )
            continue
        default = to_plain(param.default)
        if default is None:
            optional = kind if kind.nullable else PyType.union([kind, NONE])
            params.append(
                ParamPlan(
                    py_name, optional, "None", param.path, param.name, None, schema
                )
            )
        else:
            source = default_source(kind, default)
            params.append(
                ParamPlan(
                    py_name, kind, source, param.path, param.name, default, schema
                )
            )
    return tuple(params)


def sql_plan(
    builder: Any,
    tool: Tool,
    func: str,
    upper: str,
    result: PyType,
    params: tuple[ParamPlan, ...],
    fields: tuple[FieldPlan, ...],
) -> SqlPlan:
    """The generated implementation of a SQL tool: its text for `text()`, its binds and its row mapping."""
    assert tool.sql is not None
    # imported by the first SQL tool: a compile without one never needs it
    from ..sqlscan import render, scan

    found = scan(tool.sql.text)
    attrs = {f.wire_name: f.py_name for f in fields}
    context = {p.wire: p for p in params if p.from_context is not None}
    properties = tool.input_schema.get("properties")
    properties = properties if isinstance(properties, JObject) else {}
    expanding = sorted(
        {
            p.name
            for p in found.placeholders
            if p.after_in
            and isinstance(properties.get(p.name), JObject)
            and properties[p.name].get("type") == "array"
        }
        | {
            p.name
            for p in found.placeholders
            if p.after_in
            and p.name in context
            and to_plain(_context_schema(tool, p.name)).get("type") == "array"
        }
    )
    binds: list[SqlBind] = []
    for placeholder in found.placeholders:
        if any(b.name == placeholder.name for b in binds):
            continue
        if placeholder.name in context:
            binds.append(SqlBind(placeholder.name, None, context[placeholder.name]))
        else:
            binds.append(
                SqlBind(
                    placeholder.name,
                    attrs.get(placeholder.name, field_name(placeholder.name)),
                )
            )
    rows, row_type, columns, closed = _rows(builder, tool, result)
    types = {}
    for bind in binds:
        schema = (
            _context_schema(tool, bind.name)
            if bind.attr is None
            else properties.get(bind.name, {})
        )
        kind = _bind_kind(to_plain(schema), bind.name in expanding)
        if kind:
            types[bind.name] = kind
    return SqlPlan(
        const=builder.constants.claim(f"{upper}_SQL"),
        text=render(found, set(expanding)),
        bind_func=builder.functions.claim(f"bind_{func}"),
        execute_func=builder.functions.claim(f"execute_{func}"),
        impl_func=builder.functions.claim(f"_{func}_tool"),
        connection=tool.sql.connection,
        binds=tuple(binds),
        expanding=tuple(expanding),
        rows=rows,
        row_type=row_type,
        columns=columns,
        closed=closed,
        types=types,
    )


def _bind_kind(schema: Any, expanding: bool) -> str:
    """How a parameter is typed for SQLAlchemy: "integer", "number", "decimal", "boolean", "string", "date",
    "date-time"; "" for what has no one SQL type (a list bound whole, a union)."""
    if not isinstance(schema, dict):
        return ""
    kind = schema.get("type")
    if kind == "array":
        return _bind_kind(schema.get("items"), False) if expanding else ""
    if kind == "number" and schema.get("format") == "decimal":
        return "decimal"
    if kind == "string" and schema.get("format") in ("date", "date-time"):
        return str(schema["format"])
    return kind if kind in ("integer", "number", "boolean", "string") else ""


def _context_schema(tool: Tool, name: str) -> Any:
    return next((p.schema for p in tool.context_params if p.name == name), {})


def _rows(
    builder: Any, tool: Tool, result: PyType
) -> tuple[str, PyType | None, dict[str, str], bool]:
    """How rows map to the result: void, one entity, all entities, one value, or the values of a column."""
    if tool.returns_void or tool.output_schema is None:
        return "void", None, {}, True
    schema = tool.output_schema
    many = isinstance(schema, JObject) and schema.get("type") == "array"
    element = (
        schema.get("items")
        if many and isinstance(schema, JObject)
        else _not_null(schema)
    )
    ref = element.get("$ref") if isinstance(element, JObject) else None
    if (
        isinstance(ref, str)
        and ref.startswith("entity:")
        and ref[len("entity:") :] in builder.entity_classes
    ):
        name = ref[len("entity:") :]
        cls = builder.entity_classes[name]
        columns, closed = _columns(builder.program.entities[name][0].schema)
        return (
            ("all" if many else "one"),
            PyType(cls, frozenset({cls})),
            columns,
            closed,
        )
    if many and result.expr.startswith("list[") and result.expr.endswith("]"):
        return (
            "values",
            PyType(result.expr[5:-1], result.models, result.needs, result.nullable),
            {},
            True,
        )
    return "value", result, {}, True


def _not_null(schema: Any) -> Any:
    """The non-null branch of `{"anyOf": [X, {"type": "null"}]}` (one entity, or null without a row)."""
    either = schema.get("anyOf") if isinstance(schema, JObject) else None
    if isinstance(either, JArray) and len(either) == 2:
        kept = [
            s
            for s in either
            if not (isinstance(s, JObject) and s.get("type") == "null")
        ]
        if len(kept) == 1:
            return kept[0]
    return schema


def _columns(schema: Any) -> tuple[dict[str, str], bool]:
    """An entity's columns and how a value of each is read: "boolean" (SQLite's 0/1), "date-time" (ISO text),
    or ""; a trailing "?" marks an optional field whose schema refuses null, so that NULL means "absent".
    """
    if not isinstance(schema, JObject) or not isinstance(
        schema.get("properties"), JObject
    ):
        return {}, False
    required = schema.get("required")
    required = set(required) if isinstance(required, JArray) else set()
    columns: dict[str, str] = {}
    for name, field in schema["properties"].items():
        plain = to_plain(field) if isinstance(field, JObject) else {}
        kind = plain.get("type")
        if kind == "boolean":
            column = "boolean"
        elif kind == "string" and plain.get("format") == "date-time":
            column = "date-time"
        else:
            column = ""
        if (
            name not in required
            and "$ref" not in str(plain)
            and not is_valid(None, plain)
        ):
            column += "?"
        columns[name] = column
    return columns, schema.get("additionalProperties") is False


def resource_plan(
    builder: Any, resource: Resource, spec: SpecModule, plan: ModulePlan
) -> ResourcePlan:
    base = snake(resource.name)
    doc = builder.documents.build(resource.input_schema, spec)
    const = builder.constants.claim(constant_name(base) + "_ARGS_SCHEMA")
    cls = builder.classes.claim(class_name(resource.name) + "Args")
    builder.typer(doc, const, plan).root_model(
        cls,
        f"Arguments of the resource `{resource.name}`: the parameters of its path.",
        force_object=True,
    )
    func = function_name(resource.name)
    return ResourcePlan(
        name=resource.name,
        description=resource.description,
        args_model=cls,
        path_const=builder.constants.claim(constant_name(base) + "_PATH"),
        path=resource.path,
        match_func=builder.functions.claim(f"match_{func}"),
        format_func=builder.functions.claim(f"format_{func}"),
    )
