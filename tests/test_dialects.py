"""JSON Schema dialects by `$schema`: each document means what its own dialect says, lowered to 2020-12.

Unit tests pin each rewrite (and that keywords are only recognised in schema positions); the differential test
compiles, per dialect, hand-written schemas that use every rewritten keyword and every schema of the official
suite for that dialect, and checks the models against `jsonschema`'s validator for the dialect on drawn,
mutated and the suite's own instances.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from instances import variants
from oracle import model_accepts
from test_conformance import Group, compiled_suite, load_groups
from test_properties import drawn, mutations

from codegen.diagnostics import Diagnostics, SourceFile
from codegen.frontends.json.dialects import DRAFT2020, dialect_named, lower_document
from codegen.frontends.json.parse import parse_json
from codegen.frontends.json.tools import load_tool_file
from codegen.ir import to_plain
from conftest import compile_result

DRAFT4 = "http://json-schema.org/draft-04/schema#"
DRAFT6 = "http://json-schema.org/draft-06/schema#"
DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT2020_URI = "https://json-schema.org/draft/2020-12/schema"

# Draft-04's `integer` is Python's `int` in `jsonschema` (1.0 is not one); codegen reads JSON numbers by their
# value in every dialect (1.0 == 1, as the JSON data model and draft-06 on say). The one deliberate difference.
_INTEGER = jsonschema.Draft6Validator.TYPE_CHECKER
Draft4ByValue = jsonschema.validators.extend(
    jsonschema.Draft4Validator,
    type_checker=jsonschema.Draft4Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: _INTEGER.is_type(value, "integer")
    ),
)
ORACLES: dict[str, Any] = {
    DRAFT4: Draft4ByValue,
    DRAFT6: jsonschema.Draft6Validator,
    DRAFT7: jsonschema.Draft7Validator,
    DRAFT2019: jsonschema.Draft201909Validator,
}
SUITE_FOLDERS = {DRAFT4: "draft4", DRAFT7: "draft7", DRAFT2019: "draft2019-09"}
# The suite has no draft-06 folder: draft-07's schemas, read as draft-06 (its verdicts then do not apply, and
# `if`/`then`/`else` mean nothing), are checked against Draft6Validator alone.
BORROWED = {DRAFT6: "draft7"}


def source_of(path: Path, text: str) -> SourceFile:
    return SourceFile(path, path.name, Path(path.name), text)


def lowered(schema: Any) -> tuple[Any, list[str]]:
    """(the 2020-12 document, the diagnostics' codes) for a schema given as plain data."""
    diags = Diagnostics()
    source = source_of(Path("s.schema.json"), json.dumps(schema))
    doc = lower_document(parse_json(source, diags), diags)
    plain = None if doc is None else to_plain(doc)
    if isinstance(plain, dict) and dialect_named(plain.get("$schema")) is not DRAFT2020:
        # the root keeps the `$schema` it was read in (test below); the rest is what these tests look at
        del plain["$schema"]
    return plain, [d.code for d in diags.sorted()]


def test_a_lowered_root_keeps_the_schema_it_was_read_in() -> None:
    # Documents it refers to that name no dialect are read in its dialect (passes/bundle.py); resolve.py
    # emits every document without `$schema`.
    diags = Diagnostics()
    source = source_of(
        Path("s.schema.json"), json.dumps({"$schema": DRAFT4, "type": "integer"})
    )
    doc = lower_document(parse_json(source, diags), diags)
    assert to_plain(doc) == {"$schema": DRAFT4, "type": "integer"} and not len(diags)


# -- the rewrites ------------------------------------------------------------------------------------------


def test_a_document_without_schema_is_2020_12() -> None:
    schema = {"type": "object", "prefixItems": [{"type": "integer"}]}
    assert lowered(schema) == (schema, [])


def test_draft4_id_bounds_and_const() -> None:
    doc, codes = lowered(
        {
            "$schema": DRAFT4,
            "id": "http://example.test/a.json",
            "properties": {
                "id": {
                    "type": "integer"
                },  # a property named `id`: a name, not a keyword
                "n": {"maximum": 5, "exclusiveMaximum": True},
                "m": {"minimum": 1, "exclusiveMinimum": False},
                "c": {"const": 3},  # no keyword of draft-04
            },
            "definitions": {"a": {"id": "#here", "type": "string"}},
        }
    )
    assert doc == {
        "$id": "http://example.test/a.json",
        "properties": {
            "id": {"type": "integer"},
            "n": {"exclusiveMaximum": 5},
            "m": {"minimum": 1},
            "c": {},
        },
        "definitions": {"a": {"$anchor": "here", "type": "string"}},
    }
    assert codes == ["dialect-keyword"]


def test_tuple_items_dependencies_and_pointers_through_them() -> None:
    doc, _ = lowered(
        {
            "$schema": DRAFT7,
            "items": [{"type": "integer"}, {"$ref": "#/items/0"}],
            "additionalItems": {"$ref": "#/dependencies/b"},
            "dependencies": {"a": ["b"], "b": {"required": ["c"]}},
        }
    )
    assert doc == {
        "prefixItems": [{"type": "integer"}, {"$ref": "#/prefixItems/0"}],
        "items": {"$ref": "#/dependentSchemas/b"},
        "dependentRequired": {"a": ["b"]},
        "dependentSchemas": {"b": {"required": ["c"]}},
    }


def test_additional_items_beside_a_schema_items_is_ignored() -> None:
    doc, _ = lowered(
        {"$schema": DRAFT7, "items": {"type": "integer"}, "additionalItems": False}
    )
    assert doc == {"items": {"type": "integer"}}


def test_keywords_beside_ref_are_ignored_before_2019_09_only() -> None:
    schema = {
        "$ref": "#/definitions/a",
        "type": "string",
        "$id": "http://example.test/b.json",
        "description": "kept",
        "definitions": {"a": {"type": "integer"}},
    }
    doc, codes = lowered({"$schema": DRAFT7, **schema})
    assert doc == {
        "$ref": "#/definitions/a",
        "description": "kept",
        "definitions": {"a": {"type": "integer"}},
    }
    assert codes == ["ref-sibling", "ref-sibling"]
    doc, codes = lowered({"$schema": DRAFT2019, **schema})
    assert doc == schema and codes == []


def test_draft6_has_no_if_then_else() -> None:
    doc, codes = lowered({"$schema": DRAFT6, "if": {"type": "string"}, "then": False})
    assert doc == {} and codes == ["dialect-keyword", "dialect-keyword"]


def test_an_annotation_of_another_shape_is_ignored_not_refused() -> None:
    """`"examples": "<string>"` in a draft-07 configuration schema (SchemaStore's utcm-monitor): the instances
    the document accepts are the same with or without it, so it is dropped with a warning."""
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "examples": "<string>"}},
        "$defs": {"b": {"description": 5, "readOnly": "yes", "title": "B"}},
    }
    doc, codes = lowered({"$schema": DRAFT7, **schema})
    assert doc["properties"]["a"] == {"type": "string"}
    assert doc["$defs"]["b"] == {"title": "B"}
    assert codes == ["annotation-ignored"] * 3


