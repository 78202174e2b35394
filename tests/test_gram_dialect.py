"""The gram tool dialect (../shared/reference/gram.md §3) lowered into the IR, and its diagnostics.

Schemas are compared as JSON text, so key order — part of the contract that makes gram, JSON and Brimley specs
of one tool produce identical output — is checked too.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from codegen.diagnostics import Diagnostic, Diagnostics, SourceFile, SpecError
from codegen.frontends.gram import check_parameter_identity, load_gram_file
from codegen.frontends.gram.syntax import MAX_DEPTH, parse_gram
from codegen.ir import SpecModule, Tool, to_plain

ROOT = Path(__file__).resolve().parents[1]
SEED = SHARED / "seeds" / "001_3bde75eb5817cef0.txt"
EXAMPLES = ROOT / "examples" / "specs" / "gram"


def source(text: str, name: str = "spec.gram") -> SourceFile:
    return SourceFile(Path(name), name, Path(name), text)


def load(
    text: str, name: str = "spec.gram"
) -> tuple[SpecModule | None, list[Diagnostic]]:
    diags = Diagnostics()
    try:
        module = load_gram_file(source(text, name), diags)
    except SpecError:
        module = None
    return module, diags.sorted()


def compile_ok(text: str) -> SpecModule:
    module, diags = load(text)
    assert not diags, "\n".join(d.render() for d in diags)
    assert module is not None
    return module


def js(value: Any) -> str:
    return json.dumps(to_plain(value))


def tool(text: str, name: str | None = None) -> Tool:
    tools = compile_ok(text).tools
    return next(t for t in tools if name is None or t.name == name)


def one_tool(signature: str, name: str = "t") -> Tool:
    return tool(f'[{name}:Tool {{description: "d"}} | {signature}]')


def errors(text: str) -> list[tuple[str, int, int, str]]:
    """(code, line, col, message) of every diagnostic."""
    _, diags = load(text)
    return [
        (d.code, d.span.line if d.span else 0, d.span.col if d.span else 0, d.message)
        for d in diags
    ]


def only_error(text: str, code: str) -> tuple[int, int, str]:
    found = errors(text)
    assert [f[0] for f in found] == [code], found
    return found[0][1], found[0][2], found[0][3]


# ── The worked example and the seed ─────────────────────────────────────────────────────────────────────────────


def test_worked_example_exactly() -> None:
    t = one_tool("(personName::Text)==>(age::Int {default:18})==>(::String)")
    assert js(t.input_schema) == json.dumps(
        {
            "type": "object",
            "properties": {
                "personName": {"type": "string"},
                "age": {"type": "integer", "default": 18},
            },
            "required": ["personName"],
            "additionalProperties": False,
        }
    )
    assert js(t.output_schema) == '{"type": "string"}'
    assert not t.returns_void and t.group is None


def test_say_hello_from_the_reference() -> None:
    t = tool("""[sayHello:Tool {
  description: "Returns a friendly greeting message for the given name"
} |
  (personName::Text {default:"world"})==>(::String)
]""")
    assert t.name == "sayHello"
    assert (t.span.line, t.span.col) == (1, 2)
    assert t.description == "Returns a friendly greeting message for the given name"
    assert js(t.input_schema) == json.dumps(
        {
            "type": "object",
            "properties": {"personName": {"type": "string", "default": "world"}},
            "additionalProperties": False,
        }
    )
    assert t.metadata == {}


def _seed_specs() -> list[str]:
    """The seed's gram blocks and signature examples that are meant as specs (not the `<placeholder>` template)."""
    text = SEED.read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```gram\n(.*?)```", text, re.S) if "<" not in b]
    signatures = re.findall(r"^\s*- `(\(.*?\))` - ", text, re.M)
    wrapped = [
        f'[seedTool{i}:Tool {{description: "seed example {i}"}} | {s}]'
        for i, s in enumerate(signatures)
    ]
    return blocks + wrapped


