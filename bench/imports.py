"""Import time and memory of a generated package of N synthetic tools, against datamodel-code-generator's models.

    python bench/imports.py --datamodel-codegen PATH [--tools 1000] [--runs 7]

The tools of `run.py` are compiled by codegen into the package `generated`, and the peer writes Pydantic v2
models of the same parameter schemas (driven as in `peers.py`) into the package `theirs`. Each measurement is a
fresh interpreter, after an untimed one that wrote the bytecode (as after an install); it reports the median of
`--runs` of the seconds (wall and CPU) the imports took in that interpreter and its peak RSS:

- `import generated`: all an application needs to list, export and dispatch the tools;
- the same, then one tool looked up in `TOOLS` (its module imported);
- every module of each package imported (`pkgutil.walk_packages`): everything loaded;
- `import pydantic` and a model class, the floor of both.

The ratios are the peer's figure over codegen's: `import generated` against the peer's models all imported (its
package has no registry: a caller imports the models it needs), and everything against everything.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from peers import peer_command, peer_input  # noqa: E402
from run import make_specs  # noqa: E402

# Run in the measured interpreter: {setup} is timed, then the figures are printed as JSON.
PROBE = """\
import importlib, json, pkgutil, resource, time
wall, cpu = time.perf_counter(), time.process_time()
{setup}
print(json.dumps({{
    "wall": time.perf_counter() - wall,
    "cpu": time.process_time() - cpu,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}}))
"""
EVERYTHING = """\
package = importlib.import_module({name!r})
for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(found.name)
"""
CASES = {
    "pydantic alone": "import pydantic; pydantic.BaseModel",
    "import generated": "import generated",
    "import generated + TOOLS[one]": "import generated; generated.TOOLS['tool_0']",
    "generated: every module": EVERYTHING.format(name="generated"),
    "theirs: every module": EVERYTHING.format(name="theirs"),
}


def _measure(folder: Path, setup: str, runs: int) -> dict[str, float]:
    """Median figures of `setup` over `runs` fresh interpreters (after one that writes the bytecode)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(folder)
    command = [sys.executable, "-c", PROBE.format(setup=setup)]
    samples: list[dict[str, float]] = []
    for _ in range(runs + 1):
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            sys.exit(f"measuring {setup!r} failed:\n{done.stderr[-2000:]}")
        samples.append(json.loads(done.stdout))
    return {
        key: statistics.median(sample[key] for sample in samples[1:])
        for key in samples[0]
    }


def _build(folder: Path, count: int, peer: str) -> None:
    specs, peer_in = folder / "specs", folder / "peer_in"
    make_specs(specs, count)
    peer_input(specs, peer_in)
    ours = [
        sys.executable,
        "-m",
        "codegen",
        str(specs),
        "-o",
        str(folder / "generated"),
    ]
    for command in (
        ours + ["-q", "--no-cache"],
        peer_command(peer, peer_in, folder / "theirs", builtin=True),
    ):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{command[0]} failed:\n{done.stderr[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datamodel-codegen",
        required=True,
        help="path to the datamodel-codegen executable",
    )
    parser.add_argument("--tools", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _build(folder, args.tools, args.datamodel_codegen)
        rows: dict[str, dict[str, Any]] = {
            case: _measure(folder, setup, args.runs) for case, setup in CASES.items()
        }
    print(f"{args.tools} tools, median of {args.runs} fresh interpreters")
    print(f"{'':<30} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
    for case, row in rows.items():
        print(
            f"{case:<30} {row['wall']:>8.3f} {row['cpu']:>8.3f} {row['rss_mb']:>12.1f}"
        )
    theirs = rows["theirs: every module"]
    for ours in ("import generated", "generated: every module"):
        cpu = theirs["cpu"] / rows[ours]["cpu"]
        wall = theirs["wall"] / rows[ours]["wall"]
        memory = theirs["rss_mb"] / rows[ours]["rss_mb"]
        print(
            f"theirs (every module) / {ours}: CPU {cpu:.2f}x, wall {wall:.2f}x, RSS {memory:.2f}x"
        )


if __name__ == "__main__":
    main()
