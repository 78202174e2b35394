"""Which subschemas get a compiled check (closures, `check_builder.py` builds them) instead of the
interpreter, and the functions that check needs.

A check compiles when every schema it reaches is one the generated code decides exactly as the interpreter
does: the keywords it reads are all handled (`$recursiveRef` is not, nor a `$dynamicRef` whose target the
dynamic scope could change at run time), each is well formed (a malformed one is a schema error the
interpreter reports while validating), patterns compile, and every `$ref` names a schema of the same document
(a recursive one too, unless it loops without consuming the instance). A `$ref` is resolved here as the
interpreter resolves it, by its own index of the document: against the base URI the `$id`s on the way set, to
a JSON pointer, an anchor or an embedded resource (`$id`). A `$dynamicRef` is resolved so too where the
dynamic scope cannot change its target: no other resource of the document declares its dynamic anchor.
Nor may any check run twice on one value (a schema reached along two paths through references: compiled
checks remember nothing, so paths would multiply; `_once_per_value`). Anything else leaves the whole check to
the interpreter, so the two never disagree.
"""

from __future__ import annotations

import hashlib

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from .validation.index import _Index, _index_for, _unescape
from .validation.index import _walk as _walk_resource
from .validation.numbers import _as_count, _is_number, _too_long
from .validation.patterns import _pattern
from .validation.uris import _resolve, _without_fragment

# Read by the interpreter and left to it; every other keyword it reads is compiled (`check_builder.py`).
INTERPRETED = frozenset({"$recursiveRef"})
UNEVALUATED = ("unevaluatedItems", "unevaluatedProperties")
_MAX_DEPTH = 40
_MAX_SETS = 1000  # sets of checks `_once_per_value` follows for one entry
# The keywords applying one subschema to any property (`"name"`) or item (`"index"`).
_ANY_ONE = (
    ("items", "index"),
    ("contains", "index"),
    ("unevaluatedItems", "index"),
    ("additionalProperties", "name"),
    ("unevaluatedProperties", "name"),
)
_SINGLE = (
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "not",
    *UNEVALUATED,
)
_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAPS = ("properties", "patternProperties", "dependentSchemas")
# Applied to a property's value or an item: a recursion through one of them ends with the instance.
_DESCENDING = frozenset(
    {
        "items",
        "contains",
        "additionalProperties",
        "prefixItems",
        "properties",
        "patternProperties",
        *UNEVALUATED,
    }
)
# Applied to the same instance, passing on the annotations `unevaluated*` read (`not` keeps its own).
_ANNOTATING = frozenset(
    {"allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas"}
)


class NotCompiled(Exception):
    """The schema needs the interpreter (the message says why, for the tests)."""


@dataclass(frozen=True)
class CheckFunction:
    """One compiled check: `schema` (an object schema of the document), checked by the function `name`;
    `calls` names the check of each subschema it applies, by the subschema's `id` (a `$ref`: its target's).
    """

    name: str
    schema: Mapping[str, Any]
    calls: dict[int, str]
    ref: str | None = None  # the check of the schema `$ref` names
    dynamic_ref: str | None = None  # the check of the schema `$dynamicRef` names
    in_place: tuple[
        str, ...
    ] = ()  # the checks it applies to the same instance (not to a property or item)
    annotating: tuple[str, ...] = ()  # those of them its annotations come from
    plain: bool = (
        False  # no reference in its schema: shared only by equal text (`_by_text`)
    )


def annotating(functions: list[CheckFunction]) -> set[str]:
    """The checks that record annotations for an enclosing `unevaluated*`: those applied in place, through
    annotating keywords, by a check with `unevaluated*` or by one of these."""
    by_name = {f.name: f for f in functions}
    found: set[str] = set()
    stack = [
        name
        for f in functions
        if not f.schema.keys().isdisjoint(UNEVALUATED)
        for name in f.annotating
    ]
    while stack:
        name = stack.pop()
        if name in found or name not in by_name:
            continue
        found.add(name)
        stack.extend(by_name[name].annotating)
    return found


