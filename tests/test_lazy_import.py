"""Importing a generated package imports none of its spec modules: each is imported when one of its names, a
`TOOLS` lookup of one of its tools, or a dispatch to one of them first needs it; `__all__`, `dir()`, `TOOLS`'
order and length, star imports and `Tools` are what an eager package gave (issue #11, fast import).

Each check runs in a fresh interpreter, so that `sys.modules` shows exactly what the package imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolspec_runtime.lazy import ToolRegistry, package_attributes
from conftest import EXAMPLES, generate_package
from test_generated_names import SQL_TOOL
from test_typecheck import MYPY_CONFIG

# Prints the package's spec modules (and subpackages) that are imported, as JSON, after the code before it.
LOADED = """
import json as _json, sys as _sys
print(_json.dumps(sorted(
    m for m in _sys.modules
    if m.startswith(pkg.__name__ + ".")
)))
"""


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out, _ = generate_package(
        tmp_path_factory.mktemp("lazy"), EXAMPLES, name="lazy_examples"
    )
    return out


def _run(package: Path, *code: str) -> list[Any]:
    """Run `code` (with the package imported as `pkg`) in a fresh interpreter; every line it prints, as JSON."""
    source = "\n".join([f"import {package.name} as pkg", *map(textwrap.dedent, code)])
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    done = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _loaded(package: Path, code: str = "") -> list[str]:
    """The spec modules imported after `code`, as names relative to the package."""
    (found,) = _run(package, code, LOADED)
    return [name[len(package.name) + 1 :] for name in found]


def test_importing_the_package_imports_no_spec_module(examples: Path) -> None:
    assert _loaded(examples) == []


def test_tools_names_order_and_length_need_no_import(examples: Path) -> None:
    code = """
    import json
    print(json.dumps([list(pkg.TOOLS), len(pkg.TOOLS), "sayHello" in pkg.TOOLS, "nope" in pkg.TOOLS]))
    print(json.dumps([sorted(pkg.AGENTS), pkg.__all__, dir(pkg), repr(pkg.TOOLS)]))
    """
    (names, size, known, unknown), _, loaded = _run(examples, code, LOADED)
    assert size == len(names) == 17 and known and not unknown
    assert loaded == []


def test_the_order_of_tools_is_the_eager_one(examples: Path) -> None:
    """Module after module, each module's `TOOL_SPECS` in order: the dict an eager `__init__` built."""
    code = """
    import importlib, json
    lazy = list(pkg.TOOLS)
    eager = [
        spec.name
        for module in pkg._TOOL_NAMES
        for spec in importlib.import_module(module, pkg.__name__).TOOL_SPECS
    ]
    print(json.dumps([lazy, eager, [pkg.TOOLS[name].name for name in lazy]]))
    """
    lazy, eager, looked_up = _run(examples, code)[0]
    assert lazy == eager == looked_up


@pytest.mark.parametrize(
    "code",
    [
        "pkg.SayHelloArgs",
        "from {pkg} import SAY_HELLO_INPUT_SCHEMA",
        "pkg.TOOLS['sayHello']",
        "pkg.TOOLS.get('sayHello')",
        "pkg.dispatch('sayHello', {{}}, None)",
        "pkg.dispatch('sayHello', {{}}, None, flavour='openai')",
    ],
)
def test_first_use_imports_just_that_module(examples: Path, code: str) -> None:
    assert _loaded(examples, code.format(pkg=examples.name)) == [
        "gram",
        "gram.greeting",
    ]


def test_an_unknown_tool_imports_nothing(examples: Path) -> None:
    code = """
    import json
    result = pkg.dispatch("sayHelo", {}, None)
    print(json.dumps([result.error.kind, result.error.message]))
    """
    (kind, message), loaded = _run(examples, code, LOADED)
    assert kind == "unknown_tool" and "did you mean 'sayHello'?" in message
    assert loaded == []


def test_all_dir_and_star_import_give_every_name_from_its_module(
    examples: Path,
) -> None:
    """`__all__` is the eager package's: its own names, then every module's `__all__`, sorted; each name is
    the very object its module defines, and `dir()` and `from pkg import *` have them all.
    """
    code = """
    import importlib, json
    modules = [importlib.import_module(m, pkg.__name__) for m in pkg._EXPORTS]
    before = set(dir(pkg))
    star = {}
    exec(f"from {pkg.__name__} import *", star)
    own = ["AGENTS", "TOOLS", "AgentSpec", "ToolConfigs", "ToolError", "ToolResult", "ToolSpec", "Tools"]
    own += ["McpClient", "agents_tools", "dispatch", "export_tools", "mcp_server", "serve_mcp"]
    expected = own + sorted({n for m in modules for n in m.__all__})
    same = all(getattr(pkg, n) is getattr(m, n) for m in modules for n in m.__all__)
    print(json.dumps([pkg.__all__ == expected, sorted(set(pkg.__all__) - before), sorted(set(pkg.__all__) - set(star)), same]))
    """
    same_all, missing_from_dir, missing_from_star, same_objects = _run(examples, code)[
        0
    ]
    assert same_all and same_objects
    assert missing_from_dir == missing_from_star == []


