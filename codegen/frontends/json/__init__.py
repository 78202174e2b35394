"""JSON front end: tool definitions (`*.json`) and entity schemas (`*.schema.json`) -> IR `Tool`s and `Entity`s.

- `tools`: the tool shapes of reference/json-tools.md §1 (function calling, MCP, Lilux, BFCL) -> IR
- `parse`: a JSON reader that keeps positions; its number and string limits also bound gram and YAML scalars
"""

from .tools import load_schema_file, load_tool_file

__all__ = ["load_tool_file", "load_schema_file"]
