"""codegen against datamodel-code-generator on the same synthetic input, timed in one run.

    python -m venv /tmp/dcg && /tmp/dcg/bin/pip install datamodel-code-generator
    python bench/peers.py --datamodel-codegen /tmp/dcg/bin/datamodel-codegen [--sizes 100 1000]

The peer is given each tool's parameter schema as its own JSON Schema file (entities inlined through their
files' `$ref`s) and runs with its defaults (Pydantic v2 output, black + isort formatting). codegen compiles the
tool files themselves. Both write a package into an empty folder; the ratio of the two times is the figure.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import make_specs  # noqa: E402


def _peer_input(specs: Path, folder: Path) -> None:
    """One `*.json` JSON Schema per tool, beside copies of the entity schemas its `$ref`s name."""
    folder.mkdir()
    for entity in (specs / "entities").glob("*.schema.json"):
        (folder / entity.name).write_text(entity.read_text())
    for batch in sorted((specs / "tools").glob("*.json")):
        for tool in json.loads(batch.read_text()):
            body = tool.get("function", tool)
            schema = json.loads(
                json.dumps(body["parameters"]).replace("../entities/", "")
            )
            (folder / f"{body['name']}.json").write_text(
                json.dumps({"title": body["name"], **schema})
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datamodel-codegen",
        required=True,
        help="path to the datamodel-codegen executable",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    args = parser.parse_args()
    print(f"{'tools':>6} {'codegen s':>10} {'datamodel-codegen s':>20} {'ratio':>6}")
    for count in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            specs = Path(tmp) / "specs"
            make_specs(specs, count)
            _peer_input(specs, Path(tmp) / "peer_in")
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "codegen",
                    str(specs),
                    "-o",
                    str(Path(tmp) / "ours"),
                    "-q",
                ],
                check=True,
            )
            ours = time.perf_counter() - start
            start = time.perf_counter()
            peer = [
                args.datamodel_codegen,
                "--input",
                str(Path(tmp) / "peer_in"),
                "--input-file-type",
                "jsonschema",
            ]
            peer += [
                "--output",
                str(Path(tmp) / "theirs"),
                "--output-model-type",
                "pydantic_v2.BaseModel",
            ]
            subprocess.run(peer, check=True, capture_output=True)
            theirs = time.perf_counter() - start
            print(f"{count:>6} {ours:>10.2f} {theirs:>20.2f} {theirs / ours:>6.1f}")


if __name__ == "__main__":
    main()
