"""Golden files: the examples compile to exactly the bytes in golden/ (update with --update-golden)."""

from __future__ import annotations

import shutil

from conftest import EXAMPLES, GOLDEN, compile_result

from codegen.writer import MANIFEST, manifest_text


def test_examples_match_golden_files(update_golden: bool) -> None:
    result = compile_result(EXAMPLES)
    assert result.files is not None
    files = dict(result.files)
    files[MANIFEST] = manifest_text(
        files
    )  # without render keys: they name black's version
    if update_golden:
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for rel, text in files.items():
            (GOLDEN / rel).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / rel).write_bytes(text.encode("utf-8"))
    on_disk = {
        p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()
    }
    assert on_disk == set(
        files
    ), "generated files differ from golden/ (run pytest --update-golden and read the diff)"
    for rel, text in files.items():
        assert (GOLDEN / rel).read_bytes() == text.encode(
            "utf-8"
        ), f"golden/{rel} differs"
