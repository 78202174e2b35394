"""Lazy loading for a generated package: `import <package>` runs only its `__init__` and this runtime; a spec
file's module is imported when one of its names, its `TOOLS` entry or a dispatch to one of its tools is first used.

The `__init__` hands over tables the compiler wrote (module -> the names it exports, module -> its tools' wire
names, in the order an eager import would have seen them), and serves its names through PEP 562's module
`__getattr__` and `__dir__`. Type checkers see the same names imported under `if TYPE_CHECKING:` instead.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from importlib import import_module
from typing import Any, Protocol, TypedDict

from .dispatch import ToolSpec

__all__ = [
    "ToolRegistry",
    "mcp_client",
    "package_attributes",
    "tool_configs",
    "tool_package_attributes",
    "tools_protocol",
]

_MISSING = object()
TOOLS_DOC = "Everything an implementation must provide: one method per tool, checked by mypy against the specs."
CLIENT_DOC = "These tools on an MCP server, typed: `await McpClient(session).<tool>(...)`; a failure raises McpToolError."


class ToolRegistry(Mapping[str, ToolSpec]):
    """A package's `TOOLS`: every tool by its wire name, read-only. The names, their order and their number are
    known without importing anything; looking a tool up imports its module (once)."""

    def __init__(self, package: str, modules: Mapping[str, Sequence[str]]) -> None:
        self._package = package
        # A name two modules declare belongs to the later one, as in a dict built module after module.
        self._module_of = {
            name: module for module, names in modules.items() for name in names
        }
        self.modules = tuple(modules)  # those with tools, in the package's order
        self._specs: dict[str, ToolSpec] = {}

    def __getitem__(self, name: str) -> ToolSpec:
        spec = self._specs.get(name)
        if spec is not None:
            return spec
        module = self._module_of[name]
        for found in import_module(module, self._package).TOOL_SPECS:
            if self._module_of.get(found.name) == module:
                self._specs[found.name] = found
        return self._specs[name]

    def __contains__(self, name: object) -> bool:
        return name in self._module_of

    def __iter__(self) -> Iterator[str]:
        return iter(self._module_of)

    def __len__(self) -> int:
        return len(self._module_of)

    def __repr__(self) -> str:
        return f"<{self._package} TOOLS: {len(self)} tools, {len(self._specs)} loaded>"


# The names a generated package `__init__` defines itself (API 0.4 and later), first in its `__all__`.
PACKAGE_NAMES = (
    "AGENTS",
    "TOOLS",
    "AgentSpec",
    "ToolConfigs",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "Tools",
    "McpClient",
    "agents_tools",
    "dispatch",
    "export_tools",
    "mcp_server",
    "serve_mcp",
)


def package_attributes(
    package: str,
    namespace: dict[str, Any],
    exports: Mapping[str, Sequence[str]],
    submodules: Collection[str],
    built: Mapping[str, Callable[[], Any]] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of the package `package` whose globals are `namespace`: a name in
    `exports` (module -> names) comes from its module, imported then; a name in `built` is made by its function
    once; a name in `submodules` (the package's children) is that module; `__all__` is the package's own
    names (`PACKAGE_NAMES`), then every module's, sorted (type checkers read the same from the star imports
    they see). Each value is then kept in `namespace`, so `__getattr__` runs once per name.
    """
    source = {name: module for module, names in exports.items() for name in names}
    makers = dict(built or {})
    makers.setdefault("__all__", lambda: [*PACKAGE_NAMES, *sorted(source)])
    # Importing a child module binds it as an attribute of its package. Where a child has the name of something
    # the package defines or serves, the child is imported now, and the package's value put back, so that no
    # later import can hide that value (an eager package imported every child before binding its names).
    for child in submodules:
        if child in source or child in makers or child in namespace:
            kept = namespace.get(child, _MISSING)
            import_module(f".{child}", package)
            if kept is _MISSING:
                namespace.pop(child, None)
            else:
                namespace[child] = kept

    def __getattr__(name: str) -> Any:
        if name in source:
            value = getattr(import_module(source[name], package), name)
        elif name in makers:
            value = makers[name]()
        elif name in submodules:
            return import_module(f".{name}", package)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *source, *makers, *submodules})

    return __getattr__, __dir__


def tool_package_attributes(
    package: str,
    namespace: dict[str, Any],
    exports: Mapping[str, Sequence[str]],
    submodules: Collection[str],
    tools: ToolRegistry,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`package_attributes` of a package whose tools are `tools` (its `TOOLS`), with the three names it builds
    from them when first used: `Tools`, `ToolConfigs` and `McpClient` (API 0.5: the `__init__` no longer
    spells these out, nor its tools' config classes, which their `ToolSpec`s name)."""
    built: dict[str, Callable[[], Any]] = {
        "Tools": lambda: tools_protocol(package, tools.modules),
        "ToolConfigs": lambda: _tool_configs(package, tools),
        "McpClient": lambda: mcp_client(package, tools, tools.modules),
    }
    return package_attributes(package, namespace, exports, submodules, built)


def _tool_configs(package: str, tools: Mapping[str, ToolSpec]) -> Any:
    """`ToolConfigs` from the tools' own specs (every module with tools is imported): by tool name, sorted."""
    fields = {
        name: tools[name].config_model
        for name in sorted(tools)
        if tools[name].config_model is not None
    }
    return _configs_typed_dict(package, fields)


def tools_protocol(package: str, modules: Iterable[str]) -> type:
    """The package's `Tools` at run time: a Protocol combining the `Tools` of `modules` (those with tools, which
    it imports), as the class type checkers see under `if TYPE_CHECKING:`."""
    bases = [import_module(module, package).Tools for module in modules]

    def body(namespace: dict[str, Any]) -> None:
        namespace.update(__module__=package, __qualname__="Tools", __doc__=TOOLS_DOC)

    return types.new_class("Tools", (*bases, Protocol), exec_body=body)


def mcp_client(
    package: str, tools: Mapping[str, ToolSpec], modules: Iterable[str]
) -> type:
    """The package's `McpClient` at run time: the tool methods of every module's `_McpClient` (it imports the
    modules with tools) on one subclass of the runtime's client, whose calls use the package's `tools`. (Type
    checkers see a class of those bases under `if TYPE_CHECKING:`; one class of the methods is the same at run
    time and builds in linear time whatever the number of modules.)"""
    from .mcp_client import McpClient, Remote

    namespace: dict[str, Any] = {}
    for module in modules:
        found = vars(import_module(module, package)._McpClient)
        namespace.update((k, v) for k, v in found.items() if isinstance(v, Remote))
    namespace.update(
        _tools=tools, __module__=package, __qualname__="McpClient", __doc__=CLIENT_DOC
    )
    return type("McpClient", (McpClient,), namespace)


def tool_configs(
    package: str, classes: Mapping[str, str], tool_names: Mapping[str, Sequence[str]]
) -> Any:
    """The package's `ToolConfigs` at run time: tool name -> its config class (named in `classes`, found in the
    tool's module, which `tool_names` gives: module -> its tools), as the TypedDict type checkers see under
    `if TYPE_CHECKING:`. (By module, since a class name means one class only within its module.)
    """
    modules = {tool: module for module, tools in tool_names.items() for tool in tools}
    fields = {
        tool: getattr(import_module(modules[tool], package), name)
        for tool, name in classes.items()
    }
    return _configs_typed_dict(package, fields)


def _configs_typed_dict(package: str, fields: Mapping[str, Any]) -> Any:
    configs = TypedDict("ToolConfigs", dict(fields), total=False)  # type: ignore[misc]
    configs.__module__ = package
    return configs
