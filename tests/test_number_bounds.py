"""Numbers at the edges: bounds beyond any instance, and numerals a float cannot hold.

Count bounds far beyond any length (`maxLength: 1e20`, 2**64) and numeric bounds beyond 64 bits reach every path
-- native `Field(...)` constraints (pydantic-core stores a count as a usize), compiled checks, the interpreter,
the OpenAI export -- and must mean what the schema says, as `jsonschema` decides. And every front end reads a
number as the number it writes: to within rounding of a float's last bit, or exactly as a Decimal where no float
holds it (`1e999`, `1e-400` is not 0).
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ConfigDict, Field, ValidationError, create_model

from codegen.compiler import compile_specs
from codegen.diagnostics import Diagnostics, SourceFile, SpecError
from codegen.frontends.brimley.safe_yaml import load_yaml
from codegen.frontends.gram.syntax import GramSyntaxError, parse_gram
from codegen.frontends.json.parse import SMALLEST_FLOAT, parse_json
from codegen.passes.native import MAX_LENGTH
from toolspec_runtime.exports import openai_tool
from toolspec_runtime.validation import validate
from conftest import generate_package
from oracle import accepts, model_accepts
from test_exports import openai_strict_problems

# Around pydantic-core's limits (i64, usize) and beyond: as integers and as the floats a spec may write.
LIMITS: list[int | float] = [2**63 - 1, 2**63, 2**64, 10**20, 1e20, 1e308]
COUNT_SLOTS: dict[str, dict[str, Any]] = {
    "minLength": {"type": "string"},
    "maxLength": {"type": "string"},
    "minItems": {"type": "array"},
    "maxItems": {"type": "array"},
    "minContains": {"type": "array", "contains": {"type": "integer"}},
    "maxContains": {"type": "array", "contains": {"type": "integer"}},
    "minProperties": {"type": "object"},
    "maxProperties": {"type": "object"},
}
SAMPLES: dict[str, list[Any]] = {
    "string": ["", "ab"],
    "array": [[], [1], [1, "x", 2]],
    "object": [{}, {"a": 1}],
}
NUMBER_BOUNDS: list[int | float] = [
    *LIMITS,
    -(2**64),
    -1e308,
    1e-300,
    2**53 + 1,
    10**999,
]
DIVISORS: list[int | float] = [2**63, 2**64, 10**20, 1e20, 1e308, 10**999]
NUMBERS: list[int | float] = [
    0,
    1,
    -1,
    0.5,
    1e-300,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    2**64,
    10**20,
    1e20,
    3 * 10**20,
    1e308,
    -1e308,
    10**999,
]


def _counts() -> dict[str, Any]:
    return {
        f"{keyword}_{index}": {**slot, keyword: value}
        for keyword, slot in COUNT_SLOTS.items()
        for index, value in enumerate(LIMITS)
    }


def _numbers() -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for kind in ("integer", "number"):
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            for index, value in enumerate(NUMBER_BOUNDS):
                properties[f"{kind}_{keyword}_{index}"] = {"type": kind, keyword: value}
        for index, value in enumerate(DIVISORS):
            properties[f"{kind}_multipleOf_{index}"] = {
                "type": kind,
                "multipleOf": value,
            }
    return properties


def _closed(properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        **more,
    }


# A model of each kind: native (its fields in Pydantic's annotations, or checked alone), and checked whole
# (`minProperties` on the model itself has no native form).
SCHEMAS: dict[str, dict[str, Any]] = {
    "NativeCounts": _closed(_counts()),
    "CheckedCounts": _closed(_counts(), minProperties=0),
    "NativeNumbers": _closed(_numbers()),
    "CheckedNumbers": _closed(_numbers(), minProperties=0),
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    folder = tmp_path_factory.mktemp("bounds")
    specs = folder / "specs"
    specs.mkdir()
    for name, schema in SCHEMAS.items():
        (specs / f"{name.lower()}.schema.json").write_text(
            json.dumps({"title": name, **schema})
        )
    tools = [
        {"name": "count_bounds", "inputSchema": SCHEMAS["NativeCounts"]},
        {"name": "number_bounds", "inputSchema": SCHEMAS["NativeNumbers"]},
    ]
    (specs / "tools.json").write_text(json.dumps({"tools": tools}))
    out, name = generate_package(folder, specs, name="number_bounds_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def _model(package: ModuleType, name: str) -> Any:
    return getattr(package, name)


def test_the_models_are_of_the_kinds_named(package: ModuleType) -> None:
    native = importlib.import_module("toolspec_runtime.models").NativeModel
    assert issubclass(_model(package, "NativeCounts"), native)
    assert issubclass(_model(package, "NativeNumbers"), native)
    assert not issubclass(_model(package, "CheckedCounts"), native)
    assert not issubclass(_model(package, "CheckedNumbers"), native)


@pytest.mark.parametrize("model", ["NativeCounts", "CheckedCounts"])
@pytest.mark.parametrize("field", list(_counts()))
def test_a_count_bound_beyond_any_length_means_what_the_schema_says(
    package: ModuleType, model: str, field: str
) -> None:
    """`maxLength: 1e20` allows every string, `minLength: 1e20` none: no model fails to build (pydantic-core
    took `Field(max_length=10**20)` for an internal error on every call), and each agrees with `jsonschema`.
    """
    kind = _counts()[field]["type"]
    for sample in SAMPLES[kind]:
        instance = {field: sample}
        expected = accepts(SCHEMAS[model], instance)
        if "Contains" not in field:  # (`contains` itself wants an integer)
            assert expected == field.startswith("max"), "the oracle reads the bound so"
        assert model_accepts(_model(package, model), instance) == expected, instance


def test_a_call_with_a_huge_count_bound_is_validated_not_an_internal_error(
    package: ModuleType,
) -> None:
    class Tools:
        def count_bounds(self, **kwargs: Any) -> None:
            return None

    for field, schema in _counts().items():
        for sample in SAMPLES[schema["type"]]:
            arguments = {field: sample}
            result = package.dispatch("count_bounds", arguments, Tools())
            if accepts(SCHEMAS["NativeCounts"], arguments):
                assert result.error is None, (arguments, result)
            else:
                assert result.error is not None, arguments
                assert result.error.kind == "invalid_arguments", (arguments, result)


def _exact(value: int | float) -> bool:
    """Whether a number is the decimal its shortest literal writes (the interpreter's reading of a float's
    `multipleOf`; `jsonschema` divides binary floats, so the two differ only where a float is not).
    """
    return isinstance(value, int) or Fraction(repr(value)) == Fraction(value)


def _oracle(schema: dict[str, Any], instance: Any) -> bool | None:
    """`jsonschema`'s verdict, None where it fails (it divides a huge integer by a float divisor as a float)."""
    try:
        return accepts(schema, instance)
    except OverflowError:
        return None


