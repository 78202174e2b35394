"""Compile-time benchmark: N synthetic tool definitions; a first build, a no-op and a one-edit rebuild.

    python bench/run.py                 # N = 100 and 1000, and a profile of the first build of 1000
    python bench/run.py --large         # N = 10,000 too, and one tool of 100,000 properties (minutes)
    python bench/run.py --sizes 5000    # other sizes

Each size is built in a fresh temporary folder, through the command line's code path (`codegen SPECS -o OUT`,
with the rebuild record in a temporary cache folder); the figures of one run are comparable with each other
(the machines are shared and noisy, so compare ratios within a run, not seconds across runs).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import cProfile
import gc
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen import cache, cli, parallel  # noqa: E402
from codegen.compiler import compile_specs  # noqa: E402
from codegen.render import warm_templates  # noqa: E402
from codegen.writer import write_output  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

TOOLS_PER_FILE = (
    10  # the default; `--tools-per-file 1` is the issue's form (one tool, one file)
)


def _property(rng: random.Random, depth: int) -> dict[str, Any]:
    kind = rng.choice(
        [
            "string",
            "integer",
            "number",
            "boolean",
            "enum",
            "date",
            "array",
            "object",
            "nullable",
        ]
    )
    if kind == "string":
        return {
            "type": "string",
            "minLength": 1,
            "maxLength": rng.randint(10, 200),
            "description": "A string.",
        }
    if kind == "integer":
        return {
            "type": "integer",
            "minimum": 0,
            "maximum": rng.randint(10, 10_000),
            "default": 1,
        }
    if kind == "number":
        return {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}
    if kind == "boolean":
        return {"type": "boolean", "default": False}
    if kind == "enum":
        return {
            "type": "string",
            "enum": ["alpha", "beta", "gamma", "delta"][: rng.randint(2, 4)],
        }
    if kind == "date":
        return {"type": "string", "format": rng.choice(["date", "date-time"])}
    if kind == "nullable":
        return {"anyOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "null"}]}
    if kind == "array" or depth >= 2:
        return {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "uniqueItems": True,
        }
    return _object(rng, depth + 1, rng.randint(2, 4))


def _object(rng: random.Random, depth: int, size: int) -> dict[str, Any]:
    properties = {f"field_{i}": _property(rng, depth) for i in range(size)}
    required = sorted(rng.sample(sorted(properties), k=max(1, size // 2)))
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def make_specs(
    folder: Path, count: int, seed: int = 7, per_file: int = TOOLS_PER_FILE
) -> None:
    """`count` tools in files of `per_file` (the same tools whatever `per_file`), beside count/50 entities."""
    rng = random.Random(seed)
    entities = folder / "entities"
    entities.mkdir(parents=True)
    for e in range(max(1, count // 50)):
        schema = {"title": f"Entity{e}", **_object(rng, 1, 4)}
        (entities / f"Entity{e}.schema.json").write_text(json.dumps(schema, indent=2))
    for start in range(0, count, per_file):
        tools = []
        for t in range(start, min(count, start + per_file)):
            parameters = _object(rng, 0, rng.randint(3, 8))
            if rng.random() < 0.3:
                parameters["properties"]["subject"] = {
                    "$ref": f"../entities/Entity{t % max(1, count // 50)}.schema.json"
                }
            tool: dict[str, Any] = {
                "name": f"tool_{t}",
                "description": f"Synthetic tool {t}.",
                "parameters": parameters,
            }
            if rng.random() < 0.5:
                tool = {"type": "function", "function": tool}
            tools.append(tool)
        (folder / "tools").mkdir(exist_ok=True)
        (folder / "tools" / f"batch_{start // per_file:05d}.json").write_text(
            json.dumps(tools, indent=2)
        )


def _build(specs: Path, out: Path) -> float:
    """One `codegen SPECS -o OUT -q` in this process, as `python -m codegen` runs it: codegen's own digest
    computed again, and the cyclic collector off (`codegen/__main__.py`; with it on, its first pass after the
    compile walks every object the compile made, a tenth of a second for 1,000 tools). The file system's
    pending writes are flushed first (untimed), so that no build is charged with writing out the last one's.
    """
    cache.codegen_digest.cache_clear()
    os.sync()
    gc.disable()
    try:
        start = time.perf_counter()
        status = cli.main([str(specs), "-o", str(out), "-q"])
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
        gc.collect()
    assert status == 0, f"codegen exited with {status}"
    return elapsed


def compile_bytecode() -> None:
    """Write the bytecode of codegen's modules and templates, as installing a package does (the peer's, say): a
    checkout, an editable install or PYTHONDONTWRITEBYTECODE would have every `python -m codegen` the bench
    starts compile the modules and templates edited since their compiled code was last written.
    """
    compileall.compile_dir(str(Path(cli.__file__).parent), quiet=1)
    warm_templates()  # and the templates' compiled code, beside them (`render.TemplateCache`)


def _process(specs: Path, out: Path, *extra: str) -> float:
    """The same as a separate `python -m codegen` process (interpreter start-up and imports included)."""
    start = time.perf_counter()
    command = [sys.executable, "-m", "codegen", str(specs), "-o", str(out), "-q"]
    subprocess.run(command + list(extra), check=True, cwd=ROOT)
    return time.perf_counter() - start


def _noop_processes(specs: Path, out: Path, runs: int = 9) -> tuple[float, float]:
    """The median of `runs` no-op `python -m codegen` processes, and of as many `python -m` runs of an empty
    module alternated with them: what any `python -m` command costs on this machine (the interpreter, site, and
    runpy's own imports), beside which the no-op's own share shows."""
    with tempfile.TemporaryDirectory() as name:
        (Path(name) / "bench_empty_module.py").write_text("")
        noops, floors = [], []
        for _ in range(runs):
            noops.append(_process(specs, out))
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "bench_empty_module"], check=True, cwd=name
            )
            floors.append(time.perf_counter() - start)
    return statistics.median(noops), statistics.median(floors)


# Runs a command and prints its peak resident set. Linux counts into a child's peak the memory of the process
# that forked it, until the child execs: measured from the bench's own process (which has run builds of 10,000
# tools in-process), every build's peak read as the bench's size. This small interpreter forks it instead.
_PEAK = """
import os, sys
_, status, usage = os.wait4(os.spawnv(os.P_NOWAIT, sys.argv[1], sys.argv[1:]), 0)
print(usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _peak_mb(specs: Path, out: Path) -> float:
    """The peak memory (resident set) of a first build as a process of its own, in MB."""
    command = [sys.executable, "-m", "codegen", str(specs), "-o", str(out), "-q"]
    done = subprocess.run(
        [sys.executable, "-S", "-c", _PEAK, *command, "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"codegen exited with {done.returncode}"
    return int(done.stdout) / 1024  # kilobytes on Linux


class _Size:
    """One size's spec files, OUT and the times of its builds, for `bench`."""

    def __init__(self, folder: Path, count: int, per_file: int) -> None:
        self.folder, self.count = folder, count
        self.specs, self.out = folder / "specs", folder / "out"
        make_specs(self.specs, count, per_file=per_file)
        self.times: dict[str, list[float]] = {"first": [], "noop": [], "one": []}

    def round(self, number: int) -> None:
        """A first build (the first round's into OUT, the others' each into a new folder), a no-op rebuild of
        OUT and a rebuild of OUT after editing one spec file (its first tool's description).
        """
        fresh = self.out if number == 0 else self.folder / f"first{number}"
        self.times["first"].append(_build(self.specs, fresh))
        self.times["noop"].append(_build(self.specs, self.out))
        edited = self.specs / "tools" / "batch_00000.json"
        text = edited.read_text()
        edited.write_text(
            text.replace("Synthetic tool 0", f"Synthetic tool 0 ({number})", 1)
        )
        self.times["one"].append(_build(self.specs, self.out))

    def row(self) -> dict[str, Any]:
        lines = sum(
            len(p.read_bytes().splitlines())
            for p in self.out.rglob("*.py")
            if p.is_file()
        )
        return {
            "tools": self.count,
            "spec_files": sum(1 for _ in self.specs.rglob("*.json")),
            "output_lines": lines,
            **{kind: statistics.median(times) for kind, times in self.times.items()},
            **dict(
                zip(("noop_process", "python_m"), _noop_processes(self.specs, self.out))
            ),
            "peak_mb": _peak_mb(self.specs, self.folder / "fresh"),
            "rounds": self.times,
        }


def bench(
    counts: list[int], folder: Path, per_file: int = TOOLS_PER_FILE, repeat: int = 5
) -> list[dict[str, Any]]:
    """For each count of tools: a first build, a no-op rebuild (in this process and as a process of its own),
    and a rebuild after editing one spec file; each the median of `repeat`.

    The builds are taken in rounds, each round a build of every kind at every size, so that the ratios the
    targets are about (a rebuild over a first build, 10,000 tools over 1,000) compare builds the machine ran
    in the same spells. Everything goes into `folder` (new), removed when the whole run is over (`scratch`).
    """
    os.environ["CODEGEN_CACHE_DIR"] = str(folder / "cache")
    sizes = [_Size(folder / str(count), count, per_file) for count in counts]
    for number in range(repeat):
        for size in sizes:
            size.round(number)
    return [size.row() for size in sizes]


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A temporary folder for a whole run, removed only when the run is over. On ext4 without a journal (as on
    the machines these run on), creating a file skips the inodes deleted in the last 60 to 360 seconds, one
    lookup each: a first build of 1,000 tools (2,000 files) made minutes after a few GB of files were removed
    spent 13% of its samples there (perf). Removing nothing while timing keeps the run's builds out of that.
    """
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def wide(properties: int, folder: Path) -> tuple[float, float]:
    """A first build of one tool with `properties` properties (of every kind), as a process of its own, in
    `folder` (new): its time and peak memory (MB)."""
    rng = random.Random(11)
    parameters = {
        "type": "object",
        "properties": {f"p_{i}": _property(rng, 2) for i in range(properties)},
    }
    tool = {"name": "wide", "description": "Many properties.", "parameters": parameters}
    specs = folder / "specs"
    specs.mkdir(parents=True)
    # compact: 100,000 properties stay under the 8 MiB a spec file may have
    (specs / "wide.json").write_text(json.dumps([tool], separators=(",", ":")))
    start = time.perf_counter()
    peak = _peak_mb(specs, folder / "out")
    return time.perf_counter() - start, peak


def profile(
    count: int, folder: Path, top: int = 12, per_file: int = TOOLS_PER_FILE
) -> None:
    """cProfile of a first build in `folder` (new): time under each stage the driver calls, then the functions
    that spend most."""
    specs, out = folder / "specs", folder / "out"
    make_specs(specs, count, per_file=per_file)
    # every stage in this process, where the profiler sees it
    parallel.MIN_WORK = sys.maxsize
    profiler = cProfile.Profile()
    profiler.enable()
    result = compile_specs([specs])
    assert result.files is not None
    write_output(out, result.files)
    profiler.disable()
    stats = pstats.Stats(profiler)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in raw.values())
    stages: dict[str, float] = {}
    for (filename, _, name), (_, _, _, _, callers) in raw.items():
        for (caller_file, _, caller), timing in callers.items():
            if caller == "_compile" and caller_file.endswith("compiler.py"):
                stage = f"{_short(filename)}:{name}"
                stages[stage] = stages.get(stage, 0.0) + timing[3]
    for (filename, _, name), entry in raw.items():
        if name == "write_output" and filename.endswith("writer.py"):
            stages["codegen/writer.py:write_output"] = entry[3]
    print(f"\nprofile of a first build of {count} tools ({total:.2f} s under cProfile)")
    print("time under each stage the driver calls:")
    for stage, seconds in sorted(stages.items(), key=lambda item: -item[1]):
        if seconds >= 0.005 * total:
            print(f"  {seconds:>7.2f} s {100 * seconds / total:>5.1f}%  {stage}")
    print(f"the {top} functions spending most themselves:")
    ranked = sorted(raw.items(), key=lambda item: -item[1][2])[:top]
    for (filename, line, name), entry in ranked:
        print(
            f"  {entry[2]:>7.2f} s {100 * entry[2] / total:>5.1f}%  {_short(filename)}:{line}({name})"
        )


def _short(filename: str) -> str:
    """A profile entry's file, relative to the repository or site-packages."""
    path = Path(filename)
    libraries = [Path(p) for p in sys.path if p.endswith("site-packages")]
    for anchor in (ROOT, *libraries, Path(sysconfig.get_paths()["stdlib"])):
        try:
            return path.relative_to(anchor).as_posix()
        except ValueError:
            continue
    return filename


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument(
        "--large", action="store_true", help="add 10,000 tools (takes minutes)"
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=1000,
        metavar="N",
        help="profile a first build of N tools (0: no profile)",
    )
    parser.add_argument(
        "--tools-per-file",
        type=int,
        default=TOOLS_PER_FILE,
        metavar="K",
        help=f"tools in a spec file (default {TOOLS_PER_FILE}; 1 is the issue's form, one file per tool)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        metavar="N",
        help="builds of each kind, of which the median is shown (default 5)",
    )
    parser.add_argument(
        "--datamodel-codegen",
        metavar="PATH",
        help="also time datamodel-code-generator side by side on 1,000 tools (bench/peers.py), and check"
        " issue #12's targets on this run's figures",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=5,
        help="with --datamodel-codegen: builds of each tool, taken in turn (default 5)",
    )
    args = parser.parse_args()
    compile_bytecode()
    print(
        f"spec files of {args.tools_per_file} tool(s) each; the median of {args.repeat} builds of each kind"
    )
    with scratch() as tmp:
        _report(args, tmp)
        if args.profile:
            profile(args.profile, tmp / "profile", per_file=args.tools_per_file)


def _report(args: argparse.Namespace, tmp: Path) -> None:
    """Run and print the side by side (when asked), the builds of each size and the targets, all in `tmp`."""
    peer = None
    sizes = args.sizes + ([10_000] if args.large and 10_000 not in args.sizes else [])
    print(
        f"{'tools':>6} {'spec files':>10} {'output lines':>12} {'first s':>8} {'tools/s':>8}"
        f" {'no-op s':>8} {'no-op %':>8} {'no-op process s':>15} {'one edit s':>10} {'one edit %':>10}"
        f" {'peak MB':>8}"
    )
    rows = bench(sizes, tmp / "sizes", args.tools_per_file, args.repeat)
    for row in rows:
        first = row["first"]
        print(
            f"{row['tools']:>6} {row['spec_files']:>10} {row['output_lines']:>12} {first:>8.2f}"
            f" {row['tools'] / first:>8.1f} {row['noop']:>8.3f} {100 * row['noop'] / first:>7.1f}%"
            f" {row['noop_process']:>15.2f} {row['one']:>10.2f} {100 * row['one'] / first:>9.1f}%"
            f" {row['peak_mb']:>8.0f}"
        )
    for row in rows:
        each = "; ".join(
            f"{kind} " + " ".join(f"{t:.3f}" for t in row["rounds"][kind])
            for kind in ("first", "noop", "one")
        )
        print(f"  {row['tools']} tools, each round, s: {each}")
    if args.large:
        seconds, peak = wide(100_000, tmp / "wide")
        print(
            f"one tool of 100,000 properties: a first build (a process) {seconds:.1f} s, peak {peak:.0f} MB"
        )
    for base, top in zip(rows, rows[1:]):
        scale = top["tools"] / base["tools"]
        print(
            f"a first build of {top['tools']} tools takes {top['first'] / base['first']:.1f}x the time of"
            f" {base['tools']} ({scale:g}x the tools)"
        )
    if args.datamodel_codegen:
        from peers import HEADER, peer_version, ratios, side_by_side
        from peers import row as peer_row

        print(
            f"\n{peer_version(args.datamodel_codegen)}, side by side on the same input"
        )
        times = side_by_side(
            args.datamodel_codegen, 1000, args.tools_per_file, args.runs, tmp / "peers"
        )
        print(HEADER)
        print(peer_row(1000, times))
        peer = ratios(times)
    if args.datamodel_codegen or args.large:
        print("\nissue #12's and #28's targets, on this run's figures:")
        for target, met in targets(rows, peer):
            print(f"  {'met' if met else 'MISSED':>6}  {target}")


def targets(
    rows: list[dict[str, Any]], peer: tuple[float, float] | None
) -> list[tuple[str, bool]]:
    """Issue #12's targets that this run's figures decide, each with whether it is met."""
    found = []
    if peer is not None:
        found.append(
            (
                f"1,000 tools >= 10x datamodel-code-generator with black + isort: {peer[0]:.2f}x",
                peer[0] >= 10,
            )
        )
        found.append(
            (
                f"1,000 tools >= 2x datamodel-code-generator, builtin formatter: {peer[1]:.2f}x",
                peer[1] >= 2,
            )
        )
    for each in rows:
        noop, one = (100 * each[key] / each["first"] for key in ("noop", "one"))
        found.append(
            (
                f"{each['tools']:,} tools: no-op <= 3% of a first build: {noop:.1f}%",
                noop <= 3,
            )
        )
        found.append(
            (f"{each['tools']:,} tools: one-spec edit <= 10%: {one:.1f}%", one <= 10)
        )
    by_size = {each["tools"]: each["first"] for each in rows}
    if 1000 in by_size and 10_000 in by_size:
        scale = by_size[10_000] / by_size[1000]
        found.append(
            (f"10,000 tools <= 10x the time of 1,000: {scale:.1f}x", scale <= 10)
        )
    # issue #28 (names per file): the speed of 0.2.0's replaying rebuilds, kept
    if peer is not None:
        found.append(
            (
                f"#28: 1,000 tools >= 14x dmcg with black + isort: {peer[0]:.2f}x",
                peer[0] >= 14,
            )
        )
        found.append(
            (
                f"#28: 1,000 tools >= 4.6x dmcg, builtin formatter: {peer[1]:.2f}x",
                peer[1] >= 4.6,
            )
        )
    for each in rows:
        if each["tools"] == 10_000:
            one = 100 * each["one"] / each["first"]
            found.append((f"#28: 10,000 tools: one edit <= 7%: {one:.1f}%", one <= 7))
        if each["tools"] == 1000:
            noop = each["noop_process"]
            found.append(
                (
                    f"#28: 1,000 tools: a no-op process <= 40 ms: {1000 * noop:.0f} ms (median of 9;"
                    f" `python -m` of an empty module: {1000 * each['python_m']:.0f} ms)",
                    noop <= 0.040,
                )
            )
    return found


if __name__ == "__main__":
    main()
