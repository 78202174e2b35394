"""`[tool.codegen]` in pyproject.toml: settings found by walking up from the working directory (SPEC §5).

    [tool.codegen]
    specs = ["specs"]          # files or folders, relative to pyproject.toml
    output = "src/acme_tools"  # the package folder to generate
    package = "acme_tools"     # import name of the generated package inside a wheel (build step)
    emit = ["python", "schemas", "exports"]
    strict = false             # warnings fail the run
    build = true               # generate into the wheel when the package is built (setuptools)
    prefixes = { "specs/github" = "github" }  # tools of a folder or file are called github__<tool>
    ref-map = { "https://example.com/schemas/" = "schemas" }  # $refs under the URL read from the folder
    skip-refused = false       # true (or "fail"): leave refused tools out, write the rest, exit 1; "warn": exit 0

Command-line flags override these. Unknown keys, wrong types and paths that do not exist are diagnostics that
point into pyproject.toml. pyproject.toml is trusted (it is the project's own file), but a broken one is still a
diagnostic, never a traceback: one that cannot be read, is not UTF-8, is not TOML (including integers too long for
Python and nesting too deep for tomllib), or whose `tool` or `tool.codegen` is not a table.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .diagnostics import Diagnostics, SourceFile, Span
from .tool_prefix import PREFIX_MAX_LENGTH, valid_prefix

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

EMIT_CHOICES = ("python", "schemas", "exports")
_KEYS: dict[str, type | tuple[type, ...]] = {
    "specs": (list, str),
    "output": str,
    "package": str,
    "emit": list,
    "strict": bool,
    "build": bool,
    "prefixes": dict,
    "ref-map": dict,
    "skip-refused": (bool, str),
}
SKIP_REFUSED = ("fail", "warn")  # codegen/refusals.py


@dataclass
class Settings:
    specs: list[Path] = field(default_factory=list)
    output: Path | None = None
    package: str | None = None
    emit: tuple[str, ...] = EMIT_CHOICES
    strict: bool = False
    build: bool = False
    prefixes: dict[Path, str] = field(
        default_factory=dict
    )  # spec folder or file -> the prefix of its tools' names
    ref_map: dict[str, Path] = field(
        default_factory=dict
    )  # URL prefix -> the local folder its documents are read from (remotes.py)
    # leave refused tools and files out: None (never), "fail" (exit 1) or "warn" (reported as warnings)
    skip_refused: str | None = None
    source: Path | None = None  # the pyproject.toml they came from


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml that sets up codegen (`sets_up_codegen`), walking up from `start`: a broken
    one is never passed over for another one further up."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if sets_up_codegen(candidate):
            return candidate
    return None


def sets_up_codegen(pyproject: Path) -> bool:
    """Whether `pyproject` has a `tool.codegen` table, or may mean to: it is no UTF-8 TOML (then
    `load_settings` reports it: a `[tool.codegen` header missing its `]` is an error, not silence).
    """
    try:
        if not pyproject.is_file():
            return False
        data = pyproject.read_bytes()
    except (
        OSError
    ):  # unreadable: it cannot be told apart from a project that does not use codegen
        return False
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # (TOMLDecodeError and UnicodeDecodeError too)
        return True
    tool = document.get("tool")
    return isinstance(tool, dict) and "codegen" in tool


def load_settings(pyproject: Path, diags: Diagnostics) -> Settings:
    settings = Settings(source=pyproject)
    source = _read(pyproject, diags)
    table = _codegen_table(source, diags) if source is not None else None
    if source is None or table is None:
        return settings
    root = pyproject.parent
    for key, value in table.items():
        span = _key_span(source, key)
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            diags.error(
                "config",
                f"unknown setting {key!r} in [tool.codegen] (known: {known})",
                span,
            )
            continue
        if not isinstance(value, _KEYS[key]):
            diags.error(
                "config",
                f"[tool.codegen] {key} has the wrong type ({type(value).__name__})",
                span,
            )
            continue
        _apply(settings, key, value, root, span, diags)
    return settings


def _read(pyproject: Path, diags: Diagnostics) -> SourceFile | None:
    empty = SourceFile(pyproject, pyproject.as_posix(), Path(pyproject.name), "")
    try:
        data = pyproject.read_bytes()
    except OSError as exc:
        diags.error(
            "config", f"cannot read {pyproject.name}: {exc.strerror}", empty.span(0)
        )
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        shown = data.decode("utf-8", errors="replace")
        source = SourceFile(
            pyproject, pyproject.as_posix(), Path(pyproject.name), shown
        )
        offset = len(data[: exc.start].decode("utf-8"))
        diags.error(
            "encoding",
            f"{pyproject.name} is not UTF-8 (byte {exc.start})",
            source.span(offset),
        )
        return None
    return SourceFile(pyproject, pyproject.as_posix(), Path(pyproject.name), text)


def _codegen_table(source: SourceFile, diags: Diagnostics) -> dict[str, Any] | None:
    """The [tool.codegen] table (empty if there is none), or None after a diagnostic."""
    try:
        document = tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as exc:
        reason, span = _toml_error(exc, source)
        diags.error("config", f"pyproject.toml is not valid TOML: {reason}", span)
        return None
    except (
        ValueError,
        RecursionError,
    ) as exc:  # an integer too long to convert; arrays nested too deep
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        diags.error(
            "config", f"pyproject.toml cannot be read: {reason}", source.span(0)
        )
        return None
    tool = document.get("tool", {})
    table = tool.get("codegen", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        diags.error("config", "[tool.codegen] must be a table", source.span(0))
        return None
    return table


def _usable_path(item: Any) -> bool:
    return isinstance(item, str) and "\x00" not in item


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long for the file system
        return False


def valid_url_prefix(prefix: str) -> bool:
    """A ref-map key: an http(s) URL prefix with a host, ending in `/` (so `…/a` cannot also match `…/ab`)."""
    rest = (
        prefix[prefix.find("://") + 3 :]
        if prefix.lower().startswith(("http://", "https://"))
        else ""
    )
    return bool(rest) and not rest.startswith("/") and prefix.endswith("/")


def parse_ref_map_item(item: str) -> tuple[str, Path] | None:
    """`URL-PREFIX=FOLDER` of the command line (the URL may hold `=`, the folder is after the last one)."""
    prefix, sep, folder = item.rpartition("=")
    if not sep or not valid_url_prefix(prefix) or not folder:
        return None
    return prefix, Path(os.path.expanduser(folder))


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _apply(
    settings: Settings, key: str, value: Any, root: Path, span: Span, diags: Diagnostics
) -> None:
    if key == "specs":
        paths = [value] if isinstance(value, str) else value
        for item in paths:
            if not _usable_path(item):
                diags.error(
                    "config", f"[tool.codegen] specs: {item!r} is not a path", span
                )
                continue
            path = root / item
            if not _exists(path):
                diags.error(
                    "config", f"[tool.codegen] specs: {item!r} does not exist", span
                )
            settings.specs.append(path)
    elif key == "output":
        if not _usable_path(value):
            diags.error(
                "config", f"[tool.codegen] output {value!r} is not a path", span
            )
        settings.output = root / value
    elif key == "package":
        if not all(part.isidentifier() for part in value.split(".")):
            diags.error(
                "config",
                f"[tool.codegen] package {value!r} is not a Python package name",
                span,
            )
        settings.package = value
    elif key == "prefixes":
        for item, prefix in value.items():
            if not _usable_path(item) or not _exists(root / item):
                diags.error(
                    "config",
                    f"[tool.codegen] prefixes: {item!r} is not a spec folder or file",
                    span,
                )
            elif not isinstance(prefix, str) or not valid_prefix(prefix):
                diags.error(
                    "config",
                    f"[tool.codegen] prefixes: {prefix!r} is not a prefix (a letter, then up to "
                    f"{PREFIX_MAX_LENGTH - 1} letters, digits, '-' and single '_')",
                    span,
                )
            else:
                settings.prefixes[root / item] = prefix
    elif key == "ref-map":
        for prefix, folder in value.items():
            if not valid_url_prefix(prefix):
                diags.error(
                    "config",
                    f"[tool.codegen] ref-map: {prefix!r} is not a URL prefix (http:// or https://, a host, "
                    "ending in '/')",
                    span,
                )
            elif not _usable_path(folder) or not _is_folder(root / folder):
                diags.error(
                    "config",
                    f"[tool.codegen] ref-map: {folder!r} is not a folder",
                    span,
                )
            else:
                settings.ref_map[prefix] = root / folder
    elif key == "skip-refused":
        if value is True or value in SKIP_REFUSED:
            settings.skip_refused = "fail" if value is True else value
        elif value is not False:
            diags.error(
                "config",
                f"[tool.codegen] skip-refused is true, false, 'fail' or 'warn', not {value!r}",
                span,
            )
    elif key == "emit":
        unknown = [item for item in value if item not in EMIT_CHOICES]
        if unknown or "python" not in value:
            choices = ", ".join(EMIT_CHOICES)
            diags.error(
                "config",
                f"[tool.codegen] emit must include 'python' and list only: {choices}",
                span,
            )
        settings.emit = tuple(item for item in EMIT_CHOICES if item in value)
    else:
        setattr(settings, key, value)


def _key_span(source: SourceFile, key: str) -> Span:
    """Where `key = ...` sits inside the [tool.codegen] table (TOML parsers keep no positions)."""
    table = re.search(r"^\[tool\.codegen\]", source.text, re.M)
    start = table.end() if table else 0
    match = re.compile(rf"^\s*{re.escape(key)}\s*=", re.M).search(source.text, start)
    offset = (
        match.start() + len(match.group()) - len(match.group().lstrip())
        if match
        else (table.start() if table else 0)
    )
    return source.span(offset, offset + len(key))


# How tomllib (and tomli) end the message of a TOMLDecodeError: where in the text the error is.
_TOML_WHERE = re.compile(r" \(at (?:line (\d+), column (\d+)|end of document)\)\Z")


def _toml_error(exc: Exception, source: SourceFile) -> tuple[str, Span]:
    """A TOML error's reason, and its place in `source` (a 1-based line and column; the end of the text for
    an error at the end of the document). Python 3.11 and 3.12 give the place only in the message.
    """
    message = str(exc)
    found = _TOML_WHERE.search(message)
    if found is None:
        return message, source.span(0)
    reason = message[: found.start()]
    if found.group(1) is None:  # just after the last thing the document holds
        return reason, source.span(len(source.text.rstrip()))
    return reason, Span(source, int(found.group(1)), int(found.group(2)))
