"""JSON back end: the LLM-facing definition of every tool and the schema of every entity."""

from __future__ import annotations

import json
from typing import Any

from ..plan import PackagePlan


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def render_schemas(plan: PackagePlan) -> dict[str, str]:
    files = {f"schemas/{tool.func}.json": dump_json(tool.llm_schema) for tool in plan.tools}
    for name, schema in plan.entity_schemas.items():
        files[f"schemas/entities/{plan.entity_classes[name]}.json"] = dump_json(schema)
    return files
