"""examples/client-package: its checked-in code is current, its own tests and mypy pass, and a wheel built
from a clean copy (no generated code) gets the generated package from the setuptools build step (SPEC §8).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from codegen.compiler import compile_specs
from conftest import ROOT
from test_typecheck import MYPY_CONFIG

CLIENT = ROOT / "examples" / "client-package"
ENV = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{CLIENT / 'src'}"}


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or ENV,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_checked_in_generated_code_is_up_to_date() -> None:
    assert "is up to date" in run(
        sys.executable, "-m", "codegen", "--check", cwd=CLIENT
    )


def test_the_client_packages_own_tests_pass() -> None:
    run(
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests",
        cwd=CLIENT,
    )


def test_mypy_checks_the_implementation_against_the_generated_protocol(
    tmp_path: Path,
) -> None:
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    run(
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        config,
        "--no-incremental",
        "-p",
        "acme_tools",
        cwd=CLIENT / "src",
    )


def test_wheel_build_generates_the_package(tmp_path: Path, codegen_wheel: Path) -> None:
    wheels = codegen_wheel.parent
    project = tmp_path / "client"
    shutil.copytree(
        CLIENT,
        project,
        ignore=shutil.ignore_patterns("generated", "__pycache__", ".pytest_cache"),
    )
    assert not (project / "src" / "acme_tools" / "generated").exists()
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    env = {**os.environ, "PIP_FIND_LINKS": str(wheels)}
    env.pop("PYTHONPATH", None)
    run(python, "-m", "pip", "install", "-q", "build", cwd=tmp_path, env=env)
    run(python, "-m", "build", "-o", tmp_path / "dist", project, cwd=tmp_path, env=env)
    (wheel,) = (tmp_path / "dist").glob("acme_tools-*.whl")
    (sdist,) = (tmp_path / "dist").glob("acme_tools-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    assert any(name.endswith("specs/greeting.gram") for name in names)
    assert not any("/generated/" in name for name in names)
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path, env=env)
    check = "from acme_tools.service import handle; print(handle('greet', '{\"personName\": \"Ana\"}').value)"
    assert run(python, "-c", check, cwd=tmp_path, env=env).strip() == "Hello, Ana!"


def _clean_copy(tmp_path: Path) -> Path:
    """The client package as a user clones it without the checked-in generated code."""
    project = tmp_path / "client"
    shutil.copytree(
        CLIENT,
        project,
        ignore=shutil.ignore_patterns(
            "generated", "__pycache__", ".pytest_cache", ".mypy_cache"
        ),
    )
    return project


def _generated_in_wheel(wheel: Path) -> dict[str, str]:
    prefix = "acme_tools/generated/"
    with zipfile.ZipFile(wheel) as archive:
        return {
            name[len(prefix) :]: archive.read(name).decode("utf-8")
            for name in archive.namelist()
            if name.startswith(prefix)
        }


@pytest.mark.parametrize("how", ["find-links", "direct reference"])
def test_plain_pip_wheel_builds_the_example_from_a_local_codegen_wheel(
    tmp_path: Path, codegen_wheel: Path, how: str
) -> None:
    """Plain `pip wheel .`, as the client package's README says: pip's isolated build environment installs
    toolspec-codegen from a local wheel (`--find-links DIR`, or the wheel named in `build-system.requires`), and
    the build step compiles the specs into the wheel."""
    project = _clean_copy(tmp_path)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    assert '"toolspec-codegen"' in text
    extra: list[str | Path] = ["--find-links", codegen_wheel.parent]
    if how == "direct reference":
        (runtime,) = codegen_wheel.parent.glob("toolspec_runtime-*.whl")
        reference = f'"toolspec-codegen @ {codegen_wheel.as_uri()}"'
        reference += f', "toolspec-runtime @ {runtime.as_uri()}"'
        pyproject.write_text(text.replace('"toolspec-codegen"', reference))
        extra = []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = tmp_path / "dist"
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "-q",
        "-w",
        out,
        *extra,
        ".",
        cwd=project,
        env=env,
    )
    (wheel,) = out.glob("acme_tools-*.whl")
    expected = compile_specs([CLIENT / "specs"]).files
    assert expected is not None
    built = _generated_in_wheel(wheel)
    assert (
        built.pop(".codegen-manifest.json", None) is not None
    )  # written with the package
    assert built == expected
