"""Resolved IR: what the back ends render. Passes build it; templates only read it.

Everything here already carries final Python names (from the naming authority) and plain JSON documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# CPython compiles `A | B | C` as nested binary operations, one level per member, and gives up (RecursionError
# at import) beyond about 2,000 levels, or fewer on other versions and platforms: a union of more members than this
# is written `_typing.Union[A, B, ...]`, one flat subscript, at any width. Below it, unions read as people write
# them.
MAX_UNION_CHAIN = 64


@dataclass(frozen=True)
class PyType:
    """A Python annotation, with what it needs imported.

    `expr` names models by their class name; `models` lists those names so the back end can import the ones
    defined in other modules. `needs` holds the typing helpers used ("Any", "Literal", "_dt", "_decimal",
    "_typing").
    """

    expr: str
    models: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()
    nullable: bool = (
        False  # already admits None (so an optional field needs no extra `| None`)
    )
    width: int = 1  # the members of `expr` as a `|` chain (1 when it is none)
    # How deeply `expr` nests, at most, as Python parses it: what CPython's parser and compiler bound.
    depth: int = 1

    @staticmethod
    def union(options: list[PyType]) -> PyType:
        # Each member once, the first of equal ones kept (a dict: comparing each with all before was quadratic).
        unique: dict[str, PyType] = {}
        for option in options:
            if option.expr == "Any":
                return option
            if option.expr not in unique:
                unique[option.expr] = option
        if len(unique) == 1:
            return next(iter(unique.values()))
        # `None` goes last, as people write it.
        members = sorted(unique.values(), key=lambda t: t.expr == "None")
        models = frozenset().union(*(t.models for t in members))
        needs = frozenset().union(*(t.needs for t in members))
        nullable = any(t.nullable for t in members)
        width = sum(t.width for t in members)
        deepest = max(t.depth for t in members)
        if width <= MAX_UNION_CHAIN:
            expr = " | ".join(t.expr for t in members)
            return PyType(expr, models, needs, nullable, width, width + deepest)
        expr = f"_typing.Union[{', '.join(t.expr for t in members)}]"
        return PyType(expr, models, needs | {"_typing"}, nullable, 1, deepest + 2)


ANY = PyType("Any", needs=frozenset({"Any"}), nullable=True)
NONE = PyType("None", nullable=True)


@dataclass(frozen=True)
class FieldPlan:
    py_name: str
    wire_name: str
    type: PyType
    required: bool
    default: Any = None  # the JSON default; meaningful when `has_default`
    has_default: bool = False
    description: str | None = None


@dataclass(frozen=True)
class ModelPlan:
    class_name: str
    module: str  # dotted module path relative to the package, e.g. "billing.orders"
    doc: str | None
    schema_const: (
        str  # the module constant holding the document this model checks against
    )
    pointer: str  # JSON pointer of the model's schema in that document
    fields: tuple[FieldPlan, ...] = ()
    extra: str = "allow"  # "forbid" | "allow"
    root: PyType | None = (
        None  # set for RootModel classes (schemas that are not plain objects)
    )
    # The native annotation of each field (`passes/native.py`), when the model's own keywords are native.
    native: tuple[Any, ...] | None = None


@dataclass(frozen=True)
class ParamPlan:
    """One parameter of a typed stub: an LLM-supplied field or a context-fed value."""

    py_name: str
    type: PyType
    default_src: str | None  # Python source of the default, None when required
    from_context: str | None = None
    wire: str = ""  # a context-fed parameter's name in the spec
    context_default: Any = None  # its JSON default, when it is optional
    schema: Any = (
        None  # a context-fed value's own JSON Schema, checked exactly before it is typed
    )


@dataclass(frozen=True)
class SqlBind:
    """One bind parameter of a SQL statement: an argument of the model, or a context-fed value."""

    name: str  # the placeholder (and the argument's wire name)
    attr: str | None  # the args model attribute; None for a context-fed value
    param: ParamPlan | None = None  # the context-fed parameter


@dataclass(frozen=True)
class SqlPlan:
    """A SQL tool's generated implementation (SPEC §4: `T_SQL`, `bind_t`, `t`) and how rows map to its result."""

    const: str  # GET_ORDERS_SQL
    text: str  # the statement as SQLAlchemy's `text()` takes it
    bind_func: str  # bind_get_orders
    execute_func: str  # execute_get_orders
    impl_func: str  # the private wrapper `dispatch` calls
    connection: str  # the context holds it at databases.<connection>
    binds: tuple[SqlBind, ...]
    expanding: tuple[str, ...]  # list parameters used as `IN :name`
    rows: str  # "void" | "one" | "all" | "value" | "values"
    row_type: PyType | None  # the entity model, or the type of a value
    columns: dict[str, str] = field(
        default_factory=dict
    )  # entity column -> kind ("boolean", "date-time", ...)
    closed: bool = True  # the entity declares every column it takes
    types: dict[str, str] = field(
        default_factory=dict
    )  # placeholder -> "integer", "decimal", "date", ...


