"""The index of a schema document: the subschema keywords, and the URIs,
anchors and dynamic anchors of its resources (cached by identity)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from urllib.parse import unquote

from .limits import _MAX_CACHED_SCHEMAS
from .metaschema import _META_SCHEMAS_JSON
from .uris import _resolve, _without_fragment

# Base URI of a root document without "$id"; only needs to be absolute.
_DEFAULT_BASE = "urn:x-codegen:schema"

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


class _Index:
    __slots__ = (
        "root",
        "root_base",
        "resources",
        "dynamic",
        "node_uri",
        "enums",
        "contested",
    )

    def __init__(self, root: object) -> None:
        self.root = root  # keeps id()-keyed entries below valid
        self.resources: dict[str, object] = {}  # "uri" and "uri#anchor" -> node
        self.dynamic: dict[str, dict[str, object]] = {}  # uri -> $dynamicAnchor -> node
        self.node_uri: dict[int, str] = {}  # id(node with $id) -> absolute URI
        self.enums: dict[int, tuple[object, frozenset[object]]] = {}
        self.contested: frozenset[str] | None = None  # see _contested
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
                # (mostly absent: None is told apart without an ABC's isinstance, a Python call)
                if children is not None and isinstance(children, Mapping):
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


def _holders(index: _Index) -> dict[str, set[str]]:
    """The resources (URIs) declaring each dynamic anchor: the document's and
    the embedded meta-schemas'."""
    holders: dict[str, set[str]] = {}
    for source in (index.dynamic, _meta_index().dynamic):
        for uri, anchors in source.items():
            for anchor in anchors:
                holders.setdefault(anchor, set()).add(uri)
    return holders


def _contested(index: _Index) -> frozenset[str]:
    """The dynamic anchors more than one resource declares: only these can
    make a ``$dynamicRef`` resolve elsewhere than its own target, so only they
    tell dynamic scopes apart."""
    if index.contested is None:
        holders = _holders(index)
        index.contested = frozenset(a for a, uris in holders.items() if len(uris) > 1)
    return index.contested


def _bindings(index: _Index) -> int:
    """How many ways the contested anchors the document declares can be bound
    (each to one of its resources, or to none yet): the factor by which
    ``$dynamicRef`` multiplies the evaluations of a validation, as remembered
    verdicts are keyed by the binding (``context._Scope.bound``).  The
    meta-schemas' own anchors add a constant factor."""
    holders = _holders(index)
    ways = 1
    for anchor in {a for anchors in index.dynamic.values() for a in anchors}:
        if len(holders[anchor]) > 1:
            ways *= len(holders[anchor]) + 1
    return ways


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
