"""Running a tool call: validate the arguments, inject context, call the implementation, validate the result.

Every failure comes back as a `ToolError` an LLM can read and act on (which argument, what was expected), as data
and as JSON text; nothing here lets a traceback reach the caller.

A tool with instantiation config (`<Tool>Config`) gets it as the keyword argument `ToolSpec.config_param`, from
the `config` mapping the application passes (tool name -> config), never from the LLM.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError

from .checks import Problems
from .schema_checks import SchemaCheck
from .exports import (
    export_names,
    mcp_call_result,
    openai_arguments,
    tool_definition,
)
from .models import (
    checked_instance,
    native_instance,
    read_json,
    schema_location,
    schema_problems,
    to_json_data,
    to_json_output,
    write_json,
)
from .validation import validate

_MISSING = object()
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Longest exception text passed on to the LLM.
_MAX_MESSAGE = 1000
# Formats whose calls `dispatch` understands (`flavour=`): tool names as exported, and for "openai" the
# strict-mode arguments (nulls for "not given", JSON text) turned back into what the schema means.
CALL_FLAVOURS = ("openai", "anthropic", "mcp")
DRAFT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Problem:
    # Dotted argument path, e.g. "items[0].id"; "" for the arguments as a whole.
    path: str
    message: str


@dataclass(frozen=True)
class ToolError:
    tool: str
    # "unknown_tool" | "invalid_arguments": the caller can fix the call;
    # "missing_context" | "invalid_context" | "configuration_error"
    # | "implementation_error" | "invalid_result" | "internal_error": the tool could not
    # run or failed, whatever the arguments.
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
    # The tool's output schema, for `to_mcp` (None: no structured result).
    output_schema: Mapping[str, Any] | None = field(
        default=None, repr=False, compare=False
    )
    # The value as the JSON data the output check passed, where the caller asked to keep it (`keep_data`):
    # a server sends that, rather than dumping the typed value back to the same data.
    data: Any = field(default=_MISSING, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_data(self) -> Any:
        """The value as JSON data (by wire name), or the error's `to_dict()`."""
        if self.error is not None:
            return self.error.to_dict()
        if self.data is not _MISSING:
            return to_json_output(self.data)
        return _jsonable(self.value)

    def to_json(self) -> str:
        return _json_text(self.to_data())

    def to_mcp(self) -> dict[str, Any]:
        """An MCP `tools/call` result: text content, `structuredContent` where the tool has an output
        schema (shaped like its MCP `outputSchema`), `isError` for failures."""
        if self.error is not None:
            return mcp_call_result({}, error=self.error.to_dict())
        definition = {"outputSchema": self.output_schema}
        data = self.to_data()
        return mcp_call_result(definition, data, text=_json_text(data))


@dataclass(frozen=True)
class ContextArg:
    name: str  # Python parameter name
    path: str  # dot path into the context, e.g. "app.user.id"
    required: bool = True
    default: Any = None
    # The argument's name in the spec: a caller's value under it is dropped (the context wins).
    wire: str = ""
    # The Python type the value becomes, after the exact check against `schema` (its declared JSON Schema).
    type: Any = Any
    schema: Any = None
    # The exact check of `schema`, built when first needed.
    check: SchemaCheck | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.schema is not None:
            object.__setattr__(self, "check", SchemaCheck(self.schema))


class MissingContextError(LookupError):
    """A tool needs a value (or a database connection) the context does not have."""


# What `ToolSpec` takes from elsewhere when not given: its method from its name, its input schema from the
# `class` line of its arguments model (`schema="<CONSTANT>"`), so that generated code says each once.
class _FromModel(Mapping[str, Any]):
    """An empty mapping standing for "not given" (a dataclass default must be hashable)."""

    __hash__ = object.__hash__

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


