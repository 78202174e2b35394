"""Generated SQL functions run on real databases: a SQLite file and a PostgreSQL server (tests/pg.py).

The package compiled here is examples/specs/brimley (invoices) plus the SQL functions below; every test runs on
both databases, each in a transaction that is rolled back. What is checked: IN-lists (expanding), dates,
date-times with time zones, decimals, NULLs in parameters and rows, context-injected values (which win over what
a caller sends), one row / all rows / a value / a column / nothing, and a value full of SQL metacharacters that
must be bound, never executed.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import EXAMPLES, generate_package

sqlalchemy = pytest.importorskip("sqlalchemy")

EVIL = "'); DROP TABLE invoices; --"
UTC = datetime.timezone.utc

SPECS = {
    "echo_text.sql": """
/*
---
name: echo_text
type: sql_function
arguments:
  inline:
    text: string
return_shape: string
---
*/
SELECT :text
""",
    "add_note.sql": """
/*
---
name: add_note
type: sql_function
connection: billing
arguments:
  inline:
    note_id: int
    invoice_id: int
    body: string
---
*/
INSERT INTO notes (note_id, invoice_id, body) VALUES (:note_id, :invoice_id, :body)
""",
    "notes_of.sql": """
/*
---
name: notes_of
type: sql_function
arguments:
  inline:
    invoice_id: int
return_shape: string[]
---
*/
SELECT body FROM notes WHERE invoice_id = :invoice_id ORDER BY note_id
""",
    "literal_colons.sql": """
/*
---
name: literal_colons
type: sql_function
arguments:
  inline:
    value: string
return_shape: string
---
*/
-- :value here is a comment, ':value' below is text; only the last one is a placeholder
SELECT ':not_a_param ' || /* :value */ ':value ' || :value
""",
    "first_invoice.sql": """
/*
---
name: first_invoice
type: sql_function
arguments:
  inline:
    tenant_id: int
return_shape: Invoice
---
*/
SELECT invoice_id, account_id, amount, status, issued_on, paid_at, overdue FROM invoices WHERE tenant_id = :tenant_id
""",
    "count_ids.sql": """
/*
---
name: count_ids
type: sql_function
arguments:
  inline:
    ids: int[]
return_shape: int
---
*/
SELECT COUNT(*) FROM invoices WHERE invoice_id IN ( :ids )
""",
    "count_status.sql": """
/*
---
name: count_status
type: sql_function
arguments:
  inline:
    status:
      type: string
      required: false
    since:
      type: date
      required: false
return_shape: int
---
*/
SELECT COUNT(*) FROM invoices
WHERE (:status IS NULL OR status = :status) AND (:since IS NULL OR issued_on >= :since)
""",
    "region.sql": """
/*
---
name: region
type: sql_function
arguments:
  inline:
    region:
      type: string
      from_context: config.deployment.region
      default: eu
    user_id:
      type: int
      from_context: app.user.id
return_shape: string
---
*/
SELECT :region || '/' || CAST(:user_id AS VARCHAR(20))
""",
    "pg_cast.sql": """
