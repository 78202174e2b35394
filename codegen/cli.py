"""Command line: `python -m codegen SPECS... -o OUT [--check]` (SPEC §5).

Settings come from `[tool.codegen]` in the nearest pyproject.toml (or `--config FILE`); flags override them.
Exit status: 0 success; 1 errors in the specs or `--check` found OUT out of date; 2 usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from . import __version__, cache
from .config import (
    EMIT_CHOICES,
    Settings,
    find_pyproject,
    load_settings,
    parse_ref_map_item,
)
from .diagnostics import Diagnostic, Diagnostics, render_all
from .tool_prefix import valid_prefix
from .writer import MANIFEST, WriteError, diff_output, write_output


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codegen",
        description="Compile specs of LLM tools and entities into a typed Python package.",
    )
    parser.add_argument(
        "specs",
        nargs="*",
        type=Path,
        help="spec files or folders (default: [tool.codegen] specs)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, help="the package folder to generate"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if OUT is out of date",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="compile even when codegen's rebuild record (kept in $CODEGEN_CACHE_DIR, else "
        "$XDG_CACHE_HOME/codegen, else ~/.cache/codegen; never in OUT) says nothing changed, and keep no record",
    )
    parser.add_argument(
        "--config", type=Path, help="a pyproject.toml to read [tool.codegen] from"
    )
    parser.add_argument(
        "--emit",
        help=f"comma-separated outputs to write (of {', '.join(EMIT_CHOICES)})",
    )
    parser.add_argument(
        "--strict", action="store_true", default=None, help="treat warnings as errors"
    )
    parser.add_argument(
        "--prefix",
        action="append",
        default=[],
        metavar="PATH=PREFIX",
        help="call the tools of a spec folder or file PREFIX__<tool> (repeatable; adds to [tool.codegen] prefixes)",
    )
    parser.add_argument(
        "--ref-map",
        action="append",
        default=[],
        metavar="URL=FOLDER",
        help="read $refs to documents under the URL prefix from the local FOLDER, never the network "
        "(repeatable; adds to [tool.codegen] ref-map)",
    )
    parser.add_argument(
        "--skip-refused",
        nargs="?",
        const="fail",
        choices=("fail", "warn", "off"),
        help="leave out the tools (or files) codegen refuses, reported, and write the rest; exit 1 (fail, the "
        "default), or report them as warnings and exit 0 (warn); off: refuse the build (overrides [tool.codegen])",
    )
    verbosity = parser.add_mutually_exclusive_group()
    verbosity.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list what was read and written, and every warning (repeated ones are folded otherwise)",
    )
    verbosity.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print errors only: no warnings (unless --strict makes them fail the run), no summary",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    return parser


def _report(
    diagnostics: list[Diagnostic], args: argparse.Namespace, *, failing: bool = False
) -> None:
    """Print diagnostics to stderr: repeated warnings folded unless -v, warnings left out under -q unless they
    are what fails the run (--strict)."""
    lines = render_all(
        diagnostics, fold=not args.verbose, warnings=failing or not args.quiet
    )
    for line in lines:
        print(line, file=sys.stderr)


def _settings(args: argparse.Namespace, diags: Diagnostics) -> Settings | None:
    pyproject = args.config or find_pyproject(Path.cwd())
    if args.config is not None and not args.config.is_file():
        print(f"codegen: error: no such config file: {args.config}", file=sys.stderr)
        return None
    settings = load_settings(pyproject, diags) if pyproject is not None else Settings()
    if args.specs:
        settings.specs = list(args.specs)
    if args.output is not None:
        settings.output = args.output
    if args.strict is not None:
        settings.strict = args.strict
    if args.skip_refused is not None:
        settings.skip_refused = (
            None if args.skip_refused == "off" else args.skip_refused
        )
    if args.emit:
        chosen = tuple(item.strip() for item in args.emit.split(","))
        if "python" not in chosen or any(item not in EMIT_CHOICES for item in chosen):
            print(
                f"codegen: error: --emit takes 'python' and any of {', '.join(EMIT_CHOICES)}",
                file=sys.stderr,
            )
            return None
        settings.emit = chosen
    for item in args.prefix:
        path, _, prefix = item.rpartition("=")
        if not path or not Path(path).exists() or not valid_prefix(prefix):
            print(
                f"codegen: error: --prefix takes PATH=PREFIX: an existing spec folder or file, and a prefix "
                f"of letters, digits, '-' and single '_' starting with a letter: {item!r}",
                file=sys.stderr,
            )
            return None
        settings.prefixes[Path(path)] = prefix
    for item in args.ref_map:
        mapped = parse_ref_map_item(item)
        if mapped is None or not mapped[1].is_dir():
            print(
                f"codegen: error: --ref-map takes URL=FOLDER: an http:// or https:// URL prefix ending in '/', "
                f"and an existing folder: {item!r}",
                file=sys.stderr,
            )
            return None
        settings.ref_map[mapped[0]] = mapped[1]
    return settings


def _shown(path: Path) -> Path:
    """Paths from pyproject.toml are absolute; show them relative to where the user stands."""
    try:
        return path.relative_to(Path.cwd()) if path.is_absolute() else path
    except ValueError:
        return path


def main(argv: list[str] | None = None) -> int:
    from . import quick

    quick.started()  # (a command run in a process of its own, or one of many in a caller's: bench/, tests)
    args = _parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    config_diags = Diagnostics()
    settings = _settings(args, config_diags)
    if settings is None:
        return 2
    if config_diags.has_errors:
        _report(config_diags.sorted(), args, failing=True)
        return 2
    if not settings.specs or settings.output is None:
        print(
            "codegen: error: give SPECS and -o OUT (or set them in [tool.codegen])",
            file=sys.stderr,
        )
        return 2
    missing = [str(p) for p in settings.specs if not p.exists()]
    if missing:
        print(
            f"codegen: error: no such spec file or folder: {', '.join(missing)}",
            file=sys.stderr,
        )
        return 2
    inside = _specs_inside(settings.output, settings.specs)
    if inside:
        print(
            f"codegen: error: the output folder {settings.output} holds the specs "
            f"{', '.join(map(str, inside))}; codegen would delete or read its own output as specs",
            file=sys.stderr,
        )
        return 2
    return _run(settings, args)


def _specs_inside(out: Path, specs: list[Path]) -> list[Path]:
    """Specs that are OUT or inside it (OUT inside a specs folder is fine: discovery skips it)."""
    root = out.resolve()
    return [s for s in specs if root in (resolved := s.resolve(), *resolved.parents)]


def _run(settings: Settings, args: argparse.Namespace) -> int:
    assert settings.output is not None
    out = _shown(settings.output)
    # The rebuild record (codegen's own state, outside OUT): --check never uses it, it always compiles.
    # Documents read through the ref-map are not in the rebuild record: with a map, every run compiles.
    use_cache = not args.check and not args.no_cache and not settings.ref_map
    key = cache.Settings.of(
        settings.specs,
        out,
        settings.emit,
        settings.strict,
        settings.prefixes,
        settings.skip_refused,
    )
    previous = cache.previous_build(key, settings.specs, out) if use_cache else None
    if previous is not None and previous.unchanged:
        if previous.spec_stamps != previous.record.spec_stamps:
            # spec files stamped for the first time (or no longer): the next scan need not read them
            cache.store(out, replace(previous.record, spec_stamps=previous.spec_stamps))
        return _up_to_date(settings, previous, args)
    from .compiler import compile_specs  # not imported at all when nothing changed

    result = compile_specs(
        settings.specs,
        exclude=out,
        emit=settings.emit,
        prefixes=settings.prefixes,
        ref_map=settings.ref_map,
        previous=previous,
        skip_refused=settings.skip_refused,
    )
    diags = result.diagnostics
    problems = diags.sorted()
    failing = bool(settings.strict and problems)
    _report(problems, args, failing=failing)
    if args.verbose:
        for path in result.read:
            print(f"read {path}")
        for path in result.ignored:
            print(f"ignored {path}")
    errors = sum(1 for d in problems if d.severity == "error")
    warnings = len(problems) - errors
    # skip-refused: the refused units are reported and left out, the rest written; still a failure unless
    # they were reported as warnings (and --strict does not make those fail)
    refused = bool(result.left_out) and (failing or diags.has_errors)
    args.skip_refused_failing = refused
    if result.files is None or ((failing or diags.has_errors) and not refused):
        print(
            f"codegen: {errors} error(s), {warnings} warning(s); {out} left unchanged",
            file=sys.stderr,
        )
        return 1
    files = result.files
    # Problems with OUT's previous contents: shown, but not fatal under --strict.
    output_diags = Diagnostics()
    try:
        if args.check:
            checked = _check(out, files, output_diags, quiet=args.quiet)
            if result.left_out:
                _left_out(result.left_out, args)
            return max(checked, int(refused))
        manifest = previous.out.read.get(MANIFEST) if previous is not None else None
        report = write_output(
            out, files, output_diags, result.vouched, result.kept, manifest
        )
    except WriteError as exc:  # found before anything was changed
        print(f"codegen: error: {exc}; {out} left unchanged", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"codegen: error: {exc}", file=sys.stderr)
        return 1
    finally:
        _report(output_diags.sorted(), args)
    if (
        use_cache and not refused
    ):  # a record would report this failed build as up to date
        # the spec files the scan found, read as it found them (an edit rebuild): the scan's digest is theirs
        if previous is not None and result.sources == previous.sources:
            inputs = previous.inputs
        else:
            inputs = cache.input_digest(key, result.sources)
        record = cache.Record(
            inputs,
            report.files,
            result.tools,
            warnings,
            render_all(problems, fold=True),
            render_all(problems, fold=False),
            cache.base_digest(key),
            result.parts,
            cache.stamps(out, report.files, report.written, previous),
            (
                previous.spec_stamps
                if previous is not None
                else cache.settled_stamps(result.sources)
            ),
        )
        cache.store(out, record)
        if not problems:  # the no-op after this build can be told by stamps (quick.py)
            vouched = cache.vouched_stamps(
                result.sources,
                record.spec_stamps,
                record.files,
                record.stamps,
                out,
            )
            _remember(
                settings,
                args,
                vouched,
                *_no_op_output(settings, record, result.read, result.ignored, args),
            )
    if args.verbose:
        for path in report.written:
            print(f"wrote {out / path}")
        for path in report.deleted:
            print(f"deleted {out / path}")
    if result.left_out:
        _left_out(result.left_out, args)
    if not args.quiet or refused:
        noted = f", {warnings} warning(s)" if warnings else ""
        noted += f", {errors} error(s)" if errors else ""
        noted += f", {len(result.left_out)} left out" if result.left_out else ""
        print(
            f"codegen: {len(result.read)} spec file(s), {result.tools} tool(s){noted} -> {out} "
            f"({len(report.written)} written, {len(report.unchanged)} unchanged, {len(report.deleted)} deleted)",
            file=sys.stderr if refused else sys.stdout,
        )
    return int(refused)


def _left_out(units: list[str], args: argparse.Namespace) -> None:
    """Name what skip-refused left out (its errors, or warnings, are reported above); -q keeps it to errors."""
    if args.quiet and not args.skip_refused_failing:
        return
    for unit in units:
        print(f"codegen: left out {unit} (skip-refused)", file=sys.stderr)


def _up_to_date(
    settings: Settings, previous: cache.Previous, args: argparse.Namespace
) -> int:
    """Nothing changed since the recorded build and OUT still holds what it wrote: report that build again
    (and note the files this rested on, so that the same command can tell it sooner: quick.py).
    """
    record = previous.record
    stdout, stderr = _no_op_output(
        settings, record, previous.read, previous.ignored, args
    )
    print(stderr, end="", file=sys.stderr)
    print(stdout, end="")
    vouched = cache.vouched_stamps(
        previous.sources,
        previous.spec_stamps,
        record.files,
        previous.out.stamped,
        _shown(settings.output or Path()),
    )
    _remember(settings, args, vouched, stdout, stderr)
    return 0


def _no_op_output(
    settings: Settings,
    record: cache.Record,
    read: list[str],
    ignored: list[str],
    args: argparse.Namespace,
) -> tuple[str, str]:
    """What a no-op after the build `record` prints: (stdout, stderr)."""
    out = _shown(settings.output or Path())
    stdout: list[str] = []
    stderr: list[str] = [] if args.quiet else record.lines(args.verbose)
    if args.verbose:
        stdout += [f"read {path}" for path in read]
        stdout += [f"ignored {path}" for path in ignored]
        stdout.append("nothing changed since the last build (codegen's rebuild record)")
    if not args.quiet:
        noted = f", {record.warnings} warning(s)" if record.warnings else ""
        unchanged = sum(1 for rel in record.files if rel != MANIFEST)
        stdout.append(
            f"codegen: {len(read)} spec file(s), {record.tools} tool(s){noted} -> {out} "
            f"(0 written, {unchanged} unchanged, 0 deleted)"
        )
    return "".join(f"{line}\n" for line in stdout), "".join(
        f"{line}\n" for line in stderr
    )


def _remember(
    settings: Settings,
    args: argparse.Namespace,
    vouched: dict[str, str | None] | None,
    stdout: str,
    stderr: str,
) -> None:
    """Leave the stamps a no-op of this command would rest on (quick.py), with what it prints."""
    if vouched is None or settings.output is None:
        return
    from . import quick

    cwd = Path.cwd()
    # where settings could come from: each must stay as it is, or absent
    pyprojects = [str(folder / "pyproject.toml") for folder in (cwd, *cwd.parents)]
    folders = [path for path in pyprojects if os.path.lexists(path)]
    vouched.update({path: None for path in pyprojects if path not in folders})
    for (
        spec
    ) in settings.specs:  # (a root that is a link is walked through, as discovery does)
        folders.append(os.path.abspath(spec))
        if spec.is_dir():
            folders += cache.paths_under(os.path.abspath(spec), files=False)
    folders += cache.codegen_paths()
    quick.save(
        args.argv, os.fsdecode(settings.output), vouched, folders, stdout, stderr
    )


def _check(
    out: Path, files: dict[str, str | bytes], diags: Diagnostics, quiet: bool
) -> int:
    """Compare OUT with a fresh compile (nothing in OUT is trusted); exit 1 if a build would change it or OUT
    holds a file codegen did not generate (OUT belongs to codegen)."""
    chunks = diff_output(out, files, diags)
    strays = sum(1 for d in diags.sorted() if d.code == "stray-file")
    if chunks or strays:
        sys.stdout.write("".join(chunks))
        found = [f"{len(chunks)} file(s) differ"] if chunks else []
        found += [f"{strays} stray file(s)"] if strays else []
        print(f"codegen: {out} is out of date ({', '.join(found)})", file=sys.stderr)
        return 1
    if not quiet:
        print(f"codegen: {out} is up to date ({len(files)} files)")
    return 0
