"""The shortcuts of `statements.statement` (model field lines, and tuples with a magic trailing comma) give
exactly what black's whole algorithm (`layout.split_statement`) gives, for drawn lines of their shapes whose
parts are around the 88-column limit.

The shortcuts skip building and tracking lines for the statements the templates print most; these tests are
what makes that safe: wherever a shortcut answers, it must agree with the algorithm, and it must answer for the
lines the templates print (or it saves nothing).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.backends.layout import split_statement
from codegen.backends.statements import (
    annotated_assignment,
    exploded_class,
    exploded_tuple,
    statement,
)
from codegen.literals import py_literal

# Widths chosen so that each part of a line (head, subscript, value) falls on either side of 88 columns.


def _named(stems: list[str], widths: st.SearchStrategy[int]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda stem, width: (stem * 90)[:width], st.sampled_from(stems), widths
    ).filter(lambda n: n.isidentifier() and not keyword.iskeyword(n))


NAME = _named(["field_", "x", "name_", "ab"], st.integers(1, 30) | st.integers(1, 84))
SHORT_NAME = _named(["f", "xy", "min_length", "_models"], st.integers(1, 16))
DOTTED = st.one_of(
    SHORT_NAME,
    st.tuples(SHORT_NAME, SHORT_NAME).map(".".join),
    st.sampled_from(["Field", "_models.MultipleOf", "Annotated", "Literal"]),
)
PIECE = st.sampled_from(
    ["a", "字", "😀", "é", "\u0301", " ", '"', "'", "\\", ",)", "]"]
)
TEXT = st.builds(
    lambda parts, width: "".join(parts)[:width],
    st.lists(PIECE, min_size=1, max_size=40),
    st.integers(0, 40),
) | st.builds(lambda width: "s" * width, st.integers(0, 80))
NUMBER = st.integers(0, 10**12).map(str) | st.sampled_from(["0.5", "1e16", "0.0"])
ATOM = st.one_of(
    st.sampled_from(["None", "True", "...", "str", "int | None", "-1", "lambda: 1"]),
    NUMBER,
    TEXT.map(py_literal),
    SHORT_NAME,
)
ITEM = st.recursive(
    ATOM,
    lambda inner: st.one_of(
        st.tuples(DOTTED, st.lists(inner, min_size=1, max_size=3)).map(
            lambda t: f"{t[0]}[{', '.join(t[1])}]"
        ),
        st.tuples(DOTTED, st.lists(inner, max_size=3)).map(
            lambda t: f"{t[0]}({', '.join(t[1])})"
        ),
        st.tuples(SHORT_NAME, inner).map(lambda t: f"{t[0]}={t[1]}"),
        st.lists(inner, min_size=1, max_size=3).map(
            lambda items: "[" + ", ".join(items) + "]"
        ),
        inner.map(lambda t: f"{t} | None"),
    ),
    max_leaves=4,
)
ARGUMENTS = st.lists(ITEM, min_size=1, max_size=6).map(", ".join)
VALUE = st.one_of(
    ATOM,
    st.tuples(DOTTED, ARGUMENTS).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(DOTTED, ARGUMENTS).map(lambda t: f"{t[0]}[{t[1]}]"),
    st.sampled_from(["f()", "f(a)(b)", "x.y", "a, b"]),
)


@st.composite
def field_lines(draw: st.DrawFn) -> str:
    annotation = f"{draw(DOTTED)}[{draw(ARGUMENTS)}]"
    return f"{draw(NAME)}: {annotation} = {draw(VALUE)}"


@settings(
    max_examples=1500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(field_lines(), st.integers(0, 3))
def test_the_shortcut_agrees_with_the_whole_algorithm(text: str, depth: int) -> None:
    lines = annotated_assignment(text, depth)
    if lines is not None:
        assert "\n".join(lines) == split_statement(text, depth)
    assert statement(text, depth) == split_statement(text, depth)


def test_the_shortcut_takes_the_field_lines_the_templates_print() -> None:
    """The field lines of bench/run.py's synthetic tools, one of each way black splits them."""
    cases = {
        'field_4: Annotated[str, Field(min_length=1, max_length=108)] = Field(description="A string.")': [
            "    field_4: Annotated[str, Field(min_length=1, max_length=108)] = Field(",
            '        description="A string."',
            "    )",
        ],
        'field_3: Annotated[str | None, _models.NOT_NULL, Field(min_length=1, max_length=189)] = Field(None, description="A string.")': [
            "    field_3: Annotated[",
            "        str | None, _models.NOT_NULL, Field(min_length=1, max_length=189)",
            '    ] = Field(None, description="A string.")',
        ],
        "field_0: Annotated[float | None, _models.NOT_NULL, Field(gt=0.0), _models.MultipleOf(0.5)] = None": [
            "    field_0: Annotated[",
            "        float | None, _models.NOT_NULL, Field(gt=0.0), _models.MultipleOf(0.5)",
            "    ] = None",
        ],
        'field_1: Annotated[Literal["alpha", "beta", "gamma"] | None, _models.NOT_NULL] = None': [
            '    field_1: Annotated[Literal["alpha", "beta", "gamma"] | None, _models.NOT_NULL] = (',
            "        None",
            "    )",
        ],
    }
    for text, expected in cases.items():
        assert annotated_assignment(text, 1) == expected
        assert split_statement(text, 1) == "\n".join(expected)


