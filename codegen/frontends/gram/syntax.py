"""gram notation: the parser (lark, LALR) and the syntax tree it builds.

The grammar is `grammars/gram.lark` (../shared/reference/gram.md §1, with the leniency of §2). This module turns
text into a small, source-independent syntax tree — plain dataclasses that carry character offsets — and turns
lark's errors into `GramSyntaxError`s phrased for people. It knows nothing of tools; `patterns.py` lowers the tree
into the IR.

The parser is built once per process (lazily) with the tree-building transformer inlined into the LALR parser, so
a parse is one pass over the tokens and never builds lark's own tree. Tokens are fed one by one so that nesting
depth is bounded (a deep input gives a diagnostic, never a RecursionError later) and so an error can point back
at the bracket that was left open.
"""

from __future__ import annotations

import threading
from decimal import Decimal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ...resources import grammar_text
from ..json.parse import MAX_INT_DIGITS, read_float

MAX_DEPTH = 64  # brackets of any kind open at once; real specs stay far below this

# ── Syntax tree ─────────────────────────────────────────────────────────────────────────────────────────────────
# Offsets are character positions in the text (end exclusive); the front end turns them into spans.


@dataclass(slots=True)
class Name:
    """An identifier, label name or record key, with how it was written."""

    text: str
    kind: str  # "symbol" | "quoted_name" (backticks) | "double_quoted_name" | "integer"
    start: int
    end: int


@dataclass(slots=True)
class Value:
    """A record value. `data` is the Python value: int, float, bool, str, list[Value] or list[Entry]."""

    kind: str  # integer decimal hexadecimal octal measurement boolean string tagged symbol range array map
    data: Any
    start: int
    end: int
    text: str = (
        ""  # the source text of scalars (measurements and ranges are kept as written)
    )
    tag: str | None = None  # tagged strings: date`2024-04-05` has tag "date"


@dataclass(slots=True)
class Entry:
    key: Name
    value: Value
    binder: str  # ":" or "::"


@dataclass(slots=True)
class Record:
    entries: list[Entry]
    start: int
    end: int


@dataclass(slots=True)
class Label:
    name: Name
    binder: str  # ":" or "::"
    start: int
    end: int


@dataclass(slots=True)
class Subject:
    identifier: Name | None
    labels: list[Label]
    record: Record | None
    start: int
    end: int


@dataclass(slots=True)
class Node:
    subject: Subject | None
    start: int
    end: int


@dataclass(slots=True)
class Arrow:
    direction: str  # "undirected" | "right" | "left" | "bidirectional"
    family: str  # "single" | "double" | "squiggle"
    subject: Subject | None
    start: int
    end: int


@dataclass(slots=True)
class Path:
    nodes: list[Node]
    arrows: list[Arrow]  # arrows[i] joins nodes[i] and nodes[i + 1]
    start: int
    end: int


@dataclass(slots=True)
class Reference:
    name: Name

    @property
    def start(self) -> int:
        return self.name.start

    @property
    def end(self) -> int:
        return self.name.end


@dataclass(slots=True)
class SubjectPattern:
    subject: Subject | None
    elements: list[SubjectPattern | Path | Reference]
    start: int
    end: int


@dataclass(slots=True)
class Annotation:
    """`@key(value)` (property) or `@@identifier:Labels` (identified)."""

    key: Name | None
    value: Value | None
    identifier: Name | None
    labels: list[Label]
    start: int
    end: int


@dataclass(slots=True)
class Pattern:
    """A top-level pattern with the annotations before it."""

    annotations: list[Annotation]
    element: SubjectPattern | Path
    start: int
    end: int


@dataclass(slots=True)
class Document:
    header: Record | None
    patterns: list[Pattern] = field(default_factory=list)


class GramSyntaxError(Exception):
    """A syntax error: what went wrong, where (offsets), and notes that point elsewhere."""

    def __init__(
        self,
        message: str,
        start: int,
        end: int,
        notes: tuple[tuple[str, int], ...] = (),
        code: str = "gram-syntax",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end
        self.notes = notes
        self.code = code


# ── Tokens to values ────────────────────────────────────────────────────────────────────────────────────────────

_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "/": "/",
}


