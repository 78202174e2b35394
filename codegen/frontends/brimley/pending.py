"""What the Brimley front end hands on beyond the core IR: the links it cannot resolve alone.

A Brimley file may inherit arguments from an entity defined in any other file (`entity_ref: Customer`), so the
front end cannot finish a tool's input schema, its context parameters or its SQL placeholder check by itself.
It records what is pending as a `Pending` in the tool's metadata under `PENDING_KEY`; `link.link`, which the driver runs
once every file is loaded, completes the tool and removes the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...diagnostics import Span
from ...sqlscan import Scan

PENDING_KEY = "\x00brimley"  # never a key a spec can write: YAML keys are checked names


@dataclass(frozen=True)
class Override:
    """An inline argument that only adds `from_context` and/or `default` to an inherited one."""

    name: str
    span: Span
    from_context: str | None = None
    default: Any = None
    has_default: bool = False
    required: bool | None = None


@dataclass(frozen=True)
class Inherit:
    """`entity_ref: Name` in an `arguments`, `config` or `return_shape` block."""

    entity: str
    span: Span
    overrides: tuple[Override, ...] = ()


@dataclass(frozen=True)
class Pending:
    """The parts of a Brimley tool that need other files: inheritance, and the placeholder check of its SQL."""

    what: str  # "tool 'get_orders'", for messages
    inputs: Inherit | None = None
    config: Inherit | None = None
    output: Inherit | None = None
    sql: Scan | None = None
    sql_map: tuple[
        tuple[int, int], ...
    ] = ()  # (offset in the SQL, offset in the file) anchors, for spans
    names: dict[str, Span] = field(
        default_factory=dict
    )  # argument name -> where it is declared
