"""A spec file's module, and every name in it, depends only on that file and on the entities it uses: adding,
removing or renaming any other spec file changes no byte of it (codegen/passes/build_plan.py). A name two
modules define is reached through its modules and is no name of the package, with a warning saying where each
lives; nothing is ever renamed with a suffix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import compiler

from conftest import generate_package
from test_typecheck import _mypy

_TOOL_NAMES = ["ship", "Ship", "ship_args", "get_order", "GetOrder", "order", "track"]
_TITLES = [
    "ShipArgs",
    "Ship",
    "Order",
    "GetOrderArgs",
    "ShipArgsAddress",
    "Track",
    "Used",
]
_FILES = ["a", "c", "z", "Ship", "ship_args", "b2", "order"]
_FOLDERS = ["", "sub/", "zz/"]


def _tool(name: str, uses: bool = False) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 1}},
        },
        "count": {"type": "integer", "multipleOf": 3},
    }
    if uses:
        properties["used"] = {"$ref": "entity:Used"}
    return {
        "name": name,
        "description": f"The tool {name}.",
        "parameters": {"type": "object", "properties": properties},
    }


def _entity(title: str) -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "properties": {
            "nested": {"type": "object", "properties": {"n": {"type": "integer"}}}
        },
    }


def _base(root: Path) -> None:
    """`b.json` (the file watched: a tool using the entity `Used`), the entity's file, and `a.json`."""
    (root / "entities").mkdir(parents=True)
    (root / "entities" / "Used.schema.json").write_text(json.dumps(_entity("Used")))
    (root / "b.json").write_text(json.dumps([_tool("ship", uses=True)]))
    (root / "a.json").write_text(json.dumps([_tool("get_order")]))


def _compile(root: Path) -> dict[str, str] | None:
    result = compiler.compile_specs([root])
    if result.files is None:
        return None
    return {path: text for path, text in result.files.items()}


def _watched(files: dict[str, Any]) -> dict[str, Any]:
    """The outputs of `b.json`: its module and its tool's schema file."""
    return {path: files[path] for path in ("b.py", "schemas/ship.json")}


_CHANGES = st.lists(
    st.one_of(
        st.tuples(
            st.just("tools"),
            st.sampled_from(_FOLDERS),
            st.sampled_from(_FILES),
            st.lists(st.sampled_from(_TOOL_NAMES), min_size=1, max_size=3, unique=True),
        ),
        st.tuples(
            st.just("entity"),
            st.sampled_from(_FOLDERS),
            st.sampled_from(_FILES),
            st.sampled_from(_TITLES),
        ),
        st.tuples(st.just("remove a"), st.just(""), st.just(""), st.just("")),
        st.tuples(
            st.just("rename a"),
            st.sampled_from(_FOLDERS),
            st.sampled_from(_FILES),
            st.just(""),
        ),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(changes=_CHANGES)
def test_other_files_added_removed_or_renamed_change_no_byte_of_a_files_module(
    tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[str, str, str, Any]]
) -> None:
    root = tmp_path_factory.mktemp("specs")
    _base(root)
    before = _compile(root)
    assert before is not None
    for kind, folder, stem, what in changes:
        if kind == "remove a":
            (root / "a.json").unlink(missing_ok=True)
        elif kind == "rename a":
            target = root / folder / f"{stem}.json"
            if (root / "a.json").exists() and not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                (root / "a.json").rename(target)
        else:
            suffix = ".schema.json" if kind == "entity" else ".json"
            target = root / folder / f"{stem}{suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            content = _entity(what) if kind == "entity" else [_tool(n) for n in what]
            target.write_text(json.dumps(content))
        after = _compile(root)
        if after is None:
            continue  # (a name the package holds once defined twice: an error, nothing written)
        assert _watched(after) == _watched(before)


def test_an_unrelated_entity_of_a_tools_model_name_renames_nothing(
    tmp_path: Path,
) -> None:
    """The issue's case: `b.json` (tool `ship`) gives `b.ShipArgs`; an entity file titled `ShipArgs` added
    beside it leaves `b.py` as it was. The package names neither (two modules define `ShipArgs`): each is
    reached through its module, a warning says where, and the package type-checks."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "b.json").write_text(json.dumps([_tool("ship")]))
    alone = _compile(specs)
    assert alone is not None
    (specs / "Ship.schema.json").write_text(json.dumps(_entity("ShipArgs")))
    result = compiler.compile_specs([specs])
    assert result.files is not None and alone["b.py"] == result.files["b.py"]
    warnings = [d for d in result.diagnostics.sorted() if d.code == "shared-name"]
    assert [w.message.split(" (")[0] for w in warnings] == [
        "2 modules define 'ShipArgs'"
    ]
    assert (
        "b.ShipArgs" in warnings[0].message and "ship.ShipArgs" in warnings[0].message
    )

    out, name = generate_package(tmp_path / "packages", specs)
    check = (
        f"import {name} as pkg\n"
        f"from {name}.b import ShipArgs as ToolArgs\n"
        f"from {name}.ship import ShipArgs as Entity\n"
        "assert ToolArgs is not Entity\n"
        "assert ToolArgs.__module__.endswith('.b') and Entity.__module__.endswith('.ship')\n"
        "assert not hasattr(pkg, 'ShipArgs') and 'ShipArgs' not in pkg.__all__\n"
        "assert pkg.ShipArgsAddress is ToolArgs.model_fields['address'].annotation.__args__[0]\n"
        "print(pkg.dispatch('ship', {'count': 3}, type('I', (), {'ship': lambda s, **k: None})()).error)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", check],
        cwd=out.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "None"
    _mypy(tmp_path, out)


def test_two_tools_making_one_method_and_two_entities_one_class_are_errors_naming_both(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "a.json").write_text(json.dumps([_tool("getOrder")]))
    (specs / "b.json").write_text(json.dumps([_tool("get_order")]))
    (specs / "One.schema.json").write_text(json.dumps(_entity("ship_args")))
    (specs / "Two.schema.json").write_text(json.dumps(_entity("ShipArgs")))
    result = compiler.compile_specs([specs])
    assert result.files is None
    found = {d.code: d for d in result.diagnostics.sorted()}
    assert "'getOrder'" in found["method-collision"].message
    assert "'get_order'" in found["method-collision"].message
    assert found["method-collision"].notes  # the other tool's place
    assert "'ship_args'" in found["entity-class-collision"].message
    assert found["entity-class-collision"].notes
