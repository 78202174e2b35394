"""gram front end: tool, agent and entity specs written in gram notation (../shared/reference/gram.md §3).

    [sayHello:Tool {description: "Returns a friendly greeting"} |
      (personName::Text {default: "world"})==>(::String)
    ]

`load_gram_file` parses a file (syntax.py) and lowers its subject patterns into the IR: `:Tool` patterns become
`Tool`s, `:Agent` patterns an `Agent` plus the tools nested in it, `:Entity` patterns `Entity`s. A tool may have,
beside its signature, one `[:Config | (apiKey::Text), …]` element: its instantiation config, whose nodes are
fields like an entity's (a closed object schema, `Tool.config_schema`). Types are lowered
by schema.py into JSON Schema fragments, so the same tool in gram, JSON or Brimley gives identical output.

gram identifiers are global: a parameter name means one thing in the whole file, so its declarations must agree on
the type (`gram-param-conflict`), and a bare `(personName)` in a signature reuses the declaration made elsewhere —
in another tool or as a top-level node `(personName::Text {description: "…"})`. `check_parameter_identity`
extends the rule across files for a driver that wants it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ...diagnostics import Diagnostics, SourceFile, SpecError, Span
from ...ir import Agent, Entity, JArray, JObject, SpecModule, Tool
from .syntax import (
    Document,
    GramSyntaxError,
    Name,
    Node,
    Path,
    Reference,
    Subject,
    SubjectPattern,
    parse_gram,
)
from ..json.tools import entity_schema
from .schema import (
    BUILTIN_TYPES,
    TYPE_NAME,
    Built,
    TypeLowering,
    TypeSpec,
    near_miss,
    plain,
    type_key,
    type_words,
)

__all__ = ["load_gram_file", "check_parameter_identity"]

TOOL_NAME = re.compile(
    r"[A-Za-z_][A-Za-z0-9_.\-]{0,127}\Z"
)  # the same rule as the JSON front end
ROLES = ("Tool", "Agent", "Entity")
VOID = ("Void", "Unit")
_TEXT_KINDS = ("string", "tagged")


def load_gram_file(source: SourceFile, diags: Diagnostics) -> SpecModule:
    """Read one `.gram` file into a SpecModule; a syntax error is recorded and raised as `SpecError`."""
    document = _parse(source, diags)
    return _Lowering(source, diags, document).module()


def _parse(source: SourceFile, diags: Diagnostics) -> Document:
    # A byte-order mark becomes a space, so offsets (and so lines and columns) stay those of the file.
    text = " " + source.text[1:] if source.text.startswith("\ufeff") else source.text
    try:
        return parse_gram(text)
    except GramSyntaxError as error:
        notes = [(note, source.span(offset)) for note, offset in error.notes]
        diags.error(
            error.code, error.message, source.span(error.start, error.end), *notes
        )
        raise SpecError(error.message) from None


@dataclass
class _Param:
    """One declaration of a parameter: the unit of global parameter identity."""

    name: str
    name_span: Span
    schema: JObject
    owner: str  # "tool 'greet'" or "a top-level declaration", for messages


class _Lowering:
    """Lowers one parsed file. Two passes: declare every typed parameter (so identity is checked in document order
    and bare references resolve whatever their position), then build tools, agents and entities.
    """

    def __init__(
        self, source: SourceFile, diags: Diagnostics, document: Document
    ) -> None:
        self.source = source
        self.diags = diags
        self.document = document
        self.roles: dict[int, str | None] = (
            {}
        )  # id(subject pattern) -> role; diagnosed once
        self.role_errors: set[int] = (
            set()
        )  # patterns whose labels were already reported
        self.types = TypeLowering(source, diags, self._local_entities())
        self.params: dict[str, _Param] = (
            {}
        )  # parameter name -> its first declaration in this file
        self.lowered: dict[int, _Param | None] = (
            {}
        )  # id(node) -> its lowering; every node is lowered once
        self.dropped: list[Tool | Entity] = (
            []
        )  # named definitions left out after an error: they keep their names

    def span(self, node: Any) -> Span:
        return self.source.span(node.start, node.end)

    def module(self) -> SpecModule:
        self._declare_parameters()
        tools: list[Tool] = []
        entities: list[Entity] = []
        agents: list[Agent] = []
        for pattern in self.document.patterns:
            element = pattern.element
            if isinstance(element, SubjectPattern):
                self._subject_pattern(element, tools, entities, agents)
            elif not _is_declaration(element):
                self.diags.warning(
                    "gram-ignored",
                    "this path defines nothing and is ignored: tools, agents and entities are subject patterns "
                    'such as [name:Tool {description: "…"} | (x::Text)==>(::String)]',
                    self.span(element),
                )
        return SpecModule(
            self.source,
            tools=tuple(tools),
            entities=tuple(entities),
            agents=tuple(agents),
            dropped=tuple(self.dropped),
        )

    def _subject_pattern(
        self,
        pattern: SubjectPattern,
        tools: list[Tool],
        entities: list[Entity],
        agents: list[Agent],
    ) -> None:
        role = self._role(pattern)
        if role == "Tool":
            tool = self._tool(pattern, None)
            if tool is not None:
                tools.append(tool)
        elif role == "Agent":
            agent = self._agent(pattern, tools)
            if agent is not None:
                agents.append(agent)
        elif role == "Entity":
            entity = self._entity(pattern)
            if entity is not None:
                entities.append(entity)
        elif id(pattern) not in self.role_errors:
            self.diags.warning(
                "gram-ignored",
                "this pattern is not labelled Tool, Agent or Entity and is ignored",
                self.span(pattern.subject or pattern),
            )

    # ── Roles ───────────────────────────────────────────────────────────────────────────────────────────────────

    def _role(self, pattern: SubjectPattern) -> str | None:
        """Which of Tool, Agent, Entity a subject pattern is (memoised, so a bad label is reported once)."""
        key = id(pattern)
        if key not in self.roles:
            self.roles[key] = self._find_role(pattern)
        return self.roles[key]

    def _find_role(self, pattern: SubjectPattern) -> str | None:
        labels = pattern.subject.labels if pattern.subject else []
        roles = [label for label in labels if label.name.text in ROLES]
        distinct = {label.name.text for label in roles}
        if len(distinct) > 1:
            second = next(
                label for label in roles if label.name.text != roles[0].name.text
            )
            self.diags.error(
                "gram-labels",
                f"a pattern is one of Tool, Agent or Entity, not both '{roles[0].name.text}' and '{second.name.text}'",
                self.span(second),
            )
            self.role_errors.add(id(pattern))
            return None
        if roles:
            return roles[0].name.text
        for label in labels:
            suggestion = near_miss(label.name.text, ROLES)
            if suggestion:
                self.diags.error(
                    "gram-labels",
                    f"unknown label '{label.name.text}'; did you mean '{suggestion}'?",
                    self.span(label),
                )
                self.role_errors.add(id(pattern))
                return None
        return None

    def _local_entities(self) -> set[str]:
        names = set()
        for pattern in self.document.patterns:
            element = pattern.element
            if isinstance(element, SubjectPattern) and self._role(element) == "Entity":
                if element.subject and element.subject.identifier:
                    names.add(element.subject.identifier.text)
        return names

    # ── Parameters and global identity ──────────────────────────────────────────────────────────────────────────

    def _declare_parameters(self) -> None:
        """Pass 1: lower every typed parameter node in document order; the first declaration of a name wins and
        every later one must agree with it on the type."""
        for node, owner in self._parameter_nodes():
            if (
                node.subject is None
                or node.subject.labels
                or node.subject.record is not None
            ):
                param = self._lower_param(node, owner)
                if param is not None:
                    self._declare(param)

    def _parameter_nodes(self) -> Iterator[tuple[Node, str]]:
        for pattern in self.document.patterns:
            element = pattern.element
            if isinstance(element, Path) and _is_declaration(element):
                yield element.nodes[0], "a top-level declaration"
            elif isinstance(element, SubjectPattern):
                yield from self._parameter_nodes_in(element)

    def _parameter_nodes_in(
        self, pattern: SubjectPattern
    ) -> Iterator[tuple[Node, str]]:
        role = self._role(pattern)
        if role == "Agent":
            for element in pattern.elements:
                if (
                    isinstance(element, SubjectPattern)
                    and self._role(element) == "Tool"
                ):
                    yield from self._parameter_nodes_in(element)
        elif role == "Tool":
            signature = [e for e in pattern.elements if not _is_config(e)]
            if signature and isinstance(signature[0], Path):
                identifier = pattern.subject.identifier if pattern.subject else None
                owner = f"tool '{identifier.text}'" if identifier else "an unnamed tool"
                for node in _parameter_nodes(signature[0]):
                    yield node, owner

    def _declare(self, param: _Param) -> None:
        first = self.params.get(param.name)
        if first is None:
            self.params[param.name] = param
        elif type_key(first.schema) != type_key(param.schema):
            self.diags.error(
                "gram-param-conflict",
                f"parameter '{param.name}' is {type_words(param.schema)} in {param.owner} but "
                f"{type_words(first.schema)} in {first.owner}; gram identifiers are global, so one name has one type",
                param.name_span,
                (f"'{param.name}' first declared here", first.name_span),
            )

    def _lower_param(
        self, node: Node, owner: str, kind: str = "parameter"
    ) -> _Param | None:
        """A typed node (name::Type {record}) lowered once; later calls return the same result."""
        key = id(node)
        if key not in self.lowered:
            self.lowered[key] = self._lower_node(node, owner, kind)
        return self.lowered[key]

    def _lower_node(self, node: Node, owner: str, kind: str) -> _Param | None:
        subject = node.subject
        name = self._node_name(subject, node, owner, kind)
        if subject is None or name is None:
            return None
        what = f"{kind} '{name.text}'"
        if not subject.labels:
            self.diags.error(
                "gram-labels",
                f"{what} has no type label; write ({name.text}::Text)",
                self.span(subject),
            )
            return None
        if len(subject.labels) > 1:
            shown = ", ".join(f"'{label.name.text}'" for label in subject.labels)
            self.diags.error(
                "gram-labels",
                f"{what} has {len(subject.labels)} type labels ({shown}); a {kind} has exactly one type",
                self.span(subject.labels[1]),
            )
            return None
        entries = (
            self.types.entries(subject.record.entries, what) if subject.record else {}
        )
        if entries is None:
            return None
        label = subject.labels[0]
        spec = TypeSpec(
            label.name.text, self.span(label.name), entries, self.span(node), what
        )
        schema = self.types.lower(spec)
        return (
            _Param(name.text, self.span(name), schema, owner)
            if schema is not None
            else None
        )

    def _node_name(
        self, subject: Subject | None, node: Node, owner: str, kind: str
    ) -> Name | None:
        identifier = subject.identifier if subject else None
        if identifier is None:
            self.diags.error(
                "gram-param-name",
                f"a {kind} of {owner} has no name; write (name::Type)",
                self.span(node),
            )
            return None
        if identifier.kind == "integer":
            self.diags.error(
                "gram-param-name",
                f"a {kind} name is a name, not the number {identifier.text}",
                self.span(identifier),
            )
            return None
        return identifier

    def _param_for(self, node: Node, owner: str) -> _Param | None:
        """Pass 2: a signature node's parameter — its own declaration, or a bare reference to one elsewhere."""
        subject = node.subject
        if (
            subject is not None
            and subject.identifier
            and not subject.labels
            and subject.record is None
        ):
            declared = self.params.get(subject.identifier.text)
            if declared is not None:
                return _Param(
                    declared.name, self.span(subject.identifier), declared.schema, owner
                )
            self.diags.error(
                "gram-labels",
                f"parameter '{subject.identifier.text}' has no type label and is declared nowhere else in this file; "
                f"write ({subject.identifier.text}::Text)",
                self.span(subject),
            )
            return None
        return self._lower_param(node, owner)

    # ── Tools ───────────────────────────────────────────────────────────────────────────────────────────────────

    def _tool(self, pattern: SubjectPattern, group: str | None) -> Tool | None:
        subject = pattern.subject
        assert subject is not None  # it carries the Tool label
        name = self._pattern_name(
            subject, "tool", '[greet:Tool {description: "…"} | …]'
        )
        if name is None or not self._valid_tool_name(name):
            return None
        what = f"tool '{name.text}'"
        entries = (
            self.types.entries(subject.record.entries, what) if subject.record else {}
        )
        description = (
            self._description(entries, what, self.span(name), required=True)
            if entries is not None
            else None
        )
        # the record, the signature and the config are independent: each is checked, then the tool is left out
        signature = self._signature(pattern, name)
        config_schema = self._config(pattern, name)
        if entries is None or signature is None or config_schema is False:
            empty = JObject({}, self.span(name))
            self.dropped.append(Tool(name.text, self.span(name), None, empty))
            return None
        input_schema, output_schema, void = signature
        return Tool(
            name=name.text,
            span=self.span(name),
            description=description,
            input_schema=input_schema,
            output_schema=output_schema,
            config_schema=config_schema if isinstance(config_schema, JObject) else None,
            returns_void=void,
            metadata=self._metadata(entries),
            group=group,
        )

    def _valid_tool_name(self, name: Name) -> bool:
        if name.kind in ("symbol", "quoted_name") and TOOL_NAME.match(name.text):
            return True
        self.diags.error(
            "gram-tool-name",
            f"{name.text!r} is not a valid tool name: use letters, digits, '_', '-' and '.', starting with a letter",
            self.span(name),
        )
        return False

    def _signature(
        self, pattern: SubjectPattern, name: Name
    ) -> tuple[JObject, JObject | None, bool] | None:
        """The one element of a tool: a path whose last node is the return type and the others the parameters."""
        path = self._signature_path(pattern, name)
        if path is None:
            return None
        owner = f"tool '{name.text}'"
        input_schema = self._input_schema(path, owner)
        returns = self._returns(path.nodes[-1], owner)
        if input_schema is None or returns is None:
            return None
        output_schema, void = returns
        return input_schema, output_schema, void

    def _config(self, pattern: SubjectPattern, name: Name) -> JObject | None | bool:
        """The tool's instantiation config, from a `[:Config | (apiKey::Text), (limit::Int {default: 5})]`
        element: its nodes are fields, like an entity's, making a closed object schema. None when there is
        none, False after an error."""
        configs = [
            e
            for e in pattern.elements
            if isinstance(e, SubjectPattern) and _is_config(e)
        ]
        if not configs:
            return None
        what = f"the config of tool '{name.text}'"
        if len(configs) > 1:
            self.diags.error(
                "gram-config",
                f"tool '{name.text}' has more than one [:Config | …] element",
                self.span(configs[1]),
            )
            return False
        config = configs[0]
        assert config.subject is not None
        entries = (
            self.types.entries(config.subject.record.entries, what)
            if config.subject.record
            else {}
        )
        if entries is None:
            return False
        description = self._description(
            entries, what, self.span(config.subject), required=False
        )
        for key in entries:
            if key != "description":
                self.diags.warning(
                    "gram-key",
                    f"{what}: the key '{key}' means nothing here and is ignored",
                    self.span(entries[key].key),
                )
        schema = self._entity_schema(config, what, description)
        return schema if schema is not None else False

    def _signature_path(self, pattern: SubjectPattern, name: Name) -> Path | None:
        example = f'[{name.text}:Tool {{description: "…"}} | (x::Text)==>(::String)]'
        elements = [e for e in pattern.elements if not _is_config(e)]
        if not elements:
            self.diags.error(
                "gram-signature",
                f"tool '{name.text}' has no signature; write it after '|', e.g. {example}",
                self.span(name),
            )
            return None
        first = elements[0]
        if not isinstance(first, Path):
            self.diags.error(
                "gram-signature",
                f"tool '{name.text}': the signature is a path of nodes such as (x::Text)==>(::String)",
                self.span(first),
            )
            return None
        if len(elements) > 1:
            self.diags.error(
                "gram-signature",
                f"tool '{name.text}' has {len(elements)} elements; a tool has exactly one signature "
                "(curry the parameters into one path: (a::Text)==>(b::Int)==>(::String)), "
                "and at most one [:Config | (apiKey::Text)] element",
                self.span(elements[1]),
            )
            return None
        return first

    def _input_schema(self, path: Path, owner: str) -> JObject | None:
        span = self.span(path)
        properties = Built(span)
        required: list[str] = []
        required_spans: list[Span] = []
        seen: dict[str, Span] = {}
        ok = True
        for node in _parameter_nodes(path):
            param = self._param_for(node, owner)
            if param is None:
                ok = False
                continue
            if param.name in seen:
                self.diags.error(
                    "gram-param-name",
                    f"{owner}: the parameter '{param.name}' appears twice in the signature",
                    param.name_span,
                    ("first here", seen[param.name]),
                )
                ok = False
                continue
            seen[param.name] = param.name_span
            properties.put(param.name, param.schema, param.name_span, self.span(node))
            if "default" not in param.schema:
                required.append(param.name)
                required_spans.append(param.name_span)
        if not ok:
            return None
        return _object_schema(span, properties.done(), required, required_spans)

    def _returns(self, node: Node, owner: str) -> tuple[JObject | None, bool] | None:
        """The return node: (schema, False), or (None, True) for `()`, `(::Void)` and `(::Unit)`."""
        subject = node.subject
        if subject is None:
            return None, True
        what = f"the return type of {owner}"
        if not subject.labels:
            self.diags.error(
                "gram-labels",
                f"{what} has no type label; write (::String)",
                self.span(subject),
            )
            return None
        if len(subject.labels) > 1:
            self.diags.error(
                "gram-labels",
                f"{what} has {len(subject.labels)} type labels; it has exactly one",
                self.span(subject.labels[1]),
            )
            return None
        label = subject.labels[0]
        if label.name.text in VOID:
            return None, True
        entries = (
            self.types.entries(subject.record.entries, what) if subject.record else {}
        )
        if entries is None:
            return None
        if "default" in entries:
            self.diags.error(
                "gram-default",
                f"{what} cannot have a default",
                self.span(entries["default"].key),
            )
            return None
        schema = self.types.lower(
            TypeSpec(
                label.name.text, self.span(label.name), entries, self.span(node), what
            )
        )
        return (schema, False) if schema is not None else None

    # ── Agents and entities ─────────────────────────────────────────────────────────────────────────────────────

    def _agent(self, pattern: SubjectPattern, tools: list[Tool]) -> Agent | None:
        subject = pattern.subject
        assert subject is not None
        name = self._pattern_name(
            subject, "agent", '[helper:Agent {description: "…"} | [greet:Tool …]]'
        )
        if name is None:
            return None
        what = f"agent '{name.text}'"
        entries = (
            self.types.entries(subject.record.entries, what) if subject.record else {}
        )
        names: list[str] = []
        for (
            element
        ) in (
            pattern.elements
        ):  # its nested tools are checked even after an error in its record
            tool_name = self._agent_element(element, name.text, tools)
            if tool_name is not None and tool_name not in names:
                names.append(tool_name)
        if entries is None:
            return None
        description = self._description(entries, what, self.span(name), required=False)
        return Agent(
            name.text,
            self.span(name),
            description,
            tuple(names),
            self._metadata(entries),
        )

    def _agent_element(self, element: Any, agent: str, tools: list[Tool]) -> str | None:
        """A nested tool (compiled, grouped under the agent) or the name of a tool defined elsewhere."""
        if isinstance(element, Reference):
            return element.name.text
        if isinstance(element, SubjectPattern) and self._role(element) == "Tool":
            tool = self._tool(element, agent)
            if tool is not None:
                tools.append(tool)
                return tool.name
            return None
        self.diags.error(
            "gram-agent",
            f"agent '{agent}': an agent lists tools — nested [name:Tool …] patterns or names of tools defined elsewhere",
            self.span(element),
        )
        return None

    def _entity(self, pattern: SubjectPattern) -> Entity | None:
        subject = pattern.subject
        assert subject is not None
        name = self._pattern_name(
            subject, "entity", '[User:Entity {description: "…"} | (name::Text)]'
        )
        if name is None or not self._valid_entity_name(name):
            return None
        what = f"entity '{name.text}'"
        entries = (
            self.types.entries(subject.record.entries, what) if subject.record else {}
        )
        description = None
        if entries is not None:
            description = self._description(
                entries, what, self.span(name), required=False
            )
            for key in entries:
                if key != "description":
                    self.diags.warning(
                        "gram-key",
                        f"{what}: the key '{key}' means nothing here and is ignored",
                        self.span(entries[key].key),
                    )
        schema = self._entity_schema(pattern, what, description)
        span = self.span(name)
        if entries is None or schema is None:
            self.dropped.append(Entity(name.text, span, None, JObject({}, span)))
            return None
        return Entity(
            name.text, span, description, entity_schema(schema, name.text, span)
        )

    def _valid_entity_name(self, name: Name) -> bool:
        if (
            name.kind != "integer"
            and TYPE_NAME.match(name.text)
            and name.text not in (*BUILTIN_TYPES, *VOID)
        ):
            return True
        self.diags.error(
            "gram-entity",
            f"{name.text!r} cannot name an entity: use a name like 'User' that is not a built-in type",
            self.span(name),
        )
        return False

    def _entity_schema(
        self, pattern: SubjectPattern, what: str, description: str | None
    ) -> JObject | None:
        """An entity's fields are its elements, each a node (name::Type {record}) like a parameter."""
        span = self.span(pattern)
        properties = Built(span)
        required: list[str] = []
        required_spans: list[Span] = []
        ok = True
        for element in pattern.elements:
            field = self._entity_field(element, what)
            if field is None:
                ok = False
                continue
            if field.name in properties.items:
                self.diags.error(
                    "gram-param-name",
                    f"{what}: the field '{field.name}' is declared twice",
                    field.name_span,
                )
                ok = False
                continue
            properties.put(field.name, field.schema, field.name_span)
            if "default" not in field.schema:
                required.append(field.name)
                required_spans.append(field.name_span)
        if not ok:
            return None
        return _object_schema(
            span, properties.done(), required, required_spans, description
        )

    def _entity_field(self, element: Any, what: str) -> _Param | None:
        if isinstance(element, Path) and len(element.nodes) == 1:
            return self._lower_param(element.nodes[0], what, "field")
        self.diags.error(
            "gram-entity",
            f"{what}: each element is one field node, e.g. (name::Text)",
            self.span(element),
        )
        return None

    # ── Shared pieces ───────────────────────────────────────────────────────────────────────────────────────────

    def _pattern_name(self, subject: Subject, kind: str, example: str) -> Name | None:
        if subject.identifier is None:
            code = "gram-tool-name" if kind == "tool" else f"gram-{kind}"
            self.diags.error(
                code, f"this {kind} has no name; write {example}", self.span(subject)
            )
        return subject.identifier

    def _description(
        self, entries: dict[str, Any], what: str, span: Span, required: bool
    ) -> str | None:
        entry = entries.get("description")
        if entry is None:
            if required:
                self.diags.error(
                    "gram-description",
                    f'{what} has no description; add {{description: "…"}} (the LLM reads it to choose the tool)',
                    span,
                )
            return None
        if entry.value.kind not in _TEXT_KINDS:
            self.diags.error(
                "gram-description",
                f"{what}: a description is a quoted string",
                self.span(entry.value),
            )
            return None
        if not entry.value.data.strip():
            self.diags.error(
                "gram-description",
                f"{what} has an empty description",
                self.span(entry.value),
            )
            return None
        return str(entry.value.data)

    def _metadata(self, entries: dict[str, Any]) -> dict[str, Any]:
        """Record keys other than the description, as plain JSON values (sorted, like the JSON front end)."""
        return {
            key: plain(entries[key].value, self.source.text)
            for key in sorted(entries)
            if key != "description"
        }


