"""Every problem in a Brimley spec is a diagnostic at the spot: `path:line:col: error[CODE]: message`, the source
line and a caret (SPEC §6) — never a traceback, and all of them in one run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import compile_result

CUSTOMER = "type: entity\nname: Customer\nfields:\n  customer_id: int\n"

# (files, the file the diagnostic is in, line, column, severity, code, a piece of the message)
CASES: dict[str, tuple[dict[str, str], str, int, int, str, str, str]] = {
    "yaml syntax": (
        {
            "f.yaml": "name: broken\ntype: python_function\narguments:\n  inline:\n    a: int\n   b: string\n"
        },
        "f.yaml",
        6,
        4,
        "error",
        "brimley-yaml",
        "YAML syntax",
    ),
    "yaml syntax in a .sql header": (
        {
            "f.sql": "/*\n---\nname: q\ntype: sql_function\nreturn_shape: [int\n---\n*/\nSELECT 1\n"
        },
        "f.sql",
        6,
        1,
        "error",
        "brimley-yaml",
        "YAML syntax",
    ),
    "unknown type with a suggestion": (
        {
            "f.yaml": "name: typo\ntype: python_function\narguments:\n  inline:\n    a: strng\n"
        },
        "f.yaml",
        5,
        8,
        "error",
        "brimley-type",
        "unknown type 'strng'; did you mean 'string'?",
    ),
    "a type from another language": (
        {
            "f.yaml": "name: typo\ntype: python_function\narguments:\n  inline:\n    a: {type: text}\n"
        },
        "f.yaml",
        5,
        15,
        "error",
        "brimley-type",
        "did you mean 'string'?",
    ),
    "unknown entity": (
        {
            "Customer.yaml": CUSTOMER,
            "f.yaml": "name: u\ntype: python_function\nreturn_shape: Custmer[]\n",
        },
        "f.yaml",
        3,
        15,
        "error",
        "unknown-entity",
        "no entity named 'Custmer' is defined in any spec; did you mean 'Customer'?",
    ),
    "unknown entity_ref": (
        {
            "f.yaml": "name: u\ntype: python_function\narguments:\n  entity_ref: Nobody\n"
        },
        "f.yaml",
        4,
        15,
        "error",
        "unknown-entity",
        "no entity named 'Nobody'",
    ),
    "entity_ref to a non-object": (
        {
            "Status.schema.json": '{"type": "string", "enum": ["a", "b"]}',
            "f.yaml": "name: n\ntype: python_function\narguments:\n  entity_ref: Status\n",
        },
        "f.yaml",
        4,
        15,
        "error",
        "brimley-entity-ref",
        "entity 'Status' is not an object",
    ),
    "entity_ref to a list": (
        {
            "Customer.yaml": CUSTOMER,
            "f.yaml": "name: n\ntype: python_function\narguments:\n  entity_ref: Customer[]\n",
        },
        "f.yaml",
        4,
        15,
        "error",
        "brimley-entity-ref",
        "not a list",
    ),
    "bad from_context scope": (
        {
            "f.yaml": "name: s\ntype: python_function\narguments:\n  inline:\n    u: {type: int, from_context: session.user.id}\n"
        },
        "f.yaml",
        5,
        34,
        "error",
        "brimley-context",
        "unknown context scope 'session'",
    ),
    "from_context without a key": (
        {
            "f.yaml": "name: s\ntype: python_function\narguments:\n  inline:\n    u: {type: int, from_context: app}\n"
        },
        "f.yaml",
        5,
        34,
        "error",
        "brimley-context",
        "not a context path",
    ),
    "from_context in an entity": (
        {
            "E.yaml": "type: entity\nname: E\nfields:\n  u: {type: int, from_context: app.user.id}\n"
        },
        "E.yaml",
        4,
        18,
        "error",
        "brimley-context",
        "belongs to a function's arguments",
    ),
    "placeholder without an argument": (
        {
            "f.sql": "/*\n---\nname: p\ntype: sql_function\narguments:\n  inline:\n    customer_id: int\n---\n*/\n"
            "SELECT *\nFROM orders WHERE customer_id = :customer_id AND status = :stauts\n"
        },
        "f.sql",
        11,
        59,
        "error",
        "brimley-sql-placeholder",
        "the placeholder ':stauts' is not an argument",
    ),
    "placeholder in a yaml sql block": (
        {
            "f.yaml": "name: p\ntype: sql_function\narguments:\n  inline:\n    id: int\nsql: |\n  SELECT *\n"
            "  FROM t\n  WHERE id = :id AND x = :missing\n"
        },
        "f.yaml",
        9,
        26,
        "error",
        "brimley-sql-placeholder",
        "':missing' is not an argument",
    ),
    "unused argument": (
        {
            "f.sql": "/*\n---\nname: w\ntype: sql_function\narguments:\n  inline:\n    unused: int\n---\n*/\nSELECT 1\n"
        },
        "f.sql",
        7,
        5,
        "warning",
        "brimley-sql-unused",
        "'unused' is never used",
    ),
    "an entity bound to a placeholder": (
        {
            "Customer.yaml": CUSTOMER,
            "f.sql": "/*\n---\nname: b\ntype: sql_function\narguments:\n  inline:\n    c: Customer\n---\n*/\nSELECT :c\n",
        },
        "f.sql",
        10,
        8,
        "error",
        "brimley-sql-placeholder",
        "':c' is the entity Customer",
    ),
    "two statements": (
        {
            "f.sql": "/*\n---\nname: two\ntype: sql_function\n---\n*/\nSELECT 1; DELETE FROM t;\n"
        },
        "f.sql",
        7,
        9,
        "error",
        "brimley-sql",
        "more than one SQL statement",
    ),
    "an unclosed string literal": (
        {"f.sql": "/*\n---\nname: lit\ntype: sql_function\n---\n*/\nSELECT 'abc\n"},
        "f.sql",
        7,
        8,
        "error",
        "brimley-sql",
        "string literal is never closed",
    ),
    "an unclosed header": (
        {"f.sql": "/*\n---\nname: h\ntype: sql_function\n---\nSELECT 1\n"},
        "f.sql",
        1,
        1,
        "error",
        "brimley-sql-header",
        "never closed",
    ),
    "conflicting argument names": (
        {
            "Customer.yaml": CUSTOMER,
            "f.yaml": "name: c\ntype: python_function\narguments:\n  entity_ref: Customer\n  inline:\n    customer_id: string\n",
        },
        "f.yaml",
        6,
        5,
        "error",
        "brimley-arg-name",
        "declared here and also inherited from entity 'Customer'",
    ),
    "an override of nothing": (
        {
            "Customer.yaml": CUSTOMER,
            "f.yaml": "name: c\ntype: python_function\narguments:\n  entity_ref: Customer\n  inline:\n"
            "    region: {default: eu}\n",
        },
        "f.yaml",
        6,
        5,
        "error",
        "brimley-type",
        "entity 'Customer' has no field 'region'",
    ),
    "bad resource path": (
        {
            "r.yaml": "type: resource\nname: doc\npath: /docs/{category/{page}\narguments:\n  inline: {category: string, page: int}\n"
        },
        "r.yaml",
        3,
        13,
        "error",
        "brimley-resource-path",
        "unbalanced '{'",
    ),
    "catch-all not last": (
        {
            "r.yaml": "type: resource\nname: doc\npath: '/docs/{rest*}/{page}'\narguments:\n  inline: {rest: string, page: int}\n"
        },
        "r.yaml",
        3,
        22,
        "error",
        "brimley-resource-path",
        "must be last",
    ),
    "resource argument not in the path": (
        {
            "r.yaml": "type: resource\nname: doc\npath: /docs/{category}\narguments:\n  inline: {category: string, page: int}\n"
        },
        "r.yaml",
        5,
        30,
        "error",
        "brimley-resource-path",
        "'page' does not appear in the path",
    ),
    "unknown top-level key": (
        {"f.yaml": "name: k\ntype: python_function\ndescripton: typo\n"},
        "f.yaml",
        3,
        1,
        "error",
        "brimley-key",
        "unknown key 'descripton'; did you mean 'description'?",
    ),
    "unknown key in a complex entry": (
        {
            "f.yaml": "name: k\ntype: python_function\narguments:\n  inline:\n    a: {type: int, maximun: 3}\n"
        },
        "f.yaml",
        5,
        20,
        "error",
        "brimley-key",
        "unknown key 'maximun'; did you mean 'maximum'?",
    ),
    "unknown definition type": (
        {"f.yaml": "name: k\ntype: sql_functon\n"},
        "f.yaml",
        2,
        7,
        "error",
        "brimley-type",
        "did you mean 'sql_function'?",
    ),
    "a constraint that does not apply": (
        {
            "f.yaml": "name: k\ntype: python_function\narguments:\n  inline:\n    a: {type: bool, maximum: 3}\n"
        },
        "f.yaml",
        5,
        21,
        "error",
        "brimley-constraint",
        "'maximum' does not apply to boolean",
    ),
    "a default of the wrong type": (
        {
            "f.yaml": "name: k\ntype: python_function\narguments:\n  inline:\n    a: {type: int, default: ten}\n"
        },
        "f.yaml",
        5,
        29,
        "error",
        "brimley-default",
        "does not match the type integer",
    ),
    "a bad name": (
        {"f.yaml": "name: 9lives\ntype: python_function\n"},
        "f.yaml",
        1,
        7,
        "error",
        "brimley-name",
        "not a valid name",
    ),
    "an inline return shape for SQL": (
        {
            "f.sql": "/*\n---\nname: q\ntype: sql_function\nreturn_shape: {inline: {a: int}}\n---\n*/\nSELECT 1\n"
        },
        "f.sql",
        5,
        15,
        "error",
        "brimley-return",
        "rows map to",
    ),
    "a resource and a tool of one name": (
        {
            "r.yaml": "type: resource\nname: same\npath: /x\n",
            "t.yaml": "name: same\ntype: python_function\n",
        },
        "r.yaml",
        2,
        7,
        "error",
        "duplicate-name",
        "defined more than once",
    ),
}

LINE = re.compile(
    r"^(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>[a-z-]+)\]: (?P<msg>.+)$"
)


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_problem_is_reported_at_its_spot(tmp_path: Path, case: str) -> None:
    files, where, line, col, severity, code, message = CASES[case]
    specs = tmp_path / "specs"
    for name, text in files.items():
        (specs / name).parent.mkdir(parents=True, exist_ok=True)
        (specs / name).write_text(text)
    result = compile_result(specs)
    rendered = [d.render() for d in result.diagnostics.sorted()]
    found = []
    for text in rendered:
        head = LINE.match(text.splitlines()[0])
        assert head, text
        found.append(
            (
                Path(head["path"]).name,
                int(head["line"]),
                int(head["col"]),
                head["sev"],
                head["code"],
            )
        )
        if (found[-1] == (where, line, col, severity, code)) and message in head["msg"]:
            # The source line and a caret under the column follow.
            source_line = (specs / where).read_text().splitlines()[line - 1]
            assert text.splitlines()[
                1
            ] == f"{line} | {source_line}".rstrip() or text.splitlines()[1].endswith(
                source_line.strip()
            )
            assert text.splitlines()[2].index("^") == len(f"{line} | ") + col - 1
            break
    else:
        pytest.fail(
            f"expected {where}:{line}:{col}: {severity}[{code}] …{message}…; got:\n"
            + "\n".join(rendered)
        )
    if severity == "error":
        assert result.files is None
    assert "Traceback" not in "\n".join(rendered)


def test_all_problems_of_a_run_are_reported_together(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    for index, case in enumerate(
        (
            "unknown type with a suggestion",
            "bad from_context scope",
            "bad resource path",
        )
    ):
        files = CASES[case][0]
        for name, text in files.items():
            (specs / f"{index}_{name}").write_text(
                text.replace("name: ", f"name: n{index}", 1)
            )
    codes = sorted(d.code for d in compile_result(specs).diagnostics.sorted())
    assert codes == ["brimley-context", "brimley-resource-path", "brimley-type"]
