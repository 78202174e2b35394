"""The draft 2020-12 meta-schema check, precompiled: one walk over a schema document, straight-line code per keyword.

The meta-schema (its seven vocabularies plus the legacy `definitions`, `dependencies`, `$recursiveAnchor` and
`$recursiveRef`) only ever says one of a few things about a keyword's value: it is a schema, a non-empty list of
schemas, a map of schemas, a string, a boolean, a number, a positive number, a non-negative integer, a list of
unique strings, a map of those, an anchor name, an `$id` without a fragment, a `type` (a simple type or a non-empty
list of unique ones), an array of anything, or anything. `KEYWORDS` records which, so a document is checked in one
pass instead of by interpreting the meta-schema (with its `allOf` of vocabularies and `$dynamicRef`s) at every
subschema. tests/test_metaschema.py holds the table to the meta-schema and the verdicts to `jsonschema`'s.

Problems read like the runtime validator's (the same paths and messages), and values that are not JSON data
(non-finite numbers, integers beyond Python's digit limit, nesting deeper than 64 containers) are reported alone,
as the runtime validator does, before anything else is said about the document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any
from uuid import UUID

from toolspec_runtime.validation.data import (
    _json_type as json_type,
)  # the names the runtime reports

MAX_DEPTH = 64  # containers inside containers, as the runtime validator accepts
_MAX_BITS = 4300 * 3.33  # Python's integer digit limit (4,300 digits), in bits

SIMPLE_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
_ONE_OF_TYPES = f"must be one of {list(SIMPLE_TYPES)!r}"
ANCHOR_PATTERN = "^[A-Za-z_][-A-Za-z0-9._]*$"
ID_PATTERN = "^[^#]*#?$"
# ECMA-262 `$` is the end of the string (Python's would also match before a final newline).
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*\Z")
_ID = re.compile(r"[^#]*#?\Z")

Path = tuple[str | int, ...]
Problem = tuple[Path, str]
Pattern = tuple[Mapping[str, Any], str | None, str]
"""A `pattern` found: (the schema, None, the pattern) or (the patternProperties map, the key, the key)."""

# What the meta-schema requires of each keyword's value.
SCHEMA, SCHEMA_LIST, SCHEMA_MAP = "schema", "schema list", "schema map"
STRING, BOOLEAN, NUMBER, POSITIVE, COUNT = (
    "string",
    "boolean",
    "number",
    "positive",
    "count",
)
STRINGS, STRINGS_MAP, TYPE, ANCHOR, ID = (
    "strings",
    "strings map",
    "type",
    "anchor",
    "id",
)
ARRAY, ANY, VOCABULARY, DEPENDENCIES = "array", "any", "vocabulary", "dependencies"

KEYWORDS: dict[str, str] = {
    # core
    "$id": ID,
    "$schema": STRING,
    "$ref": STRING,
    "$anchor": ANCHOR,
    "$dynamicRef": STRING,
    "$dynamicAnchor": ANCHOR,
    "$vocabulary": VOCABULARY,
    "$comment": STRING,
    "$defs": SCHEMA_MAP,
    # applicator
    "prefixItems": SCHEMA_LIST,
    "items": SCHEMA,
    "contains": SCHEMA,
    "additionalProperties": SCHEMA,
    "properties": SCHEMA_MAP,
    "patternProperties": SCHEMA_MAP,
    "dependentSchemas": SCHEMA_MAP,
    "propertyNames": SCHEMA,
    "if": SCHEMA,
    "then": SCHEMA,
    "else": SCHEMA,
    "allOf": SCHEMA_LIST,
    "anyOf": SCHEMA_LIST,
    "oneOf": SCHEMA_LIST,
    "not": SCHEMA,
    # unevaluated
    "unevaluatedItems": SCHEMA,
    "unevaluatedProperties": SCHEMA,
    # validation
    "type": TYPE,
    "const": ANY,
    "enum": ARRAY,
    "multipleOf": POSITIVE,
    "maximum": NUMBER,
    "exclusiveMaximum": NUMBER,
    "minimum": NUMBER,
    "exclusiveMinimum": NUMBER,
    "maxLength": COUNT,
    "minLength": COUNT,
    "pattern": STRING,
    "maxItems": COUNT,
    "minItems": COUNT,
    "uniqueItems": BOOLEAN,
    "maxContains": COUNT,
    "minContains": COUNT,
    "maxProperties": COUNT,
    "minProperties": COUNT,
    "required": STRINGS,
    "dependentRequired": STRINGS_MAP,
    # meta-data
    "title": STRING,
    "description": STRING,
    "default": ANY,
    "deprecated": BOOLEAN,
    "readOnly": BOOLEAN,
    "writeOnly": BOOLEAN,
    "examples": ARRAY,
    # format-annotation (formats are annotations: `uri`, `regex` and the like are not asserted)
    "format": STRING,
    # content
    "contentEncoding": STRING,
    "contentMediaType": STRING,
    "contentSchema": SCHEMA,
    # the meta-schema's own properties, for keywords of earlier drafts
    "definitions": SCHEMA_MAP,
    "dependencies": DEPENDENCIES,
    "$recursiveAnchor": ANCHOR,
    "$recursiveRef": STRING,
}

# Keywords whose values are instance data: no `pattern` inside them is a schema's.
_DATA = frozenset({"const", "enum", "default", "examples"})


def _is_number(value: Any) -> bool:
    # (A Decimal: a number no float holds, as the front ends read `1e999` and `1e-400`.)
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _is_string(value: Any) -> bool:
    return isinstance(value, (str, date, UUID))


def _same(value: Any) -> Any:
    """Hashable form under JSON equality (1 == 1.0, true != 1, key order ignored)."""
    if isinstance(value, bool):
        return ("bool", value)
    if value is None or isinstance(value, (str, int, float, Decimal)):
        return value  # a Decimal equals (and hashes as) the int or float of its value
    if isinstance(value, (date, UUID)):
        return value.isoformat() if isinstance(value, date) else str(value)
    if isinstance(value, (list, tuple)):
        return ("array", tuple(_same(item) for item in value))
    return ("object", frozenset((k, _same(v)) for k, v in value.items()))


def _duplicate(items: Any) -> str | None:
    seen: dict[Any, int] = {}
    for index, item in enumerate(items):
        key = _same(item)
        if key in seen:
            return (
                f"must not contain duplicates (items {seen[key]} and {index} are equal)"
            )
        seen[key] = index
    return None


class _Check:
    """One document's walk: `problems` against the meta-schema, `data` for values that are not JSON data."""

    def __init__(
        self, patterns: list[Pattern] | None, objects: list[Mapping[str, Any]] | None
    ) -> None:
        self.problems: list[Problem] = []
        self.data: list[Problem] = []
        self.patterns = patterns
        self.objects = objects

    def expected(self, path: Path, wanted: str, value: Any) -> None:
        self.problems.append((path, f"expected {wanted}, got {json_type(value)}"))

    def scalar(self, value: Any, path: Path) -> bool:
        """Whether a non-container is JSON data (reporting it if not)."""
        if isinstance(value, float):
            if math.isfinite(value):
                return True
            self.data.append((path, f"{value} is not a JSON number"))
        elif isinstance(value, int):
            if value.bit_length() <= _MAX_BITS:
                return True
            self.data.append(
                (path, "numbers of more than 4300 digits are not accepted")
            )
        elif value is None or isinstance(value, (str, date, UUID)):
            return True
        elif isinstance(value, Decimal) and value.is_finite():
            return True
        else:
            message = f"is not valid JSON data (got Python {type(value).__name__})"
            self.data.append((path, message))
        return False

    def container(self, value: Any, path: Path, depth: int) -> bool:
        """Whether a container may be looked into (reporting nesting too deep, and keys that are not strings)."""
        if depth >= MAX_DEPTH:
            message = f"nested too deeply (more than {MAX_DEPTH} levels)"
            self.data.append((path, message))
            return False
        if not isinstance(value, (list, tuple)) and isinstance(value, Mapping):
            for key in value:
                if not isinstance(key, str):
                    message = (
                        f"object key {key!r} is not a string (not valid JSON data)"
                    )
                    self.data.append((path, message))
        return True

    def any(self, value: Any, path: Path, depth: int, schemas: bool) -> None:
        """Any JSON value: only checked to be JSON data (and searched for patterns unless `schemas` is off)."""
        if isinstance(value, Mapping):
            if self.container(value, path, depth):
                if schemas:
                    self.find_patterns(value)
                for key, item in value.items():
                    self.any(
                        item, (*path, key), depth + 1, schemas and key not in _DATA
                    )
        elif isinstance(value, (list, tuple)):
            if self.container(value, path, depth):
                for index, item in enumerate(value):
                    self.any(item, (*path, index), depth + 1, schemas)
        else:
            self.scalar(value, path)

    def find_patterns(self, node: Mapping[str, Any]) -> None:
        """Every object outside data keywords is searched, as `schema_objects` walks a document."""
        if self.patterns is None:
            return
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            self.patterns.append((node, None, pattern))
        patterns = node.get("patternProperties")
        if patterns is not None and isinstance(patterns, Mapping):
            self.patterns.extend((patterns, key, key) for key in patterns)

    def schema(self, value: Any, path: Path, depth: int) -> None:
        if isinstance(value, Mapping):
            if not self.container(value, path, depth):
                return
            if self.objects is not None:
                self.objects.append(value)
            self.find_patterns(value)
            for key, item in value.items():
                check = _KEYWORD_CHECKS.get(key)
                if check is None:
                    self.any(item, (*path, key), depth + 1, True)
                else:
                    check(self, item, (*path, key), depth + 1)
        elif value is not True and value is not False:
            self.wrong(value, path, depth, "object or boolean")

    def schema_list(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, (list, tuple)):
            self.wrong(value, path, depth, "array")
            return
        if not self.container(value, path, depth):
            return
        for index, item in enumerate(value):
            self.schema(item, (*path, index), depth + 1)
        if not value:
            self.problems.append((path, "must have at least 1 item (has 0)"))

    def schema_map(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, Mapping):
            self.wrong(value, path, depth, "object")
            return
        if not self.container(value, path, depth):
            return
        self.find_patterns(value)
        for key, item in value.items():
            self.schema(item, (*path, key), depth + 1)

    def wrong(self, value: Any, path: Path, depth: int, wanted: str) -> None:
        """A value of the wrong JSON type (still searched for values that are not JSON data)."""
        if isinstance(value, (Mapping, list, tuple)):
            self.any(value, path, depth, True)
        elif not self.scalar(value, path):
            return
        self.expected(path, wanted, value)

    def string(self, value: Any, path: Path, depth: int) -> None:
        if not _is_string(value):
            self.wrong(value, path, depth, "string")

    def boolean(self, value: Any, path: Path, depth: int) -> None:
        if value is not True and value is not False:
            self.wrong(value, path, depth, "boolean")

    def number(self, value: Any, path: Path, depth: int) -> None:
        if not _is_number(value):
            self.wrong(value, path, depth, "number")
        else:
            self.scalar(value, path)

    def positive(self, value: Any, path: Path, depth: int) -> None:
        if not _is_number(value):
            self.wrong(value, path, depth, "number")
        elif self.scalar(value, path) and value <= 0:
            self.problems.append((path, "must be > 0"))

    def count(self, value: Any, path: Path, depth: int) -> None:
        integral = (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, Decimal) and value == value.to_integral_value()
        )
        if (
            not (isinstance(value, int) and not isinstance(value, bool))
            and not integral
        ):
            self.wrong(value, path, depth, "integer")
        elif self.scalar(value, path) and value < 0:
            self.problems.append((path, "must be >= 0"))

    def strings(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, (list, tuple)):
            self.wrong(value, path, depth, "array")
            return
        if not self.container(value, path, depth):
            return
        for index, item in enumerate(value):
            if not _is_string(item):
                self.wrong(item, (*path, index), depth + 1, "string")
        if duplicate := _duplicate(value):
            self.problems.append((path, duplicate))

    def strings_map(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, Mapping):
            self.wrong(value, path, depth, "object")
            return
        if not self.container(value, path, depth):
            return
        self.find_patterns(value)
        for key, item in value.items():
            self.strings(item, (*path, key), depth + 1)

    def type(self, value: Any, path: Path, depth: int) -> None:
        if isinstance(value, str):
            if value not in SIMPLE_TYPES:
                self.types_mismatch(path, "expected array, got string")
            return
        if not isinstance(value, (list, tuple)):
            if isinstance(value, Mapping):
                self.any(value, path, depth, True)
            elif not self.scalar(value, path):
                return
            self.types_mismatch(path, f"expected array, got {json_type(value)}")
            return
        if not self.container(value, path, depth):
            return
        unknown = []
        for index, item in enumerate(value):
            self.any(item, (*path, index), depth + 1, True)
            if not isinstance(item, str) or item not in SIMPLE_TYPES:
                unknown.append(f"at [{index}]: {_ONE_OF_TYPES}")
        others = [] if value else ["must have at least 1 item (has 0)"]
        if duplicate := _duplicate(value):
            others.append(duplicate)
        if not unknown:
            # Only the list form could match: its problems are the ones to show.
            self.problems.extend((path, message) for message in others)
        elif len(unknown) + len(others) > 3:
            shown = (unknown + others)[:3]
            more = len(unknown) + len(others) - 3
            self.types_mismatch(path, " and ".join(shown) + f" and {more} more")
        else:
            self.types_mismatch(path, " and ".join(unknown + others))

    def types_mismatch(self, path: Path, second: str) -> None:
        message = (
            f"does not match any of the 2 anyOf alternatives: (1) {_ONE_OF_TYPES}; (2) "
            + second
        )
        self.problems.append((path, message))

    def anchor(self, value: Any, path: Path, depth: int) -> None:
        if not _is_string(value):
            self.wrong(value, path, depth, "string")
        elif not _ANCHOR.match(str(value)):
            self.problems.append((path, f"must match pattern {ANCHOR_PATTERN!r}"))

    def id(self, value: Any, path: Path, depth: int) -> None:
        if not _is_string(value):
            self.wrong(value, path, depth, "string")
        elif not _ID.match(str(value)):
            self.problems.append((path, f"must match pattern {ID_PATTERN!r}"))

    def array(self, value: Any, path: Path, depth: int) -> None:
        if isinstance(value, (list, tuple)):
            self.any(value, path, depth, False)
        else:
            self.wrong(value, path, depth, "array")

    def data_value(self, value: Any, path: Path, depth: int) -> None:
        self.any(value, path, depth, False)

    def vocabulary(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, Mapping):
            self.wrong(value, path, depth, "object")
            return
        if not self.container(value, path, depth):
            return
        self.find_patterns(value)
        for key, item in value.items():
            self.boolean(item, (*path, key), depth + 1)

    def dependencies(self, value: Any, path: Path, depth: int) -> None:
        if not isinstance(value, Mapping):
            self.wrong(value, path, depth, "object")
            return
        if not self.container(value, path, depth):
            return
        self.find_patterns(value)
        for key, item in value.items():
            here = (*path, key)
            # A schema or a list of unique strings: the value's JSON type says which was meant.
            if isinstance(item, (list, tuple)):
                self.strings(item, here, depth + 1)
            elif isinstance(item, Mapping) or item is True or item is False:
                self.schema(item, here, depth + 1)
            elif self.scalar(item, here):
                kind = json_type(item)
                message = (
                    "does not match any of the 2 anyOf alternatives: "
                    f"(1) expected object or boolean, got {kind}; (2) expected array, got {kind}"
                )
                self.problems.append((here, message))


