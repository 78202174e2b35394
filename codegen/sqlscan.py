"""The SQL placeholder scanner: where a SQL body binds values (`:name`), and the text SQLAlchemy should execute.

**Every database reads it alike, or it is refused.** A Brimley SQL function does not say which database it runs
on, and the databases lex SQL differently: PostgreSQL nests `/* /* */ */` comments, has `$tag$…$tag$` and `E'…'`
strings and ends a `--` comment at a carriage return too; MySQL (and PostgreSQL with standard_conforming_strings
off) reads a backslash in `'…'` as an escape, MySQL reads `"…"` as a string, `#` as a comment, `--` as a comment
only before a space, and runs `/*! … */`; SQLite reads `[…]` as an identifier. A placeholder that one database
reads as SQL and another as comment or string text is the injection this module exists to prevent: drivers that
interpolate values client-side (psycopg2, SQLAlchemy's default for `postgresql://`; MySQL's drivers) would put the
value's quoted text inside the comment or string, where its `*/` or `'` ends it and the rest runs as SQL.

So the text is lexed under each dialect in `DIALECTS`, and `scan` reports a problem unless all the readings agree
on every character that decides binding (a colon before a name, a backslash before a colon, a `;`: SQL in all of
them or text in all of them), none leaves anything unclosed, and each reads one statement. A placeholder is lexed
as the value it becomes (`:a` then `$$` is a value then a dollar quote, as the server sees it), and may not touch
a quote or `$` (`E'…':a` would merge the value's literal into an `E'…'` string).

**What SQLAlchemy executes.** `text()` finds bind parameters with a regular expression that knows no SQL: it would
bind `':x'` inside a literal, and it does not see `:a` in `:a::int`. `render` therefore produces the text to hand
to `text()` so that SQLAlchemy binds exactly the placeholders found here and executes exactly the SQL written:

- `:a::int` becomes `(:a)::int` (the same expression, and `:a` is then a bind parameter);
- a colon SQLAlchemy would mistake for a bind parameter (inside a literal, a comment, or `:1`) is escaped `\\:`,
  which SQLAlchemy turns back into `:`; a backslash-colon that SQLAlchemy would un-escape is doubled;
- `IN (:ids)` for an expanding list parameter becomes `IN :ids` (SQLAlchemy adds the parentheses).

Both the SQLAlchemy 2.0 and 2.1 spellings of its two regular expressions are honoured; where no escape satisfies
them (a literal such as `':a:b'`), `scan` reports a problem instead. Text SQLAlchemy rewrites after compiling,
wherever it stands (`%(name)s` for SQLite's positional driver, `__[POSTCOMPILE_name]` for expanding lists, which
would put parameters inside a literal), is refused too. (`%` itself is safe: SQLAlchemy doubles it for the
`%`-style drivers.)
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

# SQLAlchemy's TextClause._bind_params_regex and compiler.BIND_PARAMS_ESC, as of 2.0 and of 2.1.
_BIND = (
    re.compile(r"(?<![:\w\x5c]):(\w+)(?!:)"),
    re.compile(r"(?<![:\w\x5c]):(\w+)(?![:\w])"),
)
_ESC = (re.compile(r"\x5c(:[\w\$]*)(?![:\w\$])"), re.compile(r"\x5c(:\w*)(?![:\w])"))
_NAME = re.compile(r"[^\W\d]\w*")
# Identifiers as the databases lex them: PostgreSQL and SQLite take every non-ASCII character, and `$` after the
# first character (so `a$$b` is one identifier, never a dollar quote).
_IDENT = re.compile(r"[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*")
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_DOLLAR_TAG = re.compile(
    r"\$(?:[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*)?\$"
)
_MYSQL_EXECUTABLE = re.compile(
    r"/\*M?!\d*"
)  # MySQL and MariaDB run the text of `/*! … */` as SQL
# Characters whose reading decides what is bound or executed: a colon before a name, a backslash before a colon
# (doubled or not by `render`), and `;`.
_SENSITIVE = re.compile(r":(?=\w)|\x5c(?=:)|;")
# Text SQLAlchemy rewrites after compiling, even inside literals and comments.
_REWRITTEN = (
    (
        re.compile(r"%\([^)]+?\)s"),
        "SQLAlchemy turns text of the form %(name)s into a parameter for positional drivers (SQLite), even inside "
        "a literal or comment; write it another way (e.g. '%' || '(name)s')",
    ),
    (
        re.compile(r"__\[POSTCOMPILE_"),
        "SQLAlchemy expands __[POSTCOMPILE_…] text into parameters, even inside a literal or comment; write it "
        "another way",
    ),
)


@dataclass(frozen=True)
class Dialect:
    """How one database (or one setting of it) lexes the constructs that can hide a placeholder."""

    name: str
    nested_comments: bool = False
    backslash_strings: bool = False  # a backslash escapes the next character in '…'
    e_strings: bool = False  # E'…' with backslash escapes
    dollar_quotes: bool = False
    double_quoted_strings: bool = False  # "…" is a string with backslash escapes
    backticks: bool = False  # `…` identifiers
    brackets: bool = False  # […] identifiers
    hash_comments: bool = False
    dash_comment_needs_space: bool = False  # `--x` is two minus signs
    carriage_return_ends_comment: bool = False
    executable_comments: bool = False  # /*! … */ is SQL
    strict_numbers: bool = (
        False  # `1abc`, `0x1F`, `1_000` read differently across versions
    )


POSTGRESQL = Dialect(
    "PostgreSQL",
    nested_comments=True,
    e_strings=True,
    dollar_quotes=True,
    carriage_return_ends_comment=True,
    strict_numbers=True,
)
DIALECTS = (
    POSTGRESQL,
    Dialect(
        "PostgreSQL (standard_conforming_strings off)",
        nested_comments=True,
        backslash_strings=True,
        e_strings=True,
        dollar_quotes=True,
        carriage_return_ends_comment=True,
        strict_numbers=True,
    ),
    Dialect("SQLite", backticks=True, brackets=True),
    Dialect(
        "MySQL",
        backslash_strings=True,
        double_quoted_strings=True,
        backticks=True,
        hash_comments=True,
        dash_comment_needs_space=True,
        executable_comments=True,
    ),
)

_JUNK = (
    "a number directly followed by a letter or '_' reads differently across PostgreSQL versions (1abc, 0x1F, "
    "1_000); add a space or write it another way"
)
# Why readings of a construct differ, by the kind of construct a disagreeing character sits in.
_WHY = {
    "comment": "PostgreSQL nests /* */ comments, SQLite and MySQL end them at the first */, and MySQL runs "
    "/*! … */ as SQL",
    "-- comment": "PostgreSQL also ends a -- comment at a carriage return, and MySQL starts one only before a "
    "space",
    "# comment": "MySQL reads # as the start of a comment",
    "string literal": "MySQL, and PostgreSQL with standard_conforming_strings off, read a backslash in '…' as an "
    "escape",
    "E'…' string": "only PostgreSQL reads E'…' as a string with backslash escapes",
    "$…$ string": "only PostgreSQL has dollar-quoted strings",
    "quoted identifier": 'MySQL reads "…" as a string with backslash escapes',
    "`…` identifier": "PostgreSQL has no `…` identifiers",
    "[…] identifier": "only SQLite reads […] as an identifier",
}


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
    readings = [_read(text, dialect) for dialect in DIALECTS]
    main = readings[0]
    result.quoted = list(zip(main.starts, main.ends))
    _find_placeholders(result, main)
    _check_readings(result, readings)
    _check_statements(result, readings)
    _check_rewritten_text(result)
    _protect_colons(result)
    return result


@dataclass
class _Reading:
    """The text as one dialect lexes it: its non-code regions (sorted, disjoint) and what it found wrong."""

    dialect: Dialect
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    problems: list[tuple[Problem, str]] = field(
        default_factory=list
    )  # with the kind of construct
    semicolons: list[int] = field(default_factory=list)

    def region(self, offset: int) -> int | None:
        """The index of the region holding `offset`, None when it is code."""
        index = bisect_right(self.starts, offset) - 1
        return index if index >= 0 and offset < self.ends[index] else None

    def add(self, start: int, end: int, kind: str) -> int:
        self.starts.append(start)
        self.ends.append(end)
        self.kinds.append(kind)
        return end

    def unclosed(self, start: int, opener: int, end: int, kind: str, close: str) -> int:
        self.problems.append(
            (Problem(start, opener, f"this {kind} is never closed ({close})"), kind)
        )
        return self.add(start, end, kind)


def _read(s: str, d: Dialect) -> _Reading:
    """Lex `s` under dialect `d` (never raises; linear in the length of `s`)."""
    r = _Reading(d)
    n, i = len(s), 0
    while i < n:
        c = s[i]
        if c == "'":
            i = _quoted(r, s, i, i + 1, "'", d.backslash_strings, "string literal")
        elif c == '"':
            i = _quoted(
                r, s, i, i + 1, '"', d.double_quoted_strings, "quoted identifier"
            )
        elif c == "`" and d.backticks:
            i = _quoted(r, s, i, i + 1, "`", False, "`…` identifier")
        elif c == "[" and d.brackets:
            end = s.find("]", i + 1)
            i = (
                r.add(i, end + 1, "[…] identifier")
                if end >= 0
                else r.unclosed(i, i + 1, n, "[…] identifier", "]")
            )
        elif s.startswith("--", i) and (
            not d.dash_comment_needs_space or _mysql_comment_space(s, i + 2)
        ):
            i = _line_comment(r, s, i, "-- comment", d.carriage_return_ends_comment)
        elif c == "#" and d.hash_comments:
            i = _line_comment(r, s, i, "# comment", False)
        elif s.startswith("/*", i):
            executable = (
                _MYSQL_EXECUTABLE.match(s, i) if d.executable_comments else None
            )
            i = executable.end() if executable else _block_comment(r, s, i)
        elif c == "$" and d.dollar_quotes and (tag := _DOLLAR_TAG.match(s, i)):
            end = s.find(tag.group(), tag.end())
            i = (
                r.add(i, end + len(tag.group()), "$…$ string")
                if end >= 0
                else r.unclosed(i, tag.end(), n, "$…$ string", tag.group())
            )
        elif c == ":" and (name := _placeholder_name(s, i)):
            i = name.end()  # a value once bound: what follows is lexed after a literal
        elif ident := _IDENT.match(s, i):
            i = ident.end()
            if (
                d.e_strings
                and i == ident.start() + 1
                and c in "eE"
                and s[i : i + 1] == "'"
            ):
                i = _quoted(r, s, i - 1, i + 1, "'", True, "E'…' string")
        elif number := _NUMBER.match(s, i):
            i = number.end()
            if d.strict_numbers and _IDENT.match(s, i):
                r.problems.append((Problem(number.start(), i + 1, _JUNK), "number"))
        else:
            if c == ";":
                r.semicolons.append(i)
            i += 1
    return r


def _quoted(
    r: _Reading, s: str, start: int, body: int, quote: str, backslashes: bool, kind: str
) -> int:
    """A literal or quoted identifier from `start` (its body from `body`): a doubled quote stays inside."""
    i, n = body, len(s)
    while i < n:
        c = s[i]
        if backslashes and c == "\\":
            i += 2
        elif c != quote:
            i += 1
        elif s.startswith(quote, i + 1):
            i += 2
        else:
            return r.add(start, i + 1, kind)
    return r.unclosed(start, body, n, kind, quote)


def _line_comment(r: _Reading, s: str, start: int, kind: str, cr: bool) -> int:
    end = s.find("\n", start)
    end = len(s) if end < 0 else end
    if cr:
        carriage = s.find("\r", start, end)
        end = end if carriage < 0 else carriage
    return r.add(start, end, kind)


def _block_comment(r: _Reading, s: str, start: int) -> int:
    """`/* … */` from `start`, nested where the dialect nests them. Each search starts where the last one found
    something, so hostile nesting stays linear."""
    nested = r.dialect.nested_comments
    depth, i = 1, start + 2
    close = s.find("*/", i)
    opening = s.find("/*", i) if nested else -1
    while close >= 0:
        if 0 <= opening < close:
            depth, i = depth + 1, opening + 2
            opening = s.find("/*", i)
            if close < i:  # `/*/`: that `*/` belonged to the opener
                close = s.find("*/", i)
            continue
        depth, i = depth - 1, close + 2
        if depth == 0:
            return r.add(start, i, "comment")
        close = s.find("*/", i)
        if 0 <= opening < i:  # `*/*`: that `/*` belonged to the closer
            opening = s.find("/*", i)
    return r.unclosed(start, start + 2, len(s), "comment", "'*/'")


def _mysql_comment_space(s: str, i: int) -> bool:
    """MySQL starts a `--` comment only before whitespace, a control character or the end."""
    return i >= len(s) or s[i] in " \t\n\r\x0b\x0c" or ord(s[i]) < 32 or s[i] == "\x7f"


def _placeholder_name(s: str, i: int) -> re.Match[str] | None:
    """The name after the colon at `i` when it is a placeholder: not `::`, `a:b`, `\\:x` or `:1`."""
    if s.startswith("::", i) or (i > 0 and (_word(s[i - 1]) or s[i - 1] in ":\\")):
        return None
    return _NAME.match(s, i + 1)


def _find_placeholders(result: Scan, main: _Reading) -> None:
    """The placeholders: `:name` in code (the readings must agree on that: `_check_readings`)."""
    s = result.text
    for match in re.finditer(":", s):
        i = match.start()
        name = _placeholder_name(s, i)
        if name is None or main.region(i) is not None:
            continue
        end = name.end()
        after_in, parens = _in_context(s, i, end)
        wrap = s.startswith("::", end)
        if not wrap and s.startswith(":", end):
            result.problems.append(
                Problem(
                    end,
                    end + 1,
                    "a placeholder directly followed by ':' is ambiguous; add a space",
                )
            )
        before = s[i - 1] if i > 0 else ""
        if before in ("'", '"', "`", "$") or s[max(0, i - 2) : i].upper() == "U&":
            result.problems.append(
                Problem(
                    i - 1,
                    end,
                    f"a placeholder directly after {before!r} would merge with it once the value is in place; "
                    "add a space",
                )
            )
        if s[end : end + 1] in ("'", '"', "`", "$"):
            result.problems.append(
                Problem(
                    i,
                    end + 1,
                    f"a placeholder directly before {s[end]!r} would merge with it once the value is in place; "
                    "add a space",
                )
            )
        result.placeholders.append(
            Placeholder(name.group(), i, end, after_in, parens, wrap)
        )


def _in_context(s: str, start: int, end: int) -> tuple[bool, tuple[int, int] | None]:
    """Whether `IN` comes before the placeholder, perhaps with `(` … `)` around it alone."""
    i = _skip_space_back(s, start)
    open_paren = None
    if i > 0 and s[i - 1] == "(":
        open_paren = i - 1
        i = _skip_space_back(s, i - 1)
    if not (
        i >= 2 and s[i - 2 : i].lower() == "in" and (i == 2 or not _word(s[i - 3]))
    ):
        return False, None
    if open_paren is None:
        return True, None
    j = end
    while j < len(s) and s[j].isspace():
        j += 1
    if j < len(s) and s[j] == ")":
        return True, (open_paren, j)
    return False, None  # `IN (:a, :b)`: a list of scalars


def _skip_space_back(s: str, i: int) -> int:
    while i > 0 and s[i - 1].isspace():
        i -= 1
    return i


def _check_readings(result: Scan, readings: list[_Reading]) -> None:
    """Each dialect's own problems (once each), then the first character the dialects read differently."""
    seen: dict[tuple[Problem, str], list[str]] = {}
    for reading in readings:
        for found in reading.problems:
            seen.setdefault(found, []).append(reading.dialect.name)
    for (problem, kind), names in seen.items():
        message = problem.message
        if len(names) < len(readings) and kind in _WHY:
            message = f"{message} in {_names(names)} ({_WHY[kind]})"
        result.problems.append(Problem(problem.start, problem.end, message))
    if "\x00" in result.text:
        at = result.text.index("\x00")
        result.problems.append(Problem(at, at + 1, "SQL cannot hold a NUL character"))
    for match in _SENSITIVE.finditer(result.text):
        at = match.start()
        regions = [reading.region(at) for reading in readings]
        if all(r is None for r in regions) or all(r is not None for r in regions):
            continue
        result.problems.append(_disagreement(result, readings, regions, at))
        return


