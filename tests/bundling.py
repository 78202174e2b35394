"""Bundling a plain JSON Schema as the compiler does, for tests that call the runtime validator directly."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conftest import shared

from codegen.diagnostics import Diagnostics, SourceFile
from codegen.frontends.json.parse import parse_json
from codegen.ir import SpecModule, to_plain
from codegen.passes.bundle import Bundler
from codegen.remotes import RemoteDocuments

SUITE_URL = "http://localhost:1234/"


def suite_ref_map() -> dict[str, Path]:
    """The suite's remote documents, served from its `remotes/` folder."""
    return {SUITE_URL: shared("conformance", "json-schema-test-suite", "remotes")}


def bundled(schema: Any, ref_map: Mapping[str, Path]) -> Any:
    """`schema` with the documents it refers to embedded (as plain data); fails on any diagnostic."""
    source = SourceFile(
        Path("schema.json"), "schema.json", Path("schema.json"), json.dumps(schema)
    )
    diags = Diagnostics()
    bundler = Bundler(RemoteDocuments(ref_map, diags).fetch, diags, {}, set())
    module = SpecModule(source)
    result = bundler.bundle(bundler.prepare(parse_json(source, diags), module), module)
    assert not len(diags), [d.render() for d in diags.sorted()]
    return to_plain(result)
