"""Timestamps without a time zone read from the database are UTC (README "Brimley specs and SQL").

SPEC §3 maps a Brimley `datetime` to `TIMESTAMP`. A `timestamp` column gives a naive value (a `datetime` from the
PostgreSQL driver, text such as `'2026-02-01 10:00:00'` from SQLite); the SQL row mapping reads it as UTC, so the
entity holds an aware value and what the LLM gets is an RFC 3339 date-time with an offset. An aware argument is
written as UTC: naive UTC text on SQLite (as SQLite's own `CURRENT_TIMESTAMP`), a `timestamptz` on PostgreSQL.
Every test runs on a SQLite file and on a PostgreSQL server (tests/pg.py), in a transaction rolled back afterwards.
"""

from __future__ import annotations

import datetime
import importlib
import json
import re
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from conftest import generate_package

sqlalchemy = pytest.importorskip("sqlalchemy")

UTC = datetime.timezone.utc
PLUS_2 = datetime.timezone(datetime.timedelta(hours=2))

SPECS = {
    "Event.yaml": """
type: entity
name: Event
fields:
  event_id: int
  happened_at: datetime
  done_at:
    type: datetime
    required: false
""",
    "get_event.sql": """
/*
---
name: get_event
type: sql_function
arguments:
  inline:
    event_id: int
return_shape: Event
---
*/
SELECT event_id, happened_at, done_at FROM events WHERE event_id = :event_id
""",
    "list_events.sql": """
/*
---
name: list_events
type: sql_function
return_shape: Event[]
---
*/
SELECT event_id, happened_at, done_at FROM events ORDER BY event_id
""",
    "event_time.sql": """
/*
---
name: event_time
type: sql_function
arguments:
  inline:
    event_id: int
return_shape: datetime
---
*/
SELECT happened_at FROM events WHERE event_id = :event_id
""",
    "add_event.sql": """
/*
---
name: add_event
type: sql_function
arguments:
  inline:
    event_id: int
    happened_at: datetime
    done_at:
      type: datetime
      required: false
---
*/
INSERT INTO events (event_id, happened_at, done_at) VALUES (:event_id, :happened_at, :done_at)
""",
    "text_event.sql": """
/*
---
name: text_event
type: sql_function
arguments:
  inline:
    text: string
return_shape: Event
---
*/
SELECT 1 AS event_id, :text AS happened_at
""",
}

# RFC 3339 `date-time` (jsonschema checks the format only with an optional package installed).
RFC3339 = re.compile(
    r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)", re.ASCII
)
FORMATS = jsonschema.FormatChecker()
FORMATS.checks("date-time")(
    lambda text: not isinstance(text, str) or bool(RFC3339.fullmatch(text))
)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    specs = tmp_path_factory.mktemp("timestamp_specs")
    for name, text in SPECS.items():
        (specs / name).write_text(text.lstrip())
    out, name = generate_package(
        tmp_path_factory.mktemp("timestamp_pkg"), specs, name="timestamps_gen"
    )
    sys.path.insert(0, str(out.parent))
    try:
        importlib.invalidate_caches()
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'events.sqlite'}"
    else:
        url = request.getfixturevalue("postgres_url")
    engine = sqlalchemy.create_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def open_events(engine: Any, column: str = "TIMESTAMP") -> Any:
    """A connection in a transaction with an empty `events` table whose timestamps are `column`."""
    connection = engine.connect()
    connection.begin()
    connection.exec_driver_sql(
        f"CREATE TABLE events (event_id INTEGER PRIMARY KEY, happened_at {column} NOT NULL, done_at {column})"
    )
    return connection


@pytest.fixture
def conn(engine: Any) -> Iterator[Any]:
    connection = open_events(engine)
    try:
        yield connection
    finally:
        connection.rollback()
        connection.close()


def insert_literal(conn: Any, event_id: int, happened: str) -> None:
    conn.exec_driver_sql(
        f"INSERT INTO events (event_id, happened_at) VALUES ({event_id}, '{happened}')"
    )


def test_a_naive_timestamp_column_is_read_as_utc(pkg: ModuleType, conn: Any) -> None:
    insert_literal(conn, 1, "2026-02-01 10:00:00")
    expected = datetime.datetime(2026, 2, 1, 10, 0, tzinfo=UTC)
    event = pkg.get_event(conn, pkg.GetEventArgs(event_id=1))
    assert event is not None and event.happened_at == expected
    assert event.happened_at.utcoffset() == datetime.timedelta(0)
    assert event.done_at is None and "done_at" not in event.model_fields_set
    assert [e.happened_at for e in pkg.list_events(conn, pkg.ListEventsArgs())] == [
        expected
    ]
    value = pkg.event_time(conn, pkg.EventTimeArgs(event_id=1))
    assert value == expected and value.tzinfo is not None


