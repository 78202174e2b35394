"""JSON Schema dialects: a document is read in the dialect its `$schema` names and lowered to draft 2020-12.

Draft-04, draft-06, draft-07 and 2019-09 mean some keywords differently from 2020-12. Every document is lowered,
node by node and only in schema positions (a property *named* `dependencies` is a name, and the data under
`default`, `enum`, `const`, `examples` or an unknown keyword is data), into the 2020-12 document that means the
same; the rest of the compiler only ever sees 2020-12. Nodes keep their spans, so later diagnostics point into
the source as it was written.

What is rewritten (README, "JSON Schema dialects"):
- draft-04 `id` -> `$id`; an `id`/`$id` with a plain-name fragment (`#foo`) -> `$anchor`;
- draft-04 boolean `exclusiveMaximum`/`exclusiveMinimum` -> the numeric form (and `maximum`/`minimum` dropped);
- array-form `items` -> `prefixItems`, and `additionalItems` beside it -> `items` (ignored beside a schema `items`);
- `dependencies` -> `dependentRequired` (array values) and `dependentSchemas` (schema values);
- before 2019-09, the keywords beside `$ref` are ignored, so they are dropped (`definitions`, `$defs` and
  annotations stay, so pointers into them still resolve);
- 2019-09 `$recursiveAnchor: true` -> `$dynamicAnchor`, `$recursiveRef` -> `$dynamicRef` to it (or a plain `$ref`
  where the resource has no recursive anchor, as 2019-09 then resolves it);
- keywords the dialect does not have (`const` in draft-04, `if` in draft-06, `prefixItems` in draft-07...) are
  ignored by that dialect, so they are dropped with a warning (an ignored subschema that a `$ref` pointer reaches
  into is kept as `x-ignored-<keyword>`, which 2020-12 ignores too);
- `$ref` pointers through a renamed keyword (`#/items/0`) follow it (`#/prefixItems/0`).

A document without `$schema` is 2020-12, unless it holds a form 2020-12 refuses (array `items`, a boolean
`exclusiveMinimum`, ...) and its keywords all belong to one earlier dialect: then it is read in that one, with a
warning (`guess_dialect`). One naming a dialect this compiler does not know is read as 2020-12 with
a warning. Old keywords in a 2020-12 document are refused with a hint, since reading them as 2020-12 would
silently ignore them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urljoin

from ...diagnostics import Diagnostics, Span
from ...ir import DELETE, JArray, JObject, from_plain


@dataclass(frozen=True)
class Dialect:
    name: str
    order: int  # older dialects are smaller
    # The keywords that mean something in this dialect (annotations too).
    vocabulary: frozenset[str]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ANNOTATIONS = _words("title description default $schema format")
_DRAFT4_KEYWORDS = _ANNOTATIONS | _words(
    """type enum properties patternProperties additionalProperties required items additionalItems maxItems
    minItems uniqueItems maxLength minLength pattern maximum minimum exclusiveMaximum exclusiveMinimum multipleOf
    maxProperties minProperties allOf anyOf oneOf not dependencies $ref id definitions"""
)
_DRAFT6_KEYWORDS = (_DRAFT4_KEYWORDS - {"id"}) | _words(
    "$id const contains propertyNames examples"
)
_DRAFT7_KEYWORDS = _DRAFT6_KEYWORDS | _words(
    "if then else $comment readOnly writeOnly contentMediaType contentEncoding"
)
_DRAFT2019_KEYWORDS = (_DRAFT7_KEYWORDS - {"dependencies", "definitions"}) | _words(
    """$anchor $defs $recursiveRef $recursiveAnchor $vocabulary deprecated dependentRequired dependentSchemas
    unevaluatedItems unevaluatedProperties minContains maxContains contentSchema"""
)
_DRAFT2020_KEYWORDS = (
    _DRAFT2019_KEYWORDS - {"$recursiveRef", "$recursiveAnchor"}
) | _words("prefixItems $dynamicRef $dynamicAnchor")

DRAFT4 = Dialect("draft-04", 4, _DRAFT4_KEYWORDS)
DRAFT6 = Dialect("draft-06", 6, _DRAFT6_KEYWORDS)
DRAFT7 = Dialect("draft-07", 7, _DRAFT7_KEYWORDS)
DRAFT2019 = Dialect("2019-09", 2019, _DRAFT2019_KEYWORDS)
DRAFT2020 = Dialect("2020-12", 2020, _DRAFT2020_KEYWORDS)

# `$schema` URIs, without the scheme and the empty fragment (http and https name the same dialect).
_BY_URI = {
    "json-schema.org/draft-04/schema": DRAFT4,
    "json-schema.org/draft-06/schema": DRAFT6,
    "json-schema.org/draft-07/schema": DRAFT7,
    "json-schema.org/draft/2019-09/schema": DRAFT2019,
    "json-schema.org/draft/2020-12/schema": DRAFT2020,
}
DIALECT_URIS = {
    DRAFT4: "http://json-schema.org/draft-04/schema#",
    DRAFT6: "http://json-schema.org/draft-06/schema#",
    DRAFT7: "http://json-schema.org/draft-07/schema#",
    DRAFT2019: "https://json-schema.org/draft/2019-09/schema",
    DRAFT2020: "https://json-schema.org/draft/2020-12/schema",
}

# Keywords that 2020-12 applies to an instance (or that change how references resolve): one of them in a
# document of a dialect without it would start meaning something it did not mean.
_INERT_2020 = _ANNOTATIONS | _words(
    """examples $comment readOnly writeOnly deprecated $defs $vocabulary contentMediaType contentEncoding
    contentSchema"""
)
_APPLIED_2020 = _DRAFT2020_KEYWORDS - _INERT_2020
# The shape 2020-12 gives an inert keyword: in a dialect without the keyword it is data, any value (a
# `deprecated` message in draft-07, a string under draft-07's `$defs`), dropped rather than read as ill-formed.
_INERT_SHAPES: dict[str, Callable[[Any], bool]] = {
    **dict.fromkeys(("deprecated", "readOnly", "writeOnly"), lambda v: type(v) is bool),
    **dict.fromkeys(
        ("$comment", "contentMediaType", "contentEncoding"),
        lambda v: isinstance(v, str),
    ),
    "examples": lambda v: isinstance(v, JArray),
    "$defs": lambda v: isinstance(v, JObject),
    "contentSchema": lambda v: isinstance(v, (JObject, bool)),
}
# Keywords that only annotate (no dialect asserts anything with them, and codegen reads them only for docstrings
# and exports), with the shape their meta-schemas give them. One of another shape (`"examples": "<string>"`, as
# a real configuration schema has) is dropped with a warning rather than refusing the document: the
# instances it accepts are the same either way.
_ANNOTATION_SHAPES: dict[str, Callable[[Any], bool]] = {
    **dict.fromkeys(("title", "description", "$comment"), lambda v: isinstance(v, str)),
    **dict.fromkeys(("deprecated", "readOnly", "writeOnly"), lambda v: type(v) is bool),
    "examples": lambda v: isinstance(v, JArray),
}
# Kept beside a `$ref` before 2019-09: they assert nothing and may be the target of a pointer.
_REF_COMPANIONS = _words("definitions $defs $schema $comment")

# Schema positions: a keyword whose value is a schema, a list of schemas, or a map of names to schemas.
_SCHEMA = _words(
    """additionalItems additionalProperties not contains propertyNames if then else unevaluatedItems
    unevaluatedProperties contentSchema items"""
)
_SCHEMA_LIST = _words("allOf anyOf oneOf prefixItems")
_SCHEMA_MAP = _words(
    "properties patternProperties definitions $defs dependentSchemas dependencies"
)
_POSITIONS = _SCHEMA | _SCHEMA_LIST | _SCHEMA_MAP

# The `$dynamicAnchor` a 2019-09 `$recursiveAnchor: true` becomes.
_RECURSIVE_ANCHOR = "recursiveAnchor"


def dialect_uri_key(uri: str) -> str:
    key = uri.strip()
    for scheme in ("https://", "http://"):
        if key.lower().startswith(scheme):
            key = key[len(scheme) :]
    return key.rstrip("#")


def dialect_of(doc: Any, diags: Diagnostics, default: Dialect = DRAFT2020) -> Dialect:
    """The dialect a document's `$schema` names; `default` without one, 2020-12 (with a warning) if unknown."""
    if not isinstance(doc, JObject):
        return default
    if "$schema" not in doc:
        return (guess_dialect(doc, diags) if default is DRAFT2020 else None) or default
    uri = doc["$schema"]
    if not isinstance(uri, str):
        return default  # the meta-schema check reports it
    dialect = _BY_URI.get(dialect_uri_key(uri))
    if (
        dialect is None
        and uri.lower().startswith(("http://", "https://"))
        and "json-schema.org/" not in uri.lower()
    ):
        # a meta-schema by URL: the bundler reads its `$vocabulary` where the ref-map maps it, and warns if not
        return DRAFT2020
    if dialect is None:
        known = ", ".join(
            DIALECT_URIS[d] for d in (DRAFT4, DRAFT6, DRAFT7, DRAFT2019, DRAFT2020)
        )
        diags.warning(
            "unknown-dialect",
            f"unknown JSON Schema dialect {uri!r}: read as draft 2020-12 (known dialects: {known})",
            doc.value_span("$schema"),
        )
        return DRAFT2020
    return dialect