def test_seed_examples_compile() -> None:
    specs = _seed_specs()
    assert (
        len(specs) == 6
    )  # sayHello, and the five signatures of "Type Signature (Curried Form)"
    module = compile_ok("\n".join(specs))
    by_name = {t.name: t for t in module.tools}
    assert (
        js(by_name["seedTool0"].input_schema)
        == '{"type": "object", "properties": {}, "additionalProperties": false}'
    )
    assert by_name["seedTool2"].input_schema["required"] == ("personName", "age")
    assert by_name["seedTool3"].input_schema["required"] == (
        "personName",
    )  # the worked example
    record = by_name["seedTool4"].input_schema["properties"]["userParams"]
    assert js(record) == json.dumps(
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
            "additionalProperties": False,
        }
    )


def test_seed_template_is_not_a_spec() -> None:
    """The seed's schema template has `<toolName>` placeholders: a syntax error, reported as such."""
    template = re.findall(r"```gram\n(.*?)```", SEED.read_text(encoding="utf-8"), re.S)[
        0
    ]
    assert [e[0] for e in errors(template)] == ["gram-syntax"]


# ── Signatures ──────────────────────────────────────────────────────────────────────────────────────────────────

EMPTY_INPUT = '{"type": "object", "properties": {}, "additionalProperties": false}'


@pytest.mark.parametrize(
    "signature", ["()==>(::String)", "(::String)", "()-->(::String)"]
)
def test_no_parameters(signature: str) -> None:
    t = one_tool(signature)
    assert js(t.input_schema) == EMPTY_INPUT
    assert js(t.output_schema) == '{"type": "string"}'


@pytest.mark.parametrize(
    "signature",
    ["(x::Text)==>()", "(x::Text)==>(::Void)", "(x::Text)==>(::Unit)", "()"],
)
def test_void_returns(signature: str) -> None:
    t = one_tool(signature)
    assert t.output_schema is None and t.returns_void


@pytest.mark.parametrize(
    "arrow",
    ["==>", "-->", "~~>", "==", "--", "~~", "<==", "<-->", "=[r]=>", "-[:Next]->"],
)
def test_any_arrow_family(arrow: str) -> None:
    t = one_tool(f"(a::Text){arrow}(b::Int){arrow}(::Bool)")
    assert list(t.input_schema["properties"]) == ["a", "b"]
    assert js(t.output_schema) == '{"type": "boolean"}'


def test_long_curried_chain() -> None:
    params = "==>".join(f"(p{i}::Int {{default: {i}}})" for i in range(50))
    t = one_tool(params + "==>(::Int)")
    assert list(t.input_schema["properties"]) == [f"p{i}" for i in range(50)]
    assert "required" not in t.input_schema


@pytest.mark.parametrize(
    "label, schema",
    [
        ("Text", {"type": "string"}),
        ("String", {"type": "string"}),
        ("Int", {"type": "integer"}),
        ("Integer", {"type": "integer"}),
        ("Double", {"type": "number"}),
        ("Number", {"type": "number"}),
        ("Float", {"type": "number"}),
        ("Decimal", {"type": "number", "format": "decimal"}),
        ("Bool", {"type": "boolean"}),
        ("Boolean", {"type": "boolean"}),
        ("Date", {"type": "string", "format": "date"}),
        ("DateTime", {"type": "string", "format": "date-time"}),
        ("Object", {"type": "object"}),
        ("User", {"$ref": "entity:User"}),
    ],
)
def test_both_type_vocabularies(label: str, schema: dict[str, Any]) -> None:
    t = one_tool(f"(x::{label})==>(::{label})")
    assert js(t.input_schema["properties"]["x"]) == json.dumps(schema)
    assert js(t.output_schema) == json.dumps(schema)


def test_single_colon_label_means_the_same() -> None:
    assert js(one_tool("(x:Text)==>(:Int)").input_schema) == js(
        one_tool("(x::Text)==>(::Int)").input_schema
    )


