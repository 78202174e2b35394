"""codegen against datamodel-code-generator on the same synthetic input, timed in one run.

    python3 -m venv /tmp/dcg && /tmp/dcg/bin/pip install datamodel-code-generator
    python bench/peers.py --datamodel-codegen /tmp/dcg/bin/datamodel-codegen [--sizes 100 1000]

The peer is given each tool's parameter schema as its own JSON Schema file (entities inlined through their
files' `$ref`s) and writes Pydantic v2 models in both of its formatter modes: its default (black + isort) and
its builtin formatter (`--formatters builtin`, no external formatter). codegen compiles the tool files
themselves (`python -m codegen SPECS -o OUT --no-cache`). Each writes a package into an empty folder, as a
process of its own, `--runs` times in turn; the ratios of the median times are the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import TOOLS_PER_FILE, compile_bytecode, make_specs  # noqa: E402


def peer_input(specs: Path, folder: Path) -> None:
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


def peer_command(
    executable: str, source: Path, output: Path, builtin: bool = False
) -> list[str]:
    """The peer's command line: Pydantic v2 models of the JSON Schema files in `source`, into `output`; with
    `builtin`, its own formatter instead of black + isort."""
    command = [executable, "--input", str(source), "--input-file-type", "jsonschema"]
    command += ["--output-model-type", "pydantic_v2.BaseModel", "--output", str(output)]
    return command + (["--formatters", "builtin"] if builtin else [])


def _timed(command: list[str]) -> float:
    os.sync()  # (untimed) no run is charged with writing out the one before
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed:\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datamodel-codegen",
        required=True,
        help="path to the datamodel-codegen executable",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="builds of each (taken in turn, each into a new folder); the medians are compared",
    )
    parser.add_argument(
        "--validation",
        action="store_true",
        help="time validation instead of compilation (bench/validation.py)",
    )
    parser.add_argument(
        "--tools-per-file",
        type=int,
        default=TOOLS_PER_FILE,
        metavar="K",
        help=f"tools in a spec file of codegen's input (default {TOOLS_PER_FILE}; 1 is the issue's form, as the peer reads them)",
    )
    args = parser.parse_args()
    if args.validation:
        import validation

        validation.validation_figures(args.datamodel_codegen, args.sizes[0], 20)
        validation.sql_figures(10_000)
        return
    compile_bytecode()
    version = subprocess.run(
        [args.datamodel_codegen, "--version"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"peer: {version}; codegen reads spec files of {args.tools_per_file} tool(s) each"
    )
    print(
        f"{'tools':>6} {'codegen s':>10} {'black+isort s':>14} {'ratio':>6} {'builtin s':>10} {'ratio':>6}"
    )
    for count in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            specs, peer_in = Path(tmp) / "specs", Path(tmp) / "peer_in"
            make_specs(specs, count, per_file=args.tools_per_file)
            peer_input(specs, peer_in)
            times: dict[str, list[float]] = {"ours": [], "default": [], "builtin": []}
            for run in range(
                args.runs
            ):  # in turn, so that a slow spell of the machine hits all three
                out = Path(tmp) / f"run{run}"
                times["ours"].append(
                    _timed(
                        [sys.executable, "-m", "codegen", str(specs), "-o"]
                        + [str(out / "ours"), "-q", "--no-cache"]
                    )
                )
                peer = partial(peer_command, args.datamodel_codegen, peer_in)
                times["default"].append(_timed(peer(out / "theirs")))
                times["builtin"].append(
                    _timed(peer(out / "theirs_builtin", builtin=True))
                )
            ours, default, builtin = (statistics.median(times[k]) for k in times)
            print(
                f"{count:>6} {ours:>10.2f} {default:>14.2f} {default / ours:>6.2f}"
                f" {builtin:>10.2f} {builtin / ours:>6.2f}"
            )
            print(
                "        (each run, s: codegen "
                + " ".join(f"{t:.2f}" for t in times["ours"])
                + "; black+isort "
                + " ".join(f"{t:.2f}" for t in times["default"])
                + "; builtin "
                + " ".join(f"{t:.2f}" for t in times["builtin"])
                + ")"
            )


if __name__ == "__main__":
    main()
