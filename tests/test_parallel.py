"""The files of a large package are rendered by the process and a forked child, each taking the next module
or run of tools' JSON from a work queue (codegen/parallel.py): the result is the same as rendering them all in
the process, and a child that fails only means the parent renders what it took.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from codegen import compiler, parallel


def _compile(specs: Path) -> dict[str, str]:
    result = compiler.compile_specs([specs])
    assert result.files is not None
    return result.files


@pytest.fixture
def specs() -> Path:
    return Path(__file__).resolve().parents[1] / "examples" / "specs"


def _forking(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork for any amount of work, noting each fork."""
    forks: list[int] = []
    fork = os.fork

    def noting() -> int:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(parallel, "MIN_WORK", 0)
    monkeypatch.setattr(parallel, "_spare_core", lambda: True)
    monkeypatch.setattr(os, "fork", noting)
    return forks


def test_files_rendered_in_a_child_are_the_same(
    specs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _compile(specs)
    forks = _forking(monkeypatch)
    assert _compile(specs) == alone
    assert len(forks) == 1


def test_a_failing_child_means_the_parent_renders_them(
    specs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _compile(specs)
    forks = _forking(monkeypatch)
    parent = os.getpid()
    render = compiler.tool_files

    def failing_in_the_child(tools: Any, names: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return render(tools, names)

    monkeypatch.setattr(compiler, "tool_files", failing_in_the_child)
    assert _compile(specs) == alone
    assert len(forks) == 1


def test_small_work_or_other_threads_mean_no_fork(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parallel, "_spare_core", lambda: True)
    monkeypatch.setattr(os, "fork", lambda: pytest.fail("forked"))
    assert parallel.in_background(parallel.MIN_WORK - 1, lambda: 1)() == 1
    monkeypatch.setattr(parallel.threading, "active_count", lambda: 2)
    assert parallel.in_background(parallel.MIN_WORK, lambda: 2)() == 2


def test_a_work_queue_hands_each_number_to_one_process_once(tmp_path: Path) -> None:
    queue = parallel.WorkQueue(500)
    pid = os.fork()
    if pid == 0:  # the child: note what it takes, slowly
        status = 1
        try:
            taken = []
            for number in queue:
                taken.append(number)
                time.sleep(0.0005)
            (tmp_path / "child").write_text(json.dumps(taken))
            status = 0
        finally:
            os._exit(status)
    ours = []
    for number in queue:
        ours.append(number)
        time.sleep(0.0005)
    os.waitpid(pid, 0)
    theirs = json.loads((tmp_path / "child").read_text())
    assert sorted(ours + theirs) == list(range(500))
    assert ours and theirs  # both took some


def test_numbers_a_pipe_cannot_hold_are_left_to_the_caller() -> None:
    taken = list(parallel.WorkQueue(10**6))
    assert 0 < len(taken) < 10**6 and taken == list(range(len(taken)))


def test_items_a_failing_child_took_are_rendered_by_the_parent(
    specs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = _compile(specs)
    forks = _forking(monkeypatch)
    parent = os.getpid()
    take = compiler._take

    def failing_in_the_child(items: Any, numbers: Any) -> Any:
        if os.getpid() != parent:
            list(numbers)  # takes its items off the queue, then fails
            raise RuntimeError("the child fails")
        return take(items, numbers)

    monkeypatch.setattr(compiler, "_take", failing_in_the_child)
    assert _compile(specs) == alone
    assert len(forks) == 1
