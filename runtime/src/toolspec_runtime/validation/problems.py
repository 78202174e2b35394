"""What a validation reports: problems, instance locations and the wording of
messages."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


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


def _names(names: Iterable[object]) -> str:
    return ", ".join(repr(name) for name in names)


def _plural(count: int, noun: str) -> str:
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"
