"""No input makes the compiler or the generated code hang: patterns are matched in linear time (or refused at
compile time), resource paths are matched in linear time, `$ref` chains do not blow up exports, and `multipleOf`
is decided without expanding huge exponents.

Each hang case runs in a fresh interpreter under a wall-clock limit; the limit only guards the test run, the
assertions are about what the code answers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, compile_result
from toolspec_runtime.validation import (
    UnsupportedPattern,
    _translate_pattern,
    compile_pattern,
    validate,
)

LIMIT = 20  # seconds; each case takes well under one


def bounded(code: str) -> Any:
    """Run `code` in a fresh interpreter; it prints one JSON value last."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


# -- patterns -------------------------------------------------------------------------------------------------------


def test_catastrophic_pattern_is_matched_in_linear_time() -> None:
    verdicts = bounded("""
        import json
        from toolspec_runtime.validation import is_valid
        schema = {"type": "string", "pattern": "^(a+)+$"}
        names = {"patternProperties": {"^(a+)+$": False}}
        print(json.dumps([
            is_valid("a" * 10_000 + "b", schema),
            is_valid("a" * 10_000, schema),
            is_valid({"a" * 10_000 + "b": 1}, names),
            is_valid({"a" * 10_000: 1}, names),
        ]))
        """)
    assert verdicts == [False, True, True, False]


def test_compile_time_default_check_does_not_backtrack(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    schema = {"type": "string", "pattern": "^(a+)+$", "default": "a" * 40 + "b"}
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"x": schema}}}
    (specs / "t.json").write_text(json.dumps(tool))
    codes = bounded(f"""
        import json
        from pathlib import Path
        from codegen.compiler import compile_specs
        result = compile_specs([Path({str(specs)!r})])
        print(json.dumps([d.code for d in result.diagnostics.sorted()]))
        """)
    assert codes == ["default-mismatch"]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^(a)\\1$", "backreferences"),
        ("(?P<x>a)(?P=x)", "backreferences"),
        ("(?<x>a)\\k<x>", "backreferences"),
        ("a*+", "possessive"),
        ("(?>a+)b", "atomic"),
        ("(a)?(?(1)b|c)", "conditional"),
        ("(?:(?:a{1000}){1000}){1000}", "too large"),
        ("(?=(?:(?:a{1000}){1000}){1000})", "too large"),
    ],
)
def test_patterns_that_need_backtracking_are_refused(pattern: str, reason: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(UnsupportedPattern, match=reason):
            compile_pattern(pattern)
        (problem,) = validate("aab", {"pattern": pattern})
    assert problem.message.startswith("schema error")


def test_refused_pattern_is_a_diagnostic_on_its_span(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "t.json").write_text(
        '{"name": "t", "parameters": {"type": "object",\n'
        '  "properties": {"a": {"type": "string", "pattern": "^(a)\\\\1$"}},\n'
        '  "patternProperties": {"(?>x)": true}}}'
    )
    result = compile_result(specs)
    found = [
        (d.code, d.span.line, d.span.col, d.message.split(":")[0])
        for d in result.diagnostics.sorted()
        if d.span
    ]
    assert found == [
        ("invalid-schema", 2, 53, "pattern '^(a)\\\\1$' is not supported"),
        ("invalid-schema", 3, 25, "pattern '(?>x)' is not supported"),
    ]
    assert result.files is None


# Atoms chosen where Python's `re` and the Rust engine differ (Unicode digits, word characters, case folding,
# "." and newlines, literal braces) and strings made of the characters that tell them apart.
ATOMS = [
    "a", "b", "k", "K", "s", "i", "é", "_", "1", "٣", "²", "ß", "\u0301", " ", "\n", ".", "{", "}", "\\{",
    "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\.", "\\n", "\\x41", "\\101", "\\u00e9", "\\A", "\\Z", "^", "$",
    "[a-c]", "[^a]", "[]a]", "[\\w.-]", "[^\\d\\s]", "[\\0-\\x20]", "\\p{L}", "\\P{Lu}", "[\\p{N}_]",
    "(?i:k)", "(?i:[a-c])", "(?i:\\w)", "(?i:[^k])", "(?-i:a)", "(?s:.)", "(?m:^a)", "(?a:\\w)", "(?P<x>a)",
]  # fmt: skip
CHARS = [
    "a", "b", "A", "B", "K", "k", "\u212a", "é", "É", "_", "1", "٣", "²", "\u0301", " ", "\n", "\xa0", ".", "-",
    "{", "}", "ß", "ẞ", "ſ", "s", "S", "İ", "i", "ı", "\ud800", "\ufffd",
]  # fmt: skip

patterns = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda p: f"({p[0]}|{p[1]})"),
        st.tuples(
            inner, st.sampled_from(["*", "+", "?", "{2}", "{1,2}", "{,2}", "*?"])
        ).map(lambda p: f"(?:{p[0]}){p[1]}"),
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(["", "(?i)", "(?s)", "(?m)", "(?a)"]),
    patterns,
    st.lists(
        st.lists(st.sampled_from(CHARS), max_size=6).map("".join),
        min_size=1,
        max_size=5,
    ),
)
def test_linear_matcher_agrees_with_python_re(
    flags: str, body: str, texts: list[str]
) -> None:
    pattern = flags + body
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            oracle = re.compile(_translate_pattern(pattern))
    except re.error:
        return
    matcher = compile_pattern(pattern)
    for text in texts:
        assert matcher.search(text) is bool(oracle.search(text)), (pattern, text)


