"""Whatever a spec file holds, compiling it ends in output or diagnostics — never an exception (SPEC §6)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.compiler import compile_specs

KEYWORDS = [
    "type",
    "properties",
    "items",
    "required",
    "$ref",
    "$defs",
    "enum",
    "const",
    "default",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "additionalProperties",
    "format",
    "minimum",
    "pattern",
    "prefixItems",
    "name",
    "description",
    "parameters",
    "inputSchema",
    "title",
    "tools",
    "function",
    "if",
    "then",
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
)
TEXT = st.sampled_from(
    [
        "",
        "object",
        "string",
        "integer",
        "array",
        "null",
        "#",
        "#/$defs/A",
        "A.schema.json",
        "date",
        "x y",
        "from",
        "class",
        "../../x",
        "é",
        "schema",
        "1st",
        "A",
        "entity:A",
    ]
)
JSON = st.recursive(
    SCALARS | TEXT,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(KEYWORDS) | TEXT, inner, max_size=5),
    max_leaves=25,
)
TOOLISH = st.fixed_dictionaries(
    {"name": st.sampled_from(["t", "tool_x", "from", "../x", "A"]), "parameters": JSON},
    optional={"description": TEXT, "outputSchema": JSON},
)


def _compile(files: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in files.items():
            (Path(tmp) / name).write_text(
                content if isinstance(content, str) else json.dumps(content)
            )
        result = compile_specs([Path(tmp)])
        assert result.files is not None or result.diagnostics.has_errors


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(TOOLISH | JSON, JSON)
def test_random_tool_and_schema_files_never_crash(tool: Any, schema: Any) -> None:
    _compile({"tool.json": tool, "A.schema.json": schema})


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.text(
        alphabet=st.sampled_from(list("[](){}:|=-<>~@\"`' \nabcTool012.,/\\")),
        max_size=60,
    )
)
def test_random_text_never_crashes_any_front_end(text: str) -> None:
    _compile({"a.json": text, "b.gram": text, "c.schema.json": text})