def unescape(body: str) -> str:
    """Decode gram's string escapes; an unknown escape keeps its backslash (the text is taken as written)."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _fenced(text: str) -> tuple[str | None, str]:
    """Split a fenced string into (tag, content); content starts after the first newline, ends before the fence."""
    newline = text.index("\n")
    tag = text[3:newline].strip() or None
    content = text[newline + 1 : -3]
    if content.endswith(
        "\n"
    ):  # the line break before the closing fence belongs to the fence
        content = content[:-1]
        if content.endswith("\r"):
            content = content[:-1]
    return tag, content


def _s(tok: Token) -> int:
    """A token's start offset (lark types it Optional; our lexer always sets it)."""
    return tok.start_pos or 0


def _e(tok: Token) -> int:
    return tok.end_pos or 0


def _scalar(tok: Token) -> Value:
    kind = tok.type
    text = str(tok)
    start, end = _s(tok), _e(tok)
    if kind in _NUMBERS:
        return Value(kind.lower(), _number(tok), start, end, text)
    if kind == "MEASUREMENT":
        return Value("measurement", text, start, end, text)
    if kind in ("DQ_STRING", "SQ_STRING", "BACKTICK"):
        return Value("string", unescape(text[1:-1]), start, end, text)
    if kind == "FENCED":
        tag, content = _fenced(text)
        return Value("tagged" if tag else "string", content, start, end, text, tag)
    if kind == "TAGGED":
        tag, _, rest = text.partition("`")
        return Value("tagged", unescape(rest[:-1]), start, end, text, tag)
    if text in (
        "true",
        "false",
    ):  # lowercase only; `True` stays a symbol, as in the reference grammar
        return Value("boolean", text == "true", start, end, text)
    return Value("symbol", text, start, end, text)


_NUMBERS = {"INTEGER": 10, "DECIMAL": 0, "HEXADECIMAL": 16, "OCTAL": 8}


def _number(tok: Token) -> int | float | Decimal:
    """A numeral's value (a decimal one a float cannot hold read exactly: json/parse.py's `read_float`); one
    too long for Python to print is an error here."""
    text = str(tok)
    base = _NUMBERS[tok.type]
    if len(text) <= MAX_INT_DIGITS:
        if base == 0:
            return read_float(text)
        integer = int(text, base)
        if abs(integer) < 10**MAX_INT_DIGITS:
            return integer
    raise GramSyntaxError(
        f"the number is too large (more than {MAX_INT_DIGITS} digits)",
        _s(tok),
        _s(tok) + 1,
        code="too-large",
    )


_NAME_KINDS = {
    "SYMBOL": "symbol",
    "BACKTICK": "quoted_name",
    "DQ_STRING": "double_quoted_name",
    "INTEGER": "integer",
}


def _name(tok: Token) -> Name:
    text = str(tok)
    if tok.type in ("BACKTICK", "DQ_STRING"):
        text = unescape(text[1:-1])
    return Name(text, _NAME_KINDS[tok.type], _s(tok), _e(tok))


_FAMILIES = {
    "-": "single",
    "<-": "single",
    "=": "double",
    "<=": "double",
    "~": "squiggle",
    "<~": "squiggle",
}


def _nodes(children: list[Any]) -> list[Any]:
    """The children that are syntax-tree nodes (punctuation tokens dropped)."""
    return [c for c in children if not isinstance(c, Token)]


