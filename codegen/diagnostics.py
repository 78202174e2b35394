"""Source files, spans and compiler diagnostics (SPEC §6).

Every problem in a spec becomes a `Diagnostic` with a span; a run collects them all and reports them together,
sorted by file and position, as ``path:line:col: error[CODE]: message`` plus the source line and a caret.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

# Characters that must not reach a terminal as they are: lone surrogates (how Python spells the bytes of a file
# name that is not UTF-8), control characters (escape sequences, carriage returns, NUL), line separators and the
# bidirectional overrides that make text read differently from what it is.
UNSAFE_CHARACTERS = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]"
)

_NEWLINE = re.compile("\n")  # line starts, found in C rather than a loop per character


def printable(text: str) -> str:
    """`text` with every unsafe character shown as an escape (`\\x1b`, `\\u202e`); a surrogate-escaped byte
    of a file name shows as that byte (`\\xff`)."""
    return UNSAFE_CHARACTERS.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for an undecodable byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


@dataclass(frozen=True)
class SourceFile:
    """One spec file: where it is, what it is called in messages, and its text."""

    path: Path
    display: str  # the path as the user should see it in messages
    rel: Path  # path relative to the specs root it was found under (drives the output module path)
    text: str
    _line_starts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        starts.extend(match.end() for match in _NEWLINE.finditer(self.text))
        object.__setattr__(self, "_line_starts", tuple(starts))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def span(self, start: int, end: int | None = None) -> Span:
        line, col = self.position(start)
        return Span(
            self, line, col, max(1, (end if end is not None else start + 1) - start)
        )

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = (
            self._line_starts[line] - 1
            if line < len(self._line_starts)
            else len(self.text)
        )
        return self.text[start:end].rstrip("\r")


@dataclass(frozen=True)
class Span:
    """Where an IR node came from: file, 1-based line and column, and a width for the caret."""

    source: SourceFile = field(compare=False)
    line: int
    col: int
    width: int = 1

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.source.display, self.line, self.col)

    def __str__(self) -> str:
        return printable(f"{self.source.display}:{self.line}:{self.col}")


def span_inside(span: Span, value: str, start: int, end: int) -> Span:
    """The span of characters start..end of `value`, a scalar written at `span`, when it is written on one line
    as it is (plain, or quoted without escapes); else the whole value's span."""
    line = span.source.line_text(span.line)[span.col - 1 :]
    for skip in (0, 1):
        if line[skip : skip + len(value)] == value:
            return Span(
                span.source, span.line, span.col + skip + start, max(1, end - start)
            )
    return span


@dataclass(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    code: str
    message: str
    span: Span | None
    notes: tuple[tuple[str, Span | None], ...] = ()

    def render(self) -> str:
        lines = [
            f"{self.span or 'codegen'}: {self.severity}[{self.code}]: {printable(self.message)}"
        ]
        if self.span is not None:
            lines.extend(_excerpt(self.span))
        for text, span in self.notes:
            text = printable(text)
            lines.append(f"{span}: note: {text}" if span else f"note: {text}")
            if span is not None:
                lines.extend(_excerpt(span))
        return "\n".join(lines)


def _excerpt(span: Span) -> list[str]:
    """The source line and a caret under the span; escapes widen the line, so the caret is placed after them."""
    raw = span.source.line_text(span.line).expandtabs(1)
    if not raw:
        return []
    before = printable(raw[: span.col - 1])
    under = printable(raw[span.col - 1 : span.col - 1 + span.width])
    gutter = f"{span.line} | "
    return [
        f"{gutter}{printable(raw)}",
        " " * (len(gutter) + len(before)) + "^" * max(1, len(under)),
    ]


# Identical warnings shown in full before the rest are folded into one line, and the places that line names.
SHOWN_ALIKE = 3
PLACES_LISTED = 3


def render_all(
    diagnostics: list[Diagnostic], *, fold: bool = True, warnings: bool = True
) -> list[str]:
    """`diagnostics` (sorted) rendered for a terminal. With `fold`, a warning repeated with the same code and
    message (a `"type": "dict"` in every tool of a corpus) is shown in full `SHOWN_ALIKE` times, followed by one
    line that counts the rest and names where the first of them are. Errors are never folded; without
    `warnings`, only errors are rendered."""
    shown = [d for d in diagnostics if warnings or d.severity == "error"]
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    rank: dict[int, int] = {}  # id(warning) -> its place among the warnings alike
    for diagnostic in shown:
        if diagnostic.severity == "warning":
            alike = groups.setdefault((diagnostic.code, diagnostic.message), [])
            rank[id(diagnostic)] = len(alike)
            alike.append(diagnostic)
    lines: list[str] = []
    for diagnostic in shown:
        index = rank.get(id(diagnostic))
        alike = groups.get((diagnostic.code, diagnostic.message), [])
        # Folding a single warning would save nothing.
        if index is None or not fold or len(alike) <= SHOWN_ALIKE + 1:
            lines.append(diagnostic.render())
            continue
        if index < SHOWN_ALIKE:
            lines.append(diagnostic.render())
        if index == SHOWN_ALIKE - 1:
            rest = alike[SHOWN_ALIKE:]
            places = ", ".join(str(d.span or "codegen") for d in rest[:PLACES_LISTED])
            more = ", …" if len(rest) > PLACES_LISTED else ""
            lines.append(
                f"note: … and {len(rest)} more warning[{diagnostic.code}] like this "
                f"(first at {places}{more}; -v shows all)"
            )
    return lines


class Diagnostics:
    """A collector: front ends and passes add to it; the driver reports all of it at once."""

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []

    def error(
        self,
        code: str,
        message: str,
        span: Span | None,
        *notes: tuple[str, Span | None],
    ) -> None:
        self._items.append(Diagnostic("error", code, message, span, tuple(notes)))

    def warning(
        self,
        code: str,
        message: str,
        span: Span | None,
        *notes: tuple[str, Span | None],
    ) -> None:
        self._items.append(Diagnostic("warning", code, message, span, tuple(notes)))

    def extend(self, other: Diagnostics) -> None:
        """Add what `other` collected (a file's diagnostics kept apart until it is known they apply)."""
        self._items.extend(other._items)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self._items)

    def sorted(self) -> list[Diagnostic]:
        unique = {
            (d.span.key if d.span else ("", 0, 0), d.code, d.message): d
            for d in self._items
        }
        return [unique[k] for k in sorted(unique)]

    def __len__(self) -> int:
        return len(self._items)


class SpecError(Exception):
    """Raised by a front end to abandon one file after recording its diagnostic."""
