"""Name resolution: one namespace across all spec files, and self-contained schema documents.

Every tool and entity shares one namespace (SPEC §2). Each schema document a tool or entity owns is made
self-contained: references to entities — `User.schema.json` from JSON, `entity:User` from gram/Brimley — become
`#/$defs/<Name>` with the entity's schema embedded, so the emitted JSON Schema and the runtime check need
nothing outside the document. Local `#/...` references must point somewhere.
"""

from __future__ import annotations

import dataclasses
import difflib
import posixpath
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from ..diagnostics import Diagnostics, Span
from ..ir import (
    DATA_KEYWORDS,
    DELETE,
    Entity,
    JArray,
    JObject,
    SpecModule,
    Tool,
    schema_objects,
)
from toolspec_runtime.validation import SUBSCHEMA, SUBSCHEMA_LISTS, SUBSCHEMA_MAPS
from ..tool_prefix import PREFIX_SEPARATOR
from .bundle import Bundler, subschemas
from .check_refs import check_chains, check_refs
from .naming import Scope

ENTITY_SCHEME = "entity:"
META_SCHEMA_BASE = "https://json-schema.org/draft/2020-12/"


@dataclass(frozen=True)
class Document:
    """A self-contained JSON Schema document and which of its `$defs` are embedded entities."""

    schema: Any  # JObject | bool
    entity_pointers: dict[str, str] = field(
        default_factory=dict
    )  # "/$defs/User" -> entity name


@dataclass
class Program:
    modules: list[SpecModule]
    entities: dict[str, tuple[Any, SpecModule]] = field(
        default_factory=dict
    )  # name -> (Entity, module)
    tools: dict[str, tuple[Tool, SpecModule]] = field(default_factory=dict)
    entity_files: dict[str, str] = field(
        default_factory=dict
    )  # posix path of a .schema.json -> entity name
    # Definitions already reported (an invalid schema) and spec files that could not be read: their names and
    # paths are known, so a reference to them is not reported again as a reference to nothing.
    reported: set[str] = field(default_factory=set)
    reported_files: set[str] = field(default_factory=set)
    # The tools left out (their checks that need every file, such as Brimley's SQL placeholders, still run).
    dropped: list[Tool] = field(default_factory=list)
    # Embeds the documents a schema refers to by URI (bundle.py); None: references stay as written.
    bundler: Bundler | None = None


def apply_prefixes(
    modules: list[SpecModule], prefixes: Mapping[Path, str]
) -> list[SpecModule]:
    """Put the tools of each spec file under the prefix of the nearest folder (or the file itself) that has one,
    before the namespace is built, so every later stage sees only the prefixed wire name; spans still point at
    the name in the spec. An agent's reference to a tool under the same prefix follows the rename.
    """
    if not prefixes:
        return modules
    resolved = {path.resolve(): prefix for path, prefix in prefixes.items()}

    def prefix_of(module: SpecModule) -> str | None:
        path = module.source.path.resolve()
        for place in (path, *path.parents):
            if place in resolved:
                return resolved[place]
        return None

    chosen = [prefix_of(module) for module in modules]
    under: dict[str, set[str]] = {}  # prefix -> the tool names it renames
    for module, prefix in zip(modules, chosen):
        if prefix is not None:
            under.setdefault(prefix, set()).update(
                d.name for d in (*module.tools, *module.dropped) if isinstance(d, Tool)
            )
    renamed: list[SpecModule] = []
    for module, prefix in zip(modules, chosen):
        if prefix is None:
            renamed.append(module)
            continue
        names = under[prefix]

        def wire(name: str, prefix: str = prefix) -> str:
            return f"{prefix}{PREFIX_SEPARATOR}{name}"

        tools = tuple(dataclasses.replace(t, name=wire(t.name)) for t in module.tools)
        agents = tuple(
            dataclasses.replace(
                a, tools=tuple(wire(n) if n in names else n for n in a.tools)
            )
            for a in module.agents
        )
        dropped = tuple(
            dataclasses.replace(d, name=wire(d.name)) if isinstance(d, Tool) else d
            for d in module.dropped
        )
        renamed.append(
            dataclasses.replace(module, tools=tools, agents=agents, dropped=dropped)
        )
    return renamed