def test_recursive_ref_becomes_a_dynamic_ref_only_under_a_recursive_anchor() -> None:
    doc, _ = lowered(
        {
            "$schema": DRAFT2019,
            "$recursiveAnchor": True,
            "properties": {"child": {"$recursiveRef": "#"}},
        }
    )
    assert doc == {
        "$dynamicAnchor": "recursiveAnchor",
        "properties": {"child": {"$dynamicRef": "#recursiveAnchor"}},
    }
    doc, _ = lowered(
        {"$schema": DRAFT2019, "properties": {"child": {"$recursiveRef": "#"}}}
    )
    assert doc == {"properties": {"child": {"$ref": "#"}}}


def test_an_unknown_dialect_is_read_as_2020_12_with_a_warning() -> None:
    schema = {"$schema": "my-dialect", "type": "string"}
    assert lowered(schema) == (schema, ["unknown-dialect"])
    draft3 = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"}
    assert lowered(draft3) == (draft3, ["unknown-dialect"])
    # a meta-schema by URL is the bundler's: read through the ref-map, or a warning there (test_references.py)
    custom = {"$schema": "http://example.test/my-dialect", "type": "string"}
    assert lowered(custom) == (custom, [])


# -- schema positions only (the false refusals) ------------------------------------------------------------


def test_old_keyword_names_outside_schema_positions_are_no_keywords() -> None:
    schema = {
        "type": "object",
        "properties": {"dependencies": {"type": "array"}, "additionalItems": {}},
        "$defs": {"dependencies": {"type": "string"}},
        "defaultSnippets": [{"body": {"items": []}}],
        "default": {"items": [], "dependencies": {}},
    }
    assert lowered(schema) == (schema, [])


