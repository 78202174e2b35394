"""Deep chains of references: no walk over a spec or a schema depends on Python's recursion limit.

The nesting limits of a document (JSON 256 levels, schemas 64) do not bound a chain of definitions each
referring to the next, `{"$ref": "#/$defs/N<i+1>"}`: 5,000 of them nest nothing. Every walk that follows
references must be a loop or count its depth. Here: chains of 170, 1,000 and 5,000 definitions, linked through
`properties`, `allOf`, `items`, `anyOf`, bare `$ref`s and `$ref`s with siblings, as an entity and as a tool's
input and output schema, compiled with every output (schemas and the export formats), written, imported and
called; the export formats at run time; and the strict OpenAI arguments undone for deep instances. Work is
counted (conversions of the export), not timed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import compile_ok, compile_result
from hypothesis import given, settings
from hypothesis import strategies as st

from toolspec_runtime import exports
from toolspec_runtime.validation import validate
from toolspec_runtime.validation.limits import _MAX_IN_PLACE
from codegen.diagnostics import Diagnostics, SourceFile
from codegen.frontends.json.parse import parse_json
from codegen.passes import check_refs
from codegen.writer import write_output

LENGTHS = (170, 1000, 5000)


def _link(via: str, ref: dict[str, Any]) -> Any:
    """Definition N<i>, from the reference to N<i+1>. The first four descend into the value one level per link;
    the last three apply the next definition to the same value."""
    return {
        "properties": {"type": "object", "properties": {"next": ref}},
        "allOf": {"type": "object", "properties": {"next": {"allOf": [ref]}}},
        "items": {"type": "array", "items": ref},
        "anyOf": {
            "type": "object",
            "properties": {"next": {"anyOf": [{"type": "string"}, ref]}},
        },
        "in place allOf": {"allOf": [ref], "properties": {"v": {"type": "integer"}}},
        "in place anyOf": {"anyOf": [{"type": "null"}, ref]},
        "bare": ref,
        "described": {
            "type": "object",
            "properties": {"next": {**ref, "description": "The next one."}},
        },
    }[via]


VIAS = (
    "properties",
    "allOf",
    "items",
    "anyOf",
    "in place allOf",
    "in place anyOf",
    "bare",
    "described",
)
DESCENDING = ("properties", "allOf", "items", "anyOf", "described")


def _schema(length: int, via: str) -> dict[str, Any]:
    defs = {f"N{i}": _link(via, {"$ref": f"#/$defs/N{i + 1}"}) for i in range(length)}
    defs[f"N{length}"] = {"type": "object", "properties": {"end": {"type": "integer"}}}
    return {
        "type": "object",
        "properties": {"head": {"$ref": "#/$defs/N0"}},
        "$defs": defs,
    }


def _tool(length: int, via: str) -> dict[str, Any]:
    schema = _schema(length, via)
    return {
        "name": "walk",
        "description": "Walk the chain.",
        "inputSchema": schema,
        "outputSchema": schema,
    }


def _specs(tmp_path: Path, length: int, via: str, entity: bool) -> Path:
    specs = tmp_path / "specs"
    specs.mkdir()
    if entity:
        text = json.dumps(_schema(length, via))
        (specs / "Chain.schema.json").write_text(text, encoding="utf-8")
    else:
        text = json.dumps([_tool(length, via)])
        (specs / "tools.json").write_text(text, encoding="utf-8")
    return specs


def _nested(via: str, inner: Any, levels: int = 10) -> Any:
    for _ in range(levels):
        inner = [inner] if via == "items" else {"next": inner}
    return inner


def _instances(via: str) -> tuple[Any, Any]:
    """A value of depth 10 the chain accepts, and one it refuses (at the bottom)."""
    if via == "items":
        return _nested(via, []), _nested(via, ["x"])
    if via in DESCENDING:
        return _nested(via, {"end": 1}), _nested(via, 5)
    return {"end": 1}, {"end": "x"}


def _run(folder: Path, script: str) -> list[str]:
    """`script` run in a fresh interpreter beside the package in `folder`: its printed lines."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("length", LENGTHS)
