"""The rebuild record: a build with nothing to do skips the compile, but only on codegen's own state (kept in
its cache folder, keyed by hashes) and OUT's bytes as they are now; nothing in OUT is trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest.mock import ANY

import pytest

from codegen import cache, cli, compiler
from codegen.writer import MANIFEST, OutputFolder


def _tool(name: str, description: str = "A tool.") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder with two tool specs, and the cache pointed at a folder of this test."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "specs").mkdir()
    for name in ("alpha", "beta"):
        (tmp_path / "specs" / f"{name}.json").write_text(json.dumps(_tool(name)))
    return tmp_path


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts full compiles (the CLI imports compile_specs from codegen.compiler when it needs one)."""
    calls: list[int] = []
    original = compiler.compile_specs

    def counting(*args: Any, **kwargs: Any) -> compiler.CompileResult:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile_specs", counting)
    return calls


def _build(*extra: str) -> int:
    return cli.main(["specs", "-o", "out", *extra])


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# What a no-op build has no use for: the compiler (IR, front ends, passes, back ends) and what it renders with.
_COMPILER_MODULES = (
    "codegen.compiler",
    "codegen.ir",
    "codegen.frontends.json",
    "codegen.passes.resolve",
    "codegen.backends",
    "jinja2",
    "lark",
    "yaml",
    "concurrent.futures",
)


