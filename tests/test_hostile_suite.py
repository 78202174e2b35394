"""Hostile strings in every string slot of every front end: compiling ends in output or diagnostics, the output
imports in a fresh interpreter without running spec text, passes `mypy --strict`, and nothing lands outside OUT.

The bundled examples are the templates: each string in a spec (JSON and YAML values and keys, gram string
literals, SQL string literals and header values) is a slot, and hypothesis puts hostile text into one or more
slots of one file (or very deep nested values, where a format holds values). `CODEGEN_HOSTILE_EXAMPLES=2000 python -m pytest tests/test_hostile_suite.py` runs longer.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen.compiler import compile_specs
from codegen.writer import write_output
from conftest import EXAMPLES
from test_typecheck import _mypy

EXAMPLES_RUN = int(os.environ.get("CODEGEN_HOSTILE_EXAMPLES", "40"))
MARKER = "PWNED"

# Each one has broken something somewhere: string and comment delimiters, escapes, the formatter's splice
# placeholders, template and format-string syntax, SQL comment and quote syntax, paths, invisible characters.
HOSTILE_PIECES = [
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\\n",
    "\n",
    "\r\n",
    "\r",
    "\t",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x7f",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\U0001f600",
    "#",
    "__codegen_splice_0__",
    "__codegen_splice_1__;open('PWNED','w')#",
    f"\n__import__('os').system('touch {MARKER}')\n",
    f'"); open("{MARKER}1", "w")  #',
    f"'''; open('{MARKER}2', 'w'); '''",
    f'"""; open("{MARKER}3", "w"); """',
    "{{ 7 * 7 }}",
    "{% for x in y %}",
    "{#",
    "{0}",
    "{__import__('os')}",
    "%(x)s",
    "%s",
    ":x",
    "::int",
    "*/ DROP TABLE t; /*",
    "/*",
    "$$",
    "--",
    "../../etc/passwd",
    "/proc/self/environ",
    "{x}",
    "{x*}",
    "<![CDATA[",
    "]]>",
    "</tool>",
    "&amp;",
    "$ref",
    "#/$defs/X",
    "None",
    "self",
    "class",
    "__init__",
    "kwargs",
    "",
]
HOSTILE = st.one_of(
    st.sampled_from(HOSTILE_PIECES),
    st.lists(
        st.sampled_from(HOSTILE_PIECES) | st.text(max_size=8), min_size=1, max_size=6
    ).map("".join),
    st.sampled_from(HOSTILE_PIECES).map(lambda piece: piece * 2000),  # long values
)


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


# Very deep values: nested arrays and objects where a string was (text formats get their JSON text).
DEEP = st.builds(_nested, st.integers(20, 200), st.sampled_from(HOSTILE_PIECES))

# -- slots: every string of a spec file, addressed so that one can be replaced -----------------------------------


@dataclass(frozen=True)
class SpecTemplate:
    rel: str  # path under examples/specs
    slots: int  # how many string slots it has
    fill: Callable[
        [dict[int, Any]], str
    ]  # the file's text with the given slots replaced


def _walk_strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths to every string value and every mapping key (a key's path ends in ("key", k))."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path + (("key", key),)
            yield from _walk_strings(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk_strings(item, path + (index,))
    elif isinstance(value, str):
        yield path


def _replace(value: Any, path: tuple[Any, ...], new: str) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, tuple) and not rest:  # rename a key, keeping its place
        old, key = head[1], new if isinstance(new, str) else json.dumps(new)
        return {(key if k == old else k): v for k, v in value.items()}
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], rest, new)
    return copy


def _data_template(
    rel: str, data: Any, dump: Callable[[Any], str], wrap: Callable[[str], str]
) -> SpecTemplate:
    paths = list(_walk_strings(data))

    def fill(values: dict[int, Any]) -> str:
        # Deepest paths first and values before keys, so that renaming a key invalidates no path still to come.
        new = data
        order = sorted(
            values, key=lambda i: (-len(paths[i]), isinstance(paths[i][-1], tuple))
        )
        for index in order:
            new = _replace(new, paths[index], values[index])
        return wrap(dump(new))

    return SpecTemplate(rel, len(paths), fill)


def _json_dump(data: Any) -> str:
    return json.dumps(data, indent=2)  # ASCII: surrogates travel as \ud800 escapes


def _yaml_dump(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=False, width=1 << 16)


_SQL_HEADER = re.compile(r"\A(/\*\s*\n---\n)(.*?\n)(---\s*\n\*/\s*\n)(.*)\Z", re.S)
_SQL_LITERAL = re.compile(r"'(?:''|[^'])*'")
_GRAM_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def _gram_quote(text: str) -> str:
    escaped = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return '"' + "".join(escaped.get(ch, ch) for ch in text) + '"'


def _text_template(
    rel: str, text: str, pattern: re.Pattern[str], quote: Callable[[str], str]
) -> SpecTemplate:
    spans = [m.span() for m in pattern.finditer(text)]

    def fill(values: dict[int, Any]) -> str:
        out, at = [], 0
        for index, (start, end) in enumerate(spans):
            if index in values:
                value = values[index]
                out += [
                    text[at:start],
                    quote(value if isinstance(value, str) else json.dumps(value)),
                ]
                at = end
        return "".join(out) + text[at:]

    return SpecTemplate(rel, len(spans), fill)


def _sql_template(rel: str, text: str) -> SpecTemplate:
    match = _SQL_HEADER.match(text)
    assert match, f"{rel}: no YAML header"
    opening, header, closing, body = match.groups()
    head = _data_template(rel, yaml.safe_load(header), _yaml_dump, lambda h: h)
    literals = _text_template(
        rel, body, _SQL_LITERAL, lambda s: "'" + s.replace("'", "''") + "'"
    )

    def fill(values: dict[int, Any]) -> str:
        in_header = {i: v for i, v in values.items() if i < head.slots}
        in_body = {i - head.slots: v for i, v in values.items() if i >= head.slots}
        header_text = head.fill(in_header) if in_header else header
        return opening + header_text + closing + literals.fill(in_body)

    return SpecTemplate(rel, head.slots + literals.slots, fill)


def _template(path: Path) -> SpecTemplate:
    rel = path.relative_to(EXAMPLES).as_posix()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return _data_template(rel, json.loads(text), _json_dump, lambda t: t)
    if path.suffix in (".yaml", ".yml"):
        return _data_template(rel, yaml.safe_load(text), _yaml_dump, lambda t: t)
    if path.suffix == ".sql":
        return _sql_template(rel, text)
    assert path.suffix == ".gram", path
    return _text_template(rel, text, _GRAM_STRING, _gram_quote)


TEMPLATES = [
    _template(p)
    for p in sorted(EXAMPLES.rglob("*"))
    if p.is_file() and p.suffix in (".json", ".yaml", ".yml", ".sql", ".gram")
]


def test_every_front_end_has_slots() -> None:
    kinds = {Path(t.rel).suffix for t in TEMPLATES if t.slots}
    assert kinds == {".json", ".yaml", ".sql", ".gram"}
    assert sum(t.slots for t in TEMPLATES) > 200


# -- one compile, checked end to end ------------------------------------------------------------------------------


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


IMPORT_ALL = """\
import importlib, pathlib, sys
package = sys.argv[1]
root = pathlib.Path(package)
for path in sorted(root.rglob("*.py")):
    parts = path.relative_to(root.parent).with_suffix("").parts
    importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
