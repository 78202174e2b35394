"""Laying out one generated statement: the common shapes without building a Line, the rest by black's algorithm.

`statement(text, depth)` returns the physical lines black prints for a logical line, like
`layout.split_statement` (the port of black's linegen), which is its oracle: most statements fit on their
line, and most of those that do not are a model field (`NAME: Annotated[...] = ...`) or the module's
`TOOL_SPECS` tuple, which split in a few ways that can be told from the text. For those, following black's
algorithm through the shape (the comments say how) gives the lines directly; anything else, or any doubt
(a line that would need splitting again, a trailing comma the layout would add), goes to `split_statement`.
tests/test_layout_shortcut.py holds every shortcut against `split_statement` on drawn lines of its shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from .._width import str_width
from ..literals import LINE_LENGTH
from .layout import (
    CLOSING,
    KEYWORDS,
    MAYBE_MAGIC,
    OPENING,
    TOKEN,
    Leaf,
    Line,
    commas_added,
    split_statement,
    tokenize,
    transform,
)


def statement(text: str, depth: int = 0, comment: str = "") -> str:
    """The physical lines black prints for the logical line `text` at block `depth` (4 spaces each), with an
    optional trailing `comment` (black counts it in the width, and keeps it after the last line).
    """
    indent = "    " * depth
    width = str_width(text) + len(indent) + str_width(comment)
    if width <= LINE_LENGTH and not MAYBE_MAGIC.search(text):
        # nothing to split, no magic trailing comma: the common case
        return indent + text + comment
    return _split(text, depth, comment, width)


# A package repeats its statements (a field of the same type and constraints under the same name, in model after
# model): of 3,170 statements to split in bench/run.py's 1,000 tools, 1,696 differ, and splitting is the costly part
# of laying out a module. The cache is bounded, and a statement's layout depends on its text alone.
@lru_cache(maxsize=4096)
def _split(text: str, depth: int, comment: str, width: int) -> str:
    if not comment:
        shortcut = (
            (annotated_assignment(text, depth) if width > LINE_LENGTH else None)
            or exploded_tuple(text, depth)
            or exploded_class(text, depth)
        )
        if shortcut is not None:
            return "\n".join(shortcut)
    return split_statement(text, depth, comment)


# -- a shortcut for the statement the model templates print most ----------------------------------------------
#
# `NAME: Dotted[...] = VALUE` (a model field), VALUE one token or a call `Dotted(...)`, too wide for its line and
# without a magic trailing comma. Following `transform` through rhs for this shape (see the comments), black
# splits it in one of four ways, each final when all three of its lines fit; the shortcut says which without
# building a Line. When a line would not fit, it gives up (None) and `statement` runs the whole algorithm
# (split_statement).
# tests/test_layout_shortcut.py holds the shortcut against that algorithm.

_NOT_A_NAME = KEYWORDS | {"def", "from", "class", "None", "True", "False"}


def annotated_assignment(text: str, depth: int) -> list[str] | None:
    """The lines `transform` gives `text` (of the shape above) at `depth`, or None when it is not that shape
    or a line would need splitting again."""
    if str_width(text) + 4 * depth <= LINE_LENGTH or MAYBE_MAGIC.search(text):
        return None  # transform would not split it, or a magic trailing comma changes the split
    tokens = TOKEN.findall(text)
    count = len(tokens)
    # NAME ":" Dotted "[" ... "]" "=" VALUE, black-spaced: the shortest such line has 8 tokens
    if count < 8 or tokens[1] != ("", "", "", "", "", ":"):
        return None
    if not _plain_name(tokens[0], "") or sum(map(_token_length, tokens)) != len(text):
        return None
    opening = _dotted(tokens, 2, " ", "[")
    if opening is None:
        return None
    closing = _matching(tokens, opening)
    if closing is None or closing + 3 > count or closing == opening + 1:
        return None
    if (
        tokens[opening + 1][0]
        or tokens[closing][0]
        or tokens[closing + 1] != (" ", "", "", "", "", "=")
    ):
        return None
    value = closing + 2
    call = None
    if value + 1 < count:  # a call: Dotted "(" ... ")" ending the line
        call = _dotted(tokens, value, " ", "(")
        if call is None or _matching(tokens, call) != count - 1 or call + 2 == count:
            return None
        if tokens[call + 1][0] or tokens[-1][0]:
            return None
    elif tokens[value][0] != " " or not (
        tokens[value][1] or tokens[value][2] or tokens[value][4]
    ):
        return None  # one string, number or name (not `...`, not an operator)
    elif tokens[value][4] and tokens[value][4] in KEYWORDS:
        return None
    indent = "    " * depth
    inner = indent + "    "
    ends = list(_ends(tokens))
    # str() of the head up to `= ` (the trailing space is the prefix of the value's invisible parenthesis)
    assigned = indent + text[: ends[value - 1] + 1]
    if call is not None:
        # rhs splits at the value's invisible parentheses, and black prefers omitting them (splitting at the
        # call's own) when the head `NAME: ANN = F(` then fits; the head up to `= ` fits in any case, or rhs
        # would look further.
        head = indent + text[: ends[call]]
        if _fits(head):
            return _all_fit([head, inner + text[ends[call] : -1], indent + ")"])
        if str_width(assigned) <= LINE_LENGTH - 1:
            return _all_fit(
                [assigned + "(", inner + text[ends[value - 1] + 1 :], indent + ")"]
            )
        # The head does not fit: rhs's next attempt omits the call (generate_trailers_to_omit, which
        # counts characters, offers it when ` = F(...)` fits), and splits at the annotation's `[`.
        if 4 * depth + len(text) - ends[closing] > LINE_LENGTH:
            return None
        return _at_subscript(text, indent, ends, opening, closing)
    # One token: omitting the value's parentheses is preferred only when the head up to `= ` does not fit
    # (_prefer_oop), and then the annotation's are omitted too, the split is at its `[`.
    if str_width(assigned) > LINE_LENGTH - 1:
        return _at_subscript(text, indent, ends, opening, closing)
    return _all_fit([assigned + "(", inner + text[ends[value - 1] + 1 :], indent + ")"])


def _at_subscript(
    text: str, indent: str, ends: list[int], opening: int, closing: int
) -> list[str] | None:
    """`NAME: Dotted[` / the subscript / `] = VALUE`."""
    return _all_fit(
        [
            indent + text[: ends[opening]],
            indent + "    " + text[ends[opening] : ends[closing - 1]],
            indent + text[ends[closing - 1] :],
        ]
    )


# -- a shortcut for a tuple with a magic trailing comma (TOOL_SPECS) ------------------------------------------
#
# `NAME: ANN = (E1, ..., En,)` with n >= 2: the magic comma leaves rhs no trailer to omit, so it splits at the
# value's invisible parentheses, prefers omitting them (its head `NAME: ANN = (` fits), and yields that head, the
# elements (a body that must split: delimiter_split cuts it at its commas) and `)`. The shortcut builds only the
# element lines, as delimiter_split would, and lays out each with `transform`: the lines built and thrown away
# for the whole statement (three times every leaf) are skipped. Any comma an element's layout adds means black's
# second pass, which the shortcut leaves to `split_statement`. With n = 1 (a spec file of one tool) the comma is
# the one-tuple's, not magic, but an element that is a call with a magic comma splits the line the same way;
# any other lone element goes to `split_statement`.


def exploded_tuple(text: str, depth: int) -> list[str] | None:
    """The lines `transform` gives `text` (of the shape above) at `depth`, or None when it is not that shape or
    its head would need splitting."""
    if not text.endswith(",)") or ": " not in text:
        return None
    calls = _exploded_calls(text, depth)
    if calls is not None:
        return calls
    leaves = tokenize(text)
    if len(leaves) < 10 or leaves[1].kind != ":" or leaves[0].kind != "name":
        return None
    if leaves[0].value in _NOT_A_NAME or not _invisible(leaves[2], "("):
        return None
    annotation_end = _matching_leaf(leaves, 2)  # the annotation's invisible `)`
    if annotation_end is None or not _invisible(leaves[annotation_end], ")"):
        return None
    equal = annotation_end + 1
    opening = equal + 2  # the tuple's `(`, after the value's invisible one
    if (
        opening >= len(leaves)
        or leaves[equal].kind != "="
        or not _invisible(leaves[equal + 1], "(")
        or leaves[opening].kind != "("
        or not leaves[opening].value
        or _matching_leaf(leaves, opening) != len(leaves) - 2
        or not _invisible(leaves[-1], ")")
        or leaves[-3].kind != ","
    ):
        return None
    annotation = leaves[3:annotation_end]
    if any(leaf.value == "lambda" for leaf in annotation) or any(
        a.kind == "," and b.kind in CLOSING for a, b in zip(annotation, annotation[1:])
    ):
        return None  # a lambda changes tracking; a magic comma would be the head's
    elements = _top_level_elements(leaves[opening + 1 : -2])
    if elements is None or not elements:
        return None
    # One element: its comma is the one-tuple's, not magic; the element's own magic comma splits it alike.
    one = len(elements) == 1
    indent = "    " * depth
    head = indent + _source(leaves[: opening + 1])
    if not _fits(head):
        return None
    added = commas_added()
    lines = [head]
    for element in elements:
        element[0].prefix = ""
        call = _exploded_call(element, depth + 1)
        if call is None and one:
            return None
        lines.extend(call if call is not None else _transformed(element, depth + 1))
    if commas_added() != added:
        return None
    closing = leaves[-2]
    lines.append(closing.prefix + indent + closing.value)
    return lines


# -- a shortcut for a class statement: the package's `Tools`, and every model's ---------------------------------
#
# `class NAME(E1, ..., En):`, each element a dotted name or a keyword `name="text"` (a string without escapes or
# quotes), split by rhs at its parentheses into `class NAME(`, a body and `):`. With a magic trailing comma
# (`Tools`, n >= 2 bases) the body must split: one element per line, by delimiter_split. Without one (a model:
# `class X(_models.NativeModel, schema="...", extra="forbid"):`) black only splits a line too wide for its
# column: the body stays one line where that fits, else delimiter_split puts an element per line and adds the
# trailing comma. An element is a line nothing splits; when one would not fit, the shortcut gives up. The
# package `__init__` has one base per spec file, which black's whole algorithm took a tenth of a second to lay
# out for 10,000; a module has one model class per object schema (758 statements for bench/run.py's 1,000 tools,
# a fifth of a millisecond each).

_CLASS = re.compile(r"class ([^\W\d]\w*)\((.+?)(,?)\):")
_CLASS_ELEMENT = re.compile(
    r'(?:[^\W\d]\w*(?:\.[^\W\d]\w*)*|[^\W\d]\w*="[^"\\\n]*")(?:, |$)'
)


def exploded_class(text: str, depth: int) -> list[str] | None:
    """The lines `transform` gives `text` (of the shape above) at `depth`, or None when it is not that shape or
    a line would not fit."""
    if not text.startswith("class "):
        return None
    match = _CLASS.fullmatch(text)
    if match is None or match.group(1) in _NOT_A_NAME:
        return None
    elements = _class_elements(match.group(2))
    magic = match.group(3) == ","
    if elements is None or (magic and len(elements) < 2):
        return None
    indent = "    " * depth
    if not magic:
        if _fits(indent + text):
            return None  # (black leaves it as it is; `statement` came here for a comma in a string)
        body = f"{indent}    {match.group(2)}"
        if _fits(body):
            return [f"{indent}class {match.group(1)}(", body, f"{indent}):"]
    lines = [f"{indent}class {match.group(1)}("]
    lines += [f"{indent}    {element}," for element in elements]
    lines.append(f"{indent}):")
    return _all_fit(lines)


def _class_elements(text: str) -> list[str] | None:
    """The elements of a class statement's parentheses, or None unless each is a dotted name (not a keyword)
    or a plain keyword argument."""
    elements: list[str] = []
    position = 0
    while position < len(text):
        found = _CLASS_ELEMENT.match(text, position)
        if found is None:
            return None
        element = found.group().removesuffix(", ")
        name = element.partition("=")[0]
        if _NOT_A_NAME.intersection(name.split(".")):
            return None
        elements.append(element)
        position = found.end()
    return elements if text and not text.endswith(", ") else None


# The commonest case, TOOL_SPECS: a tuple of calls `Dotted(a1, ..., ak,)` (k >= 2) or `Dotted(a1, ..., ak)`
# (`_unexploded_call`) whose every argument fits on its line as it is. `_exploded_call` then keeps each
# argument as it is, and the lines follow from where the commas are: found from TOKEN's matches (strings are
# one match), without a Line of leaves (most of the time the layout of a module of one tool took; 1.5 ms a
# module of ten tools).
_CALLS_HEAD = re.compile(r"[A-Z_][A-Z0-9_]*: tuple\[[^\W\d][\w.]*, \.\.\.\] = \(")
_COMMA: Token = ("", "", "", "", "", ",")


def _exploded_calls(text: str, depth: int) -> list[str] | None:
    """`exploded_tuple`'s lines for such a tuple; None for anything else (which it lays out from leaves)."""
    head = _CALLS_HEAD.match(text)
    if head is None:
        return None
    body = text[head.end() : -1]  # the elements, each with its comma
    tokens = TOKEN.findall(body)
    if sum(map(_token_length, tokens)) != len(body) or not tokens:
        return None
    elements = _split_at_commas(tokens)
    if elements is None:
        return None
    indent = "    " * depth
    inner, argument_indent = indent + "    ", indent + "        "
    lines = [indent + text[: head.end()]]
    for index, element in enumerate(elements):
        if index and element[0][0] != " ":
            return None
        opening = 1
        while opening + 1 < len(element) and element[opening][5] == ".":
            if element[opening][0] or not _plain_name(element[opening + 1], ""):
                return None
            opening += 2
        if (
            not _plain_name(element[0], " " if index else "")
            or opening + 2 >= len(element)
            or element[opening] != ("", "", "", "", "", "(")
            or element[-1] != ("", "", "", "", "", ")")
            or _matching(element, opening) != len(element) - 1
        ):
            return None
        inside = element[opening + 1 : -1]
        magic = inside[-1] == _COMMA
        arguments = _split_at_commas(inside if magic else [*inside, _COMMA])
        if arguments is None:
            return None
        call = "".join("".join(token) for token in element[: opening + 1]).lstrip(" ")
        if not magic:
            # (a one-tuple's comma is not magic: the line may stay whole)
            if len(elements) == 1 or not _plain_arguments(inside, arguments):
                return None
            unsplit = _unexploded_call(call, inside, inner)
            if unsplit is not None:
                lines.extend(unsplit)
                continue
        if len(arguments) < 2:
            return None
        lines.append(inner + call)
        for argument in arguments:
            line = argument_indent + "".join("".join(t) for t in argument).lstrip(" ")
            if not _fits(line + ",") or MAYBE_MAGIC.search(line):
                return None  # `transform` lays it out (exploded_tuple, from leaves)
            lines.append(line + ",")
        lines.append(inner + "),")
    lines.append(indent + ")")
    return _all_fit(lines)


