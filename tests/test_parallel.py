"""The JSON files of a large package are rendered in a forked child (codegen/parallel.py): the result is the
same as rendering them in the process, and a child that fails only means the parent renders them itself.
"""

from __future__ import annotations

import os
from pathlib import Path

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
    render = compiler.render_exports

    def failing_in_the_child(plan: object, *rest: object) -> object:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return render(plan, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(compiler, "render_exports", failing_in_the_child)
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


def test_the_child_takes_a_share_of_the_python_files_that_evens_out_the_work() -> None:
    from codegen.backends.python import PythonFile, Unit

    units = [Unit(f"m{i}.py", lambda: PythonFile("", {})) for i in range(10)] + [
        Unit("__init__.py", lambda: PythonFile("", {}))
    ]
    weights = {f"m{i}.py": 10 for i in range(10)}
    ours, theirs = compiler._shares(units, weights)
    assert sorted(u.path for u in ours + theirs) == sorted(u.path for u in units)
    assert "__init__.py" in {u.path for u in ours}  # not a module: always the parent's
    total = sum(weights.values())
    child = compiler.JSON_SHARE * total + sum(weights[u.path] for u in theirs)
    parent = sum(weights[u.path] for u in ours if u.path in weights)
    assert theirs and child <= (1 + compiler.JSON_SHARE) * total / 2
    assert abs(child - parent) <= 2 * 10  # within one module's weight of even
