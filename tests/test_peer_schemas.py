"""Classes of real-world JSON Schema documents (found in a peer generator's test suite) that must compile.

Each test is a small input of our own showing one class; none is a copy of the peer's files.
"""

from __future__ import annotations

from pathlib import Path

from test_bad_input import write

from codegen.compiler import compile_specs


def _errors(specs: Path, ref_map: dict[str, Path] | None = None) -> list[str]:
    result = compile_specs([specs], ref_map=ref_map)
    return [d.render() for d in result.diagnostics.sorted() if d.severity == "error"]


def test_siblings_of_a_root_id_url_mapped_onto_the_specs_tree_are_documents(
    tmp_path: Path,
) -> None:
    """A spec whose root `$id` is a URL refers to its siblings by relative path; mapping that URL's folder onto
    the specs tree reads them as JSON Schema documents, so they are not also compiled as tool files.
    """
    specs = tmp_path / "specs"
    base = "https://example.com/things/"
    write(
        specs,
        "person.schema.json",
        {
            "$id": base + "person.json",
            "type": "object",
            "properties": {
                "pet": {"$ref": "defs/pet.json"},
                "food": {"$ref": "defs/food.json#/$defs/soup"},
            },
        },
    )
    write(
        specs,
        "defs/pet.json",
        {"$id": base + "defs/pet.json", "allOf": [{"$ref": "fur.json"}]},
    )
    write(specs, "defs/fur.json", {"type": "object", "required": ["colour"]})
    write(specs, "defs/food.json", {"$defs": {"soup": {"type": "string"}}})
    assert _errors(specs, {base: specs}) == []