def _plain_arguments(inside: list[Token], arguments: list[list[Token]]) -> bool:
    """Whether a call without a magic comma of its own is laid out as `_exploded_calls` assumes: no magic comma
    inside (MAYBE_MAGIC also matches one in a string, which only costs the shortcut), and no unpacked argument
    (whether black adds a comma after one depends on the target versions it infers)."""
    return not MAYBE_MAGIC.search("".join("".join(t) for t in inside)) and all(
        argument[0][5] not in ("*", "**") for argument in arguments
    )


def _unexploded_call(call: str, inside: list[Token], inner: str) -> list[str] | None:
    """An element `Dotted(a1, ..., ak),` without a magic comma as it stays where it fits, or as rhs splits it
    at its parentheses with the arguments on one line where they fit; None when they do not (delimiter_split
    then puts one per line and adds the trailing comma, as for a magic comma)."""
    arguments = "".join("".join(token) for token in inside).lstrip(" ")
    whole = f"{inner}{call}{arguments}),"
    if _fits(whole):
        return [whole]
    body = f"{inner}    {arguments}"
    return [inner + call, body, inner + "),"] if _fits(body) else None


def _split_at_commas(tokens: list[Token]) -> list[list[Token]] | None:
    """`tokens`, each part ending with a comma outside brackets, cut after those commas (the commas dropped);
    None when a part does not end so, or a `lambda` or `for` (which change what a comma is) is anywhere.
    """
    parts: list[list[Token]] = []
    current: list[Token] = []
    level = 0
    for token in tokens:
        op = token[5]
        if op in OPENING:
            level += 1
        elif op in CLOSING:
            level -= 1
        elif token[4] in ("lambda", "for"):
            return None
        elif op == "," and level == 0:
            if not current:
                return None
            parts.append(current)
            current = []
            continue
        current.append(token)
    return None if current or level else parts


