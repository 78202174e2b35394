"""The modules' schema files (`codegen/json_layout.py`): any JSON value the compiler holds reads back as the
same value, numbers of the same types (as `load_schemas` reads them), and a line is longer than 88 columns only
where one scalar is; a generated package reads them through its loader, from a zip file too.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.compiler import compile_specs
from codegen.json_layout import packed_json
from codegen.writer import write_output
from toolspec_runtime.models import _schema_number

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            Decimal("1E+999"),
            Decimal("-1E-400"),
            Decimal("4.9E-325"),
            Decimal(
                "5E-324"
            ),  # a float's text, but not its number: the compiler keeps the digits
            Decimal("1" + "0" * 400 + ".5"),
            5e-324,
            1e16,
            -0.0,
        ]
    ),
    st.text(max_size=30),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=60,
)


def _typed(value: Any) -> Any:
    """`value` with the type of every number kept, for comparing (1 == 1.0 == True in Python)."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    if isinstance(value, float) and value == 0:
        return (float, str(value))  # -0.0 and 0.0
    return (type(value), value)


@settings(max_examples=300, deadline=None)
@given(values)
def test_every_value_reads_back_as_itself(value: Any) -> None:
    text = packed_json(value)
    assert text.endswith("\n")
    assert _typed(json.loads(text, parse_float=_schema_number)) == _typed(value)
    assert packed_json(value) == text  # deterministic
    for line in text.splitlines():
        if len(line) > 88:
            # only a line holding one scalar (with its key) may be longer
            stripped = line.strip().rstrip(",")
            assert not stripped.endswith(("{", "[")), line


def test_short_values_stay_on_their_line_and_long_ones_open() -> None:
    text = packed_json(
        {
            "A_SCHEMA": {
                "type": "object",
                "properties": {"x": {"type": "integer", "minimum": 1}},
                "description": "d" * 90,
            }
        }
    )
    assert text == (
        "{\n"
        '  "A_SCHEMA": {\n'
        '    "type": "object",\n'
        '    "properties": {"x": {"type": "integer", "minimum": 1}},\n'
        f'    "description": "{"d" * 90}"\n'
        "  }\n"
        "}\n"
    )


def test_a_package_in_a_zip_file_reads_its_schemas(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    # (as text: 1e999 is no float)
    (specs / "pick.json").write_text(
        '{"name": "pick", "parameters": {"type": "object",'
        ' "properties": {"n": {"type": "number", "maximum": 1e999}}}}'
    )
    files = compile_specs([specs]).files
    assert files is not None and "pick.schemas.json" in files
    write_output(tmp_path / "zipped", files)
    archive = tmp_path / "package.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted((tmp_path / "zipped").rglob("*")):
            zipped.write(
                path, "zipped/" + path.relative_to(tmp_path / "zipped").as_posix()
            )
    check = (
        "import sys; sys.path.insert(0, sys.argv[1]); import zipped\n"
        "print(zipped.__file__.startswith(sys.argv[1]))\n"
        "print(repr(zipped.TOOLS['pick'].input_schema['properties']['n']['maximum']))\n"
        "print(zipped.dispatch('pick', {'n': 2.5}, None).error.kind)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", check, str(archive)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "Decimal('1E+999')", "implementation_error"]
