"""A context path reaches public names only (SPEC §4: "by key or public attribute, never a private or dunder
one"): the compiler refuses a `from_context` path with a segment that starts with `_`, and the runtime's `lookup`
never reads such an attribute of an object, however the path reached it; a mapping's keys are data, any string.
Nor does `dispatch` call an implementation's method by a private name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from codegen.passes.naming import function_name
from toolspec_runtime import sql
from toolspec_runtime.dispatch import (
    ContextArg,
    MissingContextError,
    ToolSpec,
    call_tool,
    lookup,
)
from conftest import compile_result

TOOL = """\
name: leak
type: python_function
arguments:
  inline:
    q: string
    secret: {{type: string, from_context: {path}}}
"""


@pytest.mark.parametrize(
    ("path", "segment"),
    [
        ("app.user.__init__", "__init__"),
        ("app._x", "_x"),
        ("app.user.__init__.__globals__.os.environ.SECRET", "__init__"),
        ("config._private.key", "_private"),
        ("app.user.id_._y", "_y"),
    ],
)
def test_the_compiler_refuses_a_private_segment_at_its_spot(
    tmp_path: Path, path: str, segment: str
) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    text = TOOL.format(path=path)
    (specs / "leak.yaml").write_text(text)
    result = compile_result(specs)
    assert result.files is None
    [diagnostic] = result.diagnostics.sorted()
    assert diagnostic.code == "brimley-context"
    assert repr(segment) in diagnostic.message
    span = diagnostic.span
    assert span is not None
    line = text.splitlines()[span.line - 1]
    # The caret stands under the segment itself.
    assert line[span.col - 1 : span.col - 1 + span.width] == segment
    assert "Traceback" not in diagnostic.render()


def test_the_compiler_still_takes_public_paths(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "ok.yaml").write_text(TOOL.format(path="app.user.id_2.x_"))
    assert compile_result(specs).files is not None


class _User:
    def __init__(self) -> None:
        self.id = 7
        self._token = "private"


class _App:
    def __init__(self) -> None:
        self.user = _User()
        self._x = "private"
        self.settings = {"_key": "a mapping key is data", "__init__": "so is this"}


CONTEXT = {"app": _App()}


def test_lookup_reads_public_attributes_and_any_mapping_key() -> None:
    assert lookup(CONTEXT, "app.user.id") == 7
    assert lookup(CONTEXT, "app.settings._key") == "a mapping key is data"
    assert lookup(CONTEXT, "app.settings.__init__") == "so is this"


@pytest.mark.parametrize(
    "path",
    [
        "app._x",
        "app.user._token",
        "app.user.__init__",
        "app.user.__class__",
        "app.user.__dict__",
        "app.user.__init__.__globals__.os.environ.HOME",
        "app.__init__.__globals__.os.environ.HOME",
    ],
)
def test_lookup_never_reads_a_private_attribute(path: str) -> None:
    # The same error as an absent value: the caller reports missing context, or uses its default.
    with pytest.raises(LookupError):
        lookup(CONTEXT, path)


class _Spy:
    """An object that records every attribute read of it, and answers each with another spy."""

    def __init__(self, reads: list[str]) -> None:
        object.__setattr__(self, "_reads", reads)

    def __getattribute__(self, name: str) -> Any:
        object.__getattribute__(self, "_reads").append(name)
        return _Spy(object.__getattribute__(self, "_reads"))


SEGMENT = st.text(st.sampled_from("_aZ9."), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(segments=st.lists(SEGMENT, min_size=1, max_size=6))
def test_no_path_reads_an_attribute_with_a_leading_underscore(
    segments: list[str],
) -> None:
    reads: list[str] = []
    try:
        lookup(_Spy(reads), ".".join(segments))
    except LookupError:
        pass
    assert not [name for name in reads if name.startswith("_")]


def test_dispatch_reports_a_private_path_as_missing_context() -> None:
    class Args(BaseModel):
        pass

    spec = ToolSpec(
        name="leak",
        method="leak",
        description=None,
        args_model=Args,
        input_schema={"type": "object"},
        context_args=(
            ContextArg(
                name="secret", path="app.user.__init__.__globals__.os.environ.HOME"
            ),
        ),
    )

    class Impl:
        def leak(self, secret: Any) -> Any:
            return secret

    result = call_tool(spec, "leak", {}, Impl(), CONTEXT)
    assert result.error is not None and result.error.kind == "missing_context"
    assert os.environ.get("HOME", "no home") not in result.to_json()


def test_a_sql_context_value_at_a_private_path_is_missing() -> None:
    path = "app.user.__init__.__globals__.os.environ.HOME"
    with pytest.raises(MissingContextError):
        sql.from_context(CONTEXT, path, Any, "leak")
    assert sql.from_context(CONTEXT, path, Any, "leak", default="d") == "d"


@pytest.mark.parametrize("method", ["__class__", "_private", "__init__"])
def test_dispatch_calls_no_private_method(method: str) -> None:
    class Args(BaseModel):
        pass

    class Impl:
        def _private(self) -> str:
            return "private"

    spec = ToolSpec(
        name=method,
        method=method,
        description=None,
        args_model=Args,
        input_schema={"type": "object"},
    )
    result = call_tool(spec, method, {}, Impl(), None)
    assert result.error is not None and result.error.kind == "implementation_error"


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(st.text(max_size=30))
def test_a_tool_name_never_makes_a_private_method_name(name: str) -> None:
    method = function_name(name)
    assert method.isidentifier() and not method.startswith("_")


@pytest.mark.parametrize("name", ["_x", "__class__", "_"])
def test_a_sql_function_names_no_private_connection(tmp_path: Path, name: str) -> None:
    """A SQL function's `connection` is read as the context path `databases.<name>`: a public name too."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "count.sql").write_text(
        f"/*\n---\nname: count\ntype: sql_function\nconnection: {name}\ndescription: Counts.\n"
        "return_shape: int\n---\n*/\nSELECT 1\n"
    )
    result = compile_result(specs)
    assert result.files is None
    assert [d.code for d in result.diagnostics.sorted()] == ["brimley-key"]
