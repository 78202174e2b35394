"""Running generated SQL functions over SQLAlchemy 2 (`text()` with bound parameters).

SQLAlchemy is imported only when a statement runs, so a package imports (and its non-SQL tools work) without it.
The SQL text of every function was prepared by the compiler for `text()`: SQLAlchemy binds exactly the
placeholders the compiler found (see codegen/sqlscan.py). Values are always bound, never formatted into
the text; list parameters used as `IN :ids` are expanding bind parameters.

Before binding, values become what the driver takes: SQLite gets `float` for `Decimal` and ISO text for dates and
date-times (its driver has no such types); PostgreSQL drivers and others get the Python values. Rows are mapped to
the function's return shape: an entity (one row or None), a list of entities, a value (first column of the first
row), a list of values (the first column), or nothing.

Timestamps: a timestamp without a time zone in the database is UTC. A naive `datetime` from the driver (a
PostgreSQL `timestamp` column) or SQLite text `YYYY-MM-DD HH:MM[:SS[.fff]]` read for a date-time is made aware
in UTC before validation; an aware date-time is written to SQLite as UTC text in that form, as SQLite's own
`CURRENT_TIMESTAMP` is, and bound as a `timestamptz` elsewhere.

A function's database connection, when `dispatch` runs it, is the context's `databases.<connection name>`.
"""

from __future__ import annotations

import datetime
import decimal
import re
import types as _types
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from . import dispatch as _dispatch
from .dispatch import MissingContextError, lookup
from .schema_checks import SchemaCheck

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy import Connection, CursorResult, TextClause

_MISSING: Any = object()


class SqlResultError(LookupError):
    """The rows of a statement do not fit its function's return shape (no row, or more than one)."""


def from_context(
    context: Any,
    path: str,
    kind: Any,
    tool: str,
    default: Any = _MISSING,
    schema: Any = None,
) -> Any:
    """The value at `path` in `context`, checked exactly against `schema` and typed as `kind`; `default` when it is missing, else MissingContextError."""
    try:
        value = lookup(context, path)
    except LookupError:
        if default is _MISSING:
            raise MissingContextError(
                f"tool {tool!r} needs a value at {path!r} in the context"
            ) from None
        value = default
    return context_value(value, kind, path, schema)


def context_value(
    value: Any,
    kind: Any,
    path: str,
    schema: Any = None,
) -> Any:
    """A context value checked exactly against its declared schema, then typed (as `dispatch` does)."""
    try:
        check = SchemaCheck(schema) if schema is not None else None
        return _dispatch.context_value(value, kind, check)
    except _dispatch.ContextValueError as exc:
        raise ValueError(f"the context value at {path!r} is invalid: {exc}") from None
    except ValidationError as exc:
        problems = "; ".join(error["msg"] for error in exc.errors(include_url=False))
        raise ValueError(
            f"the context value at {path!r} is invalid: {problems}"
        ) from None


@lru_cache(maxsize=256)
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


def connection(context: Any, name: str) -> Connection:
    """The connection named `name` in the context (`databases.<name>`), for `dispatch`."""
    path = f"databases.{name}"
    try:
        found: Connection = lookup(context, path)
    except LookupError:
        raise MissingContextError(
            f"the context has no database connection at {path!r}"
        ) from None
    return found


@lru_cache(maxsize=1024)
def statement(
    sql: str,
    expanding: tuple[str, ...] = (),
    types: tuple[tuple[str, str], ...] = (),
) -> TextClause:
    """The `text()` construct of a prepared SQL text: list parameters expanding, and typed parameters (so that
    PostgreSQL knows the type of a NULL, e.g. in `:since IS NULL`)."""
    from sqlalchemy import bindparam, text

    clause = text(sql)
    kinds = dict(types)
    names = sorted(set(expanding) | set(kinds))
    if names:
        clause = clause.bindparams(
            *(
                bindparam(
                    name, type_=_sql_type(kinds.get(name)), expanding=name in expanding
                )
                for name in names
            )
        )
    return clause


def _sql_type(kind: str | None) -> Any:
    from sqlalchemy import types

    found = {
        "integer": types.BigInteger,
        "number": types.Float,
        "decimal": types.Numeric,
        "boolean": types.Boolean,
        "string": types.String,
        "date": types.Date,
    }.get(kind or "")
    if kind == "date-time":
        return types.DateTime(timezone=True)
    return found() if found is not None else None


def execute(
    conn: Connection,
    sql: str,
    params: Mapping[str, Any],
    expanding: tuple[str, ...] = (),
    types: Mapping[str, str] | None = None,
) -> CursorResult[Any]:
    """Run a prepared SQL text with its bind parameters, converted for the connection's driver.

    `types` gives the kind of each parameter ("integer", "decimal", "date", ...): SQLAlchemy then binds them
    typed. SQLite gets no types: its values are converted here instead (`driver_value`).
    """
    dialect = conn.dialect.name
    values = {name: driver_value(value, dialect) for name, value in params.items()}
    typed = () if dialect == "sqlite" else tuple(sorted((types or {}).items()))
    return conn.execute(statement(sql, expanding, typed), values)


def driver_value(value: Any, dialect: str) -> Any:
    """A Python value as the driver of `dialect` binds it (lists item by item)."""
    if isinstance(value, BaseModel):
        raise TypeError("a model cannot be bound to a SQL parameter")
    if isinstance(value, (list, tuple)):
        return [driver_value(item, dialect) for item in value]
    if dialect != "sqlite":
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, datetime.datetime):
        # An aware value is stored as UTC without an offset, SQLite's own form.
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


