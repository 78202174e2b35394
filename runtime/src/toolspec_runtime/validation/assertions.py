"""Assertions on a single value: ``type``, ``enum``, and the number and string
keywords (``pattern``, asserted ``format``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import _Keywords
from .data import _has_type, _key, _show
from .formats import _valid_date, _valid_date_time
from .numbers import _aligned, _as_count, _is_multiple, _is_number, _too_long
from .patterns import _pattern
from .problems import Problem, _Loc, _path, _plural, _SchemaError


class _Assertions(_Keywords):
    """The evaluator's assertions on any type, on numbers and on strings."""

    def _type(
        self, inst: object, kind: str, expected: object, loc: _Loc | None
    ) -> list[Problem]:
        if isinstance(expected, str):
            if _has_type(inst, kind, expected):
                return []
            wanted = expected
        elif isinstance(expected, (list, tuple)):
            if any(_has_type(inst, kind, name) for name in expected):
                return []
            names = [str(name) for name in expected]
            wanted = (
                " or ".join(names)
                if len(names) < 3
                else ", ".join(names[:-1]) + " or " + names[-1]
            )
        else:
            return []
        return [Problem(_path(loc), f"expected {wanted}, got {kind}", "type")]

    def _enum(self, inst: object, enum: object, loc: _Loc | None) -> list[Problem]:
        if not isinstance(enum, (list, tuple)):
            return []
        cached = self.index.enums.get(id(enum))
        if cached is None or cached[0] is not enum:
            cached = (enum, frozenset(_key(value) for value in enum))
            self.index.enums[id(enum)] = cached
        if _key(inst) in cached[1]:
            return []
        return [Problem(_path(loc), f"must be one of {_show(list(enum), 300)}", "enum")]

    # -- numbers and strings ------------------------------------------------

    def _number(
        self, inst: Any, schema: Mapping[str, Any], loc: _Loc | None
    ) -> list[Problem]:
        problems: list[Problem] = []
        divisor = schema.get("multipleOf")
        if (
            _is_number(divisor)
            and not isinstance(divisor, float)
            and _too_long(divisor)
        ):
            raise _SchemaError(loc, "multipleOf has too many digits", "multipleOf")
        if _is_number(divisor) and divisor > 0 and not _is_multiple(inst, divisor):
            message = f"must be a multiple of {_show(divisor)}"
            problems.append(Problem(_path(loc), message, "multipleOf"))
        for keyword, relation in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
        ):
            limit = schema.get(keyword)
            if not _is_number(limit):
                continue
            value, bound = _aligned(inst, limit)
            if relation == ">=":
                ok = value >= bound
            elif relation == ">":
                ok = value > bound
            elif relation == "<=":
                ok = value <= bound
            else:
                ok = value < bound
            if not ok:
                problems.append(
                    Problem(_path(loc), f"must be {relation} {_show(limit)}", keyword)
                )
        return problems

    def _string(
        self, inst: str, schema: Mapping[str, Any], loc: _Loc | None
    ) -> list[Problem]:
        problems: list[Problem] = []
        # len() counts code points, as JSON Schema requires.
        minimum = _as_count(schema.get("minLength"))
        if minimum is not None and len(inst) < minimum:
            message = f"must be at least {_plural(minimum, 'character')} long"
            problems.append(Problem(_path(loc), message, "minLength"))
        maximum = _as_count(schema.get("maxLength"))
        if maximum is not None and len(inst) > maximum:
            message = f"must be at most {_plural(maximum, 'character')} long"
            problems.append(Problem(_path(loc), message, "maxLength"))
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            compiled = _pattern(pattern)
            if compiled is None:
                raise _SchemaError(
                    loc, f"cannot compile pattern {pattern!r}", "pattern"
                )
            if not compiled.search(inst):
                message = f"must match pattern {pattern!r}"
                problems.append(Problem(_path(loc), message, "pattern"))
        format_name = schema.get("format")
        if format_name in ("date", "date-time"):
            declared = schema.get("type")
            if declared == "string" or (
                isinstance(declared, (list, tuple)) and "string" in declared
            ):
                if format_name == "date" and not _valid_date(inst):
                    message = "must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)"
                    problems.append(Problem(_path(loc), message, "format"))
                elif format_name == "date-time" and not _valid_date_time(inst):
                    message = (
                        "must be a valid RFC 3339 date-time with a time zone,"
                        " e.g. 2024-01-31T09:30:00Z or 2024-01-31T09:30:00+02:00"
                    )
                    problems.append(Problem(_path(loc), message, "format"))
        return problems