def build_namespace(
    modules: list[SpecModule],
    diags: Diagnostics,
    dropped: Sequence[Tool | Entity] = (),
    unread: Collection[Path] = (),
) -> Program:
    """One namespace for the definitions of every module. `dropped` are definitions left out after an error
    (they still take their names, so that a duplicate is reported and a reference to them is not), and
    `unread` the spec files that could not be read at all."""
    program = Program(modules)
    program.reported_files.update(path.resolve().as_posix() for path in unread)
    program.dropped = [d for d in dropped if isinstance(d, Tool)]
    seen: dict[str, Span] = {}
    for module in modules:
        left_out = [d for d in dropped if d.span.source is module.source]
        entities = [*module.entities, *(d for d in left_out if isinstance(d, Entity))]
        tools = [*module.tools, *(d for d in left_out if isinstance(d, Tool))]
        if left_out:
            entities.sort(key=lambda d: (d.span.line, d.span.col))
            tools.sort(key=lambda d: (d.span.line, d.span.col))
        definitions: list[Entity | Tool] = [*entities, *tools]
        for definition in definitions:
            kind = "entity" if isinstance(definition, Entity) else "tool"
            if definition.name in seen:
                diags.error(
                    "duplicate-name",
                    f"{definition.name!r} is defined more than once",
                    definition.span,
                    ("first defined here", seen[definition.name]),
                )
                continue
            seen[definition.name] = definition.span
            if any(definition is d for d in left_out):
                program.reported.add(definition.name)
                if kind == "entity" and module.source.path.name.endswith(
                    ".schema.json"
                ):
                    program.reported_files.add(module.source.path.resolve().as_posix())
            elif isinstance(definition, Entity):
                program.entities[definition.name] = (definition, module)
                if module.source.path.name.endswith(".schema.json"):
                    program.entity_files[module.source.path.resolve().as_posix()] = (
                        definition.name
                    )
            else:
                program.tools[definition.name] = (definition, module)
    _check_agents(modules, program, diags)
    return program


