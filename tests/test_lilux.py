"""Lilux manifests (seed 002): `tool_id` is the tool's identity and wire name, `name` its human-readable title."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import compile_ok, compile_result

MANIFEST = {
    "tool_id": "process_data",
    "version": "1.0.0",
    "name": "Process data",
    "description": "Processes the data.",
    "executor": "subprocess",
    "config": {"command": "python", "args": ["process.py"]},
    "inputs": {
        "type": "object",
        "properties": {"data": {"type": "string"}},
        "required": ["data"],
    },
    "outputs": {"type": "object", "properties": {"result": {"type": "string"}}},
}


def _compile(tmp_path: Path, manifest: dict) -> dict[str, str]:
    (tmp_path / "process.json").write_text(json.dumps(manifest))
    return compile_ok(tmp_path)


def test_tool_id_is_the_wire_name_and_name_the_title(tmp_path: Path) -> None:
    files = _compile(tmp_path, MANIFEST)
    definition = json.loads(files["schemas/process_data.json"])
    assert definition["name"] == "process_data"
    assert definition["description"] == "Processes the data."
    assert definition["inputSchema"]["title"] == "Process data"
    module = files["process.py"]
    schemas = json.loads(files["process.schemas.json"])
    assert 'name="process_data"' in module
    assert schemas["PROCESS_DATA_INPUT_SCHEMA"]["title"] == "Process data"
    assert "class ProcessDataArgs(" in module
    [mcp] = json.loads(files["schemas/tools.mcp.json"])["tools"]
    assert (
        mcp["name"] == "process_data" and mcp["inputSchema"]["title"] == "Process data"
    )
    [anthropic] = json.loads(files["schemas/tools.anthropic.json"])
    assert anthropic["input_schema"]["title"] == "Process data"


def test_the_executor_settings_stay_metadata(tmp_path: Path) -> None:
    files = _compile(tmp_path, MANIFEST)
    module = files["process.py"] + files["process.schemas.json"]
    assert '"executor": "subprocess"' in module and '"version": "1.0.0"' in module
    assert '"tool_id"' not in module and '"name": "Process data"' not in module


def test_a_name_equal_to_the_tool_id_adds_no_title(tmp_path: Path) -> None:
    files = _compile(tmp_path, {**MANIFEST, "name": "process_data"})
    assert "title" not in json.loads(files["schemas/process_data.json"])["inputSchema"]


def test_the_inputs_own_title_is_kept(tmp_path: Path) -> None:
    inputs = {**MANIFEST["inputs"], "title": "Data to process"}
    files = _compile(tmp_path, {**MANIFEST, "inputs": inputs})
    definition = json.loads(files["schemas/process_data.json"])
    assert definition["inputSchema"]["title"] == "Data to process"


def test_without_tool_id_name_is_the_identity(tmp_path: Path) -> None:
    # Function calling and MCP name a tool by `name`: a file without `tool_id` is read that way.
    manifest = {k: v for k, v in MANIFEST.items() if k != "tool_id"}
    files = _compile(tmp_path, {**manifest, "name": "process_data"})
    assert json.loads(files["schemas/process_data.json"])["name"] == "process_data"


def test_without_tool_id_a_title_is_not_a_tool_name(tmp_path: Path) -> None:
    manifest = {k: v for k, v in MANIFEST.items() if k != "tool_id"}
    (tmp_path / "process.json").write_text(json.dumps(manifest))
    result = compile_result(tmp_path)
    assert result.files is None
    [error] = [d for d in result.diagnostics.sorted() if d.severity == "error"]
    assert error.code == "tool-name" and "'Process data'" in error.message
    assert "tool_id" in error.message


def test_a_bad_tool_id_or_title_is_reported_at_its_spot(tmp_path: Path) -> None:
    for manifest, code in (
        ({**MANIFEST, "tool_id": "process data"}, "tool-name"),
        ({**MANIFEST, "tool_id": 7}, "tool-name"),
        ({**MANIFEST, "name": 7}, "tool-title"),
    ):
        (tmp_path / "process.json").write_text(json.dumps(manifest, indent=2))
        result = compile_result(tmp_path)
        assert result.files is None
        [error] = [d for d in result.diagnostics.sorted() if d.severity == "error"]
        assert error.code == code, error.render()
        key = "name" if code == "tool-title" else "tool_id"
        assert error.span.line == 1 + list(manifest).index(key) + 1
