"""Pattern matching speed: codegen's linear-time matchers against Python's backtracking `re`.

    python bench/patterns.py [--sizes 100,1000,10000] [--rounds 5]

Patterns with lookaround run on codegen's own engine (`runtime/src/toolspec_runtime/validation/automata.py`, pure Python,
linear in the text); the others on the Rust `regex` crate inside pydantic-core. Each pattern is matched
(`Matcher.search`, JSON Schema's "matches anywhere") against texts of growing size, typical ones (that match or
not) and a text that makes a backtracking matcher take exponential time; `re.search` on the same text is the
reference (on that last one only at sizes 16, 20 and 24: beyond, it would not return). Figures are the best of
--rounds runs, in microseconds.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolspec_runtime.validation import compile_pattern  # noqa: E402
from toolspec_runtime.validation.translation import _translate_pattern  # noqa: E402

# (label, pattern, text of a given size)
CASES: list[tuple[str, str, Callable[[int], str]]] = [
    ("pre-commit repo", "^(?!(?:meta|local)$).*$", lambda n: "x" * n),
    ("password, weak", "^(?=.*[A-Z])(?=.*\\d).{8,}$", lambda n: "abcdefgh" * (n // 8)),
    ("password, strong", "^(?=.*[A-Z])(?=.*\\d).{8,}$", lambda n: "a" * (n - 2) + "A1"),
    ("unescaped quote", '(?<!\\\\)"', lambda n: 'ab\\"' * (n // 4)),
    ("unescaped quote, found", '(?<!\\\\)"', lambda n: "a" * (n - 1) + '"'),
    ("word boundary", "\\bend\\b", lambda n: "bending " * (n // 8)),
    ("no lookaround (Rust)", "^[a-z0-9_-]+$", lambda n: "a" * n),
    # Exponential for backtracking: (a+)+ before a failing end.
    ("nested repeat in lookahead", "^(?=(a+)+$)", lambda n: "a" * (n - 1) + "b"),
]
EXPONENTIAL = {"nested repeat in lookahead"}
SMALL = (16, 20, 24)  # sizes at which `re` still returns on the exponential case


def best(run: Callable[[], object], rounds: int) -> float:
    """The fastest of `rounds` runs, in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        f"{'case':28} {'size':>6} {'codegen µs':>11} {'re µs':>11} {'ratio':>7}  match"
    )
    for label, pattern, make in CASES:
        matcher = compile_pattern(pattern)
        oracle = re.compile(_translate_pattern(pattern))
        exponential = label in EXPONENTIAL
        for size in (*SMALL, *sizes) if exponential else sizes:
            text = make(size)
            found = matcher.search(text)  # the first call fills the engine's cache
            ours = best(lambda: matcher.search(text), args.rounds)
            theirs = None
            if not exponential or size in SMALL:
                assert bool(oracle.search(text)) is found, (label, size)
                theirs = best(lambda: oracle.search(text), args.rounds)
            shown = f"{theirs:11.1f}" if theirs is not None else f"{'(never)':>11}"
            ratio = f"{ours / theirs:7.1f}" if theirs else f"{'-':>7}"
            print(f"{label:28} {len(text):6} {ours:11.1f} {shown} {ratio}  {found}")


if __name__ == "__main__":
    main()
