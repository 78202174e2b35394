"""From JSON Schema to Python types: the normative mapping of SPEC §3, and lifting objects into named models.

A generated model has two layers. The runtime check (`_validation`, run before Pydantic sees the data) decides
acceptance with full JSON Schema semantics; the Pydantic types below give the data its Python shape. So a type
chosen here must never reject an instance the schema accepts — where no precise Python type is safe, `Any` is.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from urllib.parse import unquote

from ..diagnostics import Diagnostics
from ..ir import JArray, JObject, schema_objects, to_plain
from ..plan import ANY, NONE, FieldPlan, ModelPlan, ModulePlan, PyType
from toolspec_runtime.literal import holds_decimal
from toolspec_runtime.validation import SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, is_valid
from .native import NativeTyper, object_model_is_native
from .naming import Scope, class_name, field_name, pascal
from .resolve import Document, escape_pointer, resolve_pointer

_ANNOTATION_ONLY = {
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
}
_STRING_FORMATS = {
    "date": PyType("_dt.date", needs=frozenset({"_dt"})),
    "date-time": PyType("_dt.datetime", needs=frozenset({"_dt"})),
}
_DECIMAL = PyType("_decimal.Decimal", needs=frozenset({"_decimal"}))
# A document nests its schemas 64 containers deep at most, but a chain of `$ref`s nests types without end: a
# type nested deeper than MAX_TYPE_DEPTH (as Python parses its annotation), or met deeper than MAX_NESTING schemas
# into a model (models included, counting through `$ref`s), is `Any`. So every annotation stays far inside what
# CPython parses (200 brackets) and compiles, and typing a document recurses a bounded number of times. `Any` is
# safe: the runtime check decides acceptance from the schema itself.
MAX_TYPE_DEPTH = 64
MAX_NESTING = 64
_SIMPLE = {
    "string": PyType("str"),
    "integer": PyType("int"),
    "number": PyType("float"),
    "boolean": PyType("bool"),
    "null": NONE,
}


def is_structured_object(schema: Any) -> bool:
    """An object schema that becomes a model class: declared `type: object` with named properties or closed."""
    if not isinstance(schema, JObject):
        return False
    kind = schema.get("type")
    if kind != "object" and not (
        isinstance(kind, JArray) and list(kind) in (["object"], ["object", "null"])
    ):
        return False
    return "properties" in schema or schema.get("additionalProperties") is False


def default_source(kind: PyType, value: Any) -> str:
    """A default as a signature writes it: the literal, or `...` where the JSON value is not a Python value of
    the field's type (a model, a date or decimal, a list or object among `Literal`s). Plan and SQL plan share it.
    """
    from ..literals import py_literal

    if kind.models or "_dt" in kind.needs or "_decimal" in kind.needs:
        return "..."
    if isinstance(value, (dict, list)) and value and "Literal" in kind.needs:
        return "..."
    return py_literal(value)


class DocumentTyper:
    """Types one self-contained document (a tool's input, output or config, or an entity) into a module."""

    def __init__(
        self,
        doc: Document,
        const: str,
        module: ModulePlan,
        classes: Scope,
        entity_classes: dict[str, str],
        diags: Diagnostics,
        plain: Any = None,
    ) -> None:
        self.doc = doc
        # `plain`: the document as plain JSON, when the caller has it already (it is the module's constant)
        self.plain_root = to_plain(doc.schema) if plain is None else plain
        self.const = const
        self.module = module
        self.classes = classes
        self.entity_classes = entity_classes
        self.diags = diags
        self._by_pointer: dict[str, PyType] = {}
        # the type of every other subschema typed so far: a subschema reached again (through `$ref`s that share
        # it, as `{anyOf: [{$ref: s}, {$ref: s}]}` nested 34 deep does 2**34 times) is typed once
        self._typed: dict[str, PyType] = {}
        self._in_progress: set[str] = set()
        self._nesting = 0  # the calls of `map` under way
        self._native = NativeTyper(
            self._native_model, self._native_ref, (const, self.plain_root)
        )

    # -- models -------------------------------------------------------------------------------------------

    def root_model(
        self, cls: str, doc_text: str | None, *, force_object: bool = False
    ) -> ModelPlan:
        """The model (class name `cls`, already claimed) for the whole document: a BaseModel for an object
        schema, else a RootModel."""
        schema = self.doc.schema
        self._by_pointer[""] = PyType(cls, models=frozenset({cls}))
        if force_object or is_structured_object(schema):
            return self._object_model(schema, "", cls, doc_text)
        self._in_progress.add("")
        root = self._map_inner(schema, "", cls)
        plan = ModelPlan(cls, self.module.dotted, doc_text, self.const, "", root=root)
        self.module.models.append(plan)
        return plan

    def root_type(self, hint: str) -> PyType:
        """The Python type of the whole document, lifting a model named `hint` if it is an object."""
        return self.map(self.doc.schema, "", hint)

    def _object_model(
        self, schema: Any, pointer: str, cls: str, doc_text: str | None
    ) -> ModelPlan:
        properties = schema.get("properties") if isinstance(schema, JObject) else None
        required_list = (
            schema.get("required", ()) if isinstance(schema, JObject) else ()
        )
        required = (
            {r for r in required_list if isinstance(r, str)}
            if isinstance(required_list, JArray)
            else set()
        )
        names = Scope()
        fields = []
        natives: list[Any] = []
        for wire, sub in (properties or {}).items():
            sub_pointer = f"{pointer}/properties/{escape_pointer(wire)}"
            field = self._field(wire, sub, sub_pointer, cls, names, wire in required)
            fields.append(field)
            natives.append(
                self._native.field(
                    sub,
                    sub_pointer,
                    field.required or (field.has_default and field.default is not None),
                    field.type,
                )
            )
        closed = (
            schema.get("additionalProperties") is False
            and "patternProperties" not in schema
        )
        # Where a Python name differs from its wire name and additional properties are allowed, an additional
        # property may bear the Python name, which Pydantic would count as that field set: not native.
        renamed = any(field.py_name != field.wire_name for field in fields)
        native = (
            tuple(natives)
            if object_model_is_native(schema)
            and None not in natives
            and (closed or not renamed)
            else None
        )
        plan = ModelPlan(
            cls,
            self.module.dotted,
            doc_text if doc_text is not None else _description(schema),
            self.const,
            pointer,
            tuple(fields),
            extra="forbid" if closed else "allow",
            native=native,
        )
        self.module.models.append(plan)
        return plan

    def _field(
        self,
        wire: str,
        sub: Any,
        pointer: str,
        owner: str,
        names: Scope,
        required: bool,
    ) -> FieldPlan:
        py_name = names.claim(field_name(wire))
        kind = self.map(sub, pointer, owner + pascal(wire))
        description = _description(sub)
        if required:
            return FieldPlan(py_name, wire, kind, True, description=description)
        optional = kind if kind.nullable else PyType.union([kind, NONE])
        if isinstance(sub, JObject) and "default" in sub:
            default = to_plain(sub["default"])
            if not _holds_default(kind, default):
                self.diags.warning(
                    "default-range",
                    f"the default of {wire!r} holds a number no float holds ({_number_beyond(default)}), and "
                    f"the field is typed {kind.expr}: the default is ignored (the field defaults to None); "
                    "the schema keeps it",
                    sub.value_span("default"),
                )
            elif _default_fits(default, sub, self.plain_root, pointer):
                return FieldPlan(
                    py_name,
                    wire,
                    kind if default is not None else optional,
                    False,
                    default,
                    True,
                    description,
                )
            else:
                self.diags.warning(
                    "default-mismatch",
                    f"the default of {wire!r} does not match its own schema; it is ignored (the field defaults to None)",
                    sub.value_span("default"),
                )
        return FieldPlan(py_name, wire, optional, False, None, True, description)

    # -- types --------------------------------------------------------------------------------------------

    def map(self, schema: Any, pointer: str, hint: str) -> PyType:
        """The Python type for `schema` found at `pointer`; `hint` names a model lifted from it."""
        if pointer in self.doc.entity_pointers:
            return self._entity(self.doc.entity_pointers[pointer])
        if pointer in self._by_pointer:
            return self._by_pointer[pointer]
        if pointer in self._typed:
            return self._typed[pointer]
        if pointer in self._in_progress:
            return (
                ANY  # a cycle through non-model schemas: only a model can name itself
            )
        if self._nesting >= MAX_NESTING:
            return ANY
        self._nesting += 1
        try:
            kind = self._map_new(schema, pointer, hint)
        finally:
            self._nesting -= 1
        kind = kind if kind.depth <= MAX_TYPE_DEPTH else ANY
        self._typed.setdefault(pointer, kind)
        return kind

    def _map_new(self, schema: Any, pointer: str, hint: str) -> PyType:
        """`map` of a schema not typed yet."""
        if is_structured_object(schema):
            cls = self.classes.claim(hint, *self._alternatives(hint))
            kind = PyType(cls, models=frozenset({cls}))
            if isinstance(schema.get("type"), JArray) and "null" in schema["type"]:
                kind = PyType.union([kind, NONE])
            self._by_pointer[pointer] = kind
            self._object_model(schema, pointer, cls, None)
            return kind
        self._in_progress.add(pointer)
        try:
            return self._map_inner(schema, pointer, hint)
        finally:
            self._in_progress.discard(pointer)

    def _native_model(self, schema: Any, pointer: str) -> tuple[bool, PyType | None]:
        """Whether the subschema at `pointer` is typed as a model, and that model's type once it is known."""
        if pointer in self.doc.entity_pointers:
            return True, self._entity(self.doc.entity_pointers[pointer])
        if is_structured_object(schema):
            return True, self._by_pointer.get(pointer)
        return False, None

    def _native_ref(self, ref: str, pointer: str) -> tuple[str, Any] | None:
        """The (pointer, schema) a local `$ref` names, when it is a plain pointer into the document."""
        if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
            return None
        if _resource_of(self.doc.schema, pointer):
            return None
        target_pointer = unquote(ref[1:])
        found, target = resolve_pointer(self.doc.schema, target_pointer)
        return (target_pointer, target) if found else None

    def _alternatives(self, hint: str) -> tuple[str, ...]:
        return (class_name(hint),) if class_name(hint) != hint else ()

    def _entity(self, name: str) -> PyType:
        cls = self.entity_classes[name]
        return PyType(cls, models=frozenset({cls}))

    def _map_inner(self, schema: Any, pointer: str, hint: str) -> PyType:
        if not isinstance(schema, JObject):
            return ANY  # boolean schemas: true accepts anything, false nothing (the check rejects)
        if isinstance(schema.get("$ref"), str):
            return self._ref(schema["$ref"], pointer, hint)
        if "enum" in schema or "const" in schema:
            values = (
                list(schema["enum"]) if isinstance(schema.get("enum"), JArray) else []
            )
            if "const" in schema:
                values = [schema["const"]]
            return _literal(values)
        types = _types(schema)
        if not types:
            return self._combinator(schema, pointer, hint)
        options = [
            self._one_type(t, schema, pointer, hint, len(types) > 1) for t in types
        ]
        return PyType.union(options)

    def _one_type(
        self, kind: str, schema: JObject, pointer: str, hint: str, in_union: bool
    ) -> PyType:
        if kind == "string":
            return _STRING_FORMATS.get(schema.get("format"), _SIMPLE["string"])
        if kind == "number":
            if schema.get("format") == "decimal":
                return _DECIMAL
            # JSON numbers include integers; in a union keep them ints, as SPEC §3's `str | int | float | bool`.
            return (
                PyType("int | float", width=2, depth=2)
                if in_union
                else _SIMPLE["number"]
            )
        if kind == "array":
            items = schema.get("items")
            if "prefixItems" in schema or items is None:
                return PyType("list[Any]", needs=frozenset({"Any"}))
            item = self.map(items, f"{pointer}/items", hint + "Item")
            return PyType(
                f"list[{item.expr}]", item.models, item.needs, depth=item.depth + 1
            )
        if kind == "object":
            extra = schema.get("additionalProperties")
            if (
                isinstance(extra, JObject)
                and "properties" not in schema
                and "patternProperties" not in schema
            ):
                value = self.map(
                    extra, f"{pointer}/additionalProperties", hint + "Value"
                )
                return PyType(
                    f"dict[str, {value.expr}]",
                    value.models,
                    value.needs,
                    depth=value.depth + 2,
                )
            return PyType("dict[str, Any]", needs=frozenset({"Any"}))
        return _SIMPLE.get(kind, ANY)

    def _combinator(self, schema: JObject, pointer: str, hint: str) -> PyType:
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, JArray) and branches:
                return PyType.union(
                    [
                        self.map(
                            branch, f"{pointer}/{keyword}/{i}", f"{hint}Option{i + 1}"
                        )
                        for i, branch in enumerate(branches)
                    ]
                )
        branches = schema.get("allOf")
        if isinstance(branches, JArray) and len(branches) == 1:
            return self.map(branches[0], f"{pointer}/allOf/0", hint)
        return ANY

    def _ref(self, ref: str, pointer: str, hint: str) -> PyType:
        if not ref.startswith("#") or (len(ref) > 1 and not ref.startswith("#/")):
            return ANY  # resolved by URI at run time; no static type
        # A fragment is relative to the innermost schema resource (`$id`) around the reference, not the document.
        target_pointer = _resource_of(self.doc.schema, pointer) + unquote(ref[1:])
        if target_pointer in self.doc.entity_pointers:
            return self._entity(self.doc.entity_pointers[target_pointer])
        found, target = resolve_pointer(self.doc.schema, target_pointer)
        if not found:
            return ANY
        last = target_pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        return self.map(target, target_pointer, pascal(last) or hint)