def test_timestamp_and_timestamptz_columns_on_postgresql(
    pkg: ModuleType, postgres_url: str
) -> None:
    engine = sqlalchemy.create_engine(postgres_url)
    try:
        with engine.connect() as conn:
            conn.begin()
            conn.exec_driver_sql(
                "CREATE TABLE events (event_id INTEGER PRIMARY KEY,"
                " happened_at TIMESTAMP NOT NULL, done_at TIMESTAMP WITH TIME ZONE)"
            )
            conn.exec_driver_sql(
                "INSERT INTO events VALUES (1, '2026-02-01 10:00:00.25', '2026-02-01 12:30:00+02:00')"
            )
            event = pkg.get_event(conn, pkg.GetEventArgs(event_id=1))
            assert event.happened_at == datetime.datetime(
                2026, 2, 1, 10, 0, 0, 250000, tzinfo=UTC
            )
            assert event.done_at == datetime.datetime(2026, 2, 1, 10, 30, tzinfo=UTC)
            assert event.done_at.tzinfo is not None
            conn.rollback()
    finally:
        engine.dispose()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-02-01 10:00:00", datetime.datetime(2026, 2, 1, 10, 0, tzinfo=UTC)),
        (
            "2026-02-01 10:00:00.123456",
            datetime.datetime(2026, 2, 1, 10, 0, 0, 123456, tzinfo=UTC),
        ),
        (
            "2026-02-01 10:00:00.123",  # SQLite's strftime('%f')
            datetime.datetime(2026, 2, 1, 10, 0, 0, 123000, tzinfo=UTC),
        ),
        ("2026-02-01 10:00", datetime.datetime(2026, 2, 1, 10, 0, tzinfo=UTC)),
        ("2026-02-01T10:00:00Z", datetime.datetime(2026, 2, 1, 10, 0, tzinfo=UTC)),
        ("2026-02-01 12:00:00+02:00", datetime.datetime(2026, 2, 1, 12, tzinfo=PLUS_2)),
    ],
)
def test_sqlite_text_timestamps(
    pkg: ModuleType, tmp_path: Path, text: str, expected: datetime.datetime
) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'events.sqlite'}")
    try:
        conn = open_events(engine)
        insert_literal(conn, 1, text)
        event = pkg.get_event(conn, pkg.GetEventArgs(event_id=1))
        assert event.happened_at == expected and event.happened_at.tzinfo is not None
        assert pkg.event_time(conn, pkg.EventTimeArgs(event_id=1)) == expected
        conn.rollback()
        conn.close()
    finally:
        engine.dispose()


def test_sqlite_current_timestamp_is_read_as_utc(
    pkg: ModuleType, tmp_path: Path
) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'events.sqlite'}")
    try:
        conn = open_events(engine)
        before = datetime.datetime.now(UTC).replace(microsecond=0)
        conn.exec_driver_sql("INSERT INTO events VALUES (1, CURRENT_TIMESTAMP, NULL)")
        event = pkg.get_event(conn, pkg.GetEventArgs(event_id=1))
        after = datetime.datetime.now(UTC)
        assert before <= event.happened_at <= after
        conn.rollback()
        conn.close()
    finally:
        engine.dispose()


def instant(text: str) -> datetime.datetime:
    """The instant an RFC 3339 date-time names (its offset may be written `Z` or `+00:00`)."""
    assert RFC3339.fullmatch(text), text
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def schema_valid(data: Any, schema: Any) -> None:
    jsonschema.Draft202012Validator(dict(schema), format_checker=FORMATS).validate(data)


def test_dispatched_results_are_valid_against_the_output_schema(
    pkg: ModuleType, conn: Any
) -> None:
    insert_literal(conn, 1, "2026-02-01 10:00:00.5")
    context = {"databases": {"default": conn}}
    from toolspec_runtime import exports

    expected = datetime.datetime(2026, 2, 1, 10, 0, 0, 500000, tzinfo=UTC)
    for name, arguments, found in [
        ("get_event", '{"event_id": 1}', lambda data: data["happened_at"]),
        ("list_events", "{}", lambda data: data[0]["happened_at"]),
        ("event_time", '{"event_id": 1}', lambda data: data),
    ]:
        result = pkg.dispatch(name, arguments, context=context)
        assert result.ok, result.error
        schema = pkg.TOOLS[name].output_schema
        assert instant(found(result.to_data())) == expected
        schema_valid(result.to_data(), schema)
        schema_valid(json.loads(result.to_json(), parse_float=Decimal), schema)
        mcp = result.to_mcp()
        assert not mcp.get("isError")
        schema_valid(
            mcp["structuredContent"], exports.mcp_output_schema(dict(schema))[0]
        )