_CHECKS: dict[str, Callable[[_Check, Any, Path, int], None]] = {
    SCHEMA: _Check.schema,
    SCHEMA_LIST: _Check.schema_list,
    SCHEMA_MAP: _Check.schema_map,
    STRING: _Check.string,
    BOOLEAN: _Check.boolean,
    NUMBER: _Check.number,
    POSITIVE: _Check.positive,
    COUNT: _Check.count,
    STRINGS: _Check.strings,
    STRINGS_MAP: _Check.strings_map,
    TYPE: _Check.type,
    ANCHOR: _Check.anchor,
    ID: _Check.id,
    ARRAY: _Check.array,
    ANY: _Check.data_value,
    VOCABULARY: _Check.vocabulary,
    DEPENDENCIES: _Check.dependencies,
}
_KEYWORD_CHECKS = {keyword: _CHECKS[kind] for keyword, kind in KEYWORDS.items()}


def check_metaschema(
    doc: Any,
    patterns: list[Pattern] | None = None,
    objects: list[Mapping[str, Any]] | None = None,
) -> list[Problem]:
    """(path, message) for each way `doc` is not a valid 2020-12 schema; [] if it is one. Values that are not
    JSON data are reported instead of anything else. With `patterns`, every `pattern` and `patternProperties`
    key outside data keywords is appended to it (whatever the verdict), so they need no walk of their own.
    With `objects`, every object in a schema position (not a `properties` map, not data, not the value of an
    unknown keyword) is appended to it.
    """
    check = _Check(patterns, objects)
    check.schema(doc, (), 0)
    return check.data or check.problems


def is_valid_schema(doc: Any) -> bool:
    return not check_metaschema(doc)
