"""[tool.codegen] in pyproject.toml: found by walking up, overridden by flags, checked like a spec (SPEC §5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegen import setuptools_plugin
from test_bad_input import run_cli, write

TOOL = {"name": "ping", "description": "Ping.", "parameters": {"type": "object"}}


def test_settings_are_found_walking_up_and_flags_override_them(tmp_path: Path) -> None:
    write(tmp_path, "specs/ping.json", TOOL)
    write(tmp_path, "other/pong.json", {**TOOL, "name": "pong"})
    write(
        tmp_path,
        "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.codegen]\nspecs = ["specs"]\noutput = "gen"\n',
    )
    (tmp_path / "deep" / "er").mkdir(parents=True)
    run = run_cli(cwd=tmp_path / "deep" / "er")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "gen" / "ping.py").is_file()
    run = run_cli("other", "-o", "elsewhere", cwd=tmp_path)
    assert run.returncode == 0 and (tmp_path / "elsewhere" / "pong.py").is_file()
    assert run_cli("--check", cwd=tmp_path).returncode == 0


def test_emit_limits_what_is_written(tmp_path: Path) -> None:
    write(tmp_path, "specs/ping.json", TOOL)
    write(
        tmp_path,
        "pyproject.toml",
        '[tool.codegen]\nspecs = "specs"\noutput = "gen"\nemit = ["python"]\n',
    )
    assert run_cli(cwd=tmp_path).returncode == 0
    assert (tmp_path / "gen" / "ping.py").is_file() and not (
        tmp_path / "gen" / "schemas"
    ).exists()
    assert run_cli("--emit", "python,schemas", cwd=tmp_path).returncode == 0
    assert (
        json.loads((tmp_path / "gen" / "schemas" / "ping.json").read_text())["name"]
        == "ping"
    )
    assert run_cli("--emit", "schemas", cwd=tmp_path).returncode == 2


def test_unknown_keys_wrong_types_and_bad_paths_are_diagnostics(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pyproject.toml",
        '[tool.codegen]\nspecs = ["nope"]\noutput = "gen"\nstrict = "yes"\nouptut = "typo"\nemit = ["python", "pdf"]\n',
    )
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if "error[config]" in line]
    assert [line.split(": error")[0] for line in lines] == [
        f"{tmp_path / 'pyproject.toml'}:{n}:1" for n in (2, 4, 5, 6)
    ]
    assert "'nope' does not exist" in lines[0] and "wrong type" in lines[1]
    assert "unknown setting 'ouptut'" in lines[2] and "emit" in lines[3]


def test_invalid_toml_is_a_diagnostic(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.codegen]\nspecs = [\n")
    run = run_cli(cwd=tmp_path)
    assert (
        run.returncode == 2
        and "error[config]: pyproject.toml is not valid TOML" in run.stderr
    )


def test_no_specs_anywhere_is_a_usage_error(tmp_path: Path) -> None:
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 2 and "give SPECS and -o OUT" in run.stderr


def test_the_tests_find_shared_material_through_codegen_shared(tmp_path: Path) -> None:
    """The tests read ../shared; CODEGEN_SHARED names another place, and what is missing there fails clearly."""
    import os
    import subprocess
    import sys

    tests = Path(__file__).resolve().parent
    (tmp_path / "corpus").mkdir()
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import conftest\n"
        "print(conftest.shared('corpus'))\n"
        "try:\n"
        "    conftest.shared('conformance', 'gram-corpus')\n"
        "except BaseException as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "CODEGEN_SHARED": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tests)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    found, message = done.stdout.splitlines()
    assert Path(found) == (tmp_path / "corpus").resolve()
    assert str(tmp_path.resolve() / "conformance" / "gram-corpus") in message
    assert "CODEGEN_SHARED" in message


def test_a_table_header_missing_its_bracket_is_a_diagnostic_at_its_place(
    tmp_path: Path,
) -> None:
    write(tmp_path, "specs/ping.json", TOOL)
    write(tmp_path, "pyproject.toml", '[tool.codegen\nspecs = ["specs"]\n')
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 2 and "give SPECS" not in run.stderr
    assert run.stderr.splitlines()[:3] == [
        f"{tmp_path / 'pyproject.toml'}:1:14: error[config]: pyproject.toml is not valid TOML: "
        "Expected ']' at the end of a table declaration",
        "1 | [tool.codegen",
        "                 ^",
    ]


def test_an_error_at_the_end_of_the_document_points_after_its_last_text(
    tmp_path: Path,
) -> None:
    write(tmp_path, "pyproject.toml", "[tool.codegen]\nspecs = [\n\n")
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.startswith(
        f"{tmp_path / 'pyproject.toml'}:2:10: error[config]: pyproject.toml is not valid TOML: "
        "Invalid value\n2 | specs = [\n"
    )


def test_a_broken_pyproject_is_not_passed_over_for_one_further_up(
    tmp_path: Path,
) -> None:
    write(tmp_path, "specs/ping.json", TOOL)
    write(
        tmp_path,
        "pyproject.toml",
        '[tool.codegen]\nspecs = ["specs"]\noutput = "gen"\n',
    )
    write(tmp_path, "sub/pyproject.toml", "[tool.codegen\n")
    run = run_cli(cwd=tmp_path / "sub")
    assert run.returncode == 2
    assert f"{tmp_path / 'sub' / 'pyproject.toml'}:1:14: error[config]" in run.stderr
    assert not (tmp_path / "gen").exists()
    # one that is valid TOML without codegen's table is a project not using codegen: passed over
    write(tmp_path, "sub/pyproject.toml", '[project]\nname = "sub"\n')
    assert run_cli(cwd=tmp_path / "sub").returncode == 0
    assert (tmp_path / "gen" / "ping.py").is_file()


def test_the_codegen_table_is_found_however_toml_spells_it(tmp_path: Path) -> None:
    write(tmp_path, "specs/ping.json", TOOL)
    write(
        tmp_path,
        "pyproject.toml",
        '[ tool . codegen ]\nspecs = ["specs"]\noutput = "gen"\n',
    )
    assert run_cli(cwd=tmp_path).returncode == 0
    write(
        tmp_path,
        "pyproject.toml",
        '[tool]\ncodegen = { specs = ["specs"], output = "gen2" }\n',
    )
    assert run_cli(cwd=tmp_path).returncode == 0
    assert (tmp_path / "gen2" / "ping.py").is_file()


@pytest.mark.parametrize(
    "text", [b"[tool.codegen\nbuild = true\n", b'[tool.codegen]\nspecs = "\xff"\n']
)
def test_the_build_hook_reports_a_broken_pyproject(tmp_path: Path, text: bytes) -> None:
    """Not silence (a wheel without the generated package) nor a traceback (a pyproject not UTF-8)."""
    (tmp_path / "pyproject.toml").write_bytes(text)
    with pytest.raises(setuptools_plugin.CodegenBuildError, match="pyproject.toml:"):
        setuptools_plugin._settings(tmp_path)