def test_parameter_record_key_order() -> None:
    t = one_tool(
        '(code::Text {pattern: "^[A-Z]+$", maxLength: 8, minLength: 2, enum: ["AB", "CDE"], default: "AB", '
        'description: "A code"})==>(n::Decimal {maximum: 9.5, minimum: 0, description: "n"})==>(::Text)'
    )
    assert js(t.input_schema["properties"]) == json.dumps(
        {
            "code": {
                "type": "string",
                "description": "A code",
                "default": "AB",
                "enum": ["AB", "CDE"],
                "minLength": 2,
                "maxLength": 8,
                "pattern": "^[A-Z]+$",
            },
            "n": {
                "type": "number",
                "format": "decimal",
                "description": "n",
                "minimum": 0,
                "maximum": 9.5,
            },
        }
    )
    assert t.input_schema["required"] == ("n",)


def test_named_return_with_description() -> None:
    t = one_tool(
        '(q::Text)==>(results::Array {elementType: "Text", description: "Hits", maxItems: 5})'
    )
    assert js(t.output_schema) == json.dumps(
        {
            "type": "array",
            "description": "Hits",
            "maxItems": 5,
            "items": {"type": "string"},
        }
    )


def test_tool_metadata_keeps_other_keys_as_plain_values() -> None:
    t = tool(
        '[t:Tool {description: "d", version: 2, tags: ["a", "b"], limits: {rate: 5, burst: 1.5}, beta: true, '
        "size: 5kg, span: 1..10, mask: 0xFF} | (::Text)]"
    )
    assert t.metadata == {
        "beta": True,
        "limits": {"rate": 5, "burst": 1.5},
        "mask": 255,
        "size": "5kg",
        "span": "1..10",
        "tags": ["a", "b"],
        "version": 2,
    }


def test_description_string_styles() -> None:
    for literal, expected in [
        ("'single'", "single"),
        ('"say \\"hi\\"\\n"', 'say "hi"\n'),
        ("`back`", "back"),
        ("md`# Title`", "# Title"),
        ("```\nline one\nline two\n```", "line one\nline two"),
        ("```md\n*bold*\n```", "*bold*"),
    ]:
        assert (
            tool(f"[t:Tool {{description: {literal}}} | (::Text)]").description
            == expected
        )


def test_spans_point_at_the_source() -> None:
    t = tool(
        '// a comment\n[greet:Tool {description: "d"} |\n  (who::Text {default: "x"})==>(::Text)]'
    )
    assert (t.span.line, t.span.col) == (2, 2)
    props = t.input_schema["properties"]
    assert (props.key_span("who").line, props.key_span("who").col) == (3, 4)
    assert (
        props["who"].value_span("default").line,
        props["who"].value_span("default").col,
    ) == (3, 24)


# ── Records (Object) and arrays ─────────────────────────────────────────────────────────────────────────────────


def test_record_list_form_and_map_form_are_the_same() -> None:
    list_form = one_tool(
        '(p::Object {fields: [{name: "name", type: "Text"}, {name: "age", type: "Int"}]})==>(::Text)'
    )
    map_form = one_tool('(p::Object {fields: {name: "Text", age: "Int"}})==>(::Text)')
    assert js(list_form.input_schema) == js(map_form.input_schema)


