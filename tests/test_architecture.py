"""The pipeline's layering, read from the imports of every module of the codegen package.

front ends -> IR -> passes -> plan -> back ends (docs/architecture.md): each stage may use what lies below it,
never a sibling stage, so a reader can understand a stage from the IR and the plan alone. The graph counts every
import, also the ones inside functions (a lazy import is a dependency all the same), and an import of `a.b.c`
also runs the `__init__` of `a.b` and `a`, so it counts as an import of those packages too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import codegen
import toolspec_runtime

PACKAGE = Path(codegen.__file__).parent
# The runtime library, a distribution of its own (runtime/): the compiler imports it, never the reverse.
RUNTIME = Path(toolspec_runtime.__file__).parent
ROOTS = {"codegen": PACKAGE, "toolspec_runtime": RUNTIME}


def _module_name(path: Path, root: str = "codegen") -> str:
    parts = (root, *path.relative_to(ROOTS[root]).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names an import statement names (modules, or `module.attribute` for `from m import x`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        base = module.split(".")
        if not is_package:
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        stem = ".".join(base + ([node.module] if node.module else []))
    else:
        stem = node.module or ""
    return [stem] + [f"{stem}.{alias.name}" for alias in node.names]


def _graph() -> dict[str, set[str]]:
    files = {
        _module_name(path, root): path
        for root, folder in ROOTS.items()
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        own_packages = {module.rsplit(".", n)[0] for n in range(module.count(".") + 1)}
        edges: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for name in _imported(node, module, path.name == "__init__.py"):
                if name not in files:
                    continue
                # importing a.b.c runs a/__init__ and a/b/__init__ first, except those the importer sits in
                parts = name.split(".")
                for n in range(1, len(parts) + 1):
                    target = ".".join(parts[:n])
                    if target in files and target not in own_packages:
                        edges.add(target)
        edges.discard(module)
        graph[module] = edges
    return graph


GRAPH = _graph()


def _stage(module: str) -> str | None:
    if module.split(".")[0] == "toolspec_runtime":
        return "runtime"
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in ("frontends", "passes", "backends", "runtime"):
        return parts[1]
    return None


def _violations(stage: str, forbidden: tuple[str, ...]) -> str:
    """The forbidden imports of a stage, one per line ("" if none)."""
    return "\n".join(
        sorted(
            f"{module} imports {target}"
            for module, targets in GRAPH.items()
            if _stage(module) == stage
            for target in targets
            if _stage(target) in forbidden
        )
    )


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly connected component of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan; the graph is small enough to recurse
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_cycle_in(graph, set(component)) for component in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """The shortest path from the component's first module back to itself, staying inside the component."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for succ in sorted(graph[node] & component):
            if succ == start:
                return paths[node] + [start]
            if succ not in paths:
                paths[succ] = paths[node] + [succ]
                queue.append(succ)
    raise AssertionError("a strongly connected component without a cycle")


def test_the_graph_is_read():
    """A guard for the guards: the reader finds relative, absolute and function-level imports."""
    assert "codegen.passes.build_plan" in GRAPH["codegen.compiler"]
    assert "codegen.ir" in GRAPH["codegen.passes.build_plan"]
    assert {"codegen.frontends.gram", "codegen.frontends.brimley"} <= GRAPH[
        "codegen.frontends"
    ]  # lazy, inside `route`


def test_cycles_are_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c", "a"]]


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_passes_read_only_the_ir():
    """Passes import no front end and no back end."""
    assert not (found := _violations("passes", ("frontends", "backends"))), found


def test_literals_is_a_leaf():
    """The one literal function sits below every stage (passes type defaults with it, back ends print with it;
    it lives in the runtime, which writes native models' fallback checks with it)."""
    runtime = {"toolspec_runtime", "toolspec_runtime.literal"}
    assert GRAPH["codegen.literals"] <= {"codegen._width", *runtime}
    assert all(GRAPH[module] == set() for module in ("codegen._width", *runtime))


def test_front_ends_import_no_pass_and_no_back_end():
    assert not (found := _violations("frontends", ("passes", "backends"))), found


def test_back_ends_import_no_front_end():
    assert not (found := _violations("backends", ("frontends",))), found


def test_the_ir_sits_below_every_stage():
    """The IR and what it is built from (diagnostics, the SQL scanner) import no stage."""
    for module in (
        "codegen.ir",
        "codegen.diagnostics",
        "codegen.sqlscan",
        "codegen.literals",
    ):
        stages = {_stage(t) for t in GRAPH.get(module, ())} - {None, "runtime"}
        assert not stages, f"{module} imports {stages}"


@pytest.mark.parametrize(
    "module", sorted(m for m in GRAPH if _stage(m) == "runtime"), ids=str
)
def test_runtime_ships_alone(module):
    """runtime/src/toolspec_runtime is what generated packages import at run time: it may import only itself."""
    assert {t for t in GRAPH[module] if _stage(t) != "runtime"} == set()


# What the runtime library must never need: the compiler and the compiler's own dependencies.
COMPILE_TIME = {"codegen", "jinja2", "lark", "black", "jsonschema", "yaml", "orjson"}


def test_the_runtime_needs_nothing_of_the_compiler() -> None:
    found = []
    for path in sorted(RUNTIME.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            found += [
                f"{path.name}: {name}"
                for name in names
                if name.split(".")[0] in COMPILE_TIME
            ]
    assert found == []


# The runtime's third-party imports, by the distribution (extra) that brings them. Pydantic is its one
# dependency; every other import sits inside the functions of the feature that needs it (or under
# TYPE_CHECKING), so the runtime imports and works without the extras.
RUNTIME_DEPENDENCIES = {
    "pydantic",
    "pydantic_core",
}  # (pydantic_core comes with pydantic)
RUNTIME_EXTRAS = {
    "sqlalchemy": "sql",
    "mcp": "mcp",
    "mcp_types": "mcp",
    "anyio": "mcp",  # the SDK's (and the Agents SDK's) async library: worker threads for sync tools
    "uvicorn": "mcp",  # the SDK's HTTP server, for streamable HTTP
    "agents": "agents",
}


def _third_party(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
        names = [node.module or ""]
    else:
        return []
    return [
        top
        for top in (name.split(".")[0] for name in names)
        if top not in sys.stdlib_module_names and top != "__future__"
    ]


def _eager_imports(tree: ast.Module) -> list[str]:
    """Third-party imports that run when the module is imported: at module level, not under TYPE_CHECKING."""
    found: list[str] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue  # runs when called
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending += node.orelse
            continue
        found += _third_party(node)
        pending += ast.iter_child_nodes(node)
    return found


def test_the_runtime_imports_pydantic_only_and_the_extras_lazily() -> None:
    eager: list[str] = []
    every: set[str] = set()
    for path in sorted(RUNTIME.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        eager += [
            f"{path.name}: {name}"
            for name in _eager_imports(tree)
            if name not in RUNTIME_DEPENDENCIES
        ]
        every |= {name for node in ast.walk(tree) for name in _third_party(node)}
    assert eager == []
    assert every - RUNTIME_DEPENDENCIES <= set(RUNTIME_EXTRAS), every
    # and the guard reads lazy imports: the MCP server's are found
    assert {"mcp", "anyio", "uvicorn", "agents"} <= every