# Forms draft 2020-12 refuses, each with the dialects that accept it, latest first: a document without `$schema`
# holding one was written in an earlier dialect. (Keywords 2020-12 merely does not know are no evidence: it
# ignores them, and so may their authors have.)
_OLD_FORMS: dict[str, tuple[Dialect, ...]] = {
    "a boolean 'exclusiveMaximum'": (DRAFT4,),
    "a boolean 'exclusiveMinimum'": (DRAFT4,),
    "'items' as an array": (DRAFT2019, DRAFT7, DRAFT6, DRAFT4),
    "'additionalItems'": (DRAFT2019, DRAFT7, DRAFT6, DRAFT4),
    "'dependencies'": (DRAFT7, DRAFT6, DRAFT4),
    "'$recursiveRef'": (DRAFT2019,),
    "an '$id' with a fragment": (DRAFT7, DRAFT6),
}
# Without a keyword only 2019-09 has, a document of the older forms is read as draft-07, by far the commoner.
_PREFERRED = (DRAFT7, DRAFT6, DRAFT4, DRAFT2019)


def guess_dialect(doc: JObject, diags: Diagnostics) -> Dialect | None:
    """The dialect a document without `$schema` was written in, when its keywords say so unambiguously: it holds a
    form 2020-12 refuses (`_OLD_FORMS`), and one dialect accepts all such forms and every keyword it uses (the
    latest such dialect, draft-07 before 2019-09). A warning names the form that decided. None: read as 2020-12.
    """
    found: dict[str, tuple[JObject, str]] = (
        {}
    )  # form -> (first node holding it, its keyword)
    used: set[str] = set()
    for node in schema_nodes(doc):
        used.update(node)
        for key, value in node.items():
            form = _old_form(key, value)
            if form is not None and form not in found:
                found[form] = (node, key)
    if not found:
        return None
    candidates = [
        dialect
        for dialect in _PREFERRED
        if all(dialect in _OLD_FORMS[form] for form in found)
        and not (used & _APPLIED_2020) - dialect.vocabulary
    ]
    if not candidates:
        return None  # forms of different dialects, or a newer keyword beside them: the 2020-12 check says which
    dialect = candidates[0]
    form, (node, key) = min(found.items(), key=lambda f: f[1][0].key_span(f[1][1]).key)
    diags.warning(
        "dialect-guessed",
        f"no '$schema': read as {dialect.name}, the dialect its keywords belong to ({form} is not draft"
        f" 2020-12); declare it with '$schema': {DIALECT_URIS[dialect]!r}",
        node.key_span(key),
    )
    return dialect


