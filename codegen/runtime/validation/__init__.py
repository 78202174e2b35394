"""Pure-Python JSON Schema draft 2020-12 validator for generated models.

The compiler copies this file verbatim into every generated package (as
``_validation.py``): a model's ``model_validator(mode="before")`` calls
:func:`validate` so that the model accepts exactly the instances its emitted
JSON Schema accepts.  Hence: standard library only (plus pydantic-core, which
Pydantic ships, for linear-time pattern matching, imported on first use), no
import-time work beyond compiling constant regexes, and messages written for an
LLM fixing its call.

Instances are JSON values as Python holds them: ``None``, ``bool`` (never a
number), ``int``, ``float`` / ``Decimal`` (integral values are integers too),
``str``, ``list`` / ``tuple`` and any ``Mapping`` with ``str`` keys.
``datetime.date`` / ``datetime.datetime`` / ``uuid.UUID`` stand for their
ISO / canonical strings, because that is how Pydantic serialises them.
Anything else (sets, bytes, NaN, arbitrary objects) is not JSON data and is
reported as such.

Deliberate choices beyond plain draft 2020-12:

* ``format`` is an annotation, except that ``"format": "date"`` or
  ``"date-time"`` beside ``"type": "string"`` asserts an RFC 3339 full-date /
  date-time that is also a real calendar date and time (so leap seconds are
  rejected), because the compiler maps those to ``datetime.date`` /
  ``datetime.datetime`` and both layers must agree.
* ``pattern`` answers as Python ``re.search`` does, except that an unescaped
  ``$`` outside a character class means end of input, as in ECMA-262, not
  "end or before a final newline", and ``\\p{...}`` general-category escapes
  are supported.  But matching never backtracks: it runs on the Rust regex
  engine inside pydantic-core, in time linear in the text, and patterns that
  need backtracking (backreferences, lookaround, possessive quantifiers,
  atomic groups), Unicode ``\\b`` or are too large are refused (see
  :func:`compile_pattern`).  Text with lone surrogates, which Rust cannot
  hold, is matched with U+FFFD in their place when the pattern cannot tell
  the two apart, and fails the pattern otherwise.
* Numbers with more than 4300 digits (Python's own limit for int <-> text)
  are refused; exponents may be anything (``multipleOf`` never expands them).
* Remote references are never fetched: a ``$ref`` can reach the document
  itself (``$id``, ``$anchor``, ``$dynamicAnchor``, JSON pointers) and the
  embedded draft 2020-12 meta-schemas.
* A defect of the schema met while validating (unresolvable or looping
  ``$ref``, uncompilable pattern) rejects the instance with a single problem
  whose message starts with "schema error:"; nothing is guessed.

A schema document is indexed once and cached by identity, so schemas must not
be mutated after their first use.
"""

from __future__ import annotations

import json
import math
import re
import sys
import unicodedata
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NoReturn, TypeGuard
from urllib.parse import unquote
from uuid import UUID

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

__all__ = [
    "Matcher",
    "PatternError",
    "Problem",
    "UnsupportedPattern",
    "compile_pattern",
    "is_valid",
    "validate",
]

# Deepest array/object nesting accepted in an instance.  Evaluation recurses
# per level, so the limit keeps us well inside Python's recursion limit even
# when called from deep inside Pydantic; real tool arguments are far shallower.
_MAX_DEPTH = 64
# Bounds for the identity-keyed caches (schemas are normally module constants).
_MAX_CACHED_SCHEMAS = 256
_MAX_CACHED_PATTERNS = 1024
# Python's own bound on int <-> text conversion (sys.int_info): data numbers
# with more digits are refused, which keeps arithmetic on them cheap whatever
# their exponent (Decimal("1e10000000") is fine, it is never expanded).
_MAX_DIGITS = 4300
# Integers longer than this are described, not printed (Python refuses to
# convert ints of more than 4300 digits to text).
_MAX_SHOWN_BITS = 10_000
# Base URI of a root document without "$id"; only needs to be absolute.
_DEFAULT_BASE = "urn:x-codegen:schema"
_META_PREFIX = "https://json-schema.org/draft/2020-12/"
# "all items evaluated" in an items annotation.
_ALL = sys.maxsize

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
# RFC 3986 appendix B: splits any URI reference, keeping absent and empty
# components apart (urllib does not, and mishandles "urn:" bases).
_URI = re.compile(
    r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.S
)
# RFC 3339 full-date and date-time (section 5.6); calendar checks come after.
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)

# Keywords whose values are subschemas; used to index "$id"/"$anchor" and to
# tell schema positions from data positions ("enum", "const", unknown keywords).
SUBSCHEMA = (
    "additionalProperties",
    "contains",
    "contentSchema",
    "else",
    "if",
    "items",
    "not",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
)
SUBSCHEMA_MAPS = (
    "$defs",
    "definitions",
    "dependentSchemas",
    "patternProperties",
    "properties",
)
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
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

