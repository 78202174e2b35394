"""The names a package holds once, across its spec files: each file's module, each entity's class, each tool's
method. (Every other name is a module's own: build_plan.py.) Two files wanting one is an error naming both.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import Diagnostics, Span
from ..ir import SpecModule
from ..plan import ModulePlan, ToolPlan
from .naming import class_name, module_path
from .resolve import Program


def module_plans(
    program: Program, diags: Diagnostics
) -> list[tuple[SpecModule, ModulePlan]]:
    """Each spec file and its module's plan, but for a file whose module another file (or folder) makes:
    an error naming both."""
    seen: dict[str, Span] = {}
    packages: dict[str, Span] = {}  # dotted name of a folder -> a file in it
    for spec in program.modules:
        parts = module_path(spec.source.rel.as_posix())
        for depth in range(1, len(parts)):
            packages.setdefault(".".join(parts[:depth]), spec.source.span(0))
    result = []
    for spec in program.modules:
        parts = module_path(spec.source.rel.as_posix())
        dotted = ".".join(parts)
        other = seen.get(dotted)
        what = "module"
        if other is None and dotted in packages:
            other, what = packages[dotted], "package (of the other file's folder)"
        if other is not None:
            diags.error(
                "module-collision",
                f"this file and another both become the {what} {dotted!r}; rename one of them",
                spec.source.span(0),
                ("the other file", other),
            )
            continue
        seen[dotted] = spec.source.span(0)
        result.append(
            (
                spec,
                ModulePlan(dotted, "/".join(parts) + ".py", spec.source.rel.as_posix()),
            )
        )
    return result


def entity_classes(program: Program, diags: Diagnostics) -> dict[str, str]:
    """Each entity's class: its own name made a class name, the same in every module (entities are the
    package's shared vocabulary). Two entities whose names make one class are an error naming both (two of
    one name are reported by the namespace)."""
    classes: dict[str, str] = {}
    first: dict[str, Any] = {}
    for module in program.modules:
        for entity in module.entities:
            cls = classes.setdefault(entity.name, class_name(entity.name))
            other = first.setdefault(cls, entity)
            if other.name != entity.name:
                diags.error(
                    "entity-class-collision",
                    f"the entities {other.name!r} and {entity.name!r} both become the class {cls}; "
                    "rename one of them",
                    entity.span,
                    ("the other entity", other.span),
                )
    return classes


def report_shared_methods(
    program: Program, tools: list[ToolPlan], diags: Diagnostics
) -> None:
    """Two tools whose names make one Python method (`getOrders`, `get_orders`) are an error naming both:
    an implementation has one method per tool, and each tool's schema file is named after it. (Only where
    both tools are in `program`: a rebuild or a split build finding one leaves it to a full compile.)
    """
    first: dict[str, str] = {}
    defined = program.tools
    for tool in tools:
        other = first.setdefault(tool.func, tool.name)
        if other != tool.name and tool.name in defined and other in defined:
            diags.error(
                "method-collision",
                f"the tools {other!r} and {tool.name!r} both become the Python method {tool.func}; "
                "rename one of them",
                defined[tool.name][0].span,
                ("the other tool", defined[other][0].span),
            )
