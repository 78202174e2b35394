"""Brimley resources: `match_<r>(path) -> <R>Args | None` and `format_<r>(args) -> str`, percent-encoding, the
`{rest*}` catch-all, and round trips (match(format(args)) == args) over generated values.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import generate_package

SPECS = {
    "docs.yaml": """
type: resource
name: doc_page
description: A page of the handbook.
path: /docs/{category}/{sub_category}/{doc_index}
arguments:
  inline: {category: string, sub_category: string, doc_index: int}
""",
    "files.yaml": """
type: resource
name: file
path: files://{bucket}/{rest*}
arguments:
  inline:
    bucket: {type: string, enum: [public, private]}
    rest: string
""",
    "typed.yaml": """
type: resource
name: reading
path: /r/{day}/{at}/{value}/{ratio}/{ok}
arguments:
  inline:
    day: date
    at: datetime
    value: decimal
    ratio: float
    ok: bool
""",
    "Section.yaml": "type: entity\nname: Section\nfields:\n  chapter: string\n  page: int\n",
    "inherited.yaml": """
type: resource
name: section
path: /book/{chapter}/p{page}
arguments:
  entity_ref: Section
""",
}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    import importlib
    import sys

    specs = tmp_path_factory.mktemp("resource_specs")
    for name, text in SPECS.items():
        (specs / name).write_text(text)
    out, name = generate_package(
        tmp_path_factory.mktemp("resource_pkg"), specs, name="resource_gen"
    )
    sys.path.insert(0, str(out.parent))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def test_match_and_format(pkg: ModuleType) -> None:
    args = pkg.match_doc_page("/docs/hardware/sensors/3")
    assert isinstance(args, pkg.DocPageArgs)
    assert (args.category, args.sub_category, args.doc_index) == (
        "hardware",
        "sensors",
        3,
    )
    assert pkg.format_doc_page(args) == "/docs/hardware/sensors/3"
    assert pkg.DOC_PAGE_PATH == "/docs/{category}/{sub_category}/{doc_index}"


@pytest.mark.parametrize(
    "path",
    [
        "/docs/hardware/sensors",  # too few segments
        "/docs/hardware/sensors/3/extra",  # too many
        "/docs/hardware/sensors/three",  # not an integer
        "/docs/hardware/sensors/3.0",
        "/docs/hardware/sensors/%ff",  # not UTF-8 once decoded
        "/doc/hardware/sensors/3",
        "docs/hardware/sensors/3",
    ],
)
def test_paths_that_do_not_match(pkg: ModuleType, path: str) -> None:
    assert pkg.match_doc_page(path) is None


def test_values_are_percent_encoded_and_decoded(pkg: ModuleType) -> None:
    args = pkg.DocPageArgs(category="a/b c", sub_category="ü?#%", doc_index=-7)
    path = pkg.format_doc_page(args)
    assert path == "/docs/a%2Fb%20c/%C3%BC%3F%23%25/-7"
    assert pkg.match_doc_page(path) == args


def test_the_catch_all_takes_the_rest_of_the_path(pkg: ModuleType) -> None:
    args = pkg.match_file("files://public/hardware/sensors/v1")
    assert args is not None and args.rest == "hardware/sensors/v1"
    assert (
        pkg.format_file(pkg.FileArgs(bucket="private", rest="a b/c%d/"))
        == "files://private/a%20b/c%25d/"
    )
    assert pkg.match_file("files://secret/x") is None  # not in the enum
    assert pkg.match_file("files://public/").rest == ""


def test_typed_parameters(pkg: ModuleType) -> None:
    args = pkg.ReadingArgs(
        day=datetime.date(2024, 2, 29),
        at=datetime.datetime(2024, 2, 29, 12, 30, tzinfo=datetime.timezone.utc),
        value=decimal.Decimal("12.50"),
        ratio=0.25,
        ok=True,
    )
    path = pkg.format_reading(args)
    # A decimal is written as its exact JSON number: 12.50 and 12.5 are one value, and floats print the shortest.
    assert path == "/r/2024-02-29/2024-02-29T12%3A30%3A00Z/12.5/0.25/true"
    assert pkg.match_reading(path) == args
    assert (
        pkg.match_reading("/r/2024-02-30/2024-02-29T12:30:00Z/1/1/true") is None
    )  # no such day
    assert pkg.match_reading("/r/2024-02-29/2024-02-29T12:30:00Z/1/1/yes") is None


def test_arguments_inherited_from_an_entity(pkg: ModuleType) -> None:
    args = pkg.match_section("/book/intro/p12")
    assert args is not None and (args.chapter, args.page) == ("intro", 12)
    assert pkg.format_section(args) == "/book/intro/p12"


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(
    category=TEXT, sub=TEXT, index=st.integers(min_value=-(10**12), max_value=10**12)
)
def test_round_trip_doc_page(
    pkg: ModuleType, category: str, sub: str, index: int
) -> None:
    args = pkg.DocPageArgs(category=category, sub_category=sub, doc_index=index)
    path = pkg.format_doc_page(args)
    assert pkg.match_doc_page(path) == args
    assert pkg.format_doc_page(pkg.match_doc_page(path)) == path


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(bucket=st.sampled_from(["public", "private"]), rest=TEXT)
def test_round_trip_catch_all(pkg: ModuleType, bucket: str, rest: str) -> None:
    args = pkg.FileArgs(bucket=bucket, rest=rest)
    assert pkg.match_file(pkg.format_file(args)) == args


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    day=st.dates(min_value=datetime.date(1, 1, 1)),
    at=st.datetimes(timezones=st.just(datetime.timezone.utc)),
    value=st.decimals(allow_nan=False, allow_infinity=False, places=2),
    ratio=st.floats(allow_nan=False, allow_infinity=False),
    ok=st.booleans(),
)
def test_round_trip_typed(
    pkg: ModuleType, day: Any, at: Any, value: Any, ratio: float, ok: bool
) -> None:
    args = pkg.ReadingArgs(day=day, at=at, value=value, ratio=ratio, ok=ok)
    assert pkg.match_reading(pkg.format_reading(args)) == args


def test_templates_are_checked_at_compile_time(tmp_path: Path) -> None:
    from toolspec_runtime.paths import TemplateError, parse_template

    assert parse_template("/a/{b}/c{d*}") == [
        ("/a/", None, False),
        ("", "b", False),
        ("/c", None, False),
        ("", "d", True),
    ]
    for bad in (
        "/a/{b",
        "/a/}",
        "/{a}{b}",
        "/{a*}/x",
        "/{rest*}/{b}",
        "/{a}/{a}",
        "/{}",
        "/{a b}",
    ):
        with pytest.raises(TemplateError):
            parse_template(bad)


def _backtracking_split(template: str, path: str) -> list[str] | None:
    """What a backtracking regex takes for each parameter: the reference for the linear matcher."""
    import re

    from toolspec_runtime.paths import parse_template

    pattern = ""
    for literal, name, catch_all in parse_template(template):
        pattern += (
            re.escape(literal)
            if name is None
            else f"({'.*' if catch_all else '[^/]*'})"
        )
    found = re.fullmatch(pattern, path, re.DOTALL)
    return None if found is None else list(found.groups())


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            "/releases/v{major}.{minor}.{patch}/notes",
            "/docs/{category}/{page}",
            "files://{root}/{rest*}",
            "{a}.{b}",
            "/a{b}a{c}a",
            "{x}/{y}/{z*}",
            "{a}..{b}.",
            "/static",
        ]
    ),
    st.text(alphabet="/.av-", max_size=14),
    st.sampled_from(["", "/releases/v", "files://"]),
)
def test_linear_path_matching_takes_what_a_backtracking_regex_takes(
    template: str, tail: str, head: str
) -> None:
    from toolspec_runtime.paths import _parts, _split

    path = head + tail
    assert _split(_parts(template), path) == _backtracking_split(template, path)