def _old_form(key: str, value: Any) -> str | None:
    """Which of `_OLD_FORMS` a keyword and its value are, if any."""
    if key in ("exclusiveMaximum", "exclusiveMinimum") and isinstance(value, bool):
        return f"a boolean {key!r}"
    if key == "items":
        return "'items' as an array" if isinstance(value, JArray) else None
    if key in ("additionalItems", "dependencies", "$recursiveRef"):
        return f"{key!r}"
    if key == "$id" and isinstance(value, str) and value.partition("#")[2]:
        return "an '$id' with a fragment"
    return None


def dialect_named(uri: str | None) -> Dialect:
    """The dialect a `$schema` URI names; 2020-12 for None or one it does not know."""
    return _BY_URI.get(dialect_uri_key(uri), DRAFT2020) if uri else DRAFT2020


def lower_document(doc: Any, diags: Diagnostics, default: Dialect = DRAFT2020) -> Any:
    """`doc` in draft 2020-12, meaning what it means in the dialect its `$schema` names (`default` without one);
    None when it is refused: old keywords in a 2020-12 document (reported, with a hint to declare the dialect),
    or a boolean schema in a draft-04 one.
    """
    meta_refs: dict[str, Span] = {}
    lowered = _lower(doc, diags, default, meta_refs)
    if lowered is None or not meta_refs:
        return lowered
    return _with_meta_schemas(lowered, meta_refs)


def _lower(
    doc: Any, diags: Diagnostics, default: Dialect, meta_refs: dict[str, Span]
) -> Any:
    """The lowered document (None if refused); `meta_refs` gets the meta-schema sets it references."""
    dialect = dialect_of(doc, diags, default)
    if dialect is DRAFT2020:
        return doc if check_2020_document(doc, diags, meta_refs) else None
    lowering = _Lowering(dialect, diags, meta_refs, doc)
    lowered = lowering.schema(doc, _Scope(doc, ""))
    if lowering.refused:
        return None
    # The lowered root keeps its `$schema`: documents it refers to that name no dialect are read in its dialect
    # (passes/bundle.py). It means nothing else any more; documents are emitted without it (resolve.py).
    return lowered