def test_record_field_records_and_nesting() -> None:
    t = one_tool(
        '(p::Object {description: "A person", fields: ['
        '{name: "name", type: "Text", description: "Full name", minLength: 1},'
        '{name: "age", type: "Int", default: 18, minimum: 0},'
        '{name: "address", type: "Object", fields: [{name: "city", type: "Text"}]},'
        '{name: "tags", type: "Array", elementType: "Text"},'
        '{name: "pets", type: "Array", elementType: "Object", fields: {kind: "Text"}}'
        "]})==>(::Text)"
    )
    assert js(t.input_schema["properties"]["p"]) == json.dumps(
        {
            "type": "object",
            "description": "A person",
            "properties": {
                "name": {"type": "string", "description": "Full name", "minLength": 1},
                "age": {"type": "integer", "default": 18, "minimum": 0},
                "address": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "tags": {"type": "array", "items": {"type": "string"}},
                "pets": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"kind": {"type": "string"}},
                        "required": ["kind"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["name", "address", "tags", "pets"],
            "additionalProperties": False,
        }
    )


def test_map_form_with_typed_entries() -> None:
    t = one_tool(
        '(p::Object {fields: {n: {type: "Int", default: 1}, tags: {type: "Array", elementType: Text}}})==>()'
    )
    assert js(t.input_schema["properties"]["p"]["properties"]) == json.dumps(
        {
            "n": {"type": "integer", "default": 1},
            "tags": {"type": "array", "items": {"type": "string"}},
        }
    )
    assert t.input_schema["properties"]["p"]["required"] == ("tags",)


def test_arrays_of_primitives_entities_and_objects() -> None:
    t = one_tool(
        '(names::Array {elementType: "Text"})==>(users::Array {elementType: "User", minItems: 1})'
        '==>(rows::Array {elementType: "Object", fields: [{name: "id", type: "Int"}]})'
        '==>(grid::Array {elementType: {type: "Array", elementType: "Int"}})==>(::Array {elementType: User})'
    )
    props = t.input_schema["properties"]
    assert js(props["names"]) == '{"type": "array", "items": {"type": "string"}}'
    assert (
        js(props["users"])
        == '{"type": "array", "minItems": 1, "items": {"$ref": "entity:User"}}'
    )
    assert js(props["rows"]["items"]) == json.dumps(
        {
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "required": ["id"],
            "additionalProperties": False,
        }
    )
    assert (
        js(props["grid"])
        == '{"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}'
    )
    assert js(t.output_schema) == '{"type": "array", "items": {"$ref": "entity:User"}}'


def test_defaults_of_every_kind() -> None:
    t = one_tool(
        '(a::Date {default: date`2024-04-05`})==>(b::DateTime {default: "2024-04-05T17:35:00Z"})'
        "==>(c::Number {default: 0x10})==>(d::Bool {default: false})==>(e::Array {elementType: Int, default: []})"
        '==>(f::Object {fields: {x: "Int", y: {type: "Text", default: "y"}}, default: {x: 1}})==>(::Text)'
    )
    defaults = {
        k: to_plain(v.get("default")) for k, v in t.input_schema["properties"].items()
    }
    assert defaults == {
        "a": "2024-04-05",
        "b": "2024-04-05T17:35:00Z",
        "c": 16,
        "d": False,
        "e": [],
        "f": {"x": 1},
    }


# ── Entities, agents, global parameters ─────────────────────────────────────────────────────────────────────────


def test_entity() -> None:
    module = compile_ok(
        '[User:Entity {description: "A user"} | (name::Text), (age::Int {default:0})]'
    )
    (entity,) = module.entities
    assert (entity.name, entity.description, entity.span.line, entity.span.col) == (
        "User",
        "A user",
        1,
        2,
    )
    assert js(entity.schema) == json.dumps(
        {
            "title": "User",
            "type": "object",
            "description": "A user",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "default": 0},
            },
            "required": ["name"],
            "additionalProperties": False,
        }
    )


def test_entity_used_by_tools_in_the_same_file_and_recursively() -> None:
    module = compile_ok(
        "[Tree:Entity | (label::Text), (children::Array {elementType: Tree, default: []})]\n"
        '[grow:Tool {description: "d"} | (tree::Tree)==>(::Array {elementType: "Tree"})]'
    )
    schema: Any = module.entities[0].schema
    assert js(schema["properties"]["children"]["items"]) == '{"$ref": "entity:Tree"}'
    assert (
        js(module.tools[0].input_schema["properties"]["tree"])
        == '{"$ref": "entity:Tree"}'
    )