_FROM_MODEL: Mapping[str, Any] = _FromModel()


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool as the registry knows it."""

    name: str
    # The implementation's method: the name, unless the name is no Python name.
    method: str = ""
    description: str | None = None
    args_model: type[BaseModel]
    input_schema: Mapping[str, Any] = _FROM_MODEL  # the arguments model's schema
    output_schema: Mapping[str, Any] | None = None
    result_type: Any = Any
    config_model: type[BaseModel] | None = None
    # The keyword argument the implementation receives the config as.
    config_param: str = "config"
    context_args: tuple[ContextArg, ...] = ()
    # What the spec says beyond the schema (Lilux executor settings, gram record keys, ...).
    metadata: Mapping[str, Any] = field(default_factory=dict)
    # The MCP fields of its definition beside the schemas (`exports.MCP_TOOL_FIELDS`: title, annotations, ...).
    mcp_fields: Mapping[str, Any] = field(default_factory=dict)
    # Set for tools codegen implements itself (SQL tools).
    implementation: Callable[..., Any] | None = None
    _result_adapter: list[TypeAdapter[Any]] = field(
        default_factory=list, repr=False, compare=False
    )
    # The exact checks of the schemas, built when first needed.
    input_check: SchemaCheck = field(init=False, repr=False, compare=False)
    output_check: SchemaCheck | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.method:
            object.__setattr__(self, "method", self.name)
        if self.input_schema is _FROM_MODEL:
            document, pointer = schema_location(self.args_model)
            if pointer or not isinstance(document, Mapping):
                raise TypeError(f"tool {self.name!r}: give its input_schema")
            object.__setattr__(self, "input_schema", document)
        output = self.output_schema
        object.__setattr__(self, "input_check", SchemaCheck(self.input_schema))
        check = SchemaCheck(output) if output is not None else None
        object.__setattr__(self, "output_check", check)

    def definition(self) -> dict[str, Any]:
        """The LLM-facing definition, as in `schemas/<tool>.json` (a copy: changing it changes nothing)."""
        output = self.output_schema
        found = tool_definition(
            self.name,
            self.description,
            _with_dialect(self.input_schema),
            _with_dialect(output) if output is not None else None,
            self.mcp_fields,
        )
        return copy.deepcopy(found)

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
    """Resolve a dot path in a context, segment by segment: a mapping's key (any text: keys are data), else an
    object's public attribute. The path is spec text: a missing value, or a private or dunder attribute, which
    is never read (`public_attribute`), raises LookupError."""
    node = context
    for segment in path.split("."):
        # Decided by its type: `isinstance` would read `node.__class__`, which an object may fake.
        if issubclass(type(node), Mapping):
            node = node.get(segment, _MISSING)
        else:
            node = public_attribute(node, segment, _MISSING)
        if node is _MISSING:
            raise LookupError(path)
    return node


def public_attribute(obj: Any, name: str, default: Any) -> Any:
    """`obj.name` for a name that spec text chose, `default` if there is none. A name starting with `_` is never
    read: a private or dunder attribute (`__init__.__globals__`, `__class__`) leads from an application's
    object to its internals, its module's globals, `os.environ`."""
    if name.startswith("_"):
        return default
    return getattr(obj, name, default)


def run_tool(
    tools: Mapping[str, ToolSpec],
    name: str,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any = None,
    *,
    config: Mapping[str, Any] | None = None,
    flavour: str | None = None,
) -> ToolResult:
    """Find the tool `name` in a registry (by its name, or by the name `flavour`'s export gave it) and run it
    with `call_tool`; an unknown name is reported with the names there are."""
    spec = _find(tools, name, flavour)
    if isinstance(spec, ToolResult):
        return spec
    return call_tool(
        spec, name, arguments, impl, context, config=config, flavour=flavour
    )


def _find(
    tools: Mapping[str, ToolSpec], name: str, flavour: str | None
) -> ToolSpec | ToolResult:
    """The tool `name` (or the one `flavour`'s export named so), or the unknown-tool failure."""
    if flavour is not None and flavour not in CALL_FLAVOURS:
        raise ValueError(
            f"unknown call flavour {flavour!r}; choose one of {CALL_FLAVOURS}"
        )
    spec = tools.get(name)
    if spec is None and flavour is not None:
        exported = export_names(tools, flavour)
        spec = tools.get(next((t for t, e in exported.items() if e == name), ""))
    if spec is None:
        return _fail(name, "unknown_tool", _unknown_tool(name, tools, flavour))
    return spec


def call_tool(
    spec: ToolSpec | None,
    name: str,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any,
    *,
    config: Mapping[str, Any] | None = None,
    flavour: str | None = None,
) -> ToolResult:
    """Run one call of the tool `spec` (None: unknown): `flavour="openai"` first undoes strict mode."""
    if spec is None:
        return _fail(name, "unknown_tool", _unknown_tool(name, {}, flavour))
    try:
        return _call(spec, arguments, impl, context, config, flavour)
    except Exception as exc:  # a bug in codegen or an exotic input: still no traceback
        return _fail(
            spec.name,
            "internal_error",
            f"the tool could not be run ({_exception_text(exc)})",
        )


