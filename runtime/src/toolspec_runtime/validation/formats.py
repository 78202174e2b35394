"""The asserted formats: RFC 3339 ``date`` and ``date-time`` that are real
calendar dates and times."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

# RFC 3339 full-date and date-time (section 5.6); calendar checks come after.
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def _valid_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        date(*map(int, match.groups()))
    except ValueError:
        return False
    return True


def _valid_date_time(text: str) -> bool:
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second, fraction, sign, off_h, off_m = (
        match.groups()
    )
    offset = timedelta()
    if sign is not None:
        if int(off_h) > 23 or int(off_m) > 59:
            return False
        offset = timedelta(hours=int(off_h), minutes=int(off_m))
        if sign == "-":
            offset = -offset
    micro = int(fraction[:6].ljust(6, "0")) if fraction else 0
    try:
        # Building the value applies the same calendar and clock rules as
        # datetime.fromisoformat (which rejects leap second 60 too).
        clock = (int(hour), int(minute), int(second), micro)
        datetime(int(year), int(month), int(day), *clock, tzinfo=timezone(offset))
    except ValueError:
        return False
    return True