def test_agent_with_nested_tools_and_references() -> None:
    module = compile_ok(
        '[greet:Tool {description: "Greets"} | (who::Text)==>(::Text)]\n'
        '[helper:Agent {description: "Helps", instruction: "Be kind", model: "gpt-4o"} |\n'
        '  [add:Tool {description: "Adds"} | (a::Int)==>(b::Int)==>(::Int)],\n'
        '  [shout:Tool {description: "Shouts"} | (who)==>(::Text)],\n'
        "  greet\n"
        "]"
    )
    assert [(t.name, t.group) for t in module.tools] == [
        ("greet", None),
        ("add", "helper"),
        ("shout", "helper"),
    ]
    (agent,) = module.agents
    assert (agent.name, agent.description, agent.tools) == (
        "helper",
        "Helps",
        ("add", "shout", "greet"),
    )
    assert agent.metadata == {"instruction": "Be kind", "model": "gpt-4o"}
    assert js(module.tools[2].input_schema) == js(
        module.tools[0].input_schema
    )  # `(who)` is greet's `who`


def test_global_parameter_declared_at_top_level_and_referenced() -> None:
    module = compile_ok(
        '(limit::Int {description: "At most this many", default: 10})\n'
        '[a:Tool {description: "d"} | (q::Text)==>(limit)==>(::Text)]\n'
        '[b:Tool {description: "d"} | (limit::Int {default: 5})==>(::Text)]'
    )
    a, b = module.tools
    assert js(a.input_schema["properties"]["limit"]) == json.dumps(
        {"type": "integer", "description": "At most this many", "default": 10}
    )
    assert (
        js(b.input_schema["properties"]["limit"]) == '{"type": "integer", "default": 5}'
    )  # same type: agrees


def test_global_parameter_conflict_names_both_places() -> None:
    _, diags = load(
        '[a:Tool {description: "d"} | (who::Text)==>(::Text)]\n'
        '[b:Tool {description: "d"} |\n  (who::Int)==>(::Text)]'
    )
    (diag,) = diags
    assert diag.code == "gram-param-conflict"
    assert diag.span is not None and (diag.span.line, diag.span.col) == (3, 4)
    assert (
        "integer in tool 'b'" in diag.message and "string in tool 'a'" in diag.message
    )
    ((note, where),) = diag.notes
    assert where is not None and (where.line, where.col) == (1, 31)


def test_global_parameter_conflict_across_files() -> None:
    one = load_gram_file(
        source('[a:Tool {description: "d"} | (who::Text)==>(::Text)]', "one.gram"),
        Diagnostics(),
    )
    two = load_gram_file(
        source('[b:Tool {description: "d"} | (who::Int)==>(::Text)]', "two.gram"),
        Diagnostics(),
    )
    same = load_gram_file(
        source('[c:Tool {description: "d"} | (who::String)==>()]', "three.gram"),
        Diagnostics(),
    )
    diags = Diagnostics()
    check_parameter_identity([one, two, same], diags)
    (diag,) = diags.sorted()
    assert (
        diag.code == "gram-param-conflict"
        and diag.span is not None
        and diag.span.source.display == "two.gram"
    )
    assert (
        diag.notes[0][1] is not None and diag.notes[0][1].source.display == "one.gram"
    )


# ── Diagnostics, each with its line and column ──────────────────────────────────────────────────────────────────


def position(text: str, at: str) -> tuple[int, int]:
    """Line and column of the first occurrence of `at` in `text` (where a diagnostic should point)."""
    offset = text.index(at)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


@pytest.mark.parametrize(
    "text, at, words",
    [
        ("(a), (b)", ",", "top-level patterns are separated by whitespace"),
        ('[t:Tool {description: "d",} | ()]', "}", "trailing ','"),
        ('[t:Tool {description "d"} | ()]', '"d"', "':' between the key and its value"),
        ("()==[x]==>()", "[", "'=[r]=>'"),
        ("[t:Tool | (x::Text {default: 'abc})==>()]", "'", "unterminated string"),
        (
            "[t:Tool | (x::Text {default: ```\nabc})==>()]",
            "```",
            "unterminated fenced string",
        ),
        ("[t:Tool | (x::Text)==>(::String!)]", "!", "unexpected character '!'"),
        ("(a]", "]", "expected a closing ')', found ']'"),
        ("{a: 1}\n{b: 2}", "{b", "expected a node '(…)'"),
        ("[t:Tool {d: 1.5e3} | ()]", "e3", "found 'e3'"),
        ("[t:Tool {d: 0b101} | ()]", "101", "found '101'"),
        ("( @note(1) a)", "@", "annotations may only stand before a top-level pattern"),
        ("[t:Tool | x]\n[a, b]", ",", "'|' before the elements"),
    ],
)
def test_syntax_errors_in_words(text: str, at: str, words: str) -> None:
    line, col, message = only_error(text, "gram-syntax")
    assert (line, col) == position(text, at), message
    assert words in message, message
    assert not re.search(
        r"\b(LPAR|RPAR|LSQB|RSQB|LBRACE|RBRACE|SYMBOL|DQ_STRING|COMMA|\$END)\b", message
    )


