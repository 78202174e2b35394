"""Hostile spec files and folders: each is a diagnostic with its own code, never a traceback, a hang, a read
outside the specs tree or a half-written OUT (SPEC §6, §7; codegen/sources.py says what is refused and why).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from codegen.cli import main
from codegen.compiler import compile_specs
from codegen.diagnostics import Diagnostic, SourceFile, printable

TOOL = '{"name": "t", "parameters": {"type": "object"}}'
SECRET = "TOP-SECRET-first-line"


def codes(*specs: Path) -> list[str]:
    result = compile_specs(list(specs))
    for diagnostic in result.diagnostics.sorted():
        diagnostic.render().encode(
            "utf-8"
        )  # printable whatever the names and text hold
    assert result.files is None or not result.diagnostics.has_errors
    return [d.code for d in result.diagnostics.sorted()]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a subprocess, with strict UTF-8 output, so an unprintable name would be a traceback; bounded
    in time and memory, so a regression that reads a FIFO or /dev/zero fails instead of hanging the suite.
    """
    env = {
        "PYTHONPATH": str(ROOT),
        "PATH": "/usr/bin:/bin",
        "PYTHONIOENCODING": "utf-8",
        "CODEGEN_CACHE_DIR": os.environ["CODEGEN_CACHE_DIR"],  # never the user's cache
    }
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=60,
        preexec_fn=_limit_memory,
    )


def assert_refused(run: subprocess.CompletedProcess[str], code: str, out: Path) -> None:
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"error[{code}]" in run.stderr
    assert not out.exists()


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "ok.json").write_text(TOOL)
    return folder


# ── What is in the folder ───────────────────────────────────────────────────────────────────────────────────────


def test_a_fifo_named_like_a_spec_does_not_block(specs: Path) -> None:
    os.mkfifo(specs / "x.json")
    os.mkfifo(specs / "y.sql")  # routing peeks at the start of a .sql file: no block
    run = run_cli("specs", "-o", "out", cwd=specs.parent)
    assert_refused(run, "not-a-file", specs.parent / "out")
    assert run.stderr.count("error[not-a-file]: the spec is a FIFO") == 2


def test_a_link_to_dev_zero_is_not_followed(specs: Path) -> None:
    os.symlink("/dev/zero", specs / "zero.json")
    run = run_cli("specs", "-o", "out", cwd=specs.parent)
    assert_refused(run, "symlink", specs.parent / "out")
    assert run.stderr.startswith("specs/zero.json:1:1: error[symlink]")


def test_a_device_named_on_the_command_line_is_not_read(tmp_path: Path) -> None:
    # The command line is trusted, so its link is followed: to a device, which is not read.
    os.symlink("/dev/zero", tmp_path / "zero.json")
    run = run_cli("zero.json", "-o", "out", cwd=tmp_path)
    assert_refused(run, "not-a-file", tmp_path / "out")
    assert "the spec is a device or socket" in run.stderr


