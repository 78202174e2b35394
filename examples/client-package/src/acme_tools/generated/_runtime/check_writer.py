"""Prints the compiled checks of a module (`check_planner.py`) as straight-line Python.

Each function mirrors the interpreter's evaluation of its schema (`runtime/validation/evaluator.py`): keywords
in the same order, the same fail-fast returns, messages worded by the interpreter's own helpers here, at
compile time. Spec text (names, patterns, values, messages) only ever appears as a literal (`py_literal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .check_planner import UNEVALUATED, CheckFunction, annotating
from .literal import py_literal
from .validation.data import _show
from .validation.evaluator import (
    _ARRAY_KEYWORDS,
    _NUMBER_KEYWORDS,
    _OBJECT_KEYWORDS,
    _STRING_KEYWORDS,
)
from .validation.numbers import _as_count, _is_number
from .validation.problems import _plural

_BOUNDS = (
    ("minimum", ">=", "at_least"),
    ("exclusiveMinimum", ">", "above"),
    ("maximum", "<=", "at_most"),
    ("exclusiveMaximum", "<", "below"),
)
_EARLY = "if ff and problems:"
UNEVALUATED_SET = frozenset(UNEVALUATED)


def render_checks(functions: list[CheckFunction]) -> list[str]:
    """The module-level lines of the functions: constants first, then one `def` each."""
    lines: list[str] = []
    recording = annotating(functions)
    # In the order of their numbers (a check is numbered before what it applies, and compiled after it).
    for function in sorted(functions, key=lambda f: int(f.name.rpartition("_")[2])):
        lines += _Function(function, function.name in recording).lines()
    return lines


class _Function:
    def __init__(self, function: CheckFunction, recording: bool) -> None:
        self.name = function.name
        self.schema = function.schema
        self.calls = function.calls
        self.ref = function.ref
        self.dynamic_ref = function.dynamic_ref
        # `recording`: it records annotations for an enclosing `unevaluated*` into its argument `ann`;
        # `own`: it reads them itself (`ann` is then its own record, passed on to its caller's at the end).
        self.recording = recording
        self.own = not UNEVALUATED_SET.isdisjoint(function.schema)
        self.collects = recording or self.own
        self.constants: list[str] = []
        self.body: list[str] = []

    def lines(self) -> list[str]:
        schema = self.schema
        if (
            schema
        ):  # the empty schema accepts everything, as the interpreter says before anything else
            self._in_place(schema)
        parameters = "value: Any, path: _checks.Path, ff: bool"
        if self.recording:
            parameters += ", ann: _checks.Ann | None = None"
        head = f"def {self.name}({parameters}) -> _checks.Problems:"
        lines = ["", "", *self.constants, *(["", ""] if self.constants else []), head]
        if not self.body:
            return [*lines, "    return []"]
        lines.append("    problems: _checks.Problems = []")
        lines += ["    " + line for line in self.body]
        return [*lines, "    return problems"]

    def constant(self, expr: str, kind: str = "object") -> str:
        name = f"{self.name.upper()}_{len(self.constants)}"
        self.constants.append(f"{name}: {kind} = {expr}")
        return name

    def key(self, name: str) -> str:
        """A property name in code: its literal, or a constant holding it when long (a statement then stays
        short enough for the layout port, which splits brackets, never operators)."""
        literal = py_literal(name)
        return literal if len(literal) <= 24 else self.constant(literal, "str")

    def call(self, sub: Any) -> str:
        if sub is True or sub is False:
            return "_checks.accept" if sub else "_checks.reject"
        return self.calls[id(sub)]

    def problem(self, message: str, keyword: str, at: str = "path") -> str:
        return (
            f"problems.append(_checks.Problem({at}, {message}, {py_literal(keyword)}))"
        )

    def counted(self, text: str, count: str, keyword: str) -> str:
        arguments = f"{py_literal(text)}, {count}, {py_literal(keyword)}, path"
        return f"problems.append(_checks.counted({arguments}))"

    def early(self, body: list[str]) -> None:
        body += [_EARLY, "    return problems"]

    def passing(self, check: str, ff: str = "ff") -> str:
        """A call of a check applied in place, passing on the annotations when they are collected."""
        return (
            f"{check}(value, path, {ff}, ann)"
            if self.collects
            else f"{check}(value, path, {ff})"
        )

    def _in_place(self, schema: Mapping[str, Any]) -> None:
        body = self.body
        if self.own:
            if self.recording:
                body.append("outer = ann")
            body.append("ann = _checks.Ann()")
        for reference in (self.ref, self.dynamic_ref):  # `$ref`, then `$dynamicRef`
            if reference is not None:
                body.append(f"problems += {self.passing(reference)}")
                self.early(body)
        body.append("kind = _checks.json_type(value)")
        self._type(schema)
        if "enum" in schema:
            values = self.constant(
                f"_checks.keys({py_literal(schema['enum'])})", "frozenset[object]"
            )
            message = f"must be one of {_show(list(schema['enum']), 300)}"
            body += [
                f"if _checks.key(value) not in {values}:",
                "    " + self.problem(py_literal(message), "enum"),
            ]
        if "const" in schema:
            value = self.constant(f"_checks.key({py_literal(schema['const'])})")
            message = f"must be equal to {_show(schema['const'])}"
            body += [
                f"if _checks.key(value) != {value}:",
                "    " + self.problem(py_literal(message), "const"),
            ]
        if {"type", "enum", "const"} & set(schema):
            self.early(body)
        for kinds, keywords, family in (
            ('("integer", "number")', _NUMBER_KEYWORDS, self._number),
            ('("string",)', _STRING_KEYWORDS, self._string),
            ('("array",)', _ARRAY_KEYWORDS, self._array),
            ('("object",)', _OBJECT_KEYWORDS, self._object),
        ):
            if not keywords.isdisjoint(schema):
                lines: list[str] = []
                family(schema, lines)
                if lines:
                    body.append(f"if kind in {kinds}:")
                    body += ["    " + line for line in lines]
        if {"allOf", "anyOf", "oneOf", "not", "if"} & set(schema):
            self._combinators(schema, body)
        if self.own:
            self._unevaluated(schema, body)

    def _type(self, schema: Mapping[str, Any]) -> None:
        if "type" not in schema:
            return
        expected = schema["type"]
        names = [expected] if isinstance(expected, str) else list(expected)
        if isinstance(expected, str):
            wanted = expected
        elif len(names) < 3:
            wanted = " or ".join(names)
        else:
            wanted = ", ".join(names[:-1]) + " or " + names[-1]
        if isinstance(expected, str):
            test = f"_checks.has_type(value, kind, {py_literal(expected)})"
        else:
            test = f"_checks.any_type(value, kind, {py_literal(names)})"
        self.body += [
            f"if not {test}:",
            f"    problems.append(_checks.mistyped({py_literal(wanted)}, kind, path))",
        ]

    def _number(self, schema: Mapping[str, Any], body: list[str]) -> None:
        divisor = schema.get("multipleOf")
        if _is_number(divisor) and divisor > 0:
            message = f"must be a multiple of {_show(divisor)}"
            body += [
                f"if not _checks.is_multiple(value, {py_literal(divisor)}):",
                "    " + self.problem(py_literal(message), "multipleOf"),
            ]
        for keyword, relation, test in _BOUNDS:
            limit = schema.get(keyword)
            if not _is_number(limit):
                continue
            message = f"must be {relation} {_show(limit)}"
            body += [
                f"if not _checks.{test}(value, {py_literal(limit)}):",
                "    " + self.problem(py_literal(message), keyword),
            ]

    def _string(self, schema: Mapping[str, Any], body: list[str]) -> None:
        least = _as_count(schema.get("minLength"))
        if least is not None:
            message = f"must be at least {_plural(least, 'character')} long"
            body += [
                f"if len(value) < {least}:",
                "    " + self.problem(py_literal(message), "minLength"),
            ]
        most = _as_count(schema.get("maxLength"))
        if most is not None:
            message = f"must be at most {_plural(most, 'character')} long"
            body += [
                f"if len(value) > {most}:",
                "    " + self.problem(py_literal(message), "maxLength"),
            ]
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            matcher = self.constant(
                f"_checks.pattern({py_literal(pattern)})", "_checks.Matcher"
            )
            message = f"must match pattern {pattern!r}"
            body += [
                f"if not {matcher}.search(value):",
                "    " + self.problem(py_literal(message), "pattern"),
            ]
        name = schema.get("format")
        declared = schema.get("type")
        if name in ("date", "date-time") and (
            declared == "string"
            or (isinstance(declared, list) and "string" in declared)
        ):
            if name == "date":
                test = "valid_date"
                message = (
                    "must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)"
                )
            else:
                test = "valid_date_time"
                message = (
                    "must be a valid RFC 3339 date-time with a time zone,"
                    " e.g. 2024-01-31T09:30:00Z or 2024-01-31T09:30:00+02:00"
                )
            body += [
                f"if not _checks.{test}(value):",
                "    " + self.problem(py_literal(message), "format"),
            ]

    def _array(self, schema: Mapping[str, Any], body: list[str]) -> None:
        body.append("count = len(value)")
        start = 0
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            start = len(prefix)
            for index, sub in enumerate(prefix):
                body += [
                    f"if count > {index}:",
                    f"    problems += {self.call(sub)}(value[{index}], path + ({index},), ff)",
                    "    " + _EARLY,
                    "        return problems",
                ]
            if self.collects:
                body.append(f"_checks.evaluated_items(ann, min({start}, count))")
        if "items" in schema:
            items = schema["items"]
            if items is False:
                if start:
                    message = f"must have at most {_plural(start, 'item')} (no additional items allowed)"
                else:
                    message = "must be empty (no items allowed)"
                body += [
                    f"if count > {start}:",
                    "    " + self.problem(py_literal(message), "items"),
                ]
            elif items is not True:
                body += [
                    f"for index in range({start}, count):",
                    f"    problems += {self.call(items)}(value[index], path + (index,), ff)",
                    "    " + _EARLY,
                    "        return problems",
                ]
            if self.collects:
                body.append("_checks.evaluated_all(ann)")
        if "contains" in schema:
            check = self.call(schema["contains"])
            least = _as_count(schema.get("minContains"))
            least = 1 if least is None else least
            most = _as_count(schema.get("maxContains"))
            body += [
                "hits: list[int] = []",
                "for index in range(count):",
                f"    if not {check}(value[index], path + (index,), True):",
                "        hits.append(index)",
            ]
            text = f"must contain at least {_plural(least, 'item')} matching the 'contains' schema (found "
            keyword = "minContains" if least != 1 else "contains"
            body += [
                f"if len(hits) < {least}:",
                "    " + self.counted(text, "len(hits)", keyword),
            ]
            if most is not None:
                text = f"must contain at most {_plural(most, 'item')} matching the 'contains' schema (found "
                body += [
                    f"elif len(hits) > {most}:",
                    "    " + self.counted(text, "len(hits)", "maxContains"),
                ]
            if self.collects:
                body += ["else:", "    _checks.evaluated_indices(ann, hits)"]
        self._bounds(schema, body, ("minItems", "maxItems"), "item", "count")
        if schema.get("uniqueItems") is True:
            body.append("problems += _checks.unique(value, path)")

    def _object(self, schema: Mapping[str, Any], body: list[str]) -> None:
        for name in schema.get("required", []):
            if isinstance(name, str):
                message = f"{name!r} is a required property"
                body += [
                    f"if {self.key(name)} not in value:",
                    "    " + self.problem(py_literal(message), "required"),
                    "    if ff:",
                    "        return problems",
                ]
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        for name, sub in properties.items():
            if sub is True and not self.collects:
                continue
            key = self.key(name)
            body.append(f"if {key} in value:")
            if sub is not True:
                body += [
                    f"    problems += {self.call(sub)}(value[{key}], path + ({key},), ff)",
                    "    " + _EARLY,
                    "        return problems",
                ]
            if self.collects:
                body.append(f"    _checks.evaluated(ann, {key})")
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping):
            body.append("matched: set[str] = set()")
            for pattern, sub in patterns.items():
                matcher = self.constant(
                    f"_checks.pattern({py_literal(pattern)})", "_checks.Matcher"
                )
                body += [
                    "for name in value:",
                    f"    if {matcher}.search(name):",
                    "        matched.add(name)",
                    f"        problems += {self.call(sub)}(value[name], path + (name,), ff)",
                    "        " + _EARLY,
                    "            return problems",
                ]
            if self.collects:
                body.append("_checks.evaluated_names(ann, matched)")
        if "additionalProperties" in schema:
            sub = schema["additionalProperties"]
            names = self.constant(
                f"frozenset({py_literal(list(properties))})", "frozenset[str]"
            )
            matched = "matched" if isinstance(patterns, Mapping) else "None"
            if sub is not True or self.collects:
                body.append(f"extra = _checks.extra(value, {names}, {matched})")
            if sub is False:
                shown = (
                    py_literal(list(patterns))
                    if isinstance(patterns, Mapping)
                    else "None"
                )
                listed = py_literal(list(properties))
                body += [
                    "if extra:",
                    f"    problems.append(_checks.unexpected(extra, {listed}, {shown}, path))",
                ]
            elif sub is not True:
                body += [
                    "for name in extra:",
                    f"    problems += {self.call(sub)}(value[name], path + (name,), ff)",
                    "    " + _EARLY,
                    "        return problems",
                ]
            if self.collects:
                body.append("_checks.evaluated_names(ann, extra)")
        if "propertyNames" in schema and schema["propertyNames"] is not True:
            body += [
                "for name in value:",
                f"    found = {self.call(schema['propertyNames'])}(name, path, True)",
                "    if found:",
                "        problems.append(_checks.bad_name(name, found, path))",
                "        if ff:",
                "            return problems",
            ]
        for name, needed in schema.get("dependentRequired", {}).items():
            body.append(f"if {self.key(name)} in value:")
            for other in needed:
                message = f"{other!r} is a required property when {name!r} is present"
                body += [
                    f"    if {self.key(other)} not in value:",
                    "        " + self.problem(py_literal(message), "dependentRequired"),
                ]
            if not needed:
                body.append("    pass")
        dependent = schema.get("dependentSchemas")
        for name, sub in (dependent or {}).items():
            body += [
                f"if {self.key(name)} in value:",
                f"    problems += {self.passing(self.call(sub))}",
                "    " + _EARLY,
                "        return problems",
            ]
        self._bounds(
            schema, body, ("minProperties", "maxProperties"), "property", "len(value)"
        )

    def _bounds(
        self,
        schema: Mapping[str, Any],
        body: list[str],
        keywords: tuple[str, str],
        noun: str,
        measure: str,
    ) -> None:
        """The least and most of a count (`keywords`: minItems and maxItems, say), `measure` its expression in
        the generated check."""
        for keyword, relation, word in (
            (keywords[0], "<", "least"),
            (keywords[1], ">", "most"),
        ):
            bound = _as_count(schema.get(keyword))
            if bound is not None:
                text = f"must have at {word} {_plural(bound, noun)} (has "
                body += [
                    f"if {measure} {relation} {bound}:",
                    "    " + self.counted(text, measure, keyword),
                ]

    def _combinators(self, schema: Mapping[str, Any], body: list[str]) -> None:
        for sub in schema.get("allOf", []):
            body.append(f"problems += {self.passing(self.call(sub))}")
            self.early(body)
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if branches:
                checks = ", ".join(self.call(sub) for sub in branches)
                arguments = f"{py_literal(keyword)}, ({checks},), value, path, ff"
                if self.collects:
                    arguments += ", ann"
                body.append(f"problems += _checks.alternatives({arguments})")
                self.early(body)
        if "not" in schema:
            message = f"must not match the 'not' schema {_show(schema['not'])}"
            body += [
                f"if not {self.call(schema['not'])}(value, path, True):",
                "    " + self.problem(py_literal(message), "not"),
                "    if ff:",
                "        return problems",
            ]
        if "if" in schema:
            then = schema.get("then", True)
            otherwise = schema.get("else", True)
            condition = self.call(schema["if"])
            if self.collects:
                test = f"_checks.holds({condition}, value, path, ann)"
            else:
                test = f"not {condition}(value, path, True)"
            body += [
                f"if {test}:",
                f"    problems += {self.passing(self.call(then))}",
                "else:",
                f"    problems += {self.passing(self.call(otherwise))}",
            ]

    def _unevaluated(self, schema: Mapping[str, Any], body: list[str]) -> None:
        """Last, as the interpreter does: `unevaluated*` read the annotations of every keyword above."""
        self.early(body)
        for keyword, kind, rest, unexpected, each in (
            ("unevaluatedItems", "array", "indices", "unexpected_items", "index"),
            ("unevaluatedProperties", "object", "names", "unexpected_names", "name"),
        ):
            if keyword not in schema:
                continue
            sub = schema[keyword]
            body.append(f"if kind == {py_literal(kind)}:")
            call = f"_checks.unevaluated_{rest}(value, ann)"
            if sub is True:
                body.append(f"    {call}")
                continue
            body.append(f"    left_{rest} = {call}")
            if sub is False:
                body += [
                    f"    if left_{rest}:",
                    f"        problems.append(_checks.{unexpected}(left_{rest}, path))",
                ]
            else:
                body += [
                    f"    for {each} in left_{rest}:",
                    f"        problems += {self.call(sub)}(value[{each}], path + ({each},), ff)",
                    "        " + _EARLY,
                    "            return problems",
                ]
        if self.recording:
            body.append("_checks.merge(outer, ann)")