def _check_agents(
    modules: list[SpecModule], program: Program, diags: Diagnostics
) -> None:
    """Every tool an agent lists must be defined somewhere (possibly in another file); agent names are unique."""
    seen: dict[str, Span] = {}
    for module in modules:
        for agent in module.agents:
            if agent.name in seen:
                diags.error(
                    "duplicate-name",
                    f"agent {agent.name!r} is defined more than once",
                    agent.span,
                    ("first defined here", seen[agent.name]),
                )
            seen.setdefault(agent.name, agent.span)
            for name in agent.tools:
                if name not in program.tools and name not in program.reported:
                    close = difflib.get_close_matches(name, sorted(program.tools), n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    diags.error(
                        "unknown-tool",
                        f"agent {agent.name!r} lists {name!r}, which no spec defines{hint}",
                        agent.span,
                    )


# Keywords whose value is a subschema or a list of them (the maps, `properties` ..., are SUBSCHEMA_MAPS).
_SCHEMA_VALUED = frozenset((*SUBSCHEMA, *SUBSCHEMA_LISTS))


def iter_refs(schema: Any, pointer: str = "") -> Iterator[tuple[JObject, str]]:
    """Every object holding a `$ref` in schema positions, with its JSON pointer; iterative, so depth is no risk.

    A `$ref` inside `default`, `examples`, `enum`, `const` or an unknown keyword is data.
    """
    return (
        (node, at)
        for node, at in schema_positions(schema, pointer)
        if isinstance(node.get("$ref"), str)
    )


def schema_positions(
    schema: Any, pointer: str = "", pointers: bool = True
) -> Iterator[tuple[JObject, str]]:
    """Every schema object of a document, with its JSON pointer ("" without `pointers`: building them costs
    the square of the depth); iterative, so depth is no risk.

    Schema positions are the subschemas of the keywords that hold them, as the runtime validator's index reads
    them, and whatever a `$ref` within the document points to (a pointer may name data under an unknown keyword
    as a schema).
    """
    done: set[int] = (
        set()
    )  # the objects walked (a walk from a pointer's target skips them)
    starts = [(schema, pointer)]
    step = _step if pointers else _no_step
    first = True
    while starts:
        stack = [starts.pop(0)]
        while stack:
            node, at = stack.pop()
            if id(node) in done and not first:
                continue
            done.add(id(node))
            if isinstance(node, JArray):
                stack.extend((item, step(at, str(i))) for i, item in enumerate(node))
            if not isinstance(node, JObject):
                continue
            yield node, at
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = _local_target(schema, ref)
                if target is not None and id(target[1]) not in done:
                    starts.append((target[1], target[0]))
            for key in sorted(node, reverse=True):
                value = node[key]
                child = step(at, key)
                if key in SUBSCHEMA_MAPS and isinstance(value, JObject):
                    stack.extend((v, step(child, k)) for k, v in value.items())
                elif key in _SCHEMA_VALUED and isinstance(value, (JObject, JArray)):
                    stack.append((value, child))
        first = False


def _step(at: str, token: str) -> str:
    return f"{at}/{escape_pointer(token)}"


def _no_step(at: str, token: str) -> str:
    return ""


def _local_target(root: Any, ref: str) -> tuple[str, Any] | None:
    """(pointer, node) a `$ref` names by a JSON pointer within `root`, if it names one."""
    if ref != "#" and not ref.startswith("#/"):
        return None
    found, target = resolve_pointer(root, ref[1:])
    return (unquote(ref[1:]), target) if found else None


_IDS = ("$id", "$anchor", "$dynamicAnchor")


def _ref_nodes(schema: Any) -> tuple[list[JObject], bool]:
    """The objects `iter_refs` yields, in the same order, without building their pointers; and `_has_ids` of
    the schema, found on the same walk (one walk per schema instead of two).

    `iter_refs` steps over the maps of subschemas (`properties`, `$defs`, ...) straight to their members, where
    `schema_objects` (and so `_has_ids`) sees the map as an object too and skips members named like data
    keywords: each node carries whether `schema_objects` reaches it, so the answer is exactly `_has_ids`'s.
    Each node carries too whether it is in a schema position; a `$ref` met elsewhere (data under an unknown
    keyword) may still be in one through a pointer, which only `iter_refs` follows: then its answer is taken.
    """
    found = []
    stray = False
    has_ids = False
    stack: list[tuple[Any, bool, bool]] = [(schema, True, True)]
    while stack:
        node, seen, position = stack.pop()
        cls = type(node)
        if cls is JObject or (cls is not JArray and isinstance(node, JObject)):
            if type(node.get("$ref")) is str:
                if position:
                    found.append(node)
                else:
                    stray = True
            if seen and not has_ids:
                has_ids = any(name in node for name in _IDS)
            for key in sorted(node, reverse=True):
                if key in DATA_KEYWORDS:
                    continue
                value = node[key]
                if key in SUBSCHEMA_MAPS and isinstance(value, JObject):
                    if seen and not has_ids:
                        has_ids = any(name in value for name in _IDS)
                    stack.extend(
                        (v, seen and k not in DATA_KEYWORDS, position)
                        for k, v in value.items()
                    )
                elif isinstance(value, (JObject, JArray)):
                    stack.append((value, seen, position and key in _SCHEMA_VALUED))
        elif cls is JArray or isinstance(node, JArray):
            stack.extend((item, seen, position) for item in node)
    if stray:
        found = [node for node, _ in iter_refs(schema)]
    return found, has_ids


_IN_PLACE = ("not", "if", "then", "else")
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")


def _in_place_edges(node: JObject, root: Any) -> Iterator[tuple[Any, JObject | None]]:
    """The schemas applied to the same instance as `node` (its `$ref` target, its `allOf`, ... branches), each
    with the object holding the `$ref` that leads there (None for the other applicators).
    """
    ref = node.get("$ref")
    if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
        found, target = resolve_pointer(root, ref[1:])
        if found and isinstance(target, JObject):
            yield target, node
    for key in _IN_PLACE:
        if isinstance(node.get(key), JObject):
            yield node[key], None
    for key in _IN_PLACE_LISTS:
        branches = node.get(key)
        if isinstance(branches, JArray):
            yield from ((b, None) for b in branches if isinstance(b, JObject))


def escape_pointer(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _anchor_pointer(schema: Any, anchor: str) -> str | None:
    """The JSON pointer (escaped for a URI fragment) of the schema declaring `$anchor` `anchor` in the root
    resource of `schema` (not inside an embedded resource, which has its own anchors), or None.
    """
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, JObject) or (at and "$id" in node):
            continue
        if node.get("$anchor") == anchor:
            return quote(at, safe="/~!$&'()*+,;=:@")
        for keyword, key, child in subschemas(node):
            step = f"{at}/{escape_pointer(keyword)}"
            step += "" if key is None else f"/{escape_pointer(str(key))}"
            stack.append((child, step))
    return None


def resolve_pointer(doc: Any, pointer: str) -> tuple[bool, Any]:
    """The value a JSON pointer (from a URI fragment: percent-encoded) names in `doc`. Only "" names the
    root: "/" names the member called "" (RFC 6901), as the runtime validator reads it.
    """
    node = doc
    if pointer == "":
        return True, doc
    if not pointer.startswith("/"):
        return False, None
    for raw in pointer[1:].split("/"):
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, JObject) and token in node:
            node = node[token]
        elif isinstance(node, JArray) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False, None
    return True, node


