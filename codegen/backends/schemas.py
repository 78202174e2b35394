"""JSON back end: the LLM-facing definition of every tool, the schema of every entity, and every tool in the
formats LLM APIs take (`schemas/tools.openai.json`, `tools.anthropic.json`, `tools.mcp.json`, `tools.xml`).

The formats come from `runtime/src/toolspec_runtime/exports.py`, the same code a generated package's `export_tools()` runs,
applied to the same definitions (`schemas/<tool>.json` is `ToolSpec.definition()`), so they cannot disagree.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any, AnyStr

import orjson

from ..plan import PackagePlan, ToolPlan
from toolspec_runtime import exports


def dump_json(value: Any) -> str:
    """`exports.dump_json(value)` (`json.dumps(value, indent=2, ensure_ascii=False)` and a newline), written by
    orjson when its text is the same: a tool's JSON files were a quarter of the time of rendering it.
    """
    if type(value) is dict or type(value) is list:
        try:
            data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
        except TypeError:
            pass  # (orjson.JSONEncodeError) a lone surrogate, a non-string key, a huge integer
        else:
            if not _may_differ(data):
                return data.decode() + "\n"
    return exports.dump_json(value)


def _may_differ(data: bytes) -> bool:
    """Whether orjson's text `data` may differ from `json.dumps`'s: where it has a `null` (NaN and infinities
    come out as `null`), or a float written with an exponent or below 1e-4 (where Python writes `1e-05`,
    orjson writes `1e-5` or `0.00001`). Other floats come out the same: both write the shortest text that
    reads back as the float. A match inside a string only sends the value the slow way. (Finds, not a regular
    expression: one took twice the time of the dump.)"""
    for marker in (b"e-", b"e+"):
        at = data.find(marker)
        while at != -1:
            if 48 <= data[at - 1] <= 57:  # a digit before it: an exponent
                return True
            at = data.find(marker, at + 2)
    if b"0.0000" in data:
        return True
    at = data.find(b"null")
    while at != -1:
        if data[at - 1] in b" \n":  # a value, not the string "null"
            return True
        at = data.find(b"null", at + 4)
    return False


# An export file's entries, rendered apart from each other: (flavour, tool name) -> the tool's entry.
Fragments = dict[tuple[str, str], str]
# Each flavour's name for each tool (a flavour may need to rename some: `exports.export_names`).
ExportNames = dict[str, dict[str, str]]


def export_names(every: list[str]) -> ExportNames:
    """Each flavour's name for each of the tools `every` (all of them, in the order of the plan)."""
    return {
        flavour: exports.export_names(every, flavour)
        for flavour in exports.EXPORT_FILES
    }


def tool_file(func: str) -> str:
    """Where the LLM-facing definition of the tool whose function is `func` goes in OUT."""
    return f"schemas/{func}.json"


def entity_file(class_name: str) -> str:
    """Where the schema of the entity whose class is `class_name` goes in OUT."""
    return f"schemas/entities/{class_name}.json"


def tool_files(
    tools: list[ToolPlan], names: ExportNames
) -> tuple[dict[str, str], Fragments]:
    """`schemas/<tool>.json` of each of `tools`, and its entry in every export file (`export_files` puts
    them together): the work of each tool is done apart, so that it can be shared between processes.
    """
    files: dict[str, str] = {}
    fragments: Fragments = {}
    for tool in tools:
        files[tool_file(tool.func)] = dump_json(tool.llm_schema)
        for flavour in exports.EXPORT_FILES:
            name = names[flavour][tool.name]
            fragments[flavour, tool.name] = tool_fragment(
                tool.llm_schema, flavour, name
            )
    return files, fragments


def entity_files(plan: PackagePlan) -> dict[str, str]:
    """`schemas/entities/<Entity>.json`."""
    return {
        entity_file(plan.entity_classes[name]): dump_json(schema)
        for name, schema in plan.entity_schemas.items()
    }


# How each export file frames its tools: (before the first, between two, after the last, the file with none).
_FRAMES = {
    "openai": ("[\n  ", ",\n  ", "\n]\n", "[]\n"),
    "anthropic": ("[\n  ", ",\n  ", "\n]\n", "[]\n"),
    "mcp": ('{\n  "tools": [\n    ', ",\n    ", "\n  ]\n}\n", '{\n  "tools": []\n}\n'),
    "xml": ("<tools>\n    ", "\n    ", "\n</tools>\n", "<tools />\n"),
}

# Where each tool stands in each export file: flavour -> tool name -> (exported name, start, end), offsets in
# characters; a rebuild copies the tools it did not recompile from there.
ExportSpans = dict[str, dict[str, tuple[str, int, int]]]


