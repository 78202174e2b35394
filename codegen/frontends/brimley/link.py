"""Completing Brimley definitions once every spec file is loaded (what one file cannot know alone).

- `entity_ref: Customer` in `arguments`, `config` or a `return_shape`: the entity (from any file and format) must be
  an object; its fields become arguments in front of the inline ones. An inline argument may only add
  `from_context`, a default or `required: false` to an inherited one; declaring it again is a conflict.
- SQL placeholders must name declared arguments (inline, inherited or from the context) of a bindable type; an
  argument the SQL never uses is a warning.
- Resource paths: every `{parameter}` is an argument and every argument a parameter; `{rest*}` is a string.
- Resource names share the namespace of tools.

`link` replaces the finished tools and resources in the program and removes the `Pending` markers.
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Iterable
from dataclasses import replace
from typing import Any
from urllib.parse import quote, unquote

from ...diagnostics import Diagnostics, Span, span_inside
from ...ir import (
    ContextParam,
    JArray,
    JObject,
    Resource,
    SpecModule,
    Tool,
    rewrite_schema,
    to_plain,
)
from toolspec_runtime.paths import TemplateError, parse_template
from toolspec_runtime.validation import is_valid
from .pending import PENDING_KEY, Inherit, Pending
from ..gram.schema import Built

_RESOURCE_TYPES = ("string", "integer", "number", "boolean")


def link(program: Any, diags: Diagnostics) -> None:
    """Finish every Brimley tool and resource of `program` (a resolve.Program), in place."""
    linker = _Linker(program, diags)
    for index, module in enumerate(program.modules):
        if (
            not any(PENDING_KEY in tool.metadata for tool in module.tools)
            and not module.resources
        ):
            continue
        tools = tuple(
            linker.tool(tool) if PENDING_KEY in tool.metadata else tool
            for tool in module.tools
        )
        resources = tuple(
            linker.resource(resource, module) for resource in module.resources
        )
        program.modules[index] = replace(module, tools=tools, resources=resources)
        for tool in tools:
            if tool.name in program.tools and program.tools[tool.name][1] is module:
                program.tools[tool.name] = (tool, program.modules[index])
    # a tool left out after an error still has its SQL placeholders checked
    for tool in program.dropped:
        if PENDING_KEY in tool.metadata:
            linker.tool(tool, left_out=True)
    linker.check_resource_names()


def unknown_placeholder(
    diags: Diagnostics, what: str, name: str, span: Span, declared: Iterable[str]
) -> None:
    known = sorted(declared)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean ':{close[0]}'?" if close else ""
    names = ", ".join(known) or "none"
    diags.error(
        "brimley-sql-placeholder",
        f"{what}: the placeholder ':{name}' is not an argument{hint} (arguments: {names})",
        span,
    )


class _Linker:
    def __init__(self, program: Any, diags: Diagnostics) -> None:
        self.program = program
        self.diags = diags
        self.resource_names: dict[str, Span] = {}

    # ── Tools ──────────────────────────────────────────────────────────────────────────────────────────────

    def tool(self, tool: Tool, left_out: bool = False) -> Tool:
        """The tool linked; `left_out`: a tool left out after an error, linked only for its diagnostics."""
        pending: Pending = tool.metadata[PENDING_KEY]
        metadata = {
            key: value for key, value in tool.metadata.items() if key != PENDING_KEY
        }
        context = list(tool.context_params)
        input_schema = tool.input_schema
        if pending.inputs is not None:
            input_schema = self.inherit(
                input_schema, pending.inputs, pending.what, "argument", context
            )
        context = [param for param in context if param.schema is not None]
        config_schema = tool.config_schema
        if pending.config is not None and config_schema is not None:
            config_schema = self.inherit(
                config_schema, pending.config, f"{pending.what} config", "setting", None
            )
        output_schema = tool.output_schema
        if pending.output is not None and isinstance(output_schema, JObject):
            output_schema = self.inherit(
                output_schema,
                pending.output,
                f"the return shape of {pending.what}",
                "field",
                None,
            )
        done = replace(
            tool,
            input_schema=input_schema,
            config_schema=config_schema,
            output_schema=output_schema,
            context_params=tuple(context),
            metadata=metadata,
        )
        inherited = pending.inputs.entity if pending.inputs is not None else None
        if (
            tool.sql is not None
            and pending.sql is not None
            and inherited not in self.program.reported
        ):  # without the fields of an entity left out, every placeholder naming one would be reported
            self.check_sql(done, pending, left_out)
        return done

    def inherit(
        self,
        schema: JObject,
        inherit: Inherit,
        what: str,
        noun: str,
        context: list[ContextParam] | None,
    ) -> JObject:
        """`schema` with the fields of the entity in front; overrides applied; context parameters filled in."""
        fields = self._entity_fields(inherit, what)
        if fields is None:
            return schema
        properties, required, entity_name, entity_span, module = fields
        own = schema.get("properties")
        own = own if isinstance(own, JObject) else JObject({}, schema.span)
        for name in own:
            if name in properties:
                self.diags.error(
                    "brimley-arg-name",
                    f"{what}: the {noun} '{name}' is declared here and also inherited from entity '{entity_name}' "
                    "(an inline entry may only add from_context, a default or required: false to it)",
                    own.key_span(name),
                    (
                        f"'{name}' is a field of '{entity_name}'",
                        properties.key_span(name),
                    ),
                )
        overrides = {override.name: override for override in inherit.overrides}
        for name, listed in overrides.items():
            if name not in properties:
                self.diags.error(
                    "brimley-type",
                    f"{what}: the {noun} '{name}' has no 'type', and entity '{entity_name}' has no field '{name}' "
                    "to inherit it from",
                    listed.span,
                    (f"'{entity_name}' is here", entity_span),
                )
        merged = Built(schema.span)
        required_out: list[str] = []
        required_spans: list[Span] = []
        for name in properties:
            field = self._portable(properties[name], module)
            override = overrides.get(name)
            is_required = name in required
            if override is not None and override.required is False:
                is_required = False
            if override is not None and override.has_default:
                if not self._default_fits(
                    override.default, field, what, noun, name, override.span
                ):
                    continue
                field = _with_default(field, override.default, override.span)
                is_required = False
            if (
                override is not None
                and override.from_context is not None
                and context is not None
            ):
                self._context_param(context, name, override, field, is_required)
                continue
            merged.put(name, field, inherit.span, inherit.span)
            if is_required:
                required_out.append(name)
                required_spans.append(inherit.span)
        for name in own:
            if name not in properties:
                merged.put(name, own[name], own.key_span(name), own.value_span(name))
        own_required = schema.get("required")
        if isinstance(own_required, JArray):
            for index, name in enumerate(own_required):
                if name not in properties:
                    required_out.append(name)
                    required_spans.append(own_required.item_span(index))
        return _replace_object(schema, merged.done(), required_out, required_spans)

    def _entity_fields(
        self, inherit: Inherit, what: str
    ) -> tuple[JObject, set[str], str, Span, SpecModule] | None:
        found = self.program.entities.get(inherit.entity)
        if found is None and inherit.entity in self.program.reported:
            return None  # an entity left out after an error already reported
        if found is None:
            close = difflib.get_close_matches(
                inherit.entity, sorted(self.program.entities), n=1
            )
            hint = f"; did you mean {close[0]!r}?" if close else ""
            self.diags.error(
                "unknown-entity",
                f"{what}: no entity named {inherit.entity!r} is defined in any spec{hint}",
                inherit.span,
            )
            return None
        entity, module = found
        schema = entity.schema
        properties = schema.get("properties") if isinstance(schema, JObject) else None
        kind = schema.get("type", "object") if isinstance(schema, JObject) else None
        if not isinstance(properties, JObject) or kind != "object":
            self.diags.error(
                "brimley-entity-ref",
                f"{what}: entity '{entity.name}' is not an object with named fields, so its fields cannot become "
                "arguments (entity_ref needs a dictionary-compatible entity)",
                inherit.span,
                (f"'{entity.name}' is defined here", entity.span),
            )
            return None
        required = schema.get("required")
        names = (
            {name for name in required if isinstance(name, str)}
            if isinstance(required, JArray)
            else set()
        )
        return properties, names, entity.name, entity.span, module

    def _portable(self, schema: Any, module: SpecModule) -> Any:
        """A field schema copied out of its entity's document: references made independent of where it sits."""
        path = module.source.path
        if not path.name.endswith(".json"):
            return schema  # gram and Brimley entities refer to other entities only as `entity:Name`
        base = path.resolve()
        return _rewrite_refs(schema, base)

    def _default_fits(
        self, default: Any, field: Any, what: str, noun: str, name: str, span: Span
    ) -> bool:
        plain = to_plain(field)
        if "$ref" in str(plain) or is_valid(to_plain(default), plain):
            return True
        self.diags.error(
            "brimley-default",
            f"{what}: the default of the inherited {noun} '{name}' does not match its type",
            span,
        )
        return False

    def _context_param(
        self,
        context: list[ContextParam],
        name: str,
        override: Any,
        field: Any,
        required: bool,
    ) -> None:
        has_default = override.has_default or (
            isinstance(field, JObject) and "default" in field
        )
        default = (
            override.default
            if override.has_default
            else (field.get("default") if has_default else None)
        )
        optional = has_default or override.required is False
        for index, param in enumerate(context):
            if param.name == name and param.schema is None:
                context[index] = ContextParam(
                    name, param.path, field, not optional, default, param.span
                )
                return

    # ── SQL ────────────────────────────────────────────────────────────────────────────────────────────────

    def check_sql(self, tool: Tool, pending: Pending, left_out: bool = False) -> None:
        properties = tool.input_schema.get("properties")
        properties = (
            properties if isinstance(properties, JObject) else JObject({}, tool.span)
        )
        declared: dict[str, Any] = {name: properties[name] for name in properties}
        if left_out:
            # an argument whose own type failed is still declared (of unknown type)
            declared.update(
                {name: None for name in pending.names if name not in declared}
            )
        declared.update({param.name: param.schema for param in tool.context_params})
        used: set[str] = set()
        assert tool.sql is not None
        for name, span in tool.sql.placeholders:
            used.add(name)
            if name not in declared:
                unknown_placeholder(self.diags, pending.what, name, span, declared)
                continue
            problem = _unbindable(declared[name])
            if problem:
                self.diags.error(
                    "brimley-sql-placeholder",
                    f"{pending.what}: ':{name}' is {problem}; only values and lists of values can be bound",
                    span,
                )
        inherited_span = pending.inputs.span if pending.inputs else tool.span
        for name in declared:
            if name not in used:
                self.diags.warning(
                    "brimley-sql-unused",
                    f"{pending.what}: the argument '{name}' is never used in the SQL",
                    pending.names.get(name, inherited_span),
                )

    # ── Resources ──────────────────────────────────────────────────────────────────────────────────────────

    def resource(self, resource: Resource, module: SpecModule) -> Resource:
        what = f"resource '{resource.name}'"
        first = self.resource_names.setdefault(resource.name, resource.span)
        if first is not resource.span:
            self.diags.error(
                "duplicate-name",
                f"{resource.name!r} is defined more than once",
                resource.span,
                ("first defined here", first),
            )
        schema = resource.input_schema
        if resource.inherit is not None:
            schema = self.inherit(schema, resource.inherit, what, "argument", None)
        resource = replace(resource, input_schema=schema, inherit=None)
        try:
            parts = parse_template(resource.path)
        except TemplateError as error:
            self.diags.error(
                "brimley-resource-path",
                f"{what}: bad path {resource.path!r}: {error}",
                span_inside(resource.path_span, resource.path, error.start, error.end),
            )
            return resource
        properties = schema.get("properties")
        properties = (
            properties if isinstance(properties, JObject) else JObject({}, schema.span)
        )
        in_path = {name: star for _, name, star in parts if name is not None}
        for name, star in in_path.items():
            label = f"{{{name}{'*' if star else ''}}}"
            if name not in properties:
                self.diags.error(
                    "brimley-resource-path",
                    f"{what}: the path parameter {label} is not one of its arguments "
                    f"({', '.join(properties) or 'it has none'})",
                    resource.path_span,
                )
                continue
            field = to_plain(properties[name])
            kind = field.get("type") if isinstance(field, dict) else None
            if star and kind != "string":
                self.diags.error(
                    "brimley-resource-path",
                    f"{what}: the catch-all {label} captures text (slashes included), so its argument is a string",
                    properties.key_span(name),
                )
            elif kind not in _RESOURCE_TYPES:
                self.diags.error(
                    "brimley-resource-path",
                    f"{what}: the path parameter {label} must be a single value (string, int, float, decimal, bool, "
                    "date or datetime)",
                    properties.key_span(name),
                )
        for name in properties:
            if name not in in_path:
                self.diags.error(
                    "brimley-resource-path",
                    f"{what}: the argument '{name}' does not appear in the path {resource.path!r}",
                    properties.key_span(name),
                )
        return resource

    def check_resource_names(self) -> None:
        for name, span in self.resource_names.items():
            for kind, table in (
                ("tool", self.program.tools),
                ("entity", self.program.entities),
            ):
                if name in table:
                    self.diags.error(
                        "duplicate-name",
                        f"{name!r} is defined more than once (a resource and a {kind})",
                        span,
                        ("the other definition", table[name][0].span),
                    )


