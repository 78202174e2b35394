"""How much Python a user checks in: codegen's generated package against datamodel-code-generator's models of the
same JSON Schemas, in lines, side by side.

    python bench/lines.py --datamodel-codegen /tmp/dcg/bin/datamodel-codegen [--tools 1000]

Three inputs: the bundled examples' JSON specs (every `*.json` of `examples/specs`: JSON tool definitions and
entity schemas, the input #29's "at most 2x" names), the whole of the examples (every spec format: gram and
Brimley specs too, whose SQL functions and resources the peer has no counterpart for), and `--tools` synthetic
tools of `bench/run.py` (ten to a file). codegen compiles the specs (`python -m codegen SPECS -o OUT`); the peer is given
every JSON Schema the generated package enforces, one file each (every tool's input, output and config schema,
and every entity), and writes Pydantic v2 models with black + isort. Counted: every line of every `.py` file
each writes (blank lines and comments included, as a reviewer reads them), and for codegen the lines of each
kind of statement, so that a change shows where it went. The JSON codegen writes (each module's schema
constants in `<module>.schemas.json`, the export files in `schemas/`) is counted and printed beside, not in the
ratio.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import make_specs  # noqa: E402


def python_lines(folder: Path) -> int:
    return sum(
        len(path.read_text(encoding="utf-8").splitlines())
        for path in folder.rglob("*.py")
    )


def kinds(folder: Path) -> Counter[str]:
    """Lines of codegen's package by kind of top-level statement."""
    found: Counter[str] = Counter()
    for path in folder.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines = len(text.splitlines())
        counted = 0
        for node in tree.body:
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            counted += size
            if path.name == "__init__.py":
                kind = "package __init__ files"
            elif isinstance(node, ast.ClassDef):
                bases = ast.unparse(node.bases[0]) if node.bases else ""
                if "Protocol" in ast.unparse(node):
                    kind = "stubs (Fn, Tools)" if node.bases else "classes"
                elif "Model" in bases:
                    kind = "models"
                else:
                    kind = "classes"
            elif isinstance(node, ast.AnnAssign) and ast.unparse(node.target).endswith(
                "_SCHEMA"
            ):
                kind = "schema constants"
            elif isinstance(node, ast.AnnAssign) and "TOOL_SPECS" in ast.unparse(
                node.target
            ):
                kind = "tool table"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                kind = "imports"
            elif isinstance(node, ast.FunctionDef):
                kind = "functions (SQL, resources)"
            else:
                kind = "other statements"
            found[kind] += size
        found["blank lines and comments"] += lines - counted
    return found


def generate(specs: Path, out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codegen", str(specs), "-o", str(out), "-q"],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(done.stderr)


def enforced_schemas(out: Path, folder: Path) -> int:
    """Every JSON Schema the package at `out` enforces, one file each in `folder`: each tool's input, output and
    config schema, and each entity (`schemas/entities/`). Returns how many."""
    folder.mkdir()
    sys.path.insert(0, str(out.parent))
    try:
        package: Any = importlib.import_module(out.name)
        count = 0
        for name in sorted(package.TOOLS):
            spec = package.TOOLS[name]
            schemas = {"input": spec.input_schema, "output": spec.output_schema}
            if spec.config_model is not None:
                schemas["config"] = spec.config_model.model_json_schema()
            for role, schema in schemas.items():
                if schema is not None:
                    count += 1
                    text = json.dumps({"title": f"{name}_{role}", **schema})
                    (folder / f"{name}_{role}.json").write_text(text)
    finally:
        sys.path.pop(0)
    for entity in sorted((out / "schemas" / "entities").glob("*.json")):
        count += 1
        (folder / f"entity_{entity.name}").write_text(entity.read_text())
    return count


def peer(executable: str, source: Path, output: Path) -> None:
    command = [executable, "--input", str(source), "--input-file-type", "jsonschema"]
    command += ["--output-model-type", "pydantic_v2.BaseModel", "--output", str(output)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)


def compare(label: str, specs: Path, tmp: Path, executable: str | None) -> None:
    out = tmp / f"gen_{label}"
    generate(specs, out)
    ours = python_lines(out)
    print(f"\n{label}: codegen writes {ours:,} lines of Python")
    # Not Python, so not in the ratio, but a reviewer reads them too: said beside it.
    constants = sum(
        len(p.read_text("utf-8").splitlines()) for p in out.rglob("*.schemas.json")
    )
    exported = sum(
        len(p.read_text("utf-8").splitlines())
        for p in (out / "schemas").rglob("*.json")
    )
    print(
        f"  (and JSON: {constants:,} lines of the modules' schema constants, `*.schemas.json`;"
        f" {exported:,} of `schemas/`)"
    )
    for kind, lines in kinds(out).most_common():
        print(f"  {kind:28} {lines:7,}  {lines / ours:5.1%}")
    if executable is None:
        return
    schemas = tmp / f"schemas_{label}"
    count = enforced_schemas(out, schemas)
    theirs_out = tmp / f"peer_{label}"
    peer(executable, schemas, theirs_out)
    theirs = python_lines(theirs_out)
    print(
        f"  datamodel-code-generator, {count} schemas: {theirs:,} lines;"
        f" codegen / peer = {ours / theirs:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datamodel-codegen", metavar="PATH")
    parser.add_argument("--tools", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        examples = ROOT / "examples" / "specs"
        json_specs = tmp / "examples_json_specs"
        for spec in sorted(examples.rglob("*.json")):
            copy = json_specs / spec.relative_to(examples)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(spec.read_bytes())
        compare("examples-json", json_specs, tmp, args.datamodel_codegen)
        compare("examples", examples, tmp, args.datamodel_codegen)
        synthetic = tmp / "synthetic_specs"
        make_specs(synthetic, args.tools)
        compare(f"synthetic{args.tools}", synthetic, tmp, args.datamodel_codegen)


if __name__ == "__main__":
    main()
