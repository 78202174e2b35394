"""Wide and deep types: every package that compiles imports, whatever the width of a union or the depth of a type.

CPython compiles `A | B | C` as nested binary operations, one level per member, and a few thousand members are
a RecursionError at import: a wide union is written `_typing.Union[...]` instead (plan.py, MAX_UNION_CHAIN).
Types nested through chains of `$ref`s, which the nesting limit of a document does not bound, are `Any` beyond a
depth (pytypes.py). Each generated package here is imported in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from conftest import compile_ok

from codegen.plan import MAX_UNION_CHAIN, NONE, PyType
from codegen.writer import write_output


def _package(tmp_path: Path, parameters: dict[str, Any], name: str) -> Path:
    """A package of one tool `pick` taking `parameters`, written under tmp_path."""
    specs = tmp_path / "specs"
    specs.mkdir()
    tool = {"name": "pick", "description": "Pick one.", "parameters": parameters}
    (specs / "tools.json").write_text(json.dumps([tool]), encoding="utf-8")
    out = tmp_path / name
    write_output(out, compile_ok(specs))
    return out


def _run(out: Path, script: str) -> str:
    """`script` run in a fresh interpreter beside the package `out`; its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=out.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _branch(i: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "integer"}},
        "required": [f"p{i}"],
        "additionalProperties": False,
    }


def test_an_any_of_4000_objects_imports_dispatches_and_exports(tmp_path: Path) -> None:
    count = 4000
    parameters = {
        "type": "object",
        "properties": {"choice": {"anyOf": [_branch(i) for i in range(count)]}},
        "required": ["choice"],
        "additionalProperties": False,
    }
    out = _package(tmp_path, parameters, "wide_pkg")
    assert "_typing.Union[" in (out / "tools.py").read_text(encoding="utf-8")
    printed = _run(
        out,
        """
        import json
        import wide_pkg

        class Impl:
            def pick(self, choice):
                return type(choice).__name__ + " " + json.dumps(choice.model_dump())

        good = wide_pkg.dispatch("pick", {"choice": {"p3999": 7}}, Impl())
        print(good.ok, good.value)
        bad = wide_pkg.dispatch("pick", {"choice": {"p3999": "seven"}}, Impl())
        print(bad.ok, bad.error.kind)
        for flavour in ("openai", "anthropic", "mcp", "xml"):
            assert wide_pkg.export_tools(flavour)
        print("exported")
        """,
    )
    lines = printed.splitlines()
    assert lines[0] == 'True PickArgsChoiceOption4000 {"p_3999": 7}'
    assert lines[1] == "False invalid_arguments"
    assert lines[2] == "exported"


def test_a_union_as_wide_as_the_chain_allows_keeps_the_bars(tmp_path: Path) -> None:
    """Unions as people write them stay as they are: only wider ones take the other form."""
    options = [PyType(f"A{i}", frozenset({f"A{i}"})) for i in range(MAX_UNION_CHAIN)]
    narrow = PyType.union(options)
    assert narrow.expr == " | ".join(f"A{i}" for i in range(MAX_UNION_CHAIN))
    assert "_typing" not in narrow.needs
    wide = PyType.union([*options, NONE, PyType("B")])
    members = ", ".join(f"A{i}" for i in range(MAX_UNION_CHAIN))
    assert wide.expr == f"_typing.Union[{members}, B, None]"
    assert "_typing" in wide.needs and wide.nullable
    # a union of wide unions stays one subscript deep, not one level per member
    assert PyType.union([wide, PyType.union([PyType("C"), PyType("D")])]).depth < 10


def test_a_literal_of_100000_values_imports(tmp_path: Path) -> None:
    values = [f"v{i}" for i in range(100_000)]
    parameters = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": values}},
        "required": ["kind"],
    }
    out = _package(tmp_path, parameters, "literal_pkg")
    printed = _run(
        out,
        """
        import literal_pkg

        class Impl:
            def pick(self, kind):
                return kind

        print(literal_pkg.dispatch("pick", {"kind": "v99999"}, Impl()).value)
        print(literal_pkg.dispatch("pick", {"kind": "w"}, Impl()).ok)
        """,
    )
    assert printed.split() == ["v99999", "False"]


def _chain(count: int, link: Any) -> dict[str, Any]:
    """$defs D0 ... D<count>, each D<i> made by `link` from a reference to the next."""
    defs = {f"D{i}": link({"$ref": f"#/$defs/D{i + 1}"}, i) for i in range(count)}
    defs[f"D{count}"] = {"type": "integer"}
    return defs


def test_types_nested_through_80_references_import(tmp_path: Path) -> None:
    """Unions of 41 members, one an array of the next union, 80 levels through `$ref` (no document nests that
    deep): written out, the annotation would nest 3,000 levels deep. It stops at a bounded depth (`Any` below),
    and the package imports and validates."""
    defs = _chain(
        80,
        lambda ref, i: {
            "anyOf": [
                {"type": "array", "items": ref},
                *({"const": f"x{i}_{j}"} for j in range(40)),
            ]
        },
    )
    parameters = {
        "type": "object",
        "properties": {"deep": {"$ref": "#/$defs/D0"}},
        "required": ["deep"],
        "$defs": defs,
    }
    out = _package(tmp_path, parameters, "deep_pkg")
    printed = _run(
        out,
        """
        import deep_pkg

        class Impl:
            def pick(self, deep):
                return deep

        nested = "x50_0"
        for _ in range(50):
            nested = [nested]
        print(deep_pkg.dispatch("pick", {"deep": nested}, Impl()).ok)
        print(deep_pkg.dispatch("pick", {"deep": [["x2_3"]]}, Impl()).ok)
        print(deep_pkg.dispatch("pick", {"deep": [["x1_3"]]}, Impl()).ok)
        """,
    )
    assert printed.split() == ["True", "True", "False"]
