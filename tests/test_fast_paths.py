"""Code written for speed against the code it stands in for: same output, byte for byte."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codegen.backends import schemas
from toolspec_runtime.exports import dump_json

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=800, deadline=None)
@given(JSON_VALUES)
def test_dump_json_is_json_dumps(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "value",
    [{1: "a"}, {None: [True]}, {"a": {2.5: 1}}, [math.nan, -math.inf, 10**30]],
)
def test_dump_json_odd_values(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_dump_json_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        dump_json({"a": object()})


# -- the JSON reader's spans ---------------------------------------------------------------------------------

# Values the reader takes (no NaN or infinity, which JSON cannot write); keys and text with escapes and
# characters beyond ASCII, written escaped or as they are.
READABLE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.text(st.characters(blacklist_categories=("Cs",))), inner, max_size=4
    ),
    max_leaves=20,
)


def _offset(source: Any, span: Any) -> int:
    return int(source._line_starts[span.line - 1]) + span.col - 1


def _check_spans(source: Any, value: Any) -> None:
    """Every key's and value's span covers exactly its text (a container's, its opening bracket)."""
    from codegen.ir import JArray, JObject

    text = source.text
    if isinstance(value, JObject):
        assert text[_offset(source, value.span)] == "{"
        for key in value:
            span = value.key_span(key)
            assert json.loads(text[_offset(source, span) :][: span.width]) == key
            _check_item(source, value[key], value.value_span(key))
    elif isinstance(value, JArray):
        assert text[_offset(source, value.span)] == "["
        for index, item in enumerate(value):
            _check_item(source, item, value.item_span(index))


def _check_item(source: Any, item: Any, span: Any) -> None:
    from codegen.frontends.json.parse import read_float
    from codegen.ir import JArray, JObject

    if isinstance(item, (JObject, JArray)):
        assert span == item.span
        _check_spans(source, item)
    else:
        written = source.text[_offset(source, span) :][: span.width]
        expected = json.loads(written, parse_float=read_float)
        assert expected == item and type(expected) is type(item)


@settings(max_examples=400, deadline=None)
@given(
    READABLE,
    st.sampled_from([None, 0, 1, 3, "\t"]),
    st.booleans(),
    st.booleans(),
    st.sampled_from([None, (",", ":"), (" ,\t", " \n: ")]),
)
def test_json_reader_values_and_spans(
    value: Any, indent: Any, ascii_only: bool, crlf: bool, separators: Any
) -> None:
    from pathlib import Path

    from codegen.diagnostics import Diagnostics, SourceFile
    from codegen.frontends.json.parse import parse_json, read_float
    from codegen.ir import to_plain

    text = json.dumps(
        value, indent=indent, ensure_ascii=ascii_only, separators=separators
    )
    if crlf:
        text = text.replace("\n", "\r\n")
    source = SourceFile(Path("t.json"), "t.json", Path("t.json"), text)
    diags = Diagnostics()
    parsed = parse_json(source, diags)
    assert not diags.has_errors
    # json's reading, but for a numeral no float holds (a subnormal), which the reader keeps exact
    assert to_plain(parsed) == json.loads(text, parse_float=read_float)
    _check_spans(source, parsed)


# -- one walk per schema in resolve --------------------------------------------------------------------------

SCHEMA_KEYS = st.sampled_from(
    [
        "$ref",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "properties",
        "$defs",
        "items",
        "allOf",
        "enum",
        "default",
        "const",
        "examples",
        "x",
        "patternProperties",
        "not",
    ]
)
SCHEMA_LIKE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from(["#", "#/a", "a.json"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(SCHEMA_KEYS, inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=600, deadline=None)
@given(SCHEMA_LIKE)
@example({"properties": {"enum": {"$id": "a.json"}}})  # not a schema to `_has_ids`
@example({"properties": {"$anchor": {}}})  # a property's name, which `_has_ids` counts
@example({"$defs": {"a": {"items": [{"$ref": "#"}, {"$dynamicAnchor": "x"}]}}})
def test_ref_walk_is_iter_refs_and_has_ids(value: Any) -> None:
    from pathlib import Path

    from codegen.diagnostics import SourceFile
    from codegen.ir import from_plain
    from codegen.passes.resolve import _has_ids, _ref_nodes, iter_refs

    schema = from_plain(value, SourceFile(Path("t"), "t", Path("t"), "").span(0))
    nodes, has_ids = _ref_nodes(schema)
    assert [id(n) for n in nodes] == [id(n) for n, _ in iter_refs(schema)]
    assert has_ids == _has_ids(schema)


# -- tools.xml without ET.indent and ET.tostring -------------------------------------------------------------

XML_TEXT = st.none() | st.text(
    st.sampled_from(list("a &<>\"'\r\n\t\u00e9")), max_size=6
)


@st.composite
def xml_elements(draw: Any, depth: int = 0) -> Any:
    import xml.etree.ElementTree as ET

    element = ET.Element(draw(st.sampled_from(["tool", "arg", "items", "value"])))
    for key in draw(
        st.lists(st.sampled_from(["name", "type", "description"]), unique=True)
    ):
        element.set(
            key, draw(st.text(st.sampled_from(list("a &<>\"'\r\n\t")), max_size=5))
        )
    element.text = draw(XML_TEXT)
    element.tail = draw(XML_TEXT)
    if depth < 3:
        element.extend(draw(st.lists(xml_elements(depth + 1), max_size=3)))
    return element


@settings(max_examples=400, deadline=None)
@given(xml_elements(), st.integers(0, 2))
def test_xml_string_is_et_indent_and_tostring(element: Any, level: int) -> None:
    import copy
    import xml.etree.ElementTree as ET

    from codegen.backends.schemas import xml_string

    expected = copy.deepcopy(element)
    ET.indent(expected, space="    ", level=level)
    assert xml_string(element, level) == ET.tostring(expected, encoding="unicode")


# -- writing OUT folder by folder ----------------------------------------------------------------------------


def test_a_first_build_opens_each_folder_once_to_read_and_once_to_write(
    tmp_path: Any, monkeypatch: Any
) -> None:
    import os

    from codegen import writer

    files = {
        f"{folder}/f{i}.py": "x = 1\n"
        for folder in ("a", "a/b", "c")
        for i in range(20)
    }
    opened: list[str] = []
    real_open = os.open

    def counting_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(writer.os, "open", counting_open)
    writer.write_output(tmp_path / "out", files)
    # per file: its temporary file; per folder on the way: a few opens (not a few per file)
    assert len(opened) < len(files) + 30
    assert sorted(
        p.relative_to(tmp_path / "out").as_posix()
        for p in (tmp_path / "out").rglob("*.py")
    ) == sorted(files)


def test_the_first_problem_in_path_order_is_the_one_reported(tmp_path: Any) -> None:
    """Files are read folder by folder, but a refusal names what reading them in order would have met first."""
    import os

    import pytest

    from codegen.writer import WriteError, write_output

    out = tmp_path / "out"
    (out / "b").mkdir(parents=True)
    (out / "a.py").write_text("hand-written\n")  # not generated by codegen
    os.symlink(tmp_path / "elsewhere.py", out / "b" / "c.py")  # a link: refused too
    with pytest.raises(WriteError, match="a.py exists and was not generated"):
        write_output(out, {"b/c.py": "y = 2\n", "a.py": "x = 1\n"})  # b/ read first


# Floats where orjson and Python write them otherwise (exponents, small values, NaN, infinities) and where they
# agree, beside the values the draws give.
AWKWARD_FLOATS = st.sampled_from(
    [0.5, 1e-4, 1.5e-5, 0.00001, 1e-7, 1e15, 1e16, 1.2345678901234568e17, 5e-324]
    + [-0.0, math.nan, math.inf, -math.inf, 9999999999999998.0]
)


@settings(max_examples=800, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | AWKWARD_FLOATS
        # strings that look like the numbers and nulls the fast path looks for
        | st.text()
        | st.sampled_from(["null", " null", "1e-5", "0.00001", "date-time"]),
        lambda inner: st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=20,
    )
)
@example({"a": [1e-05, None], "b": "e-mail"})
@example([math.nan, "null"])
def test_the_back_ends_dump_json_is_json_dumps(value: Any) -> None:
    """orjson's text where it is json.dumps's, json.dumps's (through exports.dump_json) where it may not be."""
    expected = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    assert schemas.dump_json(value) == expected


def test_the_back_ends_dump_json_takes_the_fast_path_for_a_usual_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """(So that the test above covers orjson's text, not only the fallback.)"""
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "number", "multipleOf": 0.5, "format": "date-time"}
        },
        "required": ["n"],
    }
    monkeypatch.setattr(
        schemas.exports, "dump_json", None
    )  # the fallback fails if called
    assert schemas.dump_json(schema) == json.dumps(schema, indent=2) + "\n"