# The meta-schemas of the earlier dialects (2019-09's with its vocabularies), by the URI key of each document.
# Only 2020-12's travel with the runtime validator: a document that `$ref`s another is given it, lowered, in its
# `$defs`, where the reference finds it by its `$id`.
_2019_META = "json-schema.org/draft/2019-09/"
_META_SCHEMA_SETS = {
    "json-schema.org/draft-04/schema": ("http://json-schema.org/draft-04/schema",),
    "json-schema.org/draft-06/schema": ("http://json-schema.org/draft-06/schema",),
    "json-schema.org/draft-07/schema": ("http://json-schema.org/draft-07/schema",),
    _2019_META: tuple(
        f"https://{_2019_META}{name}"
        for name in (
            *("schema", "meta/core", "meta/applicator", "meta/validation"),
            *("meta/meta-data", "meta/format", "meta/content"),
        )
    ),
}


def _note_meta_ref(node: JObject, meta_refs: dict[str, Span]) -> None:
    """Record the meta-schema set a node's `$ref` names, if it names one."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or ref.startswith("#") or "json-schema.org/" not in ref:
        return
    key = dialect_uri_key(ref.partition("#")[0])
    found = _2019_META if key.startswith(_2019_META) else key
    if found in _META_SCHEMA_SETS:
        meta_refs.setdefault(found, node.value_span("$ref"))


def _with_meta_schemas(doc: Any, wanted: dict[str, Span]) -> Any:
    """`doc` with the earlier dialects' meta-schemas it references (`wanted`) embedded under `$defs`."""
    if not isinstance(doc, JObject):
        return doc
    # The meta-schemas as `jsonschema` (a dependency) ships them; imported only when one is referenced.
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    defs = doc.get("$defs")
    embedded = dict(defs) if isinstance(defs, JObject) else {}
    for key, span in wanted.items():
        for uri in _META_SCHEMA_SETS[key]:
            meta = from_plain(REGISTRY.contents(uri), span)
            lowered = _lower(meta, Diagnostics(), DRAFT2020, {})
            if isinstance(lowered, JObject) and "$schema" in lowered:
                # an embedded resource naming an old dialect would be read in it
                lowered = lowered.replace(**{"$schema": DELETE})
            embedded.setdefault(uri, lowered)
    span = defs.span if isinstance(defs, JObject) else doc.span
    return doc.replace(**{"$defs": JObject(embedded, span)})


# -- 2020-12 documents -------------------------------------------------------------------------------------

# Keywords of older drafts whose meaning 2020-12 changed; reading them as 2020-12 would silently change a schema.
_OLD_DRAFT_KEYWORDS = {
    "additionalItems": "use 'items' after 'prefixItems'",
    "dependencies": "use 'dependentRequired' or 'dependentSchemas'",
    "$recursiveRef": "use '$dynamicRef'",
}
_DECLARE = (
    "or declare the dialect the schema is written in with '$schema' (e.g. {uri!r})"
)


def check_2020_document(
    doc: Any, diags: Diagnostics, meta_refs: dict[str, Span] | None = None
) -> bool:
    """Refuse, with a diagnostic, keywords that mean something else in draft 2020-12 than where they came from:
    only in schema positions, so a property or definition with such a name is no keyword. Whether none was found.
    `meta_refs` gets the earlier dialects' meta-schemas the document references (the same walk finds them).
    """
    clean = True
    for node in schema_nodes(doc):
        if meta_refs is not None and "$ref" in node:
            _note_meta_ref(node, meta_refs)
        for key, value in node.items():
            if key in _OLD_DRAFT_KEYWORDS:
                hint = (
                    _OLD_DRAFT_KEYWORDS[key]
                    + ", "
                    + _DECLARE.format(uri=DIALECT_URIS[DRAFT7])
                )
                message = f"{key!r} is not a draft 2020-12 keyword: {hint}"
                diags.error("unsupported-keyword", message, node.key_span(key))
                clean = False
            elif key == "items" and isinstance(value, JArray):
                diags.error(
                    "unsupported-keyword",
                    "'items' as an array is the tuple form of older drafts: use 'prefixItems' in draft 2020-12, "
                    + _DECLARE.format(uri=DIALECT_URIS[DRAFT7]),
                    node.key_span(key),
                )
                clean = False
            elif key in ("exclusiveMaximum", "exclusiveMinimum") and isinstance(
                value, bool
            ):
                bound = "maximum" if key == "exclusiveMaximum" else "minimum"
                diags.error(
                    "unsupported-keyword",
                    f"a boolean {key!r} is draft-04's form: write the exclusive bound itself ({key!r}: <number>, "
                    f"in place of {bound!r}), "
                    + _DECLARE.format(uri=DIALECT_URIS[DRAFT4]),
                    node.value_span(key),
                )
                clean = False
            elif key == "id" and isinstance(value, str):
                diags.warning(
                    "dialect-keyword",
                    "'id' is draft-04's '$id' and means nothing in draft 2020-12: write '$id', "
                    + _DECLARE.format(uri=DIALECT_URIS[DRAFT4]),
                    node.key_span(key),
                )
    return clean