def _transformed(leaves: list[Leaf], depth: int) -> list[str]:
    """The lines of `leaves` as one line inside brackets, as delimiter_split yields it and transform lays it
    out."""
    line = Line(depth, inside_brackets=True)
    line.extend(leaves)
    return [str(out) for out in transform(line)]


def _exploded_call(element: list[Leaf], depth: int) -> list[str] | None:
    """An element `Dotted(a1, ..., ak,),` (k >= 2, a magic trailing comma) as transform lays it out: no
    delimiter of its own but its comma, and no trailer rhs may omit, so rhs splits it at its parentheses into
    `Dotted(`, the arguments (a body that must split: one per line, by delimiter_split) and `),`. An argument
    that fits and has no magic comma stays as it is; any other is laid out by transform.
    """
    opening = 1
    while opening < len(element) and element[opening].kind == ".":
        opening += 2
    if (
        len(element) < 7
        or opening >= len(element)
        or element[opening].kind != "("
        or element[opening].atom
        or element[-1].kind != ","
        or element[-3].kind != ","
        or _matching_leaf(element, opening) != len(element) - 2
    ):
        return None
    names = element[0:opening:2]
    if any(leaf.kind != "name" or leaf.value in _NOT_A_NAME for leaf in names) or any(
        leaf.kind != "." for leaf in element[1:opening:2]
    ):
        return None
    arguments = _top_level_elements(element[opening + 1 : -2])
    if arguments is None or len(arguments) < 2:
        return None
    indent = "    " * depth
    head = indent + _source(element[: opening + 1])
    closing, comma = element[-2], element[-1]
    tail = closing.prefix + indent + closing.value + comma.prefix + comma.value
    if not (_fits(head) and _fits(tail)):
        return None
    lines = [head]
    inner = indent + "    "
    for argument in arguments:
        argument[0].prefix = ""
        text = inner + _source(argument)
        if _fits(text) and not MAYBE_MAGIC.search(text):
            lines.append(text)
        else:
            lines.extend(_transformed(argument, depth + 1))
    lines.append(tail)
    return lines


