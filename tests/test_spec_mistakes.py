"""Spec mistakes that used to pass silently (misspelt keywords, a required property the object forbids), and
independent errors of one run reported together instead of one hiding another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import compile_result
from test_bad_input import run_cli, write


def _tool(name: str, schema: Any, **more: Any) -> dict[str, Any]:
    return {"name": name, "description": f"{name}.", "inputSchema": schema, **more}


def _tools(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"tools": list(tools)}


def _found(specs: Path) -> list[tuple[str, int, str, str]]:
    """(file name, line, severity, code) of every diagnostic, in order."""
    result = compile_result(specs)
    return [
        (Path(d.span.source.display).name, d.span.line, d.severity, d.code)
        for d in result.diagnostics.sorted()
        if d.span is not None
    ]


def _messages(specs: Path, code: str) -> list[str]:
    return [
        d.message for d in compile_result(specs).diagnostics.sorted() if d.code == code
    ]


# ── 8. Misspelt keywords ─────────────────────────────────────────────────────────────────────────────────


def test_a_misspelt_keyword_warns_with_did_you_mean_at_the_key(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        '{"tools": [{"name": "t", "description": "T.", "inputSchema": {\n'
        '  "type": "object",\n'
        '  "properties": {"n": {"type": "integer", "minimun": 1}, "s": {"type": "string", "maxlength": 3}},\n'
        '  "requird": ["n"]\n'
        "}}]}\n",
    )
    result = compile_result(specs)
    warnings = [
        (d.span.line, d.span.col, d.message)
        for d in result.diagnostics.sorted()
        if d.code == "unknown-keyword"
    ]
    assert warnings == [
        (3, 43, "unknown keyword 'minimun': did you mean 'minimum'?"),
        (3, 82, "unknown keyword 'maxlength': did you mean 'maxLength'?"),
        (4, 3, "unknown keyword 'requird': did you mean 'required'?"),
    ]
    assert all(d.severity == "warning" for d in result.diagnostics.sorted())
    assert result.files is not None  # a warning: the package is still written


def test_a_misspelt_keyword_fails_the_run_under_strict(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "requird": ["q"],
    }
    write(tmp_path / "specs", "tools.json", _tools(_tool("t", schema)))
    assert run_cli("specs", "-o", "out", cwd=tmp_path).returncode == 0
    strict = run_cli("specs", "-o", "out2", "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and "warning[unknown-keyword]" in strict.stderr


def test_a_misspelt_keyword_of_an_entity_file_warns(tmp_path: Path) -> None:
    entity = {
        "title": "User",
        "type": "object",
        "properties": {"id": {"type": "integer"}},
    }
    entity["additonalProperties"] = False
    write(tmp_path / "specs", "User.schema.json", entity)
    assert _messages(tmp_path / "specs", "unknown-keyword") == [
        "unknown keyword 'additonalProperties': did you mean 'additionalProperties'?"
    ]


def test_only_keywords_in_schema_positions_with_a_close_match_warn(
    tmp_path: Path,
) -> None:
    schema = {
        "type": "object",
        # property names, data and vendor extensions are not keywords
        "properties": {
            "requird": {"type": "string", "default": "x"},
            "config": {
                "type": "object",
                "default": {"minimun": 1},
                "examples": [{"requird": True}],
                "enum": [{"itmes": 1}],
                "const": {"itmes": 1},
            },
        },
        "x-requird": True,
        # extras legal as annotations that real tool corpora use: no keyword is a near miss
        "markdownDescription": "**T**",
        "deprecationMessage": "use u",
        "nullable": False,
        "optional": True,
        # the value of an unknown keyword is not a schema
        "discriminator": {"propertyName": "kind", "minimun": 3},
    }
    write(tmp_path / "specs", "tools.json", _tools(_tool("t", schema)))
    assert _messages(tmp_path / "specs", "unknown-keyword") == []


def test_misspelt_keywords_are_found_in_every_schema_position(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "array", "itmes": {"type": "string"}}},
        "$defs": {"D": {"type": "string", "patern": "^x"}},
        "allOf": [{"descripton": "d"}],
        "additionalProperties": {"type": "string", "minLenght": 1},
    }
    write(
        tmp_path / "specs",
        "tools.json",
        _tools(_tool("t", schema, outputSchema={"type": "string", "enums": ["a"]})),
    )
    assert sorted(_messages(tmp_path / "specs", "unknown-keyword")) == [
        "unknown keyword 'descripton': did you mean 'description'?",
        "unknown keyword 'enums': did you mean 'enum'?",
        "unknown keyword 'itmes': did you mean 'items'?",
        "unknown keyword 'minLenght': did you mean 'minLength'?",
        "unknown keyword 'patern': did you mean 'pattern'?",
    ]


def test_gram_and_brimley_keep_refusing_unknown_keys_without_a_second_report(
    tmp_path: Path,
) -> None:
    # Their own notations reject an unknown key (an error); the schema they lower to never carries it.
    specs = tmp_path / "specs"
    write(
        specs,
        "hello.gram",
        '[sayHello:Tool {description: "Hi"} |\n  (name::Text {minimun: 3})==>(::String)\n]\n',
    )
    write(
        specs,
        "greet.yaml",
        "name: hello\ntype: python_function\nhandler: x.y\ndescription: Hi.\narguments:\n"
        "  inline:\n    who:\n      type: string\n      minimun: 3\n",
    )
    codes = [code for _, _, _, code in _found(specs)]
    assert sorted(codes) == ["brimley-key", "gram-key"]


# ── 8. A required property the object forbids ───────────────────────────────────────────────────────────


def _required_errors(tmp_path: Path, schema: Any) -> list[tuple[int, int, str]]:
    specs = tmp_path / "specs"
    outer = {"type": "object", "properties": {"p": schema}}
    write(specs, "tools.json", _tools(_tool("t", outer)))
    return [
        (d.span.line, d.span.col, d.message)
        for d in compile_result(specs).diagnostics.sorted()
        if d.code == "required-undeclared"
    ]


def test_required_but_undeclared_under_additional_properties_false_is_an_error(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        '{"tools": [{"name": "t", "description": "T.", "inputSchema": {\n'
        '  "type": "object",\n'
        '  "properties": {"query": {"type": "string"}},\n'
        '  "required": ["query", "qurey"],\n'
        '  "additionalProperties": false\n'
        "}}]}\n",
    )
    result = compile_result(specs)
    (error,) = result.diagnostics.sorted()
    assert (error.severity, error.code, error.span.line, error.span.col) == (
        "error",
        "required-undeclared",
        4,
        25,
    )
    assert error.message.startswith("'qurey' is required but not declared")
    assert result.files is None


@pytest.mark.parametrize(
    "extra",
    [
        {"unevaluatedProperties": False},
        {"additionalProperties": False, "patternProperties": {"^x_": {}}},
        {"unevaluatedProperties": False, "patternProperties": {"^x_": {}}},
        {"additionalProperties": False, "type": ["object", "null"]},
    ],
)
def test_required_undeclared_when_the_object_certainly_forbids_it(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    schema = {
        "type": "object",
        "properties": {"a": {}},
        "required": ["a", "b"],
        **extra,
    }
    errors = _required_errors(tmp_path, schema)
    assert [message.split(" ")[0] for _, _, message in errors] == ["'b'"]


@pytest.mark.parametrize(
    "extra",
    [
        {},  # other properties allowed
        {"additionalProperties": {"type": "string"}},
        {"additionalProperties": False, "patternProperties": {"^b$": {}}},
        {"additionalProperties": False, "patternProperties": {"(?>x)b": {}}},
        {"unevaluatedProperties": False, "allOf": [{"properties": {"b": {}}}]},
        {"unevaluatedProperties": False, "$ref": "#/$defs/B", "$defs": {"B": {}}},
        {"unevaluatedProperties": False, "additionalProperties": True},
        {"unevaluatedProperties": False, "if": {}, "then": {}},
        {"unevaluatedProperties": False, "dependentSchemas": {"a": {}}},
        {"additionalProperties": False, "type": "string"},  # never an object
    ],
)
def test_no_required_error_unless_certain(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    schema = {"properties": {"a": {}}, "required": ["a", "b"], **extra}
    schema.setdefault("type", "object")
    assert _required_errors(tmp_path, schema) == []


def test_required_undeclared_in_a_nested_object_and_an_entity(tmp_path: Path) -> None:
    inner = {
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "required": ["y"],
        "additionalProperties": False,
    }
    specs = tmp_path / "specs"
    tool = _tool(
        "t", {"type": "object", "properties": {"p": {"type": "array", "items": inner}}}
    )
    write(specs, "tools.json", _tools(tool))
    write(specs, "Point.schema.json", {"title": "Point", **inner})
    found = [(f, sev, code) for f, _, sev, code in _found(specs)]
    # The entity can accept nothing; the tool can (without `p`, or with `p: []`): a warning there.
    assert found == [
        ("Point.schema.json", "error", "required-undeclared"),
        ("tools.json", "warning", "required-undeclared"),
    ]


def test_brimley_and_gram_report_an_inherited_problem_once_at_its_entity(
    tmp_path: Path,
) -> None:
    # An entity with the mistake, used from gram (`::Point`) and Brimley (`entity_ref`): one error, in the
    # entity's file; nothing in the files that use it.
    specs = tmp_path / "specs"
    entity = {
        "title": "Point",
        "type": "object",
        "properties": {"x": {"type": "number"}},
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    write(specs, "Point.schema.json", entity)
    write(
        specs,
        "locate.gram",
        '[locate:Tool {description: "Locates."} |\n  (where::Point)==>(::String)\n]\n',
    )
    write(
        specs,
        "move.yaml",
        "name: move\ntype: python_function\nhandler: x.y\ndescription: Moves.\narguments:\n"
        "  entity_ref: Point\n",
    )
    found = [(f, code) for f, _, _, code in _found(specs)]
    assert found == [("Point.schema.json", "required-undeclared")]


# ── 9. Independent errors of one run are all reported ────────────────────────────────────────────────────


def test_an_invalid_tool_still_takes_its_name(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        _tools(
            _tool("alpha", {"type": "object", "properties": {"x": {"type": "strng"}}}),
            _tool("alpha", {"type": "object"}),
        ),
    )
    codes = [code for _, _, _, code in _found(specs)]
    assert codes == ["invalid-schema", "duplicate-name"]


def test_every_document_of_a_tool_is_checked(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        '{"tools": [{"name": "t", "description": "T.",\n'
        '  "inputSchema": {"type": "object", "properties": {"x": {"type": "strng"}}},\n'
        '  "outputSchema": {"type": "object", "minProperties": -1}\n'
        "}]}\n",
    )
    assert [(line, code) for _, line, _, code in _found(specs)] == [
        (2, "invalid-schema"),
        (3, "invalid-schema"),
    ]


def test_two_broken_tools_and_an_unknown_entity_in_one_file(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        _tools(
            _tool("a", {"type": "object", "properties": {"x": {"type": "strng"}}}),
            _tool("b", {"type": "object", "properties": {"y": {"pattern": "(?>x)y"}}}),
            _tool(
                "c",
                {"type": "object", "properties": {"u": {"$ref": "Usr.schema.json"}}},
            ),
            _tool("a", {"type": "object"}),
        ),
    )
    codes = sorted(code for _, _, _, code in _found(specs))
    assert codes == [
        "duplicate-name",
        "invalid-schema",
        "invalid-schema",
        "ref-unresolved",
    ]


def test_a_reference_to_an_invalid_entity_is_not_reported_again(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "User.schema.json",
        {"title": "User", "type": "object", "properties": {"id": {"type": "integr"}}},
    )
    write(
        specs,
        "tools.json",
        _tools(
            _tool(
                "get",
                {"type": "object", "properties": {"u": {"$ref": "User.schema.json"}}},
            ),
            _tool("put", {"type": "object", "properties": {"n": {"minimum": "zero"}}}),
        ),
    )
    write(
        specs,
        "hello.gram",
        '[hello:Tool {description: "Hi"} |\n  (who::User)==>(::String)\n]\n',
    )
    found = [(f, code) for f, _, _, code in _found(specs)]
    assert found == [
        ("User.schema.json", "invalid-schema"),
        ("tools.json", "invalid-schema"),
    ]


def test_an_agent_listing_an_invalid_tool_is_not_an_unknown_tool(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "tools.json",
        _tools(
            _tool("lookup", {"type": "object", "properties": {"x": {"type": "strng"}}})
        ),
    )
    write(
        specs,
        "desk.gram",
        '[desk:Agent {description: "Helps."} |\n  lookup,\n  lookpu\n]\n',
    )
    found = [(f, code) for f, _, _, code in _found(specs)]
    assert found == [("desk.gram", "unknown-tool"), ("tools.json", "invalid-schema")]
    assert "'lookpu'" in _messages(specs, "unknown-tool")[0]


def test_a_reference_to_an_unreadable_entity_file_is_not_reported_again(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(specs, "User.schema.json", '{"title": "User", "type": "object",}\n')
    write(
        specs,
        "tools.json",
        _tools(
            _tool(
                "get",
                {"type": "object", "properties": {"u": {"$ref": "User.schema.json"}}},
            ),
            _tool("put", {"type": "object", "properties": {"n": {"type": "strng"}}}),
        ),
    )
    found = [(f, code) for f, _, _, code in _found(specs)]
    assert found == [
        ("User.schema.json", "json-syntax"),
        ("tools.json", "invalid-schema"),
    ]


def test_a_schema_error_and_a_sql_placeholder_error(tmp_path: Path) -> None:
    # The entity a SQL function inherits from is invalid (reported once); another SQL function of the run
    # has a placeholder naming no argument, and a third inherits from an entity that does not exist.
    specs = tmp_path / "specs"
    write(
        specs,
        "Filter.schema.json",
        {
            "title": "Filter",
            "type": "object",
            "properties": {"status": {"type": "strng"}},
        },
    )
    header = (
        "/*\n---\nname: {name}\ntype: sql_function\nconnection: db\ndescription: Counts.\n"
        "arguments:\n{arguments}return_shape: int\n---\n*/\n{sql}\n"
    )
    write(
        specs,
        "by_status.sql",
        header.format(
            name="by_status",
            arguments="  entity_ref: Filter\n",
            sql="SELECT count(*) FROM t WHERE status = :status",
        ),
    )
    write(
        specs,
        "by_name.sql",
        header.format(
            name="by_name",
            arguments="  inline:\n    name: string\n",
            sql="SELECT count(*) FROM t WHERE name = :nmae",
        ),
    )
    write(
        specs,
        "by_kind.sql",
        header.format(
            name="by_kind",
            arguments="  entity_ref: Fliter\n",
            sql="SELECT count(*) FROM t",
        ),
    )
    codes = sorted(code for _, _, sev, code in _found(specs) if sev == "error")
    assert codes == ["brimley-sql-placeholder", "invalid-schema", "unknown-entity"]


def test_valid_specs_compile_as_before(tmp_path: Path) -> None:
    # The new checks say nothing about a clean spec (the goldens hold the output itself).
    specs = tmp_path / "specs"
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": False,
    }
    write(specs, "tools.json", json.dumps(_tools(_tool("t", schema))))
    result = compile_result(specs)
    assert result.files is not None and result.diagnostics.sorted() == []


# ── 9. gram and Brimley: every independent error of a tool and of a file ───────────────────────────────────


def test_an_agent_listing_a_gram_tool_left_out_is_not_an_unknown_tool(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "desk.gram",
        '[a:Tool {description: "A"} |\n  (x::Text {minLength: -1})==>(::String)\n]\n'
        '[desk:Agent {description: "Helps."} |\n  a\n]\n',
    )
    assert [(line, code) for _, line, _, code in _found(specs)] == [
        (2, "gram-constraint")
    ]


def test_a_gram_file_with_two_broken_tools_and_an_agent(tmp_path: Path) -> None:
    # Each tool has two independent mistakes; the entity a third tool uses is broken; the agent lists all
    # three and one tool no spec defines (the only unknown-tool).
    specs = tmp_path / "specs"
    write(
        specs,
        "desk.gram",
        '[a:Tool {description: "A"} |\n  (x::Text {minLength: -1})==>(::Strng)\n]\n'
        '[b:Tool {description: 3} |\n  (y::Int {minimum: "zero"})==>(::String)\n]\n'
        "[User:Entity | (id::Integr)]\n"
        '[c:Tool {description: "C"} |\n  (u::User)==>(::String)\n]\n'
        '[desk:Agent {description: "Helps."} |\n  a, b, c, d\n]\n',
    )
    assert [(line, code) for _, line, _, code in _found(specs)] == [
        (2, "gram-constraint"),
        (2, "gram-type"),
        (4, "gram-description"),
        (5, "gram-constraint"),
        (7, "gram-type"),
        (11, "unknown-tool"),
    ]
    assert "'d'" in _messages(specs, "unknown-tool")[0]


_SQL = (
    "/*\n---\nname: by_name\ntype: sql_function\nconnection: db\ndescription: Counts.\n"
    'arguments:\n  inline:\n    name:\n      type: string\n      pattern: "[a-"\n'
    "return_shape: int\n---\n*/\nSELECT count(*) FROM t WHERE name = :nmae\n"
)


def test_a_brimley_constraint_and_a_placeholder_error_in_one_function(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(specs, "by_name.sql", _SQL)
    assert [(line, code) for _, line, _, code in _found(specs)] == [
        (9, "brimley-sql-unused"),
        (11, "brimley-constraint"),
        (15, "brimley-sql-placeholder"),
    ]
    assert "did you mean ':name'?" in _messages(specs, "brimley-sql-placeholder")[0]


def test_a_brimley_folder_with_independent_errors_in_one_function(
    tmp_path: Path,
) -> None:
    # A bad argument, a return shape a SQL function cannot have and a misspelt placeholder in one function;
    # an agent lists it, and a function inheriting from a broken entity adds nothing.
    specs = tmp_path / "specs"
    write(
        specs,
        "count.yaml",
        "name: count\ntype: sql_function\nconnection: db\ndescription: Counts.\n"
        "arguments:\n  inline:\n    limit:\n      type: integer\n      minimum: zero\n"
        "return_shape:\n  inline:\n    n: int\nsql: SELECT count(*) FROM t LIMIT :limt\n",
    )
    write(
        specs,
        "Customer.yaml",
        "name: Customer\ntype: entity\nfields:\n  id: integr\n",
    )
    write(
        specs,
        "find.yaml",
        "name: find\ntype: python_function\nhandler: x.y\ndescription: Finds.\n"
        "arguments:\n  entity_ref: Customer\n",
    )
    write(specs, "desk.gram", '[desk:Agent {description: "D"} |\n  count, find\n]\n')
    found = [(f, line, code) for f, line, _, code in _found(specs)]
    assert found == [
        ("Customer.yaml", 4, "brimley-type"),
        ("count.yaml", 7, "brimley-sql-unused"),
        ("count.yaml", 9, "brimley-constraint"),
        ("count.yaml", 11, "brimley-return"),
        ("count.yaml", 13, "brimley-sql-placeholder"),
    ]


# ── 9. What a Brimley function or a tool manifest left out still has checked ──────────────────────────────


def test_a_placeholder_of_a_function_left_out_by_the_schema_check(
    tmp_path: Path,
) -> None:
    # The pattern passes the Brimley front end and fails only the schema check; the SQL is still checked.
    specs = tmp_path / "specs"
    write(specs, "by_name.sql", _SQL.replace('"[a-"', '"(?>x)y"'))
    assert [(line, sev, code) for _, line, sev, code in _found(specs)] == [
        (9, "warning", "brimley-sql-unused"),
        (11, "error", "invalid-schema"),
        (15, "error", "brimley-sql-placeholder"),
    ]
    assert "did you mean ':name'?" in _messages(specs, "brimley-sql-placeholder")[0]


def test_a_placeholder_of_a_function_left_out_that_inherits_its_arguments(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "Customer.yaml",
        "name: Customer\ntype: entity\nfields:\n  name: string\n",
    )
    write(
        specs,
        "find.yaml",
        "name: find\ntype: sql_function\nconnection: db\ndescription: Finds.\n"
        "arguments:\n  entity_ref: Customer\n"
        "return_shape:\n  inline:\n    n: int\nsql: SELECT n FROM t WHERE name = :nmae\n",
    )
    assert [(f, line, code) for f, line, _, code in _found(specs)] == [
        ("find.yaml", 6, "brimley-sql-unused"),
        ("find.yaml", 8, "brimley-return"),
        ("find.yaml", 10, "brimley-sql-placeholder"),
    ]
    assert "did you mean ':name'?" in _messages(specs, "brimley-sql-placeholder")[0]


def test_a_yaml_tool_manifest_left_out_keeps_its_name(tmp_path: Path) -> None:
    # The manifest goes through the JSON front end: its tool, left out, is neither unknown to the agent nor
    # hides the duplicate in another file.
    specs = tmp_path / "specs"
    write(
        specs,
        "lookup.yaml",
        "name: lookup\ndescription: Looks up.\ninputSchema:\n  type: string\n",
    )
    write(specs, "tools.json", _tools(_tool("lookup", {"type": "object"})))
    write(specs, "desk.gram", '[desk:Agent {description: "Helps."} |\n  lookup\n]\n')
    assert [(f, code) for f, _, _, code in _found(specs)] == [
        ("lookup.yaml", "input-not-object"),
        ("tools.json", "duplicate-name"),
    ]


def test_an_argument_a_function_left_out_never_uses_is_a_warning(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    write(
        specs,
        "count.yaml",
        "name: count\ntype: sql_function\nconnection: db\ndescription: Counts.\n"
        "arguments:\n  inline:\n    limit:\n      type: integer\n      minimum: zero\n"
        "    status: string\nreturn_shape: int\nsql: SELECT count(*) FROM t LIMIT :limit\n",
    )
    assert [(line, sev, code) for _, line, sev, code in _found(specs)] == [
        (9, "error", "brimley-constraint"),
        (10, "warning", "brimley-sql-unused"),
    ]
    assert "'status'" in _messages(specs, "brimley-sql-unused")[0]


def test_a_python_function_left_out_still_has_its_inheritance_checked(
    tmp_path: Path,
) -> None:
    # No SQL: the return shape's error leaves it out, and its arguments and config still inherit (checked).
    specs = tmp_path / "specs"
    write(
        specs,
        "Customer.yaml",
        "name: Customer\ntype: entity\nfields:\n  name: string\n",
    )
    write(
        specs,
        "find.yaml",
        "name: find\ntype: python_function\nhandler: x.y\ndescription: Finds.\n"
        "arguments:\n  entity_ref: Custmer\n"
        "config:\n  entity_ref: Customer\n  inline:\n    name: string\n"
        "return_shape: Strng\n",
    )
    found = [(f, line, code) for f, line, _, code in _found(specs)]
    assert found == [
        ("find.yaml", 6, "unknown-entity"),
        ("find.yaml", 10, "brimley-arg-name"),
        ("find.yaml", 11, "brimley-type"),
    ]
    assert "did you mean 'Customer'?" in _messages(specs, "unknown-entity")[0]


def test_a_function_whose_arguments_failed_still_has_an_object_placeholder_flagged(
    tmp_path: Path,
) -> None:
    # `limit` fails; `who`, an entity, lowered fine: binding it is still an error in the same run.
    specs = tmp_path / "specs"
    write(
        specs,
        "Customer.yaml",
        "name: Customer\ntype: entity\nfields:\n  name: string\n",
    )
    write(
        specs,
        "count.yaml",
        "name: count\ntype: sql_function\nconnection: db\ndescription: Counts.\n"
        "arguments:\n  inline:\n    limit:\n      type: integer\n      minimum: zero\n"
        "    who: Customer\nreturn_shape: int\n"
        "sql: SELECT count(*) FROM t WHERE name = :who LIMIT :limit\n",
    )
    assert [(line, sev, code) for _, line, sev, code in _found(specs)] == [
        (9, "error", "brimley-constraint"),
        (12, "error", "brimley-sql-placeholder"),
    ]
    assert "only values and lists of values can be bound" in (
        _messages(specs, "brimley-sql-placeholder")[0]
    )