def _call(
    spec: ToolSpec,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any,
    config: Mapping[str, Any] | None,
    flavour: str | None,
) -> ToolResult:
    prepared = _prepare(spec, arguments, impl, context, config, flavour)
    if isinstance(prepared, ToolResult):
        return prepared
    try:
        value = prepared.run()
    except Exception as exc:
        return _failed_run(spec.name, exc)
    if inspect.isawaitable(value):
        # An async implementation called from sync code: its coroutine is dropped unrun, and said so.
        close = getattr(value, "close", None)
        if close is not None:
            close()
        return _fail(spec.name, "implementation_error", _ASYNC_IMPL)
    return check_result(spec, value)


async def run_tool_async(
    tools: Mapping[str, ToolSpec],
    name: str,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any = None,
    *,
    config: Mapping[str, Any] | None = None,
    flavour: str | None = None,
    to_thread: Callable[[Callable[[], Any]], Awaitable[Any]] | None = None,
    keep_data: bool = False,
) -> ToolResult:
    """`run_tool` for async code: an implementation that is a coroutine function is awaited; a sync one runs
    through `to_thread` (e.g. `anyio.to_thread.run_sync`, so a slow tool does not block the event loop), or
    inline without it. Validation is the same as `run_tool`'s, step for step (the same functions).
    `keep_data`: see `check_result` (a server that sends the result as JSON keeps it).
    """
    spec = _find(tools, name, flavour)
    if isinstance(spec, ToolResult):
        return spec
    try:
        prepared = _prepare(spec, arguments, impl, context, config, flavour)
        if isinstance(prepared, ToolResult):
            return prepared
        try:
            if to_thread is None or prepared.is_async():
                value = prepared.run()
            else:
                value = await to_thread(prepared.run)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            return _failed_run(spec.name, exc)
        return check_result(spec, value, keep_data)
    except Exception as exc:
        # as in call_tool: a bug or an exotic input, still no traceback
        return _fail(
            spec.name,
            "internal_error",
            f"the tool could not be run ({_exception_text(exc)})",
        )


@dataclass(frozen=True)
class _Prepared:
    """A call whose arguments, context values and config are checked: what is left is to run it."""

    target: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def run(self) -> Any:
        return self.target(*self.args, **self.kwargs)

    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.target)


_ASYNC_IMPL = (
    "the tool's implementation is async (a coroutine function): it runs through the async dispatch "
    "(`run_tool_async`, as the MCP server does), not the sync `dispatch`"
)


def _failed_run(name: str, exc: Exception) -> ToolResult:
    if isinstance(exc, MissingContextError):
        return _fail(name, "missing_context", f"the tool cannot run: {exc}")
    # the caller gets a readable error, never a traceback
    return _fail(
        name,
        "implementation_error",
        f"the tool failed while running: {_exception_text(exc)}",
    )