def _object_schema(
    span: Span,
    properties: JObject,
    required: list[str],
    required_spans: list[Span],
    description: str | None = None,
) -> JObject:
    """{"type": "object", ["description"], "properties", ["required"], "additionalProperties": false}."""
    out = Built(span)
    out.put("type", "object")
    if description is not None:
        out.put("description", description)
    out.put("properties", properties)
    if required:
        out.put("required", JArray(required, span, tuple(required_spans)))
    out.put("additionalProperties", False)
    return out.done()


def _is_config(element: Any) -> bool:
    """A `[:Config | …]` element of a tool: its instantiation config."""
    subject = element.subject if isinstance(element, SubjectPattern) else None
    return subject is not None and [label.name.text for label in subject.labels] == [
        "Config"
    ]


def _parameter_nodes(path: Path) -> list[Node]:
    """Every node but the last; `()==>(::T)` has none (the empty node is the unit, not a parameter)."""
    nodes = path.nodes[:-1]
    if len(nodes) == 1 and nodes[0].subject is None:
        return []
    return nodes


def _is_declaration(path: Path) -> bool:
    """A top-level `(name::Type {…})`: declares a global parameter that signatures may use as `(name)`."""
    if len(path.nodes) != 1:
        return False
    subject = path.nodes[0].subject
    return (
        subject is not None and subject.identifier is not None and bool(subject.labels)
    )


