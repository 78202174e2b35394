"""The in-place applicators: ``allOf``, ``anyOf``, ``oneOf``, ``not`` and
``if``/``then``/``else``, and the summary of a failed ``anyOf``/``oneOf``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import _Ann, _Keywords, _Scope
from .data import _show
from .limits import _MAX_QUOTED
from .problems import Problem, _Loc, _path, format_path


class _Applicators(_Keywords):
    """The evaluator's in-place applicators."""

    def _combinators(
        self,
        inst: object,
        schema: Mapping[str, Any],
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        problems: list[Problem] = []
        all_of = schema.get("allOf")
        if isinstance(all_of, (list, tuple)):
            for sub in all_of:
                # A failing allOf fails this schema anyway, so its branches'
                # annotations may be kept: that spares "unevaluated*" from
                # blaming properties a failing branch did declare.
                problems += self.eval(inst, sub, loc, base, scope, ann, ff)
                if ff and problems:
                    return problems
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, (list, tuple)) and branches:
                problems += self._alternatives(
                    keyword, branches, inst, loc, base, scope, ann, ff
                )
                if ff and problems:
                    return problems
        if "not" in schema:
            if not self.eval(inst, schema["not"], loc, base, scope, None, True):
                message = f"must not match the 'not' schema {_show(schema['not'])}"
                problems.append(Problem(_path(loc), message, "not"))
                if ff:
                    return problems
        if "if" in schema:
            if_ann = _Ann() if ann is not None else None
            if not self.eval(inst, schema["if"], loc, base, scope, if_ann, True):
                if ann is not None and if_ann is not None:
                    ann.merge(if_ann)
                branch = schema.get("then", True)
            else:
                branch = schema.get("else", True)
            problems += self.eval(inst, branch, loc, base, scope, ann, ff)
        return problems

    def _alternatives(
        self,
        keyword: str,
        branches: list[object] | tuple[object, ...],
        inst: object,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        matches: list[int] = []
        for position, sub in enumerate(branches):
            branch_ann = _Ann() if ann is not None else None
            if not self.eval(inst, sub, loc, base, scope, branch_ann, True):
                matches.append(position)
                if ann is not None and branch_ann is not None:
                    ann.merge(branch_ann)
                if keyword == "anyOf" and ann is None:
                    break  # no annotations wanted: one match settles it
                if keyword == "oneOf" and len(matches) > 1:
                    break
        if keyword == "oneOf" and len(matches) > 1:
            return [
                Problem(_path(loc), _one_of_message(len(branches), matches), keyword)
            ]
        if matches:
            return []
        if ff:
            message = (
                f"does not match any of the {len(branches)} {keyword} alternatives"
            )
            return [Problem(_path(loc), message, keyword)]
        # Failure path only: evaluate again, this time collecting everything.
        failures = [
            self.eval(inst, sub, loc, base, scope, None, False) for sub in branches
        ]
        return _summarise(keyword, failures, _path(loc))


def _summarise(
    keyword: str, failures: list[list[Problem]], here: tuple[str | int, ...]
) -> list[Problem]:
    """One problem for a failed anyOf/oneOf, or the problems of the single
    alternative the instance was evidently meant for (the others failing on
    "type", or on "const"/"enum" of the value or of a tag property)."""
    depth = len(here)
    # As reported in the end (`evaluator._run`): the same problem found along
    # two paths is one (and a remembered reference's problems come so).
    failures = [list(dict.fromkeys(problems)) for problems in failures]

    def mismatched(problems: list[Problem]) -> bool:
        for problem in problems:
            if problem.path[:depth] != here:
                continue
            if problem.keyword == "type" and len(problem.path) == depth:
                return True
            if problem.keyword in ("const", "enum") and len(problem.path) <= depth + 1:
                return True
        return False

    candidates = [
        (n, problems) for n, problems in enumerate(failures) if not mismatched(problems)
    ]
    if len(candidates) == 1:
        return candidates[0][1]
    shown = candidates or list(enumerate(failures))
    parts: list[str] = []
    for number, problems in shown:
        messages = []
        for problem in problems[:3]:
            inner = problem.path[depth:]
            prefix = f"at {format_path(inner)}: " if inner else ""
            messages.append(_quoted(prefix + problem.message))
        if len(problems) > 3:
            messages.append(f"{len(problems) - 3} more")
        parts.append(f"({number + 1}) " + " and ".join(messages))
    message = (
        f"does not match any of the {len(failures)} {keyword} alternatives: "
        + "; ".join(parts)
    )
    return [Problem(here, message, keyword)]


def _quoted(text: str) -> str:
    return text if len(text) <= _MAX_QUOTED else text[: _MAX_QUOTED - 3] + "..."


def _one_of_message(count: int, matches: list[int]) -> str:
    """What a `oneOf` matched by more than one of its `count` alternatives says (compiled checks say it too)."""
    return (
        f"must match exactly one of the {count} oneOf alternatives,"
        f" but matches alternatives {matches[0] + 1} and {matches[1] + 1}"
    )