def schema_nodes(doc: Any) -> Iterator[JObject]:
    """Every schema object of a document: subschemas under schema keywords only (never data, never names)."""
    stack = [doc]
    while stack:
        node = stack.pop()
        if not isinstance(node, JObject):
            continue
        yield node
        for key, value in node.items():
            if key in _POSITIONS:
                stack.extend(_subschemas(key, value))


def _subschemas(key: str, value: Any) -> list[Any]:
    if key in _SCHEMA:
        return list(value) if key == "items" and isinstance(value, JArray) else [value]
    if key in _SCHEMA_LIST and isinstance(value, JArray):
        return list(value)
    if key in _SCHEMA_MAP and isinstance(value, JObject):
        return [v for v in value.values() if not isinstance(v, JArray)]
    return []


# -- lowering ----------------------------------------------------------------------------------------------


def _rebuild(
    node: JObject, keys: list[tuple[str, str]], values: dict[str, Any] | None = None
) -> JObject:
    """A node of (new key, old key) pairs, with the old key's spans; `values` replaces values by new key."""
    values = values or {}
    items, key_spans, value_spans = {}, {}, {}
    for new, old in keys:
        items[new] = values[new] if new in values else node[old]
        key_spans[new] = node.key_span(old)
        value_spans[new] = node.value_span(old)
    return JObject(items, node.span, key_spans, value_spans)


def _submap(source: JObject, names: list[str], lower: Callable[[Any], Any]) -> JObject:
    return JObject(
        {name: lower(source[name]) for name in names},
        source.span,
        {name: source.key_span(name) for name in names},
        {name: source.value_span(name) for name in names},
    )


@dataclass(frozen=True)
class _Scope:
    """The (source) schema resource a subschema is in, and that resource's base URI (relative to the
    document's, which is "")."""

    node: Any
    base: str