# ── Across files ────────────────────────────────────────────────────────────────────────────────────────────────


def check_parameter_identity(modules: Iterable[SpecModule], diags: Diagnostics) -> None:
    """Global parameter identity across gram files (within a file `load_gram_file` already checks it):
    a parameter name used by tools of different `.gram` files must have one type. For the driver to call once
    every file is loaded; it keeps no state between runs."""
    first: dict[str, tuple[str, Span, str, str]] = (
        {}
    )  # name -> (type key, span, tool, file)
    for module in modules:
        if not module.source.path.name.endswith(".gram"):
            continue
        for tool in module.tools:
            properties = tool.input_schema.get("properties")
            if not isinstance(properties, JObject):
                continue
            for name, schema in properties.items():
                _compare(
                    name,
                    schema,
                    properties.key_span(name),
                    tool.name,
                    module.source.display,
                    first,
                    diags,
                )


def _compare(
    name: str,
    schema: Any,
    span: Span,
    tool: str,
    file: str,
    first: dict[str, tuple[str, Span, str, str]],
    diags: Diagnostics,
) -> None:
    key = type_key(schema)
    if name not in first:
        first[name] = (key, span, tool, file)
        return
    first_key, first_span, first_tool, first_file = first[name]
    if first_key != key and first_file != file:
        diags.error(
            "gram-param-conflict",
            f"parameter '{name}' is {type_words(schema)} in tool '{tool}' but a different type in tool "
            f"'{first_tool}' ({first_file}); gram identifiers are global, so one name has one type",
            span,
            (f"'{name}' first declared here", first_span),
        )
