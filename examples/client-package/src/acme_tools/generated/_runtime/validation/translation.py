"""Pattern translation: ECMA-262 features into Python ``re`` syntax, then Python
``re`` syntax into flag-free Rust ``regex`` syntax (or a refusal)."""

from __future__ import annotations

import re
import unicodedata
from typing import NoReturn

from .charsets import (
    _EVERYTHING,
    _NOT_NEWLINE,
    _PROPERTY_ESCAPE,
    _category_ranges,
    _category_set,
    _complement,
    _merge,
    _Ranges,
    _rust_set,
    _scan,
    _surrogates_like_fffd,
)


class PatternError(re.error):
    """A ``pattern`` that cannot be compiled, or that is refused because it
    needs a backtracking matcher; ``pos`` is an offset into the pattern."""


class UnsupportedPattern(PatternError):
    """A valid pattern this validator refuses: it needs backtracking
    (backreferences, lookaround) or is too large for the linear matcher."""


_REPEAT = re.compile(r"\{([0-9]*)(?:(,)([0-9]*))?\}")
_FLAG_GROUP = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]*))?([:)])")
_FLAG_BITS = {"a": re.A, "i": re.I, "m": re.M, "s": re.S, "u": 0}
_CONTROL_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_OCTAL = re.compile(r"[0-7]{1,3}")
_NAMED = re.compile(r"N\{([^}]*)\}")
_REFUSED_GROUPS = (
    ("(?P=", "backreferences need a backtracking matcher"),
    ("(?=", "lookahead needs a backtracking matcher"),
    ("(?!", "lookahead needs a backtracking matcher"),
    ("(?<=", "lookbehind needs a backtracking matcher"),
    ("(?<!", "lookbehind needs a backtracking matcher"),
    ("(?>", "atomic groups need a backtracking matcher"),
    ("(?(", "conditional groups need a backtracking matcher"),
)