class _Builder(Transformer):  # type: ignore[type-arg]
    """Builds the syntax tree while the LALR parser reduces (inlined: no lark tree, no recursion)."""

    def start(self, children: list[Any]) -> Document:
        header = children[0] if children and isinstance(children[0], Record) else None
        return Document(header, [c for c in children if isinstance(c, Pattern)])

    def pattern(self, children: list[Any]) -> Pattern:
        annotations = children[0] if isinstance(children[0], list) else []
        element = children[-1]
        start = annotations[0].start if annotations else element.start
        return Pattern(annotations, element, start, element.end)

    def annotations(self, children: list[Any]) -> list[Annotation]:
        return list(children)

    def identified_annotation(self, children: list[Any]) -> Annotation:
        identifier = next((c for c in children if isinstance(c, Name)), None)
        labels = next((c for c in children if isinstance(c, list)), [])
        end = labels[-1].end if labels else identifier.end  # type: ignore[union-attr]
        return Annotation(None, None, identifier, labels, _s(children[0]), end)

    def property_annotation(self, children: list[Any]) -> Annotation:
        at, key, _, value, close = children
        return Annotation(_name(key), value, None, [], _s(at), _e(close))

    def subject_pattern(self, children: list[Any]) -> SubjectPattern:
        subject = next((c for c in children if isinstance(c, Subject)), None)
        elements = next((c for c in children if isinstance(c, list)), [])
        return SubjectPattern(subject, elements, _s(children[0]), _e(children[-1]))

    def elements(self, children: list[Any]) -> list[Any]:
        return _nodes(children)

    def reference(self, children: list[Any]) -> Reference:
        return Reference(children[0])

    def path(self, children: list[Any]) -> Path:
        nodes = children[0::2]
        return Path(nodes, children[1::2], nodes[0].start, nodes[-1].end)

    def node(self, children: list[Any]) -> Node:
        subject = children[1] if len(children) == 3 else None
        return Node(subject, _s(children[0]), _e(children[-1]))

    def subject(self, children: list[Any]) -> Subject:
        identifier = next((c for c in children if isinstance(c, Name)), None)
        labels = next((c for c in children if isinstance(c, list)), [])
        record = next((c for c in children if isinstance(c, Record)), None)
        first, last = children[0], children[-1]
        start = first[0].start if isinstance(first, list) else first.start
        end = last[-1].end if isinstance(last, list) else last.end
        return Subject(identifier, labels, record, start, end)

    def identifier(self, children: list[Any]) -> Name:
        return _name(children[0])

    def labels(self, children: list[Any]) -> list[Label]:
        return list(children)

    def label(self, children: list[Any]) -> Label:
        binder, name = children
        return Label(_name(name), str(binder), _s(binder), _e(name))

    def _arrow(self, direction: str, children: list[Any]) -> Arrow:
        subject = children[1] if len(children) == 3 else None
        return Arrow(
            direction,
            _FAMILIES[str(children[0])],
            subject,
            _s(children[0]),
            _e(children[-1]),
        )

    def undirected(self, children: list[Any]) -> Arrow:
        return self._arrow("undirected", children)

    def right(self, children: list[Any]) -> Arrow:
        return self._arrow("right", children)

    def left(self, children: list[Any]) -> Arrow:
        return self._arrow("left", children)

    def bidirectional(self, children: list[Any]) -> Arrow:
        return self._arrow("bidirectional", children)

    def arrow_subject(self, children: list[Any]) -> Subject:
        return children[1]  # type: ignore[no-any-return]

    def record(self, children: list[Any]) -> Record:
        return Record(_nodes(children), _s(children[0]), _e(children[-1]))

    def entry(self, children: list[Any]) -> Entry:
        key, binder, value = children
        return Entry(key, value, str(binder))

    def key(self, children: list[Any]) -> Name:
        return _name(children[0])

    def scalar(self, children: list[Any]) -> Value:
        return _scalar(children[0])

    number = scalar

    def range(self, children: list[Any]) -> Value:
        lower = children[0] if isinstance(children[0], Value) else None
        upper = children[-1] if isinstance(children[-1], Value) else None
        start = children[0].start if lower else _s(children[0])
        end = children[-1].end if upper else _e(children[-1])
        text = "".join(c.text if isinstance(c, Value) else str(c) for c in children)
        return Value("range", (lower, upper), start, end, text)

    def array(self, children: list[Any]) -> Value:
        return Value("array", _nodes(children), _s(children[0]), _e(children[-1]))

    def map(self, children: list[Any]) -> Value:
        return Value("map", _nodes(children), _s(children[0]), _e(children[-1]))


