"""Every reference of a finished (bundled, self-contained) document resolves, or it is a diagnostic at the `$ref`.

The runtime validator resolves `$ref`s through the `$id`s and anchors of its document and would reject every
instance that reaches one that does not resolve; so the compiler resolves each one now, with the validator's
own index and URI rules (so the two cannot differ), and refuses the schema instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any
from urllib.parse import unquote

from ..diagnostics import Diagnostics
from ..ir import JArray, JObject
from toolspec_runtime.validation.index import (
    _bindings,
    _holders,
    _Index,
    _meta_index,
    _unescape,
    _walk,
)
from toolspec_runtime.validation.limits import _MAX_BINDINGS, _MAX_IN_PLACE
from toolspec_runtime.validation.metaschema import _META_PREFIX
from toolspec_runtime.validation.uris import _resolve
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
    return _target(index, uri) is not None


def _target(index: _Index, uri: str) -> object | None:
    """The schema `uri` names, found as the validator finds it, or None."""
    resource, _, fragment = uri.partition("#")
    fragment = unquote(fragment)
    resources = index.resources
    if resource.startswith(_META_PREFIX) and resource not in resources:
        resources = _meta_index().resources
    if fragment and not fragment.startswith("/"):
        return resources.get(f"{resource}#{fragment}")
    node = resources.get(resource)
    if node is None:
        return None
    tokens = [_unescape(token) for token in fragment.split("/")[1:]]
    found = _walk(node, resource, tokens, index, apply_start_id=False)
    return None if found is None else found[0]


_IN_PLACE = ("not", "if", "then", "else")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")


def check_chains(root: Any, diags: Diagnostics) -> None:
    """Refuse a document holding a chain of more than `_MAX_IN_PLACE` schemas applied to the same value
    (`$ref`s, `allOf`, `anyOf`, ... one inside the next), at the `$ref` that starts the longest one.

    The validator follows such a chain by recursion, a few frames a step, and consumes no level of the instance
    doing so (the instance's depth, bounded, does not bound it): past a few hundred steps every instance would
    fail as "too deeply nested". The runtime validates chains up to the same limit (tests/test_deep_chains.py).
    """
    if not isinstance(root, JObject) or _no_long_chain(root):
        return
    index = _Index(root)
    targets: dict[int, object] = {}  # id(object holding a $ref) -> the schema it names
    holders: list[JObject] = []
    for node, keyword, ref, base in references(root):
        target = _target(index, _resolve(base, ref))
        if isinstance(target, JObject) and id(node) not in targets:
            targets[id(node)] = target
            holders.append(node)
    if not holders:
        return
    longest = _longest_chains(holders, targets)
    head = min(holders, key=lambda n: (-longest[id(n)], n.value_span("$ref").key))
    steps = longest[id(head)]
    if steps <= _MAX_IN_PLACE:
        return
    message = (
        f"this $ref starts a chain of {steps} schemas applied to the same value ($ref, allOf, anyOf, oneOf,"
        f" not, if/then/else, dependentSchemas, each inside the next), more than the validator follows (at"
        f" most {_MAX_IN_PLACE}): every value would fail to validate; shorten the chain"
    )
    keyword = "$ref" if "$ref" in head else "$dynamicRef"
    diags.error("ref-chain-too-long", message, head.value_span(keyword))


# Keys that make a reference lead elsewhere than the pointer it holds says, within the document.
_SCOPE_KEYWORDS = frozenset(
    {
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$dynamicRef",
        "$recursiveAnchor",
        "$recursiveRef",
    }
)


def _no_long_chain(root: JObject) -> bool:
    """Whether `root` is too small for a chain longer than `_MAX_IN_PLACE`, told without resolving anything:
    each step of a chain goes to a schema object not on it yet, so a document of at most that many objects
    whose every reference is a fragment of its own (`#...`, nothing that moves its base or resolves
    dynamically) has none. Most tools' documents are such, and indexing and resolving them was a third of
    resolving a tool's schema. Objects under data keywords are counted too: a bound, not an answer.
    """
    count = 0
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, JObject):
            count += 1
            if count > _MAX_IN_PLACE:
                return False
            for key, value in node.items():
                if key in _SCOPE_KEYWORDS or (
                    key == "$ref" and not (isinstance(value, str) and value[:1] == "#")
                ):
                    return False
                if isinstance(value, (JObject, JArray)):
                    stack.append(value)
        else:  # a JArray
            stack.extend(v for v in node if isinstance(v, (JObject, JArray)))
    return True


def _in_place(node: JObject, targets: dict[int, object]) -> Iterator[JObject]:
    """The schemas applied to the same value as `node`: its reference's target and in-place applicators."""
    target = targets.get(id(node))
    if isinstance(target, JObject):
        yield target
    for key in _IN_PLACE:
        if isinstance(node.get(key), JObject):
            yield node[key]
    for key in _IN_PLACE_LISTS:
        branches = node.get(key)
        if isinstance(branches, JArray):
            yield from (b for b in branches if isinstance(b, JObject))
    dependent = node.get("dependentSchemas")
    if isinstance(dependent, JObject):
        yield from (s for s in dependent.values() if isinstance(s, JObject))


def _longest_chains(
    starts: list[JObject], targets: dict[int, object]
) -> dict[int, int]:
    """id(schema) -> the most in-place steps a chain from it takes, by one iterative depth-first walk (each
    schema finished once: linear in the document). A step back into the current path (an in-place loop,
    refused by resolve.py or caught by the validator) counts nothing more.
    """
    longest: dict[int, int] = {}
    on_path: set[int] = set()
    for start in starts:
        if id(start) in longest:
            continue
        path: list[tuple[JObject, Iterator[JObject], int]] = [
            (start, _in_place(start, targets), 0)
        ]
        on_path.add(id(start))
        while path:
            node, children, best = path[-1]
            child = next(children, None)
            if child is None:
                path.pop()
                on_path.discard(id(node))
                longest[id(node)] = best
                if path:
                    parent, siblings, known = path[-1]
                    path[-1] = (parent, siblings, max(known, best + 1))
            elif id(child) in longest:
                path[-1] = (node, children, max(best, longest[id(child)] + 1))
            elif id(child) in on_path:
                path[-1] = (node, children, max(best, 1))
            else:
                on_path.add(id(child))
                path.append((child, _in_place(child, targets), 0))
    return longest
