"""The same specs give byte-identical output whatever the hash seed (SPEC §7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES, ROOT, shared


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_output_is_identical_under_two_hash_seeds(tmp_path: Path) -> None:
    trees = []
    for seed in ("0", "4242"):
        out = tmp_path / f"seed{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        specs = [str(EXAMPLES), str(shared("corpus", "real-tools"))]
        subprocess.run(
            [sys.executable, "-m", "codegen", *specs, "-o", str(out), "-q"],
            check=True,
            env=env,
        )
        trees.append(_tree(out))
    assert trees[0] and trees[0] == trees[1]
