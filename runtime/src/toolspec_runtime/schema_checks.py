"""The exact check of a schema, built once on first use.

What pydantic-core cannot decide natively (a model, a field, a tool's output or a context value whose keywords
have no native form; what strict native validation refuses) is decided by the check of its subschema: planned
by `check_planner.py`, built by `check_builder.py` as closures composed per keyword (no source is written or
executed), as exact as the interpreter and with its messages. A schema the planner leaves to the interpreter (a
`$dynamicRef` the dynamic scope resolves, a `$recursiveRef`) is validated by the interpreter.
"""

from __future__ import annotations

from typing import Any

from .checks import Check, Problems
from .checks import run as run_check
from .validation import validate

# The checks built, by the text of their schema: equal schemas (an entity's, copied into several tools'
# documents) share one. Keyed by text, not identity, so that a schema built afresh for each call (a SQL tool's
# context value) does not add an entry per call.
_BUILT: dict[tuple[str, str], Check | None] = {}
# The text of each document, by identity (the document kept, so that its id stays its own): a document with
# many models is written out once, not once per model. Bounded, as a schema built afresh per call adds one.
_TEXTS: dict[int, tuple[Any, str]] = {}
_MAX_TEXTS = 1024


def _text_of(document: Any) -> str:
    found = _TEXTS.get(id(document))
    if found is None or found[0] is not document:
        if len(_TEXTS) >= _MAX_TEXTS:
            _TEXTS.pop(next(iter(_TEXTS)), None)
        found = _TEXTS[id(document)] = (document, repr(document))
    return found[1]


def check_of(document: Any, pointer: str = "") -> Check | None:
    """The check of the subschema at `pointer` of `document`, or None if the interpreter keeps it."""
    key = (_text_of(document), pointer)
    if key not in _BUILT:
        # Imported when first needed: most programs never build a check.
        from .check_builder import build_check

        _BUILT[key] = build_check(document, pointer)
    return _BUILT[key]


class SchemaCheck:
    """The exact check of the subschema at `pointer` of `document`, built when first run and then kept."""

    __slots__ = ("document", "pointer", "_check", "_built")

    def __init__(self, document: Any, pointer: str = "") -> None:
        self.document = document
        self.pointer = pointer
        self._check: Check | None = None
        self._built = False

    def check(self) -> Check | None:
        """The built check, or None if the interpreter keeps the schema."""
        if not self._built:
            self._check = check_of(self.document, self.pointer)
            self._built = True
        return self._check

    def problems(self, data: Any) -> Problems:
        """Every problem of JSON data (or Python data standing for it: tuples, dates) against the subschema,
        as `validation.validate` reports them."""
        check = self.check()
        if check is None:
            return validate(data, self.document, pointer=self.pointer)
        return run_check(check, data)
