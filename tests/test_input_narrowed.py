"""An input schema with no `type` is read as an object one, and said so (issue #30): MCP arguments are an
object, but the README promises a model accepts exactly what its schema accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen.compiler import compile_specs
from test_bad_input import write


def _warnings(specs: Path) -> list[tuple[str, int, int]]:
    result = compile_specs([specs])
    assert result.files is not None
    return [
        (d.code, d.span.line, d.span.col)
        for d in result.diagnostics.sorted()
        if d.severity == "warning" and d.span is not None
    ]


@pytest.mark.parametrize(
    "schema",
    [{}, {"properties": {"x": {"type": "integer"}}}, {"required": ["x"]}],
)
def test_a_schema_without_type_is_narrowed_with_a_warning(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    text = '{"tools": [\n  {"name": "ok", "inputSchema": {"type": "object"}},\n'
    text += f'  {{"name": "loose", "inputSchema": {json.dumps(schema)}}}\n]}}\n'
    write(tmp_path, "server.json", text)
    # the caret is at the schema of the second tool
    line = text.splitlines()[2]
    col = line.index('"inputSchema": ') + len('"inputSchema": ') + 1
    assert _warnings(tmp_path) == [("input-narrowed", 3, col)]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object"},
        {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object"}}},
        {"anyOf": [{"type": "object"}]},
    ],
)
def test_no_warning_where_the_root_says_what_it_is(
    tmp_path: Path, schema: dict[str, Any]
) -> None:
    write(tmp_path, "t.json", {"name": "t", "inputSchema": schema})
    assert _warnings(tmp_path) == []


def test_no_warning_for_a_tool_without_an_input_schema(tmp_path: Path) -> None:
    write(tmp_path, "t.json", {"name": "t", "description": "No arguments."})
    assert _warnings(tmp_path) == []