# The draft 2020-12 meta-schema and its vocabulary schemas, minus pure
# annotations, so that "$ref": "https://json-schema.org/draft/2020-12/schema"
# works offline.  Parsed on first use only.
_META_SCHEMAS_JSON = (
    '[{"$id":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor'
    '":"meta","allOf":[{"$ref":"meta/core"},{"$ref":"meta/applicator"},{"$r'
    'ef":"meta/unevaluated"},{"$ref":"meta/validation"},{"$ref":"meta/meta-'
    'data"},{"$ref":"meta/format-annotation"},{"$ref":"meta/content"}],"typ'
    'e":["object","boolean"],"properties":{"definitions":{"type":"object","'
    'additionalProperties":{"$dynamicRef":"#meta"}},"dependencies":{"type":'
    '"object","additionalProperties":{"anyOf":[{"$dynamicRef":"#meta"},{"$r'
    'ef":"meta/validation#/$defs/stringArray"}]}},"$recursiveAnchor":{"$ref'
    '":"meta/core#/$defs/anchorString"},"$recursiveRef":{"$ref":"meta/core#'
    '/$defs/uriReferenceString"}}},{"$id":"https://json-schema.org/draft/20'
    '20-12/meta/core","$dynamicAnchor":"meta","type":["object","boolean"],"'
    'properties":{"$id":{"$ref":"#/$defs/uriReferenceString","pattern":"^[^'
    '#]*#?$"},"$schema":{"$ref":"#/$defs/uriString"},"$ref":{"$ref":"#/$def'
    's/uriReferenceString"},"$anchor":{"$ref":"#/$defs/anchorString"},"$dyn'
    'amicRef":{"$ref":"#/$defs/uriReferenceString"},"$dynamicAnchor":{"$ref'
    '":"#/$defs/anchorString"},"$vocabulary":{"type":"object","propertyName'
    's":{"$ref":"#/$defs/uriString"},"additionalProperties":{"type":"boolea'
    'n"}},"$comment":{"type":"string"},"$defs":{"type":"object","additional'
    'Properties":{"$dynamicRef":"#meta"}}},"$defs":{"anchorString":{"type":'
    '"string","pattern":"^[A-Za-z_][-A-Za-z0-9._]*$"},"uriString":{"type":"'
    'string","format":"uri"},"uriReferenceString":{"type":"string","format"'
    ':"uri-reference"}}},{"$id":"https://json-schema.org/draft/2020-12/meta'
    '/applicator","$dynamicAnchor":"meta","type":["object","boolean"],"prop'
    'erties":{"prefixItems":{"$ref":"#/$defs/schemaArray"},"items":{"$dynam'
    'icRef":"#meta"},"contains":{"$dynamicRef":"#meta"},"additionalProperti'
    'es":{"$dynamicRef":"#meta"},"properties":{"type":"object","additionalP'
    'roperties":{"$dynamicRef":"#meta"}},"patternProperties":{"type":"objec'
    't","additionalProperties":{"$dynamicRef":"#meta"},"propertyNames":{"fo'
    'rmat":"regex"}},"dependentSchemas":{"type":"object","additionalPropert'
    'ies":{"$dynamicRef":"#meta"}},"propertyNames":{"$dynamicRef":"#meta"},'
    '"if":{"$dynamicRef":"#meta"},"then":{"$dynamicRef":"#meta"},"else":{"$'
    'dynamicRef":"#meta"},"allOf":{"$ref":"#/$defs/schemaArray"},"anyOf":{"'
    '$ref":"#/$defs/schemaArray"},"oneOf":{"$ref":"#/$defs/schemaArray"},"n'
    'ot":{"$dynamicRef":"#meta"}},"$defs":{"schemaArray":{"type":"array","m'
    'inItems":1,"items":{"$dynamicRef":"#meta"}}}},{"$id":"https://json-sch'
    'ema.org/draft/2020-12/meta/unevaluated","$dynamicAnchor":"meta","type"'
    ':["object","boolean"],"properties":{"unevaluatedItems":{"$dynamicRef":'
    '"#meta"},"unevaluatedProperties":{"$dynamicRef":"#meta"}}},{"$id":"htt'
    'ps://json-schema.org/draft/2020-12/meta/validation","$dynamicAnchor":"'
    'meta","type":["object","boolean"],"properties":{"type":{"anyOf":[{"$re'
    'f":"#/$defs/simpleTypes"},{"type":"array","items":{"$ref":"#/$defs/sim'
    'pleTypes"},"minItems":1,"uniqueItems":true}]},"const":true,"enum":{"ty'
    'pe":"array","items":true},"multipleOf":{"type":"number","exclusiveMini'
    'mum":0},"maximum":{"type":"number"},"exclusiveMaximum":{"type":"number'
    '"},"minimum":{"type":"number"},"exclusiveMinimum":{"type":"number"},"m'
    'axLength":{"$ref":"#/$defs/nonNegativeInteger"},"minLength":{"$ref":"#'
    '/$defs/nonNegativeIntegerDefault0"},"pattern":{"type":"string","format'
    '":"regex"},"maxItems":{"$ref":"#/$defs/nonNegativeInteger"},"minItems"'
    ':{"$ref":"#/$defs/nonNegativeIntegerDefault0"},"uniqueItems":{"type":"'
    'boolean"},"maxContains":{"$ref":"#/$defs/nonNegativeInteger"},"minCont'
    'ains":{"$ref":"#/$defs/nonNegativeInteger"},"maxProperties":{"$ref":"#'
    '/$defs/nonNegativeInteger"},"minProperties":{"$ref":"#/$defs/nonNegati'
    'veIntegerDefault0"},"required":{"$ref":"#/$defs/stringArray"},"depende'
    'ntRequired":{"type":"object","additionalProperties":{"$ref":"#/$defs/s'
    'tringArray"}}},"$defs":{"nonNegativeInteger":{"type":"integer","minimu'
    'm":0},"nonNegativeIntegerDefault0":{"$ref":"#/$defs/nonNegativeInteger'
    '"},"simpleTypes":{"enum":["array","boolean","integer","null","number",'
    '"object","string"]},"stringArray":{"type":"array","items":{"type":"str'
    'ing"},"uniqueItems":true}}},{"$id":"https://json-schema.org/draft/2020'
    '-12/meta/meta-data","$dynamicAnchor":"meta","type":["object","boolean"'
    '],"properties":{"title":{"type":"string"},"description":{"type":"strin'
    'g"},"default":true,"deprecated":{"type":"boolean"},"readOnly":{"type":'
    '"boolean"},"writeOnly":{"type":"boolean"},"examples":{"type":"array","'
    'items":true}}},{"$id":"https://json-schema.org/draft/2020-12/meta/form'
    'at-annotation","$dynamicAnchor":"meta","type":["object","boolean"],"pr'
    'operties":{"format":{"type":"string"}}},{"$id":"https://json-schema.or'
    'g/draft/2020-12/meta/content","$dynamicAnchor":"meta","type":["object"'
    ',"boolean"],"properties":{"contentEncoding":{"type":"string"},"content'
    'MediaType":{"type":"string"},"contentSchema":{"$dynamicRef":"#meta"}}}'
    "]"
)


# --------------------------------------------------------------------------
# Public API


@dataclass(frozen=True)
class Problem:
    """One reason an instance does not match its schema."""

    path: tuple[str | int, ...]
    """Location in the instance: property names and array indices."""
    message: str
    """Human- (and LLM-) readable explanation."""
    keyword: str
    """The schema keyword that failed, e.g. ``"type"`` or ``"required"``."""

    def format(self) -> str:
        """``"items[0].id: expected integer, got string"``."""
        return f"{format_path(self.path)}: {self.message}"


