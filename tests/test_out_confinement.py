"""OUT is untrusted: its manifest, links and edited files can neither steer a read, write or delete outside OUT,
nor skip a check, nor keep content codegen would not generate; and OUT changes all-or-nothing (SPEC §7).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import posixpath
import stat
from pathlib import Path

import subprocess
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_bad_input import write
from test_cli import TOOL, _tree

from codegen import writer
from codegen.cli import main
from codegen.diagnostics import Diagnostics
from codegen.writer import MANIFEST, WriteError, path_problem, write_output

SECRET = "TOP-SECRET-TOKEN"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line, in this process (a subprocess per call would make these tests slow)."""
    stdout, stderr, here = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(list(args))
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, code, stdout.getvalue(), stderr.getvalue())


def _built(tmp_path: Path) -> Path:
    write(tmp_path / "specs", "ping.json", TOOL)
    assert run_cli("specs", "-o", "out", cwd=tmp_path).returncode == 0
    return tmp_path / "out"


def _manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text())


def _list_in_manifest(out: Path, *entries: str, sha: str = "0" * 64) -> None:
    manifest = _manifest(out)
    manifest["files"].update({rel: {"sha256": sha} for rel in entries})
    (out / MANIFEST).write_text(json.dumps(manifest))


def test_check_never_reads_what_the_manifest_or_a_link_points_to(
    tmp_path: Path,
) -> None:
    out = _built(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    (out / "leak.py").symlink_to(secret)
    _list_in_manifest(out, "../secret.txt", str(secret), "leak.py", "a\\..\\..\\x")
    run = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert SECRET not in run.stdout + run.stderr
    assert run.returncode == 1 and "symbolic link" in run.stdout
    assert "ignoring the entry '../secret.txt'" in run.stderr
    assert "Traceback" not in run.stderr


def test_check_does_not_pass_through_a_linked_folder(tmp_path: Path) -> None:
    out = _built(tmp_path)
    (out / "schemas").rename(tmp_path / "elsewhere")
    (out / "schemas").symlink_to(tmp_path / "elsewhere")
    run = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert run.returncode == 1 and "symbolic link" in run.stdout


def test_a_forged_manifest_cannot_keep_edited_code(tmp_path: Path) -> None:
    out = _built(tmp_path)
    clean = (out / "ping.py").read_text()
    evil = clean + "import os; os.system('echo pwned')\n"
    (out / "ping.py").write_text(evil)
    manifest = _manifest(out)
    manifest["files"]["ping.py"]["sha256"] = hashlib.sha256(evil.encode()).hexdigest()
    (out / MANIFEST).write_text(json.dumps(manifest))
    check = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert check.returncode == 1 and "-import os; os.system" in check.stdout
    assert run_cli("specs", "-o", "out", cwd=tmp_path).returncode == 0
    assert (out / "ping.py").read_text() == clean


def test_check_escapes_control_characters_from_out(tmp_path: Path) -> None:
    out = _built(tmp_path)
    (out / "ping.py").write_text("\x1b[2K\rall good\u2028\n")
    run = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert "-\\x1b[2K\\rall good\\u2028\n" in run.stdout
    assert "\x1b" not in run.stdout and "\r" not in run.stdout


def test_a_forged_source_digest_does_not_skip_the_schema_check(
    tmp_path: Path,
) -> None:
    out = _built(tmp_path)
    bad = {**TOOL, "parameters": {"type": "object", "properties": {"n": {"type": 7}}}}
    spec = write(tmp_path / "specs", "ping.json", bad)
    manifest = _manifest(out)
    manifest["sources"] = {"ping.json": hashlib.sha256(spec.read_bytes()).hexdigest()}
    (out / MANIFEST).write_text(json.dumps(manifest))
    before = _tree(out)
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "ping.json:" in run.stderr
    assert _tree(out) == before


def test_a_linked_file_in_out_is_refused_never_written_through(
    tmp_path: Path,
) -> None:
    out = _built(tmp_path)
    (out / "notes.txt").write_text("mine\n")
    (out / "ping.py").unlink()
    (out / "ping.py").symlink_to("notes.txt")
    write(tmp_path / "specs", "ping.json", {**TOOL, "description": "Changed."})
    before = _tree(out)
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "symbolic link" in run.stderr
    assert "left unchanged" in run.stderr and "Traceback" not in run.stderr
    assert (out / "notes.txt").read_text() == "mine\n" and _tree(out) == before
    assert (out / "ping.py").is_symlink()


def test_a_linked_folder_in_out_is_never_entered(tmp_path: Path) -> None:
    out = _built(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (out / "schemas").rename(elsewhere)
    (out / "schemas").symlink_to(elsewhere)
    before = _tree(elsewhere)
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "out/schemas is a symbolic link" in run.stderr
    assert _tree(elsewhere) == before


def test_a_fifo_in_out_is_refused_without_hanging(tmp_path: Path) -> None:
    out = _built(tmp_path)
    (out / "ping.py").unlink()
    os.mkfifo(out / "ping.py")
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "not a regular file" in run.stderr
    check = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert check.returncode == 1 and "not a regular file" in check.stdout


def test_a_refused_delete_changes_nothing(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    write(specs, "ping.json", TOOL)
    write(specs, "pong.json", {**TOOL, "name": "pong"})
    assert run_cli("specs", "-o", "out", cwd=tmp_path).returncode == 0
    out = tmp_path / "out"
    (out / "pong.py").write_text("# my edits\n")  # hand-edited, then its spec goes
    (specs / "pong.json").unlink()
    write(specs, "ping.json", {**TOOL, "description": "Changed."})
    before = _tree(out)
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and "edited since" in run.stderr
    assert _tree(out) == before


def test_a_linked_stale_file_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    out = _built(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "stale.py").symlink_to(victim)
    _list_in_manifest(out, "stale.py")
    write(tmp_path / "specs", "ping.json", {**TOOL, "description": "Changed."})
    before = _tree(out)
    run = run_cli("specs", "-o", "out", cwd=tmp_path)
    assert run.returncode == 1 and victim.read_text() == "keep me"
    assert _tree(out) == before and (out / "stale.py").is_symlink()


def test_text_that_cannot_be_encoded_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(WriteError, match="not valid Unicode"):
        write_output(out, {"a.py": "ok = 1\n", "b.py": "bad = '\udc80'\n"})
    assert not out.exists()


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_new_files_get_the_usual_mode_for_the_umask(
    tmp_path: Path, umask: int, mode: int
) -> None:
    previous = os.umask(umask)
    try:
        write_output(tmp_path / "out", {"pkg/a.py": "a = 1\n"})
    finally:
        os.umask(previous)
    for path in (tmp_path / "out" / "pkg" / "a.py", tmp_path / "out" / MANIFEST):
        assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_new_folder_appears_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder OUT does not have yet is filled under a temporary name and renamed into place: a failure while
    filling it leaves neither the folder nor the temporary one."""
    from codegen import writer

    out = tmp_path / "out"
    (out / "tools").mkdir(parents=True)
    files = {
        "schemas/a.json": "{}\n",
        "schemas/entities/E.json": "[]\n",
        "schemas/b.json": "1\n",
        "tools/deep/x.py": "x = 1\n",  # `deep` is new inside a folder OUT has
    }
    real, calls = writer._write_all, []

    def failing(fd: int, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(fd, data)

    monkeypatch.setattr(writer, "_write_all", failing)
    with pytest.raises(OSError, match="No space"):
        write_output(out, files)
    assert [p.relative_to(out).as_posix() for p in sorted(out.rglob("*"))] == ["tools"]
    monkeypatch.setattr(writer, "_write_all", real)
    write_output(out, files)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert written == sorted(
        [MANIFEST, "schemas", "schemas/entities", "tools", "tools/deep", *files]
    )
    assert all((out / rel).read_bytes() == text.encode() for rel, text in files.items())


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=0, max_size=3).map(
            lambda folders: "/".join([*folders, "f.py"])
        ),
        st.text(max_size=5),
        min_size=1,
        max_size=6,
    ),
    st.sets(st.sampled_from(["a", "b", "a/b", "c/a", "a/c/b"]), max_size=3),
)
def test_writing_into_folders_old_and_new_leaves_exactly_the_files(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], existing: set[str]
) -> None:
    """Whatever folders OUT has already: afterwards it holds the files, their folders and the manifest, and
    nothing else (no temporary file or folder)."""
    out = tmp_path_factory.mktemp("out")
    for folder in existing:
        (out / folder).mkdir(parents=True, exist_ok=True)
    write_output(out, files)
    found = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert found == {*files, MANIFEST}
    assert all((out / rel).read_bytes() == text.encode() for rel, text in files.items())
    assert not list(out.rglob(".codegen-*.tmp"))


@pytest.mark.parametrize(
    "junk", [b"{", b"[" * 100_000, b'{"files": [1]}', b'"x"', b"\xff", b"9" * 5000]
)
def test_a_broken_manifest_is_a_warning_not_a_traceback(
    tmp_path: Path, junk: bytes
) -> None:
    out = tmp_path / "out"
    write_output(out, {"a.py": "a = 1\n"})
    (out / MANIFEST).write_bytes(junk)
    diags = Diagnostics()
    write_output(out, {"a.py": "a = 1\n"}, diags)
    assert [d.code for d in diags.sorted()] == ["manifest"]
    assert _manifest(out)["files"] == {
        "a.py": {"sha256": hashlib.sha256(b"a = 1\n").hexdigest()}
    }


def test_check_fails_on_files_codegen_did_not_generate(tmp_path: Path) -> None:
    out = _built(tmp_path)
    (out / "extra.py").write_text("x = 1\n")
    (out / "schemas" / "notes.txt").write_text("mine")
    (out / "__pycache__").mkdir()
    (out / "__pycache__" / "ping.cpython-311.pyc").write_bytes(b"")
    (out / "ping.pyc").write_bytes(b"")
    before = _tree(out)
    (out / "linked").symlink_to(tmp_path)
    run = run_cli("specs", "-o", "out", "--check", cwd=tmp_path)
    assert run.returncode == 1
    strays = [line for line in run.stderr.splitlines() if "error[stray-file]" in line]
    assert len(strays) == 3, run.stderr
    for rel in ("out/extra.py", "out/linked", "out/schemas/notes.txt"):
        assert any(f"{rel} was not generated by codegen" in line for line in strays)
    assert "pyc" not in run.stderr and "3 stray file(s)" in run.stderr
    (out / "linked").unlink()
    assert _tree(out) == before
    for rel in ("extra.py", "schemas/notes.txt"):
        (out / rel).unlink()
    assert run_cli("specs", "-o", "out", "--check", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("layout", ["same", "specs-inside-out"])
def test_out_holding_the_specs_is_a_usage_error(tmp_path: Path, layout: str) -> None:
    write(tmp_path / "specs", "ping.json", TOOL)
    out = "specs" if layout == "same" else "."
    run = run_cli("specs", "-o", out, cwd=tmp_path)
    assert run.returncode == 2 and "holds the specs" in run.stderr
    assert sorted(p.name for p in (tmp_path / "specs").iterdir()) == ["ping.json"]


def test_out_inside_the_specs_folder_builds_again_and_checks(tmp_path: Path) -> None:
    write(tmp_path / "specs", "ping.json", TOOL)
    for _ in range(2):
        run = run_cli("specs", "-o", "specs/gen", cwd=tmp_path)
        assert run.returncode == 0 and "1 spec file(s)" in run.stdout, run.stderr
    check = run_cli("specs", "-o", "specs/gen", "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab./\\\x00\n", max_size=12))
def test_every_accepted_path_stays_below_out(rel: str) -> None:
    if path_problem(rel) is None:
        assert posixpath.normpath(posixpath.join("/out", rel)).startswith("/out/")
        assert ".." not in rel.split("/") and "\\" not in rel and "\x00" not in rel


# Paths made of what path checks turn on: dots, slashes, a backslash, controls, a lone surrogate, a letter
# that is no ASCII and one that is printable-less (U+200B).
_PATH_PIECES = st.sampled_from(
    [
        "/",
        "..",
        ".",
        "a",
        ".a",
        "a.",
        "...",
        "\\",
        "\x00",
        "\x7f",
        "\ud800",
        "é",
        "\u200b",
    ]
)
_PATHS = st.lists(_PATH_PIECES, max_size=6).map("".join)


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PATHS | st.text(max_size=12), max_size=4))
def test_paths_told_plain_at_once_are_those_the_checks_one_by_one_accept(
    rels: list[str],
) -> None:
    # all_plain (also path_problem's answer for a plain path) says yes of exactly the lists of paths the checks
    # one by one accept, but where a character is neither a control nor printable (U+200B): then it says no
    each = all(rel and writer._path_problem_of(rel) is None for rel in rels)
    assert writer.all_plain(rels) == (each and "".join(rels).isprintable())
    for rel in rels:
        assert path_problem(rel) == (
            writer._path_problem_of(rel) if rel else "not a non-empty string"
        )


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from(["..", ".", "", "x", "/", "\\", "\x00", "sub", "a.py"]),
        min_size=1,
        max_size=5,
    ).map("/".join)
)
def test_manifest_entries_never_reach_outside_out(tmp_path_factory, rel: str) -> None:
    root = tmp_path_factory.mktemp("hostile")
    out, outside = root / "out", root / "x"
    outside.write_text("outside")
    (root / "sub").mkdir()
    (root / "sub" / "a.py").write_text("outside")
    out.mkdir()
    (out / MANIFEST).write_text(
        json.dumps({"files": {rel: {"sha256": hashlib.sha256(b"outside").hexdigest()}}})
    )
    write_output(out, {"gen.py": "x = 1\n"})
    assert outside.read_text() == "outside" and (root / "sub" / "a.py").exists()


def test_large_files_hashed_and_written_in_threads_are_written_whole(
    tmp_path: Path,
) -> None:
    """Files of a megabyte and more are hashed and written two at a time: each lands whole, beside the small
    ones, and the manifest lists each one's hash."""
    out = tmp_path / "out"
    for round in range(2):
        files = {
            f"schemas/big{n}.json": bytes([48 + n + round]) * ((1 << 20) + n)
            for n in range(3)
        }
        files["schemas/small.json"] = f"{round}\n".encode()
        write_output(out, files)
        for rel, data in files.items():
            assert (out / rel).read_bytes() == data
        listed = json.loads((out / MANIFEST).read_text())["files"]
        assert {rel: entry["sha256"] for rel, entry in listed.items()} == {
            rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()
        }
        assert sorted(p.name for p in (out / "schemas").iterdir()) == sorted(
            posixpath.basename(rel) for rel in files
        )


def test_work_in_two_threads_keeps_its_order_raises_and_leaves_no_thread() -> None:
    """`_in_threads` answers in the items' order, raises what an item raised, and returns with no other thread
    running (a build may fork after it)."""
    items = list(range(40))
    assert writer._in_threads(lambda n: n * n, items) == [n * n for n in items]

    def refuse(n: int) -> int:
        if n == 17:
            raise OSError("no room")
        return n

    with pytest.raises(OSError, match="no room"):
        writer._in_threads(refuse, items)
    assert threading.active_count() == 1


def test_a_link_where_a_large_file_goes_is_refused_and_never_written_through(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    big = {f"schemas/big{n}.json": b"x" * (1 << 20) for n in range(2)}
    write_output(out, big)
    (tmp_path / "target").write_bytes(b"mine")
    (out / "schemas" / "big1.json").unlink()
    (out / "schemas" / "big1.json").symlink_to(tmp_path / "target")
    with pytest.raises(WriteError, match="symbolic link"):
        write_output(out, {rel: b"y" * (1 << 20) for rel in big})
    assert (tmp_path / "target").read_bytes() == b"mine"


def test_a_failed_threaded_write_is_raised_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegen import writer

    out = tmp_path / "out"
    big = {f"schemas/big{n}.json": b"x" * (1 << 20) for n in range(3)}
    write_output(out, big)
    real = writer.OutputFolder._write_in

    def failing(folder: int, name: str, data: bytes) -> None:
        if name == "big1.json":
            raise OSError(28, "No space left on device")
        real(folder, name, data)

    monkeypatch.setattr(writer.OutputFolder, "_write_in", staticmethod(failing))
    with pytest.raises(OSError, match="No space"):
        write_output(out, {rel: b"y" * (1 << 20) for rel in big})
    assert (out / "schemas" / "big1.json").read_bytes() == b"x" * (1 << 20)
    assert not [p for p in (out / "schemas").iterdir() if p.name.endswith(".tmp")]