class _Translation:
    """Rewrites a pattern that Python's ``re`` has accepted into Rust
    ``regex`` syntax with the same meaning, or refuses it.  Flags are applied
    here, so the output is flag-free: sets, anchors, groups and counts."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.out: list[str] = []
        self.flags = 0
        self.saved: list[int] = []
        self.surrogates_as_fffd = True

    def refuse(self, message: str, at: int | None = None) -> NoReturn:
        raise UnsupportedPattern(message, self.src, self.pos if at is None else at)

    def run(self) -> str:
        self._leading_flags()
        src = self.src
        while self.pos < len(src):
            char = src[self.pos]
            if char == "(":
                self._open()
            elif char == ")":
                self.flags = self.saved.pop()
                self._emit(")", 1)
            elif char in "|*+?":
                self._emit(char, 1)
                if char != "|":
                    self._after_quantifier()
            elif char == "{":
                self._brace()
            elif char == "^":
                self._emit("(?m:^)" if self.flags & re.M else "\\A", 1)
            elif char == "$":
                self._emit("\\z", 1)  # end of input, as in ECMA-262
            elif char == ".":
                self.pos += 1
                self._set(_EVERYTHING if self.flags & re.S else _NOT_NEWLINE)
            elif char == "[":
                self._class()
            elif char == "\\":
                self._escape()
            else:
                self.pos += 1
                self._literal(ord(char))
        return "".join(self.out)

    def _emit(self, text: str, width: int) -> None:
        self.out.append(text)
        self.pos += width

    def _leading_flags(self) -> None:
        while True:
            found = _FLAG_GROUP.match(self.src, self.pos)
            if found is None or found.group(3) != ")":
                return
            self.flags = self._flags(found, self.flags)
            self.pos = found.end()

    def _flags(self, found: re.Match[str], flags: int) -> int:
        on, off = found.group(1), found.group(2) or ""
        if "x" in on + off:
            self.refuse("verbose mode (?x) is not supported")
        for letter in on:
            flags |= _FLAG_BITS[letter]
        for letter in off:
            flags &= ~_FLAG_BITS[letter]
        return flags

    def _open(self) -> None:
        src, at = self.src, self.pos
        for opening, reason in _REFUSED_GROUPS:
            if src.startswith(opening, at):
                self.refuse(reason)
        self.saved.append(self.flags)
        if src.startswith("(?#", at):  # a comment
            self.saved.pop()
            self.pos = src.index(")", at) + 1
        elif src.startswith("(?P<", at):
            self._emit("(?:", src.index(">", at) + 1 - at)
        elif src.startswith("(?:", at) or not src.startswith("(?", at):
            self._emit("(?:", 3 if src.startswith("(?:", at) else 1)
        else:
            found = _FLAG_GROUP.match(src, at)
            if found is None or found.group(3) != ":":
                self.refuse("inline flags must come first or scope a group (?i:...)")
            self.flags = self._flags(found, self.flags)
            self._emit("(?:", found.end() - at)

    def _after_quantifier(self) -> None:
        if self.src.startswith("+", self.pos):
            self.refuse("possessive quantifiers need a backtracking matcher")
        if self.src.startswith("?", self.pos):
            self._emit("?", 1)

    def _brace(self) -> None:
        found = _REPEAT.match(self.src, self.pos)
        if found is None or found.group() == "{}":  # Python reads it literally
            self.pos += 1
            self._literal(ord("{"))
            return
        least, comma, most = found.groups()
        count = (least or "0") + ("," + most if comma else "")
        self._emit("{" + count + "}", found.end() - self.pos)
        self._after_quantifier()

    def _literal(self, code: int) -> None:
        if self.flags & re.I:
            self._set(_scan(re.escape(chr(code)), self.flags))
        else:
            self._set(((code, code),))

    def _set(self, ranges: _Ranges) -> None:
        self.surrogates_as_fffd &= _surrogates_like_fffd(ranges)
        self.out.append(_rust_set(ranges))

    def _escape(self) -> None:
        start = self.pos
        letter = self.src[start + 1]
        if letter in "bB":
            if not self.flags & re.A:
                self.refuse("word boundaries (\\b, \\B) are only supported with (?a)")
            self._emit(f"(?-u:\\{letter})", 2)
        elif letter == "A":
            self._emit("\\A", 2)
        elif letter == "Z":
            self._emit("\\z", 2)
        elif letter in "123456789" and not _is_octal_escape(self.src, start + 1):
            self.refuse("backreferences need a backtracking matcher")
        else:
            ranges, _ = self._class_atom(in_class=False)
            if self.flags & re.I:
                ranges = _scan(
                    _translate_pattern(self.src[start : self.pos]), self.flags
                )
            self._set(ranges)

    def _class(self) -> None:
        src, start = self.src, self.pos
        self.pos += 1
        negated = src.startswith("^", self.pos)
        self.pos += negated
        members: list[tuple[int, int]] = []
        first = True
        while first or src[self.pos] != "]":
            first = False
            ranges, code = self._class_atom(in_class=True)
            if code is not None and src.startswith("-", self.pos):
                if src[self.pos + 1] != "]":
                    self.pos += 1
                    _, last = self._class_atom(in_class=True)
                    assert last is not None  # Python accepted the range
                    ranges = ((code, last),)
            members += ranges
        self.pos += 1
        if self.flags & re.I:
            text = _translate_pattern(src[start : self.pos])
            self._set(_scan(text, self.flags))
        else:
            merged = _merge(members)
            self._set(_complement(merged) if negated else merged)

    def _class_atom(self, in_class: bool) -> tuple[_Ranges, int | None]:
        """One character or escape: its set, and its code if it is a single
        character (the only kind that can bound a range)."""
        src, at = self.src, self.pos
        if src[at] != "\\":
            self.pos += 1
            return ((ord(src[at]),) * 2,), ord(src[at])
        letter = src[at + 1]
        self.pos += 2
        if letter in "dDsSwW":
            return _scan("\\" + letter, self.flags), None
        if letter in "pP":
            escape = _PROPERTY_ESCAPE.match(src, at)
            assert escape is not None  # Python accepted the translation
            self.pos = escape.end()
            ranges = _category_set(escape.group(2))
            return (_complement(ranges) if letter == "P" else ranges), None
        code = self._character_escape(letter, in_class)
        return ((code, code),), code

    def _character_escape(self, letter: str, in_class: bool) -> int:
        src = self.src
        if letter in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[letter]
        if letter == "b":  # backspace, inside a class
            return 8
        if letter in _HEX_DIGITS:
            digits = src[self.pos : self.pos + _HEX_DIGITS[letter]]
            self.pos += len(digits)
            return int(digits, 16)
        if letter == "N":
            name = _NAMED.match(src, self.pos - 1)
            assert name is not None
            self.pos = name.end()
            return ord(unicodedata.lookup(name.group(1)))
        if letter in "01234567":  # "\\1" outside a class was refused above
            octal = _OCTAL.match(src, self.pos - 1)
            assert octal is not None
            self.pos = octal.end()
            return int(octal.group(), 8)
        return ord(letter)


def _is_octal_escape(src: str, at: int) -> bool:
    """Python reads ``\\ddd`` as an octal escape only with three octal digits
    (``\\0`` starts one with fewer); otherwise it is a group reference."""
    return len(src) >= at + 3 and all(c in "01234567" for c in src[at : at + 3])


def _translate_pattern(pattern: str) -> str:
    """Rewrite the ECMA-262 features Python's ``re`` lacks or reads differently:
    "$" outside a character class means end of input, and ``\\p{...}`` /
    ``\\P{...}`` (Unicode general categories) become explicit classes."""
    if "$" not in pattern and "\\p" not in pattern and "\\P" not in pattern:
        return pattern
    out: list[str] = []
    position, length, in_class = 0, len(pattern), False
    while position < length:
        char = pattern[position]
        if char == "\\":
            escape = _PROPERTY_ESCAPE.match(pattern, position)
            if escape is None:
                out.append(pattern[position : position + 2])
                position += 2
                continue
            negated = escape.group(1) == "P"
            ranges = _category_ranges(escape.group(2), negated and in_class)
            if in_class:
                out.append(ranges)
            else:
                out.append(f"[{'^' if negated else ''}{ranges}]")
            position = escape.end()
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(char)
            position += 1
            # "[]...]" and "[^]...]": Python reads a leading "]" literally.
            if pattern.startswith("^", position):
                out.append("^")
                position += 1
            if pattern.startswith("]", position):
                out.append("]")
                position += 1
            continue
        elif char == "$":
            char = r"\Z"
        out.append(char)
        position += 1
    return "".join(out)