class _Lowering:
    """One document of `dialect` lowered to 2020-12 (`schema(root, _Scope(root, ""))`)."""

    def __init__(
        self,
        dialect: Dialect,
        diags: Diagnostics,
        meta_refs: dict[str, Span],
        root: Any,
    ) -> None:
        self.dialect = dialect
        self.diags = diags
        self.meta_refs = meta_refs
        self.root = root
        # Every token of a `#/...` pointer in the document (which ignored subschemas a pointer may reach).
        self.pointer_tokens = _pointer_tokens(root)
        # Base URI -> resource, found when a reference first needs them.
        self.resources: dict[str, JObject] | None = None
        self.refused = False

    def schema(self, node: Any, resource: _Scope) -> Any:
        """A subschema lowered; `resource` is the (source) schema resource it is in, for pointers."""
        if not isinstance(node, JObject):
            return node
        dialect = self.dialect
        if dialect is DRAFT4:
            self._no_boolean_schemas(node)
        unknown, beside = _ignored_keys(node, dialect)
        for key in unknown:
            self.diags.warning(
                "dialect-keyword",
                f"{key!r} is not a {dialect.name} keyword: ignored, as {dialect.name} ignores it",
                node.key_span(key),
            )
        for key in beside:
            self.diags.warning(
                "ref-sibling",
                f"{key!r} beside '$ref' is ignored in {dialect.name}",
                node.key_span(key),
            )
        ignored = unknown + beside + self._foreign_data(node)
        # An ignored subschema that a pointer may reach is parked under an inert name, so the pointer still finds
        # it (a pointer is plain JSON navigation, ignored keywords included); the rest are dropped.
        parked = {k for k in ignored if k in self.pointer_tokens and k in _POSITIONS}
        keys = [
            (_parked(old) if old in parked else old, old)
            for old in node
            if old not in ignored or old in parked
        ]
        values: dict[str, Any] = {}

        if dialect.order < 2019:
            keys = self._identifier(node, keys, values, ignored)
        if _is_resource(node, dialect):
            resource = _Scope(
                node, urljoin(resource.base, _identifier_base(node, dialect))
            )

        if dialect is DRAFT4:
            keys = self._exclusive_bounds(node, keys, values)

        items = node.get("items")
        if isinstance(items, JArray) and "items" not in ignored:
            renamed = []
            for new, old in keys:
                if old == "items":
                    renamed.append(("prefixItems", old))
                elif old == "additionalItems":
                    renamed.append(("items", old))
                else:
                    renamed.append((new, old))
            keys = renamed
            values["prefixItems"] = JArray(
                [self.schema(item, resource) for item in items],
                items.span,
                items.item_spans,
            )
        elif "additionalItems" in node:
            keys = [
                (k, old) for k, old in keys if old != "additionalItems"
            ]  # ignored without array `items`

        dependencies = node.get("dependencies")
        if (
            isinstance(dependencies, JObject)
            and "dependencies" in dialect.vocabulary
            and "dependencies" not in ignored
        ):
            keys = self._dependencies(node, keys, values, resource)

        if dialect is DRAFT2019:
            keys = self._recursive(node, keys, values, resource)

        ref = node.get("$ref")
        if ref is not None and "$ref" not in ignored:
            _note_meta_ref(node, self.meta_refs)
        if isinstance(ref, str) and "#/" in ref and "$ref" not in ignored:
            values["$ref"] = self._reference(ref, resource)

        for new, old in keys:
            if new in values:
                continue
            value = node[old]
            if (old in _SCHEMA_LIST or old == "items") and isinstance(value, JArray):
                values[new] = JArray(
                    [self.schema(v, resource) for v in value],
                    value.span,
                    value.item_spans,
                )
            elif (
                old in _SCHEMA_MAP
                and old != "dependencies"
                and isinstance(value, JObject)
            ):
                values[new] = _submap(
                    value,
                    self._schema_entries(old, value),
                    lambda v: self.schema(v, resource),
                )
            elif old in _SCHEMA:
                values[new] = self.schema(value, resource)
        return _rebuild(node, keys, values)

    def _reference(self, ref: str, scope: _Scope) -> str:
        """A `$ref` whose fragment is a JSON pointer, following the keywords the lowering renamed on its way
        through the resource it points into (left alone when that resource is not in this document).
        """
        uri, _, pointer = ref.partition("#")
        if not uri:
            return "#" + _translate(scope.node, pointer, self.dialect)
        if self.resources is None:
            self.resources = _resources(self.root, self.dialect)
        target = self.resources.get(urljoin(scope.base, uri))
        if target is None:
            return ref
        return uri + "#" + _translate(target, pointer, self.dialect)

    def _identifier(
        self,
        node: JObject,
        keys: list[tuple[str, str]],
        values: dict[str, Any],
        ignored: list[str],
    ) -> list[tuple[str, str]]:
        """Draft-04's `id` and draft-06/07's `$id`: the part before `#` is the `$id`, a plain-name fragment
        (`#foo`) an `$anchor` (2019-09 split the two)."""
        identifier = "id" if self.dialect is DRAFT4 else "$id"
        value = node.get(identifier)
        if not isinstance(value, str) or identifier in ignored:
            return keys
        base, _, fragment = value.partition("#")
        out: list[tuple[str, str]] = []
        for new, old in keys:
            if old != identifier:
                out.append((new, old))
                continue
            if base:
                out.append(("$id", old))
                values["$id"] = base
            if fragment and not fragment.startswith("/"):
                out.append(("$anchor", old))
                values["$anchor"] = fragment
        return out

    def _foreign_data(self, node: JObject) -> list[str]:
        """The later inert keywords of `node` its dialect does not have, holding what 2020-12 would refuse, and
        its annotations of another shape than the dialect gives them (both dropped with a warning).
        """
        name = self.dialect.name
        found: dict[str, tuple[str, str]] = {}
        for shapes, in_dialect, code, message in (
            (
                _INERT_SHAPES,
                False,
                "dialect-keyword",
                f"is not a {name} keyword: its value is data, ignored",
            ),
            (
                _ANNOTATION_SHAPES,
                True,
                "annotation-ignored",
                f"is an annotation of another shape than {name} gives it: ignored",
            ),
        ):
            for key, fits in shapes.items():
                if (
                    key in node
                    and key not in found
                    and (key in self.dialect.vocabulary) == in_dialect
                    and not fits(node[key])
                ):
                    found[key] = (code, message)
        for key, (code, message) in found.items():
            self.diags.warning(code, f"{key!r} {message}", node.key_span(key))
        return list(found)

    def _schema_entries(self, keyword: str, entries: JObject) -> list[str]:
        """The names of a map of schemas to lower: all, unless the dialect lacks the keyword (`$defs` before
        2019-09), where an entry no schema could be is data (a pointer still reaches the schemas beside it).
        """
        if keyword in self.dialect.vocabulary:
            return list(entries)
        return [n for n in entries if isinstance(entries[n], (JObject, bool))]

    def _no_boolean_schemas(self, node: JObject) -> None:
        """Draft-04 has no boolean schemas (`true` where a schema goes is not a draft-04 schema)."""
        for key, value in node.items():
            if key in _SCHEMA_LIST and isinstance(value, JArray):
                spots = [
                    value.item_span(i)
                    for i, v in enumerate(value)
                    if isinstance(v, bool)
                ]
            elif key in _SCHEMA_MAP and isinstance(value, JObject):
                spots = [
                    value.value_span(k) for k, v in value.items() if isinstance(v, bool)
                ]
            elif key in _SCHEMA and key not in (
                "additionalItems",
                "additionalProperties",
            ):
                spots = [node.value_span(key)] if isinstance(value, bool) else []
            else:
                continue  # `additionalItems`/`additionalProperties` take a boolean in draft-04
            for span in spots:
                self.diags.error(
                    "invalid-schema",
                    'draft-04 has no boolean schemas: write {} for true and {"not": {}} for false, '
                    "or declare a later dialect",
                    span,
                )
                self.refused = True

    def _exclusive_bounds(
        self, node: JObject, keys: list[tuple[str, str]], values: dict[str, Any]
    ) -> list[tuple[str, str]]:
        """Draft-04's boolean `exclusiveMaximum: true` makes `maximum` exclusive: 2020-12's numeric form."""
        for exclusive, bound in (
            ("exclusiveMaximum", "maximum"),
            ("exclusiveMinimum", "minimum"),
        ):
            flag = node.get(exclusive)
            if flag is None:
                continue
            if not isinstance(flag, bool):
                self.diags.error(
                    "invalid-schema",
                    f"in draft-04 {exclusive!r} is a boolean that makes {bound!r} exclusive: write "
                    f"{bound!r} with {exclusive!r}: true, or declare a later dialect for the numeric form",
                    node.value_span(exclusive),
                )
                self.refused = True
                continue
            if flag and bound in node:
                keys = [
                    (exclusive if old == bound else new, old)
                    for new, old in keys
                    if old != exclusive
                ]
                values[exclusive] = node[bound]
            else:
                keys = [(new, old) for new, old in keys if old != exclusive]
        return keys

    def _dependencies(
        self,
        node: JObject,
        keys: list[tuple[str, str]],
        values: dict[str, Any],
        resource: _Scope,
    ) -> list[tuple[str, str]]:
        """`dependencies` split by the kind of each value: names -> `dependentRequired`, schemas ->
        `dependentSchemas` (a malformed value goes with the schemas, where the meta-schema check reports it).
        """
        dependencies = node["dependencies"]
        required = [
            name for name, value in dependencies.items() if isinstance(value, JArray)
        ]
        schemas = [name for name in dependencies if name not in required]
        out: list[tuple[str, str]] = []
        for new, old in keys:
            if old != "dependencies":
                out.append((new, old))
                continue
            if required:
                out.append(("dependentRequired", old))
                values["dependentRequired"] = _submap(
                    dependencies, required, lambda v: v
                )
            if schemas:
                out.append(("dependentSchemas", old))
                values["dependentSchemas"] = _submap(
                    dependencies, schemas, lambda v: self.schema(v, resource)
                )
        return out

    def _recursive(
        self,
        node: JObject,
        keys: list[tuple[str, str]],
        values: dict[str, Any],
        resource: _Scope,
    ) -> list[tuple[str, str]]:
        """2019-09's `$recursiveAnchor`/`$recursiveRef`, as the 2020-12 dynamic anchor and reference. A recursive
        anchor counts only at a resource's root (`resource.node` is `node` there)."""
        out: list[tuple[str, str]] = []
        for new, old in keys:
            value = node[old]
            if old == "$recursiveAnchor" and isinstance(value, bool):
                if value and node is resource.node:
                    out.append(("$dynamicAnchor", old))
                    values["$dynamicAnchor"] = _RECURSIVE_ANCHOR
            elif old == "$recursiveRef":
                out += self._recursive_ref(node, old, values, resource)
            else:
                out.append(
                    (new, old)
                )  # (a malformed `$recursiveAnchor` too: the meta-schema check reports it)
        return out

    def _recursive_ref(
        self, node: JObject, key: str, values: dict[str, Any], resource: _Scope
    ) -> list[tuple[str, str]]:
        """`$recursiveRef: "#"` first resolves to its resource's root; only when that root is a recursive anchor
        does it go on to the outermost recursive anchor of the evaluation (a `$dynamicRef`).
        """
        if node[key] != "#" or "$ref" in node:
            self.diags.error(
                "unsupported-keyword",
                "'$recursiveRef' is supported as \"#\" and not beside '$ref' (2019-09 defines no other use)",
                node.key_span(key),
            )
            self.refused = True
            return []
        if resource.node.get("$recursiveAnchor") is True:
            values["$dynamicRef"] = "#" + _RECURSIVE_ANCHOR
            return [("$dynamicRef", key)]
        values["$ref"] = "#"
        return [("$ref", key)]


