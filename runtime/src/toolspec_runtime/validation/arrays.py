"""The array keywords: ``prefixItems``, ``items``, ``contains``, counts,
``uniqueItems`` and ``unevaluatedItems``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import _ALL, _Ann, _Keywords, _Scope
from .data import _key
from .numbers import _as_count
from .problems import Problem, _Loc, _path, _plural


class _Arrays(_Keywords):
    """The evaluator's array keywords."""

    def _array(
        self,
        inst: list[object] | tuple[object, ...],
        schema: Mapping[str, Any],
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        problems: list[Problem] = []
        count = len(inst)
        start = 0
        prefix = schema.get("prefixItems")
        if isinstance(prefix, (list, tuple)):
            start = len(prefix)
            for index in range(min(start, count)):
                problems += self.eval(
                    inst[index], prefix[index], _Loc(loc, index), base, scope, None, ff
                )
                if ff and problems:
                    return problems
            if ann is not None:
                ann.upto = max(ann.upto, min(start, count))
        if "items" in schema:
            items = schema["items"]
            if items is False and count > start:
                if start:
                    message = f"must have at most {_plural(start, 'item')} (no additional items allowed)"
                else:
                    message = "must be empty (no items allowed)"
                problems.append(Problem(_path(loc), message, "items"))
            else:
                for index in range(start, count):
                    problems += self.eval(
                        inst[index], items, _Loc(loc, index), base, scope, None, ff
                    )
                    if ff and problems:
                        return problems
            if ann is not None:
                ann.upto = _ALL
        if "contains" in schema:
            contains = schema["contains"]
            matched = [
                index
                for index in range(count)
                if not self.eval(
                    inst[index], contains, _Loc(loc, index), base, scope, None, True
                )
            ]
            least = _as_count(schema.get("minContains"))
            least = 1 if least is None else least
            most = _as_count(schema.get("maxContains"))
            if len(matched) < least:
                message = (
                    f"must contain at least {_plural(least, 'item')} matching the"
                    f" 'contains' schema (found {len(matched)})"
                )
                problems.append(
                    Problem(
                        _path(loc), message, "minContains" if least != 1 else "contains"
                    )
                )
            elif most is not None and len(matched) > most:
                message = (
                    f"must contain at most {_plural(most, 'item')} matching the"
                    f" 'contains' schema (found {len(matched)})"
                )
                problems.append(Problem(_path(loc), message, "maxContains"))
            elif ann is not None:
                ann.indices.update(matched)
        least = _as_count(schema.get("minItems"))
        if least is not None and count < least:
            message = f"must have at least {_plural(least, 'item')} (has {count})"
            problems.append(Problem(_path(loc), message, "minItems"))
        most = _as_count(schema.get("maxItems"))
        if most is not None and count > most:
            message = f"must have at most {_plural(most, 'item')} (has {count})"
            problems.append(Problem(_path(loc), message, "maxItems"))
        if schema.get("uniqueItems") is True:
            seen: dict[object, int] = {}
            for index, item in enumerate(inst):
                first = seen.setdefault(_key(item), index)
                if first != index:
                    message = f"must not contain duplicates (items {first} and {index} are equal)"
                    problems.append(Problem(_path(loc), message, "uniqueItems"))
                    break
        return problems

    def _unevaluated_items(
        self,
        inst: list[object] | tuple[object, ...],
        sub: object,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann,
        ff: bool,
    ) -> list[Problem]:
        rest = [
            index for index in range(ann.upto, len(inst)) if index not in ann.indices
        ]
        ann.upto = _ALL
        if not rest:
            return []
        if sub is False:
            shown = ", ".join(map(str, rest[:10])) + (", ..." if len(rest) > 10 else "")
            message = (
                f"unexpected {'item' if len(rest) == 1 else 'items'} at index {shown}"
            )
            return [Problem(_path(loc), message, "unevaluatedItems")]
        problems: list[Problem] = []
        for index in rest:
            problems += self.eval(
                inst[index], sub, _Loc(loc, index), base, scope, None, ff
            )
            if ff and problems:
                break
        return problems
