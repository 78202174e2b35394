"""A matcher for patterns with lookaround, in time linear in the text (times
the pattern), in pure Python.

Why not backtracking: a backtracking matcher (Python's ``re``) takes time
exponential in the text on patterns such as ``^(?=(a+)+$)``, and a schema's
patterns are hostile.  Why not the Rust engine: it has no lookaround.  So a
pattern with lookaround is compiled here, after :mod:`translation` has turned
it into flag-free tokens whose every atom is an explicit set of code points
(the same tokens the Rust engine receives for the other patterns, so both
read every class alike).

How (the approach of Mamouras and Chattopadhyay, POPL 2024, and of the linear
lookaround engines of V8 and RE2, Barriere and Pit-Claudel, PLDI 2024):

* Each lookaround body becomes a Thompson NFA of its own, and a lookaround
  is, to the automaton around it, a predicate on text positions, like an
  anchor.  Without backreferences, ``(?=B)`` holds at position i exactly when
  B matches some text[i:j], and ``(?<=B)`` when B matches some text[j:i].
* Before the main pass, every lookaround's truth at every position is
  computed, innermost first (an inner lookaround is a predicate of the outer
  body): a lookbehind in one forward pass of its body, started afresh at
  every position, recording where it accepts; a lookahead in one backward
  pass of its body *reversed* (concatenations read right to left), from the
  end of the text.  Each pass is one simulation of an NFA over the text:
  O(text x body).
* The main pass simulates the pattern's NFA forward, started at every
  position (JSON Schema asks whether the pattern matches anywhere), and stops
  at the first accepting state.

Each pass keeps a set of NFA states per position (a Thompson/Pike VM without
captures, as only "is there a match" is asked), so the work per position is
bounded by the automaton's size.  Sets met before are remembered with their
successors per (character, predicates true at the next position), a lazily
built DFA, bounded in size and rebuilt when full, so common texts cost a
dictionary lookup per character; the bound on the work stays that of the NFA
simulation.  :data:`STEPS` counts NFA states visited and positions scanned,
so tests can show the cost linear without timing anything.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from typing import NamedTuple

from .charsets import _Ranges
from .translation import UnsupportedPattern, _Token

# The most NFA states one pattern may expand to, all its automata together
# (counted repetitions copy their atom): beyond it the pattern is refused as
# too large, as the Rust engine refuses its own too-large patterns.  It also
# bounds the work per text position.
_MAX_STATES = 20_000
# The most DFA states remembered per automaton before starting afresh.
_MAX_DFA_STATES = 2_000

# NFA state kinds.
_CHAR, _EPSILON, _ASSERT, _MATCH = range(4)

# Work counter for tests: NFA states visited plus positions scanned.
STEPS = [0]


class _Node(NamedTuple):
    """A node of the parsed pattern: "set" (ranges), "cat" / "alt" (parts),
    "rep" (parts[0], least, most), "at" (name) or "look" (parts[0], name)."""

    kind: str
    parts: tuple[_Node, ...] = ()
    ranges: _Ranges = ()
    least: int = 0
    most: int | None = None
    name: str = ""


def parse(tokens: list[_Token]) -> _Node:
    """The tokens as a tree, built with an explicit stack (no recursion, so
    nesting depth never meets Python's recursion limit)."""
    # Per open group: its opening token, finished alternatives, current run.
    stack: list[tuple[_Token | None, list[_Node], list[_Node]]] = [(None, [], [])]
    for token in tokens:
        opening, alternatives, run = stack[-1]
        kind = token.kind
        if kind in ("(", "look"):
            stack.append((token, [], []))
        elif kind == ")":
            stack.pop()
            node = _group(alternatives, run)
            if opening is not None and opening.kind == "look":
                node = _Node("look", (node,), name=opening.name)
            stack[-1][2].append(node)
        elif kind == "|":
            alternatives.append(_Node("cat", tuple(run)))
            run.clear()
        elif kind == "rep":
            if not run:
                raise UnsupportedPattern("nothing to repeat")
            atom = run.pop()
            run.append(_Node("rep", (atom,), least=token.least, most=token.most))
        elif kind == "set":
            run.append(_Node("set", ranges=token.ranges))
        else:
            run.append(_Node("at", name=token.name))
    if len(stack) != 1:
        raise UnsupportedPattern("unbalanced parenthesis")
    return _group(stack[0][1], stack[0][2])


def _group(alternatives: list[_Node], run: list[_Node]) -> _Node:
    last = _Node("cat", tuple(run))
    if not alternatives:
        return last
    return _Node("alt", (*alternatives, last))


class _Nfa:
    """A Thompson NFA: per state its kind, its set (a _CHAR state: sorted
    bounds, a code point is inside when bisect_right gives an odd index), its
    successor (_CHAR, _ASSERT), its epsilon successors (_EPSILON) and its
    predicate (an index into :attr:`predicates`, _ASSERT)."""

    def __init__(self, budget: list[int]) -> None:
        self.budget = budget  # states left to the pattern, shared by its automata
        self.kinds: list[int] = []
        self.bounds: list[tuple[int, ...]] = []
        self.next: list[int] = []
        self.epsilons: list[list[int]] = []
        self.predicate: list[int] = []
        self.predicates: list[tuple[str, int]] = []  # (name, lookaround index)
        self.start = 0

    def add(self, kind: int, bounds: tuple[int, ...] = (), predicate: int = -1) -> int:
        if self.budget[0] <= 0:
            raise UnsupportedPattern(
                f"too large for the linear-time matcher (over {_MAX_STATES} states)"
            )
        self.budget[0] -= 1
        self.kinds.append(kind)
        self.bounds.append(bounds)
        self.next.append(-1)
        self.epsilons.append([])
        self.predicate.append(predicate)
        return len(self.kinds) - 1

    def predicate_index(self, name: str, look: int) -> int:
        key = (name, look)
        if key not in self.predicates:
            self.predicates.append(key)
        return self.predicates.index(key)


class Program(NamedTuple):
    """A compiled pattern: the lookarounds' automata, innermost first (each
    with its direction), and the main automaton."""

    lookarounds: tuple[tuple[_Nfa, bool], ...]  # (automaton, is a lookahead)
    main: _Nfa


def compile_tokens(tokens: list[_Token]) -> Program:
    """The automata of a translated pattern (see the module's docstring)."""
    tree = parse(tokens)
    looks = _lookarounds(tree)
    numbers = {id(node): number for number, node in enumerate(looks)}
    budget = [_MAX_STATES]
    automata = tuple(
        (_build(node.parts[0], numbers, node.name in "=!", budget), node.name in "=!")
        for node in looks
    )
    return Program(automata, _build(tree, numbers, False, budget))


def _lookarounds(tree: _Node) -> list[_Node]:
    """The lookaround nodes of the tree, each once, every one after those
    nested in it (an explicit-stack post-order walk)."""
    found: list[_Node] = []
    seen: set[int] = set()
    stack: list[tuple[_Node, bool]] = [(tree, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:
            if node.kind == "look" and id(node) not in seen:
                seen.add(id(node))
                found.append(node)
            continue
        stack.append((node, True))
        stack.extend((part, False) for part in reversed(node.parts))
    return found


class _Fragment(NamedTuple):
    start: int
    end: int  # an _EPSILON state with no successors yet


def _build(
    tree: _Node, looks: dict[int, int], reverse: bool, budget: list[int]
) -> _Nfa:
    """Thompson's construction, bottom-up with an explicit stack.  A counted
    repetition is its atom copied (x{2,4} is x x (x x?)?), and *reverse*
    reads every concatenation right to left (the automaton of the reversed
    language, for lookaheads)."""
    nfa = _Nfa(budget)
    results: list[_Fragment] = []
    stack: list[tuple[_Node, int]] = [(tree, -1)]  # (node, children or -1)
    while stack:
        node, count = stack.pop()
        if count < 0:
            parts = _expanded(node)
            stack.append((node, len(parts)))
            stack.extend((part, -1) for part in reversed(parts))
            continue
        fragments = results[len(results) - count :]
        del results[len(results) - count :]
        results.append(_combine(nfa, node, fragments, looks, reverse))
    (whole,) = results
    nfa.start = whole.start
    accept = nfa.add(_MATCH)
    nfa.epsilons[whole.end].append(accept)
    return nfa


def _expanded(node: _Node) -> tuple[_Node, ...]:
    """The children a node is built from: a repetition's atom once per copy."""
    if node.kind in ("cat", "alt"):
        return node.parts
    if node.kind == "rep":
        copies = node.least + (1 if node.most is None else node.most - node.least)
        if copies > _MAX_STATES:
            raise UnsupportedPattern(
                f"too large for the linear-time matcher (over {_MAX_STATES} states)"
            )
        return node.parts * copies
    return ()


def _combine(
    nfa: _Nfa,
    node: _Node,
    fragments: list[_Fragment],
    looks: dict[int, int],
    reverse: bool,
) -> _Fragment:
    kind = node.kind
    if kind == "set":
        state = nfa.add(_CHAR, _bounds(node.ranges))
        end = nfa.add(_EPSILON)
        nfa.next[state] = end
        return _Fragment(state, end)
    if kind in ("at", "look"):
        if kind == "look":
            predicate = nfa.predicate_index(node.name, looks[id(node)])
        else:
            predicate = nfa.predicate_index(node.name, -1)
        state = nfa.add(_ASSERT, predicate=predicate)
        end = nfa.add(_EPSILON)
        nfa.next[state] = end
        return _Fragment(state, end)
    if kind == "alt":
        start, end = nfa.add(_EPSILON), nfa.add(_EPSILON)
        for fragment in fragments:
            nfa.epsilons[start].append(fragment.start)
            nfa.epsilons[fragment.end].append(end)
        return _Fragment(start, end)
    if kind == "rep":
        required = fragments[: node.least]
        optional = fragments[node.least :]
        if node.most is None:
            tail = _star(nfa, optional[0])
        else:
            tail = _optional_chain(nfa, optional)
        return _concatenate(nfa, [*required, tail], reverse=False)
    return _concatenate(nfa, fragments, reverse)


def _concatenate(nfa: _Nfa, fragments: list[_Fragment], reverse: bool) -> _Fragment:
    if reverse:
        fragments = fragments[::-1]
    if not fragments:
        state = nfa.add(_EPSILON)
        return _Fragment(state, state)
    for before, after in zip(fragments, fragments[1:]):
        nfa.epsilons[before.end].append(after.start)
    return _Fragment(fragments[0].start, fragments[-1].end)


def _star(nfa: _Nfa, body: _Fragment) -> _Fragment:
    start, end = nfa.add(_EPSILON), nfa.add(_EPSILON)
    nfa.epsilons[start] += [body.start, end]
    nfa.epsilons[body.end].append(start)
    return _Fragment(start, end)


def _optional_chain(nfa: _Nfa, copies: list[_Fragment]) -> _Fragment:
    """x (x (x)?)? ... for the optional copies of a repetition (x? when one)."""
    end = nfa.add(_EPSILON)
    tail = _Fragment(end, end)
    for copy in reversed(copies):
        start = nfa.add(_EPSILON)
        nfa.epsilons[start] += [copy.start, end]
        nfa.epsilons[copy.end].append(tail.start)
        tail = _Fragment(start, end)
    return tail


def _bounds(ranges: _Ranges) -> tuple[int, ...]:
    return tuple(bound for low, high in ranges for bound in (low, high + 1))


class _Dfa:
    """The sets of NFA states met so far (interned: set -> number), whether
    each accepts, and each one's successors per (character, predicates)."""

    def __init__(self) -> None:
        self.sets: list[frozenset[int]] = []
        self.accepts: list[bool] = []
        self.successors: list[dict[str | tuple[str, int], int]] = []
        self.numbers: dict[frozenset[int], int] = {}
        self.initial: dict[int, int] = {}
        self.lock = threading.Lock()

    def intern(self, states: frozenset[int], accept: int) -> int:
        with self.lock:
            number = self.numbers.get(states)
            if number is None:
                number = len(self.sets)
                self.sets.append(states)
                self.accepts.append(accept in states)
                self.successors.append({})
                self.numbers[states] = number
            return number


class Runner:
    """Runs one automaton over texts, remembering the sets it meets."""

    def __init__(self, nfa: _Nfa, cached: bool = True) -> None:
        self.nfa = nfa
        self.accept = len(nfa.kinds) - 1  # _build adds the accepting state last
        self.cached = cached
        self.dfa = _Dfa()

    def closure(self, kernel: list[int], mask: int) -> frozenset[int]:
        """The states reachable from *kernel* and the start state without
        reading a character, where the predicates in *mask* hold; only the
        states that read a character or accept are kept."""
        nfa = self.nfa
        kinds, epsilons, following = nfa.kinds, nfa.epsilons, nfa.next
        predicate = nfa.predicate
        seen: set[int] = set()
        kept: list[int] = []
        todo = [*kernel, nfa.start]
        while todo:
            state = todo.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = kinds[state]
            if kind == _EPSILON:
                todo.extend(epsilons[state])
            elif kind == _ASSERT:
                if mask >> predicate[state] & 1:
                    todo.append(following[state])
            else:
                kept.append(state)
        STEPS[0] += len(seen)
        return frozenset(kept)

    def run(
        self, text: str, masks: list[int] | None, backward: bool, stop: bool
    ) -> bytearray | None:
        """Whether the automaton accepts at each position (reading backward
        from the end when *backward*); when *stop*, None as soon as it
        accepts somewhere (and an empty table when it never does)."""
        if len(self.dfa.sets) > _MAX_DFA_STATES or not self.cached:
            self.dfa = _Dfa()
        dfa = self.dfa
        length = len(text)
        first = length if backward else 0
        mask = masks[first] if masks is not None else 0
        number = dfa.initial.get(mask)
        if number is None:
            number = dfa.intern(self.closure([], mask), self.accept)
            dfa.initial[mask] = number
        STEPS[0] += length + 1
        table = bytearray(length + 1)
        if dfa.accepts[number]:
            if stop:
                return None
            table[first] = 1
        rows, accepts = dfa.successors, dfa.accepts
        # The DFA's input: a character, or (character, predicates) where some
        # predicate holds at the position it leads to.
        chars = text[::-1] if backward else text
        keys: str | list[str | tuple[str, int]] = chars
        if masks is not None:
            following = masks[length - 1 :: -1] if backward else masks[1:]
            keys = [c if not m else (c, m) for c, m in zip(chars, following)]
        for index, key in enumerate(keys, 1):
            found = rows[number].get(key)
            if found is None:
                dfa, number = self._step(dfa, number, key)
                rows, accepts = dfa.successors, dfa.accepts
            else:
                number = found
            if accepts[number]:
                if stop:
                    return None
                table[length - index if backward else index] = 1
        return bytearray() if stop else table

    def _step(
        self, dfa: _Dfa, number: int, key: str | tuple[str, int]
    ) -> tuple[_Dfa, int]:
        """The set after reading the key's character from set *number*, where
        its predicates hold at the next position (in a fresh DFA when this
        one is full, so memory stays bounded on any text)."""
        char, mask = (key, 0) if isinstance(key, str) else key
        code = ord(char)
        nfa = self.nfa
        states = dfa.sets[number]
        kernel = [
            nfa.next[state]
            for state in states
            if state != self.accept and bisect_right(nfa.bounds[state], code) % 2
        ]
        STEPS[0] += len(states)
        closed = self.closure(kernel, mask)
        if len(dfa.sets) > _MAX_DFA_STATES:
            dfa = self.dfa = _Dfa()
            return dfa, dfa.intern(closed, self.accept)
        found = dfa.intern(closed, self.accept)
        if self.cached:
            dfa.successors[number][key] = found
        return dfa, found


class Machine:
    """A compiled pattern with lookaround: :meth:`search` answers whether it
    matches anywhere in a text."""

    def __init__(self, program: Program, cached: bool = True) -> None:
        self.lookarounds = [
            (Runner(nfa, cached), ahead) for nfa, ahead in program.lookarounds
        ]
        self.main = Runner(program.main, cached)

    def search(self, text: str) -> bool:
        tables: list[bytearray] = []
        for runner, ahead in self.lookarounds:
            masks = _masks(runner.nfa, text, tables)
            table = runner.run(text, masks, backward=ahead, stop=False)
            assert table is not None
            tables.append(table)
        masks = _masks(self.main.nfa, text, tables)
        return self.main.run(text, masks, backward=False, stop=True) is None


_WORD = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def _masks(nfa: _Nfa, text: str, tables: list[bytearray]) -> list[int] | None:
    """Per position of *text*, the automaton's predicates that hold there (bit
    k for predicate k); None when it has none."""
    if not nfa.predicates:
        return None
    length = len(text)
    masks = [0] * (length + 1)
    for bit, (name, look) in enumerate(nfa.predicates):
        for position in _holding(name, look, text, tables):
            masks[position] |= 1 << bit
    return masks


def _holding(name: str, look: int, text: str, tables: list[bytearray]) -> list[int]:
    """The positions of *text* where a predicate holds."""
    length = len(text)
    if name == "start":
        return [0]
    if name == "end":
        return [length]
    if name == "line":
        return [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    if name in ("word", "nonword"):
        word = [char in _WORD for char in text]
        edges = [False, *word], [*word, False]
        boundary = [before != after for before, after in zip(*edges)]
        wanted = name == "word"
        return [i for i, edge in enumerate(boundary) if edge is wanted]
    holds = name in ("=", "<=")
    return [i for i, value in enumerate(tables[look]) if bool(value) is holds]
