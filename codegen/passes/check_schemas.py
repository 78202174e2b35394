"""Schema documents must be valid draft 2020-12 JSON Schema before anything is derived from them.

Every document a tool or entity owns is checked against the 2020-12 meta-schema and every `pattern` must
compile; a definition that fails is reported with the spot in the file and left out, so the passes after this
one only ever see well-formed schemas. The check uses the runtime validator (it carries the meta-schemas): it
passes the official suite and takes half the time `jsonschema` takes here, which matters on a 1,000-tool compile.

Two mistakes that are valid JSON Schema are reported too: a keyword one edit or two away from a 2020-12 keyword
(a warning, `requird` would otherwise be ignored as an annotation) and a `required` property that the object
certainly forbids (an error where every value the document accepts must meet that object, as then no call could
satisfy it; a warning elsewhere, as in one branch of a `oneOf`, where the document may still be met).
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Iterator, Mapping
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..ir import Entity, JArray, JObject, SpecModule, Tool
from toolspec_runtime.validation import (
    PatternError,
    UnsupportedPattern,
    compile_pattern,
)
from .metaschema import KEYWORDS, Pattern, check_metaschema

_MAX_REPORTED = (
    3  # per document: the first few problems locate the mistake; the rest is noise
)


def check_schemas(
    modules: list[SpecModule],
    diags: Diagnostics,
    dropped: list[Tool | Entity] | None = None,
) -> list[SpecModule]:
    """The modules without the tools and entities whose schemas are invalid (each reported; appended to
    `dropped`, so that later passes still know their names).
    """
    checked = []
    for module in modules:
        if dropped is not None:
            dropped.extend(
                module.dropped
            )  # left out by the front end, already reported
        tools: list[Tool] = []
        entities: list[Entity] = []
        for tool in module.tools:
            docs = (tool.input_schema, tool.output_schema, tool.config_schema)
            # every document is checked, so that the problems of each are reported in one run
            verdicts = [
                _valid(doc, fallback=tool.span, diags=diags, arguments=doc is docs[0])
                for doc in docs
                if doc is not None
            ]
            _keep(tool, all(verdicts), tools, dropped)
        for entity in module.entities:
            valid = _valid(entity.schema, fallback=entity.span, diags=diags)
            _keep(entity, valid, entities, dropped)
        checked.append(
            dataclasses.replace(module, tools=tuple(tools), entities=tuple(entities))
        )
    return checked


def _keep(
    definition: Any, valid: bool, kept: list[Any], dropped: list[Any] | None
) -> None:
    if valid:
        kept.append(definition)
    elif dropped is not None:
        dropped.append(definition)


def _valid(
    doc: Any, fallback: Span, diags: Diagnostics, arguments: bool = False
) -> bool:
    """Whether `doc` is valid (its problems reported); `arguments`: it is a tool's input, which an object
    always meets (a call's arguments)."""
    patterns: list[Pattern] = []
    objects: list[Mapping[str, Any]] = []
    problems = check_metaschema(doc, patterns, objects)
    _check_objects(objects, _needed(doc, arguments), diags)
    errors = sorted(problems, key=lambda error: -len(error[0]))
    for path, problem in errors[:_MAX_REPORTED]:
        message = _unknown_type(doc, path) or f"not a valid JSON Schema: {problem}"
        diags.error("invalid-schema", message, span_at(doc, list(path), fallback))
    bad_patterns = list(_bad_patterns(patterns, fallback))
    for span, pattern, refusal in bad_patterns[:_MAX_REPORTED]:
        diags.error("invalid-schema", _pattern_message(pattern, refusal), span)
    return not errors and not bad_patterns


# Keywords of the 2020-12 vocabularies (with the legacy ones the meta-schema still names), for did-you-mean.
_VOCABULARY = {keyword.lower(): keyword for keyword in KEYWORDS}


def _check_objects(
    objects: list[Mapping[str, Any]], needed: set[int], diags: Diagnostics
) -> None:
    """Spec mistakes that are valid JSON Schema: a misspelt keyword (ignored as an annotation), and a
    `required` property that the object forbids (no object can satisfy both). The latter is an error only in a
    subschema every value the document accepts must meet as an object (`needed`, by id): then nothing can
    satisfy the document. Elsewhere (a branch of `anyOf`, an optional property, `not`, ...) the document may
    still be met without it, so it is a warning.
    """
    for node in objects:
        if not isinstance(node, JObject):
            continue
        for key in node:
            if key not in KEYWORDS and not key.startswith("x-"):
                hint = _keyword_hint(key)
                if hint is not None:
                    message = f"unknown keyword {key!r}: did you mean {hint!r}?"
                    diags.warning("unknown-keyword", message, node.key_span(key))
        required = node.get("required")
        if isinstance(required, JArray) and _closed(node):
            for index, name in enumerate(required):
                if isinstance(name, str) and not _declared(node, name):
                    _report_required(
                        diags, name, required.item_span(index), id(node) in needed
                    )


def _report_required(diags: Diagnostics, name: str, span: Span, needed: bool) -> None:
    what = f"{name!r} is required but not declared under 'properties', and this object allows no other property"
    if needed:
        diags.error("required-undeclared", f"{what}: no value can satisfy it", span)
    else:
        diags.warning(
            "required-undeclared",
            f"{what}: no object can satisfy this subschema (the schema around it may still be met without it)",
            span,
        )


def _needed(doc: Any, arguments: bool) -> set[int]:
    """The ids of the subschemas of `doc` that every value it accepts must meet, at a value that is certainly
    an object: the root and its `allOf` members, and the same again under `properties` for each name they
    require. (A sound under-approximation: `$ref`, `anyOf`, ... are not followed.)"""
    needed: set[int] = set()
    todo: list[tuple[Any, bool]] = [(doc, arguments)]
    while todo:
        node, is_object = todo.pop()
        group = _applied_together(node)
        if not (is_object or any(_object_typed(member) for member in group)):
            continue
        needed.update(id(member) for member in group)
        names = {
            name
            for member in group
            if isinstance(member.get("required"), JArray)
            for name in member["required"]
            if isinstance(name, str)
        }
        for member in group:
            properties = member.get("properties")
            if isinstance(properties, JObject):
                todo += [(properties[n], False) for n in names if n in properties]
    return needed


def _applied_together(node: Any) -> list[JObject]:
    """`node` and its `allOf` members, theirs too: the schemas every value `node` accepts meets."""
    group: list[JObject] = []
    todo = [node]
    while todo:
        member = todo.pop()
        if isinstance(member, JObject):
            group.append(member)
            members = member.get("allOf")
            if isinstance(members, JArray):
                todo.extend(members)
    return group


def _object_typed(node: JObject) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, JArray) and list(kind) == ["object"])