def test_old_keywords_in_a_2020_12_document_are_refused_with_a_hint() -> None:
    diags = Diagnostics()
    source = source_of(
        Path("s.schema.json"),
        json.dumps({"properties": {"a": {"items": [{}]}}, "$schema": DRAFT2020_URI}),
    )
    assert lower_document(parse_json(source, diags), diags) is None
    (diagnostic,) = diags.sorted()
    assert diagnostic.code == "unsupported-keyword"
    assert "prefixItems" in diagnostic.message and "$schema" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.col) == (1, 23)  # at `"items"`


# -- a document without `$schema` in the one earlier dialect its keywords belong to --------------------------


@pytest.mark.parametrize(
    ("schema", "dialect", "keyword"),
    [
        (
            {"properties": {"a": {"items": [{}], "additionalItems": False}}},
            DRAFT7,
            "items",
        ),
        ({"additionalItems": False, "items": {}}, DRAFT7, "additionalItems"),
        ({"dependencies": {"a": ["b"]}, "if": {}, "then": {}}, DRAFT7, "dependencies"),
        ({"$id": "#point", "type": "object"}, DRAFT7, "$id"),
        ({"minimum": 0, "exclusiveMinimum": True}, DRAFT4, "exclusiveMinimum"),
        ({"items": [{}], "unevaluatedItems": False}, DRAFT2019, "items"),
        ({"$recursiveRef": "#", "type": "object"}, DRAFT2019, "$recursiveRef"),
    ],
)
def test_a_document_without_schema_in_an_earlier_dialects_form_is_read_in_it(
    schema: dict[str, Any], dialect: str, keyword: str
) -> None:
    """It used to be refused (read as 2020-12, which these forms are not); the warning names the keyword."""
    diags = Diagnostics()
    text = json.dumps(schema)
    doc = lower_document(
        parse_json(source_of(Path("s.schema.json"), text), diags), diags
    )
    declared = lower_document(
        parse_json(
            source_of(
                Path("d.schema.json"), json.dumps({**schema, "$schema": dialect})
            ),
            Diagnostics(),
        ),
        Diagnostics(),
    )
    assert doc is not None and declared is not None
    assert to_plain(doc) == {
        k: v for k, v in to_plain(declared).items() if k != "$schema"
    }
    (warning,) = diags.sorted()
    assert (warning.code, warning.severity) == ("dialect-guessed", "warning")
    assert dialect in warning.message and repr(keyword) in warning.message
    assert text[warning.span.col - 1 :].startswith(json.dumps(keyword))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "prefixItems": [{}], "$defs": {"a": {"items": {}}}},
        {
            "items": [{}],
            "prefixItems": [{}],
        },  # a 2020-12 keyword beside: no dialect has both
        {"items": [{}], "maximum": 1, "exclusiveMaximum": True, "const": 1},
        {"exclusiveMinimum": True, "minimum": 1, "$id": "http://example.test/a"},
        {"dependencies": {"a": {}}, "unevaluatedProperties": False},
        {"properties": {"items": {"type": "array"}}, "default": {"items": []}},
    ],
)
def test_a_document_whose_keywords_fit_2020_12_or_no_one_dialect_is_read_as_2020_12(
    schema: dict[str, Any],
) -> None:
    _, codes = lowered(schema)
    assert "dialect-guessed" not in codes


