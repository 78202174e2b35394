"""The generated example package served over MCP, as a user's `__main__` would: an implementation of every
example tool (sync, or async with `--async`), a SQLite billing database for the SQL tools, the context and
config the tools read. tests/test_mcp_serve.py starts it in a subprocess:

    python tests/mcp_example_server.py FOLDER PACKAGE stdio|streamable-http [PORT] [--async] [--db PATH]

It is also imported for its tables of calls (`CALLS`: valid arguments of every tool; `INVALID`: arguments each
tool refuses, with the paths the problems name).
"""

from __future__ import annotations

import asyncio
import datetime
import importlib
import sys
from typing import Any

# Valid arguments of every example tool, by wire name (SQL tools run against the database `database` makes).
CALLS: dict[str, dict[str, Any]] = {
    "cancel_order": {"order_id": 3, "reason": "late"},
    "dunning_letter": {
        "customer_name": "Ann",
        "invoice": {
            "invoice_id": 1,
            "account_id": 10,
            "amount": 12.5,
            "status": "open",
            "issued_on": "2024-01-05",
            "overdue": True,
        },
        "tone": "firm",
    },
    "exchange_rate": {"base": "EUR", "quote": "USD", "on": "2024-03-01"},
    "findPeople": {"query": "An", "limit": 2},
    "forecast_cash": {"currencies": ["EUR"], "horizon_days": 7},
    "get_invoice": {"invoice_id": 1},
    "get_orders": {"customer_id": 7, "status": "pending"},
    "groupByCity": {"cities": ["Oslo", "Rome"]},
    "list_invoices": {"account_ids": [10, 11], "status": "open"},
    "lookupPerson": {"email": "ann@example.org"},
    "mark_invoice_paid": {"invoice_id": 3, "paid_at": "2024-05-01T10:00:00Z"},
    "open_balance": {"account_id": 10},
    "registerPerson": {
        "person": {
            "fullName": "Bo",
            "age": 40,
            "address": {"street": "Main 1", "city": "Oslo", "zip": "01234"},
        }
    },
    "run_sandboxed_script": {"script": "echo hi", "args": ["-n"]},
    "sayHello": {"personName": "Ann"},
    "scheduleCall": {
        "email": "ann@example.org",
        "startsAt": "2024-05-01T10:00:00+02:00",
    },
    "search_web": {"query": "mcp", "num_results": 1},
}

# Arguments each tool refuses, and the paths of the problems it must list.
INVALID: dict[str, tuple[dict[str, Any], set[str]]] = {
    "cancel_order": ({"order_id": "3", "reason": None}, {"order_id"}),
    "dunning_letter": ({"customer_name": "Ann", "invoice": {}}, {"invoice"}),
    "exchange_rate": ({"base": "eur", "quote": "USD"}, {"base"}),
    "findPeople": ({"query": "A"}, {"query"}),
    "forecast_cash": ({"currencies": "EUR"}, {"currencies"}),
    "get_invoice": ({"invoice_id": 1.5}, {"invoice_id"}),
    "get_orders": ({"customer_id": 0, "limit": 101}, {"customer_id", "limit"}),
    "groupByCity": ({"cities": []}, {"cities"}),
    "list_invoices": ({"account_ids": [], "status": "lost"}, {"account_ids", "status"}),
    "lookupPerson": ({}, {""}),
    "mark_invoice_paid": ({"invoice_id": 3, "paid_at": "yesterday"}, {"paid_at"}),
    "open_balance": ({"account_id": "10"}, {"account_id"}),
    "registerPerson": ({"person": {"fullName": "Bo", "age": -1}}, {"person"}),
    "run_sandboxed_script": ({"script": 1}, {"script"}),
    "sayHello": ({"personName": 5}, {"personName"}),
    "scheduleCall": (
        {"email": "a", "startsAt": "2024-05-01T10:00:00+02:00", "minutes": 45},
        {"minutes"},
    ),
    "search_web": ({"query": ""}, {"query"}),
}

CONTEXT_VALUES = {
    "app": {"tenant": {"id": 1}},
    "config": {"billing": {"signature": "Accounts"}},
}
CONFIG = {"forecast_cash": {"api_key": "k"}, "run_sandboxed_script": {"api_key": "k"}}
ROWS = [
    (1, 1, 10, "12.50", "open", "2024-01-05", None, 0),
    (2, 1, 10, "99.99", "paid", "2024-02-01", "2024-02-03 09:30:00+00:00", 0),
    (3, 1, 11, "0.10", "open", "2024-03-15", None, 1),
    (4, 2, 10, "5.00", "open", "2024-04-01", None, 0),
]