/*
---
name: pg_cast
type: sql_function
arguments:
  inline:
    amount: string
return_shape: int
---
*/
SELECT :amount::int + 1
""",
}

SCHEMA = [
    """CREATE TABLE invoices (
        invoice_id INTEGER PRIMARY KEY,
        tenant_id INTEGER NOT NULL,
        account_id INTEGER NOT NULL,
        amount NUMERIC(12, 2) NOT NULL,
        status VARCHAR(20) NOT NULL,
        issued_on DATE NOT NULL,
        paid_at TIMESTAMP WITH TIME ZONE,
        overdue BOOLEAN NOT NULL
    )""",
    "CREATE TABLE notes (note_id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL, body TEXT NOT NULL)",
]
ROWS = [
    (1, 1, 10, "12.50", "open", "2024-01-05", None, False),
    (
        2,
        1,
        10,
        "99.99",
        "paid",
        "2024-02-01",
        datetime.datetime(2024, 2, 3, 9, 30, tzinfo=UTC),
        False,
    ),
    (3, 1, 11, "0.10", "open", "2024-03-15", None, True),
    (4, 1, 12, "1000.00", "open", "2024-03-20", None, False),
    (5, 2, 10, "5.00", "open", "2024-04-01", None, False),
]
INSERT = (
    "INSERT INTO invoices (invoice_id, tenant_id, account_id, amount, status, issued_on, paid_at, overdue) "
    "VALUES (:invoice_id, :tenant_id, :account_id, :amount, :status, :issued_on, :paid_at, :overdue)"
)
TENANT_1 = {"app": {"tenant": {"id": 1}}}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    extra = tmp_path_factory.mktemp("sql_specs")
    for name, text in SPECS.items():
        (extra / "sqltests").mkdir(exist_ok=True)
        (extra / "sqltests" / name).write_text(text.lstrip())
    out, name = generate_package(
        tmp_path_factory.mktemp("sql_pkg"), EXAMPLES / "brimley", extra, name="sql_gen"
    )
    sys.path.insert(0, str(out.parent))
    try:
        import importlib

        importlib.invalidate_caches()
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'billing.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    engine = sqlalchemy.create_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def _sql_runtime(pkg: ModuleType) -> ModuleType:
    """The runtime's `sql` module (imported by the first SQL tool module used, not by the package)."""
    return importlib.import_module("toolspec_runtime.sql")


@pytest.fixture
def conn(engine: Any, pkg: ModuleType) -> Iterator[Any]:
    """A connection in a transaction holding the test data, rolled back afterwards."""
    with engine.connect() as connection:
        transaction = connection.begin()
        try:
            for statement in SCHEMA:
                connection.exec_driver_sql(statement)
            run = _sql_runtime(pkg).execute
            for row in ROWS:
                invoice_id, tenant, account, amount, status, issued, paid, overdue = row
                values = {
                    "invoice_id": invoice_id,
                    "tenant_id": tenant,
                    "account_id": account,
                    "amount": decimal.Decimal(amount),
                    "status": status,
                    "issued_on": datetime.date.fromisoformat(issued),
                    "paid_at": paid,
                    "overdue": overdue,
                }
                run(connection, INSERT, values, types={"paid_at": "date-time"})
            yield connection
        finally:
            transaction.rollback()


def ids(invoices: list[Any]) -> list[int]:
    return [invoice.invoice_id for invoice in invoices]


def test_in_list_dates_decimals_and_nulls_come_back_typed(
    pkg: ModuleType, conn: Any
) -> None:
    args = pkg.ListInvoicesArgs(account_ids=[10, 11])
    found = pkg.list_invoices(conn, args, TENANT_1)
    assert ids(found) == [3, 1]  # status defaults to "open"; newest first
    third = found[0]
    assert isinstance(third, pkg.Invoice)
    assert third.amount == decimal.Decimal("0.10") and isinstance(
        third.amount, decimal.Decimal
    )
    assert third.issued_on == datetime.date(2024, 3, 15)
    assert third.paid_at is None and third.overdue is True
    assert found[1].amount == decimal.Decimal("12.50") and found[1].overdue is False


def test_date_parameter_null_and_set(pkg: ModuleType, conn: Any) -> None:
    since = pkg.ListInvoicesArgs(
        account_ids=[10, 11, 12], issued_after=datetime.date(2024, 3, 16)
    )
    assert ids(pkg.list_invoices(conn, since, TENANT_1)) == [4]
    everything = pkg.ListInvoicesArgs(
        account_ids=[10, 11, 12]
    )  # issued_after absent: NULL
    assert ids(pkg.list_invoices(conn, everything, TENANT_1)) == [4, 3, 1]
    assert ids(
        pkg.list_invoices(
            conn, pkg.ListInvoicesArgs(account_ids=[10, 11, 12], limit=2), TENANT_1
        )
    ) == [4, 3]


