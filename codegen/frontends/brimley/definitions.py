"""Brimley front end: functions, entities and resources written in Brimley YAML (../shared/reference/brimley.md).

    *.yaml / *.yml   one definition, recognised by its `type` (sql_function, python_function, api_function,
                     template_function, resource, entity) — or, without a Brimley `type`, a tool manifest in the
                     shapes the JSON front end reads (function calling, MCP, Lilux, BFCL), written as YAML
    *.sql            a sql_function: the YAML sits between `---` lines in the leading `/* … */`, the SQL follows

Every function becomes an IR `Tool` whose types are the JSON Schema fragments gram and JSON tools produce
(arguments.py). `from_context` arguments become `ContextParam`s, never part of the input schema. What needs other
files — `entity_ref` inheritance and the check of SQL placeholders against the (inherited) arguments — is left in a
`Pending` for `link.py`, which the driver runs once all files are loaded.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...diagnostics import Diagnostics, SourceFile, SpecError, Span
from ...ir import (
    Entity,
    JArray,
    JObject,
    Resource,
    SpecModule,
    SqlStatement,
    Tool,
    to_plain,
)
from .pending import PENDING_KEY, Inherit, Pending
from .arguments import (
    ENTITY_NAME,
    PRIMITIVES,
    ALIASES,
    ArgumentLowering,
    Block,
    complete,
    describe,
    with_description,
)
from .safe_yaml import load_yaml
from ..gram.schema import near_miss
from ..json.tools import entity_schema
from ...sqlscan import Scan, scan

__all__ = ["load_brimley_yaml", "load_brimley_sql", "has_sql_header"]

NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]{0,63}\Z")
FUNCTIONS = ("sql_function", "python_function", "api_function", "template_function")
KINDS = (*FUNCTIONS, "resource", "entity")
_COMMON = ("name", "type", "description", "mcp")
_FUNCTION_KEYS = (*_COMMON, "arguments", "args", "return_shape", "returns", "config")
KEYS: dict[str, tuple[str, ...]] = {
    "sql_function": (*_FUNCTION_KEYS, "connection", "sql"),
    "python_function": (*_FUNCTION_KEYS, "handler", "reload"),
    "api_function": (*_FUNCTION_KEYS, "request", "results", "secrets"),
    "template_function": (*_FUNCTION_KEYS, "template_engine", "messages", "template"),
    "resource": (*_COMMON, "path", "arguments", "args", "mime_type", "mimeType"),
    "entity": (*_COMMON, "fields"),
}
_NOT_METADATA = {
    "name",
    "type",
    "description",
    "arguments",
    "args",
    "return_shape",
    "returns",
    "config",
    "sql",
    "connection",
    "path",
    "fields",
}
_TOOL_SHAPE_KEYS = (
    "parameters",
    "inputSchema",
    "inputs",
    "input_schema",
    "tool_id",
    "function",
)

_SQL_HEADER = re.compile(r"\A\ufeff?\s*/\*\s*---")
_OPEN_LINE = re.compile(r"[ \t]*---[ \t]*\r?\n")
_CLOSE_LINE = re.compile(r"^[ \t]*---[ \t]*\r?$", re.MULTILINE)


def has_sql_header(path: Path) -> bool:
    """Whether a `.sql` file opens with the Brimley YAML block (`/*` then a `---` line); reads only its start."""
    from ...spec_bytes import UnreadableSpec, read_spec_bytes

    try:
        head = read_spec_bytes(path, 4096, whole=False)  # never blocks on a FIFO
    except UnreadableSpec:
        return True  # let the loader report it
    return bool(_SQL_HEADER.match(head.decode("utf-8", errors="ignore")))


def load_brimley_yaml(source: SourceFile, diags: Diagnostics) -> SpecModule:
    doc = load_yaml(source, source.text, 0, diags)
    if isinstance(doc, JArray) or (
        isinstance(doc, JObject) and "type" not in doc and _looks_like_tool(doc)
    ):
        return _tool_manifest(doc, source, diags)
    if (
        isinstance(doc, JObject)
        and doc.get("type") == "function"
        and isinstance(doc.get("function"), JObject)
    ):
        return _tool_manifest(doc, source, diags)
    return _Document(source, diags).module(doc, None)


def load_brimley_sql(source: SourceFile, diags: Diagnostics) -> SpecModule:
    header = _split_sql(source, diags)
    yaml_start, yaml_end, sql_start = header
    doc = load_yaml(source, source.text[yaml_start:yaml_end], yaml_start, diags)
    body = source.text[sql_start:]
    lead = len(body) - len(body.lstrip())
    text = body.strip()
    return _Document(source, diags).module(
        doc, (text, ((0, sql_start + lead),), source.span(sql_start))
    )


def _looks_like_tool(doc: JObject) -> bool:
    return any(key in doc for key in _TOOL_SHAPE_KEYS)


def _tool_manifest(doc: Any, source: SourceFile, diags: Diagnostics) -> SpecModule:
    """A YAML file in one of the JSON tool shapes: compiled exactly as the same data in a `.json` file."""
    from ..json.tools import _tool  # reads each tool's schemas in their dialect

    tools: list[Tool] = []
    dropped: list[Tool] = []
    for entry in doc if isinstance(doc, JArray) else [doc]:
        tool = _tool(entry, source, diags, dropped)
        if tool is not None:
            tools.append(tool)
    return SpecModule(source, tools=tuple(tools), dropped=tuple(dropped))


def _split_sql(source: SourceFile, diags: Diagnostics) -> tuple[int, int, int]:
    """(start, end) of the YAML in the header comment, and where the SQL starts."""
    text = source.text
    match = _SQL_HEADER.match(text)
    if match is None:  # routing only sends files that open with the header
        diags.error(
            "brimley-sql-header",
            "a Brimley .sql file opens with /* --- <YAML> --- */",
            source.span(0),
        )
        raise SpecError("no header")
    opening = text.index("/*")
    dashes = match.end() - 3
    line = _OPEN_LINE.match(text, dashes)
    if line is None:
        diags.error(
            "brimley-sql-header",
            "'---' starts a line of its own, the YAML follows on the next",
            source.span(dashes, dashes + 3),
        )
        raise SpecError("bad header")
    close = text.find("*/", line.end())
    if close < 0:
        diags.error(
            "brimley-sql-header",
            "the header comment is never closed ('*/')",
            source.span(opening, opening + 2),
        )
        raise SpecError("unclosed header")
    closing = None
    for candidate in _CLOSE_LINE.finditer(text, line.end(), close):
        closing = candidate
    if closing is None or text[closing.end() : close].strip():
        diags.error(
            "brimley-sql-header",
            "the YAML block in the header has no closing '---' line before '*/'",
            source.span(close, close + 2),
        )
        raise SpecError("no closing ---")
    return line.end(), closing.start(), close + 2


class _Document:
    """One Brimley definition."""

    def __init__(self, source: SourceFile, diags: Diagnostics) -> None:
        self.source = source
        self.diags = diags

    def error(
        self, code: str, message: str, span: Span, *notes: tuple[str, Span | None]
    ) -> None:
        self.diags.error(code, message, span, *notes)

    def module(
        self, doc: Any, sql: tuple[str, tuple[tuple[int, int], ...], Span] | None
    ) -> SpecModule:
        start = self.source.span(0)
        if not isinstance(doc, JObject):
            self.error(
                "brimley-shape",
                f"a Brimley file holds one mapping with 'name' and 'type' ({', '.join(KINDS)}), not {describe(doc)}",
                doc.span if isinstance(doc, JArray) else start,
            )
            raise SpecError("not a mapping")
        kind = self._kind(doc, sql is not None)
        name = self._name(doc, kind)
        self.lower = ArgumentLowering(
            self.diags, {name} if kind == "entity" and name else set()
        )
        self._keys(
            doc, kind
        )  # reported; the rest is still read, so that every problem shows in one run
        if name is None:
            raise SpecError("no name")
        description = self._description(doc)
        span = doc.value_span("name")
        if kind == "entity":
            entity = self._entity(doc, name, description)
            if entity is None:  # left out after an error, it keeps its name
                kept_name = Entity(name, span, None, JObject({}, span))
                return SpecModule(self.source, dropped=(kept_name,))
            return SpecModule(self.source, entities=(entity,))
        if kind == "resource":
            resource = self._resource(doc, name, description)
            return SpecModule(self.source, resources=(resource,) if resource else ())
        tool, left_out = self._function(doc, kind, name, description, sql)
        if tool is None:
            if left_out is None:
                left_out = Tool(name, span, None, JObject({}, span))
            return SpecModule(self.source, dropped=(left_out,))
        return SpecModule(self.source, tools=(tool,))

    # ── Common keys ────────────────────────────────────────────────────────────────────────────────────────

    def _kind(self, doc: JObject, in_sql_file: bool) -> str:
        kind = doc.get("type")
        if kind is None:
            self.error(
                "brimley-type",
                f"the definition has no 'type': one of {', '.join(KINDS)}",
                doc.span,
            )
            raise SpecError("no type")
        if not isinstance(kind, str) or kind not in KINDS:
            suggestion = near_miss(kind, KINDS) if isinstance(kind, str) else None
            hint = (
                f"; did you mean '{suggestion}'?"
                if suggestion
                else f" (one of {', '.join(KINDS)})"
            )
            self.error(
                "brimley-type",
                f"unknown definition type {describe(kind)}{hint}",
                doc.value_span("type"),
            )
            raise SpecError("bad type")
        if in_sql_file and kind != "sql_function":
            self.error(
                "brimley-type",
                f"a .sql file defines a sql_function, not a {kind}",
                doc.value_span("type"),
            )
            raise SpecError("bad type")
        return kind

    def _name(self, doc: JObject, kind: str) -> str | None:
        name = doc.get("name")
        if name is None:
            self.error(
                "brimley-name", f"the {kind.replace('_', ' ')} has no 'name'", doc.span
            )
            return None
        span = doc.value_span("name")
        if kind == "entity":
            if (
                isinstance(name, str)
                and ENTITY_NAME.match(name)
                and ALIASES.get(name, name) not in (*PRIMITIVES, "void")
            ):
                return name
            self.error(
                "brimley-name",
                f"{describe(name)} cannot name an entity: use a name like 'Customer' that is not a type",
                span,
            )
            return None
        if isinstance(name, str) and NAME.match(name):
            return name
        self.error(
            "brimley-name",
            f"{describe(name)} is not a valid name: a letter, then up to 63 letters, digits, '_' or '-'",
            span,
        )
        return None

    def _keys(self, doc: JObject, kind: str) -> bool:
        known = KEYS[kind]
        ok = True
        for key in doc:
            if key in known:
                continue
            if key == "sql" and kind == "sql_function":
                continue
            suggestion = near_miss(key, known)
            if suggestion:
                hint = f"; did you mean '{suggestion}'?"
            elif key == "sql":
                hint = " (a .sql file holds the SQL after its header; in a .yaml file 'sql' belongs to a sql_function)"
            else:
                hint = f" (a {kind} takes {', '.join(known)})"
            self.error("brimley-key", f"unknown key '{key}'{hint}", doc.key_span(key))
            ok = False
        for first, second in (("arguments", "args"), ("return_shape", "returns")):
            if first in doc and second in doc:
                self.error(
                    "brimley-key",
                    f"'{second}' is another spelling of '{first}'; give only one",
                    doc.key_span(second),
                    (f"'{first}' is here", doc.key_span(first)),
                )
                ok = False
        return ok

    def _description(self, doc: JObject) -> str | None:
        value = doc.get("description")
        if value is None:
            return None
        if not isinstance(value, str):
            self.error(
                "brimley-key",
                f"the description is a string, not {describe(value)}",
                doc.value_span("description"),
            )
            return None
        return value

    def _metadata(self, doc: JObject) -> dict[str, Any]:
        return {
            key: to_plain(doc[key]) for key in sorted(doc) if key not in _NOT_METADATA
        }

    def _arguments(self, doc: JObject, what: str, *, context: bool) -> Block | None:
        key = "args" if "args" in doc else "arguments"
        span = doc.value_span(key) if key in doc else doc.span
        return self.lower.arguments(
            doc.get(key), span, what, context=context, inherit=True
        )

    # ── Entities ───────────────────────────────────────────────────────────────────────────────────────────

    def _entity(
        self, doc: JObject, name: str, description: str | None
    ) -> Entity | None:
        what = f"entity '{name}'"
        fields = doc.get("fields")
        if fields is None:
            self.error(
                "brimley-shape", f"{what} has no 'fields'", doc.value_span("name")
            )
            return None
        block = complete(
            self.lower.inline(
                fields,
                doc.value_span("fields"),
                what,
                context=False,
                inherited=None,
                noun="field",
            )
        )
        if block is None:
            return None
        schema = with_description(
            block.schema,
            description,
            doc.value_span("description") if description else doc.span,
        )
        span = doc.value_span("name")
        return Entity(name, span, description, entity_schema(schema, name, span))

    # ── Functions ──────────────────────────────────────────────────────────────────────────────────────────

    def _function(
        self,
        doc: JObject,
        kind: str,
        name: str,
        description: str | None,
        sql: tuple[str, tuple[tuple[int, int], ...], Span] | None,
    ) -> tuple[Tool | None, Tool | None]:
        """The function, or (None, what is left of it after an error: its SQL, still checked by `link`)."""
        what = f"{kind.replace('_', ' ')} '{name}'"
        inputs = self._arguments(doc, what, context=True)
        config = None
        if "config" in doc:
            config = self.lower.arguments(
                doc["config"],
                doc.value_span("config"),
                f"{what} config",
                context=False,
                inherit=True,
                noun="setting",
            )
        returns = self._returns(doc, what)
        statement = scanned = None
        sql_map: tuple[tuple[int, int], ...] = ()
        if kind == "sql_function":
            found = sql if sql is not None else self._yaml_sql(doc, what)
            if found is not None:
                statement, scanned, sql_map = self._sql(doc, found, what)
        shaped = (
            returns is None
            or statement is None
            or self._sql_shape(returns[0], returns[1], doc, what)
        )
        broken = (
            complete(inputs) is None
            or returns is None
            or ("config" in doc and complete(config) is None)
        )
        if broken or not shaped or (kind == "sql_function" and statement is None):
            return None, self._left_out(
                doc, name, what, inputs, config, returns, statement, scanned, sql_map
            )
        assert inputs is not None and returns is not None
        output, void, output_inherit = returns
        if kind == "sql_function" and output is not None and "$ref" in output:
            output = _or_null(output)  # one entity: its row, or null when there is none
        pending = Pending(
            what,
            inputs=inputs.inherit,
            config=config.inherit if config else None,
            output=output_inherit,
            sql=scanned,
            sql_map=sql_map,
            names=dict(inputs.names),
        )
        metadata: dict[str, Any] = self._metadata(doc)
        if (
            inputs.inherit
            or (config and config.inherit)
            or output_inherit
            or scanned is not None
        ):
            metadata[PENDING_KEY] = pending
        return (
            Tool(
                name=name,
                span=doc.value_span("name"),
                description=description,
                input_schema=inputs.schema,
                output_schema=output,
                config_schema=config.schema if config else None,
                context_params=tuple(inputs.context),
                sql=statement,
                returns_void=void,
                metadata=metadata,
            ),
            None,
        )

    def _left_out(
        self,
        doc: JObject,
        name: str,
        what: str,
        inputs: Block | None,
        config: Block | None,
        returns: tuple[JObject | None, bool, Inherit | None] | None,
        statement: SqlStatement | None,
        scanned: Scan | None,
        sql_map: tuple[tuple[int, int], ...],
    ) -> Tool | None:
        """A function left out after an error, with what `link` needs for the checks independent of that error:
        its inheritance from other files' entities (arguments, config, return shape) and its SQL placeholders.
        Arguments that failed are still declared, of unknown type.
        """
        span = doc.value_span("name")
        if (
            inputs is None
        ):  # its arguments block is broken: their names may still be known
            raw = _raw_arguments(doc)
            if raw is not None:
                inputs = Block(JObject({}, span), inherit=raw[0], names=raw[1])
        output, _, output_inherit = (
            returns if returns is not None else (None, False, None)
        )
        pending = Pending(
            what,
            inputs=inputs.inherit if inputs is not None else None,
            config=config.inherit if config is not None else None,
            output=output_inherit,
            # without the argument names, every placeholder would be reported as unknown
            sql=scanned if inputs is not None else None,
            sql_map=sql_map,
            names=inputs.names if inputs is not None else {},
        )
        if not (pending.inputs or pending.config or pending.output or pending.sql):
            return None  # nothing of it depends on other files
        return Tool(
            name,
            span,
            None,
            inputs.schema if inputs is not None else JObject({}, span),
            output_schema=output,
            config_schema=config.schema if config is not None else None,
            context_params=tuple(inputs.context) if inputs is not None else (),
            sql=statement if pending.sql is not None else None,
            metadata={PENDING_KEY: pending},
        )

    def _returns(
        self, doc: JObject, what: str
    ) -> tuple[JObject | None, bool, Inherit | None] | None:
        key = "returns" if "returns" in doc else "return_shape"
        if key not in doc or doc[key] is None:
            return None, True, None
        value, span = doc[key], doc.value_span(key)
        label = f"the return shape of {what}"
        if isinstance(value, str):
            if value.strip() == "void":
                return None, True, None
            schema = self.lower.type_name(value, span, label)
            return (schema, False, None) if schema is not None else None
        if not isinstance(value, JObject):
            self.error(
                "brimley-return",
                f"{label} is a type such as 'Order[]', or {{entity_ref: …}} / {{inline: …}}, not {describe(value)}",
                span,
            )
            return None
        for extra in value:
            if extra not in ("entity_ref", "inline"):
                suggestion = near_miss(extra, ("entity_ref", "inline"))
                hint = (
                    f"; did you mean '{suggestion}'?"
                    if suggestion
                    else " (a return shape takes entity_ref and inline)"
                )
                self.error(
                    "brimley-key",
                    f"{label}: unknown key '{extra}'{hint}",
                    value.key_span(extra),
                )
                return None
        ref = value.get("entity_ref")
        if "inline" not in value:
            if ref is None:
                return None, True, None
            if (
                isinstance(ref, str)
                and ALIASES.get(ref.rstrip("[]"), ref.rstrip("[]")) in PRIMITIVES
            ):
                self.error(
                    "brimley-entity-ref",
                    f"{label}: entity_ref names an entity, not the type '{ref}'",
                    value.value_span("entity_ref"),
                )
                return None
            schema = self.lower.type_name(ref, value.value_span("entity_ref"), label)
            return (schema, False, None) if schema is not None else None
        block = complete(
            self.lower.arguments(
                value, span, label, context=False, inherit=True, noun="field"
            )
        )
        if block is None:
            return None
        return block.schema, False, block.inherit

    # ── SQL ────────────────────────────────────────────────────────────────────────────────────────────────

    def _yaml_sql(
        self, doc: JObject, what: str
    ) -> tuple[str, tuple[tuple[int, int], ...], Span] | None:
        if "sql" not in doc:
            self.error(
                "brimley-sql",
                f"{what} has no SQL: give it under 'sql:' or write the function as a .sql file with a YAML header",
                doc.value_span("name"),
            )
            return None
        value = doc["sql"]
        span = doc.value_span("sql")
        if not isinstance(value, str):
            self.error(
                "brimley-sql",
                f"{what}: 'sql' is the statement as a string, not {describe(value)}",
                span,
            )
            return None
        lead = len(value) - len(value.lstrip())
        text = value.strip()
        return text, self._block_map(value, span, lead), span

    def _block_map(
        self, value: str, span: Span, lead: int
    ) -> tuple[tuple[int, int], ...]:
        """Where each line of a block scalar (`sql: |`) sits in the file, so placeholders get exact positions."""
        source = self.source
        fallback = ((0, _offset(source, span.line, span.col)),)
        lines = value[lead:].split("\n")
        entries: list[tuple[int, int]] = []
        at = 0
        line_number = span.line + 1 + value[:lead].count("\n")
        first = value[:lead].rsplit("\n", 1)[-1] if "\n" in value[:lead] else ""
        for index, line in enumerate(lines):
            file_line = source.line_text(line_number + index)
            prefix = first if index == 0 else ""
            column = file_line.find(prefix + line) if line else 0
            if line and column < 0:
                return fallback
            entries.append(
                (at, _offset(source, line_number + index, column + len(prefix) + 1))
            )
            at += len(line) + 1
        return tuple(entries) if entries else fallback

    def _sql(
        self,
        doc: JObject,
        found: tuple[str, tuple[tuple[int, int], ...], Span],
        what: str,
    ) -> tuple[SqlStatement | None, Scan, tuple[tuple[int, int], ...]]:
        text, sql_map, span = found
        result = scan(text)
        if not text:
            self.error("brimley-sql", f"{what} has no SQL statement", span)
            return None, result, sql_map

        def at(start: int, end: int) -> Span:
            return self.source.span(
                map_offset(sql_map, start), map_offset(sql_map, end)
            )

        ok = True
        for problem in result.problems:
            self.error("brimley-sql", problem.message, at(problem.start, problem.end))
            ok = False
        if result.extra_statement is not None:
            self.error(
                "brimley-sql",
                f"{what} holds more than one SQL statement; a SQL function runs exactly one",
                at(result.extra_statement, result.extra_statement + 1),
            )
            ok = False
        connection = doc.get("connection", "default")
        # The runtime reads it as the context path `databases.<name>`: a public name, as every context path.
        if not isinstance(connection, str) or not re.fullmatch(
            r"[A-Za-z][A-Za-z0-9_]*", connection
        ):
            self.error(
                "brimley-key",
                f"{what}: 'connection' names a database connection, such as 'default' (letters, digits and _, "
                "not starting with _: the runtime reads only public names of the context)",
                doc.value_span("connection"),
            )
            ok = False
        if not ok:
            return None, result, sql_map
        placeholders = tuple((p.name, at(p.start, p.end)) for p in result.placeholders)
        return SqlStatement(text, connection, placeholders), result, sql_map

    def _sql_shape(
        self, output: JObject | None, void: bool, doc: JObject, what: str
    ) -> bool:
        """A SQL function returns rows: void, a primitive, a list of primitives, an entity or a list of entities."""
        if void or output is None:
            return True
        element = (
            output["items"]
            if output.get("type") == "array"
            and isinstance(output.get("items"), JObject)
            else output
        )
        if "$ref" in element or (
            element.get("type") not in ("object", "array")
            and "properties" not in element
        ):
            return True
        key = "returns" if "returns" in doc else "return_shape"
        self.error(
            "brimley-return",
            f"{what}: a SQL function's rows map to void, a primitive, a list of primitives, an entity (one row) or "
            "a list of entities (all rows); an inline return shape has no row mapping",
            doc.value_span(key),
        )
        return False

    # ── Resources ──────────────────────────────────────────────────────────────────────────────────────────

    def _resource(
        self, doc: JObject, name: str, description: str | None
    ) -> Resource | None:
        what = f"resource '{name}'"
        path = doc.get("path")
        if not isinstance(path, str) or not path:
            self.error(
                "brimley-resource-path",
                f"{what} needs a 'path' such as /docs/{{category}}/{{page}}",
                doc.value_span("path") if "path" in doc else doc.value_span("name"),
            )
            return None
        inputs = self._arguments(doc, what, context=False)
        if inputs is None:
            return None
        return Resource(
            name=name,
            span=doc.value_span("name"),
            description=description,
            path=path,
            path_span=doc.value_span("path"),
            input_schema=inputs.schema,
            inherit=inputs.inherit,
            metadata=self._metadata(doc),
        )


def _or_null(schema: JObject) -> JObject:
    """`schema`, or null."""
    span = schema.span
    either = JArray((schema, JObject({"type": "null"}, span)), span, (span, span))
    return JObject({"anyOf": either}, span, {"anyOf": span}, {"anyOf": span})


def _raw_arguments(doc: JObject) -> tuple[Inherit | None, dict[str, Span]] | None:
    """The entity an `arguments` block that failed to lower inherits from and the names it declares itself,
    if they can be read (None otherwise)."""
    arguments = doc.get("args", doc.get("arguments"))
    if arguments is None:
        return None, {}
    if not isinstance(arguments, JObject):
        return None
    inherit = None
    entity = arguments.get("entity_ref")
    if entity is not None:
        if not isinstance(entity, str) or not ENTITY_NAME.match(entity):
            return None
        inherit = Inherit(entity, arguments.value_span("entity_ref"))
    inline = arguments.get("inline")
    if inline is None:
        return inherit, {}
    if isinstance(inline, JObject) and "properties" in inline:
        inline = inline["properties"]
    if not isinstance(inline, JObject):
        return None
    return inherit, {key: inline.key_span(key) for key in inline}


def _offset(source: SourceFile, line: int, col: int) -> int:
    """The character offset of a 1-based line and column."""
    return (
        source._line_starts[line - 1] + col - 1
        if line - 1 < len(source._line_starts)
        else len(source.text)
    )


def map_offset(sql_map: tuple[tuple[int, int], ...], index: int) -> int:
    """The file offset of character `index` of a SQL text, given (SQL offset, file offset) line anchors."""
    base_sql, base_file = sql_map[0]
    for sql_at, file_at in sql_map:
        if sql_at > index:
            break
        base_sql, base_file = sql_at, file_at
    return base_file + index - base_sql