def format_path(path: Iterable[str | int]) -> str:
    """Render an instance location as ``items[0].id``; the root is ``(root)``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif _IDENTIFIER.fullmatch(part):
            out.append(f".{part}" if out else part)
        else:
            out.append(f"[{json.dumps(part, ensure_ascii=False)}]")
    return "".join(out) or "(root)"


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


def compile_pattern(pattern: str) -> Matcher:
    """Compile a JSON Schema ``pattern`` the way this validator applies it.

    Raises :class:`PatternError` (an ``re.error``) for patterns Python cannot
    compile and for those that need backtracking (backreferences, lookaround)
    or are too large, so a compiler can report them up front instead of every
    call failing at run time.  Results are cached.
    """
    found = _PATTERNS.get(pattern)
    if found is None:
        if len(_PATTERNS) >= _MAX_CACHED_PATTERNS:
            _PATTERNS.clear()
        try:
            found = _compile_pattern(pattern)
        except PatternError as error:
            found = error
        _PATTERNS[pattern] = found
    if isinstance(found, PatternError):
        raise found
    return found


# --------------------------------------------------------------------------
# Entry point


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
        problems = evaluator.eval(
            instance, target, None, base, _Scope(index.root_base, None), None
        )
    except _SchemaError as error:
        return [error.problem]
    except RecursionError:
        # Only reachable from a very deep caller stack or a pathological
        # schema; report it rather than crash the caller.
        return [Problem((), "too deeply nested to validate", "depth")]
    # Several subschemas can report the same thing (e.g. "required" twice).
    return list(dict.fromkeys(problems))


def _check_data(instance: object, fail_fast: bool) -> list[Problem]:
    """Report values that are not JSON data, and nesting beyond _MAX_DEPTH.

    Iterative, so arbitrarily deep or cyclic input cannot exhaust the stack.
    """
    problems: list[Problem] = []
    stack: list[tuple[object, _Loc | None, int]] = [(instance, None, 0)]
    while stack:
        value, loc, depth = stack.pop()
        if isinstance(value, (int, Decimal)) and _too_long(value):
            message = f"numbers of more than {_MAX_DIGITS} digits are not accepted"
            problems.append(Problem(_path(loc), message, "type"))
        elif value is None or isinstance(value, (str, int, date, UUID)):
            continue  # bool is an int; datetime is a date
        elif isinstance(value, float):
            if not math.isfinite(value):
                problems.append(
                    Problem(_path(loc), f"{value} is not a JSON number", "type")
                )
        elif isinstance(value, Decimal):
            if not value.is_finite():
                problems.append(
                    Problem(_path(loc), f"{value} is not a JSON number", "type")
                )
        elif isinstance(value, (list, tuple, Mapping)):
            if depth >= _MAX_DEPTH:
                message = f"nested too deeply (more than {_MAX_DEPTH} levels)"
                problems.append(Problem(_path(loc), message, "depth"))
            elif isinstance(value, Mapping):
                children: list[tuple[object, _Loc | None, int]] = []
                for key, item in value.items():
                    if isinstance(key, str):
                        children.append((item, _Loc(loc, key), depth + 1))
                    else:
                        message = (
                            f"object key {key!r} is not a string (not valid JSON data)"
                        )
                        problems.append(Problem(_path(loc), message, "type"))
                stack.extend(reversed(children))
            else:
                stack.extend(
                    (value[i], _Loc(loc, i), depth + 1)
                    for i in range(len(value) - 1, -1, -1)
                )
        else:
            message = f"is not valid JSON data (got Python {type(value).__name__})"
            problems.append(Problem(_path(loc), message, "type"))
        if fail_fast and problems:
            break
    return problems


# --------------------------------------------------------------------------
# Small helper types


class _Loc:
    """Instance location as a linked list: built per descent in O(1), and
    turned into a tuple only when a problem is reported."""

    __slots__ = ("parent", "key")

    def __init__(self, parent: _Loc | None, key: str | int) -> None:
        self.parent = parent
        self.key = key


def _path(loc: _Loc | None) -> tuple[str | int, ...]:
    keys: list[str | int] = []
    while loc is not None:
        keys.append(loc.key)
        loc = loc.parent
    keys.reverse()
    return tuple(keys)


class _Scope:
    """The dynamic scope (base URIs of the resources entered), innermost first,
    which ``$dynamicRef`` searches from the outermost end."""

    __slots__ = ("uri", "parent")

    def __init__(self, uri: str, parent: _Scope | None) -> None:
        self.uri = uri
        self.parent = parent

    def outermost_first(self) -> list[str]:
        uris: list[str] = []
        scope: _Scope | None = self
        while scope is not None:
            uris.append(scope.uri)
            scope = scope.parent
        uris.reverse()
        return uris


class _Ann:
    """Annotations "unevaluatedProperties"/"unevaluatedItems" depend on:
    property names evaluated, items evaluated below ``upto``, and indices
    matched by "contains"."""

    __slots__ = ("props", "upto", "indices")

    def __init__(self) -> None:
        self.props: set[str] = set()
        self.upto = 0
        self.indices: set[int] = set()

    def merge(self, other: _Ann) -> None:
        self.props |= other.props
        self.upto = max(self.upto, other.upto)
        self.indices |= other.indices


# --------------------------------------------------------------------------
# Schema index: URIs, anchors and dynamic anchors of one document


class _Index:
    __slots__ = ("root", "root_base", "resources", "dynamic", "node_uri", "enums")

    def __init__(self, root: object) -> None:
        self.root = root  # keeps id()-keyed entries below valid
        self.resources: dict[str, object] = {}  # "uri" and "uri#anchor" -> node
        self.dynamic: dict[str, dict[str, object]] = {}  # uri -> $dynamicAnchor -> node
        self.node_uri: dict[int, str] = {}  # id(node with $id) -> absolute URI
        self.enums: dict[int, tuple[object, frozenset[object]]] = {}
        self.root_base = _DEFAULT_BASE
        if isinstance(root, Mapping) and isinstance(root.get("$id"), str):
            self.root_base = _without_fragment(_resolve(_DEFAULT_BASE, root["$id"]))
        self.resources[self.root_base] = root
        self.add_document(root, _DEFAULT_BASE)

    def add_document(self, document: object, base: str) -> None:
        stack: list[tuple[object, str]] = [(document, base)]
        while stack:
            node, base = stack.pop()
            if not isinstance(node, Mapping):
                continue
            node_id = node.get("$id")
            if isinstance(node_id, str):
                base = _without_fragment(_resolve(base, node_id))
                self.resources.setdefault(base, node)
                self.node_uri[id(node)] = base
            anchor = node.get("$anchor")
            if isinstance(anchor, str):
                self.resources.setdefault(f"{base}#{anchor}", node)
            anchor = node.get("$dynamicAnchor")
            if isinstance(anchor, str):
                self.resources.setdefault(f"{base}#{anchor}", node)
                self.dynamic.setdefault(base, {}).setdefault(anchor, node)
            for keyword in SUBSCHEMA:
                if keyword in node:
                    stack.append((node[keyword], base))
            for keyword in SUBSCHEMA_MAPS:
                children = node.get(keyword)
                if isinstance(children, Mapping):
                    stack.extend((child, base) for child in children.values())
            for keyword in SUBSCHEMA_LISTS:
                children = node.get(keyword)
                if isinstance(children, (list, tuple)):
                    stack.extend((child, base) for child in children)

    def entry(self, pointer: str) -> tuple[object, str]:
        """The subschema at a JSON pointer from the root, and its base URI.

        The URI-fragment form ("#/$defs/X", percent-encoded) is accepted too.
        """
        if pointer.startswith("#"):
            pointer = unquote(pointer[1:])
        if pointer and not pointer.startswith("/"):
            raise ValueError(f"invalid JSON pointer {pointer!r}")
        tokens = [_unescape(token) for token in pointer.split("/")[1:]]
        found = _walk(self.root, _DEFAULT_BASE, tokens, self, apply_start_id=True)
        if found is None:
            raise ValueError(f"pointer {pointer!r} does not resolve in the schema")
        return found


_INDEXES: dict[int, _Index] = {}
_META_INDEX: list[_Index] = []  # filled on first use


def _index_for(schema: object) -> _Index:
    index = _INDEXES.get(id(schema))
    if index is None or index.root is not schema:
        if len(_INDEXES) >= _MAX_CACHED_SCHEMAS:
            _INDEXES.pop(next(iter(_INDEXES)), None)
        index = _INDEXES[id(schema)] = _Index(schema)
    return index


def _meta_index() -> _Index:
    if not _META_INDEX:
        documents = json.loads(_META_SCHEMAS_JSON)
        index = _Index(documents[0])
        for document in documents[1:]:
            index.add_document(document, _DEFAULT_BASE)
        _META_INDEX.append(index)
    return _META_INDEX[0]


def _walk(
    node: object, base: str, tokens: list[str], index: _Index, *, apply_start_id: bool
) -> tuple[object, str] | None:
    """Follow JSON pointer tokens from *node*, tracking "$id" base changes of
    the nodes passed through (the target's own "$id" is applied when it is
    evaluated)."""
    for position, token in enumerate(tokens):
        if isinstance(node, Mapping):
            node_id = node.get("$id")
            if isinstance(node_id, str) and (position or apply_start_id):
                base = index.node_uri.get(id(node)) or _without_fragment(
                    _resolve(base, node_id)
                )
            if token not in node:
                return None
            node = node[token]
        elif (
            isinstance(node, (list, tuple))
            and token.isascii()
            and token.isdigit()
            and (token == "0" or token[0] != "0")
        ):
            if int(token) >= len(node):
                return None
            node = node[int(token)]
        else:
            return None
    return node, base


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


# --------------------------------------------------------------------------
# URI handling (RFC 3986 section 5.2)


def _resolve(base: str, reference: str) -> str:
    r_scheme, r_auth, r_path, r_query, r_frag = _split_uri(reference)
    b_scheme, b_auth, b_path, b_query, _ = _split_uri(base)
    scheme: str | None
    auth: str | None
    query: str | None
    if r_scheme is not None:
        scheme, auth, path, query = r_scheme, r_auth, _remove_dots(r_path), r_query
    elif r_auth is not None:
        scheme, auth, path, query = b_scheme, r_auth, _remove_dots(r_path), r_query
    elif r_path == "":
        scheme, auth, path = b_scheme, b_auth, b_path
        query = r_query if r_query is not None else b_query
    else:
        if r_path.startswith("/"):
            path = _remove_dots(r_path)
        elif b_auth is not None and b_path == "":
            path = _remove_dots("/" + r_path)
        else:
            path = _remove_dots(b_path[: b_path.rfind("/") + 1] + r_path)
        scheme, auth, query = b_scheme, b_auth, r_query
    result = f"{scheme}:" if scheme is not None else ""
    if auth is not None:
        result += f"//{auth}"
    result += path
    if query is not None:
        result += f"?{query}"
    if r_frag is not None:
        result += f"#{r_frag}"
    return result


def _split_uri(uri: str) -> tuple[str | None, str | None, str, str | None, str | None]:
    match = _URI.fullmatch(uri)
    assert match is not None  # every component of the regex is optional
    scheme, authority, path, query, fragment = match.groups()
    return scheme, authority, path, query, fragment


def _remove_dots(path: str) -> str:
    if "." not in path:
        return path
    output: list[str] = []
    segments = path.split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == ".":
            if last:
                output.append("")
        elif segment == "..":
            if len(output) > 1 or (output and output[0] != ""):
                output.pop()
            if last:
                output.append("")
        else:
            output.append(segment)
    return "/".join(output)


def _without_fragment(uri: str) -> str:
    return uri.partition("#")[0]


# --------------------------------------------------------------------------
# The JSON data model over Python values


def _native_str(value: object) -> str:
    return value.isoformat() if isinstance(value, date) else str(value)


def _json_type(value: object) -> str:
    """JSON type name of (already checked) JSON data; integral floats are
    "number" here and count as integers in :func:`_has_type`."""
    if isinstance(value, (str, date, UUID)):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, (float, Decimal)):
        return "number"
    if isinstance(value, (list, tuple)):
        return "array"
    return "object"


def _is_integral(value: object) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, Decimal):
        return value == value.to_integral_value()
    return False


def _has_type(value: object, kind: str, expected: object) -> bool:
    if expected == kind:
        return True
    if expected == "number":
        return kind == "integer"
    if expected == "integer":
        return kind == "number" and _is_integral(value)
    return False


def _is_number(value: object) -> TypeGuard[int | float | Decimal]:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _as_count(value: object) -> int | None:
    """A schema's non-negative count ("minLength": 2 or 2.0), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, (float, Decimal)) and _is_integral(value):
        # Beyond sys.maxsize no length differs, and 1e10000000 stays cheap.
        return int(max(min(value, sys.maxsize), -sys.maxsize))
    return None