def test_tools_and_tool_configs_exist_at_run_time(examples: Path) -> None:
    code = """
    import importlib, json, typing
    with_tools = [importlib.import_module(m, pkg.__name__) for m in pkg._TOOL_NAMES]
    configs = {k: v.__name__ for k, v in typing.get_type_hints(pkg.ToolConfigs).items()}
    print(json.dumps([
        all(m.Tools in pkg.Tools.__mro__ for m in with_tools),
        getattr(pkg.Tools, "_is_protocol", False),
        pkg.Tools.__module__,
        configs,
    ]))
    """
    combined, protocol, module, configs = _run(examples, code)[0]
    assert combined and protocol and module == examples.name
    assert configs == {
        "forecast_cash": "ForecastCashConfig",
        "run_sandboxed_script": "RunSandboxedScriptConfig",
    }


def test_subpackages_serve_their_modules(examples: Path) -> None:
    code = """
    import json
    print(json.dumps([pkg.shop.billing.orders.__name__, "billing" in dir(pkg.shop)]))
    """
    assert _run(examples, code)[0] == [f"{examples.name}.shop.billing.orders", True]


def test_a_name_wins_over_a_top_level_module_of_the_same_name(
    tmp_path: Path,
) -> None:
    """`total.sql` is the module `total`, which exports the function `total`: the package's `total` is the
    function, whatever is imported first (importing a module binds it in its package).
    """
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "total.sql").write_text(SQL_TOOL.format(name="total"))
    out, _ = generate_package(tmp_path, specs)
    for first in ("", f"import {out.name}.total", "pkg.TOOLS['total']", "pkg.total"):
        code = f"""
        {first}
        import {out.name}.total
        import json
        print(json.dumps([callable(pkg.total), type(pkg.total).__name__]))
        """
        assert _run(out, code)[0] == [True, "function"], first


def test_type_checkers_see_every_name_and_no_other(
    examples: Path, tmp_path: Path
) -> None:
    """mypy sees the names through the imports under `TYPE_CHECKING`, and no module `__getattr__`: a name the
    package does not have is still an error."""
    client = examples.parent / "lazy_client.py"
    client.write_text(
        f"from {examples.name} import TOOLS, SayHelloArgs, Tools, ToolSpec\n"
        f"import {examples.name}\n\n"
        "spec: ToolSpec = TOOLS['sayHello']\n"
        "args: SayHelloArgs = SayHelloArgs(person_name='Ada')\n"
        "impl: Tools | None = None\n"
        f"missing = {examples.name}.NoSuchName\n"
    )
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config)]
        + ["--no-incremental", "lazy_client.py"],
        cwd=examples.parent,
        capture_output=True,
        text=True,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "NoSuchName" in errors[0], done.stdout


NAMES = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@given(st.lists(st.lists(NAMES, max_size=4), max_size=5))
def test_the_registry_and_the_names_are_what_an_eager_package_built(
    modules: list[list[str]],
) -> None:
    """For any tables, even with a name in two modules: `TOOLS` has the keys, order and values of the dict an
    eager `__init__` built module after module, and each name is the one a star import of each module in turn
    left."""
    package = "lazy_fake_pkg"
    fakes = {package: ModuleType(package)}
    eager: dict[str, Any] = {}
    star: dict[str, int] = {}
    for index, names in enumerate(modules):
        module = ModuleType(f"{package}.m{index}")
        specs = tuple(SimpleNamespace(name=name) for name in names)
        module.TOOL_SPECS = specs  # type: ignore[attr-defined]
        module.__dict__.update({name: index for name in names})
        fakes[module.__name__] = module
        eager.update({spec.name: spec for spec in specs})
        star.update({name: index for name in names})
    saved = {name: sys.modules.get(name) for name in fakes}
    sys.modules.update(fakes)
    try:
        tables = {f".m{index}": names for index, names in enumerate(modules)}
        registry = ToolRegistry(package, tables)
        assert list(registry) == list(eager) and len(registry) == len(eager)
        assert all(registry[name] is spec for name, spec in eager.items())
        getattr_, dir_ = package_attributes(package, {}, tables, [])
        assert {name: getattr_(name) for name in star} == star
        assert set(star) <= set(dir_())
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