def _source(leaves: list[Leaf]) -> str:
    """The text of `leaves` after the indentation, as `str(Line)` prints it when the first has no prefix."""
    return "".join([leaf.prefix + leaf.value for leaf in leaves])


def _invisible(leaf: Leaf, kind: str) -> bool:
    return leaf.kind == kind and not leaf.value


def _matching_leaf(leaves: list[Leaf], opening: int) -> int | None:
    depth = 0
    for index in range(opening, len(leaves)):
        kind = leaves[index].kind
        if kind in OPENING:
            depth += 1
        elif kind in CLOSING:
            depth -= 1
            if depth == 0:
                return index
    return None


def _top_level_elements(leaves: list[Leaf]) -> list[list[Leaf]] | None:
    """`leaves` cut after each comma outside brackets (as delimiter_split cuts them, each with its comma); None
    when something else there would be a delimiter of a higher priority or hide a comma (`for`, `lambda`),
    or an element starts like a def or an import."""
    elements: list[list[Leaf]] = []
    current: list[Leaf] = []
    depth = 0
    for leaf in leaves:
        kind = leaf.kind
        if depth == 0 and kind == "name" and leaf.value in {"for", "lambda"}:
            return None
        current.append(leaf)
        if kind in OPENING:
            depth += 1
        elif kind in CLOSING:
            depth -= 1
        elif kind == "," and depth == 0:
            elements.append(current)
            current = []
    if current or any(e[0].value in {"def", "from"} for e in elements):
        return None
    return elements


