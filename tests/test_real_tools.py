"""Every real tool definition in ../shared/corpus/real-tools compiles, imports, and its models agree with
`jsonschema` on the schema the file declares, for a sample instance and many mutations of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from instances import variants
from oracle import accepts, model_accepts

from conftest import REAL_TOOLS

CORPUS = sorted(
    p.relative_to(REAL_TOOLS).as_posix() for p in REAL_TOOLS.rglob("*.json")
)


def test_the_whole_corpus_is_there() -> None:
    assert len(CORPUS) >= 45


@pytest.mark.parametrize("rel", CORPUS)
def test_real_tool_models_agree_with_jsonschema(
    real_tools_package: tuple[Path, ModuleType], rel: str
) -> None:
    _, package = real_tools_package
    raw = json.loads((REAL_TOOLS / rel).read_text())
    specs = [spec for spec in package.TOOLS.values() if _file_of(spec) == rel]
    assert len(specs) == 1, f"{rel}: expected one compiled tool"
    spec = specs[0]
    # The oracle sees the compiled schema (BFCL type names read as JSON Schema); for other dialects it is the
    # file's own schema, which the next assertion pins down.
    if not rel.startswith("bfcl/"):
        declared = _declared_input(raw)
        assert (
            spec.input_schema == {k: v for k, v in declared.items() if k != "$schema"}
            or declared == {}
        )
    checked = 0
    for instance in variants(spec.input_schema):
        expected = accepts(spec.input_schema, instance)
        if not isinstance(instance, dict):
            expected = False  # arguments of a tool call are always an object
        assert (
            model_accepts(spec.args_model, instance) == expected
        ), f"{rel}: verdict differs on {instance!r}"
        checked += 1
    assert checked > 5


def _declared_input(raw: dict[str, Any]) -> dict[str, Any]:
    body = raw.get("function", raw)
    for key in ("parameters", "inputSchema", "inputs"):
        if key in body:
            return dict(body[key])
    return {}


def _file_of(spec: Any) -> str:
    module = spec.args_model.__module__.split(".", 1)[1]
    for rel in CORPUS:
        parts = rel[: -len(".json")].split("/")
        from codegen.passes.naming import module_name

        if ".".join(module_name(p) for p in parts) == module:
            return rel
    return ""
