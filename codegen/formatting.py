"""Laying out generated Python in black's stable style, without running black (the hot path of a compile).

The templates print one logical statement per line (multi-line statements are joined by the `oneline`
filter), docstrings already normalised (`black_docstring`). Every statement line is then split exactly as
black would split it (`statements.statement`), and large schema constants, laid out apart by `black_literal`,
replace their placeholder statements. black itself is only the oracle the tests hold this against
(tests/test_layout.py).
"""

from __future__ import annotations

import re

from .backends.statements import statement
from .backends.python import PythonFile
from .json_layout import packed_json
from .passes.naming import schemas_path

# A placeholder statement, as the templates print it: `NAME: T = __codegen_splice_<n>__` at module level.
_PLACEHOLDER = re.compile(r"\w+: [\w\[\], ]+ = (__codegen_splice_\d+__)")
_NOQA = "  # noqa: E402"


def format_python(source: PythonFile, path: str) -> str:
    try:
        return layout_module(source.text, source.splices, path)
    except ValueError as exc:  # a template bug, never a spec problem: say so plainly
        raise RuntimeError(
            f"internal error: generated {path} cannot be laid out ({exc})"
        ) from exc


def layout_module(text: str, splices: dict[str, str], path: str = "") -> str:
    """Every statement line of `text` split as black splits it; docstrings, comments and blank lines as
    they are. A line is a statement unless it is inside a docstring or starts with a quote or `#`: spec text
    only ever reaches a line inside a string literal, a docstring or a comment, so it cannot make a line
    look like anything else (in particular, like a placeholder)."""
    out: list[str] = []
    in_docstring = False
    spliced = 0
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        if in_docstring:
            in_docstring = '"""' not in line
        elif not stripped or stripped[0] in "#\"'":
            in_docstring = stripped.startswith('"""') and stripped.count('"""') == 1
        else:
            depth = (len(line) - len(stripped)) // 4
            match = _PLACEHOLDER.fullmatch(stripped) if depth == 0 else None
            if match and match.group(1) in splices:
                line = splices[match.group(1)]
                spliced += 1
            elif (
                stripped in splices
            ):  # a statement laid out apart, indentation included
                line = splices[stripped]
                spliced += 1
            elif stripped.startswith("from ") and stripped.endswith(_NOQA):
                line = statement(stripped[: -len(_NOQA)], depth, _NOQA)
            else:
                line = statement(stripped, depth)
        out.append(line)
    if spliced != len(splices):
        raise RuntimeError(f"internal error: generated {path} lost a constant")
    return "\n".join(out)


def format_all(files: dict[str, PythonFile]) -> dict[str, str]:
    """Lay out every file (in this process: it is cheaper than starting workers), and write beside each
    module the JSON file of its schema constants."""
    done: dict[str, str] = {}
    for path, source in files.items():
        done[path] = format_python(source, path)
        if source.schemas is not None:
            done[schemas_path(path)] = packed_json(source.schemas)
    return done