def tool_fragment(definition: Any, flavour: str, name: str) -> str:
    """One tool's entry in its flavour's export file, exactly as it stands there (indented for its place):
    the file is these entries in its frame, which is what `exports.render_export` writes for all of them.
    """
    if flavour == "xml":
        return xml_string(exports.xml_tool(definition), 1).replace("\r", "&#13;")
    if flavour == "mcp":
        item, indent = exports.mcp_tool(definition), "\n    "
    elif flavour == "anthropic":
        item, indent = exports.anthropic_tool(definition, name), "\n  "
    else:
        item, indent = exports.openai_tool(definition, name), "\n  "
    # JSON text holds no raw line break but its own: re-indenting it is exact
    return dump_json(item)[:-1].replace("\n", indent)


def xml_string(element: ET.Element, level: int = 0) -> str:
    """The text of `ET.indent(element, space="    ", level=level)` then `ET.tostring(element, encoding="unicode")`
    (for elements without namespaces, as `exports.xml_tool` makes them), written in one walk: the two walks of
    the standard library were a third of the time of `tools.xml`. The element is left as it is. (The runtime's
    `export_tools` keeps the standard library's: tests/test_fast_paths.py holds the two to the same text.)
    """
    out: list[str] = []
    _write_xml(element, "\n" + "    " * level, out)
    if element.tail:
        out.append(_escape_text(element.tail))
    return "".join(out)


def _write_xml(element: ET.Element, indent: str, out: list[str]) -> None:
    tag = element.tag
    head = "<" + tag
    for key, value in element.items():
        head += f' {key}="{_escape_attribute(value)}"'
    text = element.text
    if len(element):
        # `ET.indent`: a parent's whitespace-only text and its children's tails become line breaks and
        # indentation (the last child's, its parent's), other text stays
        inner = indent + "    "
        out.append(
            head + ">" + (_escape_text(text) if text and text.strip() else inner)
        )
        last = len(element) - 1
        for index, child in enumerate(element):
            _write_xml(child, inner, out)
            tail = child.tail
            if tail and tail.strip():
                out.append(_escape_text(tail))
            else:
                out.append(inner if index < last else indent)
        out.append("</" + tag + ">")
    elif text:
        out.append(head + ">" + _escape_text(text) + "</" + tag + ">")
    else:
        out.append(head + " />")


def _escape_text(text: str) -> str:
    """As `ElementTree` escapes character data."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attribute(text: str) -> str:
    """As `ElementTree` escapes an attribute's value (line breaks and tabs as references, so they survive)."""
    if "&" in text or "<" in text or ">" in text or '"' in text:
        text = _escape_text(text).replace('"', "&quot;")
    if "\r" in text or "\n" in text or "\t" in text:
        text = text.replace("\r", "&#13;").replace("\n", "&#10;").replace("\t", "&#09;")
    return text


def join_export(
    flavour: str, entries: list[tuple[str, str, AnyStr]]
) -> tuple[AnyStr, dict[str, tuple[str, int, int]]]:
    """An export file from its (tool name, exported name, fragment) entries, and where each one stands: as
    text, or as bytes from fragments that are bytes (ASCII, where the offsets are the same).
    """
    first, between, last, empty = _frames(flavour, entries[0][2] if entries else "")
    if not entries:
        return empty, {}
    parts, spans, at = [], {}, 0
    for index, (tool, exported, fragment) in enumerate(entries):
        lead = first if index == 0 else between
        parts.append(lead)
        at += len(lead)
        parts.append(fragment)
        spans[tool] = (exported, at, at + len(fragment))
        at += len(fragment)
    parts.append(last)
    return first[:0].join(parts), spans


def splice_export(
    flavour: str,
    before: AnyStr,
    entries: list[tuple[str, str, AnyStr | tuple[int, int]]],
) -> tuple[AnyStr, dict[str, tuple[str, int, int]]]:
    """What `join_export` makes of `entries` (tool name, exported name, fragment), where a fragment may be
    the (start, end) of an entry of `before`, an export file of the same flavour that `tiles` vouched for.
    Entries next to each other in `before` are copied as one run, frame between them included (an edit of
    one tool among 10,000 copies two runs, not 10,000 entries).
    """
    first, between, last, empty = _frames(flavour, before)
    if not entries:
        return empty, {}
    whole = memoryview(before) if type(before) is bytes else before
    pieces: list[Any] = []
    spans = {}
    at = 0
    run: list[int] | None = None  # [start, end] in `before` of the entries being copied
    for index, (tool, exported, fragment) in enumerate(entries):
        lead = first if index == 0 else between
        at += len(lead)
        if type(fragment) is tuple:
            start, end = fragment
            if run is not None and start == run[1] + len(between):
                run[1] = end  # the next entry of `before`: its lead is the frame there
            else:
                if run is not None:
                    pieces.append(whole[run[0] : run[1]])
                pieces.append(lead)
                run = [start, end]
        else:
            if run is not None:
                pieces.append(whole[run[0] : run[1]])
                run = None
            pieces.extend((lead, fragment))
            start, end = 0, len(fragment)
        spans[tool] = (exported, at, at + end - start)
        at += end - start
    if run is not None:
        pieces.append(whole[run[0] : run[1]])
    pieces.append(last)
    return first[:0].join(pieces), spans


