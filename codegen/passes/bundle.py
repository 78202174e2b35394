"""Bundling: every document a schema refers to by URI is embedded in it, so the schema is self-contained.

A `$ref` (or `$dynamicRef`) whose target lies outside its document names either another spec's entity by that
entity's `$id`, or a document behind an `http(s)` URL that the user mapped to a local folder (`remotes.py`).
Such a document is embedded as a draft 2020-12 schema resource: an entry of the root's `$defs` carrying its
canonical `$id` (its own `$id`, resolved against the URL it was read from, or that URL). A `$ref` by the URL a
document was read from is rewritten to that `$id` where the two differ. The generated model, the exported
schemas and the runtime validator then find every target inside the one document and never fetch anything.

It runs in two steps, both called by `resolve.py`'s document builder: `prepare` each spec schema before entities
are embedded (references made absolute, so they survive the move of an entity into another document's `$defs`
and the loss of its `$id`), then `bundle` the finished document (each referenced document embedded once). When
no embedded document holds an anchor or an inner `$id`, their `$id`s are dropped and every reference becomes a
plain `#/$defs/...` pointer: the field gets a static type, and LLM exports need no URI resolution.

A reference to an entity's `$id` from its document's own resource becomes a reference to the entity's spec file,
which `resolve.py` embeds as an entity (its model class); elsewhere (inside an embedded document) the entity's
schema is embedded as a plain resource. A document whose `$schema` is a mapped meta-schema is read through its
`$vocabulary`: without the validation vocabulary, validation keywords are annotations, so they are dropped.

Walks follow schema positions only (the subschema keywords of the runtime validator's index), so a property
named `$ref` or a `$ref` inside example data is never taken for a reference. Documents reached from each other
in a cycle are embedded once each; the number and size of documents read are bounded in `remotes.py`.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, unquote

from ..diagnostics import Diagnostics, Span
from ..ir import DELETE, JArray, JObject, SpecModule
from toolspec_runtime.validation.index import (
    _DEFAULT_BASE,
    SUBSCHEMA,
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    _Index,
)
from toolspec_runtime.validation.uris import _resolve, _without_fragment
from ..remotes import SPEC_PREFIX, SpecTree, _below_root
from .check_schemas import _valid
from .naming import Scope, pascal

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/"
REFERENCE_KEYWORDS = ("$ref", "$dynamicRef")
REMOTE_SCHEMES = ("http://", "https://")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_VOCAB = DRAFT_2020_12 + "vocab/"
# The 2020-12 vocabularies the compiler implements, with the keywords each one asserts or applies: a meta-schema
# may leave out any but `core` (its keywords then only annotate); the others only annotate anyway.
VOCABULARY_KEYWORDS = {
    _VOCAB + "core": frozenset(),
    _VOCAB
    + "applicator": frozenset(
        {
            "prefixItems",
            "items",
            "contains",
            "additionalProperties",
            "properties",
            "patternProperties",
            "dependentSchemas",
            "propertyNames",
            "if",
            "then",
            "else",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
        }
    ),
    _VOCAB + "unevaluated": frozenset({"unevaluatedItems", "unevaluatedProperties"}),
    _VOCAB
    + "validation": frozenset(
        {
            "type",
            "enum",
            "const",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "maxItems",
            "minItems",
            "uniqueItems",
            "maxContains",
            "minContains",
            "maxProperties",
            "minProperties",
            "required",
            "dependentRequired",
        }
    ),
    _VOCAB + "meta-data": frozenset(),
    _VOCAB + "format-annotation": frozenset(),
    _VOCAB + "content": frozenset(),
}
# 2019-09's vocabularies, in the keywords of the lowered (2020-12) documents: its applicator vocabulary also held
# the `unevaluated*` keywords, and its `format` vocabulary only annotated unless asked to assert.
_VOCAB_2019 = "https://json-schema.org/draft/2019-09/vocab/"
VOCABULARY_KEYWORDS.update(
    {
        _VOCAB_2019 + "core": frozenset(),
        _VOCAB_2019 + "applicator": VOCABULARY_KEYWORDS[_VOCAB + "applicator"]
        | VOCABULARY_KEYWORDS[_VOCAB + "unevaluated"],
        _VOCAB_2019 + "validation": VOCABULARY_KEYWORDS[_VOCAB + "validation"],
        _VOCAB_2019 + "meta-data": frozenset(),
        _VOCAB_2019 + "format": frozenset(),
        _VOCAB_2019 + "content": frozenset(),
    }
)


_REFERENCE, _ONE, _MAP, _LIST = range(4)
_KINDS = {
    **{keyword: _REFERENCE for keyword in REFERENCE_KEYWORDS},
    **{keyword: _ONE for keyword in SUBSCHEMA},
    **{keyword: _MAP for keyword in SUBSCHEMA_MAPS},
    **{keyword: _LIST for keyword in SUBSCHEMA_LISTS},
}
_LEAVES = frozenset({str, int, float, bool, type(None)})


class Fetched(Protocol):
    @property
    def schema(self) -> Any:  # the parsed document; None when it was reported as broken
        ...

    @property
    def problem(
        self,
    ) -> str | None:  # why there is no document, to report at the `$ref`
        ...


# (url, the `$schema` of the document referring to it) -> the document
Fetch = Callable[[str, "str | None"], Fetched]


def subschemas(node: JObject) -> Iterator[tuple[str, Any, Any]]:
    """(keyword, key or index or None, subschema) for every subschema directly inside a schema object."""
    for keyword in SUBSCHEMA:
        if keyword in node:
            yield keyword, None, node[keyword]
    for keyword in SUBSCHEMA_MAPS:
        children = node.get(keyword)
        if isinstance(children, JObject):
            yield from ((keyword, k, v) for k, v in children.items())
    for keyword in SUBSCHEMA_LISTS:
        children = node.get(keyword)
        if isinstance(children, JArray):
            yield from ((keyword, i, v) for i, v in enumerate(children))


def base_of(node: JObject, base: str) -> str:
    """The base URI inside `node`: its `$id` resolved against the enclosing base."""
    node_id = node.get("$id")
    return (
        _without_fragment(_resolve(base, node_id)) if isinstance(node_id, str) else base
    )


def references(
    schema: Any, base: str = _DEFAULT_BASE
) -> Iterator[tuple[JObject, str, str, str]]:
    """(object, keyword, reference, base URI) for every `$ref`/`$dynamicRef` in schema positions."""
    stack: list[tuple[Any, str]] = [(schema, base)]
    while stack:
        node, base = stack.pop()
        if not isinstance(node, JObject):
            continue
        base = base_of(node, base)
        for keyword in REFERENCE_KEYWORDS:
            if isinstance(node.get(keyword), str):
                yield node, keyword, node[keyword], base
        stack.extend((child, base) for *_, child in subschemas(node))


def rooted(schema: Any, file_uri: str | None) -> Any:
    """`schema` with a relative root `$id` resolved against the URI of the spec file that holds it, the
    document's retrieval URI (JSON Schema 2020-12 §8.2.1), so the references beside it (`base.json#/x`) name
    files of the specs tree, as they do under no `$id`; every later reader sees the absolute `$id`. A path from
    the root (`/schemas/a.json`) names no file of the tree (a `$ref` so written leads out of it): such `$id`s
    stay a namespace of their own, where the specs find each other by them.
    """
    node_id = schema.get("$id") if isinstance(schema, JObject) else None
    if (
        file_uri is None
        or not isinstance(node_id, str)
        or _SCHEME.match(node_id)
        or node_id.startswith("/")
    ):
        return schema
    return schema.replace(**{"$id": base_of(schema, file_uri)})


def tree_documents(modules: Iterable[SpecModule], fetch: Fetch, tree: SpecTree) -> None:
    """Read each file of the specs tree that the schemas of `modules` refer to by path, and those these refer
    to, as bundling will (`fetch` keeps what it read): which files are JSON Schema documents rather than tool
    files is then known before the namespace is built."""
    todo: list[tuple[Any, str, str, str | None]] = (
        []
    )  # (schema, its base, the file's URI, dialect)
    for module in modules:
        uri = tree.uri_of(module.source.path)
        for schema in _schemas_of(module) if uri is not None else ():
            found = schema.get("$schema") if isinstance(schema, JObject) else None
            dialect = found if isinstance(found, str) else None
            todo.append((rooted(schema, uri), _DEFAULT_BASE, uri or "", dialect))
    seen: set[str] = set()
    while todo:
        schema, start, file_uri, dialect = todo.pop()
        root_base = base_of(schema, start) if isinstance(schema, JObject) else start
        for _, _, ref, base in references(schema, start):
            if _SCHEME.match(ref) and not ref.startswith(SPEC_PREFIX):
                continue  # another scheme: not a file of the tree
            # the root resource of a spec file (its base the file's URI, or its `$id` resolved against it)
            from_root = base in (_DEFAULT_BASE, root_base) and start == _DEFAULT_BASE
            base = file_uri if base == _DEFAULT_BASE else base
            if base.startswith(SPEC_PREFIX) and _climbs(base, ref):
                continue
            if not base.startswith((SPEC_PREFIX, "http://", "https://")):
                continue
            resource = _without_fragment(_resolve(base, ref))
            if from_root and resource.endswith(".schema.json"):
                continue  # an entity, which resolve.py embeds
            # a URL too: the ref-map may map it onto a file of the tree (a root `$id` URL), read as a document then
            if resource not in seen:
                seen.add(resource)
                document = fetch(resource, dialect).schema
                if document is not None:
                    todo.append((document, resource, resource, dialect))


def _schemas_of(module: SpecModule) -> Iterator[Any]:
    for entity in module.entities:
        yield entity.schema
    for tool in module.tools:
        yield from (tool.input_schema, tool.output_schema, tool.config_schema)


@dataclass
class Bundler:
    """Embeds referenced documents; one per compile, so each remote document is read and checked once."""

    fetch: Fetch
    diags: Diagnostics
    # absolute `$id` -> (entity schema, its spec file or None)
    entity_ids: dict[str, tuple[Any, str | None]]
    # resolved posix paths of entity spec files (also those reported as broken)
    spec_files: Collection[str]
    # the spec files by URI, for references to other files of the tree by relative path (None: refused)
    tree: SpecTree | None = None
    # spans of the `$ref`s reported here
    reported: set[tuple[str, int, int]] = field(default_factory=set)
    _valid_remote: dict[tuple[str, str | None], bool] = field(default_factory=dict)
    # id(schema) -> (schema, prepared, whether it refers by absolute URI)
    _done: dict[int, tuple[Any, Any, bool]] = field(default_factory=dict)
    _external: bool = (
        False  # a part prepared since the last `bundle` refers by absolute URI
    )
    # the `$schema` of the first schema prepared since the last `bundle` (the document's root), whose dialect
    # documents it refers to are read in when they name none
    _dialect: str | None = None
    _fresh: bool = True

    def prepare(self, schema: Any, module: SpecModule) -> Any:
        """A spec's schema before resolve.py embeds entities: its `$schema` vocabularies applied, references to
        an entity's `$id` made references to its spec file, and references to other documents made absolute
        (they would not survive its move into another document's `$defs` otherwise)."""
        if self._fresh:
            self._fresh = False
            found = schema.get("$schema") if isinstance(schema, JObject) else None
            self._dialect = found if isinstance(found, str) else None
        if not isinstance(schema, JObject):
            return schema
        done = self._done.get(id(schema))
        if done is not None and done[0] is schema:
            self._external = self._external or done[2]
            return done[1]
        file_uri = self.tree.uri_of(module.source.path) if self.tree else None
        run = _Run(self, module, rooted(schema, file_uri), embed=False)
        prepared, external = self._run(run), run.external
        self._done[id(schema)] = (schema, prepared, external)
        self._external = self._external or external
        return prepared

    def bundle(self, schema: Any, module: SpecModule) -> Any:
        """A finished document (whose parts were prepared since the last call) with every document it refers
        to embedded once in its root `$defs`."""
        external, self._external = self._external, False
        self._fresh = True
        if not external or not isinstance(schema, JObject):
            return schema
        return self._run(_Run(self, module, schema, embed=True))

    def handles(self, ref: str) -> bool:
        """Whether `ref` is an absolute URI (embedded here, or reported)."""
        return bool(_SCHEME.match(ref)) and not ref.startswith("entity:")

    @staticmethod
    def _run(run: _Run) -> Any:
        try:
            return run.result()
        except (
            RecursionError
        ):  # deeper than any reader allows: check_refs reports the rest
            return run.root

    def report(self, message: str, span: Span, code: str = "ref-unresolved") -> None:
        self.reported.add(span.key)
        self.diags.error(code, message, span)

    def remote(self, url: str, span: Span) -> Any:
        """The mapped document at `url` (meta-schema checked once), or None after a diagnostic."""
        fetched = self.fetch(url, self._dialect)
        if fetched.problem is not None and url.startswith(SPEC_PREFIX):
            self.report(f"$ref to {_below_root(url)!r}: {fetched.problem}", span)
            return None
        if fetched.problem is not None:
            self.report(f"$ref to {url!r}: {fetched.problem}", span, "ref-remote")
            return None
        if fetched.schema is None:
            self.reported.add(span.key)  # the document's own text was reported
            return None
        key = (url, self._dialect)
        if key not in self._valid_remote:
            schema = fetched.schema
            fallback = schema.span if isinstance(schema, (JObject, JArray)) else span
            self._valid_remote[key] = _valid(schema, fallback, self.diags)
        if not self._valid_remote[key]:
            self.reported.add(span.key)
            return None
        return fetched.schema


class _Run:
    """Bundling one schema document."""

    def __init__(
        self, bundler: Bundler, module: SpecModule, root: JObject, embed: bool
    ) -> None:
        self.bundler = bundler
        self.embed = embed
        # whether a reference by absolute URI is left, which only embedding can resolve
        self.external = False
        self.module = module
        self.root = root
        self.root_base = base_of(root, _DEFAULT_BASE)
        self._known: set[str] | None = None
        # URL read or canonical `$id` -> canonical `$id`
        self.embedded: dict[str, str] = {}
        # canonical `$id` -> the document, bundled
        self.bodies: dict[str, Any] = {}
        self.pending: list[tuple[str, Any]] = []
        defs = root.get("$defs")
        self.scope = Scope(set(defs) if isinstance(defs, JObject) else set())

    @property
    def known(self) -> set[str]:
        """The URIs and anchors the document holds (with those embedded so far); indexed when first needed."""
        if self._known is None:
            self._known = set(_Index(self.root).resources)
        return self._known

    def result(self) -> Any:
        root = self.root if self.embed else self._vocabulary(self.root)
        root = self._rewrite(root, _DEFAULT_BASE, in_root=True)
        while self.pending:
            canonical, body = self.pending.pop(0)
            self.bodies[canonical] = self._rewrite(body, _DEFAULT_BASE, in_root=False)
        if not self.bodies or not isinstance(root, JObject):
            return root
        defs = root.get("$defs")
        items = dict(defs) if isinstance(defs, JObject) else {}
        keys = {canonical: self._key(canonical) for canonical in self.bodies}
        for canonical, body in self.bodies.items():
            items[keys[canonical]] = body
        span = defs.span if isinstance(defs, JObject) else root.span
        root = root.replace(**{"$defs": JObject(items, span)})
        return _as_pointers(root, keys) if _flat(root, self.bodies.values()) else root

    def _key(self, canonical: str) -> str:
        stem = canonical.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        stem = unquote(stem).rsplit(".", 1)[0] if stem.endswith(_SUFFIXES) else stem
        return self.scope.claim(pascal(stem) or "Remote", "RemoteDocument")

    def _rewrite(self, node: Any, base: str, in_root: bool) -> Any:
        """`node` with references to other documents rewritten (and those documents queued for embedding)."""
        if type(node) is not JObject:
            return node
        if isinstance(node.get("$id"), str):
            base = base_of(node, base)
            in_root = in_root and base == self.root_base
        changes: dict[str, Any] = {}
        # One pass over the object's own keys (most have a few), not over every subschema keyword.
        for key, value in node.items():
            kind = _KINDS.get(key)
            if kind is None or type(value) in _LEAVES and kind != _REFERENCE:
                continue
            if kind == _REFERENCE:
                if type(value) is str:
                    new = self._target(value, base, node.value_span(key), in_root)
                    if new is not None and new != value:
                        changes[key] = new
                    self.external = self.external or bool(_SCHEME.match(new or value))
            elif kind == _ONE:
                new = self._rewrite(value, base, in_root)
                if new is not value:
                    changes[key] = new
            elif kind == _MAP and type(value) is JObject:
                items = {k: self._rewrite(v, base, in_root) for k, v in value.items()}
                if any(items[k] is not v for k, v in value.items()):
                    changes[key] = value.replace(**items)
            elif kind == _LIST and type(value) is JArray:
                listed = [self._rewrite(v, base, in_root) for v in value]
                if any(a is not b for a, b in zip(listed, value)):
                    changes[key] = JArray(listed, value.span, value.item_spans)
        return node.replace(**changes) if changes else node

    def _target(self, ref: str, base: str, span: Span, in_root: bool) -> str | None:
        """The reference to write instead of `ref`, or None to leave it (local, an entity, or reported)."""
        if ref.startswith("entity:"):
            return None
        relative = not _SCHEME.match(ref)
        in_tree = base.startswith(SPEC_PREFIX)
        if in_root and relative and self._spec_file(ref):
            return (
                None  # another spec's entity by its file's path: resolve.py embeds it
            )
        if relative and not in_tree and (base == _DEFAULT_BASE or self._spec_file(ref)):
            if (
                base != _DEFAULT_BASE
                or not self._other_file(ref)
                or self._spec_file(ref)
            ):
                return None  # a pointer, anchor or spec file path in an unnamed document: resolve.py's
            # a document of the specs tree, named by its path from the spec file
            tree = self.bundler.tree
            file_uri = tree.uri_of(self.module.source.path) if tree else None
            if file_uri is None:
                return (
                    None  # no tree (a half or an edit rebuild): resolve.py reports it
                )
            base, in_tree = file_uri, True
        if relative and in_tree and _climbs(base, ref):
            self.bundler.report(
                f"$ref {ref!r} leads out of the specs tree: a spec refers only to files below the folder "
                "it was found under",
                span,
            )
            return None
        uri = _resolve(base, ref)
        resource, hash_, fragment = uri.partition("#")
        if (
            resource in self.known
            or uri in self.known
            or resource.startswith(
                DRAFT_2020_12
            )  # the meta-schemas travel with the runtime validator
        ):
            # check_refs.py checks the pointer or anchor. resolve.py moves a spec's root under `$defs` and drops
            # its `$id` when it embeds it as an entity: a reference inside another resource is made absolute, so
            # it is not moved along, and one to the root by its `$id` becomes a fragment, so it is.
            if not in_root:
                return uri
            if resource == self.root_base and _SCHEME.match(ref):
                return hash_ + fragment if hash_ else "#"
            return None
        if resource in self.embedded:
            return self.embedded[resource] + hash_ + fragment
        entity = self.bundler.entity_ids.get(resource)
        if entity is not None and entity[1] is not None and in_root and not self.embed:
            folder = self.module.source.path.resolve().parent
            path = Path(os.path.relpath(entity[1], folder)).as_posix()
            return quote(path) + hash_ + fragment
        if not self.embed:
            return uri
        body = entity[0] if entity is not None else self._remote(resource, span)
        if body is None:
            return None
        canonical = self._embed(resource, body)
        return canonical + hash_ + fragment

    def _other_file(self, ref: str) -> bool:
        """Whether a relative reference names another file (not only a pointer or anchor)."""
        return bool(ref.partition("#")[0])

    def _spec_file(self, ref: str) -> bool:
        """Whether a relative reference names a spec file by its path (resolve.py embeds its entity)."""
        file_part = ref.partition("#")[0]
        if not file_part.endswith(".json"):
            return False
        folder = self.module.source.path.resolve().parent.as_posix()
        path = posixpath.normpath(posixpath.join(folder, unquote(file_part)))
        return path in self.bundler.spec_files

    def _remote(self, resource: str, span: Span) -> Any:
        if resource.lower().startswith(REMOTE_SCHEMES) or resource.startswith(
            SPEC_PREFIX
        ):
            return self.bundler.remote(resource, span)
        self.bundler.report(
            f"$ref to {resource!r}: no spec and no mapped document has this URI "
            "(spec entities are found by their `$id`, remote documents through the ref-map)",
            span,
        )
        return None

    def _embed(self, url: str, body: Any) -> str:
        """Queue `body`, read from `url`, as a resource of the root; its canonical `$id`."""
        if not isinstance(body, JObject):  # a boolean document cannot carry `$id`
            body = JObject({"allOf": JArray([body], self.root.span)}, self.root.span)
        canonical = base_of(body, url)
        self.embedded[url] = self.embedded[canonical] = canonical
        if canonical in self.bodies or any(c == canonical for c, _ in self.pending):
            return canonical
        changes: dict[str, Any] = {"$id": canonical}
        if str(body.get("$schema", "")).startswith(DRAFT_2020_12):
            changes["$schema"] = DELETE
        body = body.replace(**changes)
        self.known.update(_Index(body).resources)
        self.pending.append((canonical, body))
        return canonical

    def _vocabulary(self, root: JObject) -> JObject:
        """A root whose `$schema` is a mapped meta-schema: its `$vocabulary` decides what the keywords mean."""
        meta = root.get("$schema")
        if not isinstance(meta, str) or not meta.lower().startswith(REMOTE_SCHEMES):
            return root
        if _without_fragment(meta).split("://", 1)[1].startswith("json-schema.org/"):
            return root  # the standard dialects
        span = root.value_span("$schema")
        if self.bundler.fetch(_without_fragment(meta), None).problem is not None:
            self.bundler.diags.warning(
                "unknown-dialect",
                f"$schema {meta!r} names no dialect codegen knows, and no local meta-schema is mapped for it: "
                "the schema is read as draft 2020-12 (map the meta-schema's URL prefix to a folder with "
                "--ref-map or [tool.codegen] ref-map to have its $vocabulary read)",
                span,
            )
            return root.replace(**{"$schema": DELETE})
        document = self.bundler.remote(_without_fragment(meta), span)
        if not isinstance(document, JObject):
            return root
        vocabularies = document.get("$vocabulary")
        if not isinstance(
            vocabularies, JObject
        ):  # no vocabularies of its own: 2020-12's
            return root.replace(**{"$schema": DELETE})
        unknown = sorted(
            v
            for v, required in vocabularies.items()
            if required is True and v not in VOCABULARY_KEYWORDS
        )
        if unknown or not {_VOCAB + "core", _VOCAB_2019 + "core"} & set(vocabularies):
            what = (
                f"requires vocabularies codegen does not know: {', '.join(unknown)}"
                if unknown
                else "leaves out the core vocabulary"
            )
            self.bundler.report(
                f"the meta-schema {meta!r} {what}", span, "unsupported-keyword"
            )
            return root
        # (a keyword is inert when no vocabulary the meta-schema lists has it: 2019-09 and 2020-12 share names)
        inert = frozenset(
            keyword
            for vocabulary, keywords in VOCABULARY_KEYWORDS.items()
            if vocabulary not in vocabularies
            for keyword in keywords
        ) - {
            keyword
            for vocabulary in vocabularies
            for keyword in VOCABULARY_KEYWORDS.get(vocabulary, ())
        }
        root = root.replace(**{"$schema": DELETE})
        return _without_keywords(root, inert) if inert else root


_SUFFIXES = (".json", ".yaml", ".yml")


def _climbs(base: str, ref: str) -> bool:
    """Whether the path of a relative reference, from the spec file `base` names, climbs above the root of
    the specs tree (URI resolution would stop it at the root, so it would name another file silently); a path
    from the root (`/x.json`) climbs out too, as it names a file from the file system's root.
    """
    path = ref.partition("#")[0].partition("?")[0]
    if path.startswith("/"):
        return True
    folders = base[len(SPEC_PREFIX) :].split("/")[
        1:-1
    ]  # below the root number, without the file name
    depth = len(folders)
    for segment in path.split("/")[:-1]:
        if unquote(segment) == "..":
            depth -= 1
            if depth < 0:
                return True
        elif unquote(segment) not in ("", "."):
            depth += 1
    return False


def _flat(root: JObject, bodies: Collection[Any]) -> bool:
    """Whether the embedded documents can lose their `$id`s: no other resource and no anchor anywhere, so
    every reference is a document and a pointer, and the pointer can start at the root instead.
    """
    roots = {id(body) for body in bodies} | {id(root)}
    for node in _schema_positions(root):
        if "$id" in node and id(node) not in roots:
            return False
        if "$anchor" in node or "$dynamicAnchor" in node or "$dynamicRef" in node:
            return False
    return True


def _as_pointers(root: JObject, keys: dict[str, str]) -> Any:
    """`root` with each embedded document's `$id` dropped and every reference into one (or to the root by
    its `$id`) a JSON pointer from the root: the field gets a static type, and any consumer of the schema
    (an LLM API's schema subset included) follows plain `#/$defs/...` pointers."""
    root_base = base_of(root, _DEFAULT_BASE)

    def visit(node: Any, base: str, top: bool) -> Any:
        if type(node) is not JObject:
            return node
        base = base_of(node, base)
        changes: dict[str, Any] = {}
        if not top and base in keys and "$id" in node:
            changes["$id"] = DELETE
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("entity:"):
            resource, _, fragment = _resolve(base, ref).partition("#")
            if resource in keys:
                changes["$ref"] = f"#/$defs/{_escape(keys[resource])}{fragment}"
            elif resource == root_base:
                changes["$ref"] = "#" + fragment
        for key, value in node.items():
            kind = _KINDS.get(key)
            if kind == _ONE:
                new = visit(value, base, False)
                if new is not value:
                    changes[key] = new
            elif kind == _MAP and type(value) is JObject:
                items = {k: visit(v, base, False) for k, v in value.items()}
                if any(items[k] is not v for k, v in value.items()):
                    changes[key] = value.replace(**items)
            elif kind == _LIST and type(value) is JArray:
                listed = [visit(v, base, False) for v in value]
                if any(a is not b for a, b in zip(listed, value)):
                    changes[key] = JArray(listed, value.span, value.item_spans)
        return node.replace(**changes) if changes else node

    return visit(root, _DEFAULT_BASE, True)


def _schema_positions(schema: Any) -> Iterator[JObject]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, JObject):
            yield node
            stack.extend(child for *_, child in subschemas(node))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _without_keywords(node: Any, keywords: frozenset[str]) -> Any:
    """`node` with `keywords` removed from every schema object (schema positions only)."""
    if not isinstance(node, JObject):
        return node
    changes: dict[str, Any] = {k: DELETE for k in keywords if k in node}
    for keyword in SUBSCHEMA:
        if keyword in node and keyword not in keywords:
            changes[keyword] = _without_keywords(node[keyword], keywords)
    for keyword in SUBSCHEMA_MAPS:
        children = node.get(keyword)
        if isinstance(children, JObject) and keyword not in keywords:
            changes[keyword] = children.replace(
                **{k: _without_keywords(v, keywords) for k, v in children.items()}
            )
    for keyword in SUBSCHEMA_LISTS:
        children = node.get(keyword)
        if isinstance(children, JArray) and keyword not in keywords:
            changes[keyword] = JArray(
                [_without_keywords(v, keywords) for v in children],
                children.span,
                children.item_spans,
            )
    return node.replace(**changes)


