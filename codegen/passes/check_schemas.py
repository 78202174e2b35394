"""Schema documents must be valid draft 2020-12 JSON Schema before anything is derived from them.

Every document a tool or entity owns is checked against the 2020-12 meta-schema and every `pattern` must
compile; a definition that fails is reported with the spot in the file and left out, so the passes after this
one only ever see well-formed schemas. The check uses the runtime validator (it carries the meta-schemas): it
passes the official suite and takes half the time `jsonschema` takes here, which matters on a 1,000-tool compile.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Collection, Iterator
from typing import Any

from ..diagnostics import Diagnostics, Span
from ..ir import JArray, JObject, SpecModule
from ..runtime.validation import PatternError, UnsupportedPattern, compile_pattern
from .metaschema import Pattern, check_metaschema

_MAX_REPORTED = (
    3  # per document: the first few problems locate the mistake; the rest is noise
)


def check_schemas(
    modules: list[SpecModule], diags: Diagnostics, trusted: Collection[str] = ()
) -> list[SpecModule]:
    """The modules without the tools and entities whose schemas are invalid (each reported). Modules from
    `trusted` files (relative paths unchanged since a successful build) are passed through.
    """
    checked = []
    for module in modules:
        if module.source.rel.as_posix() in trusted:
            checked.append(module)
            continue
        tools = tuple(
            tool
            for tool in module.tools
            if all(
                _valid(doc, fallback=tool.span, diags=diags)
                for doc in (tool.input_schema, tool.output_schema, tool.config_schema)
                if doc is not None
            )
        )
        entities = tuple(
            e for e in module.entities if _valid(e.schema, fallback=e.span, diags=diags)
        )
        checked.append(dataclasses.replace(module, tools=tools, entities=entities))
    return checked


def _valid(doc: Any, fallback: Span, diags: Diagnostics) -> bool:
    patterns: list[Pattern] = []
    errors = sorted(check_metaschema(doc, patterns), key=lambda error: -len(error[0]))
    for path, problem in errors[:_MAX_REPORTED]:
        message = _unknown_type(doc, path) or f"not a valid JSON Schema: {problem}"
        diags.error("invalid-schema", message, span_at(doc, list(path), fallback))
    bad_patterns = list(_bad_patterns(patterns, fallback))
    for span, pattern, refusal in bad_patterns[:_MAX_REPORTED]:
        diags.error("invalid-schema", _pattern_message(pattern, refusal), span)
    return not errors and not bad_patterns


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
