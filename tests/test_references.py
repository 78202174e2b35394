"""References beyond one file: remote documents through the ref-map (never the network), spec entities by their
`$id`, every reference resolved at compile time, and the bundled result self-contained and exact.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from test_bad_input import run_cli, write

from codegen.compiler import CompileResult, compile_specs
from codegen.writer import write_output

REMOTE = "https://schemas.example.test/v1/"


def compiled(specs: Path, ref_map: dict[str, Path] | None = None) -> CompileResult:
    return compile_specs([specs], ref_map=ref_map)


def codes(result: CompileResult) -> list[tuple[str, str]]:
    return [
        (Path(d.span.source.display).name if d.span else "", d.code)
        for d in result.diagnostics.sorted()
    ]


def messages(result: CompileResult) -> str:
    return "\n".join(d.render() for d in result.diagnostics.sorted())


def entity_model(
    tmp_path: Path, files: dict[str, str], module: str, cls: str, import_package: Any
) -> Any:
    out = tmp_path / f"refs_{abs(hash((module, cls, str(tmp_path))))}"
    write_output(out, files)
    package = import_package(out, out.name)
    return getattr(__import__(f"{package.__name__}.{module}", fromlist=[cls]), cls)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    folder = tmp_path / "remote"
    write(
        folder,
        "thing.json",
        {
            "$defs": {"s": {"type": "string"}},
            "anyOf": [{"$ref": "#/$defs/s"}, {"$ref": "sub/number.json"}],
        },
    )
    write(folder, "sub/number.json", {"type": "integer", "minimum": 5})
    return folder


# -- remote documents through the map ----------------------------------------------------------------------------


def test_a_mapped_remote_document_is_bundled_and_enforced(
    tmp_path: Path, remote: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "Box.schema.json",
        {
            "title": "Box",
            "type": "object",
            "properties": {"v": {"$ref": REMOTE + "thing.json"}},
        },
    )
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    emitted = json.loads(result.files["schemas/entities/Box.json"])
    # self-contained: jsonschema is given nothing to fetch from, and agrees with the model
    validator = jsonschema.Draft202012Validator(emitted)
    Box = entity_model(tmp_path, result.files, "box", "Box", import_package)
    for value, valid in (
        ("x", True),
        (7, True),
        (4, False),
        (None, False),
        (5.0, True),
    ):
        assert validator.is_valid({"v": value}) is valid, value
        try:
            Box.model_validate({"v": value})
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted is valid, value
    assert sorted(emitted["$defs"]) == ["Number", "Thing"]
    assert emitted["properties"]["v"] == {
        "$ref": "#/$defs/Thing"
    }  # plain pointers (below)


def test_an_unmapped_remote_reference_says_how_to_map_it(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": REMOTE + "a.json"}},
            },
        },
    )
    result = compiled(specs)
    assert codes(result) == [("t.json", "ref-remote")]
    text = messages(result)
    assert "--ref-map" in text and "ref-map = {" in text and "never fetches" in text


def test_a_relative_reference_against_an_id_reaches_the_map(
    tmp_path: Path, remote: Path
) -> None:
    """`base.json#/definitions/path` relative to a remote `$id` used to be deferred to run time (and reject every
    instance); now it is bundled when mapped, and a diagnostic when not."""
    specs = tmp_path / "specs"
    schema = {
        "$id": REMOTE + "box.json",
        "title": "Box",
        "type": "object",
        "properties": {
            "v": {"$ref": "sub/number.json"},
            "w": {"$ref": "missing.json#/definitions/path"},
        },
    }
    write(specs, "Box.schema.json", schema)
    result = compiled(specs, {REMOTE: remote})
    assert codes(result) == [("Box.schema.json", "ref-remote")]
    assert "missing.json" in messages(result) and "does not exist" in messages(result)


@pytest.mark.parametrize(
    "ref",
    [
        "../outside.json",
        "sub/../../outside.json",
        "%2e%2e/outside.json",
        "sub/%2E%2E/%2e%2e/outside.json",
        "sub%2F..%2F..%2Foutside.json",
        "sub//number.json",
        "sub/number.json?x=1",
        "sub\\number.json",
        "%00.json",
    ],
)
def test_a_url_that_would_leave_the_mapped_folder_is_refused(
    tmp_path: Path, remote: Path, ref: str
) -> None:
    write(tmp_path, "outside.json", {"type": "string"})
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": REMOTE + ref}},
            },
        },
    )
    result = compiled(specs, {REMOTE + "": remote})
    assert ("t.json", "ref-remote") in codes(result), messages(result)
    assert result.files is None


def test_links_inside_the_mapped_folder_are_not_followed(
    tmp_path: Path, remote: Path
) -> None:
    write(tmp_path, "secret/doc.json", {"type": "string"})
    os.symlink(tmp_path / "secret" / "doc.json", remote / "file-link.json")
    os.symlink(tmp_path / "secret", remote / "folder-link")
    specs = tmp_path / "specs"
    for name, target in (
        ("a.json", "file-link.json"),
        ("b.json", "folder-link/doc.json"),
    ):
        write(
            specs,
            name,
            {
                "name": name[0],
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"$ref": REMOTE + target}},
                },
            },
        )
    result = compiled(specs, {REMOTE: remote})
    assert codes(result) == [
        ("a.json", "ref-remote"),
        ("b.json", "ref-remote"),
    ], messages(result)


def test_a_broken_remote_document_is_reported_in_that_document(
    tmp_path: Path, remote: Path
) -> None:
    (remote / "broken.json").write_text('{"type": "string",}')
    (remote / "deep.json").write_text("[" * 300 + "]" * 300)
    write(remote, "invalid.json", {"type": "strung"})
    specs = tmp_path / "specs"
    for stem in ("broken", "deep", "invalid"):
        write(
            specs,
            f"{stem}_tool.json",
            {
                "name": stem,
                "parameters": {
                    "type": "object",
                    "properties": {"a": {"$ref": f"{REMOTE}{stem}.json"}},
                },
            },
        )
    result = compiled(specs, {REMOTE: remote})
    assert result.files is None
    found = set(codes(result))
    assert {
        ("broken.json", "json-syntax"),
        ("deep.json", "too-deep"),
        ("invalid.json", "invalid-schema"),
    } <= found
    assert not any(name.endswith("_tool.json") for name, _ in found), messages(
        result
    )  # reported once


def test_documents_referring_to_each_other_in_a_cycle(
    tmp_path: Path, import_package: Any
) -> None:
    remote = tmp_path / "remote"
    write(remote, "a.json", {"type": "object", "properties": {"b": {"$ref": "b.json"}}})
    write(
        remote,
        "b.json",
        {
            "type": "object",
            "properties": {"a": {"$ref": "a.json"}, "n": {"type": "integer"}},
        },
    )
    specs = tmp_path / "specs"
    write(specs, "Top.schema.json", {"title": "Top", "$ref": REMOTE + "a.json"})
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    emitted = json.loads(result.files["schemas/entities/Top.json"])
    assert sorted(emitted["$defs"]) == ["A", "B"]
    Top = entity_model(tmp_path, result.files, "top", "Top", import_package)
    Top.model_validate({"b": {"a": {"b": {"n": 1}}}})
    with pytest.raises(ValidationError):
        Top.model_validate({"b": {"a": {"b": {"n": "x"}}}})


def test_a_document_read_by_another_url_than_its_id(tmp_path: Path) -> None:
    """A `$ref` by the URL a document was read from is rewritten to the document's own `$id` (kept, as the
    document has an anchor)."""
    remote = tmp_path / "remote"
    write(
        remote,
        "alias.json",
        {
            "$id": "urn:example:real",
            "$defs": {"s": {"$anchor": "s", "type": "string"}},
            "$ref": "#/$defs/s",
        },
    )
    specs = tmp_path / "specs"
    write(
        specs,
        "S.schema.json",
        {
            "title": "S",
            "type": "object",
            "properties": {"a": {"$ref": REMOTE + "alias.json"}},
        },
    )
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    emitted = json.loads(result.files["schemas/entities/S.json"])
    assert emitted["properties"]["a"] == {"$ref": "urn:example:real"}
    validator = jsonschema.Draft202012Validator(emitted)
    assert validator.is_valid({"a": "x"}) and not validator.is_valid({"a": 1})


# -- spec files by `$id` -------------------------------------------------------------------------------------


def test_id_based_references_between_spec_files(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "a/A.schema.json",
        {
            "$id": "https://example.test/s/a.json",
            "title": "A",
            "type": "object",
            "properties": {
                "b": {"$ref": "b.json"},
                "n": {"$ref": "b.json#/properties/n"},
            },
            "required": ["b"],
        },
    )
    write(
        specs,
        "b/B.schema.json",
        {
            "$id": "https://example.test/s/b.json",
            "title": "B",
            "type": "object",
            "properties": {"n": {"type": "integer"}},
        },
    )
    write(
        specs,
        "tools.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"b": {"$ref": "https://example.test/s/b.json"}},
            },
        },
    )
    result = compiled(specs)
    assert result.files is not None, messages(result)
    assert (
        "    b: B | None = None" in result.files["tools.py"]
    )  # a tool reaches it by `$id` too
    A = entity_model(tmp_path, result.files, "a.a", "A", import_package)
    a = A.model_validate({"b": {"n": 1}, "n": 2})
    assert type(a.b).__name__ == "B"  # the entity's model, not a loose value
    for bad in ({"b": {"n": "x"}}, {"b": {}, "n": 1.5}):
        with pytest.raises(ValidationError):
            A.model_validate(bad)


# -- every reference resolves at compile time --------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#nope"}}},
        {
            "$id": "https://example.test/x.json",
            "type": "object",
            "properties": {"a": {"$ref": "#nope"}},
        },
        {
            "$id": "https://example.test/x.json",
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/missing"}},
        },
        {
            "$id": "https://example.test/x.json",
            "type": "object",
            "$defs": {"i": {"$id": "inner.json", "$anchor": "here"}},
            "properties": {"a": {"$ref": "x.json#here"}},
        },
        {
            "type": "object",
            "$defs": {"i": {"$id": "urn:example:inner"}},
            "properties": {"a": {"$ref": "urn:example:other"}},
        },
        {
            "type": "object",
            "properties": {"a": {"$dynamicRef": "#nowhere"}},
            "$defs": {"x": {"$anchor": "x"}},
        },
    ],
)
def test_a_reference_to_nothing_is_a_diagnostic_at_the_ref(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    specs = tmp_path / "specs"
    text = json.dumps({"title": "E", **schema}, indent=1)
    write(specs, "E.schema.json", text)
    result = compiled(specs)
    assert result.files is None
    [diagnostic] = [d for d in result.diagnostics.sorted() if d.severity == "error"]
    assert diagnostic.code in ("ref-unresolved", "ref-remote")
    assert diagnostic.span is not None
    line = text.splitlines()[diagnostic.span.line - 1]
    assert line[diagnostic.span.col - 1 :].startswith('"#') or line[
        diagnostic.span.col - 1 :
    ].startswith('"')
    assert "$ref" in line or "$dynamicRef" in line


def test_references_that_resolve_inside_embedded_resources_compile(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "E.schema.json",
        {
            "title": "E",
            "$id": "https://example.test/e.json",
            "type": "object",
            "$defs": {"i": {"$id": "inner/", "$anchor": "here", "type": "integer"}},
            "properties": {
                "a": {"$ref": "inner/#here"},
                "b": {"$ref": "inner/"},
                "c": {"$ref": "#/$defs/i"},
            },
        },
    )
    result = compiled(specs)
    assert result.files is not None, messages(result)


# -- a recursive `$ref` with a default -------------------------------------------------------------------------------


def test_a_recursive_reference_with_a_default_does_not_recurse_forever(
    tmp_path: Path, import_package: Any
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "Node.schema.json",
        {
            "title": "Node",
            "type": "object",
            "properties": {"child": {"$ref": "#", "default": {}}},
        },
    )
    result = compiled(specs)
    assert result.files is not None
    Node = entity_model(tmp_path, result.files, "node", "Node", import_package)
    assert (
        Node.model_validate({}).child is None
    )  # a default containing itself is not applied
    assert Node.model_validate_json("{}").model_dump() == {}
    nested = Node.model_validate({"child": {"child": {}}})
    assert nested.model_dump() == {"child": {"child": {}}}
    assert type(nested.child).__name__ == "Node"


# -- configuration: the command line and pyproject.toml --------------------------------------------------------------


def _remote_tool(tmp_path: Path) -> None:
    write(tmp_path / "remote", "n.json", {"type": "integer"})
    write(
        tmp_path / "specs",
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": REMOTE + "n.json"}},
            },
        },
    )


def test_the_ref_map_flag(tmp_path: Path) -> None:
    _remote_tool(tmp_path)
    run = run_cli("specs", "-o", "out", "--ref-map", f"{REMOTE}=remote", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    schema = json.loads((tmp_path / "out" / "schemas" / "t.json").read_text())
    assert schema["inputSchema"]["$defs"]["N"] == {"type": "integer"}
    unmapped = run_cli("specs", "-o", "out2", cwd=tmp_path)
    assert unmapped.returncode == 1 and "error[ref-remote]" in unmapped.stderr
    for bad in (
        f"{REMOTE}",
        "ftp://x/=remote",
        "https://example.test/v1=remote",
        f"{REMOTE}=nowhere",
    ):
        run = run_cli("specs", "-o", "out3", "--ref-map", bad, cwd=tmp_path)
        assert run.returncode != 0 and "--ref-map takes URL=FOLDER" in run.stderr, bad


def test_the_ref_map_setting(tmp_path: Path) -> None:
    _remote_tool(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.codegen]\nspecs = ["specs"]\noutput = "out"\nref-map = {{"{REMOTE}" = "remote"}}\n'
    )
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    # a changed remote document is read again: the rebuild record is not used with a map
    write(tmp_path / "remote", "n.json", {"type": "string"})
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    schema = json.loads((tmp_path / "out" / "schemas" / "t.json").read_text())
    assert schema["inputSchema"]["$defs"]["N"]["type"] == "string"


@pytest.mark.parametrize(
    "table, wrong",
    [
        ('{"ftp://example.test/" = "remote"}', "is not a URL prefix"),
        ('{"https://example.test" = "remote"}', "is not a URL prefix"),
        (f'{{"{REMOTE}" = "nowhere"}}', "is not a folder"),
        (f'{{"{REMOTE}" = 3}}', "is not a folder"),
    ],
)
def test_a_wrong_ref_map_setting_points_into_pyproject(
    tmp_path: Path, table: str, wrong: str
) -> None:
    _remote_tool(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.codegen]\nspecs = ["specs"]\noutput = "out"\nref-map = {table}\n'
    )
    run = run_cli(cwd=tmp_path)
    assert run.returncode != 0
    assert (
        "pyproject.toml:4:1: error[config]: [tool.codegen] ref-map" in run.stderr
        and wrong in run.stderr
    )


# -- exactness: bundled documents mean what they meant, by property ----------------------------------------------------

_LEAF = st.sampled_from(
    [
        {"type": "integer"},
        {"type": "string"},
        {"minimum": 3},
        {"maxLength": 2},
        {"type": "array", "items": {"type": "integer"}},
        True,
        False,
    ]
)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(
    left=_LEAF,
    right=_LEAF,
    combine=st.sampled_from(["allOf", "anyOf", "oneOf"]),
    by_anchor=st.booleans(),
    values=st.lists(_VALUES, max_size=8),
)
def test_bundled_remote_documents_agree_with_jsonschema_reading_the_originals(
    tmp_path_factory: pytest.TempPathFactory,
    left: Any,
    right: Any,
    combine: str,
    by_anchor: bool,
    values: list[Any],
) -> None:
    """The remote documents as `jsonschema` reads them from a registry, against the models of the bundle
    (embedded as plain pointers, or, reached by an anchor, as resources with their `$id`).
    """
    from referencing import Registry, Resource

    tmp_path = tmp_path_factory.mktemp("prop")
    remote = tmp_path / "remote"
    documents = {
        "left.json": {
            "$defs": {"x": {"$anchor": "x", "allOf": [left]} if by_anchor else left},
            "$ref": "#/$defs/x",
        },
        "right.json": {
            combine: [{"$ref": "left.json#x" if by_anchor else "left.json"}, right]
        },
    }
    for name, document in documents.items():
        write(remote, name, document)
    top = {
        "title": "Top",
        "type": "object",
        "properties": {"v": {"$ref": REMOTE + "right.json"}},
    }
    specs = tmp_path / "specs"
    write(specs, "Top.schema.json", top)
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    registry = Registry().with_resources(
        (
            REMOTE + name,
            Resource.from_contents(
                document,
                default_specification=__import__(
                    "referencing.jsonschema"
                ).jsonschema.DRAFT202012,
            ),
        )
        for name, document in documents.items()
    )
    original = jsonschema.Draft202012Validator(top, registry=registry)
    bundled = jsonschema.Draft202012Validator(
        json.loads(result.files["schemas/entities/Top.json"])
    )
    out = tmp_path / "prop_pkg"
    write_output(out, result.files)
    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        Top = importlib.import_module("prop_pkg.top").Top
        for value in values:
            expected = original.is_valid({"v": value})
            assert bundled.is_valid({"v": value}) is expected
            try:
                Top.model_validate({"v": value})
                accepted = True
            except ValidationError:
                accepted = False
            assert accepted is expected, (value, left, right, combine)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [
            m for m in sys.modules if m == "prop_pkg" or m.startswith("prop_pkg.")
        ]:
            del sys.modules[name]


def test_an_unknown_unmapped_meta_schema_is_a_warning_and_a_mapped_one_is_read(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    meta = "https://meta.example.test/m/"
    schema = {
        "$schema": meta + "no-validation.json",
        "title": "V",
        "type": "object",
        "properties": {"n": {"minimum": 10}},
    }
    write(specs, "V.schema.json", schema)
    result = compiled(specs)
    assert result.files is not None
    assert codes(result) == [("V.schema.json", "unknown-dialect")]
    assert "read as draft 2020-12" in messages(result)
    folder = tmp_path / "meta"
    vocab = "https://json-schema.org/draft/2020-12/vocab/"
    write(
        folder,
        "no-validation.json",
        {
            "$id": meta + "no-validation.json",
            "$vocabulary": {vocab + "core": True, vocab + "applicator": True},
        },
    )
    result = compiled(specs, {meta: folder})
    assert result.files is not None and codes(result) == [], messages(result)
    emitted = json.loads(result.files["schemas/entities/V.json"])
    # without the validation vocabulary, `type` and `minimum` only annotate: the export says so by leaving them out
    assert emitted["properties"] == {"n": {}} and "type" not in emitted
    write(
        folder,
        "no-validation.json",
        {"$vocabulary": {vocab + "core": True, "https://example.test/vocab/x": True}},
    )
    result = compiled(specs, {meta: folder})
    assert codes(result) == [("V.schema.json", "unsupported-keyword")]


def test_a_pointer_into_a_remote_document_that_is_not_there(
    tmp_path: Path, remote: Path
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": REMOTE + "thing.json#/$defs/missing"}},
            },
        },
    )
    result = compiled(specs, {REMOTE: remote})
    assert codes(result) == [("t.json", "ref-unresolved")], messages(result)


def test_plain_remote_documents_become_pointers_and_typed_fields(
    tmp_path: Path, remote: Path
) -> None:
    """Documents with no anchors or inner `$id`s lose their `$id` once embedded: references are `#/$defs/...`
    pointers, so the field is typed and LLM exports need no URI resolution."""
    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {"a": {"$ref": REMOTE + "thing.json"}},
                "required": ["a"],
            },
        },
    )
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    assert "a: str | int" in result.files["t.py"]
    schema = json.loads(result.files["schemas/t.json"])["inputSchema"]
    assert schema["properties"]["a"] == {"$ref": "#/$defs/Thing"}
    assert "$id" not in json.dumps(schema)


def test_a_bundled_package_passes_mypy_strict_and_black(
    tmp_path: Path, remote: Path
) -> None:
    from test_typecheck import _black, _mypy

    specs = tmp_path / "specs"
    write(
        specs,
        "t.json",
        {
            "name": "t",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"$ref": REMOTE + "thing.json"},
                    "b": {"$ref": "B.schema.json"},
                },
                "required": ["a"],
            },
        },
    )
    write(
        specs,
        "B.schema.json",
        {
            "$id": "https://example.test/b.json",
            "title": "B",
            "type": "object",
            "properties": {
                "c": {"$ref": REMOTE + "sub/number.json"},
                "d": {"$ref": "#/properties/c"},
            },
        },
    )
    result = compiled(specs, {REMOTE: remote})
    assert result.files is not None, messages(result)
    out = tmp_path / "mypy_pkg" / "bundled_pkg"
    write_output(out, result.files)
    _mypy(tmp_path, out)
    _black(out)
