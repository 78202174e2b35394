"""Schema documents must be valid draft 2020-12 JSON Schema before anything is derived from them.

Every document a tool or entity owns is checked against the 2020-12 meta-schema (by `jsonschema`, which the
compiler depends on anyway) and every `pattern` must compile; a definition that fails is reported with the spot
in the file and left out, so the passes after this one only ever see well-formed schemas.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema

from ..diagnostics import Diagnostics, Span
from ..ir import JArray, JObject, SpecModule, schema_objects, to_plain
from ..runtime.validation import compile_pattern

_MAX_REPORTED = 3  # per document: the first few problems locate the mistake; the rest is noise


@lru_cache(maxsize=1)
def _meta_validator() -> Any:
    cls = jsonschema.Draft202012Validator
    return cls(cls.META_SCHEMA)


def check_schemas(modules: list[SpecModule], diags: Diagnostics) -> list[SpecModule]:
    """The modules without the tools and entities whose schemas are invalid (each reported)."""
    checked = []
    for module in modules:
        tools = tuple(
            tool
            for tool in module.tools
            if all(
                _valid(doc, fallback=tool.span, diags=diags)
                for doc in (tool.input_schema, tool.output_schema, tool.config_schema)
                if doc is not None
            )
        )
        entities = tuple(e for e in module.entities if _valid(e.schema, fallback=e.span, diags=diags))
        checked.append(dataclasses.replace(module, tools=tools, entities=entities))
    return checked


def _valid(doc: Any, fallback: Span, diags: Diagnostics) -> bool:
    errors = sorted(_meta_validator().iter_errors(to_plain(doc)), key=lambda e: -len(e.absolute_path))
    for error in errors[:_MAX_REPORTED]:
        message = f"not a valid JSON Schema: {error.message}"
        diags.error("invalid-schema", message, span_at(doc, list(error.absolute_path), fallback))
    bad_patterns = list(_bad_patterns(doc, fallback))
    for span, pattern in bad_patterns[:_MAX_REPORTED]:
        diags.error("invalid-schema", f"pattern {pattern!r} is not a valid regular expression", span)
    return not errors and not bad_patterns


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


def _compiles(pattern: str) -> bool:
    try:
        compile_pattern(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _bad_patterns(doc: Any, fallback: Span) -> Iterator[tuple[Span, str]]:
    for node in schema_objects(doc):
        pattern = node.get("pattern")
        if isinstance(pattern, str) and not _compiles(pattern):
            yield node.value_span("pattern"), pattern
        patterns = node.get("patternProperties")
        if isinstance(patterns, JObject):
            yield from ((patterns.key_span(p), p) for p in patterns if not _compiles(p))