def fetch_one(
    result: CursorResult[Any],
    model: type[BaseModel],
    columns: Mapping[str, str],
    closed: bool,
) -> Any:
    """The one row of `result` as `model`, or None without rows; more than one row is an error."""
    rows = result.mappings().fetchmany(2)
    if len(rows) > 1:
        raise SqlResultError(
            f"the statement returned more than one row for a single {model.__name__}"
        )
    if not rows:
        return None
    return model.model_validate(row_data(rows[0], columns, closed))


def fetch_all(
    result: CursorResult[Any],
    model: type[BaseModel],
    columns: Mapping[str, str],
    closed: bool,
) -> list[Any]:
    """Every row of `result` as `model` (each validated once, by `model_validate`)."""
    read = _row_reader(list(result.keys()), columns, closed)
    validate = model.model_validate
    return [validate(read(row)) for row in result]


def _row_reader(
    keys: list[Any], columns: Mapping[str, str], closed: bool
) -> Callable[[Sequence[Any]], dict[str, Any]]:
    """`row_data` for rows of these columns, the work per column decided once: (index, name, reader, NULL is
    absent) of each column kept."""
    plan = []
    for index, key in enumerate(keys):
        name = str(key)
        kind = columns.get(name)
        if kind is None and closed:
            continue
        optional = kind is not None and kind.endswith("?")
        base = (kind or "").rstrip("?")
        reader = (
            _boolean
            if base == "boolean"
            else timestamp if base == "date-time" else None
        )
        plan.append((index, name, reader, optional))

    def read(row: Sequence[Any]) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for index, name, reader, optional in plan:
            value = row[index]
            if value is None and optional:
                continue  # NULL in an optional column: the field is absent
            data[name] = value if reader is None else reader(value)
        return data

    return read


def _boolean(value: Any) -> Any:
    return bool(value) if type(value) is int and value in (0, 1) else value


def fetch_value(result: CursorResult[Any], kind: Any) -> Any:
    """The first column of the first row, as `kind`; a statement without rows is an error."""
    row = result.first()
    if row is None:
        raise SqlResultError("the statement returned no rows")
    return _adapter(kind).validate_python(_value(row[0], kind))


def fetch_values(result: CursorResult[Any], kind: Any) -> list[Any]:
    """The first column of every row, as a list of `kind`."""
    adapter = _adapter(kind)
    return [adapter.validate_python(_value(row[0], kind)) for row in result]


def _value(value: Any, kind: Any) -> Any:
    """A value read for `kind`: a timestamp when `kind` is `datetime` (or `datetime | None`)."""
    if kind is datetime.datetime or (
        get_origin(kind) in (Union, _types.UnionType)
        and set(get_args(kind)) == {datetime.datetime, type(None)}
    ):
        return timestamp(value)
    return value


def row_data(
    row: Mapping[Any, Any], columns: Mapping[str, str], closed: bool
) -> dict[str, Any]:
    """A row as the JSON data of an entity: SQLite's 0/1 booleans and timestamps (`timestamp`) are read as what
    they stand for, NULL in an optional column ("…?") is an absent field, and a closed entity ignores
    columns it does not declare."""
    data: dict[str, Any] = {}
    for key, value in row.items():
        name = str(key)
        kind = columns.get(name)
        if kind is None and closed:
            continue
        if value is None and kind is not None and kind.endswith("?"):
            continue  # NULL in an optional column: the field is absent
        data[name] = _column(value, kind)
    return data


def _column(value: Any, kind: str | None) -> Any:
    kind = (kind or "").rstrip("?")
    if kind == "boolean":
        return _boolean(value)
    if kind == "date-time":
        return timestamp(value)
    return value


# SQLite's time values (https://sqlite.org/lang_datefunc.html), with an optional offset.
_TIMESTAMP_TEXT = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?(Z|[+-]\d\d:\d\d)?",
    re.ASCII,
)


def timestamp(value: Any) -> Any:
    """A timestamp read from the database, aware: a naive `datetime` or text without an offset is UTC.

    Anything else (other text, numbers, dates) is returned unchanged, for the model to refuse.
    """
    if isinstance(value, str):
        match = _TIMESTAMP_TEXT.fullmatch(value)
        if match is None:
            return value
        if match.group(8) in (None, "Z"):
            try:  # the common case, in C: the same value as below
                found = datetime.datetime.fromisoformat(value)
            except ValueError:
                pass
            else:
                return found.replace(tzinfo=datetime.timezone.utc)
        year, month, day, hour, minute, second, fraction, offset = match.groups()
        zone = datetime.timezone.utc
        if offset not in (None, "Z"):
            sign = -1 if offset[0] == "-" else 1
            delta = datetime.timedelta(hours=int(offset[1:3]), minutes=int(offset[4:]))
            if int(offset[4:]) > 59 or delta >= datetime.timedelta(days=1):
                return value
            zone = datetime.timezone(sign * delta)
        try:
            return datetime.datetime(
                int(year),
                int(month),
                int(day),
                int(hour),
                int(minute),
                int(second or 0),
                int((fraction or "").ljust(6, "0")),
                tzinfo=zone,
            )
        except ValueError:  # out of range: 2026-02-30, 25:00
            return value
    if isinstance(value, datetime.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=datetime.timezone.utc)
    return value
