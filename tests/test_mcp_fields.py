"""The MCP export is lossless (issue #30): a tool's `title`, `annotations`, `execution`, `icons` and `_meta` go
from the spec through the generated package to `export_tools("mcp")` and `schemas/tools.mcp.json`, as data.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import types as mcp_types

from codegen.compiler import compile_specs
from conftest import generate_package
from test_bad_input import write

DRAFT = "https://json-schema.org/draft/2020-12/schema"

# Every field of the MCP `Tool` (2025-06-18, 2025-11-25), with text that would be code if it were ever pasted.
HOSTILE = "\"\"\"'); import os; os.system('echo pwned') #\n\\x00 \u202e}}{{"
TOOLS: list[dict[str, Any]] = [
    {
        "name": "read_file",
        "title": "Read a file",
        "description": "Reads a file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "annotations": {
            "title": "Read",
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "execution": {"taskSupport": "optional"},
        "icons": [
            {"src": "https://example.com/r.png", "mimeType": "image/png"},
            {
                "src": "data:image/svg+xml;base64,AAAA",
                "sizes": ["any"],
                "theme": "dark",
            },
        ],
        "_meta": {"io.example/owner": HOSTILE, "nested": {"n": [1, 2.5, None, True]}},
    },
    {
        "name": "delete_file",
        "description": HOSTILE,
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"destructiveHint": True, "vendorHint": {"x": 1}},
        "title": HOSTILE,
    },
    {"name": "plain", "inputSchema": {"type": "object"}},
]


def _normalised(tool: dict[str, Any]) -> dict[str, Any]:
    """What the export documents it changes: every schema names draft 2020-12."""
    tool = copy.deepcopy(tool)
    for key in ("inputSchema", "outputSchema"):
        if key in tool:
            tool[key] = {"$schema": DRAFT, **tool[key]}
    return tool


def test_a_tools_list_round_trips_through_the_generated_package(
    tmp_path: Path, import_package: Any
) -> None:
    write(tmp_path / "specs", "server.json", {"tools": TOOLS})
    out, name = generate_package(tmp_path, tmp_path / "specs")
    pkg = import_package(out, name)
    exported = pkg.export_tools("mcp")["tools"]
    expected = sorted((_normalised(t) for t in TOOLS), key=lambda t: t["name"])
    assert exported == expected
    # key order as the MCP schema lists the fields
    assert list(exported[2]) == [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "execution",
        "icons",
        "_meta",
    ]
    # the file and the API agree, and the definitions are what the SDK reads as tools
    assert json.loads((out / "schemas/tools.mcp.json").read_text())["tools"] == exported
    for tool in exported:
        parsed = mcp_types.Tool.model_validate(tool)
        dumped = parsed.model_dump(by_alias=True, exclude_none=True, mode="json")
        if (
            tool["name"] != "delete_file"
        ):  # (whose annotations hold a hint the SDK does not know)
            assert dumped == tool
    assert pkg.TOOLS["read_file"].definition()["_meta"]["io.example/owner"] == HOSTILE
    # formats without these fields are unchanged
    for flavour in ("openai", "anthropic"):
        assert "annotations" not in json.dumps(pkg.export_tools(flavour))
    assert "readOnlyHint" not in pkg.export_tools("xml")


def test_the_served_list_keeps_the_fields_of_a_tools_list_taken_from_a_real_sdk(
    tmp_path: Path, import_package: Any
) -> None:
    """A `tools/list` as the MCP SDK writes it (its own model, dumped), compiled and exported, is that list."""
    sdk_tools = [
        mcp_types.Tool.model_validate(tool).model_dump(
            by_alias=True, exclude_none=True, mode="json"
        )
        for tool in TOOLS
        if tool["name"] != "delete_file"
    ]
    write(tmp_path / "specs", "server.json", {"tools": sdk_tools})
    out, name = generate_package(tmp_path, tmp_path / "specs")
    exported = import_package(out, name).export_tools("mcp")["tools"]
    assert exported == sorted(
        (_normalised(t) for t in sdk_tools), key=lambda t: t["name"]
    )


@pytest.mark.parametrize(
    ("field", "value", "what"),
    [
        ("title", 3, "'title' must be a string"),
        ("annotations", [], "'annotations' must be an object"),
        ("annotations", {"readOnlyHint": "true"}, "'annotations.readOnlyHint' must be"),
        ("annotations", {"title": False}, "'annotations.title' must be a string"),
        ("execution", {"taskSupport": "always"}, "'execution.taskSupport' must be"),
        ("icons", {"src": "x"}, "'icons' must be a list"),
        ("icons", [{"href": "x"}], "'icons[0]' must be an object with a string 'src'"),
        ("icons", [{"src": "x", "sizes": "48x48"}], "'sizes' is a list of strings"),
        ("icons", [{"src": "x", "theme": "blue"}], "'theme' is 'light' or 'dark'"),
        ("_meta", "x", "'_meta' must be an object"),
    ],
)
def test_a_field_of_another_shape_is_left_out_with_a_warning(
    tmp_path: Path, field: str, value: Any, what: str
) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, field: value}
    write(tmp_path, "t.json", json.dumps({"tools": [tool]}))  # one line
    result = compile_specs([tmp_path])
    assert result.files is not None
    warnings = [d for d in result.diagnostics.sorted() if d.code == "mcp-field"]
    assert len(warnings) == 1 and what in warnings[0].message
    assert warnings[0].span is not None and warnings[0].span.line == 1
    exported = json.loads(result.files["schemas/tools.mcp.json"])["tools"][0]
    mcp_types.Tool.model_validate(exported)  # what is left is a valid MCP tool
    assert "readOnlyHint" not in json.dumps(exported) and "blue" not in json.dumps(
        exported
    )


def test_modules_with_and_without_mcp_fields_ask_for_a_runtime_that_has_them(
    tmp_path: Path,
) -> None:
    """Every module asks for the runtime API 0.5 (0.3 brought the serving and calling modules and
    `ToolSpec(mcp_fields=...)`; 0.4 the schemas read from JSON beside each module; 0.5 the package attributes
    built from `TOOLS`), which the runtime beside it provides."""
    import toolspec_runtime

    write(tmp_path, "a.json", {"tools": [TOOLS[2]]})
    write(tmp_path, "b.json", {"tools": [TOOLS[0]]})
    files = compile_specs([tmp_path]).files
    assert files is not None
    for module in ("a.py", "b.py"):
        assert '_require("0.5", __name__)' in str(files[module])
    assert toolspec_runtime.API >= (0, 5)