def test_links_leaving_the_tree_are_neither_followed_nor_quoted(
    specs: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text(SECRET + "\n")
    (outside / "tool.json").write_text(TOOL.replace('"t"', '"elsewhere"'))
    os.symlink(outside / "secret.json", specs / "leak.json")
    os.symlink(outside, specs / "linked_folder")  # a folder link is skipped, not walked
    os.symlink("ok.json", specs / "alias.json")  # inside the tree: not followed either
    result = compile_specs([specs])
    rendered = "\n".join(d.render() for d in result.diagnostics.sorted())
    assert [d.code for d in result.diagnostics.sorted()] == ["symlink", "symlink"]
    assert SECRET not in rendered
    assert result.read == [(specs / "ok.json").as_posix()]
    assert (specs / "linked_folder").as_posix() in result.ignored


def test_file_names_that_are_not_utf8_or_hold_controls(specs: Path) -> None:
    raw = os.fsencode(specs)
    for name in (b"\xff.json", b"bad\xfe/t.json", b"\xfd.txt"):
        path = raw + b"/" + name
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(TOOL)
    (specs / "esc\x1b[31m.json").write_text(TOOL)
    (specs / "rtl\u202e.json").write_text(TOOL)
    result = compile_specs([specs])
    rendered = [d.render() for d in result.diagnostics.sorted()]
    assert [d.code for d in result.diagnostics.sorted()] == ["file-name"] * 4
    assert any("/\\xff.json:1:1: error[file-name]" in line for line in rendered)
    assert any("esc\\x1b[31m.json" in line for line in rendered)
    assert any("rtl\\u202e.json" in line for line in rendered)
    assert [Path(p).name for p in result.ignored] == [
        "\\xfd.txt"
    ]  # ignored, and printable
    run = run_cli("specs", "-o", "out", "-v", cwd=specs.parent)
    assert_refused(run, "file-name", specs.parent / "out")


def test_an_unlistable_folder_is_an_error(
    specs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (specs / "locked").mkdir()
    (specs / "locked" / "t2.json").write_text(TOOL)
    real_scandir = os.scandir

    def scandir(
        path: object,
    ) -> object:  # chmod 000 does not stop root, so refuse like it would
        if Path(str(path)).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    assert codes(specs) == ["read"]
    out = specs.parent / "out"
    assert main([str(specs), "-o", str(out)]) == 1
    assert (
        "error[read]: cannot list the folder: Permission denied"
        in capsys.readouterr().err
    )
    assert not out.exists()


def test_an_oversized_file_is_refused_before_it_is_read(specs: Path) -> None:
    with open(specs / "huge.json", "wb") as handle:
        handle.truncate(
            64 * 1024 * 1024
        )  # sparse: costs nothing unless someone reads it
    started = time.perf_counter()
    assert codes(specs) == ["too-large"]
    assert time.perf_counter() - started < 2


def test_a_folder_named_like_a_spec_is_walked(specs: Path) -> None:
    (specs / "more.json").mkdir()
    (specs / "more.json" / "u.json").write_text(TOOL.replace('"t"', '"u"'))
    assert codes(specs) == []


def test_ten_thousand_files_are_read_in_linear_time(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    for index in range(10_000):
        (specs / f"{index:05}.txt").touch()
    for index in range(2_000):
        (specs / f"e{index:04}.json").touch()
    started = time.perf_counter()
    found = codes(specs)
    elapsed = time.perf_counter() - started
    assert found == ["json-syntax"] * 2_000
    assert elapsed < 10, f"{elapsed:.1f}s"


# ── What is in a file ───────────────────────────────────────────────────────────────────────────────────────────

BIG = "1" * 5000
YAML_ENTITY = "type: entity\nname: E\nfields:\n  a:\n    type: int\n    default: {}\n"
SQL = "/* ---\nname: f\ntype: sql_function\ndescription: {}\n--- */\nSELECT 1\n"
GRAM = '[t:Tool {{description: "x"}} | (a::Int {{default: {}}})==>(::Text)]'
CONTENT = [
    ("t.json", TOOL.replace('"t"', '"t", "description": "\\ud800"'), "encoding"),
    ("t.json", TOOL.replace('"object"', '"object", "\\udfff": 1'), "encoding"),
    ("A.schema.json", '{"title": "A", "enum": ["\\ud800"]}', "encoding"),
    ("t.json", TOOL.replace('"t"', f'"t", "x": {BIG}'), "too-large"),
    ("t.json", TOOL.replace('"t"', f'"t", "x": -{BIG}.5'), "too-large"),
    # (1e400 is read exactly now, as a Decimal: only the digit limit is too large)
    ("t.json", TOOL.replace('"t"', f'"t", "x": {BIG}e400'), "too-large"),
    ("t.json", TOOL.replace('"t"', '"t", "x": NaN'), "json-syntax"),
    ("t.json", TOOL + "\x00", "json-syntax"),
    ("t.json", '{"name": "t", "name": "u", "parameters": {"type": "object"}}', "json-duplicate-key"),
    (
        "t.json",
        '{"name": "t", "parameters": ' + "[" * 400 + "]" * 400 + "}",
        "too-deep",
    ),
    ("e.yaml", YAML_ENTITY.format(BIG), "too-large"),
    ("e.yaml", YAML_ENTITY.format("0x" + "f" * 900), "too-large"),
    ("e.yaml", YAML_ENTITY.format(":".join(["59"] * 2000)), "too-large"),
    ("e.yaml", YAML_ENTITY.format(BIG + ".5e+400"), "too-large"),
    ("e.yaml", YAML_ENTITY.format(".nan"), "brimley-yaml"),
    ("e.yaml", YAML_ENTITY.format("2020-02-30"), "brimley-yaml"),
    ("e.yaml", YAML_ENTITY.format('"\\ud800"'), "encoding"),
    ("e.yaml", YAML_ENTITY.format("a\x01b"), "brimley-yaml"),
    ("e.yaml", YAML_ENTITY.format("a\x00b"), "brimley-yaml"),
    ("e.yaml", "type: entity\nname: E\nname: F\n", "brimley-yaml"),
    ("e.yaml", "a: " + "[" * 3000 + "]" * 3000, "brimley-yaml"),
    (
        "e.yaml",
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n",
        "brimley-yaml",
    ),
    ("f.sql", SQL.format("a\x07b"), "brimley-yaml"),
    ("f.sql", SQL.format('"\\ud800"'), "encoding"),
    ("t.gram", GRAM.format(BIG), "too-large"),
    ("t.gram", GRAM.format("-" + BIG), "too-large"),
    ("t.gram", GRAM.format(BIG + ".5"), "too-large"),
    ("t.gram", GRAM.format("0x" + "f" * 900), "too-large"),
]


@pytest.mark.parametrize(
    "name, text, code",
    CONTENT,
    ids=[f"{n}-{c}-{i}" for i, (n, _, c) in enumerate(CONTENT)],
)
def test_hostile_content_is_one_diagnostic(
    tmp_path: Path, name: str, text: str, code: str
) -> None:
    (tmp_path / name).write_text(text)
    assert codes(tmp_path) == [code]


@pytest.mark.parametrize(
    "name, text",
    [
        ("t.json", "\ufeff" + TOOL.replace(",", ",\r\n")),
        ("e.yaml", "\ufefftype: entity\r\nname: E\r\nfields: {}\r\n"),
        ("t.gram", "\ufeff" + GRAM.format("5")),
        (
            "t.json",
            TOOL.replace('"t"', '"t", "description": "\\ud83d\\ude00 \\u0000\\u001b"'),
        ),
    ],
)
def test_boms_crlf_pairs_and_escaped_controls_compile(
    tmp_path: Path, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text, newline="")
    result = compile_specs([tmp_path])
    assert result.files is not None
    for content in result.files.values():
        content.encode("utf-8")


def test_a_file_that_is_not_utf8(specs: Path) -> None:
    (specs / "bad.json").write_bytes(b'{"name": "\xff"}')
    assert codes(specs) == ["encoding"]
    assert_refused(
        run_cli("specs", "-o", "out", cwd=specs.parent),
        "encoding",
        specs.parent / "out",
    )


def test_the_cli_refuses_a_lone_surrogate_and_leaves_out_alone(specs: Path) -> None:
    out = specs.parent / "out"
    assert run_cli("specs", "-o", "out", cwd=specs.parent).returncode == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    (specs / "ok.json").write_text(TOOL.replace('"t"', '"t", "description": "\\ud800"'))
    run = run_cli("specs", "-o", "out", cwd=specs.parent)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "error[encoding]" in run.stderr
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


# ── Printing ────────────────────────────────────────────────────────────────────────────────────────────────────


def test_diagnostics_escape_what_a_terminal_would_obey() -> None:
    text = 'x = "\x1b[2J\u202e" + oops\n'
    source = SourceFile(Path("a\udcff\n.json"), "a\udcff\n.json", Path("a.json"), text)
    span = source.span(text.index("oops"), text.index("oops") + 4)
    rendered = Diagnostic("error", "json-syntax", "bad \x07 thing", span).render()
    rendered.encode("utf-8")
    header, line, caret = rendered.splitlines()
    assert header == "a\\xff\\x0a.json:1:15: error[json-syntax]: bad \\x07 thing"
    assert line == '1 | x = "\\x1b[2J\\u202e" + oops'
    assert caret.index("^") == line.index("oops") and caret.count("^") == 4
    assert printable("plain é text") == "plain é text"


# ── Anything at all ─────────────────────────────────────────────────────────────────────────────────────────────

FRAGMENTS = st.sampled_from(
    [
        "\\ud800",
        "\\udc00",
        "\\ud83d\\ude00",
        "\\u0000",
        "\\x00",
        "\x00",
        "\x01",
        "\x1b",
        "\x85",
        "\u202e",
        "\ufeff",
        "\r\n",
        "\r",
        BIG,
        "-" + BIG,
        "1e400",
        "0x" + "f" * 1200,
        "NaN",
        "Infinity",
        ".inf",
        "&a [*a]",
        "*a",
        "!!python/object:os.system",
        "2020-02-30",
        "{",
        "[",
        '"',
        "'",
        "\\",
        ": ",
        "---",
        "*/",
        "\n  ",
        "x",
        "1",
    ]
)
TEMPLATES = {
    "a.json": '{{"name": "t", "description": "{0}", "parameters": {{"type": "object", "default": {0}}}}}',
    "b.yaml": "type: entity\nname: E\ndescription: {0}\nfields:\n  a:\n    type: int\n    default: {0}\n",
    "c.sql": "/* ---\nname: f\ntype: sql_function\ndescription: {0}\n--- */\nSELECT {0}\n",
    "d.gram": '[t:Tool {{description: "{0}"}} | (a::Int {{default: {0}}})==>(::Text)]',
    "E.schema.json": '{{"title": "E", "enum": ["{0}"], "default": {0}}}',
}


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    st.lists(FRAGMENTS, min_size=1, max_size=4).map("".join),
    st.sampled_from(sorted(TEMPLATES)),
)
def test_any_fragment_in_any_front_end_is_output_or_diagnostics(
    tmp_path_factory: pytest.TempPathFactory, fragment: str, name: str
) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    for text in (TEMPLATES[name].format(fragment), fragment):
        (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        result = compile_specs([folder])  # no exception escapes
        for diagnostic in result.diagnostics.sorted():
            diagnostic.render().encode("utf-8")
        for content in (result.files or {}).values():
            content.encode("utf-8")  # nothing unwritable got through


# ── pyproject.toml: trusted, but a broken one is still a diagnostic ─────────────────────────────────────────────

PYPROJECTS = [
    (b'[tool.codegen]\nspecs = ["\xff"]\n', "encoding", "pyproject.toml:2:11"),
    (b"[tool.codegen\n", "config", "not valid TOML"),
    (b"tool = 1\n", "config", "must be a table"),
    (b"[tool]\ncodegen = 1\n", "config", "must be a table"),
    (b"[tool.codegen]\nstrict = " + BIG.encode() + b"\n", "config", "cannot be read"),
    (b"[tool.codegen]\nspecs = " + b"[" * 5000 + b"]" * 5000, "config", "too deeply"),
    (b'[tool.codegen]\nspecs = ["a\\u0000b", 1]\n', "config", "is not a path"),
    (b'[tool.codegen]\noutput = "a\\u0000b"\n', "config", "is not a path"),
    (b'[tool.codegen]\nspecs = ["' + b"a" * 5000 + b'"]\n', "config", "does not exist"),
]


@pytest.mark.parametrize("data, code, shown", PYPROJECTS)
def test_a_broken_pyproject_is_a_diagnostic(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: bytes,
    code: str,
    shown: str,
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(data)
    (tmp_path / "t.json").write_text(TOOL)
    argv = ["--config", str(tmp_path / "pyproject.toml"), str(tmp_path / "t.json")]
    assert main([*argv, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"error[{code}]" in err and shown in err
    assert not (tmp_path / "out").exists()