def test_the_shortcut_declines_other_shapes() -> None:
    long = "x" * 80
    for text in [
        f"field: Annotated[{long}, y,] = None",  # a magic trailing comma
        f"field: Annotated[{long}] = None, 1",  # a tuple
        f"field: Annotated[{long}] = f(a)(b)",  # a call of a call
        f"field: Annotated[{long}] | None = None",  # a union
        f"field: Annotated[{long}) = None",  # mismatched brackets
        f"field: Annotated[lambda: {long}] = None",  # a lambda
        f"def f(a: Annotated[{long}] = None): ...",
        f"return: Annotated[{long}] = None",
    ]:
        assert annotated_assignment(text, 1) is None, text


# The shapes the model templates print, with the name and a string stretched across every width around the
# limit, at every depth a field line can have: every boundary between the four splits is crossed.
SHAPES = [
    'NAME: Annotated[str, Field(min_length=1, max_length=108)] = Field(description="TEXT")',
    'NAME: Annotated[str | None, _models.NOT_NULL, Field(min_length=1, max_length=189)] = Field(None, description="TEXT")',
    "NAME: Annotated[float | None, _models.NOT_NULL, Field(gt=0.0), _models.MultipleOf(0.5)] = None",
    'NAME: Annotated[Literal["alpha", "TEXT"] | None, _models.NOT_NULL] = None',
    'NAME: Annotated[list[str] | None, _models.NOT_NULL, Field(min_length=1)] = Field(None, alias="TEXT")',
    'NAME: Annotated[str, Field(description="TEXT")] = "TEXT"',
    "NAME: Annotated[int, Field(ge=0)] = 12345678901234567890",
    'NAME: Annotated[_dt.date | None, _models.NOT_NULL] = Field(None, description="TEXT", examples=["TEXT"])',
]