def _prepare(
    spec: ToolSpec,
    arguments: str | bytes | Mapping[str, Any],
    impl: Any,
    context: Any,
    config: Mapping[str, Any] | None,
    flavour: str | None,
) -> ToolResult | _Prepared:
    """Everything before the implementation runs: the arguments read and validated, context values looked up
    and checked, the config validated; a failure on the way comes back as the ToolResult.
    """
    name = spec.name
    data: Any = arguments
    if isinstance(arguments, (str, bytes)):
        if not arguments.strip():
            data = {}  # some clients send "" for a call without arguments
        else:
            try:
                data = read_json(arguments)  # a decimal argument gets every digit
            except RecursionError:
                return _fail(
                    name, "invalid_arguments", "the arguments are nested too deeply"
                )
            except ValueError as exc:
                return _fail(
                    name,
                    "invalid_arguments",
                    f"the arguments are not valid JSON ({exc}); send one JSON object "
                    "whose keys are the tool's parameters",
                )
    if spec.context_args and isinstance(data, Mapping):
        wires = {arg.wire for arg in spec.context_args}
        data = {key: value for key, value in data.items() if key not in wires}
    if flavour == "openai":
        data, undone = openai_arguments(spec.input_schema, data)
        if undone:
            found = tuple(Problem(path, message) for path, message in undone)
            return _fail(name, "invalid_arguments", _FIX_ARGUMENTS, *found)
    # One validation: native strict validation where the model has it, else the schema's check (compiled or
    # the interpreter, with its messages) and Pydantic's typing of the checked data.
    document, pointer = schema_location(spec.args_model)
    args = (
        native_instance(spec.args_model, data)
        if document is spec.input_schema and not pointer
        else None
    )
    if args is None:
        problems = schema_problems(data, spec.input_check)
        if problems:
            return _invalid_arguments(name, problems)
        try:
            args = checked_instance(spec.args_model, data)
        except ValidationError as exc:
            return _fail(
                name, "invalid_arguments", _FIX_ARGUMENTS, *_pydantic_problems(exc)
            )
    kwargs = {
        field_name: getattr(args, field_name) for field_name in type(args).model_fields
    }
    for arg in spec.context_args:
        try:
            kwargs[arg.name] = _context_value(arg, lookup(context, arg.path))
        except LookupError:
            if arg.required:
                return _fail(
                    name,
                    "missing_context",
                    f"the tool cannot run: the application provides no value at "
                    f"{arg.path!r} in its context (the arguments cannot fix this)",
                )
            kwargs[arg.name] = _context_value(arg, arg.default)
        except (ValidationError, ContextValueError) as exc:
            wrong = (
                exc.problems
                if isinstance(exc, ContextValueError)
                else _pydantic_problems(exc)
            )
            return _fail(
                name,
                "invalid_context",
                f"the tool cannot run: the application's context value at {arg.path!r} "
                "is invalid (the arguments cannot fix this)",
                *wrong,
            )
    if spec.config_model is not None:
        settings = _config(spec, config)
        if isinstance(settings, ToolResult):
            return settings
        kwargs[spec.config_param] = settings
    target = (
        spec.implementation
        if spec.implementation is not None
        else public_attribute(impl, spec.method, None)
    )
    if target is None:
        return _fail(
            name,
            "implementation_error",
            f"the tool is not implemented (the implementation has no method "
            f"{spec.method!r})",
        )
    if spec.implementation is not None:  # generated (SQL): takes model and context
        return _Prepared(spec.implementation, (args, context), {})
    return _Prepared(target, (), kwargs)


def check_result(spec: ToolSpec, value: Any, keep_data: bool = False) -> ToolResult:
    """A result value checked against the tool's output schema and typed, or the failure: the implementation's
    value here, a server's result in `mcp_client` (one check for both sides of a call). `keep_data`: the
    result keeps the JSON data the check passed (`ToolResult.data`), which its `to_data` and `to_mcp` send.
    """
    name = spec.name
    if spec.implementation is not None and _validated_rows(spec, value):
        return ToolResult(name, value, output_schema=spec.output_schema)
    data: Any = _MISSING
    if spec.output_schema is not None:
        # The same exact check as the arguments get: Pydantic alone would take "1.5" or True for a number.
        value = to_json_data(value)
        assert spec.output_check is not None
        problems = spec.output_check.problems(value)
        if problems:
            found = tuple(Problem(_dotted(p.path), p.message) for p in problems)
            return _fail(name, "invalid_result", _BAD_RESULT, *found)
        if keep_data:
            data = value
    try:
        # Typed laxly when checked above (strict mode would refuse `1.0` for an integer, which is one).
        value = spec.result_adapter().validate_python(
            value, strict=False if spec.output_schema is not None else None
        )
    except ValidationError as exc:
        return _fail(name, "invalid_result", _BAD_RESULT, *_pydantic_problems(exc))
    return ToolResult(name, value, output_schema=spec.output_schema, data=data)


def _validated_rows(spec: ToolSpec, value: Any) -> bool:
    """Rows a generated SQL implementation returns are entities `sql.py` has just validated: they are not
    validated a second time (nor a third, as the result type)."""
    rows = value if isinstance(value, list) else [value]
    models = _model_classes(spec.result_type)
    return bool(rows) and all(type(row) in models for row in rows)


def _model_classes(kind: Any) -> set[type]:
    """The model classes named in a result type (`Entity`, `list[Entity]`, `Entity | None`)."""
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return {kind}
    return {found for arg in get_args(kind) for found in _model_classes(arg)}


_BAD_RESULT = (
    "the tool's implementation returned a result that does not match its "
    "output schema (a fault in the tool, not in the arguments)"
)