def test_every_export_of_a_chain(via: str, length: int) -> None:
    """Every flavour, and the strict arguments undone, at run time (as a package's export_tools calls them)."""
    tool = _tool(length, via)
    for flavour in exports.FLAVOURS:
        assert exports.export_tools([tool], flavour)
        assert exports.render_export([tool], flavour)
    good, bad = _instances(via)
    for value in (good, bad):
        assert exports.openai_arguments(tool["inputSchema"], {"head": value}) == (
            {"head": value},
            [],
        )


@pytest.mark.parametrize("via", DESCENDING)
def test_a_tool_of_5000_links_compiles_imports_dispatches_and_exports(
    tmp_path: Path, via: str
) -> None:
    out = tmp_path / "chain_pkg"
    write_output(out, compile_ok(_specs(tmp_path, 5000, via, entity=False)))
    good, bad = _instances(via)
    printed = _run(
        tmp_path,
        f"""
        import chain_pkg

        class Impl:
            def walk(self, head=None):
                return {{"head": {good!r}}}

        too_deep = 1
        for _ in range(100):
            too_deep = {{"next": too_deep}}
        for flavour in (None, "openai"):
            for value in ({good!r}, {bad!r}, too_deep):
                result = chain_pkg.dispatch("walk", {{"head": value}}, Impl(), flavour=flavour)
                print(result.ok, result.error and result.error.kind)
        for flavour in ("openai", "anthropic", "mcp", "xml"):
            assert chain_pkg.export_tools(flavour)
        """,
    )
    valid, invalid = ["True", "None"], ["False", "invalid_arguments"]
    assert printed == (valid + invalid + invalid) * 2
    assert (out / "schemas" / "tools.xml").is_file()


@pytest.mark.parametrize("length", LENGTHS)
def test_an_entity_of_a_chain_compiles_imports_and_validates(
    tmp_path: Path, length: int
) -> None:
    out = tmp_path / "chain_entity"
    write_output(out, compile_ok(_specs(tmp_path, length, "properties", entity=True)))
    good, bad = _instances("properties")
    printed = _run(
        tmp_path,
        f"""
        import pydantic
        from chain_entity.chain import Chain

        Chain.model_validate({{"head": {good!r}}})
        try:
            Chain.model_validate({{"head": {bad!r}}})
        except pydantic.ValidationError:
            print("refused")
        """,
    )
    assert printed == ["refused"]


IN_PLACE = ("in place allOf", "in place anyOf", "bare")


def _in_place_links(via: str, steps: int) -> int:
    """How many definitions make a chain of `steps` in-place steps from the head's `$ref` (which is one): a bare
    link is one step (its `$ref`), the others two (the applicator, then the `$ref` inside it).
    """
    return (steps - 1) // (1 if via == "bare" else 2)


@pytest.mark.parametrize("via", IN_PLACE)
@pytest.mark.parametrize("length", (None, 5000))
def test_a_chain_in_place_longer_than_the_validator_follows_is_refused_at_its_head(
    tmp_path: Path, via: str, length: int | None
) -> None:
    """It used to compile, and every instance failed as 'too deeply nested to validate' (from about 400 steps)."""
    length = length or _in_place_links(via, _MAX_IN_PLACE) + 1
    result = compile_result(_specs(tmp_path, length, via, entity=False))
    assert result.files is None
    diagnostics = result.diagnostics.sorted()
    assert len(diagnostics) == 2  # the input's schema and the output's
    found = diagnostics[0]
    assert {(d.code, d.severity) for d in diagnostics} == {
        ("ref-chain-too-long", "error")
    }
    steps = length * (1 if via == "bare" else 2) + 1
    assert f"a chain of {steps} schemas" in found.message
    assert found.span is not None
    text = (tmp_path / "specs" / "tools.json").read_text(encoding="utf-8")
    assert (found.span.line, found.span.col) == (1, text.index('"#/$defs/N0"') + 1)


