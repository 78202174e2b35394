"""The Jinja environment: templates from the top-level `templates/` folder, spec values only through filters."""

from __future__ import annotations

import os
import sys
from functools import lru_cache

import jinja2
from jinja2.bccache import Bucket

from .literals import black_docstring, py_comment, py_docstring, py_literal
from .resources import data_dir


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # we emit Python: escaping is py_literal's job
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Templates do not change during a compile: without this, every `include` (one per tool) stats its file.
        auto_reload=False,
        bytecode_cache=TemplateCache(),
    )
    env.filters["py"] = py_literal
    env.filters["doc"] = _doc
    env.filters["oneline"] = oneline
    env.filters["comment"] = py_comment
    return env


class TemplateCache(jinja2.FileSystemBytecodeCache):
    """The templates' compiled code, kept beside them as Python keeps a module's (`templates/__pycache__/`):
    parsing and compiling them took a process 80 to 100 ms, more than its imports, at every command. Jinja
    takes a cached template only if it was compiled from the same source (and by the same Python and Jinja);
    the folder is codegen's own, as trusted as its code, and no spec or output is ever read or written there.
    Written as Python writes bytecode: not under PYTHONDONTWRITEBYTECODE (`warm_templates` writes anyway), and
    a folder that cannot be written only means compiling again next time.
    """

    def __init__(self, directory: str | None = None) -> None:
        folder = directory or str(data_dir("templates") / "__pycache__")
        super().__init__(folder, "%s.jinja-bytecode")
        self.write = not sys.dont_write_bytecode

    def load_bytecode(self, bucket: Bucket) -> None:
        # An unreadable or damaged entry is compiled again (Jinja checks its header and source, not its bytes).
        try:
            super().load_bytecode(bucket)
        except Exception:
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        if not self.write:
            return
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def warm_templates() -> None:
    """Compile every template into the cache now, whatever PYTHONDONTWRITEBYTECODE says (as `compileall`
    writes bytecode): what installing codegen or `bench/` does before timing it."""
    # An environment of its own: a template this process has already loaded would not be dumped.
    env = environment.__wrapped__()
    cache = env.bytecode_cache
    assert isinstance(cache, TemplateCache)
    cache.write = True
    for name in env.list_templates(extensions=["jinja"]):
        env.get_template(name)


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)


def _doc(text: str, depth: int | None = None) -> str:
    """A docstring as black prints it at block `depth` (the first statement of a body), or, without a depth,
    a string statement black leaves as it is (one after an assignment is not a docstring to black).
    """
    return py_docstring(text) if depth is None else black_docstring(text, depth)


def oneline(text: str) -> str:
    """A statement the template spreads over lines, joined into the one logical line the layout splits
    (lines are glued to an opening bracket before and a closing bracket after, else joined by a space).
    """
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if not lines:
        return text
    joined = lines[0]
    for line in lines[1:]:
        glued = joined[-1] in "([{" or line[0] in ")]}"
        joined += ("" if glued else " ") + line
    lead = text[: len(text) - len(text.lstrip(" "))]
    return lead + joined + ("\n" if text.endswith("\n") else "")
