"""The Jinja environment: templates from the top-level `templates/` folder, spec values only through filters."""

from __future__ import annotations

from functools import lru_cache

import jinja2

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
    )
    env.filters["py"] = py_literal
    env.filters["doc"] = _doc
    env.filters["oneline"] = oneline
    env.filters["comment"] = py_comment
    return env


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