Token = tuple[
    str, str, str, str, str, str
]  # TOKEN's groups: space, string, number, ellipsis, name, op


def _token_length(token: Token) -> int:
    return sum(map(len, token))


def _ends(tokens: list[Token]) -> Iterator[int]:
    end = 0
    for token in tokens:
        end += _token_length(token)
        yield end


def _plain_name(token: Token, space: str) -> bool:
    return token[0] == space and bool(token[4]) and token[4] not in _NOT_A_NAME


def _dotted(tokens: list[Token], start: int, space: str, bracket: str) -> int | None:
    """The index of `bracket` after a dotted name `a.b.c` starting at `start` (spaced by `space`)."""
    if start >= len(tokens) or not _plain_name(tokens[start], space):
        return None
    index = start + 1
    while index + 1 < len(tokens) and tokens[index] == ("", "", "", "", "", "."):
        if not _plain_name(tokens[index + 1], ""):
            return None
        index += 2
    if index < len(tokens) and tokens[index] == ("", "", "", "", "", bracket):
        return index
    return None


def _matching(tokens: list[Token], opening: int) -> int | None:
    """The index of the bracket closing `tokens[opening]`; None if brackets are mismatched or a lambda is
    inside (it changes bracket depths)."""
    expected: list[str] = []
    for index in range(opening, len(tokens)):
        op = tokens[index][5]
        if op in OPENING:
            expected.append(OPENING[op])
        elif op in CLOSING:
            if op != expected.pop():
                return None
            if not expected:
                return index
        elif tokens[index][4] == "lambda":
            return None
    return None


def _fits(line: str) -> bool:
    return str_width(line) <= LINE_LENGTH


def _all_fit(lines: list[str]) -> list[str] | None:
    return lines if all(map(_fits, lines)) else None