@pytest.mark.parametrize("shape", SHAPES)
def test_the_shortcut_agrees_across_widths(shape: str) -> None:
    taken = 0
    for depth in range(4):
        for width in range(1, 90, 1 if depth == 1 else 3):
            for text_width, piece in [
                (0, "a"),
                (width // 2, "a"),
                (width, "字"),
                (30, "a"),
            ]:
                text = shape.replace("NAME", ("field_" * 20)[:width]).replace(
                    "TEXT", (piece * text_width)[: max(text_width, 0)]
                )
                lines = annotated_assignment(text, depth)
                if lines is not None:
                    taken += 1
                    assert "\n".join(lines) == split_statement(text, depth), (
                        text,
                        depth,
                    )
    assert taken > 100  # the shortcut answers for most of these


# -- a tuple with a magic trailing comma (TOOL_SPECS) ------------------------------------------------------------

ELEMENT = st.one_of(
    ITEM,
    st.tuples(DOTTED, st.lists(ITEM, min_size=1, max_size=6)).map(
        lambda t: f"{t[0]}({', '.join(t[1])},)"  # a call with a magic trailing comma, as TOOL_SPECS has
    ),
    st.tuples(DOTTED, st.lists(TEXT.map(py_literal), min_size=1, max_size=4)).map(
        lambda t: f"{t[0]}(d={{'k': {', '.join(t[1])}}},)"
    ),
    st.sampled_from(
        [
            "x for x in y",
            "lambda: 1",
            "def",
            "(a, b,)",
            "f(a)(b,)",
            "f(a,)",
            "f(x for x in y, b,)",
            "f(a, g(b,), [c,],)",
            "f(a, lambda: 1, b,)",
            "_dispatch.ToolSpec(def, b,)",
            "a.b.c(x, y, )",
        ]
    ),
)
ANNOTATION = st.one_of(
    st.just("tuple[_dispatch.ToolSpec, ...]"),
    st.tuples(DOTTED, ARGUMENTS).map(lambda t: f"{t[0]}[{t[1]}]"),
    st.sampled_from(["int", "(int)", "tuple[a, b,]", "f[lambda: 1]"]),
)


@st.composite
def tuple_lines(draw: st.DrawFn) -> str:
    elements = draw(st.lists(ELEMENT, min_size=1, max_size=5))
    return f"{draw(NAME)}: {draw(ANNOTATION)} = ({', '.join(elements)},)"


AGREEMENT = settings(
    max_examples=800,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def _agrees(
    shortcut: Callable[[str, int], list[str] | None], text: str, depth: int
) -> None:
    """The shortcut's lines, when it answers, and `statement`'s always, are the whole algorithm's."""
    lines = shortcut(text, depth)
    if lines is not None:
        assert "\n".join(lines) == split_statement(text, depth)
    assert statement(text, depth) == split_statement(text, depth)


@AGREEMENT
@given(tuple_lines(), st.integers(0, 3))
def test_the_tuple_shortcut_agrees_with_the_whole_algorithm(
    text: str, depth: int
) -> None:
    _agrees(exploded_tuple, text, depth)


def test_the_tuple_shortcut_takes_tool_specs() -> None:
    spec = '_dispatch.ToolSpec(name="{0}", method="{0}", description="{1}", args_model=Args, result_type=Any,)'
    for width in range(0, 120, 7):
        elements = [
            spec.format("t" * width, "字" * (width // 2)),
            spec.format("u", "d" * width),
        ]
        for count in (1, 2):  # a spec file of one tool has a one-tuple
            joined = ", ".join(elements[:count])
            text = f"TOOL_SPECS: tuple[_dispatch.ToolSpec, ...] = ({joined},)"
            for depth in range(3):
                lines = exploded_tuple(text, depth)
                assert lines is not None
                assert "\n".join(lines) == split_statement(text, depth)


# -- a class statement: the package's Tools (a magic trailing comma), a model (keywords, none) ----------------

BASE = st.one_of(
    DOTTED,
    NAME,
    st.tuples(NAME, SHORT_NAME).map(".".join),
    st.sampled_from(["Protocol", "_tools_字.Tools", "x.None", "lambda", "a.b.c.Tools"]),
    # keyword arguments, as a model's `schema=` and `extra=`
    st.tuples(SHORT_NAME, TEXT.map(py_literal)).map("=".join),
    st.tuples(
        st.sampled_from(["schema", "extra", "None", "class"]),
        TEXT.filter(lambda text: '"' not in text and "\\" not in text),
    ).map(lambda t: f'{t[0]}="{t[1]}"'),
)


@st.composite
def class_lines(draw: st.DrawFn) -> str:
    bases = draw(st.lists(BASE, min_size=1, max_size=6))
    comma = draw(st.sampled_from([",", ", ", ""]))
    return f"class {draw(NAME)}({', '.join(bases)}{comma}):"


@AGREEMENT
@given(class_lines(), st.integers(0, 3))
def test_the_class_shortcut_agrees_with_the_whole_algorithm(
    text: str, depth: int
) -> None:
    _agrees(exploded_class, text, depth)


def test_the_class_shortcut_takes_the_packages_tools_protocol() -> None:
    for count in (2, 3, 50):
        bases = [f"_tools_batch_{n:05d}.Tools" for n in range(count - 1)] + ["Protocol"]
        text = f"class Tools({', '.join(bases)},):"
        for depth in range(3):
            lines = exploded_class(text, depth)
            assert lines is not None and len(lines) == count + 2
            assert "\n".join(lines) == split_statement(text, depth)


def test_the_class_shortcut_takes_the_model_classes() -> None:
    # the body on one line where it fits, else an element per line
    field = "TOOL_996_INPUT_SCHEMA#/properties/field_0"
    nested = "TOOL_123_INPUT_SCHEMA#/properties/f/properties/g"
    for text, count in (
        (
            f'class Tool996ArgsField0(_models.NativeModel, schema="{field}", extra="forbid"):',
            5,
        ),
        (f'class Tool123ArgsFieldF0G(_models.NativeModel, schema="{nested}"):', 3),
    ):
        lines = exploded_class(text, 0)
        assert lines is not None and len(lines) == count
        assert "\n".join(lines) == split_statement(text, 0)
    assert (
        exploded_class('class X(A, b="x, y"):', 0) is None
    )  # it fits: black leaves it


# -- TOOL_SPECS as the module template prints it: the tuple of calls read from TOKEN's matches ----------------

ARGUMENT = st.one_of(
    st.tuples(SHORT_NAME, ITEM).map("=".join),
    st.tuples(SHORT_NAME, TEXT.map(py_literal)).map("=".join),
    st.sampled_from(
        ["result_type=Any", "metadata={'k': [1, 2,]}", "x=f(a,)", "y=lambda: 1"]
    ),
)
CALL = st.tuples(
    st.sampled_from(["_dispatch.ToolSpec", "ToolSpec", "a.b.C", "f"]),
    st.lists(ARGUMENT | st.sampled_from(["*a", "**k"]), min_size=1, max_size=7),
    st.sampled_from(
        [",", ""]
    ),  # a magic trailing comma, or none (as the templates print them now)
).map(lambda t: f"{t[0]}({', '.join(t[1])}{t[2]})")


@st.composite
def tool_specs_lines(draw: st.DrawFn) -> str:
    head = draw(
        st.sampled_from(
            ["TOOL_SPECS: tuple[_dispatch.ToolSpec, ...]", "X: tuple[a.B, ...]"]
        )
    )
    return f"{head} = ({', '.join(draw(st.lists(CALL, min_size=1, max_size=4)))},)"


@AGREEMENT
@given(tool_specs_lines(), st.integers(0, 3))
def test_the_tool_specs_shortcut_agrees_with_the_whole_algorithm(
    text: str, depth: int
) -> None:
    _agrees(exploded_tuple, text, depth)


def test_the_tool_specs_shortcut_reads_tokens_for_the_usual_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A TOOL_SPECS of arguments that fit is laid out without a Line of leaves."""
    import codegen.backends.statements as statements

    monkeypatch.setattr(statements, "tokenize", lambda text: pytest.fail(text))
    spec = '_dispatch.ToolSpec(name="{0}", method="{0}", description="{1}", args_model=Args, result_type=Any,)'
    for count in (1, 3):
        elements = ", ".join(spec.format(f"t{n}", "字" * n) for n in range(count))
        text = f"TOOL_SPECS: tuple[_dispatch.ToolSpec, ...] = ({elements},)"
        lines = exploded_tuple(text, 0)
        assert lines is not None and len(lines) == 2 + 7 * count
    # as the templates print them now: no magic comma of their own, each call on one line where it fits,
    # else its arguments on one line, else one argument per line
    short = '_dispatch.ToolSpec(name="t{0}", description="x", args_model=A{0})'
    middle = '_dispatch.ToolSpec(name="tool_{0}", description="Synthetic tool {0}.", args_model=Tool{0}Args)'
    long = (
        '_dispatch.ToolSpec(name="tool_{0}", description="{1}", args_model=Tool{0}Args)'
    )
    for spec, per_call in ((short, 1), (middle, 3), (long, 5)):
        elements = ", ".join(spec.format(n, "d" * 50) for n in range(3))
        text = f"TOOL_SPECS: tuple[_dispatch.ToolSpec, ...] = ({elements},)"
        lines = exploded_tuple(text, 0)
        assert lines is not None and len(lines) == 2 + per_call * 3