def test_aware_datetimes_round_trip(pkg: ModuleType, conn: Any) -> None:
    paid = pkg.list_invoices(
        conn, pkg.ListInvoicesArgs(account_ids=[10], status="paid"), TENANT_1
    )
    assert ids(paid) == [2]
    assert paid[0].paid_at == datetime.datetime(2024, 2, 3, 9, 30, tzinfo=UTC)
    when = datetime.datetime(
        2024, 5, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
    )
    args = pkg.MarkInvoicePaidArgs(invoice_id=3, paid_at=when)
    assert pkg.execute_mark_invoice_paid(conn, args, TENANT_1).rowcount == 1
    updated = pkg.get_invoice(conn, pkg.GetInvoiceArgs(invoice_id=3), TENANT_1)
    assert updated is not None and updated.status == "paid" and updated.paid_at == when
    assert (
        pkg.mark_invoice_paid(conn, args, TENANT_1) is None
    )  # void; no longer open, nothing changes
    assert pkg.execute_mark_invoice_paid(conn, args, TENANT_1).rowcount == 0


def test_context_values_are_bound_and_scope_the_query(
    pkg: ModuleType, conn: Any
) -> None:
    args = pkg.ListInvoicesArgs(account_ids=[10])
    assert ids(pkg.list_invoices(conn, args, {"app": {"tenant": {"id": 2}}})) == [5]
    assert set(pkg.bind_list_invoices(args, TENANT_1)) == {
        "tenant_id",
        "account_ids",
        "status",
        "issued_after",
        "limit",
    }
    assert pkg.bind_list_invoices(args, TENANT_1)["tenant_id"] == 1

    class Session:  # the context may be an object: looked up by attribute
        class app:  # noqa: N801
            class tenant:  # noqa: N801
                id = 2

    assert ids(pkg.list_invoices(conn, args, Session())) == [5]
    with pytest.raises(LookupError, match="app.tenant.id"):
        pkg.list_invoices(conn, args, {})


def test_context_defaults_and_conversion(pkg: ModuleType, conn: Any) -> None:
    args = pkg.RegionArgs()
    assert pkg.region(conn, args, {"app": {"user": {"id": 7}}}) == "eu/7"
    context = {"app": {"user": {"id": 8}}, "config": {"deployment": {"region": "us"}}}
    assert pkg.region(conn, args, context) == "us/8"
    # Context values are checked exactly, as arguments are: the text "8" is not the integer 8.
    with pytest.raises(ValueError, match="app.user.id"):
        pkg.region(conn, args, {"app": {"user": {"id": "8"}}})
    with pytest.raises(LookupError, match="app.user.id"):
        pkg.region(conn, args, {"config": {}})


def test_one_row_none_and_more_than_one(pkg: ModuleType, conn: Any) -> None:
    one = pkg.get_invoice(conn, pkg.GetInvoiceArgs(invoice_id=1), TENANT_1)
    assert (
        one is not None
        and one.invoice_id == 1
        and one.amount == decimal.Decimal("12.5")
    )
    assert (
        pkg.get_invoice(conn, pkg.GetInvoiceArgs(invoice_id=5), TENANT_1) is None
    )  # another tenant's
    assert pkg.get_invoice(conn, pkg.GetInvoiceArgs(invoice_id=999), TENANT_1) is None
    assert pkg.first_invoice(conn, pkg.FirstInvoiceArgs(tenant_id=2)).invoice_id == 5
    with pytest.raises(_sql_runtime(pkg).SqlResultError, match="more than one row"):
        pkg.first_invoice(conn, pkg.FirstInvoiceArgs(tenant_id=1))


def test_value_and_column_results(pkg: ModuleType, conn: Any) -> None:
    balance = pkg.open_balance(conn, pkg.OpenBalanceArgs(account_id=10), TENANT_1)
    assert isinstance(balance, decimal.Decimal) and balance == decimal.Decimal("12.50")
    assert pkg.open_balance(conn, pkg.OpenBalanceArgs(account_id=99), TENANT_1) == 0
    pkg.add_note(conn, pkg.AddNoteArgs(note_id=2, invoice_id=1, body="second"))
    pkg.add_note(conn, pkg.AddNoteArgs(note_id=1, invoice_id=1, body="first"))
    assert pkg.notes_of(conn, pkg.NotesOfArgs(invoice_id=1)) == ["first", "second"]
    assert pkg.notes_of(conn, pkg.NotesOfArgs(invoice_id=2)) == []


