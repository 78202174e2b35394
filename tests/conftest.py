"""Shared test helpers: where the shared material is, compiling specs, importing what was generated."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from codegen.compiler import CompileResult, compile_specs
from codegen.writer import write_output
from pg import (
    postgres_url,
)  # noqa: F401  (a throwaway PostgreSQL server, session scope)

ROOT = Path(__file__).resolve().parents[1]
# The shared material (JSON-Schema-Test-Suite, gram corpus, real-tools corpus, references) sits beside the repo
# as ../shared; CODEGEN_SHARED names another location.
SHARED_VARIABLE = "CODEGEN_SHARED"
SHARED = (
    Path(os.environ[SHARED_VARIABLE]).expanduser().resolve()
    if os.environ.get(SHARED_VARIABLE)
    else ROOT.parent / "shared"
)
EXAMPLES = ROOT / "examples" / "specs"
GOLDEN = ROOT / "golden"
REAL_TOOLS = SHARED / "corpus" / "real-tools"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite golden/ from the current compiler output (read the diff before committing it)",
    )


def pytest_configure(config: pytest.Config) -> None:
    """codegen's rebuild records go to a folder of this session, never the user's cache: set before test modules
    load, so environments copied from os.environ then, and subprocesses, carry it too.
    """
    os.environ["CODEGEN_CACHE_DIR"] = tempfile.mkdtemp(prefix="codegen-cache-")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(os.environ.pop("CODEGEN_CACHE_DIR", ""), ignore_errors=True)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(
        request.config.getoption("--update-golden")
        or os.environ.get("CODEGEN_UPDATE_GOLDEN")
    )


def missing_shared(path: Path) -> str:
    """The message for shared material that is not there: where it was looked for and how to point elsewhere."""
    return (
        f"shared material missing: {path} (the shared folder sits beside the repository as ../shared, "
        f"or set {SHARED_VARIABLE} to where it is)"
    )


def shared(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.fail(missing_shared(path))
    return path


def compile_ok(*specs: Path) -> dict[str, str]:
    result = compile_specs(list(specs))
    rendered = "\n".join(d.render() for d in result.diagnostics.sorted())
    assert result.files is not None, f"compile failed:\n{rendered}"
    return result.files


def compile_result(*specs: Path) -> CompileResult:
    return compile_specs(list(specs))


_counter = 0


def generate_package(
    tmp_path: Path, *specs: Path, name: str | None = None
) -> tuple[Path, str]:
    """Compile `specs` into a fresh, uniquely named package under tmp_path; return (its folder, its name)."""
    global _counter
    _counter += 1
    package = name or f"gen_pkg_{_counter}"
    out = tmp_path / package
    write_output(out, compile_ok(*specs))
    return out, package


@pytest.fixture
def import_package() -> Iterator[object]:
    """Import a generated package from a folder; forgets it afterwards so names never leak between tests."""
    added: list[str] = []

    def load(out: Path, name: str) -> ModuleType:
        sys.path.insert(0, str(out.parent))
        added.append(str(out.parent))
        importlib.invalidate_caches()
        return importlib.import_module(name)

    yield load
    for entry in added:
        if entry in sys.path:
            sys.path.remove(entry)


@pytest.fixture(scope="session")
def examples_package(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, ModuleType]:
    """The bundled examples, compiled once and imported as `examples_gen`."""
    return _session_package(tmp_path_factory, "examples_gen", EXAMPLES)


@pytest.fixture(scope="session")
def real_tools_package(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, ModuleType]:
    """../shared/corpus/real-tools, compiled once and imported as `real_tools_gen`."""
    return _session_package(
        tmp_path_factory, "real_tools_gen", shared("corpus", "real-tools")
    )


def _session_package(
    factory: pytest.TempPathFactory, name: str, specs: Path
) -> tuple[Path, ModuleType]:
    out = factory.mktemp(name) / name
    write_output(out, compile_ok(specs))
    sys.path.insert(0, str(out.parent))
    importlib.invalidate_caches()
    return out, importlib.import_module(name)


@pytest.fixture(scope="session")
def codegen_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """codegen built as a wheel once per session (the wheel and build-step tests install it)."""
    import subprocess

    wheels = tmp_path_factory.mktemp("wheels")
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        str(wheels),
        str(ROOT),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # The runtime library beside it: codegen depends on it, and so does every generated package.
    done = subprocess.run(
        [*command[:-1], str(ROOT / "runtime")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = wheels.glob("toolspec_codegen-*.whl")
    assert len(list(wheels.glob("toolspec_runtime-*.whl"))) == 1
    return wheel
