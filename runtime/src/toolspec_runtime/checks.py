"""What the checks built per schema (`check_planner.py` plans, `check_builder.py` builds) call at run time.

A compiled check decides one subschema, `check(value, path, ff) -> problems`, mirroring
the interpreter's evaluation keyword for keyword (`validation/evaluator.py`): the same order, the same
fail-fast returns (`ff`), the same messages. The semantics are the interpreter's own primitives, re-exported
here: JSON types and equality, exact number comparison, the linear-time pattern matcher, the asserted formats.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .validation.applicators import _one_of_message, _summarise
from .validation.context import _ALL, _Ann
from .validation.data import _check_data, _has_type, _json_type, _key
from .validation.formats import _valid_date, _valid_date_time
from .validation.limits import _MAX_DEPTH
from .validation.numbers import _aligned, _is_multiple, _too_long
from .validation.objects import _Objects
from .validation.patterns import Matcher as Matcher
from .validation.patterns import compile_pattern
from .validation.problems import Problem as Problem
from .validation.problems import _names

Path = tuple[str | int, ...]
Problems = list[Problem]
Check = Callable[[Any, Path, bool], list[Problem]]
# The annotations `unevaluated*` read (the properties and items evaluated): the interpreter's own record.
Ann = _Ann

json_type = _json_type
has_type = _has_type
key = _key
is_multiple = _is_multiple
valid_date = _valid_date
valid_date_time = _valid_date_time


def any_type(value: Any, kind: str, names: list[str]) -> bool:
    return any(_has_type(value, kind, name) for name in names)


def pattern(text: str) -> Matcher:
    """The matcher of a pattern the compiler has seen compile."""
    return compile_pattern(text)


def keys(values: list[Any]) -> frozenset[object]:
    """The JSON-equality keys of `enum` values."""
    return frozenset(_key(value) for value in values)


def at_least(value: Any, limit: Any) -> bool:
    number, bound = _aligned(value, limit)
    return bool(number >= bound)


def above(value: Any, limit: Any) -> bool:
    number, bound = _aligned(value, limit)
    return bool(number > bound)


def at_most(value: Any, limit: Any) -> bool:
    number, bound = _aligned(value, limit)
    return bool(number <= bound)


def below(value: Any, limit: Any) -> bool:
    number, bound = _aligned(value, limit)
    return bool(number < bound)


def mistyped(wanted: str, kind: str, path: Path) -> Problem:
    return Problem(path, f"expected {wanted}, got {kind}", "type")


def counted(text: str, count: int, keyword: str, path: Path) -> Problem:
    """A problem of a count: `text` (ending "(has " or "(found ") with the count found."""
    return Problem(path, f"{text}{count})", keyword)


def accept(value: Any, path: Path, ff: bool, ann: Ann | None = None) -> list[Problem]:
    """The check of the schema `true`."""
    return []


def reject(value: Any, path: Path, ff: bool, ann: Ann | None = None) -> list[Problem]:
    """The check of the schema `false`."""
    return [Problem(path, "no value is allowed here", "false")]


def extra(
    value: dict[str, Any], properties: frozenset[str], matched: set[str] | None
) -> list[str]:
    """The names neither `properties` nor (the names `patternProperties` matched) `matched` has."""
    return [
        name
        for name in value
        if name not in properties and (matched is None or name not in matched)
    ]


def unique(items: list[Any], path: Path) -> list[Problem]:
    seen: dict[object, int] = {}
    for index, item in enumerate(items):
        first = seen.setdefault(_key(item), index)
        if first != index:
            message = (
                f"must not contain duplicates (items {first} and {index} are equal)"
            )
            return [Problem(path, message, "uniqueItems")]
    return []


def unexpected(
    extra: list[str], properties: list[str], patterns: list[str] | None, path: Path
) -> Problem:
    """The problem of properties `additionalProperties: false` refuses, worded as the interpreter words it."""
    named = dict.fromkeys(patterns) if patterns is not None else None
    found = _Objects._unexpected(extra, dict.fromkeys(properties), named, None)
    return Problem(path, found.message, found.keyword)


def bad_name(name: str, found: list[Problem], path: Path) -> Problem:
    message = f"property name {name!r} is invalid: {found[0].message}"
    return Problem(path, message, "propertyNames")


def alternatives(
    keyword: str,
    branches: Sequence[Callable[..., list[Problem]]],
    value: Any,
    path: Path,
    ff: bool,
    ann: Ann | None = None,
) -> list[Problem]:
    """`anyOf` / `oneOf`, as the interpreter's `_alternatives` decides and words it. With `ann`, the
    annotations of every branch that matches are kept (so every `anyOf` branch is tried).
    """
    matches: list[int] = []
    for position, branch in enumerate(branches):
        if ann is None:
            failed = branch(value, path, True)
        else:
            branch_ann = Ann()
            failed = branch(value, path, True, branch_ann)
            if not failed:
                ann.merge(branch_ann)
        if not failed:
            matches.append(position)
            if keyword == "anyOf" and ann is None:
                break  # no annotations wanted: one match settles it
            if keyword == "oneOf" and len(matches) > 1:
                break
    if keyword == "oneOf" and len(matches) > 1:
        return [Problem(path, _one_of_message(len(branches), matches), keyword)]
    if matches:
        return []
    if ff:
        message = f"does not match any of the {len(branches)} {keyword} alternatives"
        return [Problem(path, message, keyword)]
    failures = [branch(value, path, False) for branch in branches]
    return _summarise(keyword, failures, path)


def holds(
    check: Callable[..., list[Problem]], value: Any, path: Path, ann: Ann | None
) -> bool:
    """Whether `if` holds; its annotations are kept only when it does."""
    if ann is None:
        return not check(value, path, True)
    if_ann = Ann()
    if check(value, path, True, if_ann):
        return False
    ann.merge(if_ann)
    return True


# -- the annotations `unevaluated*` read, as the interpreter records them (a no-op without `ann`) --


def evaluated(ann: Ann | None, name: str) -> None:
    if ann is not None:
        ann.props.add(name)


def evaluated_names(ann: Ann | None, names: Iterable[str]) -> None:
    if ann is not None:
        ann.props.update(names)


def evaluated_items(ann: Ann | None, upto: int) -> None:
    """Items below `upto` evaluated (`prefixItems`)."""
    if ann is not None:
        ann.upto = max(ann.upto, upto)


def evaluated_all(ann: Ann | None) -> None:
    """Every item evaluated (`items`)."""
    if ann is not None:
        ann.upto = _ALL


def evaluated_indices(ann: Ann | None, indices: list[int]) -> None:
    """The items `contains` matched."""
    if ann is not None:
        ann.indices.update(indices)


def merge(outer: Ann | None, ann: Ann) -> None:
    if outer is not None:
        outer.merge(ann)


def unevaluated_names(value: dict[str, Any], ann: Ann) -> list[str]:
    """The properties no keyword evaluated, which `unevaluatedProperties` now evaluates."""
    rest = [name for name in value if name not in ann.props]
    ann.props.update(rest)
    return rest


def unevaluated_indices(value: list[Any], ann: Ann) -> list[int]:
    """The items no keyword evaluated, which `unevaluatedItems` now evaluates."""
    rest = [i for i in range(ann.upto, len(value)) if i not in ann.indices]
    ann.upto = _ALL
    return rest


def unexpected_names(rest: list[str], path: Path) -> Problem:
    noun = "property" if len(rest) == 1 else "properties"
    return Problem(path, f"unexpected {noun} {_names(rest)}", "unevaluatedProperties")


def unexpected_items(rest: list[int], path: Path) -> Problem:
    shown = ", ".join(map(str, rest[:10])) + (", ..." if len(rest) > 10 else "")
    noun = "item" if len(rest) == 1 else "items"
    return Problem(path, f"unexpected {noun} at index {shown}", "unevaluatedItems")


def _plain(value: Any, depth: int) -> bool:
    """Whether `value` is JSON data `_check_data` would pass, in the plain Python types (a quicker test, by
    exact types, than that check, which takes every form of JSON data and words each fault).
    """
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return not _too_long(value)
    if kind is float:
        return math.isfinite(value)
    if depth >= _MAX_DEPTH:
        return False
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(_plain(item, depth + 1) for item in value)
    return False


def run(check: Check, data: Any) -> list[Problem]:
    """Every problem of JSON data by a compiled check, as `validation.validate` reports them."""
    if not _plain(data, 0):
        problems = _check_data(data, False)
        if problems:
            return problems
    try:
        problems = check(data, (), False)
    except RecursionError:
        return [Problem((), "too deeply nested to validate", "depth")]
    return list(dict.fromkeys(problems))
