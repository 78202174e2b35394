"""Compile time stays near linear in the size of a spec: doubling a construct at most about doubles the work.

Each test compiles a spec of N and of 2N of one construct (colliding names, enum members, anyOf branches, tools
in a file) and counts the steps of the work that used to be quadratic, by a spy on it: membership tests on a
scope's taken names, comparisons and hashes of the strings compared, nodes walked. Counts, not times: they are
the same on every run and machine. Everything runs in this process (no forked child).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import compile_ok, generate_package

from codegen import literals, parallel
from codegen.ir import JArray
from codegen.passes import native, naming
from codegen.plan import PyType
from toolspec_runtime import check_planner, models, schema_checks

RATIO = 2.2
steps = [0]


class CountingStr(str):
    """A string whose comparisons and hashes count as steps (list and dict look-ups call them)."""

    def __eq__(self, other: object) -> bool:
        steps[0] += 1
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        steps[0] += 1
        return str.__ne__(self, other)

    def __hash__(self) -> int:
        steps[0] += 1
        return str.__hash__(self)


class CountingSet(set[str]):
    """A set of taken names whose membership tests count as steps."""

    def __contains__(self, item: object) -> bool:
        steps[0] += 1
        return set.__contains__(self, item)


@pytest.fixture(autouse=True)
def one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_WORK", 10**9)


def _tool_specs(tmp_path: Path, tools: list[dict[str, Any]]) -> Path:
    """A fresh spec folder holding `tools` in one file."""
    specs = tmp_path / f"specs{len(list(tmp_path.iterdir()))}"
    specs.mkdir()
    (specs / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    return specs


def _steps(tmp_path: Path, tools: list[dict[str, Any]]) -> int:
    specs = _tool_specs(tmp_path, tools)
    steps[0] = 0
    compile_ok(specs)
    return steps[0]


def _assert_linear(
    tmp_path: Path, make: Callable[[int], list[dict[str, Any]]], n: int
) -> None:
    small, large = _steps(tmp_path, make(n)), _steps(tmp_path, make(2 * n))
    assert small > 0
    assert large <= RATIO * small, (n, small, large)


def _tool(properties: dict[str, Any], name: str = "pick") -> dict[str, Any]:
    return {
        "name": name,
        "description": "d",
        "parameters": {"type": "object", "properties": properties},
    }


def _variant(base: str, i: int, marks: str) -> str:
    """`base` followed by `i` written in `marks`: names that differ only in what naming drops."""
    text = ""
    while True:
        text += marks[i % len(marks)]
        i //= len(marks)
        if not i:
            return base + text


@pytest.fixture
def counted_names(monkeypatch: pytest.MonkeyPatch) -> None:
    original = naming.Scope.__init__

    def init(self: naming.Scope, taken: Any = None) -> None:
        original(self, taken)
        self.taken = CountingSet(self.taken)

    monkeypatch.setattr(naming.Scope, "__init__", init)


def test_properties_that_all_become_one_name(
    tmp_path: Path, counted_names: None
) -> None:
    """`a-`, `a.`, `a `, ... all become the field `a`: each takes the next free `a_<n>`."""
    _assert_linear(
        tmp_path,
        lambda n: [
            _tool(
                {
                    _variant("a", i, "-. $@!#%&*+=~^"): {"type": "string"}
                    for i in range(n)
                }
            )
        ],
        1000,
    )


def test_tools_that_all_become_one_function(
    tmp_path: Path, counted_names: None
) -> None:
    _assert_linear(
        tmp_path,
        lambda n: [
            _tool({"x": {"type": "integer"}}, _variant("t", i, "-._")) for i in range(n)
        ],
        300,
    )


def test_an_enum_of_many_strings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The members of a `Literal` are each written once, in order: counted by their comparisons, both where the
    plain type is made (from their Python text) and the native one (from the values)."""
    py_literal = literals.py_literal
    monkeypatch.setattr(
        literals, "py_literal", lambda value: CountingStr(py_literal(value))
    )
    string_literal = native._string_literal

    def counted(schema: Any, keys: set[str]) -> Any:
        if isinstance(schema.get("enum"), JArray):
            values = schema["enum"]
            counting = [CountingStr(v) if isinstance(v, str) else v for v in values]
            schema = schema.replace(enum=JArray(counting, values.span))
        return string_literal(schema, keys)

    monkeypatch.setattr(native, "_string_literal", counted)
    _assert_linear(
        tmp_path,
        lambda n: [
            _tool(
                {
                    "e": {"type": "string", "enum": [f"v{i}" for i in range(n)]},
                    "f": {"enum": [f"w{i}" for i in range(n)] + [None]},
                }
            )
        ],
        2000,
    )


def _branches(n: int) -> list[dict[str, Any]]:
    return [
        _tool(
            {
                "u": {
                    "anyOf": [
                        {
                            "type": "object",
                            "properties": {f"p{i}": {"type": "integer"}},
                            "required": [f"p{i}"],
                        }
                        for i in range(n)
                    ]
                }
            }
        )
    ]


def test_an_any_of_many_objects_is_one_union(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The members of a union are each written once: counted by the comparisons of their text."""
    union = PyType.union

    def counted(options: list[PyType]) -> PyType:
        return union(
            [
                PyType(CountingStr(o.expr), o.models, o.needs, o.nullable)
                for o in options
            ]
        )

    monkeypatch.setattr(PyType, "union", staticmethod(counted))
    _assert_linear(tmp_path, _branches, 500)


def _size(node: Any) -> int:
    if isinstance(node, dict):
        return 1 + sum(_size(value) for value in node.values())
    if isinstance(node, list):
        return 1 + sum(_size(value) for value in node)
    return 1


def _built_steps(tmp_path: Path, tools: list[dict[str, Any]], load: Any) -> int:
    """The steps of building, at run time, the check of every model of the package compiled from `tools`."""
    specs = _tool_specs(tmp_path, tools)
    out, name = generate_package(
        tmp_path / f"run{len(list(tmp_path.iterdir()))}", specs
    )
    module = load(out, f"{name}.tools")
    steps[0] = 0
    for value in vars(module).values():
        if isinstance(value, type) and issubclass(value, models.SchemaModel):
            models.schema_check(value).check()
    return steps[0]


def test_a_document_is_walked_for_recursive_references_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_package: Any
) -> None:
    """Checks of a document with many models, built at run time: whether it holds a `$recursiveRef` is asked
    for each model's check, and found by one walk of it (counted: the nodes walked)."""
    walk = check_planner._refused_document

    def counted(document: Any) -> bool:
        steps[0] += _size(document)
        return walk(document)

    monkeypatch.setattr(check_planner, "_refused_document", counted)
    small = _built_steps(tmp_path, _branches(100), import_package)
    large = _built_steps(tmp_path, _branches(200), import_package)
    assert small > 0
    assert large <= RATIO * small, (small, large)


def test_a_document_is_written_out_once_for_its_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_package: Any
) -> None:
    """The checks of a document's many models are keyed by the document's text: written out once per document
    (counted: the nodes written), not once per model."""
    text_of = schema_checks._text_of

    def counted(document: Any) -> str:
        if id(document) not in schema_checks._TEXTS:
            steps[0] += _size(document)
        return text_of(document)

    monkeypatch.setattr(schema_checks, "_text_of", counted)
    small = _built_steps(tmp_path, _branches(100), import_package)
    large = _built_steps(tmp_path, _branches(200), import_package)
    assert small > 0
    assert large <= RATIO * small, (small, large)
