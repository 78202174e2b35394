"""Incremental builds: unchanged specs are neither rendered nor formatted again; edits rewrite only what depends
on them; deleted specs lose their outputs (SPEC §4, issue: build integration)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen import formatting
from codegen.compiler import compile_specs
from codegen.incremental import PreviousBuild
from codegen.writer import write_output


def _build(specs: Path, out: Path) -> Any:
    result = compile_specs([specs], previous=PreviousBuild(out))
    assert result.files is not None
    return write_output(out, result.files, result.keys, result.sources)


def _tool(name: str, description: str = "A tool.") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }


def test_noop_rebuild_formats_nothing_and_an_edit_reformats_one_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (specs / f"{name}.json").write_text(json.dumps(_tool(name)))
    _build(specs, out)
    formatted: list[str] = []
    original = formatting.format_python
    monkeypatch.setattr(
        formatting,
        "format_python",
        lambda source, path: formatted.append(path) or original(source, path),
    )

    report = _build(specs, out)
    assert formatted == [] and report.written == []

    (specs / "beta.json").write_text(json.dumps(_tool("beta", "Changed.")))
    report = _build(specs, out)
    assert formatted == ["beta.py"]
    written = [
        path for path in report.written if not path.startswith("schemas/tools.")
    ]  # exports list every tool
    assert written == [
        "beta.py",
        "schemas/beta.json",
    ]  # __init__ is reused: its key did not change

    (specs / "gamma.json").unlink()
    formatted.clear()
    report = _build(specs, out)
    assert report.deleted == ["gamma.py", "schemas/gamma.json"] and formatted == [
        "__init__.py"
    ]
    assert not (out / "gamma.py").exists()


def test_a_hand_edited_file_is_regenerated_not_trusted(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    (specs / "alpha.json").write_text(json.dumps(_tool("alpha")))
    _build(specs, out)
    clean = (out / "alpha.py").read_text()
    (out / "alpha.py").write_text(clean + "# edited\n")
    report = _build(specs, out)
    assert report.written == ["alpha.py"] and (out / "alpha.py").read_text() == clean


def test_entity_moves_update_the_modules_that_import_it(tmp_path: Path) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    (specs / "a").mkdir(parents=True)
    entity = {
        "title": "Thing",
        "type": "object",
        "properties": {"id": {"type": "integer"}},
    }
    (specs / "a" / "Thing.schema.json").write_text(json.dumps(entity))
    tool = _tool("use_thing")
    tool["parameters"]["properties"]["thing"] = {"$ref": "a/Thing.schema.json"}
    (specs / "use.json").write_text(json.dumps(tool))
    _build(specs, out)
    assert "from .a.thing import Thing" in (out / "use.py").read_text()
    (specs / "b").mkdir()
    (specs / "a" / "Thing.schema.json").rename(specs / "b" / "Thing.schema.json")
    tool["parameters"]["properties"]["thing"] = {"$ref": "b/Thing.schema.json"}
    (specs / "use.json").write_text(json.dumps(tool))
    _build(specs, out)
    assert "from .b.thing import Thing" in (out / "use.py").read_text()


def test_unchanged_specs_skip_the_schema_check_and_exports_are_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegen.backends import schemas
    from codegen.passes import check_schemas

    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    for name in ("alpha", "beta"):
        (specs / f"{name}.json").write_text(json.dumps(_tool(name)))
    _build(specs, out)
    checked: list[str] = []
    original_valid = check_schemas._valid
    monkeypatch.setattr(
        check_schemas,
        "_valid",
        lambda doc, fallback, diags: checked.append(fallback.source.display)
        or original_valid(doc, fallback, diags),
    )
    exported: list[int] = []
    original_exports = schemas.render_exports
    monkeypatch.setattr(
        "codegen.compiler.render_exports",
        lambda plan: exported.append(1) or original_exports(plan),
    )
    _build(specs, out)
    assert checked == [] and exported == []
    (specs / "beta.json").write_text(json.dumps(_tool("beta", "Changed.")))
    _build(specs, out)
    assert [Path(p).name for p in checked] == ["beta.json"] and exported == [1]
