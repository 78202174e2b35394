"""Generated code is laid out without black, and black is the oracle: black reformats none of it.

The compile never runs black (codegen/backends/layout.py ports its line splitting). These tests hold every
generated Python file against `black.format_str`: the bundled examples, the real-tools corpus, and specs
drawn by hypothesis with hostile text (long and wide strings, quotes, backslashes, `\"\"\"`, many enum
values, long names, deep nesting, many parameters). Since the old pipeline was "render, then black", a file
black leaves unchanged is also the file the old pipeline would have produced from the same layout.
"""

from __future__ import annotations

import json
import keyword
from pathlib import Path
from typing import Any

import black
import black._width_table
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import _width
from codegen.backends.layout import signature
from codegen.backends.statements import statement
from codegen.literals import py_literal
from codegen.compiler import compile_specs
from conftest import EXAMPLES, compile_ok, shared

MODE = black.Mode(target_versions={black.TargetVersion.PY310})


def blacked(text: str) -> str:
    """What the old pipeline did to a generated file: run black over it."""
    return black.format_str(text, mode=MODE)


def _python(files: dict[str, str]) -> dict[str, str]:
    return {path: text for path, text in files.items() if path.endswith(".py")}


def _assert_black_stable(files: dict[str, str]) -> None:
    python = _python(files)
    assert python
    for path, text in python.items():
        assert blacked(text) == text, f"black reformats {path}"


def test_width_table_is_blacks() -> None:
    assert _width.WIDTH_TABLE == black._width_table.WIDTH_TABLE


@pytest.mark.parametrize("which", ["examples", "real-tools"])
def test_bundled_specs_are_laid_out_as_black_would(which: str) -> None:
    specs = EXAMPLES if which == "examples" else shared("corpus", "real-tools")
    _assert_black_stable(compile_ok(specs))


# -- statements the templates generate, drawn directly ---------------------------------------------------------

WIDE = st.sampled_from(["字", "😀", "é", "ｱ", "\u0301"])
TEXT = st.text(
    alphabet=st.sampled_from(list("ab '\"\\#:,()[]{}x")) | WIDE, max_size=60
) | st.sampled_from(["", "x" * 90, "字" * 45, "a b " * 30])
NAME = st.from_regex(r"[a-z][a-z0-9_]{0,70}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)
)
ATOMS = st.sampled_from(["str", "int", "float", "bool", "Any", "_dt.date", "Model"])


def _literal_type(values: list[str]) -> str:
    return "Literal[" + ", ".join(py_literal(v) for v in values) + "]"


TYPE = st.recursive(
    ATOMS | st.lists(TEXT, min_size=1, max_size=12).map(_literal_type),
    lambda inner: inner.map(lambda t: f"list[{t}]")
    | st.tuples(inner, inner).map(lambda ts: f"dict[{ts[0]}, {ts[1]}]")
    | inner.map(lambda t: f"{t} | None"),
    max_leaves=6,
)
VALUE = st.one_of(
    st.just("None"),
    st.integers().map(str),
    TEXT.map(py_literal),
)


@st.composite
def field_lines(draw: st.DrawFn) -> str:
    name, kind = draw(NAME), draw(TYPE)
    options = []
    if draw(st.booleans()):
        options.append(draw(VALUE))
    if draw(st.booleans()):
        options.append(f"alias={py_literal(draw(TEXT))}")
    if draw(st.booleans()):
        options.append(f"description={py_literal(draw(TEXT))}")
    if not options:
        return f"{name}: {kind}" + (f" = {draw(VALUE)}" if draw(st.booleans()) else "")
    return f"{name}: {kind} = Field({', '.join(options)})"


@st.composite
def def_parts(draw: st.DrawFn) -> tuple[str, list[str], str]:
    params = [
        f"{draw(NAME)}: {draw(TYPE)}"
        + (f" = {draw(VALUE)}" if draw(st.booleans()) else "")
        for _ in range(draw(st.integers(0, 8)))
    ]
    stub = " ..." if draw(st.booleans()) else ""
    return (
        f"def {draw(NAME)}",
        ["self", "*", *params] if params else ["self"],
        f" -> {draw(TYPE)}:{stub}",
    )


def def_lines() -> st.SearchStrategy[str]:
    return def_parts().map(lambda parts: f"{parts[0]}({', '.join(parts[1])}){parts[2]}")


def _black_statement(text: str, depth: int) -> str:
    """`text` formatted by black at block `depth` (inside nested classes; a def gets a body to parse)."""
    stub = text.endswith("...") or not text.startswith("def")
    body = "" if stub else "\n" + "    " * (depth + 1) + "pass"
    source = "".join("    " * level + "class C:\n" for level in range(depth))
    formatted = blacked(source + "    " * depth + text + body + "\n")
    formatted = formatted[len(source) : -1]
    return formatted[: -len(body)] if body else formatted


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.one_of(field_lines(), def_lines()), st.integers(0, 2))
def test_statements_are_split_as_black_splits_them(text: str, depth: int) -> None:
    assert statement(text, depth) == _black_statement(text, depth)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(def_parts(), st.integers(0, 2))
def test_signatures_are_split_as_black_splits_them(
    parts: tuple[str, list[str], str], depth: int
) -> None:
    """`signature`, the linear-time layout of a tool's def (one parameter per line, each laid out alone)."""
    head, params, tail = parts
    text = f"{head}({', '.join(params)}){tail}"
    assert signature(head, params, tail, depth) == _black_statement(text, depth)


# -- whole specs ------------------------------------------------------------------------------------------------

SCHEMA = st.recursive(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
        optional={"description": TEXT},
    )
    | st.lists(TEXT, min_size=1, max_size=25, unique=True).map(
        lambda values: {"type": "string", "enum": values}
    ),
    lambda inner: st.fixed_dictionaries(
        {
            "type": st.just("object"),
            "properties": st.dictionaries(NAME, inner, min_size=1, max_size=4),
        },
        optional={"description": TEXT},
    )
    | st.fixed_dictionaries(
        {"type": st.just("array"), "items": inner}, optional={"description": TEXT}
    ),
    max_leaves=8,
)


@st.composite
def tools(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    return [
        {
            "name": name,
            "description": draw(
                TEXT | st.just('He said """hi"""\n  two\n\n   lines  ')
            ),
            "parameters": {
                "type": "object",
                "properties": draw(
                    st.dictionaries(NAME, SCHEMA, min_size=0, max_size=12)
                ),
                "required": [],
            },
        }
        for name in names
    ]


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(definitions=tools())
def test_generated_specs_are_laid_out_as_black_would(
    tmp_path: Path, definitions: list[dict[str, Any]]
) -> None:
    spec = tmp_path / "spec" / "tools.json"
    spec.parent.mkdir(exist_ok=True)
    spec.write_text(json.dumps(definitions, ensure_ascii=False), encoding="utf-8")
    result = compile_specs([spec.parent])
    if (
        result.files is None
    ):  # some drawn specs are invalid (a name clash, ...): nothing to lay out
        return
    _assert_black_stable(result.files)
