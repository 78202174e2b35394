"""``pattern`` as this validator applies it: compiled once into a
:class:`Matcher` that runs in time linear in the text.

Two engines, one meaning.  A pattern is first translated (see
:mod:`translation`) into tokens whose atoms are explicit ECMA-262 sets of code
points.  Without lookaround, the tokens run on the Rust ``regex`` crate inside
pydantic-core: linear, compiled, and what native models use too.  With
lookaround, which the Rust engine lacks, they run on :mod:`automata`, a
linear NFA simulation in pure Python that evaluates each lookaround as a
per-position predicate before the main pass.  Backreferences stay refused: no
linear-time algorithm for them is known."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .automata import Machine, compile_tokens
from .limits import _MAX_CACHED_PATTERNS
from .translation import (
    PatternError,
    UnsupportedPattern,
    _python_syntax,
    _rust,
    _Translation,
)

if TYPE_CHECKING:
    from pydantic_core import SchemaValidator

    from .translation import _Token


def compile_pattern(pattern: str) -> Matcher:
    """Compile a JSON Schema ``pattern`` the way this validator applies it.

    Raises :class:`PatternError` (an ``re.error``) for patterns Python cannot
    compile and for those that need backtracking (backreferences, atomic
    groups) or are too large, so a compiler can report them up front instead
    of every call failing at run time.  Results are cached.
    """
    found = _PATTERNS.get(pattern)
    if found is None:
        if len(_PATTERNS) >= _MAX_CACHED_PATTERNS:
            _PATTERNS.clear()
        try:
            found = _compile_pattern(pattern)
        except PatternError as error:
            found = error
        _PATTERNS[pattern] = found
    if isinstance(found, PatternError):
        raise found
    return found


class Matcher:
    """A compiled ``pattern``; :meth:`search` takes time linear in the text.

    Matching runs on the Rust ``regex`` crate inside pydantic-core, which
    never backtracks, or, for a pattern with lookaround, on :mod:`automata`.
    Every atom that matches a character is spelt out as an explicit set of
    code points with its ECMA-262 meaning, so both engines read it alike.
    """

    __slots__ = ("pattern", "_validator", "_machine", "_surrogates_as_fffd")

    def __init__(
        self, pattern: str, tokens: list[_Token], surrogates_as_fffd: bool
    ) -> None:
        self.pattern = pattern
        rust = _rust(tokens)
        self._validator = None if rust is None else _rust_validator(rust, pattern)
        self._machine = None if rust is not None else Machine(compile_tokens(tokens))
        self._surrogates_as_fffd = surrogates_as_fffd

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in *text*."""
        if self._machine is not None:  # Python text holds lone surrogates
            return self._machine.search(text)
        assert self._validator is not None
        if not text.isascii() and _SURROGATE.search(text):
            # Rust text cannot hold lone surrogates.  When every set of the
            # pattern treats them as it treats U+FFFD, that stand-in gives the
            # same verdict; otherwise such text is refused.
            if not self._surrogates_as_fffd:
                return False
            text = _SURROGATE.sub("\ufffd", text)
        return self._validator.isinstance_python(text)


_SURROGATE = re.compile("[\ud800-\udfff]")
_PATTERNS: dict[str, Matcher | PatternError] = {}


def _pattern(pattern: str) -> Matcher | None:
    """Cached :func:`compile_pattern`; None when the pattern is refused."""
    try:
        return compile_pattern(pattern)
    except PatternError:
        return None


def _compile_pattern(pattern: str) -> Matcher:
    try:
        # Python's parser is the judge of syntax (and of its error messages).
        re.compile(_python_syntax(pattern))
    except re.error as error:
        raise PatternError(error.msg, pattern, error.pos) from None
    except (OverflowError, RecursionError) as error:
        raise UnsupportedPattern(f"too large or too deeply nested ({error})") from None
    translation = _Translation(pattern)
    tokens = translation.run()
    return Matcher(pattern, tokens, translation.surrogates_as_fffd)


def _rust_translation(pattern: str) -> str | None:
    """The pattern in Rust syntax, for a pattern :func:`compile_pattern`
    accepted; None when it runs on :mod:`automata` instead."""
    return _rust(_Translation(pattern).run())


def _rust_validator(rust: str, pattern: str) -> SchemaValidator:
    # Imported on first use: the compiler imports this module too.
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        schema = core_schema.str_schema(pattern=rust, regex_engine="rust-regex")
    except TypeError:  # pydantic-core before 2.11 has the Rust engine only
        schema = core_schema.str_schema(pattern=rust)
    try:
        return SchemaValidator(schema)
    except SchemaError as error:
        reason = str(error).strip().splitlines()[-1].strip()
        raise UnsupportedPattern(
            f"too large for the linear-time matcher ({reason})", pattern, 0
        ) from None