def test_a_chain_through_anchors_is_measured_as_the_validator_resolves_it(
    tmp_path: Path,
) -> None:
    """References by `$anchor` resolve through the validator's index, as check_refs.py resolves them."""
    length = _MAX_IN_PLACE + 1
    defs: dict[str, Any] = {
        f"N{i}": {"$anchor": f"a{i}", "$ref": f"#a{i + 1}"} for i in range(length)
    }
    defs[f"N{length}"] = {"$anchor": f"a{length}", "type": "object"}
    schema = {"$id": "urn:chain", "properties": {"h": {"$ref": "#a0"}}, "$defs": defs}
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "Chain.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    result = compile_result(specs)
    assert [d.code for d in result.diagnostics.sorted()] == ["ref-chain-too-long"]


@pytest.mark.parametrize("via", IN_PLACE)
def test_a_chain_in_place_at_the_limit_compiles_and_validates(
    tmp_path: Path, via: str
) -> None:
    """The runtime's interpreter, compiled checks and models follow the longest chain the compiler accepts."""
    length = _in_place_links(via, _MAX_IN_PLACE)
    good, bad = _instances(via)
    schema = _schema(length, via)
    assert validate({"head": good}, schema) == []
    assert [p.keyword for p in validate({"head": bad}, schema)] != ["depth"]
    out = tmp_path / "chain_pkg"
    write_output(out, compile_ok(_specs(tmp_path, length, via, entity=False)))
    printed = _run(
        tmp_path,
        f"""
        import chain_pkg

        class Impl:
            def walk(self, head=None):
                return {{"head": {good!r}}}

        for flavour in (None, "openai"):
            for value in ({good!r}, {bad!r}):
                result = chain_pkg.dispatch("walk", {{"head": value}}, Impl(), flavour=flavour)
                print(result.ok, result.error and result.error.kind)
                print(result.error and "deeply" in str(result.error))
        """,
    )
    valid, invalid = ["True", "None", "None"], ["False", "invalid_arguments", "False"]
    assert printed == (valid + invalid) * 2


@pytest.mark.parametrize("via", IN_PLACE)
def test_an_entity_of_a_chain_in_place_at_the_limit_validates(
    tmp_path: Path, via: str
) -> None:
    out = tmp_path / "chain_entity"
    length = _in_place_links(via, _MAX_IN_PLACE)
    write_output(out, compile_ok(_specs(tmp_path, length, via, entity=True)))
    good, bad = _instances(via)
    printed = _run(
        tmp_path,
        f"""
        import pydantic
        from chain_entity.chain import Chain

        Chain.model_validate({{"head": {good!r}}})
        try:
            Chain.model_validate({{"head": {bad!r}}})
        except pydantic.ValidationError as error:
            print("refused", "deeply" in str(error))
        """,
    )
    assert printed == ["refused", "False"]


def test_openai_arguments_of_deep_instances_are_problems_not_recursion() -> None:
    """A recursive schema undoes an instance only as deep as the validator takes one; JSON text sent for a
    value strict mode cannot describe may be nested beyond what the decoder takes."""
    node = {
        "type": "object",
        "properties": {
            "next": {"$ref": "#"},
            "any": {"type": ["object", "array"]},
        },
    }
    deep: Any = None
    for _ in range(10_000):
        deep = {"next": deep}
    value, problems = exports.openai_arguments(node, deep)
    assert problems == []
    for _ in range(100):  # (== would recurse 10,000 levels deep itself)
        value, deep = value["next"], deep["next"]
    assert value is deep
    value, problems = exports.openai_arguments(node, {"any": "[" * 100_000})
    assert problems == [("any", "the JSON text of the value is nested too deeply")]


class _Counting(exports._Strict):
    calls = 0

    def convert(self, schema: Any, optional: bool = False) -> dict[str, Any]:
        _Counting.calls += 1
        return super().convert(schema, optional)


