"""The one literal function: spec values become Python source that evaluates back to the same value, and the
constants codegen formats itself come out exactly as black would format them."""

from __future__ import annotations

import ast
from typing import Any

import black
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.literals import black_literal, py_docstring, py_literal

TEXT = st.text(
    alphabet=st.sampled_from(list("ab'\"\\ \n\tx\u00e9\u2028\x00{}#:,")), max_size=12
) | st.text(max_size=30)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(TEXT, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(JSON)
def test_literals_evaluate_back_to_the_value(value: Any) -> None:
    assert ast.literal_eval(py_literal(value)) == value


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(
    st.lists(JSON, max_size=6)
    | st.dictionaries(TEXT, JSON, max_size=6),  # codegen splices only containers
    st.sampled_from(
        [
            "X: dict[str, Any] = ",
            "SOME_LONGER_CONSTANT_NAME_INPUT_SCHEMA: dict[str, Any] = ",
        ]
    ),
)
def test_black_literal_is_what_black_prints(value: Any, head: str) -> None:
    ours = "\n".join(black_literal(value, head)) + "\n"
    assert black.format_str(ours, mode=black.Mode()) == ours


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(TEXT)
def test_docstrings_are_inert(text: str) -> None:
    source = f"def f():\n    {py_docstring(text)}\n"
    tree = ast.parse(source)
    body = tree.body[0].body  # type: ignore[attr-defined]
    assert len(body) == 1 and ast.get_docstring(tree.body[0], clean=False) == text.strip()  # type: ignore[arg-type]