top = importlib.import_module(package)
for flavour in ("openai", "anthropic", "mcp", "xml"):
    top.export_tools(flavour)
print("imported")
"""


def _compile_and_load(specs: Path, sandbox: Path) -> Path | None:
    """Compile `specs` into sandbox/hostile_pkg; when it compiles, import every module in a fresh interpreter
    (working directory: the sandbox) and check that spec text ran nowhere and nothing landed outside OUT.
    """
    before = _tree(specs)
    result = compile_specs(
        [specs]
    )  # an exception here fails the test: diagnostics only
    assert all(d.render() for d in result.diagnostics.sorted())  # each renders
    out = sandbox / "hostile_pkg"
    if result.files is None:
        assert result.diagnostics.has_errors
        assert not out.exists()
        return None
    write_output(out, result.files)
    run = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, out.name],
        cwd=sandbox,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert run.returncode == 0 and "imported" in run.stdout, run.stderr[-3000:]
    assert _tree(specs) == before, "the specs changed"
    outside = [p for p in sandbox.rglob("*") if out not in (p, *p.parents)]
    assert outside == [], f"written outside OUT: {outside}"
    markers = [p for p in Path(tempfile.gettempdir()).glob(f"{MARKER}*")]
    markers += list(sandbox.rglob(f"{MARKER}*")) + list(Path.cwd().glob(f"{MARKER}*"))
    assert markers == [], f"spec text ran: {markers}"
    return out


def _specs_with(tmp: Path, template: SpecTemplate, values: dict[int, Any]) -> Path:
    """A copy of the example's top-level folder with one file's slots replaced (entities it uses stay)."""
    top = template.rel.split("/")[0]
    specs = tmp / "specs"
    shutil.copytree(EXAMPLES / top, specs / top)
    # Formats with no escape for a lone surrogate get its raw (invalid UTF-8) bytes: that is hostile input too.
    text = template.fill(values)
    (specs / template.rel).write_bytes(text.encode("utf-8", "surrogatepass"))
    return specs / top


@st.composite
def _hostile_case(draw: st.DrawFn) -> tuple[SpecTemplate, dict[int, Any]]:
    template = draw(st.sampled_from([t for t in TEMPLATES if t.slots]))
    slots = draw(
        st.lists(
            st.integers(0, template.slots - 1), min_size=1, max_size=3, unique=True
        )
    )
    return template, {slot: draw(HOSTILE | DEEP) for slot in slots}


@settings(
    max_examples=EXAMPLES_RUN,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(_hostile_case())
def test_hostile_strings_in_any_slot(
    case: tuple[SpecTemplate, dict[int, Any]],
) -> None:
    template, values = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        specs = _specs_with(root, template, values)
        sandbox = root / "sandbox"
        sandbox.mkdir()
        _compile_and_load(specs, sandbox)


# -- every slot at once, type-checked -----------------------------------------------------------------------------

# One value that carries most of the hostile pieces at once; it goes wherever a spec still compiles with it.
EVERYTHING = "".join(p for p in HOSTILE_PIECES if p not in ("\x00", "\ud800", "\udfff"))
# A SQL file's YAML header sits inside a /* */ comment, so there `*/` must be refused; everything else stays.
CANDIDATES = (EVERYTHING, EVERYTHING.replace("*/", "* /"))


def _free_text_slots(template: SpecTemplate, tmp: Path) -> dict[int, str]:
    """The slots of a file that still compile with a hostile value: its free text (descriptions, defaults,
    enum values, property names, ...). Found by trying each slot alone."""
    accepted: dict[int, str] = {}
    for slot in range(template.slots):
        for number, candidate in enumerate(CANDIDATES):
            value = f"{candidate}{slot}"  # distinct, so that no two slots make duplicates (enum values, keys)
            case = tmp / f"probe{slot}-{number}"
            specs = _specs_with(case, template, {slot: value})
            if compile_specs([specs]).files is not None:
                accepted[slot] = value
                break
    return accepted


@pytest.mark.parametrize(
    "rel",
    [
        "shop/billing/orders.json",
        "brimley/invoices/list_invoices.sql",
        "brimley/docs/help_page.yaml",
        "gram/people.gram",
    ],
)
def test_all_free_text_slots_at_once_type_check(rel: str, tmp_path: Path) -> None:
    (template,) = [t for t in TEMPLATES if t.rel == rel]
    values = _free_text_slots(template, tmp_path / "probes")
    assert values, f"{rel}: no slot takes free text"
    specs = _specs_with(tmp_path / "all", template, values)
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    out = _compile_and_load(specs, sandbox)
    assert out is not None, "every slot compiled alone, so all of them together must"
    _mypy(tmp_path, out)