def _conversions(schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(exports, "_Strict", _Counting)
    _Counting.calls = 0
    exports.openai_tool({"name": "t", "inputSchema": schema})
    return _Counting.calls


@pytest.mark.parametrize("via", VIAS)
def test_the_strict_export_is_linear_in_the_chain(
    via: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = _conversions(_schema(1000, via), monkeypatch)
    large = _conversions(_schema(2000, via), monkeypatch)
    assert 0 < large <= 2.2 * small


def test_definitions_each_inlining_the_next_twice_do_not_double_the_export(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A `$ref` with siblings is inlined (strict mode takes nothing beside a `$ref`); two of them to the next
    definition in each of 40 definitions used to make 2**40 conversions."""

    def schema(length: int) -> dict[str, Any]:
        defs: dict[str, Any] = {f"N{length}": {"type": "integer"}}
        for i in range(length):
            ref = f"#/$defs/N{i + 1}"
            pair = {k: {"$ref": ref, "description": k} for k in ("a", "b")}
            defs[f"N{i}"] = {"type": "object", "properties": pair}
        return {
            "type": "object",
            "properties": {"h": {"$ref": "#/$defs/N0"}},
            "$defs": defs,
        }

    small = _conversions(schema(40), monkeypatch)
    large = _conversions(schema(80), monkeypatch)
    assert 0 < large <= 2.2 * small


def test_a_union_over_a_cycle_with_a_value_sent_as_text_is_not_transparent() -> None:
    """Transparency is settled per strongly connected component: every schema of a cycle reaching a value
    strict mode sends as JSON text needs undoing, whichever of them is asked first."""
    root = {
        "$defs": {
            "A": {"anyOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/C"}]},
            "B": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/A"}]},
            "C": {"anyOf": [{"type": "boolean"}, {"prefixItems": [{}]}]},
        }
    }
    strict = exports._Strict(root)
    defs = root["$defs"]
    assert [strict.transparent(defs[k]) for k in ("A", "B", "C")] == [False] * 3


# -- the shortcut that skips the chain analysis of a document too small to hold a long chain --------------


def _chain_document(links: int, via: str, extra: dict[str, Any]) -> Any:
    """A JObject: a chain of `links` definitions (as `_specs` links them) from a property, plus `extra` keys."""
    defs: dict[str, Any] = {}
    for i in range(links):
        ref = {"$ref": f"#/$defs/N{i + 1}"}
        defs[f"N{i}"] = (
            ref if via == "bare" else {via.split()[-1]: [ref, {"type": "object"}]}
        )
    defs[f"N{links}"] = {"type": "object"}
    schema = {"properties": {"h": {"$ref": "#/$defs/N0"}}, "$defs": defs, **extra}
    source = SourceFile(
        Path("chain.json"), "chain.json", Path("chain.json"), json.dumps(schema)
    )
    return parse_json(source, Diagnostics())


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 140),
    st.sampled_from(IN_PLACE),
    st.sampled_from(
        [{}, {"$id": "urn:x"}, {"$anchor": "a"}, {"items": {"$ref": "urn:y#/a"}}]
    ),
)
def test_the_small_document_shortcut_never_hides_a_long_chain(
    links: int, via: str, extra: dict[str, Any]
) -> None:
    """Where `_no_long_chain` skips the analysis, the analysis finds nothing; it skips the documents of
    few objects whose references stay in them, and no other."""
    document = _chain_document(links, via, extra)
    objects = 3 + links * (
        1 if via == "bare" else 3
    )  # the root, properties, h; each link's objects
    skipped = check_refs._no_long_chain(document)
    assert skipped == (not extra and objects <= _MAX_IN_PLACE)
    diags = Diagnostics()
    original = check_refs._no_long_chain
    try:
        check_refs._no_long_chain = lambda root: False  # type: ignore[assignment]  # the whole analysis
        check_refs.check_chains(document, diags)
    finally:
        check_refs._no_long_chain = original  # type: ignore[assignment]
    if skipped:
        assert not len(diags)