def bundler_for(
    program: Any, fetch: Fetch, diags: Diagnostics, tree: SpecTree | None = None
) -> Bundler:
    """The bundler of a compile: `program` is resolve.py's namespace, `fetch` reads mapped documents and
    those of the specs `tree`."""
    files = {*program.entity_files, *program.reported_files}
    return Bundler(fetch, diags, entity_ids(program.entities, tree), files, tree)


def entity_ids(
    entities: dict[str, tuple[Any, SpecModule]], tree: SpecTree | None = None
) -> dict[str, tuple[Any, str | None]]:
    """The absolute `$id` of each entity's root schema -> (its schema, its `.schema.json` file or None); a
    relative one resolved against its spec file's URI in the specs `tree`, as `Bundler.prepare` reads it.
    """
    found: dict[str, tuple[Any, str | None]] = {}
    for entity, module in entities.values():
        schema = entity.schema
        if tree is not None:
            schema = rooted(schema, tree.uri_of(module.source.path))
        if isinstance(schema, JObject) and isinstance(schema.get("$id"), str):
            path = module.source.path
            file = (
                path.resolve().as_posix()
                if path.name.endswith(".schema.json")
                else None
            )
            found.setdefault(base_of(schema, _DEFAULT_BASE), (schema, file))
    return found