def respliced_export(
    flavour: str,
    before: bytes,
    made: Mapping[str, str],
    spans: Mapping[str, tuple[str, int, int]],
    names: Mapping[str, str],
) -> tuple[str | bytes, dict[str, tuple[str, int, int]]]:
    """An export file again, from itself as it was (`before`) and where a build's record places each entry
    (`spans`): the entries `made` anew, the others copied; every tool `names` has, in the order of their names,
    exported as it says. As bytes when ASCII. ValueError when the places are not those of `before`'s entries.
    """
    if before.isascii() and all(fragment.isascii() for fragment in made.values()):
        # ASCII: the recorded offsets (in characters) are offsets in the bytes, which are spliced as they are
        # (decoding and encoding 80 MB of export files again was a tenth of an edit of 10,000 tools)
        remade = {tool: fragment.encode("ascii") for tool, fragment in made.items()}
        return _respliced(flavour, before, remade, spans, names)
    return _respliced(flavour, before.decode("utf-8"), made, spans, names)


def _respliced(
    flavour: str,
    before: AnyStr,
    made: Mapping[str, AnyStr],
    spans: Mapping[str, tuple[str, int, int]],
    names: Mapping[str, str],
) -> tuple[AnyStr, dict[str, tuple[str, int, int]]]:
    # the recorded places must tile the file exactly (a damaged record is caught here, not copied from)
    ordered = sorted(spans.items())
    if not tiles(flavour, before, [(s, e) for _, (_, s, e) in ordered]):
        raise ValueError("the record does not place the entries of the export file")
    if (
        names.keys() == spans.keys()
    ):  # the same tools: each entry stays where it stands in the order
        return _replaced(before, made, ordered, names)
    entries: list[tuple[str, str, AnyStr | tuple[int, int]]] = []
    for tool, name in sorted(names.items()):
        recorded = spans.get(tool)
        if tool in made:
            entries.append((tool, name, made[tool]))
        elif recorded is None or recorded[0] != name:
            raise ValueError(_no_entry(tool, name))
        else:
            entries.append((tool, name, recorded[1:]))
    return splice_export(flavour, before, entries)


def _replaced(
    before: AnyStr,
    made: Mapping[str, AnyStr],
    ordered: list[tuple[str, tuple[str, int, int]]],
    names: Mapping[str, str],
) -> tuple[AnyStr, dict[str, tuple[str, int, int]]]:
    """`splice_export` of `before` whose entries (tool, place; tiling it, in the order of the tools) are the
    tools of the new file: the entries `made` replace theirs, whatever lies between is copied as one piece
    (an edit of one tool among 10,000 copies two), and every later entry moves by the change in length.
    One pass over the entries, where making them `splice_export`'s took a second (a third of the time).
    """
    whole = memoryview(before) if type(before) is bytes else before
    pieces: list[Any] = []
    spans: dict[str, tuple[str, int, int]] = {}
    at = delta = 0
    for tool, (name, start, end) in ordered:
        fragment = made.get(tool)
        if fragment is None:
            if name != names[tool]:
                raise ValueError(_no_entry(tool, names[tool]))
            spans[tool] = (name, start + delta, end + delta)
            continue
        pieces += [whole[at:start], fragment]
        spans[tool] = (names[tool], start + delta, start + delta + len(fragment))
        at, delta = end, delta + len(fragment) - (end - start)
    pieces.append(whole[at:])
    return before[:0].join(pieces), spans


def _no_entry(tool: str, name: str) -> str:
    return f"the record has no entry of {tool!r} exported as {name!r}"


def tiles(flavour: str, text: AnyStr, places: list[tuple[int, int]]) -> bool:
    """Whether `places` (start, end), in order, are the entries of an export file `text` as `join_export`
    frames them: what lies between them is the frame, exactly."""
    first, between, last, empty = _frames(flavour, text)
    if not places:
        return bool(text == empty)
    at = 0
    for index, (start, end) in enumerate(places):
        lead = first if index == 0 else between
        if start != at + len(lead) or end < start or not text.startswith(lead, at):
            return False
        at = end
    return len(text) == at + len(last) and text.endswith(last)


def _frames(flavour: str, like: Any) -> Any:
    """`_FRAMES[flavour]`, as bytes when `like` is bytes."""
    frames = _FRAMES[flavour]
    return tuple(f.encode("ascii") for f in frames) if type(like) is bytes else frames


def export_files(
    plan: PackagePlan, names: ExportNames, fragments: Fragments
) -> tuple[dict[str, str], ExportSpans]:
    """Every tool in the formats LLM APIs take (`schemas/tools.*`), from the entries `tool_files` rendered,
    and where each tool stands in them."""
    files: dict[str, str] = {}
    spans: ExportSpans = {}
    tools = sorted(plan.tools, key=lambda t: t.name)
    for flavour, file_name in exports.EXPORT_FILES.items():
        entries = [
            (t.name, names[flavour][t.name], fragments[flavour, t.name]) for t in tools
        ]
        files[f"schemas/{file_name}"], spans[flavour] = join_export(flavour, entries)
    return files, spans