@dataclass
class ModuleChecks:
    """The compiled checks of one generated module: named after the schema constant of their document and
    numbered within it, in the order they are asked for, so that a tool's checks are named alike whatever else
    its module holds (the same tool in gram, Brimley or JSON gives the same code)."""

    functions: list[CheckFunction] = field(default_factory=list)
    _names: dict[int, str] = field(default_factory=dict)
    _bases: dict[int, str] = field(
        default_factory=dict
    )  # the base URI each was compiled at
    # The text of each schema without references compiled: an equal one (an entity's schema copied into
    # several tools' documents) shares its check.
    _by_text: dict[str, str] = field(default_factory=dict)
    # id(document) -> (its constant's name, in lower case, how many checks it has)
    _documents: dict[int, tuple[str, int]] = field(default_factory=dict)
    # The labels of `_documents` named after their constant, kept as they are given (a set made from
    # `_documents` for each new document made a module of N tools cost N^2).
    _labels: set[str] = field(default_factory=set)
    # The sets of checks met at one instance location that `_once_per_value` has found to run each check once.
    _once: set[tuple[str, ...]] = field(default_factory=set)
    compiled: int = 0
    interpreted: int = 0

    def entry(
        self, document: Any, pointer: str, const: str | None = None
    ) -> str | None:
        """The name of the check of the subschema at `pointer` of the document held by the constant `const`,
        or None if the interpreter keeps it."""
        count, named, texts = len(self.functions), len(self._names), len(self._by_text)
        numbered = self._documents.get(id(document))
        if numbered is None:
            numbered = self._documents[id(document)] = (self._label(const), 0)
        try:
            if _refused_once(document):
                raise NotCompiled("a $recursiveRef in the document")
            index = _index_for(document)
            try:
                node, base = index.entry(pointer)
            except ValueError:
                raise NotCompiled("a pointer that does not resolve") from None
            name = _Compiler(self, document, index).schema(node, base, 0)
            _no_loop(self.functions[count:])
            _once_per_value(self.functions, name, self._once)
        except NotCompiled:
            # What it reached is not used now: forget it, numbers included.
            for key in list(self._names)[named:]:
                del self._names[key]
                self._bases.pop(key, None)
            for text in list(self._by_text)[texts:]:
                del self._by_text[text]
            del self.functions[count:]
            self._documents[id(document)] = numbered
            self.interpreted += 1
            return None
        self.compiled += 1  # (`_checks.accept` / `reject` for a boolean schema: no function of its own)
        return name

    def _label(self, const: str | None) -> str:
        """A short name for a document, the same in every module that holds its constant (a digest of the
        constant's name, lengthened until no other document of the module has it)."""
        if not const:
            return f"doc{len(self._documents)}"
        digest = hashlib.sha256(const.encode()).hexdigest()
        size = 4
        while digest[:size] in self._labels:
            size += 1
        self._labels.add(digest[:size])
        return digest[:size]