def _unbindable(schema: Any) -> str | None:
    plain = to_plain(schema)
    if not isinstance(plain, dict):
        return None
    if "$ref" in plain:
        return f"the entity {str(plain['$ref']).removeprefix('entity:')}"
    kind = plain.get("type")
    if kind == "array":
        items = plain.get("items")
        inner = _unbindable(items) if isinstance(items, dict) else None
        if inner or (
            isinstance(items, dict) and items.get("type") in ("array", "object")
        ):
            return "a list of lists or objects"
        return None
    if kind == "object":
        return "an object"
    return None


def _rewrite_refs(schema: Any, document: Any) -> Any:
    """Make `#…` and relative `x.schema.json` references of a field taken out of `document` (a .schema.json
    path) absolute, so they mean the same from any other file."""

    def visit(node: JObject) -> JObject:
        ref = node.get("$ref")
        if isinstance(ref, str) and _absolute_ref(ref, document) != ref:
            return node.replace(**{"$ref": _absolute_ref(ref, document)})
        return node

    return rewrite_schema(schema, visit)


def _absolute_ref(ref: str, document: Any) -> str:
    if ref.startswith("entity:") or "://" in ref:
        return ref
    file_part, _, fragment = ref.partition("#")
    if not file_part:
        target = document.as_posix()
    elif file_part.endswith(".json"):
        target = posixpath.normpath(
            posixpath.join(document.parent.as_posix(), unquote(file_part))
        )
    else:
        return ref
    return quote(target) + ("#" + fragment if "#" in ref else "")


