"""``$ref`` and ``$dynamicRef``: references resolved through the index (and the
embedded meta-schemas), and the dynamic scope they extend."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import unquote

from .context import _Ann, _Keywords, _Scope
from .index import _META_INDEX, _contested, _meta_index, _unescape, _walk
from .metaschema import _META_PREFIX
from .problems import Problem, _Loc, _path, _SchemaError
from .uris import _resolve


class _References(_Keywords):
    """The evaluator's reference keywords."""

    def _node_uri(self, node: object) -> str | None:
        uri = self.index.node_uri.get(id(node))
        if uri is None and _META_INDEX:
            uri = _META_INDEX[0].node_uri.get(id(node))
        return uri

    def _enter(self, uri: str, scope: _Scope | None) -> _Scope:
        """The dynamic scope once the resource ``uri`` is entered, with the
        contested anchors it is the first to declare bound to it."""
        anchors = self._anchors(uri)
        bound = () if scope is None else scope.bound
        if anchors:
            contested = _contested(self.index)
            taken = {anchor for anchor, _ in bound}
            new = [(a, uri) for a in anchors if a in contested and a not in taken]
            if new:
                bound = tuple(sorted((*bound, *new)))
        return _Scope(uri, scope, bound)

    def _anchors(self, uri: str) -> dict[str, object] | None:
        """The dynamic anchors the resource ``uri`` declares."""
        anchors = self.index.dynamic.get(uri)
        if anchors is None and uri.startswith(_META_PREFIX):
            anchors = _meta_index().dynamic.get(uri)
        return anchors

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
                anchors = self._anchors(scope_uri)
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
            scope = self._enter(target_base, scope)
        self.active.add(key)
        try:
            if key in self.met:  # (memo keys cost time: only once met twice)
                return self._remembered(inst, target, loc, target_base, scope, ann, ff)
            self.met.add(key)
            return self.eval(inst, target, loc, target_base, scope, ann, ff)
        finally:
            self.active.discard(key)

    def _remembered(
        self,
        inst: object,
        target: object,
        loc: _Loc | None,
        base: str,
        scope: _Scope,
        ann: _Ann | None,
        ff: bool,
    ) -> list[Problem]:
        """``eval`` of a reference's target, once per instance location.

        A reference is the one way a schema is reached along two paths at the
        same instance location, and paths multiply (an allOf of two references
        to the next such schema, 34 deep, is 2**34 evaluations); so what the
        target produced there, problems (once each) and annotations, is
        remembered, keyed by everything else its evaluation reads.  A target
        is remembered from the second time it meets a value on, so each key is
        evaluated at most twice.
        """
        memo_key = (
            id(target),
            id(inst),
            _path(loc),
            base,
            scope.bound,
            ff,
            ann is None,
        )
        known = self.memo.get(memo_key)
        if known is None:
            own = None if ann is None else _Ann()
            problems = self.eval(inst, target, loc, base, scope, own, ff)
            if len(problems) > 1:  # (an allOf of two references doubles them)
                problems = list(dict.fromkeys(problems))
            # (inst is kept alive: its id is in the key, and it may be a
            # string made from a date or UUID for this evaluation only.)
            known = self.memo[memo_key] = (inst, problems, own)
        if ann is not None and known[2] is not None:
            ann.merge(known[2])
        return list(known[1])