class _Compiler:
    def __init__(self, checks: ModuleChecks, document: Any, index: _Index) -> None:
        self.checks = checks
        self.document = document
        self.index = index
        self._refers: dict[int, bool] = {}

    def schema(self, node: Any, base: str, depth: int) -> str:
        """The check of a subschema met at the base URI `base`, compiling it (and what it reaches) unless
        already compiled or being compiled (a recursive schema: the check calls itself).
        """
        if node is True:
            return "_checks.accept"
        if node is False:
            return "_checks.reject"
        if not isinstance(node, Mapping):
            raise NotCompiled("a subschema that is not a schema")
        own_id = node.get("$id")
        if isinstance(own_id, str):  # as the interpreter's `eval` enters a resource
            base = self.index.node_uri.get(id(node)) or _without_fragment(
                _resolve(base, own_id)
            )
        known = self.checks._names.get(id(node))
        if known is not None:
            if self.checks._bases[id(node)] != base and self.refers(node):
                raise NotCompiled("a schema met at two base URIs")
            return known
        # Without references, a schema's check depends on its text alone (the base URI does not matter).
        text = None if self.refers(node) else repr(node)
        if text is not None and text in self.checks._by_text:
            self.checks._names[id(node)] = self.checks._by_text[text]
            self.checks._bases[id(node)] = base
            return self.checks._by_text[text]
        if depth > _MAX_DEPTH:
            raise NotCompiled("nested too deeply")
        if not INTERPRETED.isdisjoint(node):
            raise NotCompiled(f"{sorted(INTERPRETED & set(node))[0]}")
        label, number = self.checks._documents[id(self.document)]
        self.checks._documents[id(self.document)] = (label, number + 1)
        name = f"_check_{label}_{number}"
        self.checks._names[id(node)] = name
        self.checks._bases[id(node)] = base
        if text is not None:
            self.checks._by_text[text] = name
        calls: dict[int, str] = {}
        in_place: list[str] = []
        annotated: list[str] = []
        ref = dynamic_ref = None
        if "$ref" in node:
            target, target_base = self._target(node["$ref"], base)
            ref = self.schema(target, target_base, depth + 1)
            in_place.append(ref)
            annotated.append(ref)
        if "$dynamicRef" in node:
            target, target_base = self._dynamic_target(node["$dynamicRef"], base)
            dynamic_ref = self.schema(target, target_base, depth + 1)
            in_place.append(dynamic_ref)
            annotated.append(dynamic_ref)
        for sub, keyword in _subschemas(node):
            calls[id(sub)] = self.schema(sub, base, depth + 1)
            if keyword not in _DESCENDING:
                in_place.append(calls[id(sub)])
            if keyword in _ANNOTATING:
                annotated.append(calls[id(sub)])
        _well_formed(node)
        function = CheckFunction(
            name,
            node,
            calls,
            ref,
            dynamic_ref,
            tuple(in_place),
            tuple(annotated),
            plain=text is not None,
        )
        self.checks.functions.append(function)
        return name

    def refers(self, node: Any) -> bool:
        """Whether a reference lies anywhere in `node` (data such as `const` values included: a safe guess)."""
        if isinstance(node, Mapping):
            children: Any = node.values()
            if "$ref" in node or "$dynamicRef" in node:
                return True
        elif isinstance(node, list):
            children = node
        else:
            return False
        found = self._refers.get(id(node))
        if found is None:
            found = self._refers[id(node)] = any(self.refers(c) for c in children)
        return found

    def _dynamic_target(self, reference: Any, base: str) -> tuple[Any, str]:
        """The schema a `$dynamicRef` names, when the dynamic scope cannot change it: as the interpreter's
        `_References._reference` decides, it is the `$ref` target unless that declares the reference's
        fragment as its `$dynamicAnchor`; then the outermost resource in scope declaring that anchor wins,
        which is the target's own resource when no other resource of the document declares it.
        """
        target, target_base = self._target(reference, base)
        fragment = _resolve(base, reference).partition("#")[2]
        if isinstance(target, Mapping) and target.get("$dynamicAnchor") == fragment:
            holders = [
                uri
                for uri, anchors in self.index.dynamic.items()
                if fragment in anchors
            ]
            if holders != [target_base] or (
                self.index.dynamic[target_base][fragment] is not target
            ):
                raise NotCompiled("a $dynamicRef the dynamic scope may resolve")
        return target, target_base

    def _target(self, reference: Any, base: str) -> tuple[Any, str]:
        """The schema a `$ref` names and its base URI, as the interpreter's `_References._lookup` finds them,
        but only inside this document (not an embedded meta-schema)."""
        if not isinstance(reference, str):
            raise NotCompiled("a reference that is not a string")
        resource_uri, _, fragment = _resolve(base, reference).partition("#")
        fragment = unquote(fragment)
        resources = self.index.resources
        if fragment and not fragment.startswith("/"):
            if f"{resource_uri}#{fragment}" not in resources:
                raise NotCompiled("a reference to an anchor the document lacks")
            return resources[f"{resource_uri}#{fragment}"], resource_uri
        if resource_uri not in resources:
            raise NotCompiled("a reference outside the document")
        tokens = [_unescape(token) for token in fragment.split("/")[1:]]
        found = _walk_resource(
            resources[resource_uri],
            resource_uri,
            tokens,
            self.index,
            apply_start_id=False,
        )
        if found is None:
            raise NotCompiled("a pointer that does not resolve")
        return found