@dataclass(frozen=True)
class ResourcePlan:
    """A Brimley resource: its arguments model, and `match_r` / `format_r` over its path template."""

    name: str
    description: str | None
    args_model: str
    path_const: str  # DOC_PAGE_PATH
    path: str
    match_func: str
    format_func: str


@dataclass(frozen=True)
class ToolPlan:
    name: str  # wire name
    func: str  # snake_case method / function name
    prefix: str  # PascalCase prefix of its models
    module: str
    description: str | None
    args_model: str
    input_const: str
    output_const: str | None
    result: PyType  # the return annotation of the stub
    result_model: str | None
    params: tuple[ParamPlan, ...]
    llm_schema: dict[str, Any]  # OUT/schemas/<tool>.json
    config_model: str | None = None
    config_param: str | None = (
        None  # the stub's keyword parameter receiving the config model
    )
    group: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    mcp_fields: dict[str, Any] = field(default_factory=dict)  # title, annotations, ...
    sql: SqlPlan | None = (
        None  # set for SQL tools: codegen implements them (they are not in `Tools`)
    )

    @property
    def context_params(self) -> tuple[ParamPlan, ...]:
        return tuple(p for p in self.params if p.from_context is not None)


@dataclass(frozen=True)
class AgentPlan:
    name: str
    description: str | None
    tools: tuple[str, ...]
    metadata: dict[str, Any]


@dataclass
class ModulePlan:
    """One generated module, mirroring one spec file."""

    dotted: str  # "billing.orders"
    path: str  # "billing/orders.py"
    source_display: str
    constants: dict[str, Any] = field(default_factory=dict)  # NAME -> JSON document
    models: list[ModelPlan] = field(default_factory=list)
    tools: list[ToolPlan] = field(default_factory=list)
    entities: list[str] = field(
        default_factory=list
    )  # class names of entity models defined here
    resources: list[ResourcePlan] = field(default_factory=list)
    deps: set[str] = field(
        default_factory=set
    )  # spec files (relative) whose entities it uses

    def exported_names(self) -> list[str]:
        names = [m.class_name for m in self.models]
        names += [f"{t.prefix}Fn" for t in self.tools if t.sql is None]
        for t in self.tools:
            if t.sql is not None:
                names += [t.sql.const, t.sql.bind_func, t.sql.execute_func, t.func]
        for r in self.resources:
            names += [r.path_const, r.match_func, r.format_func]
        names += list(self.constants)
        return names


@dataclass
class PackagePlan:
    modules: list[ModulePlan]
    tools: list[ToolPlan]
    entity_schemas: dict[
        str, dict[str, Any]
    ]  # entity name -> OUT/schemas/entities/<Entity>.json
    agents: list[AgentPlan] = field(default_factory=list)
    entity_modules: dict[str, str] = field(
        default_factory=dict
    )  # entity class -> the dotted module defining it (a module imports the entities it uses)
    entity_classes: dict[str, str] = field(
        default_factory=dict
    )  # entity name -> class name
    # The models that are NativeModels, and those of them whose JSON text Pydantic may read (passes/native.py)
    # by module (a class name means one model only within its module): dotted module -> class names
    native: dict[str, set[str]] = field(default_factory=dict)
    json_native: dict[str, set[str]] = field(default_factory=dict)