def _resource_of(root: Any, pointer: str) -> str:
    """The pointer of the innermost embedded schema resource (a subschema with `$id`) holding `pointer`; "" for
    the document itself. `pointer` names a schema, so its tokens alternate keywords with names or indexes.
    """
    found, node, here = "", root, ""
    tokens = pointer.split("/")[1:] if pointer else []
    expect_schema = True
    for raw in tokens:
        token = raw.replace("~1", "/").replace("~0", "~")
        if expect_schema and isinstance(node, JObject) and _is_resource(node) and here:
            found = here
        if isinstance(node, JObject) and token in node:
            node = node[token]
        elif isinstance(node, JArray) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return found
        here = f"{here}/{raw}"
        # After a keyword naming a map or list of subschemas comes a name or index; after anything else, a schema.
        expect_schema = not (
            expect_schema and (token in SUBSCHEMA_MAPS or token in SUBSCHEMA_LISTS)
        )
    if expect_schema and isinstance(node, JObject) and _is_resource(node) and here:
        found = here
    return found


def _is_resource(schema: JObject) -> bool:
    identifier = schema.get("$id")
    return isinstance(identifier, str) and not identifier.startswith("#")


def _types(schema: JObject) -> list[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, JArray):
        return [k for k in kind if isinstance(k, str)]
    return []


