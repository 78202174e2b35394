"""Two outputs whose paths differ only in letter case or Unicode normalization are one file on macOS and Windows:
one would overwrite the other there, and `--check` would never pass. A compile that would make two such outputs
is an error at the later spec, naming the other's (SPEC §6, §7) -- in a full, a split and an edit rebuild alike.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import cli, compiler, parallel, split
from codegen.compile_result import CompileResult
from codegen.writer import MANIFEST, case_collisions, folded
from test_bad_input import run_cli, write


def _entity(title: str) -> dict[str, Any]:
    return {"title": title, "type": "object", "properties": {"id": {"type": "integer"}}}


def _tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The tool {name}.",
        "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
    }


def _errors(result: CompileResult) -> list[str]:
    return [d.render() for d in result.diagnostics.sorted()]


# -- the check itself


def test_folded_names_are_those_case_and_normalization_blind_file_systems_merge() -> (
    None
):
    nfc, nfd = (unicodedata.normalize(form, "café.py") for form in ("NFC", "NFD"))
    assert nfc != nfd and folded(nfc) == folded(nfd)
    assert folded("Customer.json") == folded("CUSTOMER.json")
    # casefold: at least what any of them folds
    assert folded("Straße") == folded("STRASSE")
    # no file system folds compatibility forms
    assert folded("①.py") != folded("1.py") and folded("Ａ") != folded("a")


@given(st.text(st.characters(max_codepoint=0x7F), max_size=12))
def test_an_ascii_name_folds_as_any_other(name: str) -> None:
    """(ASCII names take a shortcut.)"""
    expected = unicodedata.normalize(
        "NFD", unicodedata.normalize("NFD", name).casefold()
    )
    assert folded(name) == expected


def test_collisions_are_found_among_files_and_folders_once_each() -> None:
    paths = [
        "schemas/entities/Customer.json",
        "schemas/entities/CUSTOMER.json",
        "A/x.py",  # the folders A and a collide: reported once, not again for A/x.py and a/x.py
        "a/x.py",
        "a/X.py",
        "b/x.py",
        "PY.TYPED",
        "py.typed",
    ]
    assert case_collisions(paths) == [
        ("A", "a"),
        ("PY.TYPED", "py.typed"),
        ("a/X.py", "a/x.py"),
        ("schemas/entities/CUSTOMER.json", "schemas/entities/Customer.json"),
    ]
    assert case_collisions(["a/x.py", "b/x.py", "a.py", "A_.py", MANIFEST]) == []


# -- a compile


@pytest.mark.parametrize(
    "first, second",
    [("Customer", "CUSTOMER"), ("XMLParser", "XmlParser")],
)
def test_entities_whose_schema_files_differ_in_case_are_an_error_naming_both_specs(
    tmp_path: Path, first: str, second: str
) -> None:
    specs = tmp_path / "specs"
    write(specs, "a.schema.json", _entity(first))
    write(specs, "b.schema.json", _entity(second))
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    # (the two modules' constants `CUSTOMER_SCHEMA` share a name too: a warning says so)
    head = next(line for line in run.stderr.splitlines() if "error[" in line)
    assert head.startswith("specs/b.schema.json:1:1: error[output-collision]: ")
    assert f"'schemas/entities/{second}.json'" in head
    assert f"'schemas/entities/{first}.json' (from specs/a.schema.json)" in head
    assert "specs/a.schema.json:1:1: note: the other output comes from here" in (
        run.stderr
    )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "names",
    [
        ["a/Foo.json", "a/foo.json"],
        ["A/x.json", "a/x.json"],
        ["A/x.json", "a/y.json"],
        [
            unicodedata.normalize("NFC", "café.json"),
            unicodedata.normalize("NFD", "café.json"),
        ],
        ["Straße.json", "STRASSE.json"],
        ["PY.TYPED.json", "py_typed.json"],
        ["Schemas/tools.mcp.json", "schemas/tools.json"],
        ["__INIT__.json", "_Runtime/lazy.json", "Codegen-Manifest.json"],
    ],
)
def test_spec_paths_alike_but_for_case_never_make_outputs_that_are_one_file(
    tmp_path: Path, names: list[str]
) -> None:
    """Spec files and folders differing in case or normalization, or named like codegen's own files: either
    the compile is an error, or no two of its outputs (the manifest included) are one file.
    """
    specs = tmp_path / "specs"
    for number, name in enumerate(names):
        write(specs, name, _tool(f"tool_{number}"))
    result = compiler.compile_specs([specs])
    if result.files is not None:
        assert case_collisions([*result.files, MANIFEST]) == []
    else:
        assert result.diagnostics.has_errors


_TITLES = st.lists(
    st.sampled_from(["Ab", "AB", "ab", "a_b", "aB", "Ab2", "AB_2", "Ab_2", "ÁB", "Ab"]),
    min_size=2,
    max_size=4,
    unique=True,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(titles=_TITLES)
def test_a_compile_either_fails_or_makes_outputs_that_are_each_one_file(
    tmp_path_factory: pytest.TempPathFactory, titles: list[str]
) -> None:
    specs = tmp_path_factory.mktemp("specs")
    for number, title in enumerate(titles):
        write(specs, f"e{number}.schema.json", _entity(title))
    result = compiler.compile_specs([specs])
    codes = {d.code for d in result.diagnostics.sorted()}
    if result.files is None:
        # (two titles of one class, `a b` and `AB`, are an error before their files are)
        assert codes - {"shared-name"} in ({"output-collision"}, {"entity-class-collision"})
    else:
        assert case_collisions([*result.files, MANIFEST]) == []


# -- an edit rebuild and a split build say what a full build says


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    write(tmp_path / "specs", "a.schema.json", _entity("Customer"))
    write(tmp_path / "specs", "b.schema.json", _entity("Other"))
    write(tmp_path / "specs", "tools.json", [_tool("ping")])
    return tmp_path


def test_an_edit_making_two_outputs_one_file_is_reported_as_a_full_build_does(
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["specs", "-o", "out"]) == 0
    tried: list[CompileResult | None] = []
    changed = compiler.compile_changed

    def noting(*args: Any) -> CompileResult | None:
        tried.append(changed(*args))
        return tried[-1]

    monkeypatch.setattr(compiler, "compile_changed", noting)
    before = {p: p.read_bytes() for p in (project / "out").rglob("*") if p.is_file()}
    write(project / "specs", "b.schema.json", _entity("CUSTOMER"))
    capsys.readouterr()
    assert cli.main(["specs", "-o", "out"]) == 1
    edit = capsys.readouterr().err
    assert tried == [None]  # the edit rebuild was tried, and left it to a full compile
    shutil.rmtree("fresh", ignore_errors=True)
    assert cli.main(["specs", "-o", "fresh", "--no-cache"]) == 1
    assert edit.replace("out left", "fresh left") == capsys.readouterr().err
    assert "error[output-collision]" in edit
    after = {p: p.read_bytes() for p in (project / "out").rglob("*") if p.is_file()}
    assert after == before


def test_a_split_build_reports_outputs_that_are_one_file_as_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    specs = tmp_path / "specs"
    write(specs, "entities/a.schema.json", _entity("Customer"))
    write(specs, "entities/b.schema.json", _entity("CUSTOMER"))
    for number in range(12):
        write(specs, f"tools/batch_{number:02d}.json", [_tool(f"tool_{number}")])
    with monkeypatch.context() as patch:
        patch.setattr(split, "start", lambda *args: None)
        alone = compiler.compile_specs([specs])
    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    monkeypatch.setattr(parallel, "_spare_core", lambda: True)
    started: list[bool] = []
    start = split.start

    def noting(*args: Any) -> Any:
        halves = start(*args)
        started.append(halves is not None)
        return halves

    monkeypatch.setattr(split, "start", noting)
    ours = compiler.compile_specs([specs])
    assert started == [True]
    assert ours.files is None and _errors(ours) == _errors(alone)
    assert any("error[output-collision]" in line for line in _errors(alone))
