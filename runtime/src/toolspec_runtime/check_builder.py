"""Builds the compiled checks of a schema (`check_planner.py`) as closures composed per keyword: no source is
written or executed.

Each check mirrors the interpreter's evaluation of its schema (`validation/evaluator.py`), keyword for keyword:
the same order, the same fail-fast returns, the same messages (worded here, at build time, by the interpreter's
helpers) and the same annotations for `unevaluated*`. (Until version 0.2 these checks were written as Python
source and exec'd; this builder reproduced them exactly, as tests/test_check_builder.py's history shows.) A check is a small driver running a tuple of steps, one per keyword (or
per group of keywords sharing what they compute); the tuple is chosen by the value's JSON type when the check is
built, so a call skips every keyword that cannot apply to its value, as a hand-written `if kind in ...:` block would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import checks as _checks
from .check_planner import UNEVALUATED, CheckFunction, ModuleChecks, annotating
from .checks import Ann, Check, Path, Problem, Problems
from .validation.data import _show
from .validation.evaluator import (
    _ARRAY_KEYWORDS,
    _NUMBER_KEYWORDS,
    _OBJECT_KEYWORDS,
    _STRING_KEYWORDS,
)
from .validation.numbers import _as_count, _is_number
from .validation.problems import _plural

__all__ = ["build_check", "build_checks"]


class Fn(Protocol):
    """A built check: the annotations argument is passed only by checks that collect them."""

    def __call__(
        self, value: Any, path: Path, ff: bool, ann: Ann | None = None, /
    ) -> Problems: ...


# One keyword's work on a value: appends its problems, and says whether the check returns now (fail-fast).
Step = Callable[[Any, Path, bool, Ann | None, Problems], bool]
Steps = tuple[Step, ...]

_KINDS = ("null", "boolean", "integer", "number", "string", "array", "object")
# The JSON type of a value of each plain Python type, as `json_type` names it (looked up by exact type, which
# is quicker; any other type, a subclass, a date or a Decimal, asks `json_type`).
_PLAIN = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
_BOUNDS = (
    ("minimum", ">=", _checks.at_least),
    ("exclusiveMinimum", ">", _checks.above),
    ("maximum", "<=", _checks.at_most),
    ("exclusiveMaximum", "<", _checks.below),
)
_UNEVALUATED = frozenset(UNEVALUATED)
_DATE = "must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)"
_DATE_TIME = (
    "must be a valid RFC 3339 date-time with a time zone,"
    " e.g. 2024-01-31T09:30:00Z or 2024-01-31T09:30:00+02:00"
)


def build_check(document: Any, pointer: str) -> Check | None:
    """The check of the subschema at `pointer` of `document`, or None if the interpreter keeps it."""
    checks = ModuleChecks()
    name = checks.entry(document, pointer)
    if name is None:
        return None
    if name.startswith("_checks."):  # the schema `true` or `false`
        found: Check = getattr(_checks, name.removeprefix("_checks."))
        return found
    return build_checks(checks.functions)[name]


def build_checks(functions: list[CheckFunction]) -> dict[str, Fn]:
    """The check of each function, by name."""
    recording = annotating(functions)
    builders = [_Builder(f, f.name in recording) for f in functions]
    # Every driver exists before any step is made, so a step holds its callee itself (a recursive check calls
    # itself, or one built later, with no look-up per call); the steps are filled in afterwards.
    table: dict[str, Fn] = {b.name: b.check for b in builders}
    for builder in builders:
        builder.fill(table)
    return table


def _plain_types(by_kind: dict[str, Steps]) -> dict[type, Steps]:
    return {kind_type: by_kind[kind] for kind_type, kind in _PLAIN.items()}


def _type_verdict(names: list[str], kind: str) -> bool | None:
    """Whether a value of JSON type `kind` has one of the types `names`, as `has_type` decides it: known from
    the kind alone, but for a number that may be integral (None: tested at run time)."""
    if kind in names or (kind == "integer" and "number" in names):
        return True
    if kind == "number" and "integer" in names:
        return None
    return False


class _Builder:
    def __init__(self, function: CheckFunction, recording: bool) -> None:
        self.name = function.name
        self.schema = function.schema
        self.calls = function.calls
        self.ref = function.ref
        self.dynamic_ref = function.dynamic_ref
        # `recording`: it records annotations into its argument `ann` for an enclosing
        # `unevaluated*`; `own`, it reads them itself (a record of its own, merged into the caller's at the end).
        self.recording = recording
        self.own = not _UNEVALUATED.isdisjoint(function.schema)
        self.collects = recording or self.own
        self.table: dict[str, Fn] = {}
        # Filled by `fill`, read by the driver.
        self.by_kind: dict[str, Steps] = {}
        self.by_type: dict[type, Steps] = {}
        self.check: Fn = self._driver()

    # -- the driver --

    def _driver(self) -> Fn:
        by_kind, by_type = self.by_kind, self.by_type
        json_type = _checks.json_type
        if not self.own:

            def check(
                value: Any, path: Path, ff: bool, ann: Ann | None = None, /
            ) -> Problems:
                steps = by_type.get(type(value))
                if steps is None:
                    steps = by_kind[json_type(value)]
                problems: Problems = []
                for step in steps:
                    if step(value, path, ff, ann, problems):
                        return problems
                return problems

            return check
        new_ann = Ann
        if not self.recording:
            # Its own record; an enclosing check's is never passed to it.
            def own(
                value: Any, path: Path, ff: bool, ann: Ann | None = None, /
            ) -> Problems:
                steps = by_type.get(type(value))
                if steps is None:
                    steps = by_kind[json_type(value)]
                problems: Problems = []
                mine = new_ann()
                for step in steps:
                    if step(value, path, ff, mine, problems):
                        return problems
                return problems

            return own
        merge = _checks.merge

        def recording(
            value: Any, path: Path, ff: bool, ann: Ann | None = None, /
        ) -> Problems:
            steps = by_type.get(type(value))
            if steps is None:
                steps = by_kind[json_type(value)]
            problems: Problems = []
            mine = new_ann()
            for step in steps:
                if step(value, path, ff, mine, problems):
                    return problems  # (the caller's record is not given these)
            merge(ann, mine)
            return problems

        return recording

    # -- the steps --

    def fill(self, table: dict[str, Fn]) -> None:
        self.table = table
        schema = self.schema
        if not schema:  # the empty schema accepts everything
            self.by_kind.update({kind: () for kind in _KINDS})
            self.by_type.update(_plain_types(self.by_kind))
            return
        first: list[Step] = []
        for reference in (self.ref, self.dynamic_ref):  # `$ref`, then `$dynamicRef`
            if reference is not None:
                first.append(self._in_place_call(self._named(reference)))
        families: dict[str, list[Step]] = {
            "number": self._number(schema),
            "string": self._string(schema),
            "array": self._array(schema),
            "object": self._object(schema),
        }
        families["integer"] = families["number"]
        combinators = self._combinators(schema)
        for kind in _KINDS:
            steps = [*first, *self._head(schema, kind), *families.get(kind, [])]
            steps += combinators
            if self.own:
                steps += self._unevaluated(schema, kind)
            self.by_kind[kind] = tuple(steps)
        self.by_type.update(_plain_types(self.by_kind))

    def _named(self, name: str) -> Fn:
        if name.startswith("_checks."):  # a reference to the schema `true` or `false`
            found: Fn = getattr(_checks, name.removeprefix("_checks."))
            return found
        return self.table[name]

    def call(self, sub: Any) -> Fn:
        """The check of a subschema."""
        if sub is True or sub is False:
            return _checks.accept if sub else _checks.reject
        return self._named(self.calls[id(sub)])

    def _in_place_call(self, check: Fn) -> Step:
        """`problems += check(value, path, ff[, ann])`, then the fail-fast return."""
        if self.collects:

            def passing(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                problems += check(value, path, ff, ann)
                return ff and bool(problems)

            return passing

        def applied(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            problems += check(value, path, ff)
            return ff and bool(problems)

        return applied

    def _head(self, schema: Mapping[str, Any], kind: str) -> list[Step]:
        """`type`, `enum` and `const`, for values of the JSON type `kind`, then the fail-fast return."""
        if not {"type", "enum", "const"} & set(schema):
            return []
        verdict: bool | None = True
        wanted = ""
        test: Callable[[Any], bool] | None = None
        if "type" in schema:
            expected = schema["type"]
            names = [expected] if isinstance(expected, str) else list(expected)
            if isinstance(expected, str):
                wanted = expected
            elif len(names) < 3:
                wanted = " or ".join(names)
            else:
                wanted = ", ".join(names[:-1]) + " or " + names[-1]
            verdict = _type_verdict(names, kind)
            if verdict is None:
                has_type, any_type = _checks.has_type, _checks.any_type
                if isinstance(expected, str):
                    test = lambda value: has_type(value, kind, expected)  # noqa: E731
                else:
                    test = lambda value: any_type(value, kind, names)  # noqa: E731
        enum_keys: frozenset[object] | None = None
        enum_message = ""
        if "enum" in schema:
            enum_keys = _checks.keys(schema["enum"])
            enum_message = f"must be one of {_show(list(schema['enum']), 300)}"
        has_const = "const" in schema
        const_key = _checks.key(schema["const"]) if has_const else None
        const_message = (
            f"must be equal to {_show(schema['const'])}" if has_const else ""
        )
        mistyped, key = _checks.mistyped, _checks.key
        if enum_keys is None and not has_const:
            if verdict is True:
                return []  # nothing to report, so no fail-fast return either
            if verdict is False:

                def mistyped_step(
                    value: Any,
                    path: Path,
                    ff: bool,
                    ann: Ann | None,
                    problems: Problems,
                ) -> bool:
                    problems.append(mistyped(wanted, kind, path))
                    return ff

                return [mistyped_step]

        def head(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            if verdict is False or (test is not None and not test(value)):
                problems.append(mistyped(wanted, kind, path))
            if enum_keys is not None and key(value) not in enum_keys:
                problems.append(Problem(path, enum_message, "enum"))
            if has_const and key(value) != const_key:
                problems.append(Problem(path, const_message, "const"))
            return ff and bool(problems)

        return [head]

    def _number(self, schema: Mapping[str, Any]) -> list[Step]:
        if _NUMBER_KEYWORDS.isdisjoint(schema):
            return []
        tests: list[tuple[Callable[[Any, Any], bool], Any, str, str]] = []
        divisor = schema.get("multipleOf")
        if _is_number(divisor) and divisor > 0:
            message = f"must be a multiple of {_show(divisor)}"
            tests.append((_checks.is_multiple, divisor, message, "multipleOf"))
        for keyword, relation, bound_test in _BOUNDS:
            limit = schema.get(keyword)
            if _is_number(limit):
                message = f"must be {relation} {_show(limit)}"
                tests.append((bound_test, limit, message, keyword))
        if not tests:
            return []
        frozen = tuple(tests)

        def number(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            for test, limit, message, keyword in frozen:
                if not test(value, limit):
                    problems.append(Problem(path, message, keyword))
            return False

        return [number]

    def _string(self, schema: Mapping[str, Any]) -> list[Step]:
        if _STRING_KEYWORDS.isdisjoint(schema):
            return []
        least = _as_count(schema.get("minLength"))
        least_message = (
            f"must be at least {_plural(least, 'character')} long"
            if least is not None
            else ""
        )
        most = _as_count(schema.get("maxLength"))
        most_message = (
            f"must be at most {_plural(most, 'character')} long"
            if most is not None
            else ""
        )
        pattern = schema.get("pattern")
        matcher = _checks.pattern(pattern) if isinstance(pattern, str) else None
        pattern_message = f"must match pattern {pattern!r}"
        name = schema.get("format")
        declared = schema.get("type")
        valid: Callable[[Any], bool] | None = None
        format_message = ""
        if name in ("date", "date-time") and (
            declared == "string"
            or (isinstance(declared, list) and "string" in declared)
        ):
            if name == "date":
                valid, format_message = _checks.valid_date, _DATE
            else:
                valid, format_message = _checks.valid_date_time, _DATE_TIME
        if least is None and most is None and matcher is None and valid is None:
            return []
        lengths = least is not None or most is not None
        shortest = -1 if least is None else least
        longest = most

        def string(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            if lengths:
                size = len(value)
                if size < shortest:
                    problems.append(Problem(path, least_message, "minLength"))
                if longest is not None and size > longest:
                    problems.append(Problem(path, most_message, "maxLength"))
            if matcher is not None and not matcher.search(value):
                problems.append(Problem(path, pattern_message, "pattern"))
            if valid is not None and not valid(value):
                problems.append(Problem(path, format_message, "format"))
            return False

        return [string]

    def _array(self, schema: Mapping[str, Any]) -> list[Step]:
        if _ARRAY_KEYWORDS.isdisjoint(schema):
            return []
        steps: list[Step] = []
        collects = self.collects
        evaluated_items = _checks.evaluated_items
        start = 0
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            start = len(prefix)
            firsts = tuple(enumerate(self.call(sub) for sub in prefix))
            upto = start

            def prefix_items(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                count = len(value)
                for index, check in firsts:
                    if count > index:
                        problems += check(value[index], path + (index,), ff)
                        if ff and problems:
                            return True
                if collects:
                    evaluated_items(ann, min(upto, count))
                return False

            steps.append(prefix_items)
        if "items" in schema:
            steps.append(self._items(schema["items"], start))
        if "contains" in schema:
            steps.append(self._contains(schema))
        steps += self._counts(schema, ("minItems", "maxItems"), "item")
        if schema.get("uniqueItems") is True:
            unique = _checks.unique

            def unique_items(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                problems += unique(value, path)
                return False

            steps.append(unique_items)
        return steps

    def _items(self, items: Any, start: int) -> Step:
        collects = self.collects
        evaluated_all = _checks.evaluated_all
        if items is True or items is False:
            if start:
                message = f"must have at most {_plural(start, 'item')} (no additional items allowed)"
            else:
                message = "must be empty (no items allowed)"
            refused = items is False

            def bounded(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                if refused and len(value) > start:
                    problems.append(Problem(path, message, "items"))
                if collects:
                    evaluated_all(ann)
                return False

            return bounded
        check = self.call(items)

        def each_item(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            for index in range(start, len(value)):
                problems += check(value[index], path + (index,), ff)
                if ff and problems:
                    return True
            if collects:
                evaluated_all(ann)
            return False

        return each_item

    def _contains(self, schema: Mapping[str, Any]) -> Step:
        check = self.call(schema["contains"])
        counted = _checks.counted
        evaluated_indices = _checks.evaluated_indices
        collects = self.collects
        least = _as_count(schema.get("minContains"))
        least = 1 if least is None else least
        most = _as_count(schema.get("maxContains"))
        few = f"must contain at least {_plural(least, 'item')} matching the 'contains' schema (found "
        few_keyword = "minContains" if least != 1 else "contains"
        many = (
            f"must contain at most {_plural(most, 'item')} matching the 'contains' schema (found "
            if most is not None
            else ""
        )

        def contains(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            hits: list[int] = []
            for index in range(len(value)):
                if not check(value[index], path + (index,), True):
                    hits.append(index)
            if len(hits) < least:
                problems.append(counted(few, len(hits), few_keyword, path))
            elif most is not None and len(hits) > most:
                problems.append(counted(many, len(hits), "maxContains", path))
            elif collects:
                evaluated_indices(ann, hits)
            return False

        return contains

    def _counts(
        self, schema: Mapping[str, Any], keywords: tuple[str, str], noun: str
    ) -> list[Step]:
        """The least and most of a count (`keywords`: minItems and maxItems, say) of the value's `len`."""
        least = _as_count(schema.get(keywords[0]))
        most = _as_count(schema.get(keywords[1]))
        if least is None and most is None:
            return []
        few = (
            f"must have at least {_plural(least, noun)} (has "
            if least is not None
            else ""
        )
        many = (
            f"must have at most {_plural(most, noun)} (has " if most is not None else ""
        )
        least_keyword, most_keyword = keywords
        counted = _checks.counted

        def counts(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            size = len(value)
            if least is not None and size < least:
                problems.append(counted(few, size, least_keyword, path))
            if most is not None and size > most:
                problems.append(counted(many, size, most_keyword, path))
            return False

        return [counts]

    def _object(self, schema: Mapping[str, Any]) -> list[Step]:
        if _OBJECT_KEYWORDS.isdisjoint(schema):
            return []
        steps: list[Step] = []
        collects = self.collects
        required = tuple(
            (name, f"{name!r} is a required property")
            for name in schema.get("required", [])
            if isinstance(name, str)
        )
        if required:

            def required_step(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                for name, message in required:
                    if name not in value:
                        problems.append(Problem(path, message, "required"))
                        if ff:
                            return True
                return False

            steps.append(required_step)
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        steps += self._properties(properties)
        patterns = schema.get("patternProperties")
        if isinstance(patterns, Mapping) or "additionalProperties" in schema:
            steps.append(self._patterns_and_additional(schema, properties))
        if "propertyNames" in schema and schema["propertyNames"] is not True:
            check = self.call(schema["propertyNames"])
            bad_name = _checks.bad_name

            def property_names(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                for name in value:
                    found = check(name, path, True)
                    if found:
                        problems.append(bad_name(name, found, path))
                        if ff:
                            return True
                return False

            steps.append(property_names)
        dependent_required = tuple(
            (
                name,
                tuple(
                    (
                        other,
                        f"{other!r} is a required property when {name!r} is present",
                    )
                    for other in needed
                ),
            )
            for name, needed in schema.get("dependentRequired", {}).items()
        )
        if dependent_required:

            def dependent_required_step(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                for name, needed in dependent_required:
                    if name in value:
                        for other, message in needed:
                            if other not in value:
                                problems.append(
                                    Problem(path, message, "dependentRequired")
                                )
                return False

            steps.append(dependent_required_step)
        dependent = schema.get("dependentSchemas") or {}
        if dependent:
            schemas = tuple((name, self.call(sub)) for name, sub in dependent.items())

            def dependent_schemas(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                for name, check in schemas:
                    if name in value:
                        if collects:
                            problems += check(value, path, ff, ann)
                        else:
                            problems += check(value, path, ff)
                        if ff and problems:
                            return True
                return False

            steps.append(dependent_schemas)
        steps += self._counts(schema, ("minProperties", "maxProperties"), "property")
        return steps

    def _properties(self, properties: Mapping[str, Any]) -> list[Step]:
        collects = self.collects
        # (a property whose schema is `true` is only recorded, and skipped when nothing is recorded)
        applied = tuple(
            (name, (name,), None if sub is True else self.call(sub))
            for name, sub in properties.items()
            if sub is not True or collects
        )
        if not applied:
            return []
        if not collects:
            checked = tuple(
                (name, tail, check) for name, tail, check in applied if check
            )

            def properties_step(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                for name, tail, check in checked:
                    if name in value:
                        problems += check(value[name], path + tail, ff)
                        if ff and problems:
                            return True
                return False

            return [properties_step]
        evaluated = _checks.evaluated

        def recorded_properties(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            for name, tail, check in applied:
                if name in value:
                    if check is not None:
                        problems += check(value[name], path + tail, ff)
                        if ff and problems:
                            return True
                    evaluated(ann, name)
            return False

        return [recorded_properties]

    def _patterns_and_additional(
        self, schema: Mapping[str, Any], properties: Mapping[str, Any]
    ) -> Step:
        """`patternProperties` and `additionalProperties`, one step: the second reads what the first matched."""
        collects = self.collects
        patterns = schema.get("patternProperties")
        matchers: tuple[tuple[_checks.Matcher, Fn], ...] | None = None
        if isinstance(patterns, Mapping):
            matchers = tuple(
                (_checks.pattern(pattern), self.call(sub))
                for pattern, sub in patterns.items()
            )
        additional = "additionalProperties" in schema
        sub = schema.get("additionalProperties")
        names = frozenset(list(properties))
        needs_extra = additional and (sub is not True or collects)
        refuses = additional and sub is False
        extra_check = (
            self.call(sub)
            if additional and sub is not True and sub is not False
            else None
        )
        listed = list(properties)
        shown = list(patterns) if isinstance(patterns, Mapping) else None
        extra, unexpected = _checks.extra, _checks.unexpected
        evaluated_names = _checks.evaluated_names

        def patterns_and_additional(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            matched: set[str] | None = None
            if matchers is not None:
                matched = set()
                for matcher, check in matchers:
                    for name in value:
                        if matcher.search(name):
                            matched.add(name)
                            problems += check(value[name], path + (name,), ff)
                            if ff and problems:
                                return True
                if collects:
                    evaluated_names(ann, matched)
            if needs_extra:
                left = extra(value, names, matched)
                if refuses:
                    if left:
                        problems.append(unexpected(left, listed, shown, path))
                elif extra_check is not None:
                    for name in left:
                        problems += extra_check(value[name], path + (name,), ff)
                        if ff and problems:
                            return True
                if collects:
                    evaluated_names(ann, left)
            return False

        return patterns_and_additional

    def _combinators(self, schema: Mapping[str, Any]) -> list[Step]:
        steps: list[Step] = []
        collects = self.collects
        for sub in schema.get("allOf", []):
            steps.append(self._in_place_call(self.call(sub)))
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if branches:
                steps.append(
                    self._alternatives(
                        keyword, tuple(self.call(sub) for sub in branches)
                    )
                )
        if "not" in schema:
            check = self.call(schema["not"])
            message = f"must not match the 'not' schema {_show(schema['not'])}"

            def not_step(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                if not check(value, path, True):
                    problems.append(Problem(path, message, "not"))
                    if ff:
                        return True
                return False

            steps.append(not_step)
        if "if" in schema:
            condition = self.call(schema["if"])
            then = self.call(schema.get("then", True))
            otherwise = self.call(schema.get("else", True))
            holds = _checks.holds

            def if_step(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                if collects:
                    if holds(condition, value, path, ann):
                        problems += then(value, path, ff, ann)
                    else:
                        problems += otherwise(value, path, ff, ann)
                elif not condition(value, path, True):
                    problems += then(value, path, ff)
                else:
                    problems += otherwise(value, path, ff)
                return False

            steps.append(if_step)
        return steps

    def _alternatives(self, keyword: str, branches: tuple[Fn, ...]) -> Step:
        alternatives = _checks.alternatives
        if self.collects:

            def collected(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                problems += alternatives(keyword, branches, value, path, ff, ann)
                return ff and bool(problems)

            return collected

        def alternative(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            problems += alternatives(keyword, branches, value, path, ff)
            return ff and bool(problems)

        return alternative

    def _unevaluated(self, schema: Mapping[str, Any], kind: str) -> list[Step]:
        """Last, as the interpreter does: `unevaluated*` read the annotations of every keyword above."""
        steps: list[Step] = [_early]
        if kind == "array" and "unevaluatedItems" in schema:
            steps.append(
                self._left(
                    schema["unevaluatedItems"],
                    _checks.unevaluated_indices,
                    _checks.unexpected_items,
                )
            )
        if kind == "object" and "unevaluatedProperties" in schema:
            steps.append(
                self._left(
                    schema["unevaluatedProperties"],
                    _checks.unevaluated_names,
                    _checks.unexpected_names,
                )
            )
        return steps

    def _left(
        self,
        sub: Any,
        unevaluated: Callable[[Any, Ann], list[Any]],
        unexpected: Callable[[list[Any], Path], Problem],
    ) -> Step:
        """What `unevaluated*` applies its schema `sub` to: the names or indices no keyword evaluated."""
        if sub is True:

            def recorded(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                assert (
                    ann is not None
                )  # (a check with `unevaluated*` always has its own)
                unevaluated(value, ann)
                return False

            return recorded
        if sub is False:

            def refused(
                value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
            ) -> bool:
                assert ann is not None
                left = unevaluated(value, ann)
                if left:
                    problems.append(unexpected(left, path))
                return False

            return refused
        check = self.call(sub)

        def each(
            value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
        ) -> bool:
            assert ann is not None
            for at in unevaluated(value, ann):
                problems += check(value[at], path + (at,), ff)
                if ff and problems:
                    return True
            return False

        return each


def _early(
    value: Any, path: Path, ff: bool, ann: Ann | None, problems: Problems
) -> bool:
    """The fail-fast return before `unevaluated*` (it also skips the merge of the annotations)."""
    return ff and bool(problems)
