"""Resolved IR: what the back ends render. Passes build it; templates only read it.

Everything here already carries final Python names (from the naming authority) and plain JSON documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PyType:
    """A Python annotation, with what it needs imported.

    `expr` names models by their class name; `models` lists those names so the back end can import the ones
    defined in other modules. `needs` holds the typing helpers used ("Any", "Literal", "_dt", "_decimal").
    """

    expr: str
    models: frozenset[str] = frozenset()
    needs: frozenset[str] = frozenset()
    nullable: bool = False  # already admits None (so an optional field needs no extra `| None`)

    @staticmethod
    def union(options: list[PyType]) -> PyType:
        unique: list[PyType] = []
        for option in options:
            if option.expr == "Any":
                return option
            if all(option.expr != seen.expr for seen in unique):
                unique.append(option)
        if len(unique) == 1:
            return unique[0]
        # `None` goes last, as people write it.
        unique.sort(key=lambda t: t.expr == "None")
        return PyType(
            " | ".join(t.expr for t in unique),
            frozenset().union(*(t.models for t in unique)),
            frozenset().union(*(t.needs for t in unique)),
            any(t.nullable for t in unique),
        )


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
    schema_const: str  # the module constant holding the document this model checks against
    pointer: str  # JSON pointer of the model's schema in that document
    fields: tuple[FieldPlan, ...] = ()
    extra: str = "allow"  # "forbid" | "allow"
    root: PyType | None = None  # set for RootModel classes (schemas that are not plain objects)


@dataclass(frozen=True)
class ParamPlan:
    """One parameter of a typed stub: an LLM-supplied field or a context-fed value."""

    py_name: str
    type: PyType
    default_src: str | None  # Python source of the default, None when required
    from_context: str | None = None


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
    group: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


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
    entities: list[str] = field(default_factory=list)  # class names of entity models defined here

    def exported_names(self) -> list[str]:
        names = [m.class_name for m in self.models]
        names += [f"{t.prefix}Fn" for t in self.tools]
        names += list(self.constants)
        return names


@dataclass
class PackagePlan:
    modules: list[ModulePlan]
    tools: list[ToolPlan]
    entity_schemas: dict[str, dict[str, Any]]  # entity name -> OUT/schemas/entities/<Entity>.json
    agents: list[AgentPlan] = field(default_factory=list)
    model_modules: dict[str, str] = field(default_factory=dict)  # class name -> dotted module
    entity_classes: dict[str, str] = field(default_factory=dict)  # entity name -> class name