# ── The parser, built once ───────────────────────────────────────────────────────────────────────────────────────

_lock = threading.Lock()
_parser: Lark | None = None


def parser() -> Lark:
    """The gram parser (LALR, contextual lexer, tree built inline); built on first use, then shared."""
    global _parser
    if _parser is None:
        with _lock:
            if _parser is None:
                _parser = Lark(
                    grammar_text("gram.lark"),
                    parser="lalr",
                    lexer="contextual",
                    transformer=_Builder(),
                    maybe_placeholders=False,
                )
    return _parser


_OPENERS = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
_CLOSERS = {"RPAR", "RSQB", "RBRACE"}


def parse_gram(text: str, *, reference: bool = False) -> Document:
    """Parse gram text. `reference=True` also enforces the reference grammar's value rules (no nested or empty
    arrays, no nested maps), which our dialect relaxes. Raises `GramSyntaxError`."""
    ip: Any = parser().parse_interactive(
        text
    )  # lark leaves the interactive API untyped
    opened: list[Token] = []  # brackets open at the current token, innermost last
    last: Token | None = None
    try:
        for tok in ip.lexer_thread.lex(ip.parser_state):
            ip.feed_token(tok)
            _track(tok, opened)
            last = tok
        document: Document = ip.feed_eof(last)
    except UnexpectedInput as error:
        raise _syntax_error(error, text, opened, last, ip) from None
    if reference:
        _check_reference_values(document)
    return document


def _track(tok: Token, opened: list[Token]) -> None:
    """Keep the stack of open brackets; refuse input nested deeper than MAX_DEPTH."""
    if tok.type in _OPENERS:
        opened.append(tok)
        if len(opened) > MAX_DEPTH:
            raise GramSyntaxError(
                f"nesting deeper than {MAX_DEPTH} levels of brackets", _s(tok), _e(tok)
            ) from None
    elif tok.type in _CLOSERS and opened:
        opened.pop()


# ── Reference-grammar value rules (strict mode) ──────────────────────────────────────────────────────────────────


def _check_reference_values(document: Document) -> None:
    for value in _record_values(document):
        _check_reference_value(value)


def _record_values(document: Document) -> Iterator[Value]:
    """Every value that sits directly in a record or annotation of the document."""
    records: list[Record] = [document.header] if document.header else []
    subjects: list[Subject | None] = []
    stack: list[Any] = [p for p in document.patterns]
    while stack:
        item = stack.pop()
        if isinstance(item, Pattern):
            stack.append(item.element)
            for annotation in item.annotations:
                if annotation.value is not None:
                    yield annotation.value
        elif isinstance(item, SubjectPattern):
            subjects.append(item.subject)
            stack.extend(item.elements)
        elif isinstance(item, Path):
            subjects.extend(node.subject for node in item.nodes)
            subjects.extend(arrow.subject for arrow in item.arrows)
    records.extend(s.record for s in subjects if s is not None and s.record is not None)
    for record in records:
        yield from (entry.value for entry in record.entries)


def _check_reference_value(value: Value) -> None:
    if value.kind == "array":
        if not value.data:
            raise GramSyntaxError(
                "an empty array '[]' is not a value in the reference grammar",
                value.start,
                value.end,
            )
        for item in value.data:
            if item.kind in ("array", "map"):
                raise GramSyntaxError(
                    f"an array holds only scalars in the reference grammar, not a {item.kind}",
                    item.start,
                    item.end,
                )
    elif value.kind == "map":
        for entry in value.data:
            if entry.value.kind in ("array", "map"):
                raise GramSyntaxError(
                    (
                        f"a map holds only scalars in the reference grammar, not an {entry.value.kind}"
                        if entry.value.kind == "array"
                        else "a map holds only scalars in the reference grammar, not a nested map"
                    ),
                    entry.value.start,
                    entry.value.end,
                )


# ── Syntax errors in words ───────────────────────────────────────────────────────────────────────────────────────

