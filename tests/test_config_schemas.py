"""Real configuration-file schemas (SchemaStore-like): the shapes they take that once were refused falsely.

Each test is a small document of our own, written after one class of refusal found by compiling such schemas
alone as entities; each compiles now, and the package validates as the document's own dialect says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen.compiler import compile_specs
from codegen.writer import write_output
from conftest import generate_package

DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT7 = "http://json-schema.org/draft-07/schema#"


def _write(folder: Path, name: str, doc: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def _errors(specs: Path) -> list[str]:
    result = compile_specs([specs])
    return [d.render() for d in result.diagnostics.sorted() if d.severity == "error"]


@pytest.mark.parametrize("dialect", [DRAFT4, DRAFT7])
def test_later_annotations_are_data_in_an_earlier_dialect(
    tmp_path: Path, import_package: Any, dialect: str
) -> None:
    """`deprecated` (2019-09 on) holding a message, `examples`/`readOnly` of the wrong shape in draft-04: keywords
    the document's dialect does not have are data there, whatever their value, not ill-formed 2020-12.
    """
    doc = {
        "$schema": dialect,
        "title": "Settings",
        "type": "object",
        "properties": {
            "old": {"type": "string", "deprecated": "Use `new` instead."},
            "new": {"type": "integer", "deprecated": {"since": "2.0"}},
        },
    }
    if dialect == DRAFT4:
        doc["properties"]["new"].update(examples="1", readOnly="no", writeOnly=0)
    specs = tmp_path / "specs"
    _write(specs, "settings.schema.json", doc)
    assert _errors(specs) == []
    out, name = generate_package(tmp_path, specs)
    settings = import_package(out, name).Settings
    assert settings.model_validate({"old": "x", "new": 1}).new == 1
    with pytest.raises(ValueError):
        settings.model_validate({"new": "1"})


def test_defs_hold_data_in_an_earlier_dialect(
    tmp_path: Path, import_package: Any
) -> None:
    """`$defs` is no draft-07 keyword: a string beside its schemas is data, while a pointer still reaches the
    schemas (JSON navigation), as a draft-07 validator reads the document."""
    doc = {
        "$schema": DRAFT7,
        "title": "Build",
        "$defs": {
            "mode": {"enum": ["none", "append"]},
            "description": "How to inherit the parent's value.",
        },
        "type": "object",
        "properties": {"mode": {"$ref": "#/$defs/mode"}},
    }
    specs = tmp_path / "specs"
    _write(specs, "build.schema.json", doc)
    assert _errors(specs) == []
    out, name = generate_package(tmp_path, specs)
    build = import_package(out, name).Build
    assert build.model_validate({"mode": "append"}).mode == "append"
    with pytest.raises(ValueError):
        build.model_validate({"mode": "prepend"})


@pytest.mark.parametrize("name", ["self"])
def test_any_property_name_survives_bundling(
    tmp_path: Path, import_package: Any, name: str
) -> None:
    """A property called `self` (pyproject's `[tool.pdm]` has one) in a document bundled from the ref-map, and in
    the root beside it: names are data, never keyword arguments of the compiler's own calls.
    """
    remote = tmp_path / "remote"
    _write(
        remote,
        "part.json",
        {
            "$schema": DRAFT7,
            "$id": "https://schemas.test/part.json",
            "definitions": {"item": {"type": "string"}},
            "type": "object",
            "properties": {name: {"$ref": "#/definitions/item"}},
        },
    )
    specs = tmp_path / "specs"
    _write(
        specs,
        "whole.schema.json",
        {
            "$schema": DRAFT7,
            "title": "Whole",
            "type": "object",
            "properties": {
                "part": {"$ref": "https://schemas.test/part.json"},
                name: {"$ref": "https://schemas.test/part.json#/definitions/item"},
            },
        },
    )
    result = compile_specs([specs], ref_map={"https://schemas.test/": remote})
    rendered = [d.render() for d in result.diagnostics.sorted()]
    assert result.files is not None, rendered
    out = tmp_path / "pkg_self"
    write_output(out, result.files)
    whole = import_package(out, "pkg_self").Whole
    whole.model_validate({"part": {name: "x"}, name: "y"})
    with pytest.raises(ValueError):
        whole.model_validate({"part": {name: 1}})


def test_a_recursive_default_under_a_union_ends(
    tmp_path: Path, import_package: Any
) -> None:
    """Draft-04's own meta-schema: `additionalItems` is boolean or the schema itself, default `{}`; building that
    default met itself again forever (each use of `bool | Model` is a new union object), so every value failed.
    """
    doc = {
        "$schema": DRAFT4,
        "title": "Node",
        "type": "object",
        "properties": {
            "more": {"anyOf": [{"type": "boolean"}, {"$ref": "#"}], "default": {}},
            "name": {"type": "string"},
        },
    }
    specs = tmp_path / "specs"
    _write(specs, "node.schema.json", doc)
    out, name = generate_package(tmp_path, specs)
    node = import_package(out, name).Node
    assert node.model_validate({"name": "a"}).name == "a"
    assert node.model_validate({"more": False}).more is False
    with pytest.raises(ValueError):
        node.model_validate({"name": 1})


def test_a_url_without_its_extension_finds_the_json_file(
    tmp_path: Path, import_package: Any
) -> None:
    """SchemaStore's schemas refer to each other as `https://json.schemastore.org/<name>`, which the site serves
    from `<name>.json`: a mapped folder of its files answers those references."""
    remote = tmp_path / "remote"
    _write(remote, "grunt-task.json", {"$schema": DRAFT4, "type": "string"})
    specs = tmp_path / "specs"
    _write(
        specs,
        "conf.schema.json",
        {
            "$schema": DRAFT4,
            "title": "Conf",
            "type": "object",
            "properties": {"task": {"$ref": "https://json.schemastore.org/grunt-task"}},
        },
    )
    ref_map = {"https://json.schemastore.org/": remote}
    result = compile_specs([specs], ref_map=ref_map)
    rendered = [d.render() for d in result.diagnostics.sorted()]
    assert result.files is not None, rendered
    out = tmp_path / "pkg_ext"
    write_output(out, result.files)
    conf = import_package(out, "pkg_ext").Conf
    conf.model_validate({"task": "x"})
    with pytest.raises(ValueError):
        conf.model_validate({"task": 1})
    # A name that is not there either way is still refused, naming the path it maps to.
    (remote / "grunt-task.json").unlink()
    errors = [
        d.render()
        for d in compile_specs([specs], ref_map=ref_map).diagnostics.sorted()
        if d.severity == "error"
    ]
    assert any("grunt-task, which does not exist" in e for e in errors), errors