@pytest.mark.parametrize("model", ["NativeNumbers", "CheckedNumbers"])
@pytest.mark.parametrize("field", list(_numbers()))
def test_a_numeric_bound_beyond_64_bits_means_what_the_schema_says(
    package: ModuleType, model: str, field: str
) -> None:
    schema = _numbers()[field]
    for number in NUMBERS:
        if not (_exact(schema.get("multipleOf", 1)) and _exact(number)):
            continue
        if schema["type"] == "number" and abs(number) > sys.float_info.max:
            continue  # a `number` is typed `float`, which holds no integer that large
        instance = {field: number}
        expected = _oracle(SCHEMAS[model], instance)
        if expected is not None:
            assert model_accepts(_model(package, model), instance) == expected, instance


def test_a_call_with_a_huge_numeric_bound_is_validated_not_an_internal_error(
    package: ModuleType,
) -> None:
    class Tools:
        def number_bounds(self, **kwargs: Any) -> None:
            return None

    for field in _numbers():
        for number in NUMBERS:
            result = package.dispatch("number_bounds", {field: number}, Tools())
            assert result.error is None or result.error.kind == "invalid_arguments", (
                field,
                number,
                result,
            )


@pytest.mark.parametrize("option", ["min_length", "max_length"])
def test_pydantic_core_builds_every_count_up_to_the_greatest_length(
    option: str,
) -> None:
    """What the native path relies on: any count up to MAX_LENGTH builds (a usize holds it; 2**64 does not)."""
    for base in (str, list[int], dict[str, int]):
        field = Annotated[base, Field(**{option: MAX_LENGTH})]  # type: ignore[valid-type]
        model = create_model(
            "Model", __config__=ConfigDict(strict=True), x=(field, ...)
        )
        if option == "max_length":
            model.model_validate({"x": base()})
        else:
            with pytest.raises(ValidationError):
                model.model_validate({"x": base()})


COUNT_VALUES = (
    st.sampled_from(LIMITS)
    | st.integers(MAX_LENGTH - 2, 2**66)
    | st.floats(2.0**62, 1e308).map(math.floor).map(float)
)


@settings(max_examples=200, deadline=None)
@given(
    keyword=st.sampled_from(sorted(COUNT_SLOTS)),
    value=COUNT_VALUES,
    size=st.integers(0, 3),
)
def test_the_interpreter_agrees_on_any_huge_count(
    keyword: str, value: int | float, size: int
) -> None:
    schema = {**COUNT_SLOTS[keyword], keyword: value}
    sample = {
        "string": "x" * size,
        "array": [1] * size,
        "object": {str(i): i for i in range(size)},
    }[schema["type"]]
    assert (validate(sample, schema) == []) == accepts(schema, sample)