_VALUE_START = {
    "INTEGER",
    "DECIMAL",
    "HEXADECIMAL",
    "OCTAL",
    "MEASUREMENT",
    "DQ_STRING",
    "SQ_STRING",
    "BACKTICK",
    "FENCED",
    "TAGGED",
    "SYMBOL",
    "DOTS",
    "LSQB",
    "LBRACE",
}
_ARROW_OPEN = {"DASH", "LT_DASH", "EQ", "LT_EQ", "TILDE", "LT_TILDE"}
_ARROW_CLOSE = {
    "DASH": "'-'",
    "DASH_GT": "'->'",
    "EQ": "'='",
    "EQ_GT": "'=>'",
    "TILDE": "'~'",
    "TILDE_GT": "'~>'",
}
_WORDS = {
    "LPAR": "a node '(…)'",
    "RPAR": "a closing ')'",
    "LSQB": "a subject pattern '[…]'",
    "RSQB": "a closing ']'",
    "LBRACE": "a record '{…}'",
    "RBRACE": "a closing '}'",
    "COMMA": "','",
    "VBAR": "'|' before the elements",
    "AT": "an annotation '@key(value)'",
    "ATAT": "'@@'",
    "DOTDOT": "'..'",
    "DOTS": "'...'",
    "SYMBOL": "a name",
    "BACKTICK": "a `quoted name`",
    "INTEGER": "an integer",
    "$END": "the end of the file",
}
_CLOSING_CHAR = {"RPAR": ")", "RSQB": "]", "RBRACE": "}"}