def _aligned(a: Any, b: Any) -> tuple[Any, Any]:
    """Compare a Decimal with a float by the float's JSON literal (shortest
    repr), not its binary expansion: Decimal("0.1") >= 0.1 must hold."""
    if isinstance(a, Decimal) and isinstance(b, float):
        return a, Decimal(repr(b))
    if isinstance(a, float) and isinstance(b, Decimal):
        return Decimal(repr(a)), b
    return a, b


def _decimal_parts(value: int | float | Decimal) -> tuple[int, int]:
    """``(coefficient, exponent)`` with value == coefficient * 10**exponent.
    A float stands for its shortest decimal literal, so 0.0075 is a multiple
    of 0.0001 and 1e308 / 0.123456789 cannot overflow."""
    if isinstance(value, int):
        return value, 0
    if isinstance(value, float):
        value = Decimal(repr(value))
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: non-numbers were refused
    coefficient = int(Decimal((0, digits, 0)))
    return (-coefficient if sign else coefficient), exponent


def _too_long(value: int | Decimal) -> bool:
    if isinstance(value, int):
        return value.bit_length() > _MAX_DIGITS * 3.33  # log2(10) bits per digit
    return len(value.as_tuple().digits) > _MAX_DIGITS


def _is_multiple(value: int | float | Decimal, divisor: int | float | Decimal) -> bool:
    """Whether value / divisor is an integer, in time bounded by the digits of
    both, whatever their exponents (1e10000000 is never expanded)."""
    if isinstance(value, int) and isinstance(divisor, int):
        return value % divisor == 0
    coefficient, exponent = _decimal_parts(value)
    divisor_coefficient, divisor_exponent = _decimal_parts(divisor)
    if coefficient == 0:
        return True
    shift = exponent - divisor_exponent  # value / divisor = c * 10**shift / d
    if shift < 0:
        if -shift >= abs(coefficient).bit_length():
            return False  # 0 < |c| < 10**-shift: no multiple of 10**-shift
        scale: int = 10**-shift
        return coefficient % (divisor_coefficient * scale) == 0
    # d divides c * 10**shift iff its part prime to 10 divides c and its
    # factors 2 and 5 beyond the shift divide c too.
    rest, fives = abs(divisor_coefficient), 0
    twos = (rest & -rest).bit_length() - 1
    rest >>= twos
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    needed: int = 2 ** max(0, twos - shift) * 5 ** max(0, fives - shift) * rest
    return coefficient % needed == 0


