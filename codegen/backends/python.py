"""Python back end: renders the plan into modules and the package's `__init__.py` files.

The templates mirror the plan one to one (`module.py.jinja` → `ModulePlan`, `model.py.jinja` → `ModelPlan`,
`tool.py.jinja` → `ToolPlan`, `package_init.py.jinja` → `PackagePlan`); this module only prepares what the
templates need in a shape they can print without logic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..passes.native import NativeType
from ..passes.naming import Scope, schemas_path
from ..plan import (
    FieldPlan,
    ModelPlan,
    ModulePlan,
    PackagePlan,
    ParamPlan,
    PyType,
    ToolPlan,
)
from ..render import render
from .layout import signature
from ..literals import LINE_LENGTH, black_literal, py_literal

# The runtime API generated code is written for (`toolspec_runtime.require`): raised only when the templates
# start to use something a runtime of that API lacks, so that upgrading codegen leaves generated files alone.
RUNTIME_API = "0.5"


@dataclass
class PythonFile:
    """Rendered source, plus the constants left out of it for the formatter to splice in pre-formatted.

    Large literals (`__all__`, the package's tables) and long `def` lines are rendered as a placeholder name
    and laid out apart (`black_literal`, `layout.signature`), in time linear in their size (see formatting.py).
    """

    text: str
    splices: dict[str, str]
    # A module's schema constants, which the formatter writes as JSON beside it (`naming.schemas_path`): JSON
    # Schema is data, and a reviewer reads it as JSON, not as a Python literal a hundred lines long.
    schemas: dict[str, Any] | None = None


class _Constants:
    """Renders `NAME: T = <value>` lines, diverting large values to splices."""

    def __init__(self) -> None:
        self.splices: dict[str, str] = {}

    def __call__(self, name: str, value: Any, annotation: str | None = None) -> str:
        head = f"{name}: {annotation or _constant_type(value)} = "
        placeholder = f"__codegen_splice_{len(self.splices)}__"
        if len(head) + len(placeholder) > LINE_LENGTH or not isinstance(
            value, (dict, list)
        ):
            return head + py_literal(value)
        self.splices[placeholder] = "\n".join(black_literal(value, head))
        return head + placeholder

    def define(
        self, head: str, tool: ToolPlan, depth: int, stub: bool, call: bool = False
    ) -> str:
        """A tool's `def` line, laid out apart (a tool may have 100,000 parameters) and spliced in whole:
        the placeholder is a statement of its own at `depth`. `call`: the caller's signature (`_<Tool>Call`),
        without the parameters the application supplies."""
        placeholder = f"__codegen_splice_{len(self.splices)}__"
        tail = f" -> {tool.result.expr}:" + (" ..." if stub else "")
        params = _parameters(tool, call)
        self.splices[placeholder] = signature(head, params, tail, depth)
        return placeholder


@dataclass(frozen=True)
class FieldView:
    name: str
    annotation: str
    assignment: str  # "" or " = <python source>"
    uses_field: bool = False  # the assignment calls pydantic's `Field`
    uses_factory: bool = (
        False  # ... with a default built by the runtime's `default_value`
    )


@dataclass(frozen=True)
class Unit:
    """One generated Python file before rendering: its path inside OUT and how to render it."""

    path: str
    render: Callable[[], PythonFile]


def python_units(plan: PackagePlan, skip: Collection[str] = ()) -> list[Unit]:
    """Every generated Python file of the package but those whose paths `skip` holds, by its path inside OUT
    (rendered on demand)."""
    units = [
        Unit(
            module.path,
            partial(
                _render_module,
                module,
                plan,
                (
                    plan.native.get(module.dotted, set()),
                    plan.json_native.get(module.dotted, set()),
                ),
            ),
        )
        for module in plan.modules
        if module.path not in skip
    ]
    for package in sorted(_subpackages(m.dotted for m in plan.modules)):
        path = f"{package}/__init__.py"
        if path not in skip:
            units.append(Unit(path, partial(_render_subpackage, plan, package)))
    if "__init__.py" not in skip:
        units.append(Unit("__init__.py", partial(_render_init, plan)))
    return units


def subpackage_inits(
    plan: PackagePlan, like: Collection[str] | None = None
) -> list[str]:
    """The `__init__.py` of every subpackage: they name the modules in it, and nothing else of them. With
    `like` (the dotted modules of another package), only those that package has alike.
    """
    ours = [module.dotted for module in plan.modules]
    packages = _subpackages(ours)
    if like is not None:
        packages = {
            package
            for package in packages & _subpackages(like)
            if _children(ours, package) == _children(like, package)
        }
    return [f"{package}/__init__.py" for package in sorted(packages)]


def _render_subpackage(plan: PackagePlan, package: str) -> PythonFile:
    constants = _Constants()
    text = render(
        "subpackage_init.py.jinja",
        package=package,
        runtime_api=RUNTIME_API,
        children=_children([m.dotted for m in plan.modules], package),
        constant=constants,
    )
    return PythonFile(text, constants.splices)


def _subpackages(modules: Iterable[str]) -> set[str]:
    """The folders (`a/b`) of the dotted `modules`, at every depth."""
    folders: set[str] = set()
    for dotted in modules:
        parts = dotted.split(".")[:-1]
        folders.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    return folders


def _children(modules: Iterable[str], package: str = "") -> list[str]:
    """The names of the modules and subpackages of the dotted `modules` directly in `package` (a folder,
    `a/b`; "" for the top level)."""
    prefix = f"{package.replace('/', '.')}." if package else ""
    return sorted(
        {
            dotted[len(prefix) :].split(".")[0]
            for dotted in modules
            if dotted.startswith(prefix)
        }
    )


def _relative(from_module: str, to_module: str) -> str:
    """`from <this> import ...` prefix for reaching `to_module` from `from_module`."""
    return "." * len(from_module.split(".")) + to_module


def field_view(field: FieldPlan) -> FieldView:
    options: list[str] = []
    default: str | None = None
    if not field.required:
        if (
            field.has_default
            and field.default is not None
            and not _needs_factory(field.type, field.default)
        ):
            default = py_literal(field.default)
        elif field.has_default and field.default is not None:
            options.append(
                f"default_factory=lambda: _models.default_value({field.type.expr}, {py_literal(field.default)})"
            )
        else:
            default = "None"
    if field.wire_name != field.py_name:
        options.append(f"alias={py_literal(field.wire_name)}")
    if field.description:
        options.append(f"description={py_literal(field.description)}")
    if not options:
        return FieldView(
            field.py_name,
            field.type.expr,
            f" = {default}" if default is not None else "",
        )
    factory = default is None and field.has_default and field.default is not None
    if default is not None:
        options.insert(0, default)
    return FieldView(
        field.py_name,
        field.type.expr,
        f" = Field({', '.join(options)})",
        uses_field=True,
        uses_factory=factory,
    )


def _needs_factory(kind: PyType, value: Any) -> bool:
    """A default that is not already a value of the annotation (a model, a date, ...) is built when used."""
    if kind.models or "_dt" in kind.needs or "_decimal" in kind.needs:
        return True
    return isinstance(value, (dict, list)) and bool(value) and "Literal" in kind.needs


def _render_module(
    module: ModulePlan, plan: PackagePlan, native: tuple[set[str], set[str]]
) -> PythonFile:
    local = {m.class_name for m in module.models}
    needs: set[str] = set()
    foreign: dict[str, set[str]] = defaultdict(set)
    types: list[PyType] = [f.type for m in module.models for f in m.fields]
    types += [
        kind.type
        for m in module.models
        if m.class_name in native[0]
        for kind in m.native or ()
    ]
    types += [m.root for m in module.models if m.root is not None]
    types += [p.type for t in module.tools for p in t.params] + [
        t.result for t in module.tools
    ]
    for kind in types:
        needs |= kind.needs
        for name in kind.models - local:
            foreign[plan.entity_modules[name]].add(name)
    constants = _Constants()
    views = [_model_view(m, native) for m in module.models]
    fields = [fv for view in views for fv in view["fields"]]
    has_factories = any(fv.uses_factory for fv in fields)
    uses_field = any(fv.uses_field for fv in fields) or "Field" in needs
    pydantic_names = ["Field"] if uses_field else []
    # The runtime is reached only as `_<module>.<name>`: no user name can shadow it.
    runtime_modules = [
        name
        for name, used in (
            ("dispatch", bool(module.tools)),
            ("mcp_client", bool(module.tools)),
            ("models", bool(module.models or module.constants)),
            ("paths", bool(module.resources)),
            ("sql", any(t.sql is not None for t in module.tools)),
        )
        if used
    ]
    text = render(
        "module.py.jinja",
        module=module,
        needs=needs,
        runtime_api=RUNTIME_API,
        models=views,
        tools=module.tools,
        pydantic_names=pydantic_names,
        runtime_imports=(
            packed_imports(
                "toolspec_runtime",
                [f"{name} as _{name}" for name in runtime_modules]
                + ["require as _require"],
            )
            if runtime_modules
            else []
        ),
        has_factories=has_factories,
        signature=constants.define,
        caller_differs=caller_differs,
        foreign=[
            (_relative(module.dotted, mod), sorted(names))
            for mod, names in sorted(foreign.items())
        ],
        constant=constants,
        constant_type=_constant_type,
        input_implied=partial(_input_implied, {m.class_name: m for m in module.models}),
        schemas_file=schemas_path(module.path).rpartition("/")[2],
        exported=module.exported_names(),
    )
    return PythonFile(text, constants.splices, dict(module.constants) or None)


def packed_imports(module: str, names: list[str]) -> list[str]:
    """`from module import ...` statements of `names`, as many to a line as fit (black keeps each statement
    as it is; one parenthesized import per name would be a line per name for a reviewer to scroll past).
    """
    head = f"from {module} import "
    lines: list[str] = []
    for name in names:
        if lines and len(lines[-1]) + 2 + len(name) <= LINE_LENGTH:
            lines[-1] += f", {name}"
        else:
            lines.append(head + name)
    return lines


def _input_implied(models: dict[str, ModelPlan], tool: ToolPlan) -> bool:
    """Whether a tool's input schema is the one its arguments model names in its `class` line, which
    `ToolSpec` then takes (so that the module says it once)."""
    model = models.get(tool.args_model)
    return model is not None and (model.schema_const, model.pointer) == (
        tool.input_const,
        "",
    )


def _fields(model: ModelPlan, native: bool) -> list[FieldView]:
    views = [field_view(f) for f in model.fields]
    if not native or model.native is None:
        return views
    # The native annotation; defaults stay those of the plain type (`default_value` builds them).
    return [
        FieldView(
            view.name,
            _checked_field(kind).type.expr,
            view.assignment,
            view.uses_field,
            view.uses_factory,
        )
        for view, kind in zip(views, model.native)
    ]


def _checked_field(kind: NativeType) -> NativeType:
    """A field whose keywords have no native form: `_models.Checked` names its subschema, whose exact check
    the runtime builds on first use."""
    if kind.checked is None:
        return kind
    const, pointer = kind.checked
    marker = f"_models.Checked({const}, {py_literal(pointer)})"
    return NativeType(kind.base, (marker,), kind.keeps_numbers, nullable=True)


def _model_view(model: ModelPlan, native: tuple[set[str], set[str]]) -> dict[str, Any]:
    is_native = model.root is None and model.class_name in native[0]
    location = model.schema_const + (f"#{model.pointer}" if model.pointer else "")
    keywords = [f"schema={py_literal(location)}"]
    if is_native and model.class_name not in native[1]:
        keywords.append("exact_numbers=True")
    if model.extra == "forbid" and model.root is None:
        keywords.append('extra="forbid"')  # pydantic's config, as a class keyword
    return {
        "plan": model,
        "fields": _fields(model, is_native),
        "native": is_native,
        "keywords": ", ".join(keywords),
    }


def _constant_type(value: Any) -> str:
    if isinstance(value, list):
        return "list[str]"
    return "dict[str, Any]" if isinstance(value, dict) else "bool"


def _render_init(plan: PackagePlan) -> PythonFile:
    """The package `__init__`: tables of what each module exports and which tools it has, served lazily (a
    module is imported when first used); under `if TYPE_CHECKING:` the star imports of every module's `__all__`
    and the combined `Tools` protocol type checkers see. Kept small on purpose: it is the one file that cannot
    be formatted in parallel.
    """
    # Module aliases (under TYPE_CHECKING) stay clear of the names the `__init__` binds itself.
    aliases = Scope(
        {
            "_lazy",
            "_mcp_client",
            "_package",
            "_PACKAGE",
            "_require",
            "_EXPORTS",
            "_TOOL_NAMES",
        }
    )
    module_aliases = []
    alias_of: dict[str, str] = {}
    for module in plan.modules:
        parent, _, leaf = f".{module.dotted}".rpartition(".")
        alias = alias_of[module.dotted] = aliases.claim(
            "_" + module.dotted.replace(".", "_")
        )
        module_aliases.append((parent or ".", leaf, alias, bool(module.tools)))
    # A name two modules define is left to its modules (a warning says where: `ambiguous_names`).
    shared = ambiguous_names(plan)
    exports = {
        f".{m.dotted}": [n for n in m.exported_names() if n not in shared]
        for m in plan.modules
    }
    # Modules defining a shared name are imported name by name, so that type checkers see each name once.
    imports = [
        (path, None if len(names) == len(m.exported_names()) else names)
        for m, (path, names) in zip(plan.modules, exports.items())
    ]
    configs = {
        t.name: (
            f"{alias_of[t.module]}.{t.config_model}"
            if t.config_model in shared
            else t.config_model
        )
        for t in sorted(plan.tools, key=lambda t: t.name)
        if t.config_model
    }
    constants = _Constants()
    text = render(
        "package_init.py.jinja",
        plan=plan,
        module_aliases=module_aliases,
        imports=imports,
        exports=exports,
        tool_names={
            f".{m.dotted}": [t.name for t in m.tools] for m in plan.modules if m.tools
        },
        configs=configs,
        submodules=_children([m.dotted for m in plan.modules]),
        runtime_api=RUNTIME_API,
        constant=constants,
    )
    return PythonFile(text, constants.splices)


def ambiguous_names(plan: PackagePlan) -> dict[str, list[str]]:
    """The names more than one module defines (module names are each module's own), and the modules (dotted)
    defining each: the package `__init__` re-exports none of them."""
    owners: dict[str, list[str]] = defaultdict(list)
    for module in plan.modules:
        for name in module.exported_names():
            owners[name].append(module.dotted)
    return {name: dotted for name, dotted in owners.items() if len(dotted) > 1}


def _parameters(tool: ToolPlan, call: bool = False) -> list[str]:
    """The keyword-only parameters of a tool's typed stub; with `call`, those a caller passes (the arguments),
    not the context values and config the application supplies."""
    params = [
        f"{p.py_name}: {p.type.expr}" + (f" = {p.default_src}" if p.default_src else "")
        for p in tool.params
        if not call or not _supplied(tool, p)
    ]
    return ["self", "*", *params] if params else ["self"]


def _supplied(tool: ToolPlan, param: ParamPlan) -> bool:
    """A stub parameter the application supplies (a context value, the config), not the tool's caller."""
    return param.from_context is not None or (
        tool.config_model is not None and param.py_name == tool.config_param
    )


def caller_differs(tool: ToolPlan) -> bool:
    """Whether a caller's signature differs from the stub's (`_<Tool>Call` is then written): a SQL tool has
    no stub, and a tool fed context values or config has parameters no caller passes."""
    return tool.sql is not None or any(_supplied(tool, p) for p in tool.params)