def test_a_noop_rebuild_imports_none_of_the_compiler(project: Path) -> None:
    """`python -m codegen` with nothing to do imports only the record's reading and checking: importing the
    compiler took longer than the no-op itself."""
    assert _build("-q") == 0
    code = (
        "import json, sys\n"
        "from codegen import cli\n"
        "status = cli.main(['specs', '-o', 'out', '-q'])\n"
        "print(json.dumps([status, sorted(sys.modules)]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    status, modules = json.loads(done.stdout)
    assert status == 0
    assert "codegen.cache" in modules
    imported = [m for m in modules if m.startswith(_COMPILER_MODULES)]
    assert imported == []
    # and a build that compiles (JSON specs: no gram grammar, no YAML) does import them: the names are real
    shutil.rmtree(project / "out")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    status, modules = json.loads(done.stdout)
    assert status == 0
    assert set(_COMPILER_MODULES) - set(modules) == {
        "lark",
        "yaml",
        "concurrent.futures",
    }


def test_a_noop_rebuild_neither_compiles_nor_writes(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _build() == 0
    first = capsys.readouterr().out
    before, record = _snapshot(project / "out"), _snapshot(project / "cache")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a no-op rebuild must not parse, render or write")

    from codegen import formatting

    monkeypatch.setattr(compiler, "compile_specs", refuse)
    monkeypatch.setattr(cache.Record, "parts_document", refuse)  # kept as text, unread
    monkeypatch.setattr(formatting, "format_all", refuse)
    monkeypatch.setattr(OutputFolder, "write", refuse)
    monkeypatch.setattr(OutputFolder, "delete", refuse)
    assert _build() == 0
    assert _snapshot(project / "out") == before
    # The first no-op stamps the spec files it read (cache.scan), and records only that.
    (stamped,) = [data for data, _ in _snapshot(project / "cache").values()]
    (unstamped,) = [data for data, _ in record.values()]
    (stamped_head, parts), (unstamped_head, same) = (
        data.partition(b"\n")[::2] for data in (stamped, unstamped)
    )
    assert json.loads(stamped_head) == {
        **json.loads(unstamped_head),
        "spec_stamps": ANY,
    }
    assert parts == same
    record = _snapshot(project / "cache")
    assert _build() == 0
    assert _snapshot(project / "out") == before
    assert _snapshot(project / "cache") == record
    again = capsys.readouterr().out
    assert "0 written" in again and again.split(" -> ")[0] == first.split(" -> ")[0]


def test_warnings_are_reported_again_by_a_noop_rebuild(
    project: Path, compiles: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    bfcl = _tool("gamma")
    bfcl["parameters"]["type"] = "dict"  # a BFCL type name: a warning
    (project / "specs" / "gamma.json").write_text(json.dumps(bfcl))
    assert _build() == 0
    first = capsys.readouterr()
    assert "warning[bfcl-type]" in first.err
    assert _build() == 0
    again = capsys.readouterr()
    assert compiles == [1]
    assert again.err == first.err
    assert "1 warning(s)" in again.out
    assert _build("-q") == 0
    assert capsys.readouterr() == ("", "")
    assert compiles == [1]


def test_a_forged_out_is_repaired_by_the_next_build(
    project: Path, compiles: list[int]
) -> None:
    assert _build() == 0
    out = project / "out"
    clean = (out / "alpha.py").read_bytes()
    forged = clean + b"import os; os.system('echo pwned')\n"
    (out / "alpha.py").write_bytes(forged)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"]["alpha.py"]["sha256"] = hashlib.sha256(forged).hexdigest()
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")

    assert _build() == 0
    assert compiles == [1, 1]
    assert (out / "alpha.py").read_bytes() == clean
    assert (
        json.loads((out / MANIFEST).read_text())["files"]["alpha.py"]["sha256"]
        == hashlib.sha256(clean).hexdigest()
    )
    assert _build() == 0 and compiles == [1, 1]  # and now nothing to do again


def test_a_deleted_or_linked_file_in_out_means_a_full_build(
    project: Path, compiles: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _build() == 0
    out = project / "out"
    (out / "beta.py").unlink()
    assert _build() == 0 and compiles == [1, 1] and (out / "beta.py").is_file()
    # The same bytes behind a link: the record is checked without following it, so a full build refuses it.
    (project / "elsewhere.py").write_bytes((out / "beta.py").read_bytes())
    (out / "beta.py").unlink()
    (out / "beta.py").symlink_to(project / "elsewhere.py")
    capsys.readouterr()
    assert _build() == 1 and compiles == [1, 1, 1]
    assert "symbolic link" in capsys.readouterr().err


@pytest.mark.parametrize("change", ["spec", "new spec", "setting", "version"])
def test_a_changed_input_invalidates_the_record(
    project: Path,
    compiles: list[int],
    monkeypatch: pytest.MonkeyPatch,
    change: str,
) -> None:
    assert _build() == 0 and _build() == 0
    assert compiles == [1]
    extra: list[str] = []
    if change == "spec":
        (project / "specs" / "beta.json").write_text(
            json.dumps(_tool("beta", "Edited."))
        )
    elif change == "new spec":
        (project / "specs" / "gamma.json").write_text(json.dumps(_tool("gamma")))
    elif change == "setting":
        extra = ["--emit", "python"]
    else:
        monkeypatch.setattr(cache, "codegen_digest", lambda: "another codegen")
    assert _build(*extra) == 0
    assert compiles == [1, 1]
    assert _build(*extra) == 0
    assert compiles == [1, 1]


def test_codegens_digest_covers_its_version_source_and_templates(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache.codegen_digest.cache_clear()
    before = cache.codegen_digest()
    cache.codegen_digest.cache_clear()
    monkeypatch.setattr(cache, "__version__", "99.0")
    assert cache.codegen_digest() != before
    cache.codegen_digest.cache_clear()
    monkeypatch.undo()
    assert cache.codegen_digest() == before
    cache.codegen_digest.cache_clear()
    # the same templates, one of them a byte longer
    templates = tmp_path / "templates"
    shutil.copytree(cache.data_dir("templates"), templates)
    module = templates / "module.py.jinja"
    module.write_bytes(module.read_bytes() + b"#")
    original = cache.data_dir
    monkeypatch.setattr(
        cache,
        "data_dir",
        lambda name: templates if name == "templates" else original(name),
    )
    assert cache.codegen_digest() != before
    cache.codegen_digest.cache_clear()
    # an edit that keeps the size and puts the modification time back still counts (the change time moves)
    changed = cache.codegen_digest()
    cache.codegen_digest.cache_clear()
    info = module.stat()
    time.sleep(0.05)  # past the tick of the file system's clock the copy was made in
    module.write_bytes(module.read_bytes()[:-1] + b"!")
    os.utime(module, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert module.stat().st_size == info.st_size
    assert cache.codegen_digest() != changed
    cache.codegen_digest.cache_clear()


@pytest.mark.parametrize("damage", ["garbage", "wrong shape", "folder", "empty"])
def test_a_corrupt_cache_is_ignored(
    project: Path,
    compiles: list[int],
    capsys: pytest.CaptureFixture[str],
    damage: str,
) -> None:
    assert _build() == 0
    record = cache.record_path(project / "out")
    assert record is not None and record.is_file()
    if damage == "garbage":
        record.write_bytes(b"\xff\x00{not json")
    elif damage == "wrong shape":
        record.write_text(json.dumps({"format": 1, "inputs": 3, "files": []}))
    elif damage == "folder":
        record.unlink()
        record.mkdir()
    else:
        record.write_bytes(b"")
    capsys.readouterr()
    assert _build() == 0
    assert compiles == [1, 1]
    assert capsys.readouterr().err == ""


def test_an_unwritable_cache_is_ignored(
    project: Path,
    compiles: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (project / "not-a-folder").write_text("")
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(project / "not-a-folder"))
    assert _build() == 0 and _build() == 0
    assert compiles == [1, 1]
    assert capsys.readouterr().err == ""
    assert (project / "out" / "alpha.py").is_file()


def test_check_never_uses_the_record(
    project: Path, compiles: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _build() == 0
    record = cache.record_path(project / "out")
    assert record is not None
    saved = record.read_bytes()
    assert _build("--check") == 0
    assert compiles == [1, 1]
    # A forged OUT whose forgery is also written into the record: --check still compiles and finds it.
    out = project / "out"
    forged = (out / "alpha.py").read_bytes() + b"# forged\n"
    (out / "alpha.py").write_bytes(forged)
    head, parts = saved.split(b"\n")  # the record, and its parts (cache.Record.to_json)
    doc = json.loads(head)
    doc["files"]["alpha.py"] = [hashlib.sha256(forged).hexdigest(), len(forged)]
    record.write_bytes(json.dumps(doc).encode() + b"\n" + parts)
    capsys.readouterr()
    assert _build("--check") == 1
    assert "# forged" in capsys.readouterr().out
    assert record.read_bytes() == json.dumps(doc).encode() + b"\n" + parts  # no record


def test_no_cache_compiles_and_keeps_no_record(
    project: Path, compiles: list[int]
) -> None:
    assert _build("--no-cache") == 0 and _build("--no-cache") == 0
    assert compiles == [1, 1]
    assert not (project / "cache").exists()


def test_the_cache_path_never_depends_on_spec_text(project: Path) -> None:
    hostile = _tool("evil")
    hostile["description"] = "../../../../etc/passwd"
    (project / "specs" / "..%2f..evil.json").write_text(json.dumps(hostile))
    assert _build() == 0
    expected = hashlib.sha256(os.fsencode((project / "out").resolve())).hexdigest()
    files = sorted(
        p.relative_to(project / "cache").as_posix()
        for p in (project / "cache").rglob("*")
    )
    assert files == ["rebuild", f"rebuild/{expected}.json"]
    assert cache.record_path(Path("out")) == project / "cache" / files[1]


def test_two_outs_keep_separate_records(project: Path, compiles: list[int]) -> None:
    assert cli.main(["specs", "-o", "one"]) == 0
    assert cli.main(["specs", "-o", "two"]) == 0
    one, two = cache.record_path(Path("one")), cache.record_path(Path("two"))
    assert one is not None and two is not None and one != two
    assert one.is_file() and two.is_file()
    (project / "one" / "alpha.py").write_text("# edited\n")
    assert cli.main(["specs", "-o", "two"]) == 0  # unaffected by what happened to one
    assert compiles == [1, 1]
    assert cli.main(["specs", "-o", "one"]) == 0
    assert compiles == [1, 1, 1]
    assert (project / "one" / "alpha.py").read_text() != "# edited\n"


def test_the_cache_folder_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache.cache_root() == tmp_path / "explicit"
    monkeypatch.delenv("CODEGEN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_root() == tmp_path / "xdg" / "codegen"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_root() == tmp_path / "home" / ".cache" / "codegen"


def _stamped_build(project: Path) -> cache.Record:
    """Two builds, the second one a tick of the clock later and writing beta's files and the manifest only:
    every file it left alone then has a change time before the manifest's, and a stamp in the record.
    """
    assert _build() == 0
    time.sleep(0.05)
    (project / "specs" / "beta.json").write_text(json.dumps(_tool("beta", "Edited.")))
    assert _build() == 0
    record_file = cache.record_path(project / "out")
    assert record_file is not None
    record = cache.Record.from_json(record_file.read_bytes())
    assert record is not None
    return record


def test_files_left_alone_before_the_manifest_are_vouched_for_by_their_stamp(
    project: Path, compiles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _stamped_build(project)
    assert "alpha.py" in record.stamps and MANIFEST not in record.stamps
    assert compiles == [1, 1]
    read: list[str] = []
    original = OutputFolder.read_many

    def reading(self: OutputFolder, limits: dict[str, int]) -> dict[str, bytes | None]:
        read.extend(limits)
        return original(self, limits)

    monkeypatch.setattr(OutputFolder, "read_many", reading)
    assert _build() == 0 and compiles == [1, 1]
    assert MANIFEST in read  # always hashed: it is what the stamps are measured against
    assert not set(read) & set(record.stamps)  # the stamped files are not read at all


def test_a_forged_file_of_the_same_size_and_time_is_repaired(
    project: Path, compiles: list[int]
) -> None:
    record = _stamped_build(project)
    alpha = project / "out" / "alpha.py"
    assert "alpha.py" in record.stamps
    clean = alpha.read_bytes()
    _forge_in_place(alpha, b"Do not edit", b"Do now edit")
    assert _build() == 0
    assert compiles == [1, 1, 1]
    assert alpha.read_bytes() == clean


def _forge_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Replace `old` by `new` (of its size) in the file, keeping its inode, size and modification time: only
    its change time tells."""
    clean, info = path.read_bytes(), path.stat()
    forged = clean.replace(old, new)
    assert forged != clean and len(forged) == len(clean)
    with open(path, "r+b") as handle:
        handle.write(forged)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_ino == info.st_ino and path.stat().st_size == info.st_size


def _stat(mode: int, size: int, ctime: int) -> os.stat_result:
    # (mode, ino, dev, nlink, uid, gid, size, atime, mtime, ctime) and the float/ns fields after them
    return os.stat_result(
        (mode, 7, 3, 1, 0, 0, size, 0, 0, 0, 0.0, 0.0, 0.0, 0, 0, ctime)
    )


def test_only_files_changed_before_the_manifest_get_a_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular, link = 0o100644, 0o120777
    found = {
        MANIFEST: _stat(regular, 10, 5_000),
        "early.py": _stat(regular, 4, 4_999),
        "racy.py": _stat(
            regular, 4, 5_000
        ),  # the manifest's tick: a change now would keep it
        "later.py": _stat(regular, 4, 5_001),
        "link.py": _stat(link, 4, 1_000),
        "resized.py": _stat(regular, 5, 1_000),
    }
    monkeypatch.setattr(
        OutputFolder, "lstat_many", lambda self, rels: {rel: found[rel] for rel in rels}
    )
    files = {rel: ("0" * 64, 4) for rel in found}
    stamps = cache.stamps(tmp_path, files)
    assert list(stamps) == ["early.py"]
    assert (
        stamps["early.py"] == "33188,3,7,4,0,4999"
    )  # mode, device, inode, size, times
    # stamps the build began with stay, without a look at the file, unless the build wrote it
    began: Any = SimpleNamespace(
        out=SimpleNamespace(
            stamped={"racy.py": "1,2,3,4,5,6", "later.py": "6,6,6,6,6,6"}
        )
    )
    assert cache.stamps(tmp_path, files, ["later.py"], began) == {
        "early.py": "33188,3,7,4,0,4999",
        "racy.py": "1,2,3,4,5,6",
    }


def test_a_file_read_during_a_rebuild_is_checked_by_its_stamp_or_its_hash(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _stamped_build(project)
    out = cache.vouch(project / "out", record)
    assert out is not None and "alpha.py" in out.stamped
    alpha = project / "out" / "alpha.py"
    clean = alpha.read_bytes()
    with monkeypatch.context() as patched:  # its stamp holds: not hashed
        patched.setattr(cache, "_sha256", lambda data: pytest.fail("hashed"))
        assert out.bytes_of("alpha.py") == clean
    out.read.clear()
    time.sleep(0.05)
    alpha.write_bytes(
        clean.replace(b"Do not edit", b"Do now edit")
    )  # same size, new stamp
    with pytest.raises(ValueError):
        out.bytes_of("alpha.py")
    alpha.write_bytes(
        clean
    )  # the recorded bytes again under a new stamp: its hash vouches for it
    assert out.bytes_of("alpha.py") == clean


@pytest.mark.parametrize("written", ["specs", "./specs", "specs/", "."])
def test_the_scan_names_spec_files_as_the_compile_does(
    project: Path, compiles: list[int], monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    """The scan walks with strings (sources.discover_names), the compile with Paths: however SPECS is
    written, both must name a file alike, or no rebuild would ever be a no-op."""
    if written == ".":
        monkeypatch.chdir(project / "specs")
    out = "out" if written != "." else "../out"
    assert cli.main([written, "-o", out, "-q"]) == 0
    assert cli.main([written, "-o", out, "-q"]) == 0
    assert compiles == [1]


def _spec_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files the rebuild record's scan reads (by name)."""
    read: list[str] = []
    original = cache.read_spec_bytes

    def reading(path: Path, limit: int, **kwargs: Any) -> bytes:
        read.append(Path(path).name)
        return original(path, limit, **kwargs)

    monkeypatch.setattr(cache, "read_spec_bytes", reading)
    return read


def test_spec_files_changed_before_the_newest_are_vouched_for_by_their_stamp(
    project: Path, compiles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _stamped_build(project)  # beta.json was written a tick after alpha.json
    specs = {Path(path).name: entry for path, entry in record.spec_stamps.items()}
    assert list(specs) == ["alpha.json"]  # the newest (racy) file gets no stamp
    alpha = (project / "specs" / "alpha.json").read_bytes()
    assert specs["alpha.json"][-1] == hashlib.sha256(alpha).hexdigest()
    read = _spec_reads(monkeypatch)
    assert _build() == 0 and compiles == [1, 1]
    assert read == ["beta.json"]  # alpha.json is taken on its stamp


def test_a_forged_spec_of_the_same_size_and_time_is_compiled_again(
    project: Path, compiles: list[int]
) -> None:
    record = _stamped_build(project)
    assert "specs/alpha.json" in record.spec_stamps  # by its path as shown
    _forge_in_place(project / "specs" / "alpha.json", b"A tool.", b"A toop.")
    assert _build() == 0
    assert compiles == [1, 1, 1]
    assert "A toop." in (project / "out" / "alpha.py").read_text()


def test_only_spec_files_older_than_the_newest_on_their_device_get_a_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    regular = 0o100644
    for name in ("a", "b", "c", "d", "e"):
        (tmp_path / f"{name}.json").write_text("{}")

    def crafted(dev: int, ctime: int) -> os.stat_result:
        return os.stat_result(
            (regular, 7, dev, 1, 0, 0, 2, 0, 0, 0, 0.0, 0.0, 0.0, 0, 0, ctime)
        )

    found = {
        "a.json": crafted(3, 100),
        "b.json": crafted(3, 200),  # the newest on device 3
        "c.json": crafted(3, 200),  # its tick: a change now would keep the stamp
        "d.json": crafted(9, 50),  # alone on device 9, so the newest there
        "e.json": crafted(3, 150),
    }
    real_lstat = os.lstat
    monkeypatch.setattr(
        cache.os,
        "lstat",
        lambda path, **kw: found.get(Path(path).name) or real_lstat(path, **kw),
    )
    known = {(tmp_path / "e.json").as_posix(): ["33188,3,7,2,0,150", "f" * 64]}
    read = _spec_reads(monkeypatch)
    scanned = cache.scan([tmp_path], tmp_path / "out", known)
    assert scanned is not None
    sources, _, _, stamps = scanned
    assert sorted(Path(p).name for p in stamps) == ["a.json", "e.json"]
    assert sorted(read) == ["a.json", "b.json", "c.json", "d.json"]  # e.json: its stamp
    assert dict((Path(p).name, sha) for p, _, sha in sources)["e.json"] == "f" * 64
    empty = hashlib.sha256(b"{}").hexdigest()
    assert stamps[(tmp_path / "a.json").as_posix()] == ["33188,3,7,2,0,100", empty]


def test_a_record_holding_a_lone_surrogate_is_written_and_read_back() -> None:
    """A diagnostic's text is kept as printed; JSON can escape any string, even one UTF-8 cannot hold."""
    record = cache.Record("i" * 64, {"a.py": ("0" * 64, 1)}, folded=["\udcff warned"])
    assert cache.Record.from_json(record.to_json()) == record
    plain = cache.Record(
        "i" * 64, {"a.py": ("0" * 64, 1)}, stamps={"a.py": f"1,{2**63},3,4,5,6"}
    )
    assert cache.Record.from_json(plain.to_json()) == plain


@pytest.mark.parametrize(
    "entry",
    [
        [123456, "f" * 64],  # a stamp that is no text
        ["1,2,3,4,5,6", 6],  # a hash that is no text
        ["f" * 64],  # a field short
        ["1,2,3,4,5,6", "f" * 64, "f" * 64],  # one too many
    ],
)
def test_a_record_with_a_malformed_spec_stamp_is_refused(entry: list[Any]) -> None:
    good = cache.Record(
        "i" * 64, {}, spec_stamps={"specs/a.json": ["1,2,3,4,5,6", "f" * 64]}
    )
    assert cache.Record.from_json(good.to_json()) == good
    bad = cache.Record("i" * 64, {}, spec_stamps={"specs/a.json": entry})
    assert cache.Record.from_json(bad.to_json()) is None


@pytest.mark.parametrize("stamp", [["x"], [1, 2, 3], None, {"st_ino": 1}, "1,2,3"])
def test_a_stamp_of_out_that_is_no_stamp_vouches_for_nothing(
    project: Path, compiles: list[int], stamp: Any
) -> None:
    """The record's stamps of OUT are not checked one by one when it is read: one that is not a stamp never
    equals a file's lstat, so the file is read and hashed, and a change to it is found all the same.
    """
    assert _build() == 0
    time.sleep(0.05)
    assert _build() == 0  # a no-op: the files now have stamps
    path = cache.record_path(project / "out")
    assert path is not None
    record = cache.Record.from_json(path.read_bytes())
    assert record is not None and "alpha.py" in record.stamps
    record.stamps = {rel: stamp for rel in record.stamps}
    path.write_bytes(record.to_json())
    assert _build() == 0
    assert compiles == [1]  # every file read and hashed: still a no-op
    alpha = project / "out" / "alpha.py"
    text = alpha.read_bytes()
    alpha.write_bytes(text.replace(b"alpha", b"ALPHA", 1))  # same size
    path.write_bytes(record.to_json())
    assert _build() == 0
    assert compiles == [1, 1] and alpha.read_bytes() == text


def test_a_first_build_stamps_the_spec_files_that_settled_before_it(
    project: Path, compiles: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spec file last changed a second before a first build began has the bytes it read: its stamp is
    recorded, so the next scan (the first edit's) does not read it again."""
    from codegen import quick

    assert _build() == 0  # (just written: not settled, no stamps)
    path = cache.record_path(project / "out")
    assert path is not None
    record = cache.Record.from_json(path.read_bytes())
    assert record is not None and record.spec_stamps == {}
    shutil.rmtree(project / "out")
    monkeypatch.setattr(quick, "_SETTLED_NS", -(10**15))  # as if a while had passed
    assert _build() == 0 and compiles == [1, 1]
    record = cache.Record.from_json(path.read_bytes())
    assert record is not None
    assert sorted(record.spec_stamps) == ["specs/alpha.json", "specs/beta.json"]
    beta = (project / "specs" / "beta.json").read_bytes()
    assert record.spec_stamps["specs/beta.json"][1] == hashlib.sha256(beta).hexdigest()
    read = _spec_reads(monkeypatch)
    (project / "specs" / "alpha.json").write_text(json.dumps(_tool("alpha", "Edited.")))
    assert _build() == 0
    assert read == ["alpha.json"]  # the edited file alone