# -- numbers --------------------------------------------------------------------------------------------------------


def test_multiple_of_with_huge_exponents_is_decided_without_expanding_them() -> None:
    verdicts = bounded("""
        import json
        from decimal import Decimal as D
        from toolspec_runtime.validation import is_valid
        cases = [
            (D("1e10000000"), 3), (D("1e10000000"), D("1e-10000000")), (D("3e10000000"), D("7e-5")),
            (7, D("1e10000000")), (D("1e-10000000"), D("1e10000000")), (D("2e10000000"), D("0.4")),
            (10**4000, D("1e-10000000")), (D("1e10000000"), 10**4000),
        ]
        print(json.dumps([is_valid(value, {"multipleOf": divisor}) for value, divisor in cases]))
        """)
    assert verdicts == [False, True, False, False, False, True, True, True]


def test_numbers_beyond_pythons_digit_limit_are_refused_not_computed_with() -> None:
    messages = bounded("""
        import json
        from decimal import Decimal
        from toolspec_runtime.validation import validate
        found = [
            validate(10**1_000_000, {"maximum": Decimal("1e10000000")}),
            validate(Decimal("7" * 100_000), {"multipleOf": 3}),
            validate(5, {"multipleOf": Decimal("7" * 100_000)}),
            validate("abc", {"maxLength": Decimal("1e10000000")}),
            validate(Decimal("1e10000000"), {"const": 10**4000}),
        ]
        print(json.dumps([[p.message for p in problems] for problems in found]))
        """)
    assert messages == [
        ["numbers of more than 4300 digits are not accepted"],
        ["numbers of more than 4300 digits are not accepted"],
        ["schema error: multipleOf has too many digits"],
        [],
        ["must be equal to an integer of 13288 bits"],
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(-(10**9), 10**9),
    st.integers(-12, 12),
    st.integers(1, 5000),
    st.integers(-12, 12),
)
def test_multiple_of_agrees_with_exact_fractions(
    value: int, value_exponent: int, divisor: int, divisor_exponent: int
) -> None:
    from decimal import Decimal
    from fractions import Fraction

    from toolspec_runtime.validation import _is_multiple

    a = Decimal(value).scaleb(value_exponent)
    b = Decimal(divisor).scaleb(divisor_exponent)
    assert _is_multiple(a, b) is ((Fraction(a) / Fraction(b)).denominator == 1)
    as_float = float(repr(float(a)))
    expected = (Fraction(repr(as_float)) / Fraction(b)).denominator == 1
    assert _is_multiple(as_float, b) is expected


# -- resource paths -------------------------------------------------------------------------------------------------


def test_resource_path_matching_is_linear_in_the_path() -> None:
    found = bounded("""
        import json
        from toolspec_runtime.paths import _parts, _split
        template = _parts("/releases/v{major}.{minor}.{patch}/notes")
        digits = "/releases/v" + "1." * 500_000  # 1 MB; a backtracking regex takes cubic time here
        found = [_split(template, digits), _split(template, digits + "1/notes")]
        print(json.dumps([None if f is None else [len(v) for v in f] for f in found]))
        """)
    assert found == [None, [999_997, 1, 1]]


# -- exports --------------------------------------------------------------------------------------------------------


def doubling_chain(links: int) -> dict[str, Any]:
    """A tool whose definitions each use the next one twice: 2**links leaves if every `$ref` were expanded."""
    defs: dict[str, Any] = {
        f"D{i}": {
            "type": "object",
            "properties": {
                "a": {"$ref": f"#/$defs/D{i + 1}"},
                "b": {"$ref": f"#/$defs/D{i + 1}"},
            },
        }
        for i in range(links)
    }
    defs[f"D{links}"] = {"type": "string"}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}}
    return {"name": "t", "inputSchema": {**schema, "$defs": defs}}


def test_xml_export_of_a_doubling_ref_chain_stays_small() -> None:
    tool = doubling_chain(24)
    assert len(json.dumps(tool)) < 2600
    sizes = bounded(f"""
        import json
        from toolspec_runtime.exports import export_tools
        text = export_tools([json.loads({json.dumps(json.dumps(tool))})], "xml")
        print(json.dumps([len(text), text.count("<arg"), text.count('schema="D24"')]))
        """)
    assert sizes[0] < 100_000 and sizes[1] < 300 and sizes[2] >= 1


def test_xml_export_of_nested_alternatives_is_not_exponential() -> None:
    defs: dict[str, Any] = {
        f"D{i}": {
            "anyOf": [{"$ref": f"#/$defs/D{i + 1}"}, {"$ref": f"#/$defs/D{i + 1}"}]
        }
        for i in range(40)
    }
    defs["D40"] = {"type": "string"}
    defs["Self"] = {"anyOf": [{"$ref": "#/$defs/Self"}, {"type": "integer"}]}
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D0"}, "y": {"$ref": "#/$defs/Self"}},
        "$defs": defs,
    }
    types = bounded(f"""
        import json, re
        from toolspec_runtime.exports import export_tools
        tool = {{"name": "t", "inputSchema": json.loads({json.dumps(json.dumps(schema))})}}
        print(json.dumps(re.findall(r'<arg name="(\\w)" type="([^"]*)"', export_tools([tool], "xml"))))
        """)
    assert types == [["x", "string"], ["y", "any"]]
