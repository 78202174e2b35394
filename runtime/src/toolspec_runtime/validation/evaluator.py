"""The entry point: checks the instance is JSON data, indexes the schema and
evaluates it, keyword family by keyword family."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any
from uuid import UUID

from .applicators import _Applicators
from .arrays import _Arrays
from .assertions import _Assertions
from .context import _Ann, _Scope
from .data import _check_data, _json_type, _key, _native_str, _show
from .index import _Index, _index_for
from .objects import _Objects
from .problems import Problem, _false_problem, _Loc, _path, _SchemaError
from .resolution import _References
from .uris import _resolve, _without_fragment

_NUMBER_KEYWORDS = frozenset(
    {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}
)
_STRING_KEYWORDS = frozenset({"maxLength", "minLength", "pattern", "format"})
_ARRAY_KEYWORDS = frozenset(
    {"prefixItems", "items", "contains", "maxItems", "minItems", "uniqueItems"}
)
_OBJECT_KEYWORDS = frozenset(
    {
        "required",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
        "maxProperties",
        "minProperties",
    }
)
_COMBINATOR_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "not", "if"})


def validate(
    instance: object, schema: Mapping[str, Any] | bool, *, pointer: str = ""
) -> list[Problem]:
    """Return every problem with *instance* against a schema; ``[]`` if valid.

    *schema* is the root document; *pointer* (a JSON pointer such as
    ``"/$defs/Condition"``) selects the subschema to validate against, while
    references still resolve against the root document.
    """
    return _run(instance, schema, pointer, fail_fast=False)


def is_valid(
    instance: object, schema: Mapping[str, Any] | bool, *, pointer: str = ""
) -> bool:
    """Like :func:`validate` but stops at the first problem."""
    return not _run(instance, schema, pointer, fail_fast=True)


def _run(
    instance: object, schema: Mapping[str, Any] | bool, pointer: str, fail_fast: bool
) -> list[Problem]:
    if not isinstance(schema, (bool, Mapping)):
        raise TypeError(
            f"schema must be a mapping or a bool, not {type(schema).__name__}"
        )
    # The evaluator assumes JSON data (and bounded nesting), so check it first.
    problems = _check_data(instance, fail_fast)
    if problems:
        return problems
    if isinstance(schema, bool):
        if pointer:
            raise ValueError(
                f"pointer {pointer!r} does not resolve in a boolean schema"
            )
        return [] if schema else [_false_problem(None)]
    index = _index_for(schema)
    target, base = index.entry(pointer)
    evaluator = _Evaluator(index, fail_fast)
    try:
        scope = evaluator._enter(index.root_base, None)
        problems = evaluator.eval(instance, target, None, base, scope, None)
    except _SchemaError as error:
        return [error.problem]
    except RecursionError:
        # Only reachable from a very deep caller stack or a pathological
        # schema; report it rather than crash the caller.
        return [Problem((), "too deeply nested to validate", "depth")]
    # Several subschemas can report the same thing (e.g. "required" twice).
    return list(dict.fromkeys(problems))


class _Evaluator(_References, _Assertions, _Arrays, _Objects, _Applicators):
    """Evaluates one instance against one schema document.

    ``eval`` returns the problems found; it also records annotations into
    ``ann`` (when given) for "unevaluated*" keywords of enclosing schemas.
    With ``fail_fast`` it returns at the first problem.  Subschemas whose
    outcome only matters as pass/fail ("not", "if", "contains", first try of
    "anyOf"/"oneOf") are always evaluated fail-fast.
    """

    def __init__(self, index: _Index, fail_fast: bool) -> None:
        self.index = index
        self.fail_fast = fail_fast
        # (id(schema), id(instance)) of "$ref"s being followed: meeting one
        # again means the reference loops without consuming the instance.
        self.active: set[tuple[int, int]] = set()
        self.met: set[tuple[int, int]] = set()
        self.memo = {}

    def eval(
        self,
        inst: object,
        schema: object,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        fail_fast: bool | None = None,
    ) -> list[Problem]:
        ff = self.fail_fast if fail_fast is None else fail_fast
        if schema is True:
            return []
        if schema is False:
            return [_false_problem(loc)]
        if not isinstance(schema, Mapping):
            raise _SchemaError(
                loc,
                f"a schema must be an object or boolean, not {_show(schema)}",
                "schema",
            )
        if not schema:
            return []
        if isinstance(inst, (date, UUID)):
            inst = _native_str(inst)

        schema_id = schema.get("$id")
        if isinstance(schema_id, str):
            new_base = self._node_uri(schema) or _without_fragment(
                _resolve(base, schema_id)
            )
            base = new_base
            if new_base != scope.uri:
                scope = self._enter(new_base, scope)

        # "unevaluated*" may only see annotations from this schema's subtree.
        if "unevaluatedProperties" in schema or "unevaluatedItems" in schema:
            local: _Ann | None = _Ann()
        else:
            local = ann
        kind = _json_type(inst)
        problems: list[Problem] = []

        for keyword in ("$ref", "$dynamicRef"):
            reference = schema.get(keyword)
            if isinstance(reference, str):
                problems += self._reference(
                    inst, keyword, reference, loc, base, scope, local, ff
                )
                if ff and problems:
                    return problems

        if "type" in schema:
            problems += self._type(inst, kind, schema["type"], loc)
        if "enum" in schema:
            problems += self._enum(inst, schema["enum"], loc)
        if "const" in schema and _key(inst) != _key(schema["const"]):
            message = f"must be equal to {_show(schema['const'])}"
            problems.append(Problem(_path(loc), message, "const"))
        if ff and problems:
            return problems

        if kind == "integer" or kind == "number":
            if not _NUMBER_KEYWORDS.isdisjoint(schema):
                problems += self._number(inst, schema, loc)
        elif kind == "string":
            if not _STRING_KEYWORDS.isdisjoint(schema):
                assert isinstance(inst, str)
                problems += self._string(inst, schema, loc)
        elif kind == "array":
            if not _ARRAY_KEYWORDS.isdisjoint(schema):
                assert isinstance(inst, (list, tuple))
                problems += self._array(inst, schema, loc, base, scope, local, ff)
        elif kind == "object":
            if not _OBJECT_KEYWORDS.isdisjoint(schema):
                assert isinstance(inst, Mapping)
                problems += self._object(inst, schema, loc, base, scope, local, ff)
        if ff and problems:
            return problems

        if not _COMBINATOR_KEYWORDS.isdisjoint(schema):
            problems += self._combinators(inst, schema, loc, base, scope, local, ff)
            if ff and problems:
                return problems

        # Last: they depend on the annotations of every keyword above.
        if local is not ann:
            assert local is not None
            if kind == "array" and "unevaluatedItems" in schema:
                assert isinstance(inst, (list, tuple))
                sub = schema["unevaluatedItems"]
                problems += self._unevaluated_items(
                    inst, sub, loc, base, scope, local, ff
                )
            elif kind == "object" and "unevaluatedProperties" in schema:
                assert isinstance(inst, Mapping)
                sub = schema["unevaluatedProperties"]
                problems += self._unevaluated_props(
                    inst, sub, loc, base, scope, local, ff
                )
            if ann is not None:
                ann.merge(local)
        return problems
