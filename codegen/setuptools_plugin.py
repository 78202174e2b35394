"""setuptools build step: a package with `[tool.codegen]` (and `build = true`) gets its generated package built
into the wheel by `pip wheel .` / `python -m build`, without the generated code being checked in (SPEC §8).

setuptools calls `finalize_distribution_options` (an entry point codegen registers) for every distribution it
builds while codegen is installed in the build environment; for projects that ask for it, the hook swaps in a
`build_py` that compiles the specs straight into the build folder.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from .compiler import compile_specs
from .config import Settings, load_settings, sets_up_codegen
from .diagnostics import Diagnostics
from .writer import WriteError, write_output


class CodegenBuildError(Exception):
    """The specs did not compile: the message carries every diagnostic."""


def _settings(project: Path) -> Settings | None:
    pyproject = project / "pyproject.toml"
    if not sets_up_codegen(pyproject):
        return None
    diags = Diagnostics()
    settings = load_settings(pyproject, diags)
    if diags.has_errors:
        raise CodegenBuildError("\n".join(d.render() for d in diags.sorted()))
    return settings if settings.build else None


def package_folder(settings: Settings, project: Path) -> str:
    """Where the generated package goes inside the wheel: `package` (dotted) or the output folder's name."""
    if settings.package:
        return settings.package.replace(".", "/")
    assert settings.output is not None
    output = settings.output.resolve()
    for root in (project / "src", project):
        if root.resolve() in output.parents:
            return output.relative_to(root.resolve()).as_posix()
    return output.name


def generate_into(build_lib: Path, project: Path, settings: Settings) -> list[str]:
    """Compile the project's specs into `build_lib`; returns the files written (relative to build_lib)."""
    result = compile_specs(
        settings.specs,
        exclude=settings.output,
        emit=settings.emit,
        prefixes=settings.prefixes,
        ref_map=settings.ref_map,
        skip_refused=settings.skip_refused,
    )
    problems = result.diagnostics.sorted()
    failed = result.diagnostics.has_errors or (settings.strict and problems)
    if result.files is None or failed:
        raise CodegenBuildError(
            "codegen: the specs do not compile:\n"
            + "\n".join(d.render() for d in problems)
        )
    folder = package_folder(settings, project)
    shutil.rmtree(
        build_lib / folder, ignore_errors=True
    )  # a checked-in copy that build_py put there
    try:
        write_output(build_lib / folder, result.files)
    except (WriteError, OSError) as exc:
        raise CodegenBuildError(
            f"codegen: cannot write the generated package: {exc}"
        ) from exc
    return [f"{folder}/{path}" for path in result.files]


# What the generated package imports at run time: a wheel carrying it must depend on this.
RUNTIME_REQUIREMENT = "toolspec-runtime>=0.5,<1"


def _requires_runtime(requirements: list[str]) -> bool:
    """Whether one of the distribution's requirements names toolspec-runtime (in any spelling PEP 503 allows)."""
    for requirement in requirements:
        name = re.split(r"[\s\[<>=!~;@(]", requirement.strip(), maxsplit=1)[0]
        if re.sub(r"[-_.]+", "-", name).lower() == "toolspec-runtime":
            return True
    return False


def finalize_distribution_options(dist: Any) -> None:
    project = Path.cwd()
    settings = _settings(project)
    if settings is None:
        return
    from setuptools.command.build_py import build_py

    base = dist.cmdclass.get("build_py", build_py)
    chosen: Settings = settings  # (the check above does not reach into the class below)

    class build_py_with_codegen(base):  # type: ignore[misc, valid-type]
        def run(self) -> None:
            # A wheel whose generated package cannot import its runtime would install and then fail: refuse
            # to build it. (Asked here: the hook above runs before setuptools reads pyproject's dependencies.)
            if not _requires_runtime(list(self.distribution.install_requires or [])):
                raise CodegenBuildError(
                    "codegen: the generated package imports toolspec-runtime: add"
                    f' "{RUNTIME_REQUIREMENT}" to [project] dependencies in pyproject.toml'
                )
            super().run()
            generate_into(Path(self.build_lib), project, chosen)

    dist.cmdclass["build_py"] = build_py_with_codegen


finalize_distribution_options.order = 100  # type: ignore[attr-defined]  # after setuptools' own hooks
