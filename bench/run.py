"""Compile-time benchmark: generate N synthetic tool definitions and time a full compile.

    python bench/run.py                 # N = 100 and 1000
    python bench/run.py --sizes 5000    # other sizes

Each size is compiled in a fresh temporary folder; the figures of one run are comparable with each other (the
machines are shared and noisy, so compare ratios within a run, not seconds across runs).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.compiler import compile_specs  # noqa: E402
from codegen.writer import write_output  # noqa: E402

TOOLS_PER_FILE = 10


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


def make_specs(folder: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    entities = folder / "entities"
    entities.mkdir(parents=True)
    for e in range(max(1, count // 50)):
        schema = {"title": f"Entity{e}", **_object(rng, 1, 4)}
        (entities / f"Entity{e}.schema.json").write_text(json.dumps(schema, indent=2))
    for start in range(0, count, TOOLS_PER_FILE):
        tools = []
        for t in range(start, min(count, start + TOOLS_PER_FILE)):
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
        (folder / "tools" / f"batch_{start // TOOLS_PER_FILE:04d}.json").write_text(
            json.dumps(tools, indent=2)
        )


def _build(specs: Path, out: Path) -> tuple[float, dict[str, str]]:
    start = time.perf_counter()
    result = compile_specs([specs])
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()][
        :3
    ]
    write_output(out, result.files)
    return time.perf_counter() - start, result.files


def bench(count: int) -> dict[str, Any]:
    """A first build, a no-op rebuild, and a rebuild after editing one spec file."""
    with tempfile.TemporaryDirectory() as tmp:
        specs, out = Path(tmp) / "specs", Path(tmp) / "out"
        make_specs(specs, count)
        first, files = _build(specs, out)
        noop, _ = _build(specs, out)
        edited = specs / "tools" / "batch_0000.json"
        edited.write_text(
            edited.read_text().replace("Synthetic tool 0.", "Synthetic tool 0, edited.")
        )
        one, _ = _build(specs, out)
        lines = sum(
            text.count("\n") for path, text in files.items() if path.endswith(".py")
        )
        spec_files = sum(1 for p in specs.rglob("*.json"))
        return {
            "tools": count,
            "spec_files": spec_files,
            "output_lines": lines,
            "seconds": first,
            "noop": noop,
            "one": one,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    args = parser.parse_args()
    header = f"{'tools':>6} {'spec files':>10} {'output lines':>13} {'first s':>8} {'tools/s':>8}"
    print(header + f" {'no-op s':>8} {'no-op/first':>11} {'edit-one s':>10}")
    for count in args.sizes:
        row = bench(count)
        rate = row["tools"] / row["seconds"]
        print(
            f"{row['tools']:>6} {row['spec_files']:>10} {row['output_lines']:>13} {row['seconds']:>8.2f} {rate:>8.1f}"
            f" {row['noop']:>8.2f} {row['noop'] / row['seconds']:>11.3f} {row['one']:>10.2f}"
        )


if __name__ == "__main__":
    main()