# -- a field's default checked against its subschema alone -------------------------------------------------

FIELD_SCHEMAS = st.recursive(
    st.sampled_from(
        [
            {"type": "string", "maxLength": 3},
            {"type": "integer", "minimum": 0},
            {"enum": [1, "a", None]},
            {"$ref": "#/$defs/small"},
            {"const": [1, 2]},
            {"type": "array", "items": {"type": "number"}},
            True,
            False,
        ]
    ),
    lambda inner: st.lists(inner, min_size=1, max_size=3).map(lambda b: {"anyOf": b})
    | inner.map(lambda s: {"not": s})
    | inner.map(lambda s: {"type": "object", "properties": {"x": s}}),
    max_leaves=6,
)
DEFAULTS = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "a", "abcd"]),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.just("x"), inner),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(FIELD_SCHEMAS, DEFAULTS)
def test_a_default_is_judged_as_against_the_whole_document(
    field: Any, default: Any
) -> None:
    from pathlib import Path

    from codegen.diagnostics import Diagnostics, SourceFile
    from codegen.frontends.json.parse import parse_json
    from codegen.passes.pytypes import _default_fits
    from toolspec_runtime.validation import is_valid

    root = {
        "type": "object",
        "properties": {"f": field},
        "$defs": {"small": {"type": "integer", "maximum": 1}},
    }
    source = SourceFile(Path("t.json"), "t.json", Path("t.json"), json.dumps(root))
    parsed = parse_json(source, Diagnostics())  # JObjects, as planning sees them
    expected = is_valid(default, root, pointer="/properties/f")
    sub = parsed["properties"]["f"]
    assert _default_fits(default, sub, root, "/properties/f") == expected


@settings(max_examples=500, deadline=None)
@given(name=st.from_regex(r"[a-z]+(_([a-z]+|[0-9]+))*", fullmatch=True) | st.text())
def test_a_name_in_snake_case_already_is_its_own_snake_form(name: str) -> None:
    """`snake`'s shortcut for names in snake case already gives what splitting them into words gives."""
    from codegen.passes.naming import snake, words

    assert snake(name) == "_".join(w.lower() for w in words(name))
