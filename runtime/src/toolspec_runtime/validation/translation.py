"""Pattern translation: ECMA-262 features into Python ``re`` syntax (which
Python's parser then judges), and a pattern Python accepted into flag-free
tokens: explicit sets of code points, groups, lookarounds, alternation,
counts and anchors.  Tokens without lookaround render as Rust ``regex``
syntax; the others feed the matcher of ``automata``.

Every class means what ECMA-262 says (with the "u" flag, as JSON Schema
reads patterns), not what Python's ``re`` says: ``\\d`` is ``[0-9]``,
``\\w`` is ``[A-Za-z0-9_]``, ``\\s`` is ECMA's WhiteSpace and
LineTerminator, ``\\b`` looks at those ASCII word characters, ``.`` stops at
every line terminator (``\\n``, ``\\r``, U+2028, U+2029), ``$`` is the end of
input and ``\\cX`` is a control character."""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple, NoReturn

from .charsets import (
    _ECMA_DOT,
    _EVERYTHING,
    _PROPERTY_ESCAPE,
    _category_ranges,
    _category_set,
    _complement,
    _ecma_class,
    _merge,
    _python_class_body,
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
    (backreferences, atomic groups) or is too large for the linear matcher."""


class _Token(NamedTuple):
    """One piece of a translated pattern.  *kind* is "set" (one code point of
    *ranges*), "(" (a group), "look" (a lookaround group: *name* is "=", "!",
    "<=" or "<!"), ")", "|", "rep" (the preceding atom *least* to *most*
    times; None: no bound) or "at" (an anchor: *name* is "start", "end",
    "line" (Python's (?m)^), "word" or "nonword")."""

    kind: str
    ranges: _Ranges = ()
    least: int = 0
    most: int | None = None
    name: str = ""


_REPEAT = re.compile(r"\{([0-9]*)(?:(,)([0-9]*))?\}")
_FLAG_GROUP = re.compile(r"\(\?([aiLmsux]*)(?:-([imsx]*))?([:)])")
_FLAG_BITS = {"a": re.A, "i": re.I, "m": re.M, "s": re.S, "u": 0}
_CONTROL_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
_OCTAL = re.compile(r"[0-7]{1,3}")
_NAMED = re.compile(r"N\{([^}]*)\}")
_REFUSED_GROUPS = (
    ("(?P=", "backreferences need a backtracking matcher"),
    ("(?>", "atomic groups need a backtracking matcher"),
    ("(?(", "conditional groups need a backtracking matcher"),
)
_LOOKAROUNDS = ("(?=", "(?!", "(?<=", "(?<!")
_ANCHORS_IN_RUST = {
    "start": "\\A",
    "end": "\\z",
    "line": "(?m:^)",
    "word": "(?-u:\\b)",  # ASCII word characters, as ECMA-262's \b
    "nonword": "(?-u:\\B)",
}


class _Translation:
    """Rewrites a pattern that Python's ``re`` has accepted (once
    :func:`_translate_pattern` made it Python syntax) into tokens with its
    ECMA-262 meaning, or refuses it.  Flags are applied here, so the output
    is flag-free: sets, anchors, groups, lookarounds and counts."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.out: list[_Token] = []
        self.flags = 0
        self.saved: list[int] = []
        self.surrogates_as_fffd = True

    def refuse(self, message: str, at: int | None = None) -> NoReturn:
        raise UnsupportedPattern(message, self.src, self.pos if at is None else at)

    def run(self) -> list[_Token]:
        self._leading_flags()
        src = self.src
        while self.pos < len(src):
            char = src[self.pos]
            if char == "(":
                self._open()
            elif char == ")":
                self.flags = self.saved.pop()
                self._emit(_Token(")"), 1)
            elif char == "|":
                self._emit(_Token("|"), 1)
            elif char in "*+?":
                most = 1 if char == "?" else None
                self._emit(_Token("rep", least=int(char == "+"), most=most), 1)
                self._after_quantifier()
            elif char == "{":
                self._brace()
            elif char == "^":
                self._anchor("line" if self.flags & re.M else "start", 1)
            elif char == "$":
                self._anchor("end", 1)  # end of input, as in ECMA-262
            elif char == ".":
                self.pos += 1
                self._set(_EVERYTHING if self.flags & re.S else _ECMA_DOT)
            elif char == "[":
                self._class()
            elif char == "\\":
                self._escape()
            else:
                self.pos += 1
                self._literal(ord(char))
        return self.out

    def _emit(self, token: _Token, width: int) -> None:
        self.out.append(token)
        self.pos += width

    def _anchor(self, name: str, width: int) -> None:
        self._emit(_Token("at", name=name), width)

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
        look = next((o for o in _LOOKAROUNDS if src.startswith(o, at)), None)
        if src.startswith("(?#", at):  # a comment
            self.saved.pop()
            self.pos = src.index(")", at) + 1
        elif look is not None:
            self._emit(_Token("look", name=look[2:]), len(look))
        elif src.startswith("(?P<", at) or src.startswith("(?<", at):
            # A named group (Python's spelling or ECMA-262's).
            self._emit(_Token("("), src.index(">", at) + 1 - at)
        elif src.startswith("(?:", at) or not src.startswith("(?", at):
            self._emit(_Token("("), 3 if src.startswith("(?:", at) else 1)
        else:
            found = _FLAG_GROUP.match(src, at)
            if found is None or found.group(3) != ":":
                self.refuse("inline flags must come first or scope a group (?i:...)")
            self.flags = self._flags(found, self.flags)
            self._emit(_Token("("), found.end() - at)

    def _after_quantifier(self) -> None:
        if self.src.startswith("+", self.pos):
            self.refuse("possessive quantifiers need a backtracking matcher")
        # Lazy or greedy, a count matches the same texts: only whether the
        # pattern matches at all is asked.
        self.pos += self.src.startswith("?", self.pos)

    def _brace(self) -> None:
        found = _REPEAT.match(self.src, self.pos)
        if found is None or found.group() == "{}":  # Python reads it literally
            self.pos += 1
            self._literal(ord("{"))
            return
        least, comma, most = found.groups()
        bound = int(least or "0")
        top = (int(most) if most else None) if comma else bound
        self._emit(_Token("rep", least=bound, most=top), found.end() - self.pos)
        self._after_quantifier()

    def _literal(self, code: int) -> None:
        if self.flags & re.I:
            self._set(_scan(re.escape(chr(code)), self.flags))
        else:
            self._set(((code, code),))

    def _set(self, ranges: _Ranges) -> None:
        self.surrogates_as_fffd &= _surrogates_like_fffd(ranges)
        self.out.append(_Token("set", ranges))

    def _escape(self) -> None:
        start = self.pos
        letter = self.src[start + 1]
        if letter in "bB":
            self._anchor("word" if letter == "b" else "nonword", 2)
        elif letter == "A":
            self._anchor("start", 2)
        elif letter == "Z":
            self._anchor("end", 2)
        elif letter == "k" or (
            letter in "123456789" and not _is_octal_escape(self.src, start + 1)
        ):
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
            return _ecma_class_under(letter, self.flags), None
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
        if letter == "c":  # a control character: \\cJ is 10
            self.pos += 1
            return ord(src[self.pos - 1]) % 32
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


def _ecma_class_under(letter: str, flags: int) -> _Ranges:
    """ECMA-262's ``\\d`` ... ``\\S`` set; under (?i) closed under case folding
    as Python folds (so (?i)\\w also takes U+017F and U+212A, as ECMA's /iu)."""
    ranges = _ecma_class(letter)
    if flags & re.I:
        return _scan(f"[{_python_class_body(ranges)}]", flags)
    return ranges


def _rust(tokens: list[_Token]) -> str | None:
    """The tokens in Rust ``regex`` syntax; None when they hold a lookaround,
    which the Rust engine lacks."""
    out: list[str] = []
    for token in tokens:
        kind = token.kind
        if kind == "set":
            out.append(_rust_set(token.ranges))
        elif kind == "(":
            out.append("(?:")
        elif kind in ")|":
            out.append(kind)
        elif kind == "at":
            out.append(_ANCHORS_IN_RUST[token.name])
        elif kind == "rep":
            most = "" if token.most is None else str(token.most)
            out.append(
                f"{{{token.least}}}"
                if most == str(token.least)
                else f"{{{token.least},{most}}}"
            )
        else:
            return None
    return "".join(out)


def _python_syntax(pattern: str) -> str:
    """The pattern as Python's parser judges its syntax: translated, and each
    lookbehind read as a lookahead, since ECMA-262 (and this matcher) allow a
    lookbehind of any width where Python asks for a fixed one."""
    text = _translate_pattern(pattern)
    if "(?<" not in text:
        return text
    return text.replace("(?<=", "(?=").replace("(?<!", "(?!")


def _translate_pattern(pattern: str) -> str:
    """Rewrite the ECMA-262 features Python's ``re`` lacks or reads differently:
    "$" outside a character class means end of input; ``\\d``, ``\\w``,
    ``\\s`` (and their complements) and ``\\p{...}`` / ``\\P{...}`` (Unicode
    general categories) become explicit classes; ``\\cX`` is a control
    character; ``(?<name>`` is a named group and ``\\k<name>`` refers to it."""
    if "$" not in pattern and "\\" not in pattern and "(?<" not in pattern:
        return pattern
    out: list[str] = []
    position, length, in_class = 0, len(pattern), False
    while position < length:
        char = pattern[position]
        if char == "\\":
            text, position = _translated_escape(pattern, position, in_class)
            out.append(text)
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
        elif (
            pattern.startswith("(?<", position)
            and pattern[position + 3 : position + 4] not in "=!"
        ):
            char = "(?P<"
            position += 2
        out.append(char)
        position += 1
    return "".join(out)


def _translated_escape(pattern: str, position: int, in_class: bool) -> tuple[str, int]:
    """One escape of :func:`_translate_pattern`: its Python text and where the
    pattern goes on."""
    letter = pattern[position + 1 : position + 2]
    if letter in ("p", "P"):
        escape = _PROPERTY_ESCAPE.match(pattern, position)
        if escape is not None:
            negated = escape.group(1) == "P"
            ranges = _category_ranges(escape.group(2), negated and in_class)
            if in_class:
                return ranges, escape.end()
            return f"[{'^' if negated else ''}{ranges}]", escape.end()
    elif letter and letter in "dDwWsS":
        body = _python_class_body(_ecma_class(letter))
        return (body if in_class else f"[{body}]"), position + 2
    elif (
        letter == "c"
        and pattern[position + 2 : position + 3].isascii()
        and pattern[position + 2 : position + 3].isalpha()
    ):
        return f"\\x{ord(pattern[position + 2]) % 32:02x}", position + 3
    elif letter == "k" and not in_class and pattern.startswith("<", position + 2):
        end = pattern.find(">", position)
        if end > 0:
            return f"(?P={pattern[position + 3 : end]})", end + 1
    return pattern[position : position + 2], position + 2