# -- per-tool diagnostics ----------------------------------------------------------------------------------


def _tool(name: str, items: Any) -> dict[str, Any]:
    return {
        "name": name,
        "parameters": {
            "$schema": DRAFT2020_URI,  # declared: without it, array items are read as draft-07
            "type": "object",
            "properties": {"a": {"items": items}},
        },
    }


def test_one_bad_tool_does_not_refuse_the_others_of_its_file(tmp_path: Path) -> None:
    tools = [_tool(f"tool_{i}", {"type": "integer"}) for i in range(5)]
    tools[1] = _tool("bad_one", [{"type": "integer"}])
    tools[3] = _tool("bad_two", [{"type": "string"}])
    text = json.dumps(tools, indent=1)
    diags = Diagnostics()
    module = load_tool_file(source_of(tmp_path / "tools.json", text), diags)
    assert [tool.name for tool in module.tools] == ["tool_0", "tool_2", "tool_4"]
    assert [tool.name for tool in module.dropped] == ["bad_one", "bad_two"]
    lines = [d.span.line for d in diags.sorted()]
    assert [d.code for d in diags.sorted()] == ["unsupported-keyword"] * 2
    # each diagnostic points into its own tool
    assert text.splitlines()[lines[0] - 1].strip().startswith('"items"')
    assert lines[0] < text.index("tool_2") and lines[1] > text[
        : text.index("bad_two")
    ].count("\n")


def test_a_tool_declaring_draft_07_compiles(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "t.json").write_text(
        json.dumps(
            {
                "name": "t",
                "inputSchema": {
                    "$schema": DRAFT7,
                    "type": "object",
                    "properties": {"pair": {"items": [{"type": "integer"}]}},
                    "dependencies": {"pair": ["x"]},
                },
            }
        )
    )
    result = compile_result(specs)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]


def test_a_malformed_draft_07_schema_is_reported_where_it_is_wrong(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    text = '{"$schema": "%s",\n "dependencies": {"a": 5}}' % DRAFT7
    (specs / "E.schema.json").write_text(text)
    result = compile_result(specs)
    assert result.files is None
    errors = [d for d in result.diagnostics.sorted() if d.severity == "error"]
    assert [(d.code, d.span.line, d.span.col) for d in errors] == [
        ("invalid-schema", 2, 24)  # at the 5
    ]


# -- differential: each dialect against its own validator ---------------------------------------------------

HANDWRITTEN: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "items": [{"type": "integer"}, {"$ref": "#/properties/pair/items/0"}],
                "additionalItems": False,
            },
            "open": {
                "items": [{"type": "string"}],
                "additionalItems": {"type": "null"},
            },
            "n": {"type": "number", "maximum": 5, "minimum": 0},
            "r": {"$ref": "#/definitions/word", "maxLength": 2},
            "dependencies": {"type": "string"},
        },
        "dependencies": {"n": ["r"], "pair": {"required": ["open"]}},
        "definitions": {"word": {"type": "string", "minLength": 3}},
    },
    {
        "definitions": {"leaf": {"type": "integer"}},
        "anyOf": [
            {"$ref": "#/definitions/leaf"},
            {"type": "array", "items": {"$ref": "#"}},
        ],
    },
]
HANDWRITTEN.append(
    {  # a pointer into keywords beside `$ref` (ignored before 2019-09, but still reachable)
        "properties": {
            "a": {"$ref": "#/definitions/d", "properties": {"x": {"type": "string"}}},
            "b": {"$ref": "#/properties/a/properties/x"},
        },
        "definitions": {"d": {"type": "object"}},
    }
)
DRAFT4_ONLY = [
    {"properties": {"n": {"maximum": 5, "exclusiveMaximum": True}, "c": {"const": 1}}},
    {
        "id": "http://example.test/d4.json",
        "items": {"$ref": "#/definitions/a"},
        "definitions": {
            "a": {"id": "#a", "type": "integer", "minimum": 2, "exclusiveMinimum": True}
        },
    },
]
FROM_DRAFT6 = [
    {
        "properties": {
            "n": {"exclusiveMaximum": 5},
            "c": {"const": 1},
            "s": {"contains": {"type": "null"}},
        }
    },
    {
        "$id": "http://example.test/d6.json",
        "if": {"type": "string"},
        "then": {"minLength": 3},
    },
]
DRAFT2019_ONLY = [
    {
        "$recursiveAnchor": True,
        "type": "object",
        "properties": {"child": {"$recursiveRef": "#"}, "v": {"type": "integer"}},
        "$ref": "#/$defs/base",
        "$defs": {"base": {"required": ["v"]}},
        "unevaluatedProperties": False,
    },
]
SUBJECTS = {
    DRAFT4: HANDWRITTEN + DRAFT4_ONLY,
    DRAFT6: HANDWRITTEN + FROM_DRAFT6,
    DRAFT7: HANDWRITTEN + FROM_DRAFT6,
    DRAFT2019: HANDWRITTEN + FROM_DRAFT6 + DRAFT2019_ONLY,
}
DRAWN_PER_SCHEMA = 5


