"""Patterns with lookahead and lookbehind compile and match in time linear in the text (times the pattern).

They run on `runtime/src/toolspec_runtime/validation/automata.py` (the Rust engine has no lookaround): every lookaround is a
per-position predicate computed in one pass over the text before the main pass. The cost is counted (NFA states
visited plus positions scanned, `automata.STEPS`), never timed: doubling the text at most doubles it (2.2x allowed),
on the patterns a backtracking matcher takes exponential time on too. Answers are checked against Python's `re`
where ECMA-262 and Python agree (ASCII text without \\r and the information separators), and against the Rust
engine on every lookaround-free pattern. Backreferences stay refused.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolspec_runtime.validation import (
    UnsupportedPattern,
    compile_pattern,
    is_valid,
    validate,
)
from toolspec_runtime.validation.translation import _Translation, _translate_pattern
from conftest import compile_result
from test_conformance import DIALECTS, Group, compiled_suite, tally

# (pattern, a text unit repeated to grow the text, whether the grown text matches)
GROWING = [
    ("^(?!(?:meta|local)$).*$", "metal", True),
    ("^(?=.*[A-Z])(?=.*\\d).{8,}$", "abcdefgh", False),
    ("^(?=.*[A-Z])(?=.*\\d).{8,}$", "abcdEf1h", True),
    ('(?<!\\\\)"', '\\"ab', False),
    ("(?<=a+)b", "aaac", False),  # a lookbehind of any width
    (
        "^(?=(a+)+$)",
        "a",
        True,
    ),  # exponential for a backtracking matcher with "b" at the end
    ("^(?=(a+)+$)", "ab", False),
    ("^(?:(?=(?:a|aa)*(?<=(?:x|y){2,3}))a)*c$", "aab", False),  # nested, both kinds
    ("(?<![a-z])\\b\\w+(?=\\s)", "a-", False),
]


def steps(pattern: str, text: str, cached: bool) -> tuple[bool, int]:
    """Whether the pattern matches, and the steps it took (the engine without its DFA cache when not cached)."""
    from toolspec_runtime.validation import automata

    tokens = _Translation(pattern).run()
    machine = automata.Machine(automata.compile_tokens(tokens), cached=cached)
    before = automata.STEPS[0]
    found = machine.search(text)
    return found, automata.STEPS[0] - before


@pytest.mark.parametrize("cached", [False, True], ids=["nfa", "lazy-dfa"])
@pytest.mark.parametrize(("pattern", "unit", "matches"), GROWING)
def test_matching_cost_is_linear_in_the_text(
    pattern: str, unit: str, matches: bool, cached: bool
) -> None:
    counts = []
    for size in (250, 500, 1000, 2000, 4000):
        text = unit * size
        found, count = steps(pattern, text, cached)
        assert found is matches, (pattern, size)
        assert compile_pattern(pattern).search(text) is matches
        counts.append(count)
    for smaller, larger in zip(counts, counts[1:]):
        assert larger <= 2.2 * smaller, (pattern, counts)


def test_cost_is_bounded_by_text_times_pattern() -> None:
    """A pattern ten times longer costs at most about ten times more per character."""
    text = "ab" * 2000
    _, short = steps("(?=(?:a|b)*c)", text, cached=False)
    _, long = steps("(?=(?:a|b)*c)" * 10, text, cached=False)
    assert long <= 11 * short


# -- answers ---------------------------------------------------------------------------------------------------------

# Atoms on which ECMA-262 and Python's re agree over the alphabet below (no \r, no \x1c-\x1f, ASCII only).
ASCII_ATOMS = [
    "a", "b", "A", "1", " ", "-", "_", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "[ab]", "[^a]",
    "[a-c1]", "\\.", "\\n", "^", "$", "\\b", "\\B",
]  # fmt: skip
ALPHABET = ["a", "b", "c", "A", "1", " ", "\n", "-", "_", ".", "\t"]
# Fixed-width pieces only inside lookbehinds, as Python's re asks.
FIXED = st.lists(
    st.sampled_from(
        ["a", "b", "\\d", "\\w", "\\s", "[ab]", "[^a]", ".", "^", "$", "\\b"]
    ),
    min_size=1,
    max_size=3,
).map("".join)


def _lookbehind(body: str) -> st.SearchStrategy[str]:
    return st.sampled_from(["(?<=", "(?<!"]).map(lambda opening: f"{opening}{body})")


ascii_patterns = st.recursive(
    st.one_of(st.sampled_from(ASCII_ATOMS), FIXED.flatmap(_lookbehind)),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"(?:{p[0]}|{p[1]})"),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,3}", "*?"])).map(
            lambda p: f"(?:{p[0]}){p[1]}"
        ),
        st.tuples(st.sampled_from(["(?=", "(?!"]), inner).map(
            lambda p: f"{p[0]}{p[1]})"
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(
    ascii_patterns,
    st.lists(
        st.lists(st.sampled_from(ALPHABET), max_size=8).map("".join),
        min_size=1,
        max_size=6,
    ),
)
def test_lookaround_agrees_with_python_re_where_ecma_and_python_agree(
    pattern: str, texts: list[str]
) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            oracle = re.compile(_translate_pattern(pattern))
    except re.error:
        return
    matcher = compile_pattern(pattern)
    for text in texts:
        if not text and "\\B" in pattern:
            continue  # Python's \B never matches an empty text (before 3.14); ECMA-262's does
        assert matcher.search(text) is bool(oracle.search(text)), (pattern, text)


# Atoms where the sets matter: Unicode letters and digits, case folding, line terminators, surrogates.
WIDE_ATOMS = [
    "a", "k", "é", "1", "\u0663", " ", "\n", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\p{L}", "\\P{Lu}",
    "[a-c]", "[^a]", "[\\w.-]", "(?i:k)", "(?i:\\w)", "(?s:.)", "(?m:^a)", "^", "$", "\\b", "\\B", "\\cJ",
]  # fmt: skip
WIDE_CHARS = [
    "a", "A", "k", "K", "\u212a", "é", "1", "\u0663", " ", "\n", "\r", "\u2028", "\xa0", "\ufeff", "\x1c",
    "-", ".", "\ud800", "\ufffd",
]  # fmt: skip

wide_patterns = st.recursive(
    st.sampled_from(WIDE_ATOMS),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"({p[0]}|{p[1]})"),
        st.tuples(inner, st.sampled_from(["*", "+", "?", "{2}", "{1,2}"])).map(
            lambda p: f"(?:{p[0]}){p[1]}"
        ),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(
    wide_patterns,
    st.lists(
        st.lists(st.sampled_from(WIDE_CHARS), max_size=6).map("".join),
        min_size=1,
        max_size=5,
    ),
)
def test_the_lookaround_engine_agrees_with_the_rust_engine(
    pattern: str, texts: list[str]
) -> None:
    """Both engines run the same tokens: on every lookaround-free pattern they give one answer."""
    from toolspec_runtime.validation import automata

    try:
        rust = compile_pattern(pattern)
    except re.error:
        return
    machine = automata.Machine(automata.compile_tokens(_Translation(pattern).run()))
    for text in texts:
        assert machine.search(text) is rust.search(text), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^(?!(?:meta|local)$).*$", "meta", False),
        ("^(?!(?:meta|local)$).*$", "local", False),
        ("^(?!(?:meta|local)$).*$", "metal", True),
        ("^(?!(?:meta|local)$).*$", "", True),
        ("^(?=.*[A-Z])(?=.*\\d).{8,}$", "passWord1", True),
        ("^(?=.*[A-Z])(?=.*\\d).{8,}$", "password1", False),
        ("^(?=.*[A-Z])(?=.*\\d).{8,}$", "Pass1", False),
        ('(?<!\\\\)"', 'say \\"hi\\"', False),
        ('(?<!\\\\)"', 'say "hi"', True),
        ("(?<=^|,)x", "a,x", True),
        ("(?<=^|,)x", "ax", False),
        (
            "(?<=\\d{2,})px",
            "12px",
            True,
        ),  # a lookbehind of any width, as ECMA-262 allows
        ("(?<=\\d{2,})px", "1px", False),
        ("(?<=(?<!a)b)c", "bc", True),  # nested lookbehinds
        ("(?<=(?<!a)b)c", "abc", False),
        ("^(?=(?=a)ab)a", "ab", True),
        ("^(?=(?!a)ab)a", "ab", False),
        ("^(?:(?!ab).)*$", "aab", False),
        ("^(?:(?!ab).)*$", "bbaa", True),
        ("(?=\\u00e9)\\w", "é", False),  # ECMA's \w is ASCII
        ("^(?!.*\\s$)", "x\u2029", False),  # \s takes PARAGRAPH SEPARATOR
        ("(?<=\ud800)x", "\ud800x", True),  # lone surrogates are code points too
    ],
)
def test_lookaround_answers(pattern: str, text: str, matches: bool) -> None:
    assert compile_pattern(pattern).search(text) is matches
    assert is_valid(text, {"pattern": pattern}) is matches


def test_backreferences_stay_refused() -> None:
    for pattern in ("(a)\\1", "(?<x>a)\\k<x>", "(?=(a)\\1)"):
        with pytest.raises(UnsupportedPattern, match="backreferences"):
            compile_pattern(pattern)
        (problem,) = validate("aa", {"pattern": pattern})
        assert problem.message.startswith("schema error")


def test_a_pattern_too_large_for_the_matcher_is_refused_not_built() -> None:
    """The states of all a pattern's automata count together: many lookarounds cannot each take the limit."""
    for pattern in ("(?=a{5000})" * 20, "(?<=(?:a{1000}){1000})", "(?=x)a{1000000000}"):
        with pytest.raises(UnsupportedPattern, match="too large"):
            compile_pattern(pattern)
    assert compile_pattern("(?=a{50})" * 3).search("a" * 50)


