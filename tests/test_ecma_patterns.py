"""Patterns mean what ECMA-262 says (with the "u" flag, as JSON Schema reads them, and as jsonschema-rs and ajv
do), on every path: the interpreter, compiled checks, native models and the compiler's checks of defaults.

`\\d` is [0-9], `\\w` is [A-Za-z0-9_], `\\s` is ECMA's WhiteSpace and LineTerminator, `\\b` looks at ASCII word
characters, `.` stops at every line terminator, `$` is the end of input, `\\cX` is a control character, and
`(?<name>...)` is a named group. The suite's optional/ecmascript-regex.json (and non-bmp-regex.json) pass in full
in every dialect.
"""

from __future__ import annotations

import importlib
import json
import unicodedata
from pathlib import Path

import pytest

from toolspec_runtime.validation import compile_pattern, is_valid
from conftest import compile_result, shared
from test_compiled_checks import count_checks
from test_conformance import DIALECTS, Group, compiled_suite, tally

OPTIONAL_FILES = ("ecmascript-regex.json", "non-bmp-regex.json")


def optional_groups(dialect: str, name: str) -> list[Group]:
    path = shared("conformance", "json-schema-test-suite", dialect, "optional", name)
    groups = json.loads(path.read_text(encoding="utf-8"))
    return [
        Group(name, index, g["description"], g["schema"], g["tests"], DIALECTS[dialect])
        for index, g in enumerate(groups)
    ]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_suites_ecmascript_regex_passes_in_full_through_the_models(
    dialect: str, tmp_path: Path
) -> None:
    groups = [g for name in OPTIONAL_FILES for g in optional_groups(dialect, name)]
    with compiled_suite(
        dialect, groups, tmp_path, "ecma_" + dialect.replace("-", "_")
    ) as suite:
        assert suite.refused == {}
        result = tally(suite)
    assert result.disagreements == []
    assert result.agree == result.total
    assert result.total["ecmascript-regex.json"] == 74


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_suites_ecmascript_regex_passes_in_full_in_the_interpreter(
    dialect: str,
) -> None:
    for group in optional_groups(dialect, "ecmascript-regex.json"):
        schema = {k: v for k, v in group.schema.items() if k != "$schema"}
        for case in group.tests:
            assert is_valid(case["data"], schema) is case["valid"], (
                group.description,
                case,
            )


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^\\d$", "\u0663", False),  # ARABIC-INDIC DIGIT THREE: Python's \d takes it
        ("^\\D$", "\u0663", True),
        ("^\\w$", "é", False),
        ("^\\W$", "é", True),
        ("^\\s$", "\x1c", False),  # Python's \s takes the information separators
        ("^\\s$", "\u0085", False),  # and NEXT LINE
        ("^\\s$", "\ufeff", True),
        ("^\\s$", "\u2029", True),
        ("^\\S$", "\x1c", True),
        ("^[\\s]$", "\ufeff", True),
        ("^[^\\s]$", "\ufeff", False),
        ("^[\\d-]+$", "1-2", True),
        ("^[\\w]+$", "aé", False),
        ("^.$", "\r", False),  # "." stops at every LineTerminator
        ("^.$", "\u2028", False),
        ("^.$", "\u2029", False),
        ("^.$", "\x85", True),
        ("(?s)^.$", "\r", True),
        (
            "\\bé",
            "xé",
            True,
        ),  # é is no ASCII word character: a boundary (none in Python's re)
        ("x\\b", "xé", True),
        ("\\Bé", "xé", False),
        ("^\\cJ$", "\n", True),
        ("^[\\cJ]$", "\n", True),
        ("^\\cj$", "\n", True),
        ("^(?<year>\\d{4})-\\d{2}$", "2024-05", True),
        ("^(?<year>\\d{4})-\\d{2}$", "2024-5", False),
        ("(?i)^\\w$", "\u212a", True),  # KELVIN SIGN folds to k, as in ECMA-262's /iu
    ],
)
def test_classes_mean_what_ecma_262_says(
    pattern: str, text: str, matches: bool
) -> None:
    assert compile_pattern(pattern).search(text) is matches
    assert is_valid(text, {"pattern": pattern}) is matches


def test_ecma_white_space_is_unicodes_space_separators_and_the_listed_ones() -> None:
    from toolspec_runtime.validation.charsets import (
        _ECMA_SPACE,
        _SPACE_SEPARATORS,
        _merge,
    )

    separators = [c for c in range(0x110000) if unicodedata.category(chr(c)) == "Zs"]
    assert _merge((c, c) for c in separators) == _SPACE_SEPARATORS
    named = [(0x09, 0x0D), (0xFEFF, 0xFEFF), (0x2028, 0x2029), *_SPACE_SEPARATORS]
    assert _merge(named) == _ECMA_SPACE


def pattern_groups(pattern: str, cases: list[tuple[str, bool]]) -> list[Group]:
    """Two entities with the pattern: one native (a plain string property), one checked (beside a oneOf), and the
    cases as the suite's tests, as objects {"s": text}."""
    plain = {
        "type": "object",
        "properties": {"s": {"type": "string", "pattern": pattern}},
    }
    checked = {**plain, "oneOf": [{"required": ["s"]}, {"required": ["t"]}]}
    tests = [
        {"description": text, "data": {"s": text}, "valid": valid}
        for text, valid in cases
    ]
    dialect = DIALECTS["draft2020-12"]
    return [
        Group("plain.json", 0, "native", plain, tests, dialect),
        Group("checked.json", 0, "checked", checked, tests, dialect),
    ]


@pytest.mark.parametrize(
    ("pattern", "cases"),
    [
        (
            "^\\d+\\s\\w$",
            [
                ("12 a", True),
                ("\u0663 a", False),
                ("1\u2003a", True),
                ("1 é", False),
                ("1\x1ca", False),
            ],
        ),
        ("^a.b$", [("a-b", True), ("a\rb", False), ("a\u2028b", False)]),
        ("x\\b", [("x", True), ("xé", True), ("xa", False)]),
        (
            "^(?!(?:meta|local)$).*$",
            [("meta", False), ("local", False), ("metal", True), ("", True)],
        ),
        (
            "^(?=.*[A-Z])(?=.*\\d).{8,}$",
            [("abcdefG1", True), ("abcdefgh", False), ("A1", False)],
        ),
        ('(?<!\\\\)"', [('a"', True), ('\\"', False), ("a", False)]),
    ],
)
def test_models_native_and_checked_agree_with_ecma_262(
    pattern: str, cases: list[tuple[str, bool]], tmp_path: Path
) -> None:
    groups = pattern_groups(pattern, cases)
    with compiled_suite("draft2020-12", groups, tmp_path, "ecma_models") as suite:
        assert suite.refused == {}
        text = (suite.out / "plain_000.py").read_text(encoding="utf-8")
        assert "_models.NativeModel" in text and "_models.Pattern(" in text
        checked = importlib.import_module("ecma_models.checked_000")
        assert count_checks(checked)[0] > 0
        result = tally(suite)
    assert result.disagreements == []


def test_a_default_is_checked_with_ecma_classes_at_compile_time(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    schema = {"type": "string", "pattern": "^\\d+$", "default": "\u0663"}
    tool = {"name": "t", "parameters": {"type": "object", "properties": {"x": schema}}}
    (specs / "t.json").write_text(json.dumps(tool))
    codes = [d.code for d in compile_result(specs).diagnostics.sorted()]
    assert codes == ["default-mismatch"]