def _keyword_hint(key: str) -> str | None:
    """The keyword `key` was most likely meant to be, if one is close enough. Only near misses count: longer
    extras that merely contain a keyword (`markdownDescription`, `deprecationMessage`) are annotations.
    """
    lower = key.lower()
    if lower in _VOCABULARY:
        return _VOCABULARY[lower]  # `maxlength`: keywords are case-sensitive
    close = difflib.get_close_matches(lower, list(_VOCABULARY), n=1, cutoff=0.75)
    if not close or abs(len(close[0]) - len(lower)) > 2:
        return None
    return _VOCABULARY[close[0]]


# Keywords that can evaluate properties of the same instance beside `properties` (for `unevaluatedProperties`).
_APPLICATORS = (
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
)


def _closed(node: JObject) -> bool:
    """Whether the object certainly forbids every property its own keywords do not declare."""
    kind = node.get("type")
    if isinstance(kind, str) and kind != "object":
        return False
    if isinstance(kind, JArray) and "object" not in kind:
        return False
    if node.get("additionalProperties") is False:
        return True
    return node.get("unevaluatedProperties") is False and not any(
        key in node for key in _APPLICATORS
    )


def _declared(node: JObject, name: str) -> bool:
    """Whether `properties` or `patternProperties` of `node` declare `name` (an unreadable pattern might)."""
    properties = node.get("properties")
    if isinstance(properties, JObject) and name in properties:
        return True
    patterns = node.get("patternProperties")
    if not isinstance(patterns, JObject):
        return False
    for pattern in patterns:
        try:
            if compile_pattern(pattern).search(name):
                return True
        except PatternError:
            return True
    return False


_JSON_TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"]


def _unknown_type(doc: Any, path: tuple[Any, ...]) -> str | None:
    """A plainer message for the commonest mistake, a misspelt `type`."""
    if not path or path[-1] != "type":
        return None
    node = doc
    for token in path:
        node = node[token] if isinstance(node, (JObject, JArray)) else None
    if not isinstance(node, str):
        return None
    close = difflib.get_close_matches(node, _JSON_TYPES, n=1)
    hint = (
        f"; did you mean {close[0]!r}?"
        if close
        else f" (JSON Schema types: {', '.join(_JSON_TYPES)})"
    )
    return f"unknown type {node!r}{hint}"


def span_at(doc: Any, path: list[Any], fallback: Span) -> Span:
    """The span of the value at `path` inside a JSON node tree (as far down as the path exists)."""
    node, span = doc, doc.span if isinstance(doc, (JObject, JArray)) else fallback
    for token in path:
        if isinstance(node, JObject) and token in node:
            span, node = node.value_span(token), node[token]
        elif isinstance(node, JArray) and isinstance(token, int) and token < len(node):
            span, node = node.item_span(token), node[token]
        else:
            break
    return span


def _pattern_error(pattern: str) -> PatternError | None:
    """Why the runtime would refuse `pattern`: the same compiler, so the same linear-time matcher, decides."""
    try:
        compile_pattern(pattern)
    except PatternError as error:
        return error
    return None


def _pattern_message(pattern: str, error: PatternError) -> str:
    if isinstance(error, UnsupportedPattern):
        return f"pattern {pattern!r} is not supported: {error} (patterns are matched in linear time, without backtracking)"
    return f"pattern {pattern!r} is not a valid regular expression"


def _bad_patterns(
    patterns: list[Pattern], fallback: Span
) -> Iterator[tuple[Span, str, PatternError]]:
    for node, key, pattern in patterns:
        if error := _pattern_error(pattern):
            if not isinstance(node, JObject):
                yield fallback, pattern, error
            elif key is None:
                yield node.value_span("pattern"), pattern, error
            else:
                yield node.key_span(key), pattern, error
