"""A first build of many JSON spec files reads and plans the last ones in a forked child (codegen/split.py): the
output is the same as one process compiling everything, whatever the child does, and when a name is defined in
both halves, or either half has something to report, this process compiles everything.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from codegen import compiler, module_parts, parallel, split
from codegen.module_parts import ModuleParts
from codegen.passes.naming import module_path
from codegen.compile_result import CompileResult


def _tool(name: str, extra: str = "x") -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The tool {name}.",
        "parameters": {
            "type": "object",
            "properties": {
                extra: {"type": "integer", "minimum": 1},
                "nested": {"type": "object", "properties": {"y": {"type": "string"}}},
                "who": {"$ref": "../entities/User.schema.json"},
            },
            "required": [extra],
        },
    }


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    """An entity file, then twelve tool files of three tools each."""
    root = tmp_path / "specs"
    (root / "entities").mkdir(parents=True)
    user = {
        "title": "User",
        "type": "object",
        "properties": {"id": {"type": "integer"}},
    }
    (root / "entities" / "User.schema.json").write_text(json.dumps(user))
    (root / "tools").mkdir()
    for f in range(12):
        tools = [_tool(f"tool_{f}_{t}") for t in range(3)]
        (root / "tools" / f"batch_{f:02d}.json").write_text(json.dumps(tools))
    return root


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Fork for any amount of work; note whether each split build's child half was taken."""
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    monkeypatch.setattr(parallel, "_spare_core", lambda: True)
    taken: list[bool] = []
    finish = split.finish

    def noting(*args: Any) -> Any:
        result = finish(*args)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(split, "finish", noting)
    return taken


def _alone(specs: Path, monkeypatch: pytest.MonkeyPatch) -> CompileResult:
    with monkeypatch.context() as patch:
        patch.setattr(split, "start", lambda *args: None)
        patch.setattr(parallel, "MIN_WORK", 10**9)  # no child at all
        return compiler.compile_specs([specs])


def _same(ours: CompileResult, alone: CompileResult) -> None:
    assert ours.files == alone.files
    assert ours.parts == alone.parts  # the rebuild record too
    assert [d.render() for d in ours.diagnostics.sorted()] == [
        d.render() for d in alone.diagnostics.sorted()
    ]


def test_the_child_plans_the_last_files_and_the_output_is_the_same(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _alone(specs, monkeypatch)
    _same(compiler.compile_specs([specs]), alone)
    assert forking == [True]


def test_a_method_of_both_halves_means_one_process_reports_it(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last file's `Tool-0-0` makes the method `tool_0_0`, as the first file's tool does."""
    last = specs / "tools" / "batch_11.json"
    last.write_text(json.dumps([_tool("Tool-0-0"), _tool("tool_11_1")]))
    alone = _alone(specs, monkeypatch)
    assert "method-collision" in [d.code for d in alone.diagnostics.sorted()]
    _same(compiler.compile_specs([specs]), alone)
    assert forking == [False]


@pytest.mark.parametrize(
    "half, batch, taken",
    [
        ("the child's", 11, [False]),  # the child sends nothing back
        ("this process's", 0, []),  # the child's half is never taken
    ],
)
def test_a_warning_in_either_half_means_one_process_compiles_everything(
    specs: Path,
    forking: list[bool],
    monkeypatch: pytest.MonkeyPatch,
    half: str,
    batch: int,
    taken: list[bool],
) -> None:
    tool = _tool(f"tool_{batch}_0")
    tool["parameters"]["properties"]["z"] = {"type": "integer", "default": "no"}
    (specs / "tools" / f"batch_{batch:02d}.json").write_text(json.dumps([tool]))
    alone = _alone(specs, monkeypatch)
    assert [d.code for d in alone.diagnostics.sorted()] == ["default-mismatch"]
    _same(compiler.compile_specs([specs]), alone)
    assert forking == taken


def test_a_failing_child_means_one_process_plans_everything(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _alone(specs, monkeypatch)
    parent = os.getpid()
    theirs = split._theirs

    def failing_in_the_child(*args: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return theirs(*args)

    monkeypatch.setattr(split, "_theirs", failing_in_the_child)
    _same(compiler.compile_specs([specs]), alone)
    # (the parent then plans the child's half itself, and its names are checked all the same)
    assert forking == [True]


def test_files_after_the_last_entity_file_only_are_the_childs(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entity file last in the order leaves the child nothing: no split."""
    (specs / "zz").mkdir()
    (specs / "zz" / "Late.schema.json").write_text(
        json.dumps({"title": "Late", "type": "object"})
    )
    alone = _alone(specs, monkeypatch)
    _same(compiler.compile_specs([specs]), alone)
    assert forking == []


def test_a_name_defined_in_both_halves_is_reported_as_one_process_does(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each half alone has no duplicate: the first file's tool is defined again in the last file."""
    last = specs / "tools" / "batch_11.json"
    last.write_text(json.dumps([_tool("tool_0_0"), _tool("tool_11_1")]))
    alone = _alone(specs, monkeypatch)
    assert "duplicate-name" in [d.code for d in alone.diagnostics.sorted()]
    _same(compiler.compile_specs([specs]), alone)
    assert forking == [False]


def test_exported_names_cut_alike_in_both_halves_mean_one_process(
    specs: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenAI and Anthropic take 64 characters: two longer names alike in those, one in each half, are told
    apart by a number only one process, seeing both, can give."""
    long = "t" * 64
    (specs / "tools" / "batch_00.json").write_text(json.dumps([_tool(long + "a")]))
    (specs / "tools" / "batch_11.json").write_text(json.dumps([_tool(long + "b")]))
    alone = _alone(specs, monkeypatch)
    assert alone.files is not None and not len(alone.diagnostics)
    assert f'"name": "{long[:62]}_2"' in alone.files["schemas/tools.openai.json"]
    _same(compiler.compile_specs([specs]), alone)
    assert forking == [False]


def test_a_module_of_one_half_named_as_a_folder_of_the_other_is_reported(
    tmp_path: Path, forking: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tools/a.json` (this process's) and `tools/a/b.json` (the child's) both make `tools.a`."""
    root = tmp_path / "specs"
    (root / "tools" / "a").mkdir(parents=True)
    (root / "tools" / "a.json").write_text(
        json.dumps([_tool(f"a_{t}") for t in range(9)])
    )
    deeper = json.dumps([_tool(f"b_{t}") for t in range(9)])
    (root / "tools" / "a" / "b.json").write_text(
        deeper.replace("../entities/", "../../entities/")
    )
    (root / "entities").mkdir()
    (root / "entities" / "User.schema.json").write_text(
        json.dumps({"title": "User", "type": "object"})
    )
    alone = _alone(root, monkeypatch)
    assert [d.code for d in alone.diagnostics.sorted()] == ["module-collision"]
    _same(compiler.compile_specs([root]), alone)
    assert forking == [False]


@pytest.mark.parametrize(
    "rels, collide",
    [
        (["a.json", "b.json"], False),
        (["a.json", "a/b.json"], True),  # a module and a folder of the same name
        (["x/a.json", "x/a/b/c.json"], True),
        (["x/a.json", "y/a.json"], False),
        (["a.json", "a.schema.json"], True),  # both the module `a`
    ],
)
def test_modules_of_both_halves_are_checked_for_collisions(
    rels: list[str], collide: bool
) -> None:
    assert (
        module_parts.clashes(
            ModuleParts(".".join(module_path(rel)), "") for rel in rels
        )
        is collide
    )
