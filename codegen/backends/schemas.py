"""JSON back end: the LLM-facing definition of every tool, the schema of every entity, and every tool in the
formats LLM APIs take (`schemas/tools.openai.json`, `tools.anthropic.json`, `tools.mcp.json`, `tools.xml`).

The formats come from `codegen/runtime/exports.py`, the same code a generated package's `export_tools()` runs,
applied to the same definitions (`schemas/<tool>.json` is `ToolSpec.definition()`), so they cannot disagree.
"""

from __future__ import annotations

from typing import Any

from ..plan import PackagePlan
from ..runtime import exports


def dump_json(value: Any) -> str:
    return exports.dump_json(value)


def render_schemas(plan: PackagePlan) -> dict[str, str]:
    """`schemas/<tool>.json` and `schemas/entities/<Entity>.json`."""
    files = {
        f"schemas/{tool.func}.json": dump_json(tool.llm_schema) for tool in plan.tools
    }
    for name, schema in plan.entity_schemas.items():
        files[f"schemas/entities/{plan.entity_classes[name]}.json"] = dump_json(schema)
    return files


def render_exports(plan: PackagePlan) -> dict[str, str]:
    """Every tool in the formats LLM APIs take (`schemas/tools.*`)."""
    files: dict[str, str] = {}
    definitions = [tool.llm_schema for tool in sorted(plan.tools, key=lambda t: t.name)]
    for flavour, file_name in exports.EXPORT_FILES.items():
        names = exports.export_names([tool.name for tool in plan.tools], flavour)
        files[f"schemas/{file_name}"] = exports.render_export(
            definitions, flavour, names
        )
    return files