REMOTE_FILES = {"refRemote.json", "vocabulary.json", "dynamicRef.json"}


def subjects(dialect: str) -> list[Group]:
    """The hand-written schemas (with no instances of their own) and the suite's groups of the dialect."""
    name = re.sub(r"[^a-z0-9]", "", dialect.split("json-schema.org/")[1])
    groups = [
        Group(f"{name}_handwritten.json", index, "hand-written", schema, [], dialect)
        for index, schema in enumerate(SUBJECTS[dialect])
    ]
    if dialect in SUITE_FOLDERS:
        # (those that need remotes/: jsonschema here has no way to them, test_conformance serves them)
        groups += [
            group
            for group in load_groups(SUITE_FOLDERS[dialect])
            if group.file not in REMOTE_FILES
        ]
    if dialect in BORROWED:
        groups += [
            dataclasses.replace(group, dialect=dialect, verdicts=False)
            for group in load_groups(BORROWED[dialect])
            if group.file not in REMOTE_FILES
        ]
    return groups


def _float_artifact(schema: Any, instance: Any) -> bool:
    """`jsonschema` divides by a fractional `multipleOf` in floats, so an integer beyond 2**53 can pass it
    (-2**70 is "a multiple" of 1.5); the models divide exactly. Not a dialect matter: such cases are skipped.
    """
    return (
        isinstance(instance, int)
        and abs(instance) > 2**53
        and re.search(r'"multipleOf": [0-9]*\.', json.dumps(schema)) is not None
    )


def instances(group: Group) -> list[Any]:
    source = (
        {"$schema": group.dialect, **group.schema}
        if isinstance(group.schema, dict)
        else group.schema
    )
    found = [test["data"] for test in group.tests]
    if isinstance(group.schema, dict):
        generated = drawn(source)[:DRAWN_PER_SCHEMA] if not group.tests else []
        found += generated
        for seed, instance in enumerate(found[:DRAWN_PER_SCHEMA]):
            found += list(mutations(instance, seed))
        found += variants(group.schema)
    unique: dict[str, Any] = {}
    for value in found:
        if not _float_artifact(group.schema, value):
            unique.setdefault(json.dumps(value, sort_keys=True), value)
    return list(unique.values())


