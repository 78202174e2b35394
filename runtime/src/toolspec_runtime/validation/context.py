"""What evaluation carries down the schema: the dynamic scope, the annotations
"unevaluated*" keywords read, and the evaluator's shared state that the keyword
families (``resolution``, ``assertions``, ``arrays``, ``objects``,
``applicators``) build on."""

from __future__ import annotations

import sys

from .index import _Index
from .problems import Problem, _Loc

# "all items evaluated" in an items annotation.
_ALL = sys.maxsize


class _Scope:
    """The dynamic scope (base URIs of the resources entered), innermost first,
    which ``$dynamicRef`` searches from the outermost end.

    ``bound`` is all of it a ``$dynamicRef`` can tell: for each contested
    dynamic anchor (one that more than one resource declares), the outermost
    resource entered that declares it, as sorted (anchor, uri) pairs.  Two
    scopes with the same ``bound`` resolve every ``$dynamicRef`` alike, so
    remembered verdicts are keyed by it rather than by the whole chain (which
    an allOf of references could make exponentially many).
    """

    __slots__ = ("uri", "parent", "bound")

    def __init__(
        self,
        uri: str,
        parent: _Scope | None,
        bound: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.uri = uri
        self.parent = parent
        self.bound = bound

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


class _Keywords:
    """The state and the recursive entry point every keyword family uses; the
    evaluator (``evaluator._Evaluator``) combines the families and defines
    :meth:`eval`."""

    index: _Index
    fail_fast: bool
    active: set[tuple[int, int]]
    # (id(target), id(instance)) of the references followed so far, and what
    # each target produced where it was evaluated from the second on
    # (``resolution._References._reference``).
    met: set[tuple[int, int]]
    memo: dict[tuple[object, ...], tuple[object, list[Problem], _Ann | None]]

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
        raise NotImplementedError
