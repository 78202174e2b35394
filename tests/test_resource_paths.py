"""`match_<r>(path)` is total: any text that is not one of the resource's paths gives None, never an exception
(Python's `int()` refuses text of more than 4300 digits, and is slow on long text), and `format_<r>` of any
arguments the model holds gives a path that matches back to them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
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
path: /docs/{category}/pages/{doc_index}
arguments:
  inline: {category: string, doc_index: int}
""",
    "numbers.yaml": """
type: resource
name: reading
path: /r/{ratio}/{value}/{ok}/{day}/{at}
arguments:
  inline: {ratio: float, value: decimal, ok: bool, day: date, at: datetime}
""",
    "files.yaml": """
type: resource
name: file
path: files://{bucket}/{rest*}
arguments:
  inline: {bucket: int, rest: string}
""",
}

# The most digits an integer may have in a path: the runtime's bound on numbers (and Python's default bound on
# converting integers to and from text).
MAX_DIGITS = 4300
LONG = "1" * 5000


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    specs = tmp_path_factory.mktemp("resource_path_specs")
    for name, text in SPECS.items():
        (specs / name).write_text(text)
    out, name = generate_package(
        tmp_path_factory.mktemp("resource_path_pkg"), specs, name="resource_paths_gen"
    )
    sys.path.insert(0, str(out.parent))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def _resources(
    pkg: ModuleType,
) -> list[tuple[Callable[[str], Any], Callable[[Any], str]]]:
    """(match, format) of each resource."""
    return [
        (pkg.match_doc_page, pkg.format_doc_page),
        (pkg.match_reading, pkg.format_reading),
        (pkg.match_file, pkg.format_file),
    ]


@pytest.mark.parametrize(
    ("resource", "path"),
    [
        ("doc_page", "/docs/a/pages/" + LONG),
        ("doc_page", "/docs/a/pages/-" + LONG),
        ("doc_page", "/docs/a/pages/1" + "0" * MAX_DIGITS),
        ("reading", f"/r/{LONG}/1/true/2024-01-01/2024-01-01T00:00:00Z"),
        ("reading", f"/r/1/{LONG}/true/2024-01-01/2024-01-01T00:00:00Z"),
        ("reading", f"/r/1e999/1/true/2024-01-01/2024-01-01T00:00:00Z"),
        ("reading", f"/r/1/1e{LONG}/true/2024-01-01/2024-01-01T00:00:00Z"),
        ("file", f"files://{LONG}/x"),
        ("doc_page", "/docs/\ud800/pages/1"),  # no UTF-8 text has a lone surrogate
        ("file", "files://1/\udcff"),
    ],
)
def test_what_python_cannot_read_or_write_is_no_match(
    pkg: ModuleType, resource: str, path: str
) -> None:
    assert getattr(pkg, f"match_{resource}")(path) is None


def test_a_limit_the_application_lowered_gives_no_match_either(
    pkg: ModuleType,
) -> None:
    digits = "1" * 1000
    lowered = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert pkg.match_doc_page("/docs/a/pages/" + digits) is None
        assert pkg.match_file(f"files://{digits}/x") is None
    finally:
        sys.set_int_max_str_digits(lowered)
    assert pkg.match_doc_page("/docs/a/pages/" + digits).doc_index == int(digits)


def test_the_longest_integer_round_trips(pkg: ModuleType) -> None:
    for index in (10**MAX_DIGITS - 1, -(10**MAX_DIGITS - 1)):
        args = pkg.DocPageArgs(category="a", doc_index=index)
        assert pkg.match_doc_page(pkg.format_doc_page(args)) == args


# Values of every kind for a path's parameters, long runs of digits (and near-numbers) included.
VALUES = st.one_of(
    st.sampled_from(
        ["1", "1.5", "-0", "1e999", "true", "2024-01-01", "2024-01-01T00:00:00Z"]
    ),
    st.tuples(
        st.sampled_from(["", "-", "1.", "0.", "1e", "-1e+"]),
        st.integers(0, 6000).map(lambda n: "9" * n),
        st.sampled_from(["", ".5", "e5", "x", "%20"]),
    ).map("".join),
    st.text(max_size=8),
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=2),
    st.just("\udcff"),
)


@st.composite
def near_paths(draw: st.DrawFn) -> str:
    """A resource's template with each parameter replaced by a drawn value (any text in place of `/`)."""
    template = draw(
        st.sampled_from(
            ["/docs/{}/pages/{}", "/r/{}/{}/{}/{}/{}", "files://{}/{}", "{}/{}"]
        )
    )
    return template.format(*(draw(VALUES) for _ in range(template.count("{}"))))


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(path=st.one_of(st.text(), near_paths()))
def test_match_never_raises(pkg: ModuleType, path: str) -> None:
    for match, format_ in _resources(pkg):
        found = match(path)  # None or arguments, never an exception
        if found is not None:  # and then arguments that make a path of their own
            assert match(format_(found)) == found


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(
    index=st.integers(-(10**MAX_DIGITS - 1), 10**MAX_DIGITS - 1),
    bucket=st.integers(-(10**MAX_DIGITS - 1), 10**MAX_DIGITS - 1),
    rest=st.text(st.characters(exclude_categories=("Cs",)), max_size=20),
)
def test_format_round_trips_integers_of_every_length(
    pkg: ModuleType, index: int, bucket: int, rest: str
) -> None:
    args = pkg.DocPageArgs(category="a", doc_index=index)
    assert pkg.match_doc_page(pkg.format_doc_page(args)) == args
    files = pkg.FileArgs(bucket=bucket, rest=rest)
    assert pkg.match_file(pkg.format_file(files)) == files