@pytest.mark.parametrize("dialect", sorted(SUBJECTS))
def test_models_agree_with_the_dialects_own_validator(
    dialect: str, tmp_path: Path
) -> None:
    groups = subjects(dialect)
    package = "dialect_" + re.sub(r"[^a-z0-9]", "_", dialect.split("org/")[1])
    oracle_class = ORACLES[dialect]
    checked = 0
    disagreements: list[str] = []
    untrusted: list[str] = []
    with compiled_suite(dialect, groups, tmp_path, package) as suite:
        handwritten = [g for g in groups if g.file.endswith("_handwritten.json")]
        refused = [g.stem for g in handwritten if g.stem in suite.refused]
        assert not refused, [suite.refused[stem] for stem in refused]
        for group in groups:
            model = suite.models.get(group.stem)
            if model is None:
                continue  # refused: test_conformance counts those
            source = (
                {"$schema": dialect, **group.schema}
                if isinstance(group.schema, dict)
                else group.schema
            )
            # Formats are annotations (codegen asserts `date` only where it types a string as a date).
            validator = oracle_class(source)
            if group.verdicts and any(
                validator.is_valid(t["data"]) is not t["valid"] for t in group.tests
            ):
                # `jsonschema` itself disagrees with the suite here: test_conformance holds the model to the suite
                untrusted.append(f"{group.file} #{group.index}")
                continue
            for instance in instances(group):
                expected = validator.is_valid(instance)
                checked += 1
                if model_accepts(model, instance) != expected:
                    disagreements.append(
                        f"{group.file} #{group.index}: {instance!r} should be "
                        + ("accepted" if expected else "rejected")
                    )
    print(
        f"\n{dialect}: {len(groups)} schemas, {checked} instances checked; "
        f"jsonschema disagrees with the suite on {untrusted or 'none'}"
    )
    assert len(untrusted) <= 2
    assert checked > 20 * len(groups) // 2
    assert not disagreements, "\n".join(disagreements[:20])


def test_draft4_has_no_boolean_schemas() -> None:
    doc, codes = lowered(
        {
            "$schema": DRAFT4,
            "properties": {"a": True},
            "additionalProperties": False,  # a boolean here is draft-04 too
        }
    )
    assert doc is None and codes == ["invalid-schema"]


def test_a_reference_to_an_earlier_dialects_meta_schema_embeds_it_lowered() -> None:
    doc, codes = lowered({"$ref": "http://json-schema.org/draft-07/schema#"})
    assert codes == [] and doc["$ref"] == "http://json-schema.org/draft-07/schema#"
    meta = doc["$defs"]["http://json-schema.org/draft-07/schema"]
    assert meta["$id"] == "http://json-schema.org/draft-07/schema"
    assert meta["properties"]["dependencies"]["additionalProperties"] == {
        "anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/stringArray"}]
    }
    assert "$schema" not in meta  # lowered to 2020-12, like the document
    doc, _ = lowered(
        {"$schema": DRAFT2019, "$ref": "https://json-schema.org/draft/2019-09/schema"}
    )
    assert len(doc["$defs"]) == 7  # the meta-schema and its six vocabularies
    assert doc["$defs"]["https://json-schema.org/draft/2019-09/schema"][
        "$dynamicAnchor"
    ] == ("recursiveAnchor")


def test_draft4_forms_in_a_2020_12_document_are_named() -> None:
    doc, codes = lowered(
        {"maximum": 5, "exclusiveMaximum": True, "$schema": DRAFT2020_URI}
    )
    assert doc is None and codes == ["unsupported-keyword"]
    schema = {"id": "http://example.test/x.json", "properties": {"id": {}}}
    assert lowered(schema) == (
        schema,
        ["dialect-keyword"],
    )  # a warning: `id` is ignored


def test_a_recursive_anchor_counts_only_at_a_resource_root() -> None:
    doc, _ = lowered(
        {
            "$schema": DRAFT2019,
            "properties": {"a": {"$recursiveAnchor": True, "$recursiveRef": "#"}},
        }
    )
    assert doc == {"properties": {"a": {"$ref": "#"}}}
    doc, codes = lowered({"$schema": DRAFT2019, "$recursiveRef": "#/$defs/x"})
    assert doc is None and codes == ["unsupported-keyword"]