def _ignored_keys(node: JObject, dialect: Dialect) -> tuple[list[str], list[str]]:
    """The keywords of `node` its dialect ignores: those it does not have, and (before 2019-09) those beside
    `$ref`, apart from definitions and annotations."""
    unknown = [k for k in node if k in _APPLIED_2020 and k not in dialect.vocabulary]
    if dialect.order >= 2019 or "$ref" not in node:
        return unknown, []
    beside = [
        k
        for k in node
        if k != "$ref"
        and k not in unknown
        and k in dialect.vocabulary
        and k not in _REF_COMPANIONS
        and k not in _ANNOTATIONS
    ]
    return unknown, beside


def _parked(key: str) -> str:
    return f"x-ignored-{key}"


def _pointer_tokens(doc: Any) -> frozenset[str]:
    tokens: set[str] = set()
    for node in schema_nodes(doc):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            tokens.update(_unescape(token) for token in ref[2:].split("/"))
    return frozenset(tokens)


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def _identifier_base(node: JObject, dialect: Dialect) -> str:
    value = node.get("id" if dialect is DRAFT4 else "$id")
    return value.partition("#")[0] if isinstance(value, str) else ""


def _resources(doc: Any, dialect: Dialect) -> dict[str, JObject]:
    """Every schema resource of a document by its base URI (resolved as the lowering resolves it)."""
    found: dict[str, JObject] = {"": doc}
    stack = [(doc, "")]
    while stack:
        node, base = stack.pop()
        if not isinstance(node, JObject):
            continue
        if _is_resource(node, dialect):
            base = urljoin(base, _identifier_base(node, dialect))
            found.setdefault(base, node)
        for key, value in node.items():
            if key in _POSITIONS:
                stack.extend((child, base) for child in _subschemas(key, value))
    return found


