"""The wheels work outside the repo: templates and grammars ship inside codegen's (SPEC §1), and the runtime
library's alone, beside Pydantic, runs a generated package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_wheel_installs_into_a_fresh_virtualenv_and_compiles(
    tmp_path: Path, codegen_wheel: Path
) -> None:
    wheel = codegen_wheel
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # Its dependency toolspec-runtime comes from the wheel built beside it (not yet on an index).
    wheels = ["--find-links", wheel.parent]
    run(python, "-m", "pip", "install", "-q", *wheels, wheel, cwd=tmp_path)
    location = run(
        python, "-c", "import codegen, sys; print(codegen.__file__)", cwd=tmp_path
    )
    assert location.startswith(str(venv)), location

    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "hello.json").write_text(
        json.dumps(
            {
                "name": "say_hello",
                "description": "Greets.",
                "parameters": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "default": "world"}},
                },
            }
        )
    )
    (specs / "greet.gram").write_text(
        '[greet:Tool {description: "Greets by name."} | (who::Text)==>(::String)]\n'
    )
    run(venv / "bin" / "codegen", "specs", "-o", "out", cwd=tmp_path)
    run(python, "-m", "codegen", "specs", "-o", "out2", cwd=tmp_path)
    assert (tmp_path / "out" / "schemas" / "greet.json").is_file()
    check = "import out; print(out.SayHelloArgs().name, out.GreetArgs(who='a').who)"
    assert run(python, "-c", check, cwd=tmp_path).split() == ["world", "a"]


def test_the_runtime_wheel_alone_runs_a_generated_package(
    tmp_path: Path, codegen_wheel: Path
) -> None:
    """A generated package needs only toolspec-runtime (and Pydantic, its one dependency): none of the
    compiler's libraries is installed where it runs."""
    from codegen.compiler import compile_specs
    from codegen.writer import write_output

    (runtime,) = codegen_wheel.parent.glob("toolspec_runtime-*.whl")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "-q", runtime, cwd=tmp_path)
    specs = tmp_path / "specs"
    specs.mkdir()
    tool = {
        "name": "pick",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer", "multipleOf": 3}},
            "required": ["n"],
        },
    }
    (specs / "pick.json").write_text(json.dumps(tool))
    files = compile_specs([specs]).files
    assert files is not None
    write_output(tmp_path / "out", files)
    check = (
        "import importlib.util as u, out\n"
        "print([m for m in ('codegen', 'jinja2', 'lark', 'black', 'jsonschema') if u.find_spec(m)])\n"
        "print(out.dispatch('pick', {'n': 4}, None).error.problems[0].message)\n"
    )
    assert run(python, "-c", check, cwd=tmp_path).splitlines() == [
        "[]",
        "must be a multiple of 3",
    ]