def test_sql_metacharacters_are_bound_never_executed(
    pkg: ModuleType, conn: Any
) -> None:
    assert pkg.echo_text(conn, pkg.EchoTextArgs(text=EVIL)) == EVIL
    tricky = EVIL + " :body %(body)s ? $1 \\' \" ::int"
    pkg.add_note(conn, pkg.AddNoteArgs(note_id=1, invoice_id=1, body=tricky))
    assert pkg.notes_of(conn, pkg.NotesOfArgs(invoice_id=1)) == [tricky]
    found = pkg.list_invoices(
        conn, pkg.ListInvoicesArgs(account_ids=[10, 11, 12]), TENANT_1
    )
    assert ids(found) == [4, 3, 1]  # the table is still there
    assert pkg.count_status(conn, pkg.CountStatusArgs(status=EVIL)) == 0


def test_colons_in_literals_and_comments_are_not_parameters(
    pkg: ModuleType, conn: Any
) -> None:
    assert (
        "value" not in pkg.bind_literal_colons(pkg.LiteralColonsArgs(value="x")) or True
    )
    assert set(pkg.bind_literal_colons(pkg.LiteralColonsArgs(value="x"))) == {"value"}
    assert (
        pkg.literal_colons(conn, pkg.LiteralColonsArgs(value="x"))
        == ":not_a_param :value x"
    )


def test_in_list_in_parentheses_and_empty(pkg: ModuleType, conn: Any) -> None:
    assert pkg.count_ids(conn, pkg.CountIdsArgs(ids=[1, 2, 3, 42])) == 3
    assert pkg.count_ids(conn, pkg.CountIdsArgs(ids=[4])) == 1
    assert pkg.count_ids(conn, pkg.CountIdsArgs(ids=[])) == 0


def test_null_parameters(pkg: ModuleType, conn: Any) -> None:
    assert pkg.count_status(conn, pkg.CountStatusArgs()) == 5
    assert pkg.count_status(conn, pkg.CountStatusArgs(status="open")) == 4
    assert (
        pkg.count_status(conn, pkg.CountStatusArgs(since=datetime.date(2024, 3, 1)))
        == 3
    )
    assert (
        pkg.count_status(
            conn, pkg.CountStatusArgs(status="open", since=datetime.date(2024, 3, 16))
        )
        == 2
    )


def test_dispatch_runs_sql_tools_on_the_contexts_connection(
    pkg: ModuleType, conn: Any
) -> None:
    context = {"app": {"tenant": {"id": 1}}, "databases": {"billing": conn}}
    # The caller's tenant_id is dropped: the context's value wins.
    result = pkg.dispatch(
        "list_invoices", '{"account_ids": [10], "tenant_id": 2}', None, context
    )
    assert result.ok, result.error
    assert ids(result.value) == [1]
    data = json.loads(result.to_json())
    assert (
        data[0]["amount"] in (12.5, "12.50", "12.5")
        and data[0]["issued_on"] == "2024-01-05"
    )
    missing = pkg.dispatch(
        "list_invoices", {"account_ids": [10]}, None, {"app": {"tenant": {"id": 1}}}
    )
    assert missing.error is not None and missing.error.kind == "missing_context"
    assert "databases.billing" in missing.error.message
    no_tenant = pkg.dispatch(
        "list_invoices", {"account_ids": [10]}, None, {"databases": {"billing": conn}}
    )
    assert no_tenant.error is not None and no_tenant.error.kind == "missing_context"
    bad = pkg.dispatch("list_invoices", {"account_ids": []}, None, context)
    assert bad.error is not None and bad.error.kind == "invalid_arguments"
    none = pkg.dispatch("get_invoice", {"invoice_id": 999}, None, context)
    assert none.ok and none.value is None


def test_postgresql_cast_after_a_placeholder(
    pkg: ModuleType, postgres_url: str
) -> None:
    """`:amount::int` is rewritten to `(:amount)::int`, so SQLAlchemy binds it (PostgreSQL syntax only)."""
    assert "(:amount)::int" in pkg.PG_CAST_SQL
    engine = sqlalchemy.create_engine(postgres_url)
    try:
        with engine.connect() as connection:
            assert pkg.pg_cast(connection, pkg.PgCastArgs(amount="41")) == 42
    finally:
        engine.dispose()
