"""The templates' compiled code kept beside them (`codegen.render.TemplateCache`): taken only when compiled from
the same source, renders the same bytes, and a folder that cannot be written costs nothing but time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2
import pytest

from codegen import render
from codegen.resources import data_dir


def _environment(cache: render.TemplateCache, folder: Path | None = None) -> Any:
    """`render.environment()`'s settings and filters over `cache` (and, given, templates from `folder`)."""
    env = render.environment.__wrapped__()
    env.bytecode_cache = cache
    if folder is not None:
        env.loader = jinja2.FileSystemLoader(str(folder))
    return env


def _compiles(env: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the templates `env` compiles from their source from now on."""
    compiled: list[str] = []
    original = env.compile

    def compile(source: str, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        compiled.append(name or "")
        return original(source, name, *args, **kwargs)

    monkeypatch.setattr(env, "compile", compile)
    return compiled


def test_a_cached_template_is_not_compiled_again_and_renders_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = render.TemplateCache(str(tmp_path / "cache"))
    cache.write = True
    first = _environment(cache)
    text = first.get_template("subpackage_init.py.jinja").render(
        package="shop", runtime_api="0.5", children=["a"], constant=lambda *a: "X = 1"
    )
    assert len(list((tmp_path / "cache").iterdir())) == 1

    second = _environment(render.TemplateCache(str(tmp_path / "cache")))
    compiled = _compiles(second, monkeypatch)
    again = second.get_template("subpackage_init.py.jinja").render(
        package="shop", runtime_api="0.5", children=["a"], constant=lambda *a: "X = 1"
    )
    assert compiled == [] and again == text


def test_an_edited_template_is_compiled_from_its_new_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.jinja").write_text("one {{ x }}\n")
    cache = render.TemplateCache(str(tmp_path / "cache"))
    cache.write = True
    assert _environment(cache, folder).get_template("t.jinja").render(x=1) == "one 1\n"
    (folder / "t.jinja").write_text("two {{ x }}\n")
    env = _environment(render.TemplateCache(str(tmp_path / "cache")), folder)
    compiled = _compiles(env, monkeypatch)
    assert env.get_template("t.jinja").render(x=1) == "two 1\n"
    assert compiled == ["t.jinja"]


def test_a_folder_that_cannot_be_written_only_costs_time(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")  # the cache's folder would be below a file
    cache = render.TemplateCache(str(blocked / "cache"))
    cache.write = True
    env = _environment(cache)
    assert "_require" in env.get_template("subpackage_init.py.jinja").render(
        package="p", runtime_api="0.5", children=[], constant=lambda *a: "X = 1"
    )


def test_a_damaged_entry_is_compiled_again(tmp_path: Path) -> None:
    cache = render.TemplateCache(str(tmp_path / "cache"))
    cache.write = True
    _environment(cache).get_template("subpackage_init.py.jinja")
    (entry,) = (tmp_path / "cache").iterdir()
    entry.write_bytes(
        entry.read_bytes()[:12]
    )  # the header, then the checksum cut short
    env = _environment(render.TemplateCache(str(tmp_path / "cache")))
    assert "_require" in env.get_template("subpackage_init.py.jinja").render(
        package="p", runtime_api="0.5", children=[], constant=lambda *a: "X = 1"
    )


def test_nothing_is_written_where_bytecode_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    cache = render.TemplateCache(str(tmp_path / "cache"))
    _environment(cache).get_template("subpackage_init.py.jinja")
    assert not (tmp_path / "cache").exists()


def test_the_cache_is_beside_the_templates_and_none_of_them() -> None:
    cache = render.TemplateCache()
    assert Path(cache.directory) == data_dir("templates") / "__pycache__"
    env = render.environment()
    assert all(
        name.endswith(".jinja") and os.sep not in name and "/" not in name
        for name in env.list_templates(extensions=["jinja"])
    )
