"""Black's line splitting for the statements codegen generates, so that no formatter runs during a compile.

`split_statement(text, depth)` takes one logical line of Python, already spaced the way black spaces it, and
returns the physical lines black would print for it (`statements.statement` gets the same lines faster for the
shapes the templates print most, and uses this for the rest). It ports black's `linegen` (transform_line,
right_hand_split with omitted trailers and optional parentheses, left_hand_split for defs, delimiter_split,
the magic trailing comma and the "second opinion" with forced optional parentheses) for the subset of Python
the templates produce: names, strings, numbers, brackets, `,` `.` `:` `=` `->` `|` `*` `...`, unary `-`,
`lambda:`, `for`/`in` and `import`. No comments, no multi-line strings: spec text reaches code only through `py_literal`, which escapes
newlines. tests/test_layout.py holds the output against black itself.

Black's algorithm mutates its leaves (optional parentheses become visible, prefixes are reset); so does this
port, on purpose: which split black picks depends on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NoReturn

from .._width import str_width
from ..literals import LINE_LENGTH

COMMA_PRIORITY = 18
COMPREHENSION_PRIORITY = 20
STRING_PRIORITY = 12
VBAR_PRIORITY = 9
DOT_PRIORITY = 1

OPENING = {"(": ")", "[": "]", "{": "}"}
CLOSING = {")", "]", "}"}

TOKEN = re.compile(
    r"""(?P<space>[ ]*)(?:
    (?P<string>[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'))
    |(?P<number>(?:\d|\.\d)[\w.]*(?:(?<=[eE])[-+]\d+)?)
    |(?P<ellipsis>\.\.\.)
    |(?P<name>\w+)
    |(?P<op>->|[-+*/|&^~%@<>=!]=?|[()\[\]{},.:;])
    )""",
    re.VERBOSE,
)


MAYBE_MAGIC = re.compile(r",\s*[)\]}]")


class CannotSplit(Exception):
    pass


class Leaf:
    __slots__ = (
        "kind",
        "value",
        "prefix",
        "depth",
        "opening",
        "atom",
        "annotation",
        "vararg",
    )

    def __init__(self, kind: str, value: str, prefix: str = "") -> None:
        self.kind = kind  # "name", "string", "number", or the operator/bracket itself
        self.value = value  # "" for an invisible parenthesis
        self.prefix = prefix
        self.depth = (
            0  # black's bracket_depth: set by the last line that tracked the leaf
        )
        self.opening: Leaf | None = None  # a closing bracket's partner
        self.atom = False  # an opening bracket of a display or optional parens, not a call/subscript
        self.annotation = False  # part of a parameter's annotation (def lines)
        self.vararg = False  # a `*` marking keyword-only parameters

    def copy(self) -> Leaf:
        new = Leaf(self.kind, self.value, self.prefix)
        new.atom, new.annotation, new.vararg = self.atom, self.annotation, self.vararg
        return new

    def __str__(self) -> str:
        return self.prefix + self.value


class Line:
    __slots__ = (
        "depth",
        "leaves",
        "inside_brackets",
        "should_split_rhs",
        "magic_trailing_comma",
        "delimiters",
        "invisible",
        "_open",
        "_previous",
        "_lambda",
    )

    def __init__(self, depth: int, inside_brackets: bool = False) -> None:
        self.depth = depth
        self.leaves: list[Leaf] = []
        self.inside_brackets = inside_brackets
        self.should_split_rhs = False
        self.magic_trailing_comma: Leaf | None = None
        self.delimiters: dict[int, int] = {}  # id(leaf) -> priority
        self.invisible: list[Leaf] = []
        self._open: list[Leaf] = []
        self._previous: Leaf | None = None
        self._lambda: list[int] = []

    # -- building (black's Line.append with preformatted leaves, BracketTracker.mark) --

    def append(self, leaf: Leaf, track: bool = False) -> None:
        # black's BracketTracker.mark, inlined: this runs for every leaf of every line an attempted split builds
        leaves = self.leaves
        if self.inside_brackets or track:
            kind = leaf.kind
            opened = self._open
            if opened or kind not in CLOSING:
                if self._lambda and kind == ":" and self._lambda[-1] == len(opened):
                    self._lambda.pop()  # black counts lambda arguments one level deeper
                    opened.pop()
                if kind in CLOSING:
                    leaf.opening = opened.pop()
                    if not leaf.value:
                        self.invisible.append(leaf)
                leaf.depth = len(opened)
                if not opened:
                    previous = self._previous
                    priority = _split_before(leaf, previous) if kind in _BEFORE else 0
                    if priority and previous is not None:
                        self.delimiters[id(previous)] = priority
                    elif kind == ",":
                        self.delimiters[id(leaf)] = COMMA_PRIORITY
                if kind in OPENING:
                    opened.append(leaf)
                    if not leaf.value:
                        self.invisible.append(leaf)
                self._previous = leaf
                if kind == "name" and leaf.value == "lambda":
                    opened.append(leaf)  # a pseudo bracket until the lambda's colon
                    self._lambda.append(len(opened))
            if (
                kind in CLOSING
                and leaves
                and leaves[-1].kind == ","
                and self._is_magic_trailing_comma(leaf)
            ):
                self.magic_trailing_comma = leaf
        leaves.append(leaf)

    def extend(self, leaves: list[Leaf]) -> None:
        """`append(leaf, track=True)` for each leaf, in one loop: the hot path of every split attempted."""
        own = self.leaves
        opened = self._open
        lambdas = self._lambda
        delimiters = self.delimiters
        invisible = self.invisible
        previous = self._previous
        for leaf in leaves:
            kind = leaf.kind
            closing = kind in CLOSING
            if opened or not closing:
                if lambdas and kind == ":" and lambdas[-1] == len(opened):
                    lambdas.pop()
                    opened.pop()
                if closing:
                    leaf.opening = opened.pop()
                    if not leaf.value:
                        invisible.append(leaf)
                leaf.depth = len(opened)
                if not opened:
                    priority = _split_before(leaf, previous) if kind in _BEFORE else 0
                    if priority and previous is not None:
                        delimiters[id(previous)] = priority
                    elif kind == ",":
                        delimiters[id(leaf)] = COMMA_PRIORITY
                if kind in OPENING:
                    opened.append(leaf)
                    if not leaf.value:
                        invisible.append(leaf)
                previous = leaf
                if kind == "name" and leaf.value == "lambda":
                    opened.append(leaf)
                    lambdas.append(len(opened))
            if (
                closing
                and own
                and own[-1].kind == ","
                and self._is_magic_trailing_comma(leaf)
            ):
                self.magic_trailing_comma = leaf
            own.append(leaf)
        self._previous = previous

    def _is_magic_trailing_comma(self, closing: Leaf) -> bool:
        if (
            closing.kind not in CLOSING
            or not self.leaves
            or self.leaves[-1].kind != ","
        ):
            return False
        if closing.kind == "}":
            return True
        if closing.kind == "]":
            assert closing.opening is not None
            return closing.opening.atom or not _one_sequence(
                closing.opening, closing, self, "["
            )
        if self.is_import:
            return True
        assert closing.opening is not None
        return not _one_sequence(closing.opening, closing, self, "(")

    # -- properties --

    @property
    def is_import(self) -> bool:
        return bool(self.leaves) and self.leaves[0].value == "from"

    @property
    def is_def(self) -> bool:
        return bool(self.leaves) and self.leaves[0].value == "def"

    def __str__(self) -> str:
        if not self.leaves:
            return ""
        first = self.leaves[0]
        return (
            first.prefix
            + "    " * self.depth
            + first.value
            + "".join([leaf.prefix + leaf.value for leaf in self.leaves[1:]])
        )

    def __bool__(self) -> bool:
        return bool(self.leaves)

    def max_priority(self, exclude: Leaf | None = None) -> int:
        values = [
            p for i, p in self.delimiters.items() if exclude is None or i != id(exclude)
        ]
        if not values:
            raise ValueError
        return max(values)

    def count_priority(self, priority: int) -> int:
        return sum(1 for p in self.delimiters.values() if p == priority)

    def lengths(self, reverse: bool = False) -> Iterator[tuple[int, Leaf, int]]:
        indices = (
            range(len(self.leaves) - 1, -1, -1) if reverse else range(len(self.leaves))
        )
        for i in indices:
            leaf = self.leaves[i]
            yield i, leaf, len(leaf.prefix) + len(leaf.value)


_BEFORE = {
    ".",
    "|",
    "string",
    "name",
}  # the kinds a delimiter priority can be split before


def _split_before(leaf: Leaf, previous: Leaf | None) -> int:
    if leaf.kind == "." and (previous is None or previous.kind in CLOSING):
        return DOT_PRIORITY
    if leaf.kind == "|":
        return VBAR_PRIORITY
    if leaf.kind == "string" and previous is not None and previous.kind == "string":
        return STRING_PRIORITY
    if leaf.kind == "name" and leaf.value == "for":
        return COMPREHENSION_PRIORITY
    return 0


def _one_sequence(
    opening: Leaf, closing: Leaf, line: Line, kind: str, end: int | None = None
) -> bool:
    """black's is_one_sequence_between: a one-tuple (or one-element subscript) between the brackets.

    `closing` is `line.leaves[end]`, or about to be appended (no `end`). Its opening is found by walking back
    from it: no index of the leaves is kept, since only brackets closed after a comma are asked about.
    """
    if opening.kind != kind:
        return False
    leaves = line.leaves
    depth = closing.depth + 1
    # In an argument list, any comma makes more than one argument
    arguments = opening.kind == "(" and not opening.atom
    commas = 0
    for index in range(len(leaves) - 1 if end is None else end - 1, -1, -1):
        leaf = leaves[index]
        if leaf is opening:
            return commas < 2
        if leaf.depth == depth and leaf.kind == ",":
            commas += 2 if arguments else 1
    return False


def is_short(line: Line, text: str | None = None) -> bool:
    return str_width(str(line) if text is None else text) <= LINE_LENGTH


# -- tokenizing one logical line ------------------------------------------------------------------------------


def tokenize(text: str) -> list[Leaf]:
    """Leaves of `text` with black's prefixes, optional (invisible) parentheses where black adds them."""
    leaves: list[Leaf] = []
    covered = 0
    # One regex pass over the whole line; the tokens cover it only if it has nothing TOKEN cannot read
    for space, string, number, ellipsis, name, op in TOKEN.findall(text):
        if name:
            leaves.append(Leaf("name", name, space))
        elif op:
            leaves.append(Leaf(op, op, space))
        elif string:
            leaves.append(Leaf("string", string, space))
        elif number:
            leaves.append(Leaf("number", number, space))
        else:
            leaves.append(Leaf("name", ellipsis, space))
        covered += len(space) + len(leaves[-1].value)
    if covered != len(text):
        _unreadable(text)
    if leaves:
        leaves[0].prefix = ""
    _annotate(leaves)
    return _add_optional_parens(leaves)


def _unreadable(text: str) -> NoReturn:
    """Raise the error for the first part of `text` that no token matches."""
    position = 0
    while position < len(text):
        match = TOKEN.match(text, position)
        if match is None or match.end() == position:
            break
        position = match.end()
    raise ValueError(f"cannot lay out {text[position:position + 20]!r}")


def _annotate(leaves: list[Leaf]) -> None:
    """Mark what black reads off the syntax tree: displays versus calls, varargs, annotations."""
    previous: Leaf | None = None
    stack: list[Leaf] = []
    is_def = bool(leaves) and leaves[0].value == "def"
    in_annotation = False
    for leaf in leaves:
        if leaf.kind in OPENING:
            trailer = previous is not None and (
                previous.kind in CLOSING
                or previous.kind == "string"
                or (previous.kind == "name" and previous.value not in KEYWORDS)
            )
            leaf.atom = not trailer
            stack.append(leaf)
        elif leaf.kind in CLOSING and stack:
            stack.pop()
        if leaf.kind == "*" and (previous is None or previous.kind in {"(", ","}):
            leaf.vararg = True
        if is_def and len(stack) == 1 and stack[0] is not leaves[0]:
            if leaf.kind in {",", "="}:
                in_annotation = False
            elif leaf.kind == ":":
                in_annotation = True
        leaf.annotation = in_annotation and leaf.kind != ":"
        if is_def and leaf.kind == ")" and not stack:
            in_annotation = False
        previous = leaf


KEYWORDS = {
    "in",
    "return",
    "import",
    "lambda",
    "for",
    "if",
    "else",
    "and",
    "or",
    "not",
    "is",
}


def _add_optional_parens(leaves: list[Leaf]) -> list[Leaf]:
    """Black wraps parts of a statement in invisible parentheses (it may split at them, making them visible):
    the value after `=`, `return` or `import`, an assignment's annotation, a def's return annotation and the
    annotations of its parameters that are `|` unions."""
    if not leaves:
        return leaves
    first = leaves[0].value
    if first == "def":
        return _def_parens(leaves)
    if first == "from":
        index = next(i for i, leaf in enumerate(leaves) if leaf.value == "import")
        names = leaves[index + 1 :]
        if names[0].kind == "*":
            return leaves
        if names[0].kind == "(" and names[-1].kind == ")":  # even a tuple of names
            names[0].value = names[-1].value = ""
            names[0].atom = True
            return leaves
        return leaves[: index + 1] + _wrap(names)
    if first == "return":
        return leaves[:1] + _wrap(leaves[1:])
    top = [i for i, leaf in _top_indexed(leaves) if leaf.kind in {":", "="}]
    equal = next((i for i in top if leaves[i].kind == "="), None)
    colon = next((i for i in top if leaves[i].kind == ":"), None)
    if colon is not None and (equal is None or colon < equal):
        stop = len(leaves) if equal is None else equal
        value = _wrap(leaves[equal + 1 :]) if equal is not None else []
        middle = [leaves[equal]] if equal is not None else []
        return leaves[: colon + 1] + _wrap(leaves[colon + 1 : stop]) + middle + value
    if equal is not None:
        return leaves[: equal + 1] + _wrap(leaves[equal + 1 :])
    return leaves


def _def_parens(leaves: list[Leaf]) -> list[Leaf]:
    out: list[Leaf] = []
    depth = 0
    annotation: list[Leaf] | None = None
    for index, leaf in enumerate(leaves):
        if annotation is not None:
            if depth == 1 and leaf.kind in {",", "=", ")"}:
                unions = any(x.kind == "|" for _, x in _top_indexed(annotation))
                wrap = unions or _parenthesized(annotation)
                out.extend(_wrap(annotation) if wrap else annotation)
                annotation = None
            else:
                annotation.append(leaf)
                depth += leaf.kind in OPENING
                depth -= leaf.kind in CLOSING
                continue
        if leaf.kind == "->" and depth == 0:
            colon = max(
                i for i, x in _top_indexed(leaves) if x.kind == ":"
            )  # a stub's `...` may follow
            return out + [leaf] + _wrap(leaves[index + 1 : colon]) + leaves[colon:]
        out.append(leaf)
        if depth == 1 and leaf.kind == ":":
            annotation = []
        depth += leaf.kind in OPENING
        depth -= leaf.kind in CLOSING
    return out


def _wrap(rest: list[Leaf]) -> list[Leaf]:
    if not rest:
        return rest
    if _parenthesized(rest):  # black makes redundant parentheses the optional ones
        rest[0].value = rest[-1].value = ""
        rest[0].atom = True
        return rest
    opening, closing = Leaf("(", "", rest[0].prefix), Leaf(")", "")
    opening.atom = True
    rest[0].prefix = ""
    return [opening, *rest, closing]


def _parenthesized(rest: list[Leaf]) -> bool:
    """`(...)` around all of `rest`, not a tuple (whose parentheses stay)."""
    if len(rest) < 3 or rest[0].kind != "(" or rest[-1].kind != ")":
        return False
    if any(i not in {0, len(rest) - 1} for i, _ in _top_indexed(rest)):
        return False
    return not any(leaf.kind == "," for _, leaf in _top_indexed(rest[1:-1]))


def _top_indexed(leaves: list[Leaf]) -> Iterator[tuple[int, Leaf]]:
    depth = 0
    for i, leaf in enumerate(leaves):
        depth -= leaf.kind in CLOSING
        if depth == 0:
            yield i, leaf
        depth += leaf.kind in OPENING


# -- black's transform_line -----------------------------------------------------------------------------------


def split_statement(text: str, depth: int = 0, comment: str = "") -> str:
    """The physical lines black prints for the logical line `text` at block `depth` (4 spaces each), with an
    optional trailing `comment` (black counts it in the width, and keeps it after the last line), by black's
    whole algorithm. `statements.statement` takes shortcuts to the same lines; this is their oracle.
    """
    indent = "    " * depth
    width = str_width(text) + len(indent) + str_width(comment)
    if width <= LINE_LENGTH and not MAYBE_MAGIC.search(text):
        return indent + text + comment  # nothing to split, no magic trailing comma
    added = _ADDED[0]
    lines = _once(text, depth, width > LINE_LENGTH)
    if len(lines) > 1 and _ADDED[0] != added:
        # black formats a file twice when the first pass changed it: trailing commas the first pass added
        # are magic to the second, which may split differently. So must we (without new commas, the second
        # pass reads the tokens the first read, and splits them the same way).
        joined = _join(lines)
        lines = _once(
            joined,
            depth,
            str_width(joined) + len(indent) + str_width(comment) > LINE_LENGTH,
        )
    lines[-1] += comment
    return "\n".join(lines)


def _once(text: str, depth: int, split: bool) -> list[str]:
    line = Line(depth)
    line.extend(tokenize(text))
    return [str(out) for out in transform(line, split=split)]


def _join(lines: list[str]) -> str:
    """The logical line black's second pass reads from the first pass's lines."""
    parts = [lines[0].strip()]
    for line in lines[1:]:
        line = line.strip()
        if not (parts[-1][-1] in "([{" or line[0] in ")]}"):
            parts.append(" ")
        parts.append(line)
    return "".join(parts)


_ADDED = [
    0
]  # trailing commas the layout has added, ever: a second pass is needed only after new ones


def commas_added() -> int:
    """How many trailing commas the layout has added so far: a layout that added one needs black's second pass."""
    return _ADDED[0]


def _added_comma() -> Leaf:
    _ADDED[0] += 1
    return Leaf(",", ",")


def signature(head: str, params: list[str], tail: str, depth: int) -> str:
    """`head(params)tail` (a def), as `split_statement` lays it out; in time linear in the parameters.

    A def that does not fit splits at its parentheses (black's left_hand_split). When the parameters do
    not fit on one line either, each goes on its own line with a trailing comma, laid out alone; the second
    pass reads the same: one parameter per line. Only when the tail would need splitting (its return type
    exploding, which changes black's second pass) is the whole line laid out at once.
    """
    text = f"{head}({', '.join(params)}){tail}"
    indent = "    " * depth
    body_width = 4 * (depth + 1) + sum(str_width(p) + 2 for p in params) - 2
    closing = indent + ")" + tail
    if (
        len(params) < 2
        or body_width <= LINE_LENGTH
        or str_width(closing) > LINE_LENGTH
        or MAYBE_MAGIC.search(text)
    ):
        return split_statement(text, depth)
    lines = [indent + head + "("]
    lines += [_parameter(p + ",", depth + 1) for p in params]
    lines.append(closing)
    return "\n".join(lines)


def _parameter(text: str, depth: int) -> str:
    """One parameter line of an exploded def, both passes (see `statement`)."""
    if str_width(text) + 4 * depth <= LINE_LENGTH:
        return "    " * depth + text
    added = _ADDED[0]
    lines = _parameter_once(text, depth)
    if len(lines) > 1 and _ADDED[0] != added:
        lines = _parameter_once(_join(lines), depth)
    return "\n".join(lines)


def _parameter_once(text: str, depth: int) -> list[str]:
    # Tokenized inside a def, for the def's rules (annotations, optional parentheses around unions).
    leaves = tokenize("def f(" + text + ")")[3:-1]
    leaves[0].prefix = ""
    line = Line(depth, inside_brackets=True)
    line.extend(leaves)
    return [str(out) for out in transform(line)]


def transform(
    line: Line, force_optional: bool = False, split: bool = False
) -> Iterator[Line]:
    text = str(line)
    if (
        not split
        and not line.should_split_rhs
        and not line.magic_trailing_comma
        and is_short(line, text)
    ):
        yield line
        return
    if line.is_def and not _return_type_has_magic_comma(line):
        transformers = [left_hand_split]
    elif line.inside_brackets:
        transformers = [delimiter_split, rhs]
    else:
        transformers = [rhs]
    for transformer in transformers:
        try:
            result = _run(line, transformer, text, force_optional)
        except CannotSplit:
            continue
        yield from result
        return
    yield line


def _return_type_has_magic_comma(line: Line) -> bool:
    """black's should_split_funcdef_with_rhs (a return type is never a string here)."""
    leaves: list[Leaf] = []
    inside = False
    for leaf in line.leaves:
        if leaf.kind == ":":
            inside = False
        if inside:
            leaves.append(leaf)
        if leaf.kind == "->":
            inside = True
    result = Line(line.depth)
    tracked = _inside_matching(leaves)
    for leaf in leaves:
        result.append(leaf, track=id(leaf) in tracked)
    return result.magic_trailing_comma is not None


def _run(line: Line, transformer, text: str, force_optional: bool) -> list[Line]:  # type: ignore[no-untyped-def]
    optional = [b for b in line.invisible if b.depth == 0]
    result: list[Line] = []
    for new in transformer(line, force_optional):
        if str(new) == text:
            raise CannotSplit("unchanged")
        result.extend(transform(new, force_optional))
    if (
        force_optional
        or transformer is not rhs
        or not line.invisible
        or any(b.value for b in optional)
        or is_short(result[0])
    ):
        return result
    copy = Line(line.depth, line.inside_brackets)
    copy.should_split_rhs = line.should_split_rhs
    copy.magic_trailing_comma = line.magic_trailing_comma
    copy.extend([leaf.copy() for leaf in line.leaves])
    second = _run(copy, transformer, text, True)
    if all(is_short(out) for out in second):
        return second
    return result


def _build(leaves: list[Leaf], original: Line, opening: Leaf, part: str) -> Line:
    """black's bracket_split_build_line."""
    result = Line(original.depth)
    if part == "body":
        result.inside_brackets = True
        result.depth += 1
        if leaves and _ensure_trailing_comma(leaves, original, opening):
            for i in range(len(leaves) - 1, -1, -1):
                if leaves[i].kind != ",":
                    leaves.insert(i + 1, _added_comma())
                break
    if part == "body":
        result.extend(leaves)
    elif part == "head":
        # Only leaves inside matching brackets are tracked: they come in runs; the others leave the tracker
        # as it is
        tracked = _inside_matching(leaves)
        run: list[Leaf] = []
        for leaf in leaves:
            if id(leaf) in tracked:
                run.append(leaf)
            else:
                if run:
                    result.extend(run)
                    run = []
                result.leaves.append(leaf)
        if run:
            result.extend(run)
    else:  # a tail is not tracked
        result.leaves = leaves
    if part == "body" and _should_split(result, opening):
        result.should_split_rhs = True
    return result


def _filled(line: Line, leaves: list[Leaf]) -> Line:
    """`line` with `leaves` appended (tracked when the line is inside brackets, as `append` does)."""
    if line.inside_brackets:
        line.extend(leaves)
    else:
        line.leaves.extend(leaves)
    return line


def _ensure_trailing_comma(leaves: list[Leaf], original: Line, opening: Leaf) -> bool:
    if original.is_import:
        return True
    if not original.is_def or opening.value != "(":
        return False
    return not any(leaf.kind == "," and not leaf.annotation for leaf in leaves)


def _inside_matching(leaves: list[Leaf]) -> set[int]:
    ids: set[int] = set()
    stack: list[tuple[str, list[int]]] = []
    started = False
    for leaf in leaves:
        if leaf.kind in OPENING:
            started = True
            stack.append((OPENING[leaf.kind], [id(leaf)]))
        elif leaf.kind in CLOSING:
            if not started:
                continue
            if stack and leaf.kind == stack[-1][0]:
                _, level = stack.pop()
                level.append(id(leaf))
                ids.update(level)
            else:
                break
        elif stack:
            stack[-1][1].append(id(leaf))
    return ids


def _should_split(line: Line, opening: Leaf) -> bool:
    if not line.leaves:
        return False
    last = line.leaves[-1]
    trailing = last.kind == ","
    try:
        priority = line.max_priority(exclude=last if trailing else None)
    except ValueError:
        return False
    return priority == COMMA_PRIORITY and (
        trailing or opening.atom or not opening.value
    )


def _succeeded_or_raise(head: Line, body: Line, tail: Line) -> None:
    tail_length = len(str(tail).strip())
    if not body:
        if tail_length == 0:
            raise CannotSplit("same line")
        if tail_length < 3:
            raise CannotSplit("not worth it")


def left_hand_split(line: Line, force_optional: bool) -> Iterator[Line]:
    head: list[Leaf] = []
    body: list[Leaf] = []
    tail: list[Leaf] = []
    current = head
    matching: Leaf | None = None
    for leaf in line.leaves:
        if current is body and leaf.kind in CLOSING and leaf.opening is matching:
            _visible(leaf)
            _visible(matching)  # type: ignore[arg-type]
            current = tail if body else head
        current.append(leaf)
        if current is head and leaf.kind == "(":
            matching = leaf
            current = body
    if matching is None or not tail:
        raise CannotSplit("no brackets")
    lines = [
        _build(part, line, matching, name)
        for part, name in ((head, "head"), (body, "body"), (tail, "tail"))
    ]
    _succeeded_or_raise(*lines)
    yield from (out for out in lines if out)


def _visible(leaf: Leaf) -> None:
    if not leaf.value:
        leaf.value = "(" if leaf.kind == "(" else ")"


class _RHS:
    __slots__ = ("head", "body", "tail", "opening", "closing")

    def __init__(
        self, head: Line, body: Line, tail: Line, opening: Leaf, closing: Leaf
    ) -> None:
        self.head, self.body, self.tail, self.opening, self.closing = (
            head,
            body,
            tail,
            opening,
            closing,
        )


def _first_rhs(line: Line, omit: set[int]) -> _RHS:
    tail: list[Leaf] = []
    body: list[Leaf] = []
    head: list[Leaf] = []
    current = tail
    opening: Leaf | None = None
    closing: Leaf | None = None
    for leaf in reversed(line.leaves):
        if current is body and leaf is opening:
            current = head if body else tail
        current.append(leaf)
        if current is tail and leaf.kind in CLOSING and id(leaf) not in omit:
            opening, closing = leaf.opening, leaf
            current = body
    if not (opening and closing and head):
        raise CannotSplit("no brackets")
    tail.reverse()
    body.reverse()
    head.reverse()
    result = _RHS(
        _build(head, line, opening, "head"),
        _build(body, line, opening, "body"),
        _build(tail, line, opening, "tail"),
        opening,
        closing,
    )
    _succeeded_or_raise(result.head, result.body, result.tail)
    return result


def rhs(line: Line, force_optional: bool) -> Iterator[Line]:
    """black's right_hand_split_with_omits."""
    prefix_lengths: dict[int, int] = {}
    length = 4 * line.depth
    for leaf in line.leaves:
        prefix_lengths[id(leaf)] = length
        length += len(leaf.prefix) + len(leaf.value)
    first: list[Line] | None = None
    for omit in _trailers_to_omit(line):
        if omit:
            target = next(
                (
                    leaf.opening
                    for leaf in reversed(line.leaves)
                    if leaf.kind in CLOSING and id(leaf) not in omit
                ),
                None,
            )
            if (
                target is not None
                and target.value
                and prefix_lengths.get(id(target), 0) > LINE_LENGTH
            ):
                continue
        lines = list(_right_hand_split(line, omit, force_optional))
        if first is None and not omit:
            first = lines
        if is_short(lines[0]):
            yield from lines
            return
    if first is not None:
        yield from first
    else:
        yield from _right_hand_split(line, set(), force_optional)


def _right_hand_split(
    line: Line, omit: set[int], force_optional: bool
) -> Iterator[Line]:
    yield from _maybe_omit_optional_parens(
        _first_rhs(line, omit), line, omit, force_optional
    )


def _maybe_omit_optional_parens(
    rhs_: _RHS, line: Line, omit: set[int], force_optional: bool
) -> Iterator[Line]:
    if (
        not force_optional
        and rhs_.opening.kind == "("
        and not rhs_.opening.value
        and rhs_.closing.kind == ")"
        and not rhs_.closing.value
        and not line.is_import
        and _can_omit_optional_parens(rhs_)
    ):
        omit = {id(rhs_.closing), *omit}
        try:
            oop = _first_rhs(line, omit)
            if _prefer_oop(oop, rhs_):
                yield from _maybe_omit_optional_parens(oop, line, omit, force_optional)
                return
        except CannotSplit as error:
            if not _can_be_split(rhs_.body) and not is_short(rhs_.body):
                raise CannotSplit("body too long and cannot be split") from error
    _visible(rhs_.opening)
    _visible(rhs_.closing)
    for out in (rhs_.head, rhs_.body, rhs_.tail):
        if out:
            yield out


def _prefer_oop(oop: _RHS, rhs_: _RHS) -> bool:
    head = rhs_.head.leaves
    if not (len(head) >= 2 and head[-2].kind == "="):
        return True
    if not any(leaf.kind in OPENING or leaf.kind in CLOSING for leaf in head[:-1]):
        return True
    if str_width(str(rhs_.head)) > LINE_LENGTH - 1:
        return True
    if rhs_.head.magic_trailing_comma is not None:
        return True
    equals = [leaf.kind for leaf in head].count("=")
    oop_equals = [leaf.kind for leaf in oop.head.leaves].count("=")
    if equals > 1 and equals > oop_equals:
        return False
    closing_after_assign = False
    for leaf in reversed(oop.head.leaves):
        if leaf.kind == "=":
            break
        if leaf.kind in CLOSING:
            closing_after_assign = True
            break
    return closing_after_assign or (
        any(leaf.kind == "=" for leaf in oop.head.leaves) and is_short(oop.head)
    )


def _can_be_split(line: Line) -> bool:
    leaves = line.leaves
    if len(leaves) < 2:
        return False
    if leaves[0].kind == "string" and leaves[1].kind == ".":
        calls = dots = 0
        following = leaves[-1]
        for leaf in leaves[-2::-1]:
            if leaf.kind in OPENING:
                if following.kind not in CLOSING:
                    return False
                calls += 1
            elif leaf.kind == ".":
                dots += 1
            elif leaf.kind == "name":
                if not (following.kind == "." or following.kind in OPENING):
                    return False
            elif leaf.kind not in CLOSING:
                return False
            if dots > 1 and calls > 1:
                return False
            following = leaf
    return True


def _can_omit_optional_parens(rhs_: _RHS) -> bool:
    line = rhs_.body
    if not line.delimiters:
        return True
    priority = line.max_priority()
    if line.count_priority(priority) > 1:
        return False
    if priority == DOT_PRIORITY:
        return True
    first, second = line.leaves[0], line.leaves[1]
    if first.kind in OPENING and second.kind not in CLOSING:
        if _can_omit_opening(line, first):
            return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in {")", "}"} or (
        last.kind == "]" and last.opening is not None and last.opening.atom
    ):
        if penultimate.kind in OPENING:
            return False
        if _can_omit_closing(line, last):
            return True
    return False


def _can_omit_opening(line: Line, first: Leaf) -> bool:
    remainder = False
    length = 4 * line.depth
    index = -1
    for index, leaf, leaf_length in line.lengths():
        if leaf.kind in CLOSING and leaf.opening is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > LINE_LENGTH:
                return False
            if leaf.kind in OPENING:
                remainder = False
    return len(line.leaves) == index + 1


def _can_omit_closing(line: Line, last: Leaf) -> bool:
    length = 4 * line.depth
    seen_other = False
    for _, leaf, leaf_length in line.lengths():
        length += leaf_length
        if leaf is last.opening:
            if seen_other or length <= LINE_LENGTH:
                return True
        elif leaf.kind in OPENING:
            seen_other = True
    return False


def _trailers_to_omit(line: Line) -> Iterator[set[int]]:
    """black's generate_trailers_to_omit."""
    omit: set[int] = set()
    if not line.magic_trailing_comma:
        yield omit
    length = 4 * line.depth
    opening: Leaf | None = None
    closing: Leaf | None = None
    inner: set[int] = set()
    for index, leaf, leaf_length in line.lengths(reverse=True):
        length += leaf_length
        if length > LINE_LENGTH:
            break
        previous = line.leaves[index - 1] if index > 0 else None
        if opening:
            if leaf is opening:
                opening = None
            elif leaf.kind in CLOSING:
                if (
                    previous is not None
                    and previous.kind == ","
                    and leaf.opening is not None
                    and not _one_sequence(leaf.opening, leaf, line, "(", index)
                ):
                    break
                inner.add(id(leaf))
        elif leaf.kind in CLOSING:
            if previous is not None and previous.kind in OPENING:
                inner.add(id(leaf))
                continue
            if closing:
                omit.add(id(closing))
                omit.update(inner)
                inner.clear()
                yield omit
            if (
                previous is not None
                and previous.kind == ","
                and leaf.opening is not None
                and not _one_sequence(leaf.opening, leaf, line, "(", index)
            ):
                break
            if leaf.value:
                opening, closing = leaf.opening, leaf


def delimiter_split(line: Line, force_optional: bool) -> Iterator[Line]:
    if not line.leaves:
        raise CannotSplit("empty")
    last = line.leaves[-1]
    try:
        priority = line.max_priority(exclude=last)
    except ValueError:
        raise CannotSplit("no delimiters") from None
    if priority == DOT_PRIORITY and line.count_priority(priority) == 1:
        raise CannotSplit("a single attribute")
    delimiters = line.delimiters
    chunk: list[Leaf] = []
    for leaf in line.leaves:
        if not chunk:
            leaf.prefix = ""
        chunk.append(leaf)
        if delimiters.get(id(leaf)) == priority:
            yield _filled(Line(line.depth, line.inside_brackets), chunk)
            chunk = []
    if chunk:
        current = _filled(Line(line.depth, line.inside_brackets), chunk)
        if priority == COMMA_PRIORITY and current.leaves[-1].kind != ",":
            current.append(_added_comma())
        yield current