# -- every path: models, checks, patternProperties, propertyNames, defaults -----------------------------------------


def test_lookaround_in_pattern_properties_and_property_names_through_the_models(
    tmp_path: Path,
) -> None:
    dialect = DIALECTS["draft2020-12"]
    keys = {
        "type": "object",
        "patternProperties": {"^(?!(?:meta|local)$)[a-z]+$": {"type": "integer"}},
        "additionalProperties": False,
    }
    names = {"type": "object", "propertyNames": {"pattern": "^(?!_)(?<!x)\\w+(?<!_)$"}}
    groups = [
        Group(
            "keys.json",
            0,
            "patternProperties",
            keys,
            [
                {"description": "a", "data": {"hook": 1}, "valid": True},
                {"description": "b", "data": {"meta": 1}, "valid": False},
                {"description": "c", "data": {"local": 1}, "valid": False},
                {"description": "d", "data": {"hook": "x"}, "valid": False},
            ],
            dialect,
        ),
        Group(
            "names.json",
            0,
            "propertyNames",
            names,
            [
                {"description": "a", "data": {"ok": 1}, "valid": True},
                {"description": "b", "data": {"_x": 1}, "valid": False},
                {"description": "c", "data": {"x_": 1}, "valid": False},
                {"description": "d", "data": {"é": 1}, "valid": False},
            ],
            dialect,
        ),
    ]
    with compiled_suite("draft2020-12", groups, tmp_path, "lookaround_models") as suite:
        assert suite.refused == {}
        result = tally(suite)
    assert result.disagreements == []


def test_a_configuration_schema_with_a_lookahead_compiles(tmp_path: Path) -> None:
    """The shape of pre-commit's configuration schema: a repo is "meta", "local" or any other URL."""
    specs = tmp_path / "specs"
    specs.mkdir()
    schema = {
        "title": "Repo",
        "type": "object",
        "properties": {
            "repo": {"type": "string", "pattern": "^(?!(?:meta|local)$).*$"}
        },
        "required": ["repo"],
    }
    (specs / "Repo.schema.json").write_text(json.dumps(schema))
    result = compile_result(specs)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]


def test_a_default_is_checked_against_a_lookaround_at_compile_time(
    tmp_path: Path,
) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    schema = {"type": "string", "pattern": "^(?!(?:meta|local)$).*$", "default": "meta"}
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"x": schema}}}
    (specs / "t.json").write_text(json.dumps(tool))
    codes = [d.code for d in compile_result(specs).diagnostics.sorted()]
    assert codes == ["default-mismatch"]