_INT64_LIMIT = 2**63


def _literal(values: list[Any]) -> PyType:
    """`Literal[...]` for enums of strings, integers, booleans and null; anything else stays `Any`."""
    plain = [v for v in values if v is not None]
    if not all(isinstance(v, (str, int)) for v in plain) or not values:
        return ANY
    if any(isinstance(v, bool) for v in plain) and any(
        not isinstance(v, bool) and isinstance(v, int) for v in plain
    ):
        return ANY  # Literal cannot tell True from 1
    if any(isinstance(v, int) and not -_INT64_LIMIT <= v < _INT64_LIMIT for v in plain):
        # pydantic-core holds a Literal's integers in 64 bits: a larger member refuses every value.
        kind = ANY if any(isinstance(v, str) for v in plain) else _SIMPLE["integer"]
        return PyType.union([kind, NONE]) if len(plain) != len(values) else kind
    from ..literals import py_literal

    # Each member once, in order of first occurrence: a dict, not `not in` on a list (quadratic in the enum).
    parts = list(dict.fromkeys(py_literal(value) for value in plain))
    kind = (
        PyType(f"Literal[{', '.join(parts)}]", needs=frozenset({"Literal"}), depth=3)
        if parts
        else NONE
    )
    if len(plain) != len(values) and parts:
        kind = PyType.union([kind, NONE])
    return kind


def _description(schema: Any) -> str | None:
    if isinstance(schema, JObject) and isinstance(schema.get("description"), str):
        return str(schema["description"])
    return None


_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


def _holds_default(kind: PyType, default: Any) -> bool:
    """Whether the field's Python type can hold the default: a number no float holds (a Decimal, `1e999`,
    `1e-400`) only in a `decimal` or `Any` field, as a `float` would make it infinity or zero.
    """
    return (
        "_decimal" in kind.needs or kind.expr == ANY.expr or not holds_decimal(default)
    )


def _number_beyond(value: Any) -> str:
    """The first Decimal in a JSON value, as text."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, Decimal):
            return str(item)
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
    return ""


def _default_fits(default: Any, sub: Any, root: Any, pointer: str) -> bool:
    """Whether `default` is valid against the subschema at `pointer` of `root` (`sub`). A subschema that
    refers to nothing is checked alone: indexing the whole document for each default cost a tenth of
    planning."""
    if any(key in node for node in schema_objects(sub) for key in _REFERENCES):
        return is_valid(default, root, pointer=pointer)
    return is_valid(default, to_plain(sub))
