"""skip-refused: one refused tool (or file) is reported and left out, the rest compiled (issue #30).

What a build leaving refused units out writes must be what a build of the specs without them writes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from codegen.compiler import compile_specs
from conftest import compile_ok
from test_bad_input import run_cli, write


def _tool(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": f"The {name} tool.", "inputSchema": schema}


def _good(name: str) -> dict[str, Any]:
    return _tool(
        name, {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    )


# Schemas codegen refuses, each for another reason (dialect, meaning, reference, regular expression).
REFUSED = {
    "draft-04 bound beside a 2020-12 keyword": {
        "type": "object",
        "properties": {
            "n": {"type": "number", "exclusiveMinimum": True, "prefixItems": []}
        },
    },
    "unknown type": {"type": "object", "properties": {"n": {"type": "wat"}}},
    "dangling $ref": {"type": "object", "properties": {"n": {"$ref": "#/nope"}}},
    "bad pattern": {
        "type": "object",
        "properties": {"n": {"type": "string", "pattern": "(["}},
    },
    "not an object": {"type": "string"},
}


def _tools_list(folder: Path, tools: list[dict[str, Any]]) -> Path:
    write(folder, "server.json", {"tools": tools})
    return folder


def _skipping(specs: Path, mode: str = "fail") -> dict[str, str | bytes]:
    result = compile_specs([specs], skip_refused=mode)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]
    return result.files


@pytest.mark.parametrize("reason", sorted(REFUSED))
@pytest.mark.parametrize("where", [0, 2, 4])
def test_a_refused_tool_is_left_out_and_the_rest_is_what_a_build_without_it_writes(
    tmp_path: Path, reason: str, where: int
) -> None:
    good = [_good(f"tool_{i}") for i in range(4)]
    with_bad = [*good[:where], _tool("broken", REFUSED[reason]), *good[where:]]
    specs = _tools_list(tmp_path / "with", with_bad)
    without = _tools_list(tmp_path / "without", good)
    result = compile_specs([specs], skip_refused="fail")
    errors = [d for d in result.diagnostics.sorted() if d.severity == "error"]
    assert errors and all(d.span is not None for d in errors)
    assert result.left_out == [
        f"{(specs / 'server.json').as_posix()}: tool #{where + 1} 'broken'"
    ]
    assert result.files == compile_ok(without)
    # without the setting, the one tool still refuses the build
    assert compile_specs([specs]).files is None


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.one_of(st.none(), st.sampled_from(sorted(REFUSED))), min_size=1, max_size=6
    )
)
def test_kept_tools_equal_a_build_of_the_specs_without_the_refused_ones(
    tmp_path_factory: pytest.TempPathFactory, layout: list[str | None]
) -> None:
    tmp = tmp_path_factory.mktemp("skip")
    entries = [
        _good(f"t{i}") if bad is None else _tool(f"t{i}", REFUSED[bad])
        for i, bad in enumerate(layout)
    ]
    kept = [e for e, bad in zip(entries, layout) if bad is None]
    specs = _tools_list(tmp / "with", entries)
    result = compile_specs([specs], skip_refused="warn")
    assert result.files is not None
    assert not result.diagnostics.has_errors  # reported as warnings
    assert len(result.left_out) == len(layout) - len(kept)
    if kept:
        assert result.files == compile_ok(_tools_list(tmp / "without", kept))
        assert result.tools == len(kept)
    else:  # a file all of whose tools are refused has no module
        assert result.tools == 0 and "server.py" not in result.files


def test_the_users_of_a_refused_entity_are_left_out_too(tmp_path: Path) -> None:
    user = {"title": "User", "type": "object", "properties": {"id": {"type": "nope"}}}
    uses = _tool(
        "get_user",
        {"type": "object", "properties": {"user": {"$ref": "User.schema.json"}}},
    )
    specs = _tools_list(tmp_path / "with", [_good("ping"), uses, _good("pong")])
    write(specs, "User.schema.json", user)
    result = compile_specs([specs], skip_refused="fail")
    assert result.files is not None
    shown = [d.render() for d in result.diagnostics.sorted()]
    assert [d.code for d in result.diagnostics.sorted()] == [
        "invalid-schema",
        "ref-unresolved",
    ]
    assert "skip-refused had left out" in shown[1] and "User.schema.json" in shown[1]
    assert len(result.left_out) == 2
    without = _tools_list(tmp_path / "without", [_good("ping"), _good("pong")])
    assert result.files == compile_ok(without)


def test_command_line_fail_and_warn(tmp_path: Path) -> None:
    _tools_list(
        tmp_path / "specs", [_good("ping"), _tool("bad", REFUSED["unknown type"])]
    )
    refused = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert refused.returncode == 1 and not (tmp_path / "out").exists()

    failed = run_cli("specs", "-o", "out", "--skip-refused", cwd=tmp_path)
    assert failed.returncode == 1
    assert (
        "specs/server.json:" in failed.stderr
        and "error[invalid-schema]" in failed.stderr
    )
    assert "left out specs/server.json: tool #2 'bad'" in failed.stderr
    manifest = json.loads((tmp_path / "out/schemas/tools.mcp.json").read_text())
    assert [t["name"] for t in manifest["tools"]] == ["ping"]
    # a failed build keeps no rebuild record: the next run fails again, it does not report "up to date"
    again = run_cli("specs", "-o", "out", "--skip-refused", cwd=tmp_path)
    assert again.returncode == 1 and "error[invalid-schema]" in again.stderr

    warned = run_cli("specs", "-o", "out", "--skip-refused=warn", cwd=tmp_path)
    assert warned.returncode == 0, warned.stderr
    assert "warning[invalid-schema]" in warned.stderr and "error[" not in warned.stderr
    unchanged = run_cli("specs", "-o", "out", "--skip-refused=warn", cwd=tmp_path)
    assert unchanged.returncode == 0 and "warning[invalid-schema]" in unchanged.stderr
    strict = run_cli(
        "specs", "-o", "out", "--skip-refused=warn", "--strict", cwd=tmp_path
    )
    assert strict.returncode == 1
    check = run_cli("specs", "-o", "out", "--check", "--skip-refused", cwd=tmp_path)
    assert check.returncode == 1 and "is up to date" in check.stdout


def test_pyproject_setting_and_its_override(tmp_path: Path) -> None:
    _tools_list(
        tmp_path / "specs", [_good("ping"), _tool("bad", REFUSED["bad pattern"])]
    )
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[tool.codegen]\nspecs = ["specs"]\noutput = "out"\nskip-refused = "warn"\n'
    )
    assert run_cli(cwd=tmp_path).returncode == 0
    assert run_cli("--skip-refused=fail", cwd=tmp_path).returncode == 1
    assert run_cli("--skip-refused=off", "--no-cache", cwd=tmp_path).returncode == 1
    pyproject.write_text('[tool.codegen]\nskip-refused = "sometimes"\n')
    bad = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert bad.returncode == 2 and "pyproject.toml:2:1: error[config]" in bad.stderr


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".codegen-manifest.json"
    }


@pytest.mark.parametrize("mode", ["warn", "fail"])
def test_rebuilds_after_edits_equal_a_full_compile(tmp_path: Path, mode: str) -> None:
    specs = tmp_path / "specs"
    _tools_list(specs, [_good("ping"), _tool("bad", REFUSED["unknown type"])])
    write(specs, "other.json", _good("other"))
    args = ("specs", "-o", "out", f"--skip-refused={mode}")
    edits = [
        ("other.json", {**_good("other"), "description": "Edited."}),
        ("server.json", {"tools": [_good("ping"), _good("bad")]}),  # fixed
        ("server.json", {"tools": [_tool("ping", REFUSED["bad pattern"])]}),
    ]
    run_cli(*args, cwd=tmp_path)
    for rel, content in edits:
        write(specs, rel, content)
        built = run_cli(*args, cwd=tmp_path)
        fresh = run_cli(
            "specs", "-o", "fresh", f"--skip-refused={mode}", "--no-cache", cwd=tmp_path
        )
        assert built.returncode == fresh.returncode
        assert _tree(tmp_path / "out") == _tree(tmp_path / "fresh")