def _no_loop(functions: list[CheckFunction]) -> None:
    """Refuse checks that would call themselves on the same instance (a reference that loops without
    consuming it: a schema error the interpreter reports). Checks compiled before cannot call these new
    ones, so a loop lies among them."""
    graph = {
        f.name: [c for c in f.in_place if not c.startswith("_checks.")]
        for f in functions
    }
    state: dict[str, int] = {}  # 1: on the path, 2: done
    for start in graph:
        if start in state:
            continue
        stack = [(start, iter(graph[start]))]
        state[start] = 1
        while stack:
            name, callees = stack[-1]
            for callee in callees:
                if state.get(callee) == 1:
                    raise NotCompiled(
                        "a reference that loops without consuming the instance"
                    )
                if callee in graph and callee not in state:
                    state[callee] = 1
                    stack.append((callee, iter(graph[callee])))
                    break
            else:
                state[name] = 2
                stack.pop()


def _once_per_value(
    functions: list[CheckFunction], entry: str, proven: set[tuple[str, ...]]
) -> None:
    """Refuse a check that could run some check twice on one value, leaving it to the interpreter, which
    remembers what each reference's target found at each instance location.

    A compiled check remembers nothing: a schema reached along two paths at one location is checked once per
    path, and paths multiply (an `allOf` of two `$ref`s to the next such schema, 34 deep, is 2**34 calls). So
    the checks met at each location are followed, as sets: those applied in place to a value (`in_place`,
    every one of them, as if all branches ran), then, for each name or index a property or item can have, the
    checks applied to it (a `properties` name or `prefixItems` index only there, any other keyword anywhere).
    Each check with a reference in it may be met once per set; checks without one are copies of their text
    (shared by `_by_text`), as cheap as the schema text is long. Sets met before (`proven`) are not followed
    again; after `_MAX_SETS` new ones the planner gives up.
    """
    by_name = {f.name: f for f in functions if not f.plain}
    todo: list[tuple[str, ...]] = [(entry,)]
    met: set[tuple[str, ...]] = set()
    while todo:
        roots = todo.pop()
        if not roots or roots in met or roots in proven:
            continue
        met.add(roots)
        if len(met) > _MAX_SETS:
            raise NotCompiled("too many sets of checks to follow")
        # Per kind of value (an object's names, an array's indices): the checks bound to one name or index,
        # and those applied to any.
        one: dict[tuple[str, Any], list[str]] = {}
        anyone: dict[str, list[str]] = {"name": [], "index": []}
        for function in _in_place_once(roots, by_name):
            for kind, label, name in _descents(function):
                if name in by_name:
                    found = (
                        anyone[kind]
                        if label is None
                        else one.setdefault((kind, label), [])
                    )
                    found.append(name)
        todo += [
            tuple(sorted(names + anyone[kind])) for (kind, _), names in one.items()
        ]
        todo += [tuple(sorted(names)) for names in anyone.values()]
    proven |= met


def _in_place_once(
    roots: tuple[str, ...], by_name: dict[str, CheckFunction]
) -> list[CheckFunction]:
    """The checks with references run on one value when `roots` are, unless one of them would run twice."""
    seen: set[str] = set()
    found: list[CheckFunction] = []
    stack = list(roots)
    while stack:
        name = stack.pop()
        function = by_name.get(name)
        if function is None:
            continue
        if name in seen:
            raise NotCompiled("a schema applied twice to one value")
        seen.add(name)
        found.append(function)
        stack.extend(function.in_place)
    return found


