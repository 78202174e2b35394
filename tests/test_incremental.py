"""Rebuilds: every build compiles afresh (nothing in OUT is reused or trusted), but only files whose bytes change
are written, and deleted specs lose their outputs (SPEC §4, §7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen import formatting
from codegen.compiler import compile_specs
from codegen.writer import WriteReport, write_output


def _build(specs: Path, out: Path) -> WriteReport:
    result = compile_specs([specs])
    assert result.files is not None
    return write_output(out, result.files)


def _tool(name: str, description: str = "A tool.") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }


def test_a_noop_rebuild_writes_nothing_and_an_edit_rewrites_what_changed(
    tmp_path: Path,
) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (specs / f"{name}.json").write_text(json.dumps(_tool(name)))
    _build(specs, out)
    alpha_written = (out / "alpha.py").stat().st_mtime_ns

    assert _build(specs, out).written == []

    (specs / "beta.json").write_text(json.dumps(_tool("beta", "Changed.")))
    report = _build(specs, out)
    written = [p for p in report.written if not p.startswith("schemas/tools.")]
    assert written == ["beta.py", "schemas/beta.json"]  # exports list every tool
    assert (out / "alpha.py").stat().st_mtime_ns == alpha_written

    (specs / "gamma.json").unlink()
    report = _build(specs, out)
    assert report.deleted == ["gamma.py", "gamma.schemas.json", "schemas/gamma.json"]
    assert not (out / "gamma.py").exists()


def test_a_rebuild_formats_everything_again_instead_of_trusting_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs, out = tmp_path / "specs", tmp_path / "out"
    specs.mkdir()
    (specs / "alpha.json").write_text(json.dumps(_tool("alpha")))
    _build(specs, out)
    formatted: list[str] = []
    original = formatting.format_python
    monkeypatch.setattr(
        formatting,
        "format_python",
        lambda source, path: formatted.append(path) or original(source, path),
    )
    _build(specs, out)
    assert sorted(formatted) == ["__init__.py", "alpha.py"]


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
    assert not (out / "a").exists()


def test_every_rebuild_checks_every_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
        lambda doc, fallback, diags, **options: checked.append(fallback.source.display)
        or original_valid(doc, fallback, diags, **options),
    )
    _build(specs, out)
    assert sorted(Path(p).name for p in checked) == ["alpha.json", "beta.json"]
