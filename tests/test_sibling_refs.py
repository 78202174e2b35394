"""References between the files of a specs tree by path: a document a schema refers to is read as a JSON Schema
resource whatever its name (`child.json`, `child.yaml`), confined to the tree; a `$ref` under an unknown keyword is
data; a pointer into another spec file must lead somewhere, as one within a file must.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from test_bad_input import run_cli, write

from codegen.compiler import CompileResult, compile_specs
from codegen.writer import write_output


def compiled(specs: Path) -> CompileResult:
    return compile_specs([specs])


def errors(result: CompileResult) -> list[tuple[str, int, str, str]]:
    """(file below the specs folder, line, code, message) of every error."""
    return [
        (
            d.span.source.rel.as_posix() if d.span else "",
            d.span.line if d.span else 0,
            d.code,
            d.message,
        )
        for d in result.diagnostics.sorted()
        if d.severity == "error"
    ]


def model(
    tmp_path: Path, files: dict[str, str], module: str, cls: str, import_package: Any
) -> Any:
    out = tmp_path / f"sibling_{abs(hash((module, cls, str(tmp_path))))}"
    write_output(out, files)
    package = import_package(out, out.name)
    return getattr(__import__(f"{package.__name__}.{module}", fromlist=[cls]), cls)


ORDER = {
    "type": "object",
    "properties": {
        "customer": {"$ref": "customer.json"},
        "zip": {"$ref": "sub/codes.yaml#/definitions/zip"},
        "note": {"$ref": "sub/notes.json#/definitions/note"},
    },
    "required": ["customer"],
}
CUSTOMER = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "zip": {"$ref": "sub/codes.yaml#/definitions/zip"},
    },
    "required": ["id"],
}
CODES_YAML = (
    "definitions:\n  zip:\n    type: string\n    minLength: 5\n    maxLength: 5\n"
)
NOTES = {
    "definitions": {
        "note": {"type": "string", "maxLength": 3},
        "back": {"$ref": "../customer.json"},
    }
}


def tree(folder: Path) -> Path:
    write(folder, "order.schema.json", ORDER)
    write(folder, "customer.json", CUSTOMER)
    write(folder, "sub/codes.yaml", CODES_YAML)
    write(folder, "sub/notes.json", NOTES)
    return folder


def test_a_sibling_document_by_file_name_json_or_yaml_is_a_schema_resource(
    tmp_path: Path, import_package: Any
) -> None:
    result = compiled(tree(tmp_path / "specs"))
    assert result.files is not None, errors(result)
    # neither file is compiled as a tool file or Brimley definition: only the entity's module
    assert not any(path.startswith(("customer", "sub/")) for path in result.files)
    Order = model(tmp_path, result.files, "order", "Order", import_package)
    Order.model_validate(
        {"customer": {"id": 1, "zip": "12345"}, "zip": "54321", "note": "abc"}
    )
    for bad in (
        {"customer": {"id": 0}},  # customer.json's minimum
        {"customer": {"id": 1, "zip": "1"}},  # codes.yaml through customer.json
        {"customer": {"id": 1}, "zip": "123456"},
        {"customer": {"id": 1}, "note": "abcd"},  # sub/notes.json#/definitions/note
        {},
    ):
        with pytest.raises(ValidationError):
            Order.model_validate(bad)


def test_the_bundled_schema_names_no_machine_path(tmp_path: Path) -> None:
    result = compiled(tree(tmp_path / "specs"))
    assert result.files is not None
    assert str(tmp_path) not in "".join(result.files.values())


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("tool.json", "tool.json is a spec of its own"),
        ("missing.json", "no spec file missing.json is in the specs tree"),
        ("../outside.json", "leads out of the specs tree"),
        ("sub/../../outside.json", "leads out of the specs tree"),
        ("/etc/outside.json", "leads out of the specs tree"),
        (".hidden.json", "no spec file .hidden.json is in the specs tree"),
    ],
)
def test_a_reference_the_tree_cannot_answer_is_an_error_at_the_ref(
    tmp_path: Path, ref: str, expected: str
) -> None:
    specs = tmp_path / "specs"
    write(
        specs, "a.schema.json", {"type": "object", "properties": {"x": {"$ref": ref}}}
    )
    write(specs, "tool.json", {"name": "t", "parameters": {"type": "object"}})
    write(specs, ".hidden.json", {"type": "string"})
    write(tmp_path, "outside.json", {"type": "string"})
    found = errors(compiled(specs))
    assert len(found) == 1, found
    assert (found[0][0], found[0][2]) == (
        "a.schema.json",
        "ref-unresolved",
    ) and expected in found[0][3], found


def test_a_reference_out_of_the_tree_from_a_nested_document_is_an_error(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "a.schema.json",
        {"type": "object", "properties": {"x": {"$ref": "sub/b.json"}}},
    )
    write(
        specs,
        "sub/b.json",
        {"type": "object", "properties": {"y": {"$ref": "../../outside.json"}}},
    )
    write(tmp_path, "outside.json", {"type": "string"})
    found = errors(compiled(specs))
    assert [(f, c) for f, _, c, _ in found] == [("sub/b.json", "ref-unresolved")], found
    assert "leads out of the specs tree" in found[0][3]


def test_a_json_file_nobody_refers_to_is_still_a_tool_file(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(specs, "a.schema.json", {"type": "object"})
    write(specs, "lonely.json", {"type": "object"})
    found = errors(compiled(specs))
    assert [(f, c) for f, _, c, _ in found] == [("lonely.json", "unknown-shape")]


def test_a_broken_referenced_document_is_reported_once_in_its_file(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "a.schema.json",
        {"type": "object", "properties": {"x": {"$ref": "b.json"}}},
    )
    write(specs, "b.json", '{"type": "object",')
    found = errors(compiled(specs))
    assert [(f, c) for f, _, c, _ in found] == [("b.json", "json-syntax")], found


def test_an_edit_of_a_referenced_document_rebuilds_the_referrer(tmp_path: Path) -> None:
    specs = tree(tmp_path / "specs")
    out = tmp_path / "out"
    first = run_cli(str(specs), "-o", str(out), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert '"minLength": 5' in (out / "order.schemas.json").read_text()
    write(specs, "sub/codes.yaml", CODES_YAML.replace("minLength: 5", "minLength: 4"))
    second = run_cli(str(specs), "-o", str(out), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert '"minLength": 4' in (out / "order.schemas.json").read_text()


# Item 5: data under an unknown keyword is never a reference.


def test_a_ref_under_an_unknown_keyword_is_data(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    schema = {
        "type": "object",
        "x-bad-ref": {
            "$ref": "#missing",
            "properties": {"a": {"$ref": "nowhere.json"}},
        },
        "x-list": [{"$ref": "#/nothing"}],
        "properties": {"n": {"type": "integer"}},
    }
    write(specs, "thing.schema.json", schema)
    result = compiled(specs)
    assert result.files is not None, errors(result)
    Thing = model(tmp_path, result.files, "thing", "Thing", import_package)
    assert Thing.model_validate({"n": 1}).n == 1
    thing = json.loads(result.files["thing.schemas.json"])["THING_SCHEMA"]
    assert '"$ref": "#missing"' in json.dumps(thing)  # kept as data


def test_a_ref_under_an_unknown_keyword_a_pointer_names_is_a_schema(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    schema = {
        "type": "object",
        "x-kept": {"$ref": "#/$defs/Missing"},
        "properties": {"n": {"$ref": "#/x-kept"}},
    }
    write(specs, "thing.schema.json", schema)
    found = errors(compiled(specs))
    assert [(f, c) for f, _, c, _ in found] == [
        ("thing.schema.json", "ref-unresolved")
    ], found


# Item 8: a pointer into another spec file resolves at compile time or is refused there.

A_SCHEMA = {
    "type": "object",
    "$defs": {"X": {"type": "string", "$anchor": "ex"}, "": {"type": "integer"}},
    "properties": {"x": {"$ref": "#/$defs/X"}},
}


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("a.schema.json#/$defs/Missing", "points to nothing in that document"),
        ("a.schema.json#definitions/x", "no $anchor 'definitions/x'"),
        ("a.schema.json#/", "points to nothing in that document"),
        ("a.schema.json#nope", "no $anchor 'nope'"),
        ("#/", "points to nothing in this document"),
    ],
)
def test_a_dangling_pointer_into_another_spec_is_refused(
    tmp_path: Path, ref: str, expected: str
) -> None:
    specs = tmp_path / "specs"
    write(specs, "a.schema.json", A_SCHEMA)
    write(
        specs, "b.schema.json", {"type": "object", "properties": {"p": {"$ref": ref}}}
    )
    found = errors(compiled(specs))
    assert len(found) == 1 and (found[0][0], found[0][2]) == (
        "b.schema.json",
        "ref-unresolved",
    ), found
    assert expected in found[0][3]


@pytest.mark.parametrize(
    "ref, good, bad",
    [
        ("a.schema.json#/$defs/X", "s", 1),
        ("a.schema.json#ex", "s", 1),
        ("a.schema.json#/$defs/", 1, "s"),
    ],
)
def test_a_pointer_or_anchor_into_another_spec_validates(
    tmp_path: Path, import_package: Any, ref: str, good: Any, bad: Any
) -> None:
    specs = tmp_path / "specs"
    write(specs, "a.schema.json", A_SCHEMA)
    write(
        specs, "b.schema.json", {"type": "object", "properties": {"p": {"$ref": ref}}}
    )
    result = compiled(specs)
    assert result.files is not None, errors(result)
    B = model(tmp_path, result.files, "b", "B", import_package)
    assert B.model_validate({"p": good}).model_dump(exclude_none=True) == {"p": good}
    with pytest.raises(ValidationError):
        B.model_validate({"p": bad})


# A relative root `$id` resolves against the spec file's own URI (JSON Schema 2020-12 §8.2.1, the retrieval URI),
# so the relative references beside it still name files of the tree.


@pytest.mark.parametrize("root_id", ["test", "test.json", "sub/../order#"])
def test_a_relative_root_id_keeps_sibling_refs_in_the_tree(
    tmp_path: Path, import_package: Any, root_id: str
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "order.schema.json",
        {
            "$id": root_id,
            "type": "object",
            "allOf": [{"$ref": "base.json#/definitions/first"}],
            "properties": {"zip": {"$ref": "sub/codes.yaml#/definitions/zip"}},
        },
    )
    write(
        specs,
        "base.json",
        {
            "$id": "base.json",
            "definitions": {
                "first": {"$ref": "#/definitions/second"},
                "second": {"type": "object", "required": ["second"]},
            },
        },
    )
    write(specs, "sub/codes.yaml", CODES_YAML)
    result = compiled(specs)
    assert result.files is not None, errors(result)
    Order = model(tmp_path, result.files, "order", "Order", import_package)
    Order.model_validate({"second": 1, "zip": "12345"})
    for bad in ({"zip": "12345"}, {"second": 1, "zip": "1"}):
        with pytest.raises(ValidationError):
            Order.model_validate(bad)


def test_a_ref_to_the_root_by_its_relative_id_stays_in_the_document(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "node.schema.json",
        {
            "$id": "node",
            "type": "object",
            "properties": {"next": {"$ref": "node"}, "v": {"type": "integer"}},
        },
    )
    result = compiled(specs)
    assert result.files is not None, errors(result)
    Node = model(tmp_path, result.files, "node", "Node", import_package)
    Node.model_validate({"next": {"next": {"v": 1}}})
    with pytest.raises(ValidationError):
        Node.model_validate({"next": {"v": "x"}})


def test_a_ref_to_another_entity_by_its_relative_id_embeds_it(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(specs, "a.schema.json", {"$id": "item", "type": "integer", "minimum": 1})
    write(
        specs,
        "b.schema.json",
        {"type": "object", "properties": {"p": {"$ref": "item"}}},
    )
    result = compiled(specs)
    assert result.files is not None, errors(result)
    B = model(tmp_path, result.files, "b", "B", import_package)
    assert B.model_validate({"p": 2}).model_dump() == {"p": 2}
    with pytest.raises(ValidationError):
        B.model_validate({"p": 0})


def test_data_under_an_unknown_keyword_is_no_loop(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    schema = {
        "type": "object",
        "x-a": {"$ref": "#/x-a"},
        "x-b": {"anyOf": [{"$ref": "#/x-b"}]},
        "$defs": {"N": {"type": "integer"}},
        "properties": {"n": {"$ref": "#/$defs/N"}},
    }
    write(specs, "thing.schema.json", schema)
    result = compiled(specs)
    assert result.files is not None, errors(result)
    Thing = model(tmp_path, result.files, "thing", "Thing", import_package)
    assert Thing.model_validate({"n": 1}).n == 1


def test_a_ref_under_an_unknown_keyword_is_not_rewritten_with_a_real_one(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(specs, "item.schema.json", {"type": "integer"})
    schema = {
        "type": "object",
        "x-note": {"$ref": "item.schema.json"},
        "properties": {"i": {"$ref": "item.schema.json"}},
    }
    write(specs, "thing.schema.json", schema)
    result = compiled(specs)
    assert result.files is not None, errors(result)
    thing = json.loads(result.files["thing.schemas.json"])["THING_SCHEMA"]
    assert '"x-note": {"$ref": "item.schema.json"}' in json.dumps(thing)
    Thing = model(tmp_path, result.files, "thing", "Thing", import_package)
    with pytest.raises(ValidationError):
        Thing.model_validate({"i": "s"})


def test_specs_finding_each_other_by_ids_from_the_root_still_compile(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "a.schema.json",
        {"$id": "/v1/core/a.json", "type": "object", "required": ["x"]},
    )
    write(
        specs,
        "sub/b.schema.json",
        {"$id": "/v1/sub/b.json", "allOf": [{"$ref": "/v1/core/a.json"}]},
    )
    result = compiled(specs)
    assert result.files is not None, errors(result)
