"""`skip-refused`: leave out the definitions codegen refuses and compile the rest (docs/usage.md).

The unit left out is one tool of a JSON tool file that lists several (a list, or an MCP `tools/list` result),
else a whole spec file (an entity, a Brimley definition, a gram file). An error belongs to the unit its span
lies in: the tool entry that holds it, else the file. The compile runs again without the refused units until
every error belongs to one of them; so a definition that uses a left-out one (a `$ref` to a refused entity)
is reported by that compile and left out in turn. What is written is what a compile of the specs without the
refused units writes: the refused units are taken out before any pass sees them. An error that belongs to no
spec file (a document read through the ref-map, a name two outputs share on disk) still fails the build.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from .compile_result import CompileResult
from .diagnostics import Diagnostic, Diagnostics, Span
from .frontends.json.parse import parse_json
from .frontends.json.tools import tool_entries
from .ir import JArray, JObject, SpecModule, Tool

MODES = ("fail", "warn")  # refused units reported as errors (exit 1), or as warnings

# A spec file (its path), and the index of a tool entry in it, or None for the whole file.
Unit = tuple[str, int | None]
Position = tuple[int, int]  # (line, column)


@dataclass
class LeaveOut:
    """The units a compile leaves out, and where the tool entries of the files it reads start."""

    files: set[str] = field(default_factory=set)
    entries: dict[str, set[int]] = field(default_factory=dict)
    # files read as tool files of several entries -> each entry's start
    _starts: dict[str, list[Position]] = field(default_factory=dict)
    _names: dict[str, list[str | None]] = field(default_factory=dict)
    _spec_files: set[str] = field(default_factory=set)

    def found(self, found: list[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
        """The discovered spec files, but those left out whole."""
        self._spec_files = {path.as_posix() for path, _ in found}
        return [item for item in found if item[0].as_posix() not in self.files]

    def modules(self, modules: list[SpecModule]) -> list[SpecModule]:
        """The modules read, without the tool entries left out (a file all of whose tools are: without it)."""
        kept: list[SpecModule] = []
        for module in modules:
            path = module.source.path.as_posix()
            if module.tools or module.dropped:
                self._note_entries(module)
            left = self.entries.get(path)
            if not left:
                kept.append(module)
                continue
            tools = tuple(t for t in module.tools if self._entry(t.span) not in left)
            dropped = tuple(
                d
                for d in module.dropped
                if not isinstance(d, Tool) or self._entry(d.span) not in left
            )
            if tools or module.entities or module.agents or module.resources:
                kept.append(replace(module, tools=tools, dropped=dropped))
        return kept

    def unit(self, span: Span | None) -> Unit | None:
        """The unit an error at `span` belongs to; None when it is in no spec file."""
        if span is None:
            return None
        path = span.source.path.as_posix()
        if path not in self._spec_files:
            return None
        return path, self._entry(span)

    def covers(self, diagnostic: Diagnostic) -> bool:
        unit = self.unit(diagnostic.span)
        return unit is not None and (
            unit[0] in self.files
            or (unit[1] is not None and unit[1] in self.entries.get(unit[0], ()))
        )

    def add(self, unit: Unit) -> None:
        path, entry = unit
        if entry is None:
            self.files.add(path)
        else:
            self.entries.setdefault(path, set()).add(entry)

    def _entry(self, span: Span) -> int | None:
        starts = self._starts.get(span.source.path.as_posix())
        if not starts:
            return None
        index = bisect.bisect_right(starts, (span.line, span.col)) - 1
        return index if index >= 0 else None

    def _note_entries(self, module: SpecModule) -> None:
        path = module.source.path.as_posix()
        if path in self._starts or not path.endswith(".json"):
            return
        entries = tool_entries(parse_json(module.source, Diagnostics()))
        if isinstance(entries, JArray) and len(entries) > 1:
            self._starts[path] = [
                (span.line, span.col)
                for span in (entries.item_span(i) for i in range(len(entries)))
            ]
            self._names[path] = [_name(entry) for entry in entries]

    def describe(self) -> list[str]:
        """The units left out, for the summary (sorted)."""
        shown = [f"{path}" for path in sorted(self.files)]
        shown += [
            f"{path}: tool #{index + 1}" + _quoted(self._names[path][index])
            for path, indexes in sorted(self.entries.items())
            if path not in self.files
            for index in sorted(indexes)
        ]
        return shown


def compile_leaving_out(
    compile_once: Callable[[LeaveOut], CompileResult], mode: str
) -> CompileResult:
    """Compile, leaving out every refused unit (and what depends on one); errors not in a unit fail as usual.

    Every round leaves out at least one unit more, so there are at most as many rounds as units; the
    diagnostics of every round are reported (a dependant's error is in the round that found it).
    """
    leave = LeaveOut()
    seen = Diagnostics()
    first: set[tuple[object, ...]] = set()
    while True:
        result = compile_once(leave)
        if not first:
            first = {_key(d) for d in result.diagnostics.sorted()}
            seen.extend(result.diagnostics)
        else:  # found once the refused units were left out: say so (a reference to one of them)
            because = (
                "reported once skip-refused had left out "
                + ", ".join(leave.describe()),
                None,
            )
            for d in result.diagnostics.sorted():
                if _key(d) not in first:
                    add = seen.error if d.severity == "error" else seen.warning
                    add(d.code, d.message, d.span, *d.notes, because)
        new = {
            leave.unit(d.span)
            for d in result.diagnostics.sorted()
            if d.severity == "error" and not leave.covers(d)
        }
        units = [unit for unit in new if unit is not None]
        if not new or len(units) < len(
            new
        ):  # nothing more to leave out, or an error in no spec
            break
        for unit in units:
            leave.add(unit)
    if result.files is not None and (
        leave.files or leave.entries
    ):  # every error is a refused unit's
        result.diagnostics = _reported(seen, mode)
        result.left_out = leave.describe()
        result.parts = None  # an edit rebuild cannot tell a refused unit: a full compile decides again
    elif result.files is None:
        result.diagnostics = seen
    return result


def _reported(seen: Diagnostics, mode: str) -> Diagnostics:
    if mode != "warn":
        return seen
    reported = Diagnostics()
    for d in seen.sorted():
        reported.warning(d.code, d.message, d.span, *d.notes)
    return reported


def _key(d: Diagnostic) -> tuple[object, ...]:
    return (d.span.key if d.span else None, d.code, d.message)


def _name(entry: object) -> str | None:
    """A tool entry's name as the JSON front end reads it, if it has one (for the summary only)."""
    if not isinstance(entry, JObject):
        return None
    inner = entry.get("function")
    if entry.get("type") == "function" and isinstance(inner, JObject):
        entry = inner
    assert isinstance(entry, JObject)
    name = entry.get("tool_id", entry.get("name"))
    return name if isinstance(name, str) else None


def _quoted(name: str | None) -> str:
    return f" {name!r}" if name is not None else ""
