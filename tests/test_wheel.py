"""The wheel works outside the repo: templates and grammars ship inside it (SPEC §1)."""

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
    run(python, "-m", "pip", "install", "-q", wheel, cwd=tmp_path)
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