def _openai_numbers(value: Any) -> list[Any]:
    """Every number in an exported value."""
    if isinstance(value, dict):
        return [n for item in value.values() for n in _openai_numbers(item)]
    if isinstance(value, list):
        return [n for item in value for n in _openai_numbers(item)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    return []


@settings(max_examples=200, deadline=None)
@given(
    keyword=st.sampled_from(
        ["minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum"]
        + ["exclusiveMaximum", "multipleOf"]
    ),
    value=COUNT_VALUES | st.integers(-(2**70), 2**70),
)
def test_the_openai_export_states_a_bound_as_a_64_bit_integer_or_a_float_or_in_words(
    keyword: str, value: int | float
) -> None:
    """Strict mode takes what its readers of JSON hold: a count as an integer of 64 bits at most (2.0 as 2),
    a bound as such an integer or a float. Any other bound is described, as the keywords it cannot say are.
    """
    if keyword in ("minItems", "maxItems"):
        if value < 0:
            value = -value
        schema: dict[str, Any] = {"type": "array", "items": {}, keyword: value}
    elif keyword == "multipleOf":
        value = abs(value) or 1
        schema = {"type": "number", keyword: value}
    else:
        schema = {"type": "integer", keyword: value}
    definition = {
        "name": "t",
        "inputSchema": _closed({"x": schema}, required=["x"]),
    }
    tool = openai_tool(definition)
    assert openai_strict_problems(tool) == []
    exported = tool["function"]["parameters"]["properties"]["x"]
    for number in _openai_numbers(exported):
        assert type(number) is float or -(2**63) < number < 2**63, number
    if keyword in exported:
        assert exported[keyword] == value
        if keyword.endswith("Items"):
            assert type(exported[keyword]) is int
    else:
        assert f"{keyword} " in exported["description"]


# ── Reading numbers: exact ──────────────────────────────────────────────────────────────────────────────────


def _read_json(text: str) -> tuple[Any, list[tuple[str, int]]]:
    """The numeral `text` read by the JSON reader, and each diagnostic's code and column from the numeral's."""
    source = SourceFile(Path("n.json"), "n.json", Path("n.json"), f"[{text}]")
    diags = Diagnostics()
    try:
        value = parse_json(source, diags)[0]
    except SpecError:
        value = None
    return value, [(d.code, d.span.col - 2) for d in diags.sorted()]


def _read_yaml(text: str) -> tuple[Any, list[tuple[str, int]]]:
    document = f"v: {text}\n"
    source = SourceFile(Path("n.yaml"), "n.yaml", Path("n.yaml"), document)
    diags = Diagnostics()
    try:
        value = load_yaml(source, document, 0, diags)["v"]
    except SpecError:
        value = None
    return value, [(d.code, d.span.col - 4) for d in diags.sorted()]


def _read_gram(text: str) -> tuple[Any, list[tuple[str, int]]]:
    try:
        document = parse_gram(f"(a {{v: {text}}})")
    except GramSyntaxError as error:
        return None, [(error.code, error.start - 7)]
    node = document.patterns[0].element.nodes[0]  # type: ignore[union-attr]
    return node.subject.record.entries[0].value.data, []


READERS = {"json": _read_json, "yaml": _read_yaml, "gram": _read_gram}
EDGES = ["1.0e-400", "-1.0e-400", "5.0e-324", "2.225e-308", "0.0e-400", "1.0e+400"]


def _numerals(reader: str) -> st.SearchStrategy[str]:
    """Numerals each reader takes as numbers: JSON any; YAML 1.1 a float with a point and a signed exponent
    (else it is a string); gram a decimal without exponent."""
    digits = st.text("0123456789", min_size=1, max_size=30)
    whole = digits.map(lambda text: text.lstrip("0") or "0")
    fraction = digits | st.sampled_from(["0" * 330 + "1", "0" * 400 + "5", "0" * 400])
    exponent = st.integers(-420, 420) | st.sampled_from([-324, -323, -308, 308, 309])
    sign = st.sampled_from(["", "-"])
    if reader == "gram":
        return st.builds("{}{}.{}".format, sign, whole, fraction)
    signed = exponent.map("{:+d}".format)
    floats = st.builds("{}{}.{}e{}".format, sign, whole, fraction, signed)
    if reader == "yaml":
        return floats | st.sampled_from(EDGES)
    return floats | st.builds("{}{}".format, sign, whole) | st.sampled_from(EDGES)


@pytest.mark.parametrize("reader", list(READERS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_numeral_reads_as_the_number_it_writes(
    reader: str, data: st.DataObject
) -> None:
    """A numeral reads to a finite number of its sign, zero exactly when it writes zero: a float within half of
    its last bit of the value written, or (where no float holds it: beyond a float's range, or non-zero under
    the smallest normal float) exactly that value as a Decimal. Nothing is refused for its size.
    """
    text = data.draw(_numerals(reader), label="numeral")
    value, found = READERS[reader](text)
    exact = Fraction(text)
    assert found == []
    if isinstance(value, Decimal):
        assert Fraction(value) == exact
        assert abs(exact) > sys.float_info.max or 0 < abs(exact) < SMALLEST_FLOAT
        return
    number = value
    assert math.isfinite(number)
    assert (number == 0) == (exact == 0)
    if isinstance(number, float) or number:  # (the integer -0 is 0)
        assert math.copysign(1, number) == (-1 if text.startswith("-") else 1)
    if isinstance(number, float) and exact:
        assert abs(Fraction(number) - exact) <= abs(exact) * Fraction(1, 2**53)


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        ("1e-400", True),
        ("-1e-400", True),
        ("1.0e-324", True),  # would round to 0.0
        ("5e-324", True),  # the smallest subnormal: one bit of precision
        ("2.225e-308", True),  # a subnormal
        ("0." + "0" * 400 + "1", True),
        ("1e400", True),
        ("1e999", True),
        ("-1E+1000000", True),  # never expanded
        ("0e-400", False),  # zero, written small
        ("-0.0e999", False),
        ("0." + "0" * 400, False),
        ("2.2250738585072014e-308", False),  # the smallest normal float
        ("1e-307", False),
        ("0.1", False),  # rounded in its last bit, as every decimal fraction
    ],
)
def test_json_numbers_at_a_floats_edges(text: str, exact: bool) -> None:
    value, found = _read_json(text)
    assert found == []
    if exact:
        assert isinstance(value, Decimal) and value == Decimal(text)
    else:
        assert type(value) is float and value == float(text)


def _compile_codes(tmp_path: Path, name: str, text: str) -> list[tuple[str, int, int]]:
    specs = tmp_path / "specs"
    specs.mkdir(exist_ok=True)
    (specs / name).write_text(text)
    result = compile_specs([specs])
    return [(d.code, d.span.line, d.span.col) for d in result.diagnostics.sorted()]


TINY = "0." + "0" * 400 + "1"


# (a spec, the diagnostics it gets): a bound no float holds is read exactly and says nothing; a default no
# float holds, in a field typed `float`, is left out of the Python field (a warning), the schema keeping it.
_DEFAULT_RANGE = [("default-range", 6, 14)]


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        (
            "t.json",
            '{"name": "t", "parameters": {"type": "object", "properties":'
            ' {"x": {"type": "number", "minimum": 1e-400, "maximum": 1e999}}}}',
            [],
        ),
        (
            "e.yaml",
            "type: entity\nname: E\nfields:\n  a:\n    type: float\n    default: 1.0e-400\n",
            _DEFAULT_RANGE,
        ),
        (
            "e.yaml",
            f"type: entity\nname: E\nfields:\n  a:\n    type: float\n    default: {TINY}\n",
            _DEFAULT_RANGE,
        ),
        (
            "e.yaml",  # YAML 1.1's base 60
            "type: entity\nname: E\nfields:\n  a:\n    type: float\n    default: 0:"
            + TINY
            + "\n",
            _DEFAULT_RANGE,
        ),
        (
            "e.yaml",
            "type: entity\nname: E\nfields:\n  a:\n    type: decimal\n    default: 1.0e+400\n",
            [],
        ),
        (
            "t.gram",
            f'[t:Tool {{description: "x"}} | (a::Double {{minimum: {TINY}}})==>(::Text)]',
            [],
        ),
    ],
)
def test_every_front_end_reads_a_number_a_float_cannot_hold(
    tmp_path: Path, name: str, text: str, found: list[tuple[str, int, int]]
) -> None:
    assert _compile_codes(tmp_path, name, text) == found


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "t.json",
            '{"name": "t", "parameters": {"type": "object", "properties":'
            ' {"x": {"type": "number", "minimum": 0.0e-400, "maximum": 1e-300}}}}',
        ),
        (
            "e.yaml",
            "type: entity\nname: E\nfields:\n  a:\n    type: float\n    default: 0.0e-400\n",
        ),
        (
            "t.gram",
            '[t:Tool {description: "x"} | (a::Double {minimum: 0.'
            + "0" * 400
            + "})==>(::Text)]",
        ),
    ],
)
def test_zero_written_small_and_small_normal_numbers_are_read(
    tmp_path: Path, name: str, text: str
) -> None:
    assert _compile_codes(tmp_path, name, text) == []


def test_the_smallest_float_is_the_smallest_normal_one() -> None:
    assert SMALLEST_FLOAT == sys.float_info.min == 2.0**-1022