def _key(value: object) -> object:
    """Hashable form under JSON equality: 1 == 1.0, true != 1, deep, and
    object key order ignored."""
    if isinstance(value, bool):
        return ("bool", value)
    if value is None or isinstance(value, (str, int, float)):
        return value  # numbers of different types already compare by value
    if isinstance(value, Decimal):
        if _is_integral(value):
            return value  # equal to (and hashed as) the int, never expanded
        as_float = float(value)
        # Same JSON literal as a float (Decimal("0.1") vs 0.1): use the float.
        return as_float if Decimal(repr(as_float)) == value else value
    if isinstance(value, (date, UUID)):
        return _native_str(value)
    if isinstance(value, (list, tuple)):
        return ("array", tuple(_key(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", frozenset((k, _key(v)) for k, v in value.items()))
    return ("other", id(value))


def _show(value: object, limit: int = 100) -> str:
    """Short JSON-like rendering of a value for messages."""
    text = _render(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > _MAX_SHOWN_BITS:
        return f"an integer of {value.bit_length()} bits"  # str() would refuse it
    if isinstance(value, (int, float, Decimal)):
        return str(value)
    if isinstance(value, (date, UUID)):
        return repr(_native_str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_render(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k!r}: {_render(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _names(names: Iterable[object]) -> str:
    return ", ".join(repr(name) for name in names)


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


def _valid_date(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        date(*map(int, match.groups()))
    except ValueError:
        return False
    return True


def _valid_date_time(text: str) -> bool:
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        return False
    year, month, day, hour, minute, second, fraction, sign, off_h, off_m = (
        match.groups()
    )
    offset = timedelta()
    if sign is not None:
        if int(off_h) > 23 or int(off_m) > 59:
            return False
        offset = timedelta(hours=int(off_h), minutes=int(off_m))
        if sign == "-":
            offset = -offset
    micro = int(fraction[:6].ljust(6, "0")) if fraction else 0
    try:
        # Building the value applies the same calendar and clock rules as
        # datetime.fromisoformat (which rejects leap second 60 too).
        clock = (int(hour), int(minute), int(second), micro)
        datetime(int(year), int(month), int(day), *clock, tzinfo=timezone(offset))
    except ValueError:
        return False
    return True


class PatternError(re.error):
    """A ``pattern`` that cannot be compiled, or that is refused because it
    needs a backtracking matcher; ``pos`` is an offset into the pattern."""


class UnsupportedPattern(PatternError):
    """A valid pattern this validator refuses: it needs backtracking
    (backreferences, lookaround) or is too large for the linear matcher."""


class Matcher:
    """A compiled ``pattern``; :meth:`search` takes time linear in the text.

    Matching runs on the Rust ``regex`` crate inside pydantic-core, which
    never backtracks.  Every atom that matches a character is spelt out as an
    explicit set of code points computed with Python's ``re`` itself, so the
    verdict is that of ``re.search`` (with ``$`` as end of input).
    """

    __slots__ = ("pattern", "_validator", "_surrogates_as_fffd")

    def __init__(self, pattern: str, rust: str, surrogates_as_fffd: bool) -> None:
        self.pattern = pattern
        self._validator = _rust_validator(rust, pattern)
        self._surrogates_as_fffd = surrogates_as_fffd

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in *text*."""
        if not text.isascii() and _SURROGATE.search(text):
            # Rust text cannot hold lone surrogates.  When every set of the
            # pattern treats them as it treats U+FFFD, that stand-in gives the
            # same verdict; otherwise such text is refused.
            if not self._surrogates_as_fffd:
                return False
            text = _SURROGATE.sub("\ufffd", text)
        return self._validator.isinstance_python(text)


_SURROGATE = re.compile("[\ud800-\udfff]")
_PATTERNS: dict[str, Matcher | PatternError] = {}


def _pattern(pattern: str) -> Matcher | None:
    """Cached :func:`compile_pattern`; None when the pattern is refused."""
    try:
        return compile_pattern(pattern)
    except PatternError:
        return None


def _compile_pattern(pattern: str) -> Matcher:
    try:
        # Python's parser is the judge of syntax (and of its error messages).
        re.compile(_translate_pattern(pattern))
    except re.error as error:
        raise PatternError(error.msg, pattern, error.pos) from None
    except (OverflowError, RecursionError) as error:
        raise UnsupportedPattern(f"too large or too deeply nested ({error})") from None
    translation = _Translation(pattern)
    rust = translation.run()
    return Matcher(pattern, rust, translation.surrogates_as_fffd)


def _rust_validator(rust: str, pattern: str) -> SchemaValidator:
    # Imported on first use: the compiler imports this module too.
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        schema = core_schema.str_schema(pattern=rust, regex_engine="rust-regex")
    except TypeError:  # pydantic-core before 2.11 has the Rust engine only
        schema = core_schema.str_schema(pattern=rust)
    try:
        return SchemaValidator(schema)
    except SchemaError as error:
        reason = str(error).strip().splitlines()[-1].strip()
        raise UnsupportedPattern(
            f"too large for the linear-time matcher ({reason})", pattern, 0
        ) from None


# A set of code points: sorted, disjoint, non-adjacent inclusive ranges.
_Ranges = tuple[tuple[int, int], ...]
_EVERYTHING: _Ranges = ((0, sys.maxunicode),)
_NOT_NEWLINE: _Ranges = ((0, 9), (11, sys.maxunicode))
_REPEAT = re.compile(r"\{([0-9]*)(?:(,)([0-9]*))?\}")
_FLAG_GROUP = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]*))?([:)])")
_FLAG_BITS = {"a": re.A, "i": re.I, "m": re.M, "s": re.S, "u": 0}
_CONTROL_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_OCTAL = re.compile(r"[0-7]{1,3}")
_NAMED = re.compile(r"N\{([^}]*)\}")
_REFUSED_GROUPS = (
    ("(?P=", "backreferences need a backtracking matcher"),
    ("(?=", "lookahead needs a backtracking matcher"),
    ("(?!", "lookahead needs a backtracking matcher"),
    ("(?<=", "lookbehind needs a backtracking matcher"),
    ("(?<!", "lookbehind needs a backtracking matcher"),
    ("(?>", "atomic groups need a backtracking matcher"),
    ("(?(", "conditional groups need a backtracking matcher"),
)


class _Translation:
    """Rewrites a pattern that Python's ``re`` has accepted into Rust
    ``regex`` syntax with the same meaning, or refuses it.  Flags are applied
    here, so the output is flag-free: sets, anchors, groups and counts."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.out: list[str] = []
        self.flags = 0
        self.saved: list[int] = []
        self.surrogates_as_fffd = True

    def refuse(self, message: str, at: int | None = None) -> NoReturn:
        raise UnsupportedPattern(message, self.src, self.pos if at is None else at)

    def run(self) -> str:
        self._leading_flags()
        src = self.src
        while self.pos < len(src):
            char = src[self.pos]
            if char == "(":
                self._open()
            elif char == ")":
                self.flags = self.saved.pop()
                self._emit(")", 1)
            elif char in "|*+?":
                self._emit(char, 1)
                if char != "|":
                    self._after_quantifier()
            elif char == "{":
                self._brace()
            elif char == "^":
                self._emit("(?m:^)" if self.flags & re.M else "\\A", 1)
            elif char == "$":
                self._emit("\\z", 1)  # end of input, as in ECMA-262
            elif char == ".":
                self.pos += 1
                self._set(_EVERYTHING if self.flags & re.S else _NOT_NEWLINE)
            elif char == "[":
                self._class()
            elif char == "\\":
                self._escape()
            else:
                self.pos += 1
                self._literal(ord(char))
        return "".join(self.out)

    def _emit(self, text: str, width: int) -> None:
        self.out.append(text)
        self.pos += width

    def _leading_flags(self) -> None:
        while True:
            found = _FLAG_GROUP.match(self.src, self.pos)
            if found is None or found.group(3) != ")":
                return
            self.flags = self._flags(found, self.flags)
            self.pos = found.end()

    def _flags(self, found: re.Match[str], flags: int) -> int:
        on, off = found.group(1), found.group(2) or ""
        if "x" in on + off:
            self.refuse("verbose mode (?x) is not supported")
        for letter in on:
            flags |= _FLAG_BITS[letter]
        for letter in off:
            flags &= ~_FLAG_BITS[letter]
        return flags

    def _open(self) -> None:
        src, at = self.src, self.pos
        for opening, reason in _REFUSED_GROUPS:
            if src.startswith(opening, at):
                self.refuse(reason)
        self.saved.append(self.flags)
        if src.startswith("(?#", at):  # a comment
            self.saved.pop()
            self.pos = src.index(")", at) + 1
        elif src.startswith("(?P<", at):
            self._emit("(?:", src.index(">", at) + 1 - at)
        elif src.startswith("(?:", at) or not src.startswith("(?", at):
            self._emit("(?:", 3 if src.startswith("(?:", at) else 1)
        else:
            found = _FLAG_GROUP.match(src, at)
            if found is None or found.group(3) != ":":
                self.refuse("inline flags must come first or scope a group (?i:...)")
            self.flags = self._flags(found, self.flags)
            self._emit("(?:", found.end() - at)

    def _after_quantifier(self) -> None:
        if self.src.startswith("+", self.pos):
            self.refuse("possessive quantifiers need a backtracking matcher")
        if self.src.startswith("?", self.pos):
            self._emit("?", 1)

    def _brace(self) -> None:
        found = _REPEAT.match(self.src, self.pos)
        if found is None or found.group() == "{}":  # Python reads it literally
            self.pos += 1
            self._literal(ord("{"))
            return
        least, comma, most = found.groups()
        count = (least or "0") + ("," + most if comma else "")
        self._emit("{" + count + "}", found.end() - self.pos)
        self._after_quantifier()

    def _literal(self, code: int) -> None:
        if self.flags & re.I:
            self._set(_scan(re.escape(chr(code)), self.flags))
        else:
            self._set(((code, code),))

    def _set(self, ranges: _Ranges) -> None:
        self.surrogates_as_fffd &= _surrogates_like_fffd(ranges)
        self.out.append(_rust_set(ranges))

    def _escape(self) -> None:
        start = self.pos
        letter = self.src[start + 1]
        if letter in "bB":
            if not self.flags & re.A:
                self.refuse("word boundaries (\\b, \\B) are only supported with (?a)")
            self._emit(f"(?-u:\\{letter})", 2)
        elif letter == "A":
            self._emit("\\A", 2)
        elif letter == "Z":
            self._emit("\\z", 2)
        elif letter in "123456789" and not _is_octal_escape(self.src, start + 1):
            self.refuse("backreferences need a backtracking matcher")
        else:
            ranges, _ = self._class_atom(in_class=False)
            if self.flags & re.I:
                ranges = _scan(
                    _translate_pattern(self.src[start : self.pos]), self.flags
                )
            self._set(ranges)

    def _class(self) -> None:
        src, start = self.src, self.pos
        self.pos += 1
        negated = src.startswith("^", self.pos)
        self.pos += negated
        members: list[tuple[int, int]] = []
        first = True
        while first or src[self.pos] != "]":
            first = False
            ranges, code = self._class_atom(in_class=True)
            if code is not None and src.startswith("-", self.pos):
                if src[self.pos + 1] != "]":
                    self.pos += 1
                    _, last = self._class_atom(in_class=True)
                    assert last is not None  # Python accepted the range
                    ranges = ((code, last),)
            members += ranges
        self.pos += 1
        if self.flags & re.I:
            text = _translate_pattern(src[start : self.pos])
            self._set(_scan(text, self.flags))
        else:
            merged = _merge(members)
            self._set(_complement(merged) if negated else merged)

    def _class_atom(self, in_class: bool) -> tuple[_Ranges, int | None]:
        """One character or escape: its set, and its code if it is a single
        character (the only kind that can bound a range)."""
        src, at = self.src, self.pos
        if src[at] != "\\":
            self.pos += 1
            return ((ord(src[at]),) * 2,), ord(src[at])
        letter = src[at + 1]
        self.pos += 2
        if letter in "dDsSwW":
            return _scan("\\" + letter, self.flags), None
        if letter in "pP":
            escape = _PROPERTY_ESCAPE.match(src, at)
            assert escape is not None  # Python accepted the translation
            self.pos = escape.end()
            ranges = _category_set(escape.group(2))
            return (_complement(ranges) if letter == "P" else ranges), None
        code = self._character_escape(letter, in_class)
        return ((code, code),), code

    def _character_escape(self, letter: str, in_class: bool) -> int:
        src = self.src
        if letter in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[letter]
        if letter == "b":  # backspace, inside a class
            return 8
        if letter in _HEX_DIGITS:
            digits = src[self.pos : self.pos + _HEX_DIGITS[letter]]
            self.pos += len(digits)
            return int(digits, 16)
        if letter == "N":
            name = _NAMED.match(src, self.pos - 1)
            assert name is not None
            self.pos = name.end()
            return ord(unicodedata.lookup(name.group(1)))
        if letter in "01234567":  # "\\1" outside a class was refused above
            octal = _OCTAL.match(src, self.pos - 1)
            assert octal is not None
            self.pos = octal.end()
            return int(octal.group(), 8)
        return ord(letter)


def _is_octal_escape(src: str, at: int) -> bool:
    """Python reads ``\\ddd`` as an octal escape only with three octal digits
    (``\\0`` starts one with fewer); otherwise it is a group reference."""
    return len(src) >= at + 3 and all(c in "01234567" for c in src[at : at + 3])


def _merge(ranges: Iterable[tuple[int, int]]) -> _Ranges:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: _Ranges) -> _Ranges:
    gaps: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            gaps.append((start, low - 1))
        start = high + 1
    if start <= sys.maxunicode:
        gaps.append((start, sys.maxunicode))
    return tuple(gaps)


def _surrogates_like_fffd(ranges: _Ranges) -> bool:
    surrogates = sum(
        max(0, min(high, 0xDFFF) - max(low, 0xD800) + 1) for low, high in ranges
    )
    fffd = any(low <= 0xFFFD <= high for low, high in ranges)
    return surrogates == (0x800 if fffd else 0)


def _rust_set(ranges: _Ranges) -> str:
    """The set in Rust syntax; surrogates are left out (Rust text has none)."""
    parts: list[str] = []
    for low, high in ranges:
        for start, end in ((low, min(high, 0xD7FF)), (max(low, 0xE000), high)):
            if start == end:
                parts.append(f"\\x{{{start:X}}}")
            elif start < end:
                parts.append(f"\\x{{{start:X}}}-\\x{{{end:X}}}")
    if len(parts) == 1 and "-" not in parts[0]:
        return parts[0]
    return "[" + "".join(parts) + "]" if parts else "[a&&b]"


_SCANNED: dict[tuple[str, int], _Ranges] = {}
_CODE_POINTS: list[str] = []


def _scan(atom: str, flags: int) -> _Ranges:
    """The code points that a one-character Python regex matches under
    *flags*, found by running Python's ``re`` over all of them (once)."""
    flags &= re.A | re.I
    key = (atom, flags)
    if key not in _SCANNED:
        if len(_SCANNED) >= _MAX_CACHED_PATTERNS:
            _SCANNED.clear()
        runs = re.compile(f"(?:{atom})+", flags).finditer(_code_points())
        _SCANNED[key] = tuple((run.start(), run.end() - 1) for run in runs)
    return _SCANNED[key]


def _code_points() -> str:
    """Every code point, in order, as one string (built once, in C)."""
    if not _CODE_POINTS:
        codes = array("I", range(sys.maxunicode + 1))
        if codes.itemsize == 4:
            codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
            _CODE_POINTS.append(codes.tobytes().decode(codec, "surrogatepass"))
        else:
            _CODE_POINTS.append("".join(map(chr, range(sys.maxunicode + 1))))
    return _CODE_POINTS[0]


def _translate_pattern(pattern: str) -> str:
    """Rewrite the ECMA-262 features Python's ``re`` lacks or reads differently:
    "$" outside a character class means end of input, and ``\\p{...}`` /
    ``\\P{...}`` (Unicode general categories) become explicit classes."""
    if "$" not in pattern and "\\p" not in pattern and "\\P" not in pattern:
        return pattern
    out: list[str] = []
    position, length, in_class = 0, len(pattern), False
    while position < length:
        char = pattern[position]
        if char == "\\":
            escape = _PROPERTY_ESCAPE.match(pattern, position)
            if escape is None:
                out.append(pattern[position : position + 2])
                position += 2
                continue
            negated = escape.group(1) == "P"
            ranges = _category_ranges(escape.group(2), negated and in_class)
            if in_class:
                out.append(ranges)
            else:
                out.append(f"[{'^' if negated else ''}{ranges}]")
            position = escape.end()
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(char)
            position += 1
            # "[]...]" and "[^]...]": Python reads a leading "]" literally.
            if pattern.startswith("^", position):
                out.append("^")
                position += 1
            if pattern.startswith("]", position):
                out.append("]")
                position += 1
            continue
        elif char == "$":
            char = r"\Z"
        out.append(char)
        position += 1
    return "".join(out)


_PROPERTY_ESCAPE = re.compile(r"\\([pP])\{(?:(?:General_Category|gc)=)?([A-Za-z_]+)\}")
# ECMA-262 General_Category values (long and short names) -> Unicode
# categories as reported by unicodedata.category.
_CATEGORY_GROUPS = {
    "L": "Lu Ll Lt Lm Lo",
    "LC": "Lu Ll Lt",
    "M": "Mn Mc Me",
    "N": "Nd Nl No",
    "P": "Pc Pd Ps Pe Pi Pf Po",
    "S": "Sm Sc Sk So",
    "Z": "Zs Zl Zp",
    "C": "Cc Cf Cs Co Cn",
}
_CATEGORY_NAMES = {
    "Letter": "L",
    "Cased_Letter": "LC",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Mark": "M",
    "Combining_Mark": "M",
    "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me",
    "Number": "N",
    "Decimal_Number": "Nd",
    "digit": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "punct": "P",
    "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps",
    "Close_Punctuation": "Pe",
    "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf",
    "Other_Punctuation": "Po",
    "Symbol": "S",
    "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk",
    "Other_Symbol": "So",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Line_Separator": "Zl",
    "Paragraph_Separator": "Zp",
    "Other": "C",
    "Control": "Cc",
    "cntrl": "Cc",
    "Format": "Cf",
    "Surrogate": "Cs",
    "Private_Use": "Co",
    "Unassigned": "Cn",
}
_CATEGORY_SETS: dict[str, _Ranges] = {}


def _category_set(name: str) -> _Ranges:
    """The code points of a general category, by its ECMA-262 name.  Built by
    scanning all code points once per category, which is slow-ish but only
    happens when such a pattern is first compiled."""
    cached = _CATEGORY_SETS.get(name)
    if cached is not None:
        return cached
    short = _CATEGORY_NAMES.get(name, name)
    if short in _CATEGORY_GROUPS:
        wanted = frozenset(_CATEGORY_GROUPS[short].split())
    elif any(short in group.split() for group in _CATEGORY_GROUPS.values()):
        wanted = frozenset({short})
    else:
        raise re.error(f"unsupported Unicode property {name!r}")
    category = unicodedata.category
    inside = [category(char) in wanted for char in _code_points()]
    members = (code for code, member in enumerate(inside) if member)
    found = _merge((code, code) for code in members)
    _CATEGORY_SETS[name] = found
    return found


def _category_ranges(name: str, negated: bool) -> str:
    """Python character-class body for a general category (or its
    complement, for ``\\P`` inside a class)."""
    ranges = _category_set(name)
    if negated:
        ranges = _complement(ranges)
    return "".join(
        f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}"
        for low, high in ranges
    )


class _SchemaError(Exception):
    """A defect of the schema met during evaluation (unresolvable or looping
    reference, uncompilable pattern, non-schema value).  It aborts the whole
    validation, so the instance is rejected whatever applicator (even "not")
    the defect sits under."""

    def __init__(self, loc: _Loc | None, message: str, keyword: str) -> None:
        super().__init__(message)
        self.problem = Problem(_path(loc), f"schema error: {message}", keyword)


def _false_problem(loc: _Loc | None) -> Problem:
    return Problem(_path(loc), "no value is allowed here", "false")


# --------------------------------------------------------------------------
# Evaluation


class _Evaluator:
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
                scope = _Scope(new_base, scope)

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

    # -- references ---------------------------------------------------------

    def _node_uri(self, node: object) -> str | None:
        uri = self.index.node_uri.get(id(node))
        if uri is None and _META_INDEX:
            uri = _META_INDEX[0].node_uri.get(id(node))
        return uri

    def _resource(self, uri: str) -> object | None:
        if uri in self.index.resources:
            return self.index.resources[uri]
        if uri.startswith(_META_PREFIX):
            return _meta_index().resources.get(uri)
        return None

    def _lookup(self, uri: str) -> tuple[object, str] | None:
        """Resolve an absolute URI with optional fragment to (node, base)."""
        resource_uri, _, fragment = uri.partition("#")
        fragment = unquote(fragment)
        if fragment and not fragment.startswith("/"):
            node = self._resource(f"{resource_uri}#{fragment}")
            return None if node is None else (node, resource_uri)
        node = self._resource(resource_uri)
        if node is None:
            return None
        tokens = [_unescape(token) for token in fragment.split("/")[1:]]
        return _walk(node, resource_uri, tokens, self.index, apply_start_id=False)

    def _reference(
        self,
        inst: object,
        keyword: str,
        reference: str,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        uri = _resolve(base, reference)
        found = self._lookup(uri)
        if found is None:
            raise _SchemaError(loc, f"cannot resolve reference {reference!r}", keyword)
        target, target_base = found
        fragment = uri.partition("#")[2]
        if (
            keyword == "$dynamicRef"
            and isinstance(target, Mapping)
            and target.get("$dynamicAnchor") == fragment
        ):
            # The outermost resource in the dynamic scope that declares the
            # same dynamic anchor wins.
            for scope_uri in scope.outermost_first():
                anchors = self.index.dynamic.get(scope_uri)
                if anchors is None and scope_uri.startswith(_META_PREFIX):
                    anchors = _meta_index().dynamic.get(scope_uri)
                if anchors is not None and fragment in anchors:
                    target, target_base = anchors[fragment], scope_uri
                    break
        key = (id(target), id(inst))
        if key in self.active:
            raise _SchemaError(
                loc, f"{keyword} {reference!r} loops without consuming input", keyword
            )
        # Entering another resource extends the dynamic scope; a target that
        # is itself a resource root ("$id") is pushed by eval, so the resource
        # a pointer merely passes through is never entered.
        has_id = isinstance(target, Mapping) and isinstance(target.get("$id"), str)
        if target_base != scope.uri and not has_id:
            scope = _Scope(target_base, scope)
        self.active.add(key)
        try:
            return self.eval(inst, target, loc, target_base, scope, ann, ff)
        finally:
            self.active.discard(key)

    # -- assertions on any type ---------------------------------------------

    def _type(
        self, inst: object, kind: str, expected: object, loc: _Loc | None
    ) -> list[Problem]:
        if isinstance(expected, str):
            if _has_type(inst, kind, expected):
                return []
            wanted = expected
        elif isinstance(expected, (list, tuple)):
            if any(_has_type(inst, kind, name) for name in expected):
                return []
            names = [str(name) for name in expected]
            wanted = (
                " or ".join(names)
                if len(names) < 3
                else ", ".join(names[:-1]) + " or " + names[-1]
            )
        else:
            return []
        return [Problem(_path(loc), f"expected {wanted}, got {kind}", "type")]

    def _enum(self, inst: object, enum: object, loc: _Loc | None) -> list[Problem]:
        if not isinstance(enum, (list, tuple)):
            return []
        cached = self.index.enums.get(id(enum))
        if cached is None or cached[0] is not enum:
            cached = (enum, frozenset(_key(value) for value in enum))
            self.index.enums[id(enum)] = cached
        if _key(inst) in cached[1]:
            return []
        return [Problem(_path(loc), f"must be one of {_show(list(enum), 300)}", "enum")]

    # -- numbers and strings ------------------------------------------------

    def _number(
        self, inst: Any, schema: Mapping[str, Any], loc: _Loc | None
    ) -> list[Problem]:
        problems: list[Problem] = []
        divisor = schema.get("multipleOf")
        if (
            _is_number(divisor)
            and not isinstance(divisor, float)
            and _too_long(divisor)
        ):
            raise _SchemaError(loc, "multipleOf has too many digits", "multipleOf")
        if _is_number(divisor) and divisor > 0 and not _is_multiple(inst, divisor):
            message = f"must be a multiple of {_show(divisor)}"
            problems.append(Problem(_path(loc), message, "multipleOf"))
        for keyword, relation in (
            ("minimum", ">="),
            ("exclusiveMinimum", ">"),
            ("maximum", "<="),
            ("exclusiveMaximum", "<"),
        ):
            limit = schema.get(keyword)
            if not _is_number(limit):
                continue
            value, bound = _aligned(inst, limit)
            if relation == ">=":
                ok = value >= bound
            elif relation == ">":
                ok = value > bound
            elif relation == "<=":
                ok = value <= bound
            else:
                ok = value < bound
            if not ok:
                problems.append(
                    Problem(_path(loc), f"must be {relation} {_show(limit)}", keyword)
                )
        return problems

    def _string(
        self, inst: str, schema: Mapping[str, Any], loc: _Loc | None
    ) -> list[Problem]:
        problems: list[Problem] = []
        # len() counts code points, as JSON Schema requires.
        minimum = _as_count(schema.get("minLength"))
        if minimum is not None and len(inst) < minimum:
            message = f"must be at least {_plural(minimum, 'character')} long"
            problems.append(Problem(_path(loc), message, "minLength"))
        maximum = _as_count(schema.get("maxLength"))
        if maximum is not None and len(inst) > maximum:
            message = f"must be at most {_plural(maximum, 'character')} long"
            problems.append(Problem(_path(loc), message, "maxLength"))
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            compiled = _pattern(pattern)
            if compiled is None:
                raise _SchemaError(
                    loc, f"cannot compile pattern {pattern!r}", "pattern"
                )
            if not compiled.search(inst):
                message = f"must match pattern {pattern!r}"
                problems.append(Problem(_path(loc), message, "pattern"))
        format_name = schema.get("format")
        if format_name in ("date", "date-time"):
            declared = schema.get("type")
            if declared == "string" or (
                isinstance(declared, (list, tuple)) and "string" in declared
            ):
                if format_name == "date" and not _valid_date(inst):
                    message = "must be a valid date in the form YYYY-MM-DD (RFC 3339 full-date)"
                    problems.append(Problem(_path(loc), message, "format"))
                elif format_name == "date-time" and not _valid_date_time(inst):
                    message = (
                        "must be a valid RFC 3339 date-time with a time zone,"
                        " e.g. 2024-01-31T09:30:00Z or 2024-01-31T09:30:00+02:00"
                    )
                    problems.append(Problem(_path(loc), message, "format"))
        return problems

    # -- arrays -------------------------------------------------------------

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

    # -- objects ------------------------------------------------------------

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

    # -- in-place applicators -----------------------------------------------

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
            message = (
                f"must match exactly one of the {len(branches)} oneOf alternatives,"
                f" but matches alternatives {matches[0] + 1} and {matches[1] + 1}"
            )
            return [Problem(_path(loc), message, keyword)]
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
            messages.append(prefix + problem.message)
        if len(problems) > 3:
            messages.append(f"{len(problems) - 3} more")
        parts.append(f"({number + 1}) " + " and ".join(messages))
    message = (
        f"does not match any of the {len(failures)} {keyword} alternatives: "
        + "; ".join(parts)
    )
    return [Problem(here, message, keyword)]