def test_unclosed_bracket_points_back_at_it() -> None:
    _, diags = load('[t:Tool {description: "d"} |\n  (x::Text)==>(::Text)\n')
    (diag,) = diags
    assert diag.span is not None and (diag.span.line, diag.span.col) == (
        2,
        23,
    )  # just after the last token
    assert "expected ',' or a closing ']', found the end of the file" in diag.message
    ((note, where),) = diag.notes
    assert (
        "'[' opened here" in note
        and where is not None
        and (where.line, where.col) == (1, 1)
    )


@pytest.mark.parametrize(
    "text",
    ["[ | " * 10_000, "(a {k: " + "[" * 10_000, "{k: " + "{a: " * 5_000],
    ids=["subject patterns", "arrays", "maps"],
)
def test_deep_nesting_is_a_diagnostic(text: str) -> None:
    line, col, message = only_error(text, "gram-syntax")
    assert f"deeper than {MAX_DEPTH}" in message and line == 1


def test_unknown_type_suggests_the_primitive() -> None:
    text = '[t:Tool {description: "d"} | (name::Strng)==>(::String)]'
    line, col, message = only_error(text, "gram-type")
    assert (line, col) == position(
        text, "Strng"
    ) and "did you mean 'String'?" in message
    assert (
        "did you mean 'Int'?"
        in only_error('[t:Tool {description: "d"} | (n::int)==>()]', "gram-type")[2]
    )
    assert (
        "did you mean 'Boolean'?"
        in only_error('[t:Tool {description: "d"} | (::Boolan)]', "gram-type")[2]
    )
    # An entity of this file with a primitive-like name is not a typo; other unknown names are entities.
    compile_ok(
        '[Texts:Entity | (a::Text)]\n[t:Tool {description: "d"} | (n::Texts)==>(::Customer)]'
    )


@pytest.mark.parametrize(
    "record, at, words",
    [
        ("", "t:", "has no description"),
        ("{version: 1}", "t:", "has no description"),
        ('{description: ""}', '""', "empty description"),
        ('{description: "   "}', '"   "', "empty description"),
        ("{description: summary}", "summary", "quoted string"),
    ],
)
def test_missing_or_empty_description(record: str, at: str, words: str) -> None:
    text = f"[t:Tool {record} | ()==>(::Text)]"
    line, col, message = only_error(text, "gram-description")
    assert (line, col) == position(text, at) and words in message


def test_two_type_labels() -> None:
    text = '[t:Tool {description: "d"} |\n (x::Text:Int)==>(::Text)]'
    line, col, message = only_error(text, "gram-labels")
    assert (line, col) == position(text, ":Int") and "2 type labels" in message
    text = '[t:Tool {description: "d"} | (x::Text)==>(::Text::Int)]'
    assert only_error(text, "gram-labels")[:2] == position(text, "::Int")


def test_parameter_without_a_type() -> None:
    text = '[t:Tool {description: "d"} | (x)==>(::Text)]'
    line, col, message = only_error(text, "gram-labels")
    assert (line, col) == position(text, "x)") and "write (x::Text)" in message


