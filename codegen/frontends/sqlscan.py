"""The SQL placeholder scanner: where a SQL body binds values (`:name`), and the text SQLAlchemy should execute.

The scanner reads SQL as a database would for the purpose of finding bind parameters: string literals (`'…'`,
`E'…'` with backslash escapes, `$tag$…$tag$`), quoted identifiers (`"…"`, `` `…` ``) and comments (`--`, `/* */`)
hold no placeholders, and `::` is PostgreSQL's cast operator, never a parameter.

SQLAlchemy's `text()` finds bind parameters with a regular expression that knows none of this: it would bind
`':x'` inside a literal, and it does not see `:a` in `:a::int`. `render` therefore produces the text to hand to
`text()` so that SQLAlchemy binds exactly the placeholders found here and executes exactly the SQL written:

- `:a::int` becomes `(:a)::int` (the same expression, and `:a` is then a bind parameter);
- a colon SQLAlchemy would mistake for a bind parameter (inside a literal, a comment, or `:1`) is escaped `\\:`,
  which SQLAlchemy turns back into `:`; a backslash-colon that SQLAlchemy would un-escape is doubled;
- `IN (:ids)` for an expanding list parameter becomes `IN :ids` (SQLAlchemy adds the parentheses).

Both the SQLAlchemy 2.0 and 2.1 spellings of its two regular expressions are honoured; where no escape satisfies
them (a literal such as `':a:b'`), `scan` reports a problem instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# SQLAlchemy's TextClause._bind_params_regex and compiler.BIND_PARAMS_ESC, as of 2.0 and of 2.1.
_BIND = (
    re.compile(r"(?<![:\w\x5c]):(\w+)(?!:)"),
    re.compile(r"(?<![:\w\x5c]):(\w+)(?![:\w])"),
)
_ESC = (re.compile(r"\x5c(:[\w\$]*)(?![:\w\$])"), re.compile(r"\x5c(:\w*)(?![:\w])"))
_NAME = re.compile(r"[^\W\d]\w*")
_DOLLAR_TAG = re.compile(r"\$(?:[^\W\d]\w*)?\$")


@dataclass(frozen=True)
class Placeholder:
    name: str
    start: int  # offset of the colon in the scanned text
    end: int  # just after the name
    after_in: bool = False  # `IN :name` or `IN (:name)`
    parens: tuple[int, int] | None = None  # offsets of `(` and `)` in `IN ( :name )`
    wrap: bool = False  # a cast follows (`:a::int`): rendered `(:a)::int`


@dataclass(frozen=True)
class Problem:
    start: int
    end: int
    message: str


@dataclass
class Scan:
    text: str
    placeholders: list[Placeholder] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    statements: int = 1  # top-level statements (`;` separated, a trailing `;` ignored)
    extra_statement: int | None = (
        None  # offset of the `;` that starts a second statement
    )
    # Offsets of characters outside code (literals, quoted identifiers, comments), as (start, end) ranges.
    quoted: list[tuple[int, int]] = field(default_factory=list)
    # Colons SQLAlchemy would bind but must not (offset -> escape with a backslash).
    escapes: set[int] = field(default_factory=set)
    # Backslashes before a colon that SQLAlchemy would swallow (offset -> double the backslash).
    doubled: set[int] = field(default_factory=set)


def scan(text: str) -> Scan:
    """Find the placeholders of a SQL body and what `render` must change; never raises."""
    result = Scan(text)
    _Scanner(text, result).run()
    _protect_colons(result)
    return result


class _Scanner:
    def __init__(self, text: str, result: Scan) -> None:
        self.s = text
        self.n = len(text)
        self.result = result
        self.semicolons: list[int] = []
        self.comments: dict[int, int] = {}  # start -> end of each comment

    def run(self) -> None:
        s, n, i = self.s, self.n, 0
        while i < n:
            c = s[i]
            if c == "'":
                escapes = i > 0 and s[i - 1] in "eE" and (i < 2 or not _word(s[i - 2]))
                i = self._quoted(i, "'", escapes, "string literal")
            elif c == '"':
                i = self._quoted(i, '"', False, "quoted identifier")
            elif c == "`":
                i = self._quoted(i, "`", False, "quoted identifier")
            elif s.startswith("--", i):
                end = s.find("\n", i)
                end = n if end < 0 else end
                self.result.quoted.append((i, end))
                self.comments[i] = end
                i = end
            elif s.startswith("/*", i):
                end = s.find("*/", i + 2)
                if end < 0:
                    self.result.problems.append(
                        Problem(i, i + 2, "this comment is never closed ('*/')")
                    )
                    self.result.quoted.append((i, n))
                    return
                self.result.quoted.append((i, end + 2))
                self.comments[i] = end + 2
                i = end + 2
            elif (
                c == "$"
                and (i == 0 or not _word(s[i - 1]))
                and (tag := _DOLLAR_TAG.match(s, i))
            ):
                end = s.find(tag.group(), tag.end())
                if end < 0:
                    self.result.problems.append(
                        Problem(
                            i, tag.end(), f"this {tag.group()} string is never closed"
                        )
                    )
                    self.result.quoted.append((i, n))
                    return
                self.result.quoted.append((i, end + len(tag.group())))
                i = end + len(tag.group())
            elif c == ":":
                i = self._colon(i)
            else:
                if c == ";":
                    self.semicolons.append(i)
                i += 1
        self._statements()

    def _quoted(self, start: int, quote: str, backslashes: bool, what: str) -> int:
        s, i = self.s, start + 1
        while i < self.n:
            c = s[i]
            if backslashes and c == "\\":
                i += 2
                continue
            if c == quote:
                if i + 1 < self.n and s[i + 1] == quote:  # '' inside a literal
                    i += 2
                    continue
                self.result.quoted.append((start, i + 1))
                return i + 1
            i += 1
        self.result.problems.append(
            Problem(start, start + 1, f"this {what} is never closed ({quote})")
        )
        self.result.quoted.append((start, self.n))
        return self.n

    def _colon(self, i: int) -> int:
        s = self.s
        if s.startswith("::", i):
            return i + 2  # a cast
        if i > 0 and (_word(s[i - 1]) or s[i - 1] in ":\\"):
            return i + 1  # `a:b`, `\:`: not a parameter (SQLAlchemy agrees)
        name = _NAME.match(s, i + 1)
        if name is None:
            return i + 1  # `:1`, `: x`, `:=`: not a parameter
        end = name.end()
        after_in, parens = self._in_context(i, end)
        wrap = s.startswith("::", end)
        if not wrap and s.startswith(":", end):
            self.result.problems.append(
                Problem(
                    end,
                    end + 1,
                    "a placeholder directly followed by ':' is ambiguous; add a space",
                )
            )
        self.result.placeholders.append(
            Placeholder(name.group(), i, end, after_in, parens, wrap)
        )
        return end

    def _in_context(self, start: int, end: int) -> tuple[bool, tuple[int, int] | None]:
        """Whether `IN` comes before the placeholder, perhaps with `(` … `)` around it alone."""
        s = self.s
        i = self._skip_space_back(start)
        open_paren = None
        if i > 0 and s[i - 1] == "(":
            open_paren = i - 1
            i = self._skip_space_back(i - 1)
        if not (
            i >= 2 and s[i - 2 : i].lower() == "in" and (i == 2 or not _word(s[i - 3]))
        ):
            return False, None
        if open_paren is None:
            return True, None
        j = end
        while j < self.n and s[j].isspace():
            j += 1
        if j < self.n and s[j] == ")":
            return True, (open_paren, j)
        return False, None  # `IN (:a, :b)`: a list of scalars

    def _skip_space_back(self, i: int) -> int:
        while i > 0 and self.s[i - 1].isspace():
            i -= 1
        return i

    def _statements(self) -> None:
        """`;` separates statements; one at the very end (before whitespace and comments) is allowed."""
        for offset in self.semicolons:
            rest = self._significant_after(offset + 1)
            if rest is not None:
                self.result.statements = 2
                self.result.extra_statement = offset
                return

    def _significant_after(self, i: int) -> int | None:
        while i < self.n:
            if i in self.comments:
                i = self.comments[i]
                continue
            if not self.s[i].isspace():
                return i
            i += 1
        return None


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _protect_colons(result: Scan) -> None:
    """Decide which colons and backslashes `render` escapes, so SQLAlchemy binds exactly the placeholders."""
    text = result.text
    own = {p.start for p in result.placeholders}
    inside = _inside(result.quoted, len(text))
    for index, c in enumerate(text):
        if c == ":" and index not in own:
            if any(regex.match(text, index) for regex in _BIND):
                escaped = "\\" + text[index : _WORD_AFTER_COLON.match(text, index).end() + 1]  # type: ignore[union-attr]
                if all(regex.match(escaped) for regex in _ESC):
                    result.escapes.add(index)
                else:
                    result.problems.append(
                        Problem(
                            index,
                            index + 1,
                            "SQLAlchemy would read this colon as a bind parameter and it cannot be escaped here; "
                            "rewrite the text (e.g. split the string: ':' || 'name')",
                        )
                    )
        elif c == "\\" and inside[index] and text.startswith(":", index + 1):
            matches = [bool(regex.match(text, index)) for regex in _ESC]
            if all(matches):
                result.doubled.add(index)
            elif any(matches):
                result.problems.append(
                    Problem(
                        index,
                        index + 2,
                        "this backslash-colon reads differently in SQLAlchemy 2.0 and 2.1",
                    )
                )


_WORD_AFTER_COLON = re.compile(r":[\w$]*")


def _inside(ranges: list[tuple[int, int]], length: int) -> list[bool]:
    flags = [False] * (length + 1)
    for start, end in ranges:
        flags[start : min(end, length)] = [True] * (min(end, length) - start)
    return flags


def render(result: Scan, expanding: set[str]) -> str:
    """The text to give SQLAlchemy's `text()` (see the module docstring); `expanding` names list parameters."""
    text = result.text
    drop: set[int] = set()
    wrap: dict[int, int] = {}
    for placeholder in result.placeholders:
        if placeholder.name in expanding and placeholder.parens is not None:
            drop.update(placeholder.parens)
        if placeholder.wrap:
            wrap[placeholder.start] = placeholder.end
    out: list[str] = []
    closing: set[int] = set()
    for index, c in enumerate(text):
        if index in closing:
            out.append(")")
        if index in drop:
            continue
        if index in wrap:
            out.append("(")
            closing.add(wrap[index])
        if index in result.escapes or index in result.doubled:
            out.append("\\")
        out.append(c)
    if len(text) in closing:
        out.append(")")
    return "".join(out)
