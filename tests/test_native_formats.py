"""`format: date` and `date-time` fields decide text of the common form in pydantic-core alone
(`toolspec_runtime.models._Formatted`): that path must accept exactly what the Python path accepts, and make
the same value. Hypothesis draws texts around the edges of RFC 3339 (hour 24, second 60, month 13, day 0,
leap days, lower-case separators, 0 to 9 fractional digits, offsets out of range, non-ASCII digits) and
compares the two, as Python data and as JSON text."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, GetCoreSchemaHandler, ValidationError
from pydantic_core import core_schema

from toolspec_runtime import models


class _PythonOnly:
    """The Python path of a format marker alone (what decided every text before the common path)."""

    def __init__(self, marker: Any) -> None:
        self.marker = marker

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_wrap_validator_function(
            self.marker._value, self.marker._target
        )


class Both(BaseModel, strict=True):
    at: Annotated[datetime.datetime, models.DATE_TIME]
    on: Annotated[datetime.date, models.DATE]


class PythonOnly(BaseModel, strict=True):
    at: Annotated[datetime.datetime, _PythonOnly(models.DATE_TIME)]
    on: Annotated[datetime.date, _PythonOnly(models.DATE)]


def _two(width: int, top: int) -> st.SearchStrategy[str]:
    return st.integers(0, top).map(lambda n: str(n).zfill(width))


years = st.sampled_from(["0000", "0001", "1970", "2000", "2023", "2024", "9999"])
dates = st.tuples(years, _two(2, 13), _two(2, 32)).map("-".join)
fractions = st.integers(0, 9).flatmap(
    lambda n: st.just("") if n == 0 else _two(n, 10**n - 1).map(lambda d: "." + d)
)
offsets = st.one_of(
    st.sampled_from(["Z", "z", "", "+00:00", "-00:00"]),
    st.tuples(st.sampled_from("+-"), _two(2, 25), _two(2, 61)).map(
        lambda t: f"{t[0]}{t[1]}:{t[2]}"
    ),
)
date_times = st.tuples(
    dates,
    st.sampled_from(["T", "t", " "]),
    _two(2, 25),
    _two(2, 61),
    _two(2, 61),
    fractions,
    offsets,
).map(lambda t: f"{t[0]}{t[1]}{t[2]}:{t[3]}:{t[4]}{t[5]}{t[6]}")


def _odd(text: str, at: int) -> str:
    """`text` with one digit made a non-ASCII digit (Rust's and Python's `\\d` both say no to it here)."""
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    if not digits:
        return text
    i = digits[at % len(digits)]
    return text[:i] + chr(0xFF10 + int(text[i])) + text[i + 1 :]


def _verdict(model: type[BaseModel], data: Any, as_json: bool) -> Any:
    try:
        if as_json:
            made = model.model_validate_json(json.dumps(data))
        else:
            made = model.model_validate(data)
    except ValidationError as error:
        return [e["msg"] for e in error.errors()]
    return made.at, made.on, made.at.utcoffset()


@settings(max_examples=400, deadline=None)
@given(
    at=date_times,
    on=dates,
    odd=st.none() | st.integers(0, 30),
    as_json=st.booleans(),
)
def test_the_common_path_decides_as_the_python_path(
    at: str, on: str, odd: int | None, as_json: bool
) -> None:
    if odd is not None:
        at, on = _odd(at, odd), _odd(on, odd)
    data = {"at": at, "on": on}
    assert _verdict(Both, data, as_json) == _verdict(PythonOnly, data, as_json)


@pytest.mark.parametrize(
    "text",
    [
        "2024-02-29T10:11:12.123+01:00",
        "2024-12-31T23:59:60Z",
        "2024-01-01T24:00:00Z",
        "2023-02-29T00:00:00Z",
        "2024-01-01T00:00:00.1234567Z",
        "2024-01-01t00:00:00z",
        "2024-01-01T00:00:00-00:00",
    ],
)
def test_edges(text: str) -> None:
    for as_json in (False, True):
        data = {"at": text, "on": "2024-02-29"}
        assert _verdict(Both, data, as_json) == _verdict(PythonOnly, data, as_json)


def test_typed_values_still_pass() -> None:
    at = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    made = Both.model_validate({"at": at, "on": datetime.date(2024, 1, 1)})
    assert made.at == at and made.on == datetime.date(2024, 1, 1)
    with pytest.raises(ValidationError, match="not an RFC 3339 date-time"):
        Both.model_validate({"at": "yesterday", "on": "2024-01-01"})