def _is_resource(node: JObject, dialect: Dialect) -> bool:
    """Whether `node` starts a schema resource (an `$id` with more than a fragment), in whose scope its own
    `#` pointers resolve."""
    identifier = "id" if dialect is DRAFT4 else "$id"
    value = node.get(identifier)
    if dialect.order < 2019 and "$ref" in node:
        return False  # an `$id` beside `$ref` is ignored
    return isinstance(value, str) and bool(value.partition("#")[0])


def _translate(resource: JObject, pointer: str, dialect: Dialect) -> str:
    """A JSON pointer into the source resource, following the keywords the lowering renamed."""
    tokens = pointer.split("/")[1:]
    out: list[str] = []
    node: Any = resource  # any JSON value on the way
    index = 0
    while index < len(tokens):
        raw = tokens[index]
        token = _unescape(raw)
        if not isinstance(node, JObject):
            out.extend(tokens[index:])
            break
        value = node.get(token)
        new = raw
        unknown, beside = _ignored_keys(node, dialect)
        if token in _POSITIONS and (token in unknown or token in beside):
            # parked by the lowering, since this very pointer reaches into it
            new = _parked(token)
        elif token == "items" and isinstance(value, JArray):
            new = "prefixItems"
        elif token == "additionalItems" and isinstance(node.get("items"), JArray):
            new = "items"
        elif (
            token == "dependencies"
            and "dependencies" in dialect.vocabulary
            and isinstance(value, JObject)
            and index + 1 < len(tokens)
        ):
            name = _unescape(tokens[index + 1])
            new = (
                "dependentRequired"
                if isinstance(value.get(name), JArray)
                else "dependentSchemas"
            )
        out.append(new)
        index += 1
        container = (
            token in _SCHEMA_LIST
            or token in _SCHEMA_MAP
            or (token == "items" and isinstance(value, JArray))
        )
        if token in _SCHEMA and not container:
            node = value
        elif container and index < len(tokens):
            member = _unescape(tokens[index])
            out.append(tokens[index])
            index += 1
            if (
                isinstance(value, JArray)
                and member.isdigit()
                and int(member) < len(value)
            ):
                node = value[int(member)]
            elif isinstance(value, JObject):
                node = value.get(member)
            else:
                node = None
        else:
            out.extend(tokens[index:])
            break
    return "/" + "/".join(out) if tokens else ""


__all__ = [
    "DIALECT_URIS",
    "Dialect",
    "dialect_of",
    "lower_document",
    "check_2020_document",
]
