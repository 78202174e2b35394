"""The SQL placeholder scanner (codegen/sqlscan.py): placeholders are found outside string literals,
quoted identifiers, comments and `::` casts, and the text handed to SQLAlchemy's `text()` makes it bind exactly
those placeholders and execute exactly the SQL written."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.sqlscan import render, scan

sqlalchemy = pytest.importorskip("sqlalchemy")
from sqlalchemy.dialects import sqlite  # noqa: E402


def names(sql: str) -> list[str]:
    return [p.name for p in scan(sql).placeholders]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM t WHERE a = :a AND b = :b", ["a", "b"]),
        ("SELECT ':a', \"col:b\", `x:c` FROM t WHERE d = :d", ["d"]),
        ("SELECT 'it''s :a' , :b", ["b"]),
        ("SELECT E'it''s :a', :b", ["b"]),
        ("SELECT $$ a:b $$, $tag$ 10:30 $tag$, :c", ["c"]),
        ("SELECT 1 -- :a\n, :b /* :c */", ["b"]),
        ("SELECT x::int, :a::text, CAST(:b AS int)", ["a", "b"]),
        ("SELECT '10:30', 'HH24:MI:SS', a:b, :1, : x", []),
        (
            "SELECT * FROM t WHERE id IN :ids LIMIT :limit OFFSET :offset",
            ["ids", "limit", "offset"],
        ),
        ("SELECT :a, :a, :A", ["a", "a", "A"]),
        ("SELECT :名前", ["名前"]),
    ],
)
def test_placeholders(sql: str, expected: list[str]) -> None:
    assert names(sql) == expected


def test_in_lists() -> None:
    found = scan(
        "SELECT * FROM t WHERE a IN :ids AND b in ( :more ) AND c IN (:x, :y) AND d = :ids"
    )
    flags = [(p.name, p.after_in, p.parens is not None) for p in found.placeholders]
    assert flags == [
        ("ids", True, False),
        ("more", True, True),
        ("x", False, False),
        ("y", False, False),
        ("ids", False, False),
    ]
    text = render(found, {"ids", "more"})
    assert "IN :ids" in text and "in  :more " in text and "IN (:x, :y)" in text


def test_casts_are_rewritten_so_sqlalchemy_binds_them() -> None:
    text = render(scan("SELECT :a::int, :b::numeric(10, 2)[]"), set())
    assert text == "SELECT (:a)::int, (:b)::numeric(10, 2)[]"
    assert set(sqlalchemy.text(text).compile().params) == {"a", "b"}


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        ("SELECT 'abc", "never closed"),
        ('SELECT "abc', "never closed"),
        ("SELECT /* abc", "never closed"),
        ("SELECT $x$ abc", "never closed"),
        ("SELECT :a:b", "directly followed by ':'"),
        ("SELECT ':a:b'", None),
        ("SELECT ':ab:c'", "cannot be escaped"),
        ("SELECT E'it\\'s :a', :b", "only PostgreSQL reads E'…'"),
        ("SELECT $$ :a $$", "only PostgreSQL has dollar-quoted strings"),
        ("SELECT 1 /* /* */ :a */", "PostgreSQL nests /* */ comments"),
        ("SELECT 'a\\' , :a, ''", "read a backslash in '…' as an escape"),
        ("SELECT E'x':a", "would merge with it"),
        ("SELECT '%(a)s', :a", "%(name)s"),
    ],
)
def test_problems(sql: str, problem: str | None) -> None:
    found = [p.message for p in scan(sql).problems]
    if problem is None:
        assert found == []
    else:
        assert any(problem in message for message in found), found


def test_statements() -> None:
    assert scan("SELECT 1;").statements == 1
    assert scan("SELECT 1; -- done\n /* end */ ").statements == 1
    assert scan("SELECT ';'").statements == 1
    assert scan("SELECT 1; SELECT 2").statements == 2
    assert scan("SELECT 1; # MySQL's comment is PostgreSQL's operator").statements == 2


# Pieces of SQL: what each contributes to the expected SQL, and whether it is a placeholder.
PIECES = st.one_of(
    st.sampled_from(
        [
            "SELECT ",
            " FROM t ",
            " = ",
            ", ",
            " x::int ",
            "'10:30'",
            "':lit'",
            "' \\:esc '",
            "E'it''s :q'",
            '"col:x"',
            "-- :c\n",
            "/* :d */",
            "$$ a:e $$",
            " :1 ",
            " a:b ",
            # Not "'%(x)s'": SQLAlchemy rewrites it for positional drivers even in a literal, so scan refuses it.
            " \\:kept ",
            "''",
        ]
    ),
    st.from_regex(r"\A:[a-z_][a-z0-9_]{0,6}(::int)?\Z").map(lambda s: " " + s + " "),
)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(PIECES, min_size=1, max_size=12))
def test_sqlalchemy_binds_exactly_the_scanned_placeholders(pieces: list[str]) -> None:
    sql = "".join(pieces)
    found = scan(sql)
    if found.problems:
        return
    clause = sqlalchemy.text(render(found, set()))
    compiled = clause.compile(dialect=sqlite.dialect())
    assert list(dict.fromkeys(compiled.positiontup or [])) == list(
        dict.fromkeys(p.name for p in found.placeholders)
    )
    # The SQL that reaches the driver is the SQL written (placeholders become `?`; casts gain parentheses;
    # SQLAlchemy's own `\:` escape outside literals stays what it means to SQLAlchemy).
    expected = sql
    for placeholder in sorted(found.placeholders, key=lambda p: -p.start):
        replacement = "(?)" if placeholder.wrap else "?"
        expected = (
            expected[: placeholder.start] + replacement + expected[placeholder.end :]
        )
    expected = expected.replace(" \\:kept ", " :kept ")
    assert str(compiled) == expected


def test_generated_text_is_only_ever_a_literal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """SQL reaches the generated module only through the literal function: a statement full of quotes,
    backslashes and newlines is a valid constant holding exactly the rendered text."""
    from conftest import compile_ok

    sql = "SELECT '\"\"\"' AS a, '\\\\' AS b, :x AS c -- \"\"\" '''\n  , '\\n' AS d"
    (tmp_path / "q.sql").write_text(
        "/*\n---\nname: quoted\ntype: sql_function\narguments:\n  inline:\n    x: int\nreturn_shape: int\n---\n*/\n"
        + sql
    )
    module = compile_ok(tmp_path)["q.py"]
    namespace: dict[str, object] = {}
    constant = re.search(
        r"^QUOTED_SQL: str = (\(.*?^\)|.*?$)", module, re.MULTILINE | re.DOTALL
    )
    assert constant is not None
    exec(
        "value = " + constant.group(1), namespace
    )  # noqa: S102 - our own generated literal
    assert namespace["value"] == render(scan(sql), set())
