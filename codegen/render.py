"""The Jinja environment: templates from the top-level `templates/` folder, spec values only through filters."""

from __future__ import annotations

from functools import lru_cache

import jinja2

from .backends.literals import py_comment, py_docstring, py_literal
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
    )
    env.filters["py"] = py_literal
    env.filters["doc"] = py_docstring
    env.filters["comment"] = py_comment
    return env


def render(template: str, **context: object) -> str:
    return environment().get_template(template).render(**context)