def _with_default(schema: Any, default: Any, span: Span) -> Any:
    """The field schema with `default` placed where gram puts it (after type, format and description)."""
    if not isinstance(schema, JObject):
        return schema
    out = Built(schema.span)
    placed = False
    for key in schema:
        if key == "default":
            continue
        if not placed and key not in ("type", "$ref", "format", "description"):
            out.put("default", default, span)
            placed = True
        out.put(key, schema[key], schema.key_span(key), schema.value_span(key))
    if not placed:
        out.put("default", default, span)
    return out.done()


def _replace_object(
    schema: JObject, properties: JObject, required: list[str], spans: list[Span]
) -> JObject:
    """The object schema with new `properties` and `required` (in place of the old ones, `required` dropped
    when empty)."""
    out = Built(schema.span)
    for key in schema:
        if key == "properties":
            out.put("properties", properties, schema.key_span(key))
            if required:
                out.put(
                    "required", JArray(required, schema.span, tuple(spans)), schema.span
                )
        elif key != "required":
            out.put(key, schema[key], schema.key_span(key), schema.value_span(key))
    if "properties" not in schema:
        out.put("properties", properties, schema.span)
        if required:
            out.put(
                "required", JArray(required, schema.span, tuple(spans)), schema.span
            )
    return out.done()
