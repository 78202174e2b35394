"""The reference verdict: `jsonschema` (draft 2020-12) on the schema a spec declares.

`format` is an annotation in 2020-12; codegen asserts `date` and `date-time` where it types a string as a
date (SPEC §3), so the oracle asserts exactly those two formats.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import jsonschema

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z"
)

FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("date")
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE.match(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


@FORMATS.checks("date-time")
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def accepts(schema: Any, instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema, format_checker=FORMATS).is_valid(
        instance
    )


def model_accepts(model: Any, instance: Any) -> bool:
    """A generated model's verdict on an instance; given as Python data and as JSON text, it must be the same."""
    import json

    verdicts = []
    for load in (
        lambda: model.model_validate(instance),
        lambda: model.model_validate_json(json.dumps(instance)),
    ):
        try:
            load()
            verdicts.append(True)
        except ValueError:
            verdicts.append(False)
    assert (
        verdicts[0] == verdicts[1]
    ), f"{model.__name__}: Python data and JSON text disagree on {instance!r}"
    return verdicts[0]