_FIX_ARGUMENTS = (
    "the arguments do not match the tool's input schema; "
    "fix each problem listed and call the tool again"
)


def _config(spec: ToolSpec, config: Mapping[str, Any] | None) -> Any:
    """The tool's config from the application's mapping, validated; or the failure as a ToolResult.
    Messages name paths and expectations, never config values (they may be secrets)."""
    assert spec.config_model is not None
    settings = (config or {}).get(spec.name, _MISSING)
    if settings is _MISSING:
        return _fail(
            spec.name,
            "configuration_error",
            "the tool cannot run: the application has not configured it "
            "(the arguments cannot fix this)",
        )
    if isinstance(settings, spec.config_model):
        return settings
    try:
        return spec.config_model.model_validate(settings)
    except ValidationError as exc:
        return _fail(
            spec.name,
            "configuration_error",
            "the tool cannot run: the application's configuration of it is invalid "
            "(the arguments cannot fix this)",
            *_pydantic_problems(exc),
        )


def _context_value(arg: ContextArg, value: Any) -> Any:
    return context_value(value, arg.type, arg.check)


class ContextValueError(ValueError):
    """A context value that its declared schema rejects."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(
            "; ".join(f"{p.path or 'value'}: {p.message}" for p in problems)
        )
        self.problems = problems


def context_value(value: Any, kind: Any, schema: SchemaCheck | None = None) -> Any:
    """A context value checked exactly against its declared schema's check (as arguments are: no "5" for an
    integer, constraints enforced), then given its Python type.
    Without a schema (code generated before context schemas were emitted) Pydantic's conversion alone
    applies."""
    if schema is not None:
        value = to_json_data(value)
        problems = schema.problems(value)
        if problems:
            raise ContextValueError(
                [Problem(_dotted(p.path), p.message) for p in problems]
            )
    if kind is Any:
        return value
    # Checked above when it has a schema: then typed laxly, as the check has decided.
    return _context_adapter(kind).validate_python(
        value, strict=False if schema is not None else None
    )


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _context_adapter(kind: Any) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(kind)
    if adapter is None:
        adapter = _ADAPTERS.setdefault(kind, TypeAdapter(kind))
    return adapter


def _unknown_tool(name: str, tools: Mapping[str, ToolSpec], flavour: str | None) -> str:
    message = f"there is no tool named {name!r}"
    if not tools:
        return message
    names = sorted(export_names(tools, flavour).values()) if flavour else sorted(tools)
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        message += f"; did you mean {close[0]!r}?"
    if len(names) <= 30:
        message += " The tools are: " + ", ".join(names) + "."
    return message


def _exception_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _with_dialect(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"$schema": DRAFT, **{k: v for k, v in schema.items() if k != "$schema"}}


def problems_of(found: list[Any]) -> tuple[Problem, ...]:
    """A schema check's problems (path tuples) as `Problem`s with dotted paths."""
    return tuple(Problem(_dotted(p.path), p.message) for p in found)


def _invalid_arguments(name: str, problems: list[Any]) -> ToolResult:
    found = problems_of(problems)
    return ToolResult(
        name,
        error=ToolError(name, "invalid_arguments", _FIX_ARGUMENTS, found),
    )


def _fail(name: str, kind: str, message: str, *problems: Problem) -> ToolResult:
    return ToolResult(name, error=ToolError(name, kind, message, problems))


def _pydantic_problems(exc: ValidationError) -> list[Problem]:
    return [
        Problem(_dotted(tuple(err["loc"])), err["msg"])
        for err in exc.errors(include_url=False)
    ]


def _dotted(path: tuple[Any, ...]) -> str:
    """`items[0].id`; a key that is not an identifier is quoted: `headers["Content-Type"]`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.match(str(part)):
            text += f".{part}" if text else str(part)
        else:
            text += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return text


def _jsonable(value: Any) -> Any:
    # By wire name, and only what was set: the dump must validate against the schema it came from. Decimals
    # are numbers (Pydantic's JSON mode would make them strings).
    return to_json_output(_ANY.dump_python(value, by_alias=True, exclude_unset=True))


# Made once: a TypeAdapter costs more to build than a result costs to dump.
_ANY: TypeAdapter[Any] = TypeAdapter(Any)


def _json_text(data: Any) -> str:
    return write_json(data, lambda d: json.dumps(d, ensure_ascii=False))
