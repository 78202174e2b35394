"""Running a tool call: validate the arguments, inject context, call the implementation, validate the result.

Every failure comes back as a `ToolError` an LLM can read and act on (which argument, what was expected), as data
and as JSON text; nothing here lets a traceback reach the caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .validation import validate

_MISSING = object()
DRAFT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Problem:
    # Dotted argument path, e.g. "items[0].id"; "" for the arguments as a whole.
    path: str
    message: str


@dataclass(frozen=True)
class ToolError:
    tool: str
    # "unknown_tool" | "invalid_arguments" | "missing_context" | "implementation_error"
    # | "invalid_result"
    kind: str
    message: str
    problems: tuple[Problem, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "error": self.kind,
            "tool": self.tool,
            "message": self.message,
            "problems": [{"path": p.path, "message": p.message} for p in self.problems],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass(frozen=True)
class ToolResult:
    tool: str
    value: Any = None
    error: ToolError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> str:
        if self.error is not None:
            return self.error.to_json()
        return json.dumps(_jsonable(self.value), ensure_ascii=False)


@dataclass(frozen=True)
class ContextArg:
    name: str  # Python parameter name
    path: str  # dot path into the context, e.g. "app.user.id"
    required: bool = True
    default: Any = None


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the registry knows it."""

    name: str
    method: str
    description: str | None
    args_model: type[BaseModel]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    result_type: Any = Any
    config_model: type[BaseModel] | None = None
    context_args: tuple[ContextArg, ...] = ()
    # What the spec says beyond the schema (Lilux executor settings, gram record keys, MCP annotations, ...).
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # Set for tools codegen implements itself (SQL tools).
    implementation: Callable[..., Any] | None = None
    _result_adapter: list[TypeAdapter[Any]] = field(
        default_factory=list, repr=False, compare=False
    )

    def definition(self) -> dict[str, Any]:
        """The LLM-facing definition, as in `schemas/<tool>.json`."""
        found: dict[str, Any] = {"name": self.name}
        if self.description:
            found["description"] = self.description
        found["inputSchema"] = {"$schema": DRAFT, **self.input_schema}
        if self.output_schema is not None:
            found["outputSchema"] = {"$schema": DRAFT, **self.output_schema}
        return found

    def result_adapter(self) -> TypeAdapter[Any]:
        if not self._result_adapter:
            self._result_adapter.append(TypeAdapter(self.result_type))
        return self._result_adapter[0]


@dataclass(frozen=True)
class AgentSpec:
    """An agent (gram `:Agent`): the tools it may call, and its settings (instruction, model, ...)."""

    name: str
    description: str | None
    tools: tuple[str, ...]
    metadata: Mapping[str, Any] = field(default_factory=dict)


def lookup(context: Any, path: str) -> Any:
    """Resolve a dot path in a context, segment by segment, by key or by attribute."""
    node = context
    for segment in path.split("."):
        if isinstance(node, Mapping):
            node = node.get(segment, _MISSING)
        else:
            node = getattr(node, segment, _MISSING)
        if node is _MISSING:
            raise LookupError(path)
    return node


def call_tool(
    spec: ToolSpec | None,
    name: str,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any,
) -> ToolResult:
    if spec is None:
        return _fail(name, "unknown_tool", f"there is no tool named {name!r}")
    data: Any = arguments
    if isinstance(arguments, (str, bytes)):
        try:
            data = json.loads(arguments)
        except ValueError as exc:
            return _fail(
                name, "invalid_arguments", f"the arguments are not valid JSON: {exc}"
            )
    problems = validate(data, spec.input_schema)
    if problems:
        return _invalid_arguments(name, problems)
    try:
        args = spec.args_model.model_validate(data)
    except ValidationError as exc:
        return _fail(
            name,
            "invalid_arguments",
            "the arguments do not match the schema",
            *_pydantic_problems(exc),
        )
    kwargs = {
        field_name: getattr(args, field_name) for field_name in type(args).model_fields
    }
    for arg in spec.context_args:
        try:
            kwargs[arg.name] = lookup(context, arg.path)
        except LookupError:
            if arg.required:
                return _fail(
                    name, "missing_context", f"the context has no value at {arg.path!r}"
                )
            kwargs[arg.name] = arg.default
    target = (
        spec.implementation
        if spec.implementation is not None
        else getattr(impl, spec.method, None)
    )
    if target is None:
        return _fail(
            name,
            "implementation_error",
            f"the implementation has no method {spec.method!r}",
        )
    try:
        value = target(**kwargs)
    except Exception as exc:  # the caller gets a readable error, never a traceback
        return _fail(name, "implementation_error", f"{type(exc).__name__}: {exc}")
    try:
        value = spec.result_adapter().validate_python(value)
    except ValidationError as exc:
        return _fail(
            name,
            "invalid_result",
            "the implementation returned a value that does not match the schema",
            *_pydantic_problems(exc),
        )
    return ToolResult(name, value)


def _invalid_arguments(name: str, problems: list[Any]) -> ToolResult:
    found = tuple(Problem(_dotted(p.path), p.message) for p in problems)
    return ToolResult(
        name,
        error=ToolError(
            name, "invalid_arguments", "the arguments do not match the schema", found
        ),
    )


def _fail(name: str, kind: str, message: str, *problems: Problem) -> ToolResult:
    return ToolResult(name, error=ToolError(name, kind, message, problems))


def _pydantic_problems(exc: ValidationError) -> list[Problem]:
    return [
        Problem(_dotted(tuple(err["loc"])), err["msg"])
        for err in exc.errors(include_url=False)
    ]


def _dotted(path: tuple[Any, ...]) -> str:
    text = ""
    for part in path:
        text += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{part}" if text else str(part))
        )
    return text


def _jsonable(value: Any) -> Any:
    # By wire name, and only what was set: the dump must validate against the schema it came from.
    return TypeAdapter(Any).dump_python(
        value, mode="json", by_alias=True, exclude_unset=True
    )
