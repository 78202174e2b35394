"""Command line: `python -m codegen SPECS... -o OUT [--check]` (SPEC §5).

Exit status: 0 success; 1 errors in the specs or `--check` found OUT out of date; 2 usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .compiler import compile_specs
from .writer import WriteError, diff_output, write_output


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codegen", description="Compile specs of LLM tools and entities into a typed Python package."
    )
    parser.add_argument("specs", nargs="+", type=Path, help="spec files or folders (searched recursively)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the package folder to generate")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if OUT is out of date")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument("-v", "--verbose", action="store_true", help="list what was read and written")
    verbosity.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    missing = [str(p) for p in args.specs if not p.exists()]
    if missing:
        print(f"codegen: error: no such spec file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    out: Path = args.output
    result = compile_specs(args.specs, exclude=out)
    diags = result.diagnostics
    for diagnostic in diags.sorted():
        print(diagnostic.render(), file=sys.stderr)
    if args.verbose:
        for path in result.read:
            print(f"read {path}")
        for path in result.ignored:
            print(f"ignored {path}")
    failed = diags.has_errors or (args.strict and len(diags) > 0)
    if failed or result.files is None:
        errors = sum(1 for d in diags.sorted() if d.severity == "error")
        print(f"codegen: {errors} error(s); {out} left unchanged", file=sys.stderr)
        return 1
    files = result.files
    if args.check:
        chunks = diff_output(out, files)
        if chunks:
            sys.stdout.write("".join(chunks))
            print(f"codegen: {out} is out of date ({len(chunks)} file(s) differ)", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"codegen: {out} is up to date ({len(files)} files)")
        return 0
    try:
        report = write_output(out, files)
    except (WriteError, OSError) as exc:
        print(f"codegen: error: {exc}", file=sys.stderr)
        return 1
    if args.verbose:
        for path in report.written:
            print(f"wrote {out / path}")
        for path in report.deleted:
            print(f"deleted {out / path}")
    if not args.quiet:
        tools = sum(1 for p in files if p.startswith("schemas/") and not p.startswith("schemas/entities/"))
        print(
            f"codegen: {len(result.read)} spec file(s), {tools} tool(s) -> {out} "
            f"({len(report.written)} written, {len(report.unchanged)} unchanged, {len(report.deleted)} deleted)"
        )
    return 0