@pytest.mark.parametrize(
    "signature, at",
    [
        ("(::Text)==>(::Text)", "(::Text)"),
        ("({default: 1})==>(::Text)", "({"),
        ("(7::Int)==>()", "7"),
    ],
)
def test_parameter_without_a_name(signature: str, at: str) -> None:
    text = f'[t:Tool {{description: "d"}} | {signature}]'
    line, col, message = only_error(text, "gram-param-name")
    assert (line, col) == position(text, at), message


def test_every_unnamed_parameter_is_reported() -> None:
    found = errors('[t:Tool {description: "d"} | ()==>()==>(::Text)]')
    assert [(code, col) for code, _, col, _ in found] == [
        ("gram-param-name", 30),
        ("gram-param-name", 35),
    ]


@pytest.mark.parametrize(
    "param, at, words",
    [
        (
            '(age::Int {default: "old"})',
            '"old"',
            'expected an integer, found the string "old"',
        ),
        ("(name::Text {default: world})", "world", "put text in quotes"),
        ("(n::Int {default: 1.5})", "1.5", "found the decimal number 1.5"),
        ('(d::Date {default: "2024-02-30"})', '"2024', "is not a date"),
        ('(d::DateTime {default: "2024-02-03T10:00:00"})', '"2024', "with a time zone"),
        ("(n::Int {default: 200, maximum: 100})", "200", "more than the maximum 100"),
        ('(s::Text {enum: ["a", "b"], default: "c"})', '"c"', "is not one of"),
        ('(xs::Array {elementType: "Int", default: [1, "2"]})', "[1", "item 1"),
        (
            '(o::Object {fields: {a: "Int"}, default: {b: 1}})',
            "{b",
            "missing the required field 'a'",
        ),
        ("(b::Bool {default: 1})", "1}", "expected true or false"),
    ],
)
def test_default_must_match_the_type(param: str, at: str, words: str) -> None:
    text = f'[t:Tool {{description: "d"}} | {param}==>()]'
    line, col, message = only_error(text, "gram-default")
    assert (line, col) == position(text, at) and words in message, message


def test_tool_without_signature() -> None:
    for text, at in [
        ('[t:Tool {description: "d"}]', "t:"),
        ('[t:Tool {description: "d"} | (a::Text), (b::Text)]', "(b"),
        ('[t:Tool {description: "d"} | other]', "other"),
    ]:
        assert only_error(text, "gram-signature")[:2] == position(text, at)


@pytest.mark.parametrize(
    "text, code, at",
    [
        (
            '[t:Tool {description: "d"} | (s::Text {minimum: 1})==>()]',
            "gram-constraint",
            "minimum",
        ),
        (
            '[t:Tool {description: "d"} | (s::Text {minLength: -1})==>()]',
            "gram-constraint",
            "-1",
        ),
        (
            '[t:Tool {description: "d"} | (s::Text {pattern: "("})==>()]',
            "gram-constraint",
            '"("',
        ),
        (
            '[t:Tool {description: "d"} | (n::Int {minimum: 5, maximum: 1})==>()]',
            "gram-constraint",
            "5",
        ),
        (
            '[t:Tool {description: "d"} | (s::Text {descripton: "x"})==>()]',
            "gram-key",
            "descripton",
        ),
        (
            '[t:Tool {description: "d"} | (s::Text {fields: {a: "Int"}})==>()]',
            "gram-key",
            "fields",
        ),
        ('[t:Tool {description: "d"} | (s::Array)==>()]', "gram-type", "Array"),
        (
            '[t:Tool {description: "d"} | (s::Object {fields: [{type: "Int"}]})==>()]',
            "gram-param-name",
            "{type",
        ),
        (
            '[t:Tool {description: "d"} | (s::Object {fields: 3})==>()]',
            "gram-type",
            "3",
        ),
        (
            '[t:Tool {description: "d"} | (s::Text {description: "a", description: "b"})==>()]',
            "gram-key",
            'description: "b',
        ),
        (
            '[t:Tool {description: "d"} | (s::Text)==>(s::Text)==>(::Text)]',
            "gram-param-name",
            "s::Text)==>(::",
        ),
        ('[t:Tool:Entity {description: "d"} | ()]', "gram-labels", ":Entity"),
        ('[t:Tol {description: "d"} | ()]', "gram-labels", ":Tol"),
        ('[`a b`:Tool {description: "d"} | ()]', "gram-tool-name", "`a b`"),
        ("[a:Agent | (x::Text)]", "gram-agent", "(x"),
        ("[E:Entity | (a::Text)-->(b::Text)]", "gram-entity", "(a"),
        ("[Text:Entity | (a::Text)]", "gram-entity", "Text:"),
        (
            '[t:Tool {description: "d"} | (::Text {default: "x"})]',
            "gram-default",
            "default",
        ),
        ('[t:Tool {description: "d"} | (x::Void)==>()]', "gram-type", "Void"),
    ],
)
def test_other_diagnostics(text: str, code: str, at: str) -> None:
    found = errors(text)
    assert [f[0] for f in found] == [code], found
    assert found[0][1:3] == position(text, at), found