def describe_expected(expected: set[str]) -> list[str]:
    """Lark's expected terminals as phrases a person reads, most important first."""
    left = set(expected)
    words: list[str] = []
    if "INTEGER" in left and "DQ_STRING" in left:  # a value can start here
        words.append("a value")
        left -= _VALUE_START
    elif "DQ_STRING" in left:  # a record or map key
        words.append("a key")
        left -= {"SYMBOL", "BACKTICK", "DQ_STRING"}
    elif {"SYMBOL", "INTEGER"} <= left:  # an identifier (nodes, subjects, references)
        words.append("an identifier")
        left -= {"SYMBOL", "BACKTICK", "INTEGER"}
    elif {"SYMBOL", "BACKTICK"} == left & {
        "SYMBOL",
        "BACKTICK",
    } and "COLON" not in left:
        words.append("a name")
        left -= {"SYMBOL", "BACKTICK"}
    elif {"INTEGER", "DECIMAL"} <= left:  # the other end of a range
        words.append("a number")
        left -= {"INTEGER", "DECIMAL", "HEXADECIMAL", "OCTAL", "MEASUREMENT"}
    if left & {"COLON", "DCOLON"}:
        only = not (left - {"COLON", "DCOLON"}) and not words
        words.append(
            "':' between the key and its value" if only else "a label ':Label'"
        )
        left -= {"COLON", "DCOLON"}
    # Inside an arrow ('=' read, or '=[r]' read) the same '=' finishes it; only there can '=>' follow.
    inside_arrow = bool(left & {"DASH_GT", "EQ_GT", "TILDE_GT"})
    if inside_arrow:
        closes = sorted(_ARROW_CLOSE[t] for t in left & set(_ARROW_CLOSE))
        words.append(" or ".join(closes) + " to finish the arrow")
        left -= set(_ARROW_CLOSE)
        if "LSQB" in left:
            words.append("a relationship subject '[r:TYPE]'")
            left.discard("LSQB")
    elif left & _ARROW_OPEN:
        words.append("an arrow such as '-->' or '==>'")
        left -= _ARROW_OPEN
    order = [
        "LPAR",
        "LSQB",
        "LBRACE",
        "AT",
        "ATAT",
        "VBAR",
        "COMMA",
        "DOTDOT",
        "DOTS",
        "RPAR",
        "RSQB",
        "RBRACE",
    ]
    words.extend(_WORDS[t] for t in order if t in left)
    left -= set(order)
    words.extend(_WORDS.get(t, t.lower()) for t in sorted(left))
    return words


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _found(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the file"
    text = str(tok)
    return repr(text if len(text) <= 30 else text[:27] + "...")


def _syntax_error(
    error: UnexpectedInput, text: str, opened: list[Token], last: Token | None, ip: Any
) -> GramSyntaxError:
    if isinstance(error, GramSyntaxError):
        return error
    if isinstance(error, UnexpectedCharacters):
        return _bad_character(error, text, opened, _expected(ip, error.allowed))
    assert isinstance(error, UnexpectedToken)
    return _unexpected_token(
        error.token, _expected(ip, error.expected), text, opened, last
    )


def _expected(ip: Any, fallback: Any) -> set[str]:
    """What the parser accepts here. Lark's own list comes from an LALR state shared by several rules (after
    `-[r]` it lists every family's closing marks); replaying each terminal gives the exact set.
    """
    try:
        return set(ip.accepts()) or set(fallback or ())
    except UnexpectedInput:  # the state may not replay; lark's own list is still right
        return set(fallback or ())


def _unexpected_token(
    tok: Token, expected: set[str], text: str, opened: list[Token], last: Token | None
) -> GramSyntaxError:
    if (
        tok.type == "$END"
    ):  # point just after the last token, not at trailing comments or blank lines
        start = _e(last) if last is not None else 0
        end = start + 1
    else:
        start, end = _s(tok), _s(tok) + max(1, len(str(tok)))
    message = f"expected {_join(describe_expected(expected))}, found {_found(tok)}"
    notes: list[tuple[str, int]] = []
    hint = _hint(tok, expected, last)
    if hint:
        message += f" ({hint})"
    # Point back at the open bracket when the file ends, or another bracket closes, before it is closed.
    if (
        opened
        and (tok.type == "$END" or tok.type in _CLOSERS)
        and _OPENERS[opened[-1].type] in expected
    ):
        opener = opened[-1]
        notes.append((f"the '{opener}' opened here is not closed", _s(opener)))
    return GramSyntaxError(message, start, end, tuple(notes))


def _hint(tok: Token, expected: set[str], last: Token | None) -> str:
    """A plain-words explanation for the mistakes people actually make."""
    if tok.type == "COMMA" and "$END" in expected:
        return "top-level patterns are separated by whitespace; a list of elements goes inside '[ … | a, b ]'"
    if (
        tok.type in ("RBRACE", "RSQB", "RPAR")
        and last is not None
        and last.type == "COMMA"
    ):
        return "a trailing ',' is not allowed"
    if (
        tok.type == "LSQB"
        and last is not None
        and last.type in ("DASH", "EQ", "TILDE")
        and "LPAR" in expected
    ):
        return "an arrow carries its subject inside one pair of marks, e.g. '-[r]->' or '=[r]=>'"
    if tok.type in ("AT", "ATAT") and "$END" not in expected:
        return "annotations may only stand before a top-level pattern"
    if tok.type == "COMMA" and expected <= {"COLON", "DCOLON"}:
        return "each record entry is 'key: value'"
    return ""


def _bad_character(
    error: UnexpectedCharacters, text: str, opened: list[Token], expected: set[str]
) -> GramSyntaxError:
    pos = error.pos_in_stream or 0
    char = text[pos] if pos < len(text) else ""
    if char == "`" and text[max(0, pos - 2) : pos + 1] == "```":
        return GramSyntaxError(
            "unterminated fenced string: no closing ``` before the end",
            pos - 2,
            pos + 1,
        )
    if char in "\"'`":
        return GramSyntaxError(
            f"unterminated string: a {char}-quoted string must close on the same line (use ``` fences for "
            "text over several lines)",
            pos,
            pos + 1,
        )
    words = describe_expected(expected)
    message = f"unexpected character {char!r}"
    if words:
        message += f"; expected {_join(words)}"
    notes: tuple[tuple[str, int], ...] = ()
    if opened and char in ")]}" and char != _CLOSING_CHAR[_OPENERS[opened[-1].type]]:
        notes = ((f"the '{opened[-1]}' opened here is not closed", _s(opened[-1])),)
    return GramSyntaxError(message, pos, pos + 1, notes)