def _disagreement(
    result: Scan, readings: list[_Reading], regions: list[int | None], at: int
) -> Problem:
    s = result.text
    code = [r.dialect.name for r, index in zip(readings, regions) if index is None]
    text = [
        (r.dialect.name, r.kinds[index])
        for r, index in zip(readings, regions)
        if index is not None
    ]
    kind = text[0][1]
    name = _placeholder_name(s, at) if s[at] == ":" else None
    end = name.end() if name else at + 1
    what = {";": "this ';'", "\\": "this backslash"}.get(s[at], "this ':'")
    if name:
        what = f"the placeholder ':{name.group()}'"
    return Problem(
        at,
        end,
        f"{what} is SQL in {_names(code)} but inside {_article(kind)} {kind} in "
        f"{_names([n for n, _ in text])} ({_WHY[kind]}); a placeholder or ';' must read the same in every "
        "database, so write this part of the SQL another way",
    )


def _names(names: list[str]) -> str:
    if POSTGRESQL.name in names:  # its variants go without saying
        names = [n for n in names if not n.startswith(POSTGRESQL.name + " ")]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _article(kind: str) -> str:
    return "an" if kind[0] in "AEIOUaeiou" else "a"


def _check_statements(result: Scan, readings: list[_Reading]) -> None:
    """`;` separates statements; one at the very end (before whitespace and comments) is allowed."""
    for reading in readings:
        for offset in reading.semicolons:
            if _significant_after(result.text, reading, offset + 1):
                if result.extra_statement is None or offset < result.extra_statement:
                    result.statements = 2
                    result.extra_statement = offset
                break


def _significant_after(s: str, reading: _Reading, i: int) -> bool:
    while i < len(s):
        index = reading.region(i)
        if index is not None and reading.kinds[index].endswith("comment"):
            i = reading.ends[index]
        elif s[i].isspace():
            i += 1
        else:
            return True
    return False


def _check_rewritten_text(result: Scan) -> None:
    for pattern, message in _REWRITTEN:
        for match in pattern.finditer(result.text):
            result.problems.append(Problem(match.start(), match.end(), message))


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
