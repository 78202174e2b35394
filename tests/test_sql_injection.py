"""SQL stays bound: a SQL text that databases read differently is refused, and an accepted one binds every value
on PostgreSQL (psycopg2, which interpolates values client-side, and psycopg 3) and on SQLite.

The audit's attack: `/* /* */` is one unfinished comment for PostgreSQL (comments nest) but a whole comment for a
scanner that stops at the first `*/`. A placeholder after it was bound, psycopg2 put the value's quoted text inside
the comment, and `x */ OR owner <> 1 /*` ended the comment: other tenants' rows came back, and a stacked
`CREATE TABLE` ran. Now the compiler refuses such SQL with a diagnostic.

The property test draws SQL from fragments (comments nested or not, strings of every kind, dollar quotes, quoted
identifiers, placeholders inside and outside them) and hostile values. CODEGEN_HOSTILE_EXAMPLES=2000 runs it
longer than the default.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.sqlscan import render, scan
from toolspec_runtime.sql import execute
from conftest import compile_result

sqlalchemy = pytest.importorskip("sqlalchemy")

DRIVERS = ["postgresql+psycopg2", "postgresql+psycopg", "sqlite"]

ATTACK_SQL = "SELECT body FROM docs WHERE owner = 1 /* tenant filter /* legacy */ AND body <> :x */"
LEAK = "x */ OR owner <> 1 /*"
STACKED = "x */ ; CREATE TABLE pwned (i int); /*"

HOSTILE = [
    "x */ OR 1=1 /*",
    STACKED,
    "x */ ; CREATE TABLE pwned (i int); SELECT 1 /*",  # the rest of the statement still parses
    "'; CREATE TABLE pwned (i int); --",
    "\\'; CREATE TABLE pwned (i int); --",
    "$$; CREATE TABLE pwned (i int); --",
    "$q$; CREATE TABLE pwned (i int); --",
    "\\",
    "%s %(a)s %% %",
    ";DROP TABLE t;--",
    '" ` ] # -- /*',
    "\x01\x07\x1b\t\r\n\x7f end",
]


@pytest.fixture(scope="module")
def engines(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    """One engine per driver: psycopg2 and psycopg 3 on the throwaway PostgreSQL server, and a SQLite file."""
    url = request.getfixturevalue("postgres_url")
    host = url.split("://", 1)[1]
    sqlite = tmp_path_factory.mktemp("sqlite") / "hostile.sqlite"
    made = {
        "postgresql+psycopg2": sqlalchemy.create_engine(
            f"postgresql+psycopg2://{host}"
        ),
        "postgresql+psycopg": sqlalchemy.create_engine(f"postgresql+psycopg://{host}"),
        "sqlite": sqlalchemy.create_engine(f"sqlite:///{sqlite}"),
    }
    try:
        yield made
    finally:
        for engine in made.values():
            engine.dispose()


def pwned(conn: Any) -> bool:
    if conn.dialect.name == "sqlite":
        query = "SELECT count(*) FROM sqlite_master WHERE name = 'pwned'"
    else:
        query = "SELECT count(*) FROM pg_class WHERE relname = 'pwned'"
    return bool(conn.exec_driver_sql(query).scalar())


def write_spec(folder: Path, sql: str) -> Path:
    (folder / "docs_of.sql").write_text(
        "/*\n---\nname: docs_of\ntype: sql_function\narguments:\n  inline:\n    x: string\n"
        "return_shape: string[]\n---\n*/\n" + sql + "\n"
    )
    return folder


@pytest.mark.parametrize("driver", DRIVERS)
def test_audit_attack_is_real_and_now_refused(
    driver: str, engines: dict[str, Any], tmp_path: Path
) -> None:
    with engines[driver].connect() as conn:
        conn.begin()
        try:
            conn.exec_driver_sql(
                "CREATE TABLE docs (id INTEGER PRIMARY KEY, owner INTEGER, body TEXT)"
            )
            conn.exec_driver_sql(
                "INSERT INTO docs VALUES (1, 1, 'mine'), (2, 2, 'theirs')"
            )
            conn.commit()
            leaked = stacked = False
            # What the old compiler generated: the text as written, `:x` bound.
            for value in (LEAK, STACKED):
                try:
                    with conn.begin_nested():
                        result = execute(conn, ATTACK_SQL, {"x": value})
                        stacked |= pwned(conn)
                        leaked |= result.returns_rows and ("theirs",) in result.all()
                except sqlalchemy.exc.DBAPIError:
                    pass
            # The witness: psycopg2 interpolates the value into PostgreSQL's comment; the others bind it.
            assert (leaked, stacked) == (
                (True, True) if driver.endswith("psycopg2") else (False, False)
            )
        finally:
            conn.rollback()
            with conn.begin():
                conn.exec_driver_sql("DROP TABLE IF EXISTS docs")
                conn.exec_driver_sql("DROP TABLE IF EXISTS pwned")

    result = compile_result(write_spec(tmp_path, ATTACK_SQL))
    assert result.files is None
    rendered = [d.render() for d in result.diagnostics.sorted()]
    assert any(
        "docs_of.sql:11:" in d
        and "error[brimley-sql]" in d
        and "':x' is SQL in SQLite and MySQL but inside a comment in PostgreSQL" in d
        and "PostgreSQL nests /* */ comments" in d
        and "^^" in d
        for d in rendered
    ), rendered


# Each holds a placeholder some database reads as text, or text SQLAlchemy rewrites into parameters.
REFUSED = [
    ("nested comment", "SELECT 1 /* /* */ :x */"),
    ("PostgreSQL ends -- at CR", "SELECT 1 -- note\r, :x"),
    ("MySQL needs a space after --", "SELECT 1 --note :x\n"),
    ("MySQL # comment", "SELECT 2 # :x\n"),
    ("MySQL runs /*! */", "SELECT 1 /*! , :x */"),
    ("E-string backslash", "SELECT E'\\' , :x , '"),
    ("backslash before a quote", "SELECT 'C:\\', :x, 'x'"),
    ("dollar quote", "SELECT $$ :x $$"),
    ("tagged dollar quote", "SELECT $q$ :x $q$"),
    ("double-quoted string in MySQL", 'SELECT "a\\" , :x , "'),
    ("SQLite brackets", "SELECT a[:x]"),
    ("backticks", "SELECT `:x`"),
    ("value merges into E'…'", "SELECT E'a':x"),
    ("value followed by a dollar quote", "SELECT :x$$ || :y || $$ $$"),
    ("version-dependent number", "SELECT 0x1F$$ :x $$"),
    ("unclosed comment", "SELECT :x /* done"),
    ("unclosed string", "SELECT :x, 'done"),
    ("SQLAlchemy pyformat text", "SELECT '%(x)s', :x"),
    ("SQLAlchemy expanding text", "SELECT '__[POSTCOMPILE_ids]' WHERE 1 IN :ids"),
    ("stacked statement", "SELECT :x; CREATE TABLE pwned (i int)"),
    ("stacked after a MySQL-only comment", "SELECT :x; # c"),
    ("NUL", "SELECT :x\x00"),
]


@pytest.mark.parametrize(("why", "sql"), REFUSED, ids=[w for w, _ in REFUSED])
def test_sql_databases_read_differently_is_refused(why: str, sql: str) -> None:
    found = scan(sql)
    assert found.problems or found.extra_statement is not None, why


def test_nested_comments_stay_linear() -> None:
    """Hostile nesting cannot make the scanner hang (each search resumes where the last one stopped)."""
    import time

    start = time.perf_counter()
    assert scan("/*" * 100_000 + "*/" * 99_999).problems  # one level left open
    assert scan("'" * 200_001).problems
    scan("/* " + "*/ " * 100_000 + "/*" * 100_000)
    assert time.perf_counter() - start < 10


# ── the property: accepted SQL binds every value, on every driver ─────────────────────────────────────────

# Text inside comments, strings and identifiers: harmless words, placeholders, and what ends or opens a construct.
TEXT = st.lists(
    st.one_of(
        st.sampled_from(["x", " ", "a:b", ":a", "10:30"]),
        st.sampled_from(
            [
                "*/",
                "/*",
                "\\",
                "'",
                "''",
                "\\'",
                "$$",
                "$q$",
                ";",
                "--",
                "#",
                "\n",
                "\r",
                '"',
                "%",
                "%(a)s",
            ]
        ),
    ),
    max_size=4,
).map("".join)
GAP = st.one_of(
    st.just(" "),
    TEXT.map(lambda t: f" /* {t} */ "),
    TEXT.map(lambda t: f" /* /* {t} */ */ "),
    TEXT.map(lambda t: f" /* /* x */ {t} */ "),  # the audit's shape
    TEXT.map(lambda t: f" -- {t}\n"),
    TEXT.map(lambda t: f" --{t}\n"),
    TEXT.map(lambda t: f" # {t}\n"),
)
EXPR = st.one_of(
    st.just(":a"),
    TEXT.map(lambda t: f"'{t}'"),
    TEXT.map(lambda t: f"E'{t}'"),
    TEXT.map(lambda t: f"$${t}$$"),
    TEXT.map(lambda t: f"$q${t}$q$"),
    TEXT.map(lambda t: f"U&'{t}'"),
    TEXT.map(lambda t: f'"{t}"'),
    TEXT.map(lambda t: f"[{t}]"),
    TEXT.map(lambda t: f"`{t}`"),
)


@st.composite
def statements(draw: st.DrawFn) -> tuple[str, int]:
    """`SELECT <expr> AS c0, …` with gaps between the tokens; the placeholder columns are named v0, v1, …"""
    columns, placeholders = [], 0
    for index in range(draw(st.integers(1, 4))):
        expr = draw(EXPR)
        alias = f"v{placeholders}" if expr == ":a" else f"c{index}"
        placeholders += expr == ":a"
        columns.append(f"{draw(GAP)}{expr}{draw(GAP)}AS {alias}")
    return "SELECT" + ",".join(columns) + draw(GAP), placeholders


EXAMPLES = int(os.environ.get("CODEGEN_HOSTILE_EXAMPLES", "60"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(statement=statements())
def test_accepted_sql_returns_hostile_values_unchanged(
    engines: dict[str, Any], statement: tuple[str, int]
) -> None:
    sql, placeholders = statement
    found = scan(sql)
    if found.problems or found.extra_statement is not None:
        return
    text = render(found, set())
    for driver, engine in engines.items():
        with engine.connect() as conn:
            for value in HOSTILE:
                row = run(conn, text, value, sql)
                if row is not None:
                    bound = {k: v for k, v in row.items() if str(k).startswith("v")}
                    expected = {f"v{i}": value for i in range(placeholders)}
                    assert bound == expected, (driver, sql)


def run(conn: Any, text: str, value: str, sql: str) -> Any:
    """The first row of `text` run with `:a` bound to `value` (None if the database refuses the SQL), checking
    that no stacked statement ran; rolled back."""
    with conn.begin():
        try:
            with conn.begin_nested():
                row = execute(conn, text, {"a": value}).mappings().first()
        except sqlalchemy.exc.DBAPIError as exc:
            # Not valid SQL for this database: an error, never an injection. But PostgreSQL must find the
            # placeholder where the scanner did (psycopg 3 sends it as $1: in a comment, it is missing).
            assert "bind message supplies" not in str(exc), (sql, exc)
            row = None
        assert not pwned(conn), (conn.dialect.driver, sql, value)
        conn.rollback()
    return row


ACCEPTED = [
    "SELECT /* :a ; */ :a AS v0 -- ; :a\n",
    "SELECT 'it''s :a; */' AS c, :a AS v0",
    'SELECT :a AS "v0"',
    "SELECT :a AS v0, '%' AS c, '%%s' AS d",
    "SELECT :a AS v0 /* a ' quote and a \" quote */",
    "SELECT :a AS v0;",
]


@pytest.mark.parametrize("sql", ACCEPTED)
def test_tricky_but_portable_sql_is_accepted_and_bound(
    sql: str, engines: dict[str, Any]
) -> None:
    found = scan(sql)
    assert not found.problems and found.extra_statement is None
    for driver, engine in engines.items():
        with engine.connect() as conn:
            for value in HOSTILE:
                row = execute(conn, render(found, set()), {"a": value}).mappings().one()
                assert row["v0"] == value, driver
            assert not pwned(conn)
            conn.rollback()