def test_ignored_patterns_are_warnings() -> None:
    module, diags = load(
        '[note {text: "hi"}]\n(a)-->(b)\n[t:Tool {description: "d"} | ()]'
    )
    assert module is not None and [t.name for t in module.tools] == ["t"]
    assert [(d.severity, d.code) for d in diags] == [("warning", "gram-ignored")] * 2


def test_never_a_traceback() -> None:
    """Random damage to a valid file gives diagnostics (or nothing), never another exception."""
    base = (EXAMPLES / "people.gram").read_text(encoding="utf-8")
    rng = random.Random(1234)
    for _ in range(300):
        chars = list(base)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(chars))
            action = rng.choice(["delete", "duplicate", "insert"])
            if action == "delete":
                del chars[at]
            elif action == "duplicate":
                chars.insert(at, chars[at])
            else:
                chars.insert(at, rng.choice("()[]{}:,|\"'`-=>~<@0.a\n"))
        load(
            "".join(chars)
        )  # must not raise anything but SpecError, which load() absorbs


def test_byte_order_mark_keeps_columns() -> None:
    _, diags = load('\ufeff[t:Tool {description: ""} | ()]')
    assert [(d.code, d.span.line, d.span.col) for d in diags if d.span] == [
        ("gram-description", 1, 24)
    ]


# ── Examples and speed ──────────────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.gram")), ids=lambda p: p.name)
def test_examples_compile(path: Path) -> None:
    module, diags = load(path.read_text(encoding="utf-8"), path.name)
    assert module is not None and not diags, "\n".join(d.render() for d in diags)
    assert module.tools or module.entities


def _generated_tools(count: int) -> str:
    tools = (
        f'[tool{i}:Tool {{description: "Tool number {i} looks things up", owner: "team{i % 7}"}} |\n'
        f'  (query{i}::Text {{description: "What to look for", minLength: 1}})'
        f'==>(limit{i}::Int {{default: 10, minimum: 1}})==>(tags{i}::Array {{elementType: "Text"}})'
        f'==>(::Array {{elementType: "Object", fields: {{id: "Int", title: "Text"}}}})\n]\n'
        for i in range(count)
    )
    return "// generated\n" + "".join(tools)


def test_timing_of_1000_tools(capsys: pytest.CaptureFixture[str]) -> None:
    text = _generated_tools(1000)
    parse_gram("()")  # build the parser first: its one-off cost is not per tool
    parse = min(_timed(lambda: parse_gram(text)) for _ in range(2))
    started = time.perf_counter()
    module, diags = load(text)
    whole = time.perf_counter() - started
    assert module is not None and len(module.tools) == 1000 and not diags
    per_tool = parse * 1000 / 1000  # ms per tool
    with capsys.disabled():
        print(
            f"\n1,000 gram tools ({len(text):,} chars): parse {parse * 1000:.0f} ms = {per_tool:.3f} ms per tool; "
            f"parse + lowering {whole * 1000:.0f} ms = {whole:.3f} ms per tool"
        )
    assert parse / 1000 < 0.005  # 5 ms per tool would mean something went badly wrong


def _timed(action: Any) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start
