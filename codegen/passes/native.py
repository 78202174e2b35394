"""Which schemas pydantic-core can validate exactly on its own: the native path of generated models.

A field's subschema is native when every keyword in it has an exact pydantic-core equivalent in strict mode
(`Field` constraints, `Literal`, `extra="forbid"`, ...) or a small exact check of the runtime
(`_models.MultipleOf`, `DATE`, `UNIQUE_STRINGS`, ...). A model whose fields are all native (and whose nested
models are native too: see `native_models`) becomes a `NativeModel`: Pydantic alone validates it, and the
interpreter only sees what strict mode refuses. So the annotations built here must never accept an instance
the schema rejects; accepting less is fine (the interpreter then decides). Anything unsure is not native.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Set
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from ..ir import JArray, JObject
from ..literals import py_literal
from ..plan import ModelPlan, PyType
from toolspec_runtime.validation import PatternError, compile_pattern

K = TypeVar("K", bound=Hashable)

# Keywords that never change what a schema accepts (2020-12 annotations, and `$defs`, whose schemas count only
# where referenced). Keywords outside the 2020-12 vocabulary are ignored, as a validator ignores them.
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$defs",
        "definitions",
        "$schema",
        "$anchor",
        "contentEncoding",
        "contentMediaType",
    }
)
_VOCABULARY = frozenset(
    {
        "$id",
        "$ref",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
        "$vocabulary",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependencies",
        "prefixItems",
        "items",
        "additionalItems",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        "format",
        "contentSchema",
    }
)
_BY_TYPE = {
    "string": frozenset({"minLength", "maxLength", "pattern", "format"}),
    "integer": frozenset(
        {
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "format",
        }
    ),
    "number": frozenset(
        {
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "format",
        }
    ),
    "boolean": frozenset({"format"}),
    "array": frozenset({"items", "minItems", "maxItems", "uniqueItems", "format"}),
    "object": frozenset({"additionalProperties", "format"}),
}
_BOUNDS = {
    "minimum": "ge",
    "exclusiveMinimum": "gt",
    "maximum": "le",
    "exclusiveMaximum": "lt",
}
# The greatest length of a str, list or dict (CPython's lengths are a Py_ssize_t; on 32-bit ones, smaller still).
MAX_LENGTH = 2**63 - 1
# Beyond 2**53 a float bound, or an int converted to a float for comparison, is no longer exact.
_EXACT_FLOAT = 2**53
_ANNOTATED = frozenset({"Annotated"})
_FORMATS = {
    "date": ("_dt.date", "_models.DATE"),
    "date-time": ("_dt.datetime", "_models.DATE_TIME"),
}
JSON_VALUE = PyType("_models.JsonValue")


@dataclass(frozen=True)
class NativeType:
    """A native annotation, `Annotated[base, *metadata]`, and what the model around it must know."""

    base: PyType
    metadata: tuple[str, ...] = ()
    # Holds numbers of arbitrary JSON (`JsonValue`) or a decimal: JSON text must then be read by `read_json`.
    keeps_numbers: bool = False
    strings: bool = False  # every value is a string (so `uniqueItems` is set equality)
    nullable: bool = False
    # A field checked apart (`_models.Checked`): (the constant naming the document, the field's pointer).
    checked: tuple[str, str] | None = None

    @cached_property  # read several times for each field while rendering (frozen: it never changes)
    def type(self) -> PyType:
        base = self.base
        if not self.metadata:
            return base
        expr = f"Annotated[{base.expr}, {', '.join(self.metadata)}]"
        needs = base.needs | _ANNOTATED
        if any(item.startswith("Field(") for item in self.metadata):
            needs |= {"Field"}
        return PyType(expr, base.models, needs, base.nullable)


class NativeTyper:
    """Native annotations for the subschemas of one document.

    `model_type(schema, pointer)` tells whether the document typer makes a model of a subschema (an entity,
    a lifted object), and its type (None if it has none yet); `resolve(ref, pointer)` the (pointer, schema) a local `$ref` names,
    or None.
    """

    def __init__(
        self,
        model_type: Callable[[Any, str], tuple[bool, PyType | None]],
        resolve: Callable[[str, str], tuple[str, Any] | None],
        document: tuple[str, Any] | None = None,
    ) -> None:
        self._model_type = model_type
        self._resolve = resolve
        # (the constant naming the document, the plain document) for fields the interpreter checks
        self._document = document
        self._dynamic: bool | None = None

    def field(
        self, schema: Any, pointer: str, required: bool, plain: PyType | None = None
    ) -> NativeType | None:
        """The annotation of a model field with this subschema; an optional field that is not nullable
        still rejects null (None is only its "absent" default). A field with keywords that have no native
        form keeps its plain type `plain`, and the interpreter checks that field alone (`_models.Checked`).
        """
        found = self.native(schema, pointer, 0)
        if found is None:
            return self._checked(pointer, plain)
        if required or found.nullable:
            return found
        base = found.base
        return NativeType(
            PyType(f"{base.expr} | None", base.models, base.needs, nullable=True),
            ("_models.NOT_NULL", *found.metadata),
            found.keeps_numbers,
        )

    def _checked(self, pointer: str, plain: PyType | None) -> NativeType | None:
        """A field the interpreter checks: only where its type holds no model (a model would be checked
        again, in strict mode) and the document has no dynamic reference (whose meaning depends on the path
        from the document's root)."""
        if plain is None or plain.models or self._document is None:
            return None
        const, document = self._document
        if self._dynamic is None:
            self._dynamic = _has_dynamic_reference(document)
        if self._dynamic:
            return None
        marker = f"_models.Checked({const}, {py_literal(pointer)})"
        return NativeType(
            plain,
            (marker,),
            keeps_numbers=True,
            nullable=True,
            checked=(const, pointer),
        )

    def native(self, schema: Any, pointer: str, depth: int) -> NativeType | None:
        if depth > 32:
            return None
        is_model, model = self._model_type(schema, pointer)
        if is_model:
            return None if model is None else NativeType(model, nullable=model.nullable)
        if schema is True:
            return NativeType(JSON_VALUE, keeps_numbers=True, nullable=True)
        if not isinstance(schema, JObject):
            return None
        keys = _keywords(schema)
        if not keys:
            return NativeType(JSON_VALUE, keeps_numbers=True, nullable=True)
        if "$ref" in keys:
            target = (
                self._resolve(schema["$ref"], pointer) if keys == {"$ref"} else None
            )
            if target is None or not isinstance(schema["$ref"], str):
                return None
            return self.native(target[1], target[0], depth + 1)
        if keys == {"anyOf"} or keys == {"oneOf"}:
            return self._nullable_branch(schema, pointer, keys.pop(), depth)
        if "enum" in keys or "const" in keys:
            return _string_literal(schema, keys)
        return self._typed(schema, pointer, keys, depth)

    def _nullable_branch(
        self, schema: JObject, pointer: str, keyword: str, depth: int
    ) -> NativeType | None:
        """`anyOf` / `oneOf` of a schema and `{"type": "null"}`: that schema, or null."""
        branches = schema[keyword]
        if not isinstance(branches, JArray) or len(branches) != 2:
            return None
        nulls = [i for i, branch in enumerate(branches) if _is_null(branch)]
        if len(nulls) != 1:
            return None
        other = 1 - nulls[0]
        found = self.native(branches[other], f"{pointer}/{keyword}/{other}", depth + 1)
        if found is None or found.nullable:
            return None
        return _or_null(found)

    def _typed(
        self, schema: JObject, pointer: str, keys: set[str], depth: int
    ) -> NativeType | None:
        kinds = schema.get("type")
        names = [kinds] if isinstance(kinds, str) else list(kinds or ())
        if not isinstance(kinds, (str, JArray)) or len(set(names)) != len(names):
            return None
        nullable = "null" in names
        names = [name for name in names if name != "null"]
        if len(names) != 1 or not all(isinstance(n, str) for n in names):
            return None if names else _none(keys)
        kind = names[0]
        allowed = _BY_TYPE.get(kind)
        if allowed is None or not keys - {"type"} <= allowed:
            return None
        if kind == "string":
            found = _string(schema)
        elif kind in ("integer", "number"):
            found = _number(schema, kind)
        elif kind == "boolean":
            found = NativeType(PyType("bool"))
        elif kind == "array":
            found = self._array(schema, pointer, depth)
        else:
            found = self._object(schema, pointer, depth)
        if found is None:
            return None
        return _or_null(found) if nullable else found

    def _array(self, schema: JObject, pointer: str, depth: int) -> NativeType | None:
        if "items" in schema:
            item = self.native(schema["items"], f"{pointer}/items", depth + 1)
        else:
            item = NativeType(JSON_VALUE, keeps_numbers=True)
        if item is None:
            return None
        kind = item.type
        metadata = _counts(schema, "minItems", "maxItems")
        if metadata is None:
            return None
        unique = schema.get("uniqueItems", False)
        if unique is True:
            if not item.strings:
                return None
            metadata.append("_models.UNIQUE_STRINGS")
        elif unique is not False:
            return None
        base = PyType(f"list[{kind.expr}]", kind.models, kind.needs)
        return NativeType(base, tuple(metadata), item.keeps_numbers)

    def _object(self, schema: JObject, pointer: str, depth: int) -> NativeType | None:
        extra = schema.get("additionalProperties", True)
        value = self.native(extra, f"{pointer}/additionalProperties", depth + 1)
        if value is None or extra is False:
            return None
        kind = value.type
        base = PyType(f"dict[str, {kind.expr}]", kind.models, kind.needs)
        return NativeType(base, keeps_numbers=value.keeps_numbers)


def object_model_is_native(schema: Any) -> bool:
    """Whether an object model's own keywords are native: properties, `required` among them, and
    `additionalProperties` absent or false (its fields are judged one by one)."""
    if not isinstance(schema, JObject):
        return False
    keys = _keywords(schema) - {"type", "properties", "required"}
    if keys - {"additionalProperties"}:
        return False
    if schema.get("additionalProperties", False) is not False:
        return False
    properties = schema.get("properties")
    required = schema.get("required")
    if properties is not None and not isinstance(properties, JObject):
        return False
    if required is None:
        return True
    if not isinstance(required, JArray):
        return False
    return all(
        isinstance(name, str) and properties is not None and name in properties
        for name in required
    )


def native_models(
    models: Mapping[K, ModelPlan],
    used: Callable[[K, str], K],
    known: tuple[set[K], set[K]] = (set(), set()),
) -> tuple[set[K], set[K]]:
    """The models (by key) that become `NativeModel`s (own keywords native, every model they use native too)
    and, among them, those whose JSON text Pydantic's parser may read (closed, no decimals, no arbitrary JSON).
    `used(key, class)`: the key of the model a model names by its class (a class name means one model only
    within its module); `known`: the same two sets for models planned before (reused modules).
    """
    uses = {
        key: {used(key, name) for name in _models_used(m)}
        for key, m in models.items()
        if m.native is not None
    }
    native = _closed_under_use(set(uses), uses, known[0])
    text = {
        key
        for key in native
        if models[key].extra == "forbid"
        and not any(field.keeps_numbers for field in models[key].native or ())
    }
    return native, _closed_under_use(text, uses, known[1])


def _closed_under_use(
    candidates: set[K], uses: dict[K, set[K]], known: Set[K] = frozenset()
) -> set[K]:
    """The candidates whose every model used, directly or not, is a candidate (or `known`): those using a
    model outside are left out, then those using them, and so on (each model and use is looked at once).
    """
    users: dict[K, list[K]] = {}
    for name in candidates:
        for used in uses[name]:
            users.setdefault(used, []).append(name)
    kept = set(candidates)
    allowed = candidates | known  # (made once: made per candidate, it was quadratic)
    work = [name for name in candidates if not uses[name] <= allowed]
    while work:
        name = work.pop()
        if name in kept:
            kept.discard(name)
            work.extend(users.get(name, ()))
    return kept


def _has_dynamic_reference(schema: Any) -> bool:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$dynamicRef" in node or "$recursiveRef" in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _models_used(model: ModelPlan) -> set[str]:
    return {used for field in model.native or () for used in field.type.models}


def _keywords(schema: JObject) -> set[str]:
    """The keywords that may decide what `schema` accepts (any this module does not handle makes it not
    native)."""
    return {key for key in schema if key not in _ANNOTATIONS and key in _VOCABULARY}


def _is_null(schema: Any) -> bool:
    return (
        isinstance(schema, JObject)
        and _keywords(schema) == {"type"}
        and schema["type"] == "null"
    )


def _or_null(found: NativeType) -> NativeType:
    if found.nullable:
        return found
    kind = found.type  # constraints stay on the non-null part
    return NativeType(
        PyType(f"{kind.expr} | None", kind.models, kind.needs, nullable=True),
        keeps_numbers=found.keeps_numbers,
        nullable=True,
    )


def _none(keys: set[str]) -> NativeType | None:
    return (
        NativeType(PyType("None", nullable=True), nullable=True)
        if keys == {"type"}
        else None
    )


def _string_literal(schema: JObject, keys: set[str]) -> NativeType | None:
    """`enum` / `const` of strings (and null): a `Literal`, which is exact for strings in strict mode."""
    if not keys <= {"enum", "const", "type"}:
        return None
    if "const" in keys:
        values = [schema["const"]]
        if "enum" in keys:
            return None
    elif isinstance(schema["enum"], JArray) and len(schema["enum"]):
        values = list(schema["enum"])
    else:
        return None
    if not all(value is None or isinstance(value, str) for value in values):
        return None
    allowed = schema.get("type", ("string", "null"))
    allowed = [allowed] if isinstance(allowed, str) else list(allowed)
    if any(("null" if value is None else "string") not in allowed for value in values):
        return None
    # Each string once, in order of first occurrence (a dict: `sorted(key=values.index)` was quadratic).
    strings = list(dict.fromkeys(value for value in values if value is not None))
    nullable = None in values
    if not strings:
        return NativeType(PyType("None", nullable=True), nullable=True)
    expr = f"Literal[{', '.join(py_literal(value) for value in strings)}]"
    found = NativeType(PyType(expr, needs=frozenset({"Literal"})), strings=True)
    return _or_null(found) if nullable else found


def _string(schema: JObject) -> NativeType | None:
    fmt = schema.get("format")
    if fmt in _FORMATS:
        if set(schema) & {"minLength", "maxLength", "pattern"}:
            return None
        kind, marker = _FORMATS[str(fmt)]
        return NativeType(PyType(kind, needs=frozenset({"_dt"})), (marker,))
    metadata = _counts(schema, "minLength", "maxLength")
    if metadata is None:
        return None
    if "pattern" in schema:
        if not _pattern_runs(schema["pattern"]):
            return None
        metadata.append(f"_models.Pattern({py_literal(schema['pattern'])})")
    return NativeType(PyType("str"), tuple(metadata), strings=True)


def _pattern_runs(pattern: Any) -> bool:
    """Whether the interpreter runs the pattern (on pydantic-core's Rust engine, translated: the same regex
    in the model decides the same)."""
    if not isinstance(pattern, str):
        return False
    try:
        compile_pattern(pattern)
    except PatternError:
        return False
    return True


def _number(schema: JObject, kind: str) -> NativeType | None:
    integer = kind == "integer"
    if not integer and schema.get("format") == "decimal":
        return None
    options = (
        []
    )  # (NaN and infinities: `NativeModel` sets `allow_inf_nan=False` for all its fields)
    markers = []
    for keyword, option in _BOUNDS.items():
        if keyword not in schema:
            continue
        bound = _bound(schema[keyword], integer)
        if bound is None:
            return None
        options.append(f"{option}={bound!r}")
    if "multipleOf" in schema:
        divisor = schema["multipleOf"]
        if (
            isinstance(divisor, bool)
            or not isinstance(divisor, (int, float))
            or divisor <= 0
        ):
            return None
        if integer and isinstance(divisor, int):
            options.append(f"multiple_of={divisor!r}")
        elif abs(divisor) < _EXACT_FLOAT:
            markers.append(f"_models.MultipleOf({divisor!r})")
        else:
            return None
    metadata = [f"Field({', '.join(options)})"] if options else []
    return NativeType(PyType("int" if integer else "float"), (*metadata, *markers))


def _bound(value: Any, integer: bool) -> int | float | None:
    """A bound pydantic-core compares exactly: an int for an integer (an integral float made one), a number
    within 2**53 for a number (so neither it nor an int compared with it rounds)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if integer:
        if isinstance(value, float):
            if not value.is_integer() or abs(value) >= _EXACT_FLOAT:
                return None
            return int(value)
        return value
    if abs(value) >= _EXACT_FLOAT:
        return None
    return float(value)


def _counts(schema: JObject, low: str, high: str) -> list[str] | None:
    """`Field(min_length=..., max_length=...)` of a length or count pair, if any; None if not native.

    pydantic-core stores a count as a usize and cannot build a model with a larger one (`max_length=10**20`
    made every call an internal error), while no length exceeds `MAX_LENGTH`: a greater maximum bounds
    nothing, so it is left out, and a greater minimum, which nothing meets, is left to the interpreter.
    """
    options = []
    for keyword, option in ((low, "min_length"), (high, "max_length")):
        if keyword not in schema:
            continue
        value = schema[keyword]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return None
        if value > MAX_LENGTH:
            if option == "min_length":
                return None
            continue
        options.append(f"{option}={value}")
    return [f"Field({', '.join(options)})"] if options else []