def _person(name: str, age: int) -> dict[str, Any]:
    return {"fullName": name, "age": age, "email": f"{name.lower()}@example.org"}


class ExampleTools:
    """Every non-SQL example tool (codegen implements the SQL ones), sync."""

    def cancel_order(self, *, order_id: int, reason: str | None) -> Any:
        return {"cancelled": order_id, "reason": reason}

    def dunning_letter(
        self,
        *,
        customer_name: str,
        invoice: Any,
        tone: str = "friendly",
        signature: str,
    ) -> str:
        return (
            f"Dear {customer_name}, invoice {invoice.invoice_id} ({tone}). {signature}"
        )

    def exchange_rate(
        self, *, base: str, quote: str, on: datetime.date | None = None
    ) -> float:
        return 1.25

    def find_people(self, *, query: str, limit: int = 10) -> Any:
        return [_person("Ann", 30), _person("Anna", 40)][:limit]

    def forecast_cash(
        self,
        *,
        horizon_days: int = 30,
        currencies: list[str],
        include_overdue: Any = None,
        config: Any,
    ) -> Any:
        return {"expected": 12.5, "invoices": []}

    def get_orders(
        self,
        *,
        customer_id: int,
        status: str = "shipped",
        limit: int = 20,
        since: Any = None,
    ) -> Any:
        return [
            {
                "order_id": customer_id,
                "total": 1.5,
                "status": status,
                "created_at": "2024-01-01T00:00:00Z",
            }
        ]

    def group_by_city(self, *, cities: list[str]) -> Any:
        return [{"city": city, "count": len(city)} for city in cities]

    def lookup_person(self, *, email: str) -> Any:
        return {**_person("Ann", 30), "email": email}

    def register_person(self, *, person: Any) -> Any:
        return _person(person.full_name, person.age)

    def run_sandboxed_script(
        self, *, script: str, args: list[str] = [], env: Any = None, config: Any
    ) -> Any:
        return {"exit_code": 0, "stdout": script}

    def say_hello(self, *, person_name: str = "world") -> str:
        return f"Hello, {person_name}!"

    def schedule_call(
        self, *, email: str, starts_at: datetime.datetime, minutes: int = 30
    ) -> None:
        return None

    def search_web(self, **kwargs: Any) -> Any:
        return {"results": [{"url": "https://example.org", "title": "t", "score": 0.5}]}


def _async_version(cls: type) -> type:
    """The same tools as coroutine functions (each awaits, so the server must await them)."""

    def wrap(method: Any) -> Any:
        async def run(self: Any, **kwargs: Any) -> Any:
            await asyncio.sleep(0)
            return method(self, **kwargs)

        run.__name__ = method.__name__
        return run

    names = [n for n in vars(cls) if not n.startswith("_")]
    return type(
        "Async" + cls.__name__, (cls,), {n: wrap(getattr(cls, n)) for n in names}
    )


AsyncExampleTools = _async_version(ExampleTools)


def database(path: str) -> Any:
    """A SQLite billing database at `path` with the invoices table, and a connection to it that the server's
    worker threads may use (sync tools, SQL ones too, run on them)."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(
        f"sqlite:///{path}", connect_args={"check_same_thread": False}
    )
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TABLE IF NOT EXISTS invoices (invoice_id INTEGER PRIMARY KEY, tenant_id INTEGER NOT NULL,"
            " account_id INTEGER NOT NULL, amount NUMERIC(12, 2) NOT NULL, status VARCHAR(20) NOT NULL,"
            " issued_on DATE NOT NULL, paid_at TIMESTAMP, overdue BOOLEAN NOT NULL)"
        )
        conn.exec_driver_sql("DELETE FROM invoices")
        for row in ROWS:
            conn.exec_driver_sql(
                "INSERT INTO invoices VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row
            )
    # Autocommit: each tool call's statement is committed (mark_invoice_paid writes).
    return engine.connect().execution_options(isolation_level="AUTOCOMMIT")


def main(argv: list[str]) -> None:
    folder, name, transport = argv[:3]
    port = int(argv[3]) if len(argv) > 3 and argv[3].isdigit() else 8000
    sys.path.insert(0, folder)
    package = importlib.import_module(name)
    impl = AsyncExampleTools() if "--async" in argv else ExampleTools()
    db = argv[argv.index("--db") + 1] if "--db" in argv else ":memory:"
    context = {**CONTEXT_VALUES, "databases": {"billing": database(db)}}
    package.serve_mcp(
        impl, transport=transport, port=port, context=context, config=CONFIG
    )


if __name__ == "__main__":
    main(sys.argv[1:])
