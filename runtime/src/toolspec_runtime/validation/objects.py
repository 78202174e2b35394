"""The object keywords: ``required``, ``properties``, ``patternProperties``,
``additionalProperties``, ``propertyNames``, dependencies, counts and
``unevaluatedProperties``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .context import _Ann, _Keywords, _Scope
from .numbers import _as_count
from .patterns import _pattern
from .problems import Problem, _Loc, _names, _path, _plural, _SchemaError


class _Objects(_Keywords):
    """The evaluator's object keywords."""

    def _object(
        self,
        inst: Mapping[str, object],
        schema: Mapping[str, Any],
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        problems: list[Problem] = []
        required = schema.get("required")
        if isinstance(required, (list, tuple)):
            for name in required:
                if isinstance(name, str) and name not in inst:
                    problems.append(
                        Problem(
                            _path(loc), f"{name!r} is a required property", "required"
                        )
                    )
                    if ff:
                        return problems
        properties = schema.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        for name, sub in properties.items():
            if name in inst:
                problems += self.eval(
                    inst[name], sub, _Loc(loc, name), base, scope, None, ff
                )
                if ff and problems:
                    return problems
                if ann is not None:
                    ann.props.add(name)
        matched_by_pattern: set[str] = set()
        pattern_properties = schema.get("patternProperties")
        if isinstance(pattern_properties, Mapping):
            for pattern, sub in pattern_properties.items():
                compiled = _pattern(pattern)
                if compiled is None:
                    raise _SchemaError(
                        loc, f"cannot compile pattern {pattern!r}", "patternProperties"
                    )
                for name in inst:
                    if compiled.search(name):
                        matched_by_pattern.add(name)
                        problems += self.eval(
                            inst[name], sub, _Loc(loc, name), base, scope, None, ff
                        )
                        if ff and problems:
                            return problems
            if ann is not None:
                ann.props |= matched_by_pattern
        if "additionalProperties" in schema:
            sub = schema["additionalProperties"]
            extra = [
                name
                for name in inst
                if name not in properties and name not in matched_by_pattern
            ]
            if sub is False and extra:
                problems.append(
                    self._unexpected(extra, properties, pattern_properties, loc)
                )
            else:
                for name in extra:
                    problems += self.eval(
                        inst[name], sub, _Loc(loc, name), base, scope, None, ff
                    )
                    if ff and problems:
                        return problems
            if ann is not None:
                ann.props.update(extra)
        if "propertyNames" in schema:
            for name in inst:
                found = self.eval(
                    name, schema["propertyNames"], loc, base, scope, None, True
                )
                if found:
                    message = f"property name {name!r} is invalid: {found[0].message}"
                    problems.append(Problem(_path(loc), message, "propertyNames"))
                    if ff:
                        return problems
        dependent = schema.get("dependentRequired")
        if isinstance(dependent, Mapping):
            for name, needed in dependent.items():
                if name in inst and isinstance(needed, (list, tuple)):
                    for other in needed:
                        if other not in inst:
                            message = f"{other!r} is a required property when {name!r} is present"
                            problems.append(
                                Problem(_path(loc), message, "dependentRequired")
                            )
        dependent = schema.get("dependentSchemas")
        if isinstance(dependent, Mapping):
            for name, sub in dependent.items():
                if name in inst:
                    problems += self.eval(inst, sub, loc, base, scope, ann, ff)
                    if ff and problems:
                        return problems
        least = _as_count(schema.get("minProperties"))
        if least is not None and len(inst) < least:
            message = (
                f"must have at least {_plural(least, 'property')} (has {len(inst)})"
            )
            problems.append(Problem(_path(loc), message, "minProperties"))
        most = _as_count(schema.get("maxProperties"))
        if most is not None and len(inst) > most:
            message = f"must have at most {_plural(most, 'property')} (has {len(inst)})"
            problems.append(Problem(_path(loc), message, "maxProperties"))
        return problems

    @staticmethod
    def _unexpected(
        extra: list[str],
        properties: Mapping[str, Any],
        patterns: object,
        loc: _Loc | None,
    ) -> Problem:
        noun = "property" if len(extra) == 1 else "properties"
        message = f"unexpected {noun} {_names(extra)}"
        if properties:
            message += f" (allowed: {_names(properties)}"
            message += " or names matching patternProperties)" if patterns else ")"
        elif isinstance(patterns, Mapping) and patterns:
            message += f" (names must match one of {_names(patterns)})"
        else:
            message += " (no properties allowed)"
        return Problem(_path(loc), message, "additionalProperties")

    def _unevaluated_props(
        self,
        inst: Mapping[str, object],
        sub: object,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann,
        ff: bool,
    ) -> list[Problem]:
        rest = [name for name in inst if name not in ann.props]
        ann.props.update(rest)
        if not rest:
            return []
        if sub is False:
            noun = "property" if len(rest) == 1 else "properties"
            return [
                Problem(
                    _path(loc),
                    f"unexpected {noun} {_names(rest)}",
                    "unevaluatedProperties",
                )
            ]
        problems: list[Problem] = []
        for name in rest:
            problems += self.eval(
                inst[name], sub, _Loc(loc, name), base, scope, None, ff
            )
            if ff and problems:
                break
        return problems
