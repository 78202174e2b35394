"""Every reference of a finished (bundled, self-contained) document resolves, or it is a diagnostic at the `$ref`.

The runtime validator resolves `$ref`s through the `$id`s and anchors of its document and would reject every
instance that reaches one that does not resolve; so the compiler resolves each one now, with the validator's
own index and URI rules (so the two cannot differ), and refuses the schema instead.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any
from urllib.parse import unquote

from ..diagnostics import Diagnostics
from ..ir import JObject
from ..runtime.validation.index import (
    _bindings,
    _holders,
    _Index,
    _meta_index,
    _unescape,
    _walk,
)
from ..runtime.validation.limits import _MAX_BINDINGS
from ..runtime.validation.metaschema import _META_PREFIX
from ..runtime.validation.uris import _resolve
from .bundle import references


def check_refs(
    root: Any, diags: Diagnostics, reported: Collection[tuple[str, int, int]] = ()
) -> None:
    """Report each `$ref`/`$dynamicRef` of `root` that resolves to nothing (unless its span was reported)."""
    if not isinstance(root, JObject):
        return
    index: _Index | None = None
    already: set[tuple[str, int, int]] | None = None
    dynamic = False
    for node, keyword, ref, base in references(root):
        dynamic = dynamic or keyword == "$dynamicRef"
        if ref.startswith("entity:"):
            continue  # resolve.py embeds or reports these
        index = index or _Index(root)
        uri = _resolve(base, ref)
        if _resolves(index, uri):
            continue
        span = node.value_span(keyword)
        if (
            already is None
        ):  # only once something is unresolved: the spans reported so far
            already = {d.span.key for d in diags.sorted() if d.span} | set(reported)
        if span.key in already:
            continue
        fragment = unquote(uri.partition("#")[2])
        what = (
            f"no $anchor {fragment!r} is declared there"
            if fragment and not fragment.startswith("/")
            else "nothing in this document or the documents it refers to is there"
        )
        diags.error(
            "ref-unresolved", f"{keyword} {ref!r} resolves to {uri!r}: {what}", span
        )
    if dynamic:
        _check_bindings(index or _Index(root), diags)


def _check_bindings(index: _Index, diags: Diagnostics) -> None:
    """Refuse a document whose dynamic anchors can be bound in too many ways: the validator evaluates a
    schema once per way its `$dynamicRef`s may resolve, so their number multiplies validation time.
    """
    ways = _bindings(index)
    if ways <= _MAX_BINDINGS:
        return
    holders = _holders(index)
    anchor = max(
        sorted({a for anchors in index.dynamic.values() for a in anchors}),
        key=lambda a: len(holders[a]),
    )
    node = next(a[anchor] for a in index.dynamic.values() if anchor in a)
    if not isinstance(node, JObject):
        return
    message = (
        f"$dynamicAnchor {anchor!r} is one of the dynamic anchors more than one resource declares, which a"
        f" $dynamicRef may resolve to in {ways} combinations (at most {_MAX_BINDINGS}, so that validation"
        " stays polynomial): declare each in fewer resources"
    )
    diags.error("invalid-schema", message, node.value_span("$dynamicAnchor"))


def _resolves(index: _Index, uri: str) -> bool:
    resource, _, fragment = uri.partition("#")
    fragment = unquote(fragment)
    resources = index.resources
    if resource.startswith(_META_PREFIX) and resource not in resources:
        resources = _meta_index().resources
    if fragment and not fragment.startswith("/"):
        return f"{resource}#{fragment}" in resources
    node = resources.get(resource)
    if node is None:
        return False
    tokens = [_unescape(token) for token in fragment.split("/")[1:]]
    return _walk(node, resource, tokens, index, apply_start_id=False) is not None
