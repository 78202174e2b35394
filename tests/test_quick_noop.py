"""A no-op told by stamps alone (codegen/quick.py): the same command again, with every file it rested on as it
was, prints what the no-op printed without importing the compiler; any change to what could change the result
means the ordinary command runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from codegen import cli, quick
from test_rebuild_cache import _tool

ARGV = ["specs", "-o", "out"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "specs" / "sub").mkdir(parents=True)
    (tmp_path / "specs" / "a.json").write_text(json.dumps([_tool("a")]))
    (tmp_path / "specs" / "sub" / "b.json").write_text(json.dumps([_tool("b")]))
    return tmp_path


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as settled (as if each command started a while after the last change)."""
    monkeypatch.setattr(quick, "_SETTLED_NS", -(10**15))


def _recorded(capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """Build, then a no-op (which records); what the no-op printed."""
    assert cli.main(ARGV) == 0
    capsys.readouterr()
    assert cli.main(ARGV) == 0
    printed = capsys.readouterr()
    return printed.out, printed.err


def test_the_same_command_after_a_no_op_prints_the_same_from_stamps(
    project: Path, settled: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = _recorded(capsys)
    assert "0 written" in out
    assert quick.up_to_date(ARGV)
    assert capsys.readouterr() == (out, err)
    assert not quick.up_to_date([*ARGV, "-q"])  # another command line
    assert not quick.up_to_date([*ARGV, "--check"])  # not the simple form at all


@pytest.mark.parametrize(
    "change",
    [
        "edit a spec",
        "touch a spec",
        "add a spec in a subfolder",
        "remove a spec",
        "edit an output",
        "add a pyproject",
        "remove the record",
    ],
)
def test_anything_that_could_change_the_result_means_the_ordinary_command(
    project: Path, settled: None, capsys: pytest.CaptureFixture[str], change: str
) -> None:
    _recorded(capsys)
    assert quick.up_to_date(ARGV)
    time.sleep(0.01)
    if change == "edit a spec":
        (project / "specs" / "a.json").write_text(json.dumps([_tool("a", "Edited.")]))
    elif change == "touch a spec":
        os.utime(project / "specs" / "a.json")
    elif change == "add a spec in a subfolder":
        (project / "specs" / "sub" / "c.json").write_text(json.dumps([_tool("c")]))
    elif change == "remove a spec":
        (project / "specs" / "sub" / "b.json").unlink()
    elif change == "edit an output":
        (project / "out" / "a.py").write_text("print('hello')\n")
    elif change == "add a pyproject":
        (project / "pyproject.toml").write_text("[tool.codegen]\nstrict = true\n")
    else:
        for record in (project / "cache" / "rebuild").iterdir():
            record.unlink()
    assert not quick.up_to_date(ARGV)


def test_files_that_have_not_settled_are_not_taken_on_their_stamps(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Folders and files vouched for by their hash, changed within a second of the no-op: no quick record."""
    _recorded(capsys)
    assert not quick.up_to_date(ARGV)


def test_a_no_op_process_after_a_no_op_imports_no_compiler(project: Path) -> None:
    command = [sys.executable, "-X", "importtime", "-m", "codegen", *ARGV]
    env = {**os.environ, "CODEGEN_CACHE_DIR": str(project / "cache")}
    assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    time.sleep(1.2)  # everything settles
    runs = [
        subprocess.run(command, env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert [run.returncode for run in runs] == [0, 0]
    assert runs[0].stdout == runs[1].stdout and "0 written" in runs[1].stdout
    assert "codegen.cli" in runs[0].stderr  # the ordinary no-op, which records
    assert "codegen.cli" not in runs[1].stderr and "codegen.quick" in runs[1].stderr


def test_a_specs_folder_that_is_a_link_pointed_elsewhere_means_the_ordinary_command(
    project: Path, settled: None, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "specs").rename(project / "real")
    (project / "specs").symlink_to("real")
    other = project / "other"
    other.mkdir()
    (other / "a.json").write_text(json.dumps([_tool("a")]))
    _recorded(capsys)
    assert quick.up_to_date(ARGV)
    (project / "specs").unlink()
    (project / "specs").symlink_to("other")
    assert not quick.up_to_date(ARGV)


def test_the_no_op_right_after_a_build_is_told_by_stamps_and_the_manifests_bytes(
    project: Path,
) -> None:
    """A build leaves the stamps too: its files are vouched for by the stamps it records, and the manifest it
    wrote last (whose stamp could still change unseen within the clock's tick) by its bytes.
    """
    time.sleep(1.2)  # the specs (not OUT) have settled
    command = [sys.executable, "-X", "importtime", "-m", "codegen", *ARGV]
    env = {**os.environ, "CODEGEN_CACHE_DIR": str(project / "cache")}
    build = subprocess.run(command, env=env, capture_output=True, text=True)
    assert build.returncode == 0 and "codegen.cli" in build.stderr
    no_op = subprocess.run(command, env=env, capture_output=True, text=True)
    assert no_op.returncode == 0 and "0 written" in no_op.stdout
    assert "codegen.cli" not in no_op.stderr
    manifest = project / "out" / ".codegen-manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b"{", b"{ ", 1))
    changed = subprocess.run(command, env=env, capture_output=True, text=True)
    assert (
        "codegen.cli" in changed.stderr
    )  # not the bytes it wrote: the ordinary command


def test_a_no_op_that_checked_a_settled_file_by_its_bytes_records_its_stamp(
    project: Path,
) -> None:
    """The manifest a build wrote last is checked by its bytes (importing hashlib, 4 ms of a no-op of 1,000
    tools); once it has settled, the no-op that checked it records its stamp, and the next ones take that.
    """
    time.sleep(1.2)  # the specs (not OUT) have settled
    command = [sys.executable, "-X", "importtime", "-m", "codegen", *ARGV]
    env = {**os.environ, "CODEGEN_CACHE_DIR": str(project / "cache")}
    assert subprocess.run(command, env=env, capture_output=True).returncode == 0
    time.sleep(1.2)  # now the manifest has too
    runs = [
        subprocess.run(command, env=env, capture_output=True, text=True) for _ in "ab"
    ]
    assert all(run.returncode == 0 and "0 written" in run.stdout for run in runs)
    assert all("codegen.cli" not in run.stderr for run in runs)  # both told by quick.py
    assert "hashlib" in runs[0].stderr and "hashlib" not in runs[1].stderr
    manifest = project / "out" / ".codegen-manifest.json"
    manifest.write_bytes(manifest.read_bytes().replace(b"{", b"{ ", 1))
    changed = subprocess.run(command, env=env, capture_output=True, text=True)
    assert "codegen.cli" in changed.stderr  # its stamp moved on: the ordinary command


def _run_changing(change: Callable[[], object]) -> list[tuple[Any, ...]]:
    """The command once, `change` made while it runs: after it looked at every file, before it records the
    stamps the next no-op rests on (`cache.vouched_stamps`, whose arguments of each call are returned).
    """
    from codegen import cache

    vouched = cache.vouched_stamps
    calls: list[tuple[Any, ...]] = []

    def change_then_vouch(*args: Any) -> Any:
        calls.append(args)
        time.sleep(0.02)  # past the tick of the file system's clock the command saw
        change()
        return vouched(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache, "vouched_stamps", change_then_vouch)
        assert cli.main(ARGV) == 0
    return calls


@pytest.mark.parametrize("kind", ["edit rebuild", "no-op"])
def test_an_output_changed_while_a_command_runs_is_not_taken_on_the_stamp_it_had(
    project: Path,
    settled: None,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    """A command takes the stamps of the outputs it leaves as they were from what it saw when it began (the
    stamps `cache.vouched_stamps` is given): one changed since, before the stamps are recorded, has moved its
    change time on, and the same command afterwards runs in full and puts the file back.
    """
    # a build, then a no-op: a rebuild record whose stamps vouch for OUT
    assert cli.main(ARGV) == 0
    assert cli.main(ARGV) == 0
    if kind == "edit rebuild":
        (project / "specs" / "a.json").write_text(
            json.dumps([_tool("a", description="Edited.")])
        )
    kept = project / "out" / "sub" / "b.py"
    text = kept.read_text()
    calls = _run_changing(lambda: kept.write_text(f"{text}# changed meanwhile\n"))
    assert len(calls) == 1 and "sub/b.py" in calls[0][3]  # among OUT's stamps
    capsys.readouterr()
    assert not quick.up_to_date(ARGV)
    assert cli.main(ARGV) == 0
    assert kept.read_text() == text


@pytest.mark.parametrize("kind", ["edit rebuild", "no-op"])
def test_a_spec_file_changed_while_a_command_runs_is_not_taken_on_the_stamp_it_had(
    project: Path,
    settled: None,
    capsys: pytest.CaptureFixture[str],
    kind: str,
) -> None:
    """The stamps of the spec files come from what the scan saw (`vouched_stamps`' `spec_stamps`): a spec file
    changed after it moved its change time on, so the same command afterwards compiles it.
    """
    from codegen import cache

    # a.json the newest spec file: b.json gets a stamp from the next scan (`cache.scan`)
    time.sleep(0.02)
    (project / "specs" / "a.json").write_text(json.dumps([_tool("a")]))
    assert cli.main(ARGV) == 0
    assert cli.main(ARGV) == 0
    record = cache.load(project / "out")
    assert record is not None and "specs/sub/b.json" in record.spec_stamps
    if kind == "edit rebuild":
        (project / "specs" / "a.json").write_text(
            json.dumps([_tool("a", description="Edited.")])
        )
    spec = project / "specs" / "sub" / "b.json"
    changed = json.dumps([_tool("b", description="Changed meanwhile.")])
    calls = _run_changing(lambda: spec.write_text(changed))
    assert len(calls) == 1 and "specs/sub/b.json" in calls[0][1]  # among its stamps
    capsys.readouterr()
    assert not quick.up_to_date(ARGV)
    assert cli.main(ARGV) == 0
    assert "Changed meanwhile." in (project / "out" / "sub" / "b.py").read_text()