def _has_ids(schema: Any) -> bool:
    """Whether the document names parts of itself (`$id`, anchors): then refs resolve by URI, at run time."""
    return any(
        key in node
        for node in schema_objects(schema)
        for key in ("$id", "$anchor", "$dynamicAnchor")
    )


class DocumentBuilder:
    """Makes one document self-contained for a given owner (a tool or entity) in a given file."""

    def __init__(self, program: Program, diags: Diagnostics) -> None:
        self.program = program
        self.diags = diags
        # when set, the spec files (relative) whose entities the documents built embed (for rebuilds)
        self.used: set[str] | None = None

    def build(
        self, schema: Any, module: SpecModule, own_entity: str | None = None
    ) -> Document:
        bundler = self.program.bundler
        if bundler is not None:
            schema = bundler.prepare(schema, module)
        embedded: dict[str, str] = {}  # entity name -> $defs key
        pending: list[str] = []
        defs = schema.get("$defs") if isinstance(schema, JObject) else None
        scope = Scope(set(defs or ()))

        def embed(name: str) -> str:
            if name == own_entity:
                return ""  # an entity referring to itself points at its own root
            if name not in embedded:
                embedded[name] = scope.claim(name, f"{name}Entity")
                pending.append(name)
            return f"/$defs/{escape_pointer(embedded[name])}"

        root, has_ids, local = self._rewrite(
            schema, module, "", embed, check_local=True
        )
        if isinstance(root, JObject) and "$schema" in root:
            root = root.replace(
                **{"$schema": DELETE}
            )  # documents are emitted as draft 2020-12
        defs_items: dict[str, Any] = dict(defs or {})
        while pending:
            name = pending.pop(0)
            entity, entity_module = self.program.entities[name]
            if self.used is not None:
                self.used.add(entity_module.source.rel.as_posix())
            prefix = f"/$defs/{escape_pointer(embedded[name])}"
            body = entity.schema
            if bundler is not None:
                body = bundler.prepare(body, entity_module)
            body, _, _ = self._rewrite(
                body, entity_module, prefix, embed, check_local=False
            )
            if isinstance(body, JObject):
                body = body.replace(**{"$id": DELETE, "$schema": DELETE})
            defs_items[embedded[name]] = body
        if embedded and isinstance(root, JObject):
            span = root.span
            ordered = (
                {k: defs_items[k] for k in sorted(defs_items)}
                if not defs
                else defs_items
            )
            root = root.replace(
                **{
                    "$defs": JObject(
                        ordered, defs.span if isinstance(defs, JObject) else span
                    )
                }
            )
        pointers = {
            f"/$defs/{escape_pointer(key)}": name for name, key in embedded.items()
        }
        if embedded:  # the entities' schemas are part of the document now
            has_ids, local = _has_ids(root), True
        bundled = bundler.bundle(root, module) if bundler is not None else root
        if bundled is not root:  # documents of other files are part of it now
            has_ids, local = _has_ids(bundled), True
        # Only a `$ref` within the document can lead back: without one there is no loop to look for.
        if local and not has_ids:
            self._check_in_place_loops(bundled)
        # References by URI, or rewritten by bundling: each one resolved now, with the validator's rules.
        if has_ids or bundled is not root:
            check_refs(bundled, self.diags, bundler.reported if bundler else ())
        if (
            local or has_ids
        ):  # a chain of references too long for the validator to follow
            check_chains(bundled, self.diags)
        root = bundled
        return Document(root, pointers)

    def _check_in_place_loops(self, root: Any) -> None:
        """A schema that reaches itself through `$ref`s and in-place applicators alone (`A` is `$ref B`, `B` is
        `$ref A`; an entity that is `anyOf` itself) never finishes checking an instance: a diagnostic.
        """
        state: dict[int, int] = (
            {}
        )  # id of a schema object -> 1 on the current path, 2 done
        # Only schemas: an object under an unknown keyword is data unless a pointer names it.
        for start, _ in schema_positions(root, pointers=False):
            if id(start) in state:
                continue
            state[id(start)] = 1
            path: list[tuple[JObject | None, Iterator[tuple[Any, JObject | None]]]] = [
                (None, _in_place_edges(start, root))
            ]
            nodes = [start]
            while path:
                child, via = next(path[-1][1], (None, None))
                if child is None:
                    state[id(nodes.pop())] = 2
                    path.pop()
                elif state.get(id(child)) == 1:  # a loop: it holds at least one `$ref`
                    first = next(i for i, n in enumerate(nodes) if n is child)
                    refs = [r for r, _ in path[first + 1 :]] + [via]
                    self._loop(next(r for r in reversed(refs) if r is not None))
                elif id(child) not in state:
                    state[id(child)] = 1
                    nodes.append(child)
                    path.append((via, _in_place_edges(child, root)))

    def _loop(self, ref_node: JObject) -> None:
        self.diags.error(
            "ref-loop",
            "this $ref leads back to a schema it is part of without descending into the instance (only "
            "through $ref, allOf, anyOf, oneOf, not, if/then/else): checking a value would never end",
            ref_node.value_span("$ref"),
        )

    def _rewrite(
        self,
        schema: Any,
        module: SpecModule,
        prefix: str,
        embed: Any,
        check_local: bool,
    ) -> tuple[Any, bool, bool]:
        """Return `schema` with entity refs pointing into `$defs` and local refs shifted under `prefix`, whether
        it names parts of itself (`_has_ids`), and whether it holds a `$ref` within the document after that.
        """
        replacements: dict[str, str] = {}
        nodes, has_ids = _ref_nodes(schema)
        local = False
        for node in nodes:
            ref: str = node["$ref"]
            local = local or ref.startswith("#")
            target = self._target(ref, node, module, schema, has_ids, check_local)
            if target is None:
                continue
            kind, value = target
            if kind == "entity":
                local = True
                replacements[ref] = "#" + embed(value[0]) + value[1]
            elif kind == "local" and prefix:
                replacements[ref] = "#" + prefix + ref[1:]
        if not replacements:
            return schema, has_ids, local
        return _replace_refs(schema, replacements, nodes), has_ids, local

    def _target(
        self,
        ref: str,
        node: JObject,
        module: SpecModule,
        doc: Any,
        has_ids: bool,
        check_local: bool,
    ) -> tuple[str, Any] | None:
        span = node.value_span("$ref")
        if ref.startswith(ENTITY_SCHEME):
            name = ref[len(ENTITY_SCHEME) :]
            if name in self.program.reported:
                return None
            if name not in self.program.entities:
                self._unknown_entity(name, span)
                return None
            return "entity", (name, "")
        if ref.startswith("#"):
            fragment = ref[1:]
            if (
                check_local
                and not has_ids
                and (fragment == "" or fragment.startswith("/"))
            ):
                found, _ = resolve_pointer(doc, fragment)
                if not found:
                    self.diags.error(
                        "ref-unresolved",
                        f"$ref {ref!r} points to nothing in this document",
                        span,
                    )
                    return None
            elif check_local and not has_ids:
                message = f"$ref {ref!r}: no $anchor {unquote(fragment)!r} is declared in this document"
                self.diags.error("ref-unresolved", message, span)
                return None
            return "local", None
        bundler = self.program.bundler
        if bundler is not None and span.key in bundler.reported:
            return None  # a document of the specs tree that cannot be read: bundle.py said why
        file_part, _, fragment = ref.partition("#")
        if file_part.startswith(META_SCHEMA_BASE):
            return (
                None  # the draft 2020-12 meta-schemas travel with the runtime validator
            )
        if file_part.endswith(".json") and "://" not in file_part:
            base = module.source.path.resolve().parent.as_posix()
            path = posixpath.normpath(posixpath.join(base, unquote(file_part)))
            defined = self.program.entity_files.get(path)
            if defined is not None:
                return self._into_entity(ref, defined, fragment, span)
            if path in self.program.reported_files:
                return None
            if not has_ids:
                message = f"$ref {ref!r}: no spec file {file_part!r} defines an entity"
                self.diags.error("ref-unresolved", message, span)
                return None
        if has_ids or (bundler is not None and bundler.handles(ref)):
            return None  # resolved by URI: embedded or reported by bundle.py, checked by check_refs.py
        self.diags.error(
            "unsupported-keyword",
            f"$ref {ref!r}: only references within the document and to other spec files are supported",
            span,
        )
        return None

    def _into_entity(
        self, ref: str, name: str, fragment: str, span: Span
    ) -> tuple[str, Any] | None:
        """A reference into another spec file's entity: its pointer must lead somewhere there, as a pointer
        within one document must (the runtime validator would fail every instance that reaches it); an
        anchor becomes the pointer to the schema that declares it."""
        if not fragment:
            return "entity", (name, "")
        schema = self.program.entities[name][0].schema
        if fragment.startswith("/"):
            if resolve_pointer(schema, fragment)[0]:
                return "entity", (name, fragment)
            what = "points to nothing in that document"
        else:
            pointer = _anchor_pointer(schema, unquote(fragment))
            if pointer is not None:
                return "entity", (name, pointer)
            what = f"no $anchor {unquote(fragment)!r} is declared in that document"
        self.diags.error("ref-unresolved", f"$ref {ref!r}: {what}", span)
        return None

    def _unknown_entity(self, name: str, span: Span) -> None:
        close = difflib.get_close_matches(name, sorted(self.program.entities), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        self.diags.error(
            "unknown-entity",
            f"no entity named {name!r} is defined in any spec{hint}",
            span,
        )


def _replace_refs(
    schema: Any, replacements: dict[str, str], nodes: Collection[JObject]
) -> Any:
    """`schema` with the `$ref` of each of `nodes` (its schema positions holding one) replaced; the same string
    elsewhere (data under an unknown keyword) is left as written."""
    chosen = {id(node) for node in nodes}

    def visit(node: Any) -> Any:
        if isinstance(node, JArray):
            items = [visit(item) for item in node]
            if all(new is old for new, old in zip(items, node)):
                return node
            return JArray(items, node.span, node.item_spans)
        if not isinstance(node, JObject):
            return node
        changes = {
            key: new
            for key, value in node.items()
            if key not in DATA_KEYWORDS
            and isinstance(value, (JObject, JArray))
            and (new := visit(value)) is not value
        }
        ref = node.get("$ref")
        if id(node) in chosen and isinstance(ref, str) and ref in replacements:
            changes["$ref"] = replacements[ref]
        return node.replace(**changes) if changes else node

    return visit(schema)