def test_an_ignored_subschema_a_pointer_reaches_is_kept_under_an_inert_name() -> None:
    doc, codes = lowered(
        {
            "$schema": DRAFT7,
            "properties": {
                "a": {
                    "$ref": "#/definitions/d",
                    "properties": {"x": {"type": "string"}},
                },
                "b": {"$ref": "#/properties/a/properties/x"},
                "c": {"$ref": "#/definitions/d", "items": {"type": "null"}},
            },
            "definitions": {"d": {}},
        }
    )
    assert doc["properties"] == {
        "a": {
            "$ref": "#/definitions/d",
            "x-ignored-properties": {"x": {"type": "string"}},
        },
        "b": {"$ref": "#/properties/a/x-ignored-properties/x"},
        "c": {"$ref": "#/definitions/d"},  # no pointer reaches it: dropped
    }
    assert codes == ["ref-sibling", "ref-sibling"]


def test_a_yaml_tool_manifest_reads_its_schema_in_its_dialect(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "t.yaml").write_text(
        "name: pair_tool\n"
        "id: not-a-schema-keyword-here\n"
        "parameters:\n"
        f'  $schema: "{DRAFT7}"\n'
        "  type: object\n"
        "  properties:\n"
        "    pair: {items: [{type: integer}], additionalItems: false}\n"
    )
    result = compile_result(specs)
    assert result.files is not None and not result.diagnostics.sorted()
    schema = json.loads(result.files["schemas/pair_tool.json"])
    assert schema["inputSchema"]["properties"]["pair"] == {
        "prefixItems": [{"type": "integer"}],
        "items": False,
    }


# -- property: the lowering keeps the meaning ---------------------------------------------------------------
# Random documents built from every keyword the lowering touches, and random instances: `jsonschema`'s validator
# for the dialect on the source and its 2020-12 validator on the lowered document always agree.

_LEAF_SCHEMAS = st.sampled_from(
    [
        {},
        {"type": "integer"},
        {"type": "string", "maxLength": 1},
        {"minimum": 1, "maximum": 3},
        {"maximum": 2, "exclusiveMaximum": True},
        {"minimum": 0, "exclusiveMinimum": True},
        {"exclusiveMaximum": 2},
        {"const": 1},
        {"enum": [1, "a", None]},
        {"if": {"type": "integer"}, "then": {"minimum": 2}, "else": {"type": "string"}},
        {"contains": {"type": "null"}},
        {"propertyNames": {"maxLength": 1}},
        {"dependentRequired": {"a": ["b"]}},
        {"prefixItems": [{"type": "integer"}]},
        {"$ref": "#/definitions/small"},
        {"$ref": "#/definitions/small", "type": "string"},
    ]
)


def _compound(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda a, b: {"items": [a, b]}, children, children),
        st.builds(
            lambda a, b: {"items": [a], "additionalItems": b}, children, children
        ),
        st.builds(lambda a: {"items": a, "additionalItems": False}, children),
        st.builds(
            lambda a: {"properties": {"a": a}, "dependencies": {"a": ["b"]}}, children
        ),
        st.builds(lambda a: {"dependencies": {"b": a}}, children),
        st.builds(lambda a, b: {"anyOf": [a, b]}, children, children),
        st.builds(lambda a: {"not": a}, children),
        st.builds(lambda a: {"$ref": "#/definitions/small", "items": a}, children),
        st.builds(
            lambda a: {"properties": {"b": a}, "additionalProperties": a}, children
        ),
    )


