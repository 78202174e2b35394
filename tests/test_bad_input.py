"""Hostile and broken specs: each gets a diagnostic or a correctly escaped, importable package, and nothing
appears outside OUT (SPEC §6, §7)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, compile_result, generate_package

DIAGNOSTIC = re.compile(
    r"^(?P<path>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>[a-z-]+)\]: .+$"
)


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
        "CODEGEN_CACHE_DIR": os.environ["CODEGEN_CACHE_DIR"],  # never the user's cache
    }
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
    )


def write(folder: Path, name: str, content: Any) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        content if isinstance(content, str) else json.dumps(content, indent=2)
    )
    return path


def diagnostics_of(specs: Path) -> list[tuple[str, int, int, str]]:
    result = compile_result(specs)
    found = []
    for diagnostic in result.diagnostics.sorted():
        assert diagnostic.span is not None
        found.append(
            (
                Path(diagnostic.span.source.display).name,
                diagnostic.span.line,
                diagnostic.span.col,
                diagnostic.code,
            )
        )
    return found


def test_malformed_json_is_a_diagnostic_with_position_and_caret(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "broken.json",
        '{\n  "name": "x",\n  "parameters": {"type": "object",}\n}\n',
    )
    out = tmp_path / "out"
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    first = run.stderr.splitlines()[0]
    match = DIAGNOSTIC.match(first)
    assert (
        match
        and match["path"] == "specs/broken.json"
        and (match["line"], match["col"]) == ("3", "35")
    )
    assert match["code"] == "json-syntax"
    assert run.stderr.splitlines()[1] == '3 |   "parameters": {"type": "object",}'
    assert run.stderr.splitlines()[2] == " " * (len("3 | ") + 34) + "^"
    assert not out.exists()


def test_all_errors_are_collected_and_sorted(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "b.json",
        {
            "name": "dup",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/Nope"}},
            },
        },
    )
    write(
        specs,
        "a.json",
        [{"description": "no name"}, {"name": "dup", "parameters": {"type": "object"}}],
    )
    write(specs, "c.json", {"hello": "world"})
    write(specs, "d.json", {"name": "../../x", "parameters": {"type": "object"}})
    write(
        specs,
        "e.json",
        {"name": "remote", "parameters": {"$ref": "https://example.com/s.json"}},
    )
    write(
        specs,
        "f.json",
        {
            "name": "tuple",
            "parameters": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",  # else read as draft-07
                "type": "object",
                "properties": {"t": {"items": [{}]}},
            },
        },
    )
    write(
        specs,
        "g.json",
        {
            "name": "ent",
            "parameters": {
                "type": "object",
                "properties": {"u": {"$ref": "User.schema.json"}},
            },
        },
    )
    found = diagnostics_of(specs)
    assert found == sorted(found)
    codes = [(name, code) for name, _, _, code in found]
    assert (
        "a.json",
        "unknown-shape",
    ) in codes  # an entry without a name has no tool shape
    assert ("b.json", "duplicate-name") in codes and (
        "b.json",
        "ref-unresolved",
    ) in codes
    assert ("c.json", "unknown-shape") in codes
    assert ("d.json", "tool-name") in codes
    assert ("e.json", "ref-remote") in codes  # an unmapped URL
    assert ("f.json", "unsupported-keyword") in codes
    assert ("g.json", "ref-unresolved") in codes


def test_duplicate_names_across_files_name_both_places(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(specs, "one.json", {"name": "same", "parameters": {"type": "object"}})
    write(specs, "two/User.schema.json", {"title": "same", "type": "object"})
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1
    assert "error[duplicate-name]: 'same' is defined more than once" in run.stderr
    assert (
        "note: first defined here" in run.stderr
        and "specs/one.json:2:11: note: first defined here" in run.stderr
    )


def test_ref_to_nowhere_points_at_the_ref(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        '{"name": "t", "parameters": {"type": "object",\n  "properties": {"a": {"$ref": "#/$defs/Missing"}}}}',
    )
    assert diagnostics_of(specs) == [("t.json", 2, 32, "ref-unresolved")]


def test_tool_without_a_name(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(specs, "t.json", {"name": "", "parameters": {"type": "object"}})
    assert [code for *_, code in diagnostics_of(specs)] == ["tool-name"]


def test_deep_nesting_is_a_diagnostic(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "deep.json",
        '{"name": "d", "parameters": ' + "[" * 5000 + "]" * 5000 + "}",
    )
    assert [code for *_, code in diagnostics_of(specs)] == ["too-deep"]


def test_path_traversal_in_names_never_leaves_out(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(specs, "evil.json", {"name": "../../x", "parameters": {"type": "object"}})
    write(
        specs,
        "sub/../../escape.schema.json".replace("../", ""),
        {"title": "../../../Evil", "type": "object"},
    )
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "tool-name" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["specs"]
    (specs / "evil.json").unlink()
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    written = {
        p.relative_to(tmp_path / "out").as_posix()
        for p in (tmp_path / "out").rglob("*")
        if p.is_file()
    }
    assert "schemas/entities/Evil.json" in written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "specs"]


NASTY = 'Ends with a quote" and has """triple""" quotes, a \\ backslash,\n"""\nimport os; os.system("touch PWNED")\n#'


