"""Spec text that spells a splice placeholder stays text (SPEC §7: no spec text can inject code).

Large schema constants are formatted apart from the rest of a module and spliced in afterwards (formatting.py).
The splice must find its placeholder as code, never by searching the generated text, which spec text is part of.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.backends.python import PythonFile
from codegen.formatting import format_python
from conftest import generate_package


def _payloads(marker: Path) -> list[str]:
    """Text that, if cut out of its string literal, runs code that creates `marker`."""
    code = f"open({str(marker)!r}, 'w')"
    return [
        f"{placeholder}{tail}"
        for placeholder in (f"__codegen_splice_{n}__" for n in range(4))
        for tail in (f";{code}#", f"\n{code}\n#", f" if {code} else 0#")
    ]


def _hostile_specs(folder: Path, payload: str) -> None:
    """A payload in every string slot that reaches a schema constant: descriptions, titles, property names,
    enum values and defaults, of a JSON tool, an MCP tool's inputSchema and an entity.
    """
    prop = {
        "type": "string",
        "description": payload,
        "enum": [payload, "plain"],
        "default": payload,
        "title": payload,
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.json").write_text(
        json.dumps(
            {
                "name": "t",
                "description": payload,
                "parameters": {
                    "type": "object",
                    "description": payload,
                    "properties": {payload: prop, "x": {"type": "integer"}},
                },
            }
        )
    )
    (folder / "mcp.json").write_text(
        json.dumps(
            {
                "name": "m",
                "description": payload,
                "inputSchema": {
                    "type": "object",
                    "properties": {payload: prop},
                    payload: {"type": "object", payload: [payload]},
                },
            }
        )
    )
    (folder / "Thing.schema.json").write_text(
        json.dumps(
            {
                "title": "Thing",
                "description": payload,
                "type": "object",
                "properties": {payload: prop},
            }
        )
    )


def test_spec_text_spelling_a_placeholder_cannot_run_on_import(
    tmp_path: Path, import_package: Callable[[Path, str], Any]
) -> None:
    marker = tmp_path / "MARKER"
    for number, payload in enumerate(_payloads(marker)):
        specs = tmp_path / f"specs{number}"
        _hostile_specs(specs, payload)
        out, name = generate_package(tmp_path / f"out{number}", specs)
        package = import_package(out, name)
        assert not marker.exists(), payload
        assert package.t.T_INPUT_SCHEMA["description"] == payload
        assert package.mcp.M_INPUT_SCHEMA[payload] == {
            "type": "object",
            payload: [payload],
        }
        assert package.Thing.model_json_schema()["description"] == payload
        assert package.dispatch("t", {"x": 1}, _Impl()).error is None


class _Impl:
    def t(self, **kwargs: Any) -> Any:
        return None


def test_splice_ignores_placeholders_inside_strings_and_comments() -> None:
    text = (
        "# __codegen_splice_0__\n"
        'A: dict[str, Any] = {"k": "__codegen_splice_0__"}\n'
        "B: dict[str, Any] = __codegen_splice_0__\n"
    )
    formatted = format_python(
        PythonFile(text, {"__codegen_splice_0__": "B: X = 1"}), "m.py"
    )
    assert formatted == (
        "# __codegen_splice_0__\n"
        'A: dict[str, Any] = {"k": "__codegen_splice_0__"}\n'
        "B: X = 1\n"
    )


_TOKENS = st.sampled_from(
    [
        "__codegen_splice_0__",
        "__codegen_splice_1__",
        "__codegen_splice_12__",
        '"',
        "'",
        '"""',
        "\n",
        "\\",
        "#",
        ")",
        ";",
        "\x0c",
        "\u2028",
    ]
)
_TEXT = st.lists(st.one_of(_TOKENS, st.text(max_size=6)), max_size=5).map("".join)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    description=_TEXT,
    keys=st.lists(_TEXT, min_size=1, max_size=3, unique=True),
    values=st.lists(_TEXT, min_size=1, max_size=3, unique=True),
)
def test_placeholder_like_text_round_trips_into_the_schema_constant(
    tmp_path: Path,
    import_package: Callable[[Path, str], Any],
    description: str,
    keys: list[str],
    values: list[str],
) -> None:
    schema = {
        "type": "object",
        "description": description,
        "properties": {
            key: {"type": "string", "description": key, "enum": values} for key in keys
        },
    }
    specs = tmp_path / "specs"
    specs.mkdir(exist_ok=True)
    (specs / "t.json").write_text(json.dumps({"name": "t", "parameters": schema}))
    out, name = generate_package(tmp_path, specs)
    package = import_package(out, name)
    assert package.t.T_INPUT_SCHEMA == schema