@pytest.mark.parametrize("column", ["TIMESTAMP", "TIMESTAMP WITH TIME ZONE"])
def test_write_then_read_round_trip(pkg: ModuleType, engine: Any, column: str) -> None:
    conn = open_events(engine, column)
    try:
        when = datetime.datetime(2026, 2, 1, 12, 0, 0, 123456, tzinfo=PLUS_2)
        done = datetime.datetime(2026, 2, 2, 0, 30, tzinfo=UTC)
        pkg.add_event(
            conn, pkg.AddEventArgs(event_id=1, happened_at=when, done_at=done)
        )
        event = pkg.get_event(conn, pkg.GetEventArgs(event_id=1))
        assert event.happened_at == when and event.done_at == done
        assert pkg.event_time(conn, pkg.EventTimeArgs(event_id=1)) == when
        # Through dispatch, as the LLM writes and reads it: the same instant, in UTC.
        context = {"databases": {"default": conn}}
        written = pkg.dispatch(
            "add_event",
            '{"event_id": 2, "happened_at": "2026-03-29T03:30:00+02:00"}',
            context=context,
        )
        assert written.ok, written.error
        read = pkg.dispatch("get_event", '{"event_id": 2}', context=context)
        assert read.ok, read.error
        assert instant(read.to_data()["happened_at"]) == datetime.datetime(
            2026, 3, 29, 1, 30, tzinfo=UTC
        )
        if (
            conn.dialect.name == "sqlite"
        ):  # stored as SQLite's own timestamps are: UTC text
            stored = conn.exec_driver_sql(
                "SELECT happened_at FROM events ORDER BY event_id"
            ).scalars()
            assert list(stored) == ["2026-02-01 10:00:00.123456", "2026-03-29 01:30:00"]
    finally:
        conn.rollback()
        conn.close()


@pytest.mark.parametrize(
    "text, valid",
    [
        ("2026-02-01 10:00:00", True),
        ("yesterday", False),
        ("2026-02-01", False),  # a date is not a timestamp
        ("10:00:00", False),
        ("2026-02-30 10:00:00", False),
        ("2026-02-01 25:00:00", False),
        ("2026-02-01 10:00:00 UTC", False),
        ("", False),
    ],
)
def test_only_timestamps_are_read_as_timestamps(
    pkg: ModuleType, conn: Any, text: str, valid: bool
) -> None:
    context = {"databases": {"default": conn}}
    result = pkg.dispatch("text_event", json.dumps({"text": text}), context=context)
    if valid:
        assert result.ok, result.error
        assert instant(result.to_data()["happened_at"]) == datetime.datetime(
            2026, 2, 1, 10, tzinfo=UTC
        )
    else:
        assert result.error is not None and "RFC 3339" in result.error.message
        with pytest.raises(ValueError):
            pkg.text_event(conn, pkg.TextEventArgs(text=text))


def test_a_number_is_not_a_timestamp(pkg: ModuleType, tmp_path: Path) -> None:
    engine = sqlalchemy.create_engine(f"sqlite:///{tmp_path / 'events.sqlite'}")
    try:
        conn = open_events(engine)
        insert_literal(conn, 1, "2026-02-01 10:00:00")
        conn.exec_driver_sql("INSERT INTO events VALUES (2, 1769940000, NULL)")
        assert pkg.get_event(conn, pkg.GetEventArgs(event_id=1)) is not None
        with pytest.raises(ValueError):
            pkg.get_event(conn, pkg.GetEventArgs(event_id=2))
        conn.rollback()
        conn.close()
    finally:
        engine.dispose()


def test_timestamptz_does_not_depend_on_the_session_time_zone(
    pkg: ModuleType, postgres_url: str
) -> None:
    engine = sqlalchemy.create_engine(postgres_url)
    try:
        conn = open_events(engine, "TIMESTAMP WITH TIME ZONE")
        conn.exec_driver_sql("SET LOCAL TIME ZONE 'America/New_York'")
        when = datetime.datetime(2026, 2, 1, 12, 0, tzinfo=PLUS_2)
        pkg.add_event(conn, pkg.AddEventArgs(event_id=1, happened_at=when))
        assert pkg.get_event(conn, pkg.GetEventArgs(event_id=1)).happened_at == when
        conn.rollback()
        conn.close()
    finally:
        engine.dispose()