def test_hostile_names_descriptions_defaults_and_enums(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    enum = ["a b", "1x", "it's", 'say "hi"', "é", '"""', "\\", "\n"]
    properties = {
        name: {"type": "string", "description": NASTY, "default": NASTY}
        for name in (
            "from",
            "class",
            "model_config",
            "schema",
            "json",
            "_private",
            "1st",
            "str",
            "model_dump",
        )
    }
    properties["choice"] = {"type": "string", "enum": enum, "default": "it's"}
    properties["nested"] = {
        "type": "object",
        "properties": {"from": {"type": "integer"}},
        "required": ["from"],
    }
    tool = {
        "name": "hostile",
        "description": NASTY,
        "parameters": {"type": "object", "properties": properties},
    }
    write(specs, "hostile.json", tool)
    write(
        specs,
        "Bad Entity.schema.json",
        {"title": NASTY, "type": "object", "description": NASTY, "properties": {}},
    )
    out, name = generate_package(tmp_path, specs)
    package = import_package(out, name)
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()
    spec = package.TOOLS["hostile"]
    assert spec.description == NASTY
    args_model = spec.args_model
    assert {f.alias or n for n, f in args_model.model_fields.items()} == set(properties)
    assert all(
        f.default == NASTY
        for n, f in args_model.model_fields.items()
        if n not in ("choice", "nested")
    )
    # The description is the stub's docstring (the arguments' schema has none, so neither has their model).
    assert args_model.__doc__ is None and "PWNED" in package.HostileFn.__call__.__doc__
    for value in enum:
        args = args_model.model_validate(
            {"choice": value, "nested": {"from": 1}, "from": "x", "class": "y"}
        )
        assert args.choice == value and args.nested.from_ == 1
        assert args.model_dump(by_alias=True, exclude_unset=True)["from"] == "x"
    with pytest.raises(ValueError):
        args_model.model_validate({"choice": "A B"})
    assert getattr(package, "PwnedModel", None) is None


def test_invalid_schemas_are_diagnostics_at_the_spot(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        '{"name": "t", "parameters": {"type": "object", "properties": {\n'
        '  "a": {"type": "strnig"},\n  "b": {"minimum": "3"},\n  "c": {"pattern": "(unclosed"}}}}',
    )
    result = compile_result(specs)
    found = [
        (d.span.line, d.span.col, d.message)
        for d in result.diagnostics.sorted()
        if d.span
    ]
    assert found == [
        (2, 17, "unknown type 'strnig'; did you mean 'string'?"),
        (3, 20, "not a valid JSON Schema: expected number, got string"),
        (4, 20, "pattern '(unclosed' is not a valid regular expression"),
    ]
