"""``$ref`` and ``$dynamicRef``: references resolved through the index (and the
embedded meta-schemas), and the dynamic scope they extend."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import unquote

from .context import _Ann, _Keywords, _Scope
from .index import _META_INDEX, _meta_index, _unescape, _walk
from .metaschema import _META_PREFIX
from .problems import Problem, _Loc, _SchemaError
from .uris import _resolve


class _References(_Keywords):
    """The evaluator's reference keywords."""

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
