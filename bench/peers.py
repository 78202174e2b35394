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
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import TOOLS_PER_FILE, compile_bytecode, make_specs, scratch  # noqa: E402


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
    print(peer_version(args.datamodel_codegen), end="")
    print(f"; codegen reads spec files of {args.tools_per_file} tool(s) each")
    print(HEADER)
    with scratch() as tmp:
        for count in args.sizes:
            times = side_by_side(
                args.datamodel_codegen,
                count,
                args.tools_per_file,
                args.runs,
                tmp / str(count),
            )
            print(row(count, times))


HEADER = f"{'tools':>6} {'codegen s':>10} {'black+isort s':>14} {'ratio':>6} {'builtin s':>10} {'ratio':>6}"


def peer_version(executable: str) -> str:
    version = subprocess.run([executable, "--version"], capture_output=True, text=True)
    return f"peer: {version.stdout.strip()}"


def side_by_side(
    executable: str, count: int, per_file: int, runs: int, folder: Path
) -> dict[str, list[float]]:
    """The seconds of each first build of `count` tools: codegen's ("ours"), the peer's with black + isort
    ("default") and with its builtin formatter ("builtin"), `runs` of each, taken in turn; everything in
    `folder` (new), which the caller removes when its whole run is over (see `run.scratch`).
    """
    specs, peer_in = folder / "specs", folder / "peer_in"
    make_specs(specs, count, per_file=per_file)
    peer_input(specs, peer_in)
    times: dict[str, list[float]] = {"ours": [], "default": [], "builtin": []}
    peer = partial(peer_command, executable, peer_in)
    # in turn, so that a slow spell of the machine hits all three
    for run in range(runs):
        out = folder / f"run{run}"
        times["ours"].append(
            _timed(
                [sys.executable, "-m", "codegen", str(specs), "-o"]
                + [str(out / "ours"), "-q", "--no-cache"]
            )
        )
        times["default"].append(_timed(peer(out / "theirs")))
        times["builtin"].append(_timed(peer(out / "theirs_builtin", builtin=True)))
    return times


def ratios(times: dict[str, list[float]]) -> tuple[float, float]:
    """The peer's median times over codegen's: with black + isort, with its builtin formatter."""
    ours, default, builtin = (statistics.median(times[k]) for k in times)
    return default / ours, builtin / ours


def row(count: int, times: dict[str, list[float]]) -> str:
    """A line of the table under HEADER, and every run's time."""
    ours, default, builtin = (statistics.median(times[k]) for k in times)
    each = "; ".join(
        f"{label} " + " ".join(f"{t:.2f}" for t in times[key])
        for key, label in (
            ("ours", "codegen"),
            ("default", "black+isort"),
            ("builtin", "builtin"),
        )
    )
    return (
        f"{count:>6} {ours:>10.2f} {default:>14.2f} {default / ours:>6.2f}"
        f" {builtin:>10.2f} {builtin / ours:>6.2f}\n        (each run, s: {each})"
    )


if __name__ == "__main__":
    main()