_NESTED = st.recursive(_LEAF_SCHEMAS, _compound, max_leaves=6)
# At the root, also pointers through renamed keywords and 2019-09's recursive references.
_SCHEMAS = st.one_of(
    _NESTED,
    st.builds(
        lambda a, b: {"items": [a, b], "properties": {"p": {"$ref": "#/items/1"}}},
        _NESTED,
        _NESTED,
    ),
    st.builds(
        lambda a: {"dependencies": {"b": a}, "items": {"$ref": "#/dependencies/b"}},
        _NESTED,
    ),
    st.builds(
        lambda a, b: {
            "$id": "http://example.test/root.json",
            "properties": {
                "a": {
                    "$id": "sub.json",
                    "items": [a, b],
                    "definitions": {"small": {"maxLength": 2}},
                },
                "b": {"$ref": "sub.json#/items/1"},
            },
        },
        _NESTED,
        _NESTED,
    ),
    st.builds(
        lambda a: {
            "$recursiveAnchor": True,
            "anyOf": [a, {"items": {"$recursiveRef": "#"}, "maxItems": 2}],
        },
        _NESTED,
    ),
)
_LEAVES: list[Any] = [None, True, 0, 1, 1.5, 2, 3, -1, "", "a", "ab"]
# Every schema meets the same instances: all the leaves, and arrays and objects of one or two of them.
_POOL: list[Any] = [
    *_LEAVES,
    *([x] for x in _LEAVES),
    *([x, y] for x in _LEAVES for y in _LEAVES),
    *([x, y, "a"] for x in _LEAVES[::2] for y in _LEAVES[::3]),
    *({key: x} for key in ("a", "b", "cc") for x in _LEAVES),
    *({"a": x, "b": y} for x in _LEAVES for y in _LEAVES[::2]),
    *([[x]] for x in _LEAVES),
    *({"b": {"a": x}, "a": [x]} for x in _LEAVES),
]
_INSTANCES = st.recursive(
    st.sampled_from(_LEAVES),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "cc"]), children, max_size=3),
    ),
    max_leaves=6,
)


@pytest.mark.parametrize("dialect", sorted(ORACLES))
@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(schema=_SCHEMAS, instances=st.lists(_INSTANCES, max_size=4))
def test_the_lowered_document_means_what_the_source_means(
    dialect: str, schema: Any, instances: list[Any]
) -> None:
    source = {
        "$schema": dialect,
        **schema,
        "definitions": {"small": {"maxLength": 1, "maximum": 1}},
    }
    if dialect == DRAFT4:  # draft-04 names it `id`
        source = json.loads(json.dumps(source).replace('"$id"', '"id"'))
    # `jsonschema` (referencing) crashes on a 2019-09 pointer into `dependencies`, which 2019-09 does not have.
    assume(dialect != DRAFT2019 or "#/dependencies" not in json.dumps(schema))
    doc, _ = lowered(source)
    if doc is None:  # refused: only a schema its own dialect's meta-schema refuses too
        with pytest.raises(jsonschema.SchemaError):
            ORACLES[dialect].check_schema(source)
        return
    expected = ORACLES[dialect](source)
    actual = jsonschema.Draft202012Validator(doc)
    for instance in [*_POOL, *instances]:
        assert actual.is_valid(instance) == expected.is_valid(instance), (
            json.dumps(doc),
            instance,
        )


def test_pointers_into_another_resource_of_the_document_follow_renamed_keywords() -> (
    None
):
    doc, _ = lowered(
        {
            "$schema": DRAFT7,
            "$id": "http://example.test/root.json",
            "properties": {
                "x": {"$id": "sub.json", "items": [{"type": "integer"}]},
                "y": {"$ref": "sub.json#/items/0"},
                "z": {"$ref": "http://example.test/sub.json#/items/0"},
                "w": {"$ref": "elsewhere.json#/items/0"},  # not in this document
            },
        }
    )
    assert doc["properties"]["y"] == {"$ref": "sub.json#/prefixItems/0"}
    assert doc["properties"]["z"] == {
        "$ref": "http://example.test/sub.json#/prefixItems/0"
    }
    assert doc["properties"]["w"] == {"$ref": "elsewhere.json#/items/0"}