def _descents(function: CheckFunction) -> list[tuple[str, Any, str]]:
    """The checks `function` applies to a property or item: (`"name"` or `"index"`, the one name or index it
    applies to (`properties`, `prefixItems`) or None for any, the check)."""
    node, calls = function.schema, function.calls
    found: list[tuple[str, Any, str]] = []
    properties = node.get("properties")
    if isinstance(properties, Mapping):
        found += [("name", n, calls[id(sub)]) for n, sub in properties.items()]
    prefix = node.get("prefixItems")
    if isinstance(prefix, list):
        found += [("index", i, calls[id(sub)]) for i, sub in enumerate(prefix)]
    patterns = node.get("patternProperties")
    if isinstance(patterns, Mapping):
        found += [("name", None, calls[id(sub)]) for sub in patterns.values()]
    for keyword, kind in _ANY_ONE:
        if keyword in node:
            found.append((kind, None, calls[id(node[keyword])]))
    return found


def _subschemas(node: Mapping[str, Any]) -> list[tuple[Any, str]]:
    """The subschemas `node` applies, each with the keyword that applies it."""
    found: list[tuple[Any, str]] = []
    for keyword in _SINGLE:
        if keyword in node:
            found.append((node[keyword], keyword))
    if "if" in node:
        found += [(node[k], k) for k in ("if", "then", "else") if k in node]
    for keyword in _LISTS:
        value = node.get(keyword)
        if isinstance(value, list):
            found += [(sub, keyword) for sub in value]
        elif keyword in node:
            raise NotCompiled(f"{keyword} is not a list")
    for keyword in _MAPS:
        value = node.get(keyword)
        if isinstance(value, Mapping):
            found += [(sub, keyword) for sub in value.values()]
        elif keyword in node:
            raise NotCompiled(f"{keyword} is not an object")
    return found


def _well_formed(node: Mapping[str, Any]) -> None:
    """Refuse what the interpreter would report as a schema error, or read in a way not compiled here."""
    kinds = node.get("type", "string")
    names = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise NotCompiled("type is not a name or a list of names")
    if "enum" in node and not isinstance(node["enum"], list):
        raise NotCompiled("enum is not a list")
    divisor = node.get("multipleOf")
    if _is_number(divisor) and not isinstance(divisor, float) and _too_long(divisor):
        raise NotCompiled("multipleOf has too many digits")
    for pattern in [node.get("pattern"), *node.get("patternProperties", {})]:
        if isinstance(pattern, str) and _pattern(pattern) is None:
            raise NotCompiled("a pattern that does not compile")
    for keyword in ("anyOf", "oneOf"):
        if keyword in node and not node[keyword]:
            raise NotCompiled(f"an empty {keyword}")
    required = node.get("required", [])
    if not isinstance(required, list):
        raise NotCompiled("required is not a list")
    dependent = node.get("dependentRequired", {})
    if not isinstance(dependent, Mapping) or not all(
        isinstance(names, list) and all(isinstance(n, str) for n in names)
        for names in dependent.values()
    ):
        raise NotCompiled("dependentRequired is not an object of name lists")
    for keyword in ("minContains", "maxContains"):
        if keyword in node and _as_count(node[keyword]) is None:
            raise NotCompiled(f"{keyword} is not a count")


# Whether each document holds a `$recursiveRef`, by its identity (the document kept, so that its id stays its
# own): a document is walked once, however many of its schemas get checks (one per model, on first use).
_REFUSED: dict[int, tuple[Any, bool]] = {}
_MAX_REMEMBERED = 1024


def _refused_once(document: Any) -> bool:
    found = _REFUSED.get(id(document))
    if found is None or found[0] is not document:
        if len(_REFUSED) >= _MAX_REMEMBERED:
            _REFUSED.pop(next(iter(_REFUSED)), None)
        found = _REFUSED[id(document)] = (document, _refused_document(document))
    return found[1]


def _refused_document(document: Any) -> bool:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if "$recursiveRef" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
