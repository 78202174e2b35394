"""Base classes of generated models: the JSON Schema check runs before Pydantic builds the typed object.

Pydantic alone coerces (`"5"` becomes `5`) and cannot express every JSON Schema keyword, so each generated model
names the schema document it came from and the pointer to its schema, and the check below applies that schema to
the instance, as the JSON data it stands for, first. Pydantic then types that same data: it only gives accepted
data its Python shape (docs/semantics.md lists where it would judge differently, and how that is prevented).

Data (`model_validate`, `model_validate_json`) is keyed by wire names only, as the schema says; Python field names
are for the constructor, `Model(field_name=...)`. `model_json_schema()` is the schema the model enforces.
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import re
import sys
import threading
import uuid
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Annotated, Any, ClassVar, Generic, TypeVar
from urllib.parse import quote

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    RootModel,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    model_serializer,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic.functional_validators import ModelWrapValidatorHandler
from pydantic_core import (
    PydanticCustomError,
    SchemaValidator,
    core_schema,
    to_json,
    to_jsonable_python,
)

# Private helpers of the sibling validator: its URI resolution and its list of subschema keywords.
from .validation import (
    SUBSCHEMA,
    SUBSCHEMA_LISTS,
    SUBSCHEMA_MAPS,
    Problem,
    _resolve,
    compile_pattern,
    validate,
)
from .validation.data import _check_data
from .validation.formats import _DATE_TIME, _valid_date, _valid_date_time
from .validation.numbers import _is_multiple
from .validation.patterns import _rust_translation
from .schema_checks import SchemaCheck

RootT = TypeVar("RootT")
ModelT = TypeVar("ModelT", bound=BaseModel)
DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Pydantic turns floats into ints only within 64 bits; beyond that an integral float must arrive as an int.
_INT64_LIMIT = 2.0**63
# Base URIs for schemas handed to Pydantic's schema generator (see `_absolute_refs`); never fetched.
_LOCAL_BASE = "https://codegen.invalid/"


# -- the check --


def to_json_data(value: Any) -> Any:
    """Python values as the JSON data they stand for: models by alias, dates and UUIDs as text, tuples as lists.

    This is what the check judges and what Pydantic then types, so both see the same instance (a date given
    for a `str` field is its ISO text there too). Integral floats beyond 64 bits become ints, the same JSON
    number: Pydantic cannot make an `int` of such a float.
    """
    if isinstance(value, BaseModel):
        return to_json_data(value.model_dump(by_alias=True, exclude_unset=True))
    if isinstance(value, Mapping):
        return {key: to_json_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_data(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) >= _INT64_LIMIT:
        # The integer the float's literal writes, as the interpreter reads a float (its binary value
        # may differ in the last digits, and so in `multipleOf`, bounds and equality).
        return int(Decimal(repr(value)))
    return value


def problems_error(problems: list[Problem]) -> PydanticCustomError:
    text = "; ".join(problem.format() for problem in problems)
    return PydanticCustomError("json_schema", "{problems}", {"problems": text})


# -- where a model's schema is --


def _declare_schema(cls: type[Any], schema: str, exact_numbers: bool | None) -> None:
    """Record what a generated class says in its `class` line: `schema="CONSTANT#/pointer"`, the schema
    constant of its module (defined further down: the reader meets models first) and the pointer into it.
    """
    if schema:
        name, _, pointer = schema.partition("#")
        cls.__json_schema__ = (cls.__module__, name, pointer)
    if exact_numbers is not None:
        cls.__json_exact_numbers__ = exact_numbers


def schema_location(cls: type[Any]) -> tuple[Any, str]:
    """The schema document a generated model enforces and the JSON pointer to its schema in it (looked up
    in its module when first asked, then kept)."""
    found: tuple[Any, str] | None = cls.__dict__.get("__json_schema_location__")
    if found is None:
        module, name, pointer = getattr(cls, "__json_schema__", ("", "", ""))
        # Only the constant the generated `class` line names, an upper-case name codegen wrote.
        document = vars(sys.modules[module])[name] if name else True
        found = (document, pointer)
        setattr(cls, "__json_schema_location__", found)
    return found


def schema_check(cls: type[Any]) -> SchemaCheck:
    """The exact check of a model's schema (built when first run, `schema_checks.py`)."""
    found: SchemaCheck | None = cls.__dict__.get("__json_schema_check__")
    if found is None:
        found = SchemaCheck(*schema_location(cls))
        setattr(cls, "__json_schema_check__", found)
    return found


def _check(data: Any, cls: type[Any]) -> Any:
    """Apply the model's JSON Schema to the instance as JSON data (by its exact check, `schema_checks.py`);
    return that data, for Pydantic to type."""
    json_data = to_json_data(data)
    problems = schema_check(cls).problems(json_data)
    if problems:
        raise problems_error(problems)
    return json_data


def _fields_by_wire_name(cls: type[BaseModel]) -> dict[str, str]:
    """Wire name -> Python name, for the fields whose two names differ."""
    cached: dict[str, str] | None = cls.__dict__.get("__codegen_fields_by_wire_name__")
    if cached is None:
        fields = cls.model_fields.items()
        cached = {
            info.alias: name
            for name, info in fields
            if info.alias is not None and info.alias != name
        }
        setattr(cls, "__codegen_fields_by_wire_name__", cached)
    return cached


def _wire_name(name: str, info: FieldInfo) -> str:
    """A field's wire name: its alias, which may be "" (a property named ""), else its Python name. Never
    `info.alias or name`: the alias "" is false, and would make the Python name the wire name.
    """
    return name if info.alias is None else info.alias


def _shadowed_fields(cls: type[BaseModel], data: Any) -> dict[str, str]:
    """Fields Pydantic would fill from the wrong key: their wire name is absent but their Python name is there,
    as another field's wire name or an additional property (`populate_by_name` makes Pydantic look there).
    """
    if not isinstance(data, dict):
        return {}
    wire_names = _fields_by_wire_name(cls).items()
    return {
        wire: name for wire, name in wire_names if wire not in data and name in data
    }


def _wire_keys(cls: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Constructor arguments keyed by wire name: a Python field name becomes its field's wire name."""
    result: dict[str, Any] = {}
    for key, value in data.items():
        info = cls.model_fields.get(key)
        wire = _wire_name(key, info) if info is not None else key
        if wire in result:
            raise TypeError(f"{cls.__name__}() got two values for the field {wire!r}")
        result[wire] = value
    return result


# -- decimals: exact JSON numbers in and out --
#
# JSON text is read with Python's parser, a number with a fraction or exponent becoming a `float` when a float
# is that very number (its shortest text means the same), and a `Decimal` otherwise: a `decimal` field gets it
# exactly, a `float` field rounds it as before. On the way out a `Decimal` becomes an `int` when integral, a
# `float` when a float is that very number, and otherwise stays a `Decimal` in JSON data (`model_dump(mode=
# "json")`, `ToolResult.to_data()`), which the JSON writers here write digit for digit. Never a string: the
# schema says number.


def _json_number(text: str) -> float | Decimal:
    value = float(text)
    if math.isinf(value) or Decimal(repr(value)) == Decimal(text):
        # (Infinity stays a float: it is no JSON number, and no float field could hold the value.)
        return value
    return Decimal(text)


def read_json(text: str | bytes | bytearray) -> Any:
    """JSON text as JSON data, numbers exact (above). Raises ValueError or RecursionError."""
    return json.loads(text, parse_float=_json_number)


def _schema_number(text: str) -> float | Decimal:
    """A number of a schema file as the compiler held it. The compiler writes a float as `repr` does (its
    shortest text, any exponent with a lower-case `e`) and a number no float holds as `str` of its Decimal,
    which is either too large for a float or, being tiny, written with an upper-case `E`.
    """
    if "E" in text:
        return Decimal(text)
    value = float(text)
    return Decimal(text) if math.isinf(value) else value


def load_schemas(module: str, file: str) -> dict[str, Any]:
    """The schema constants of the generated `module`, from the JSON file `file` beside it (written by the
    compiler with the module): read once, when the module is imported, numbers as the compiler held them.
    Through the module's own loader, as `pkgutil.get_data` reads a package's data (so that a package inside a
    zip file reads it too), without importing `pkgutil` into every generated package's start-up.
    """
    spec = getattr(sys.modules.get(module), "__spec__", None)
    origin = getattr(spec, "origin", None)
    get_data = getattr(getattr(spec, "loader", None), "get_data", None)
    if not isinstance(origin, str) or get_data is None:
        raise ImportError(f"{module}: its schemas ({file}) cannot be read beside it")
    data = get_data(os.path.join(os.path.dirname(origin), file))
    schemas = json.loads(data, parse_float=_schema_number)
    if not isinstance(schemas, dict):
        raise ImportError(f"{module}: {file} does not hold its schemas")
    return schemas


def json_number(value: Decimal) -> int | float | Decimal:
    """A decimal as the JSON data of the same number (above)."""
    if not value.is_finite():
        return value
    if value == value.to_integral_value() and value.adjusted() < 4000:
        return int(value)
    as_float = float(value)
    if math.isfinite(as_float) and Decimal(repr(as_float)) == value:
        return as_float
    return value


def to_json_output(value: Any) -> Any:
    """A Python-mode dump as JSON data: decimals as numbers (above), other values as Pydantic writes them."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Decimal):
        return json_number(value)
    if isinstance(value, Mapping):
        return {str(key): to_json_output(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json_output(item) for item in value]
    return to_json_output(to_jsonable_python(value))


def write_json(data: Any, dumps: Callable[[Any], str]) -> str:
    """JSON data as text by `dumps`, a `Decimal` written as its exact digits (`dumps` never sees one)."""
    found: list[Decimal] = []
    nonce = uuid.uuid4().hex
    text = dumps(_mark_decimals(data, found, nonce))
    for index, value in enumerate(found):
        # The mark is a string no dump could hold by chance; `str` of a finite Decimal is JSON number text.
        text = text.replace(f'"{nonce}:{index}"', str(value), 1)
    return text


def _mark_decimals(value: Any, found: list[Decimal], nonce: str) -> Any:
    if isinstance(value, Decimal):
        found.append(value)
        return f"{nonce}:{len(found) - 1}"
    if isinstance(value, dict):
        return {key: _mark_decimals(item, found, nonce) for key, item in value.items()}
    if isinstance(value, list):
        return [_mark_decimals(item, found, nonce) for item in value]
    return value


def _dump_json(data: Any, indent: int | None, ensure_ascii: bool) -> str:
    if ensure_ascii:
        separators = (",", ": ") if indent is not None else (",", ":")
        return write_json(
            data,
            lambda d: json.dumps(d, indent=indent, separators=separators),
        )
    return write_json(data, lambda d: to_json(d, indent=indent).decode())


def _validate_json(
    cls: type[ModelT],
    fallback: Callable[..., ModelT],
    text: str | bytes | bytearray,
    kwargs: dict[str, Any],
) -> ModelT:
    try:
        data = read_json(text)
    except (ValueError, RecursionError):
        return fallback(text, **kwargs)  # not JSON: Pydantic's own error
    return cls.model_validate(data, **kwargs)


# -- model_json_schema() --


def _schema_of(cls: type[Any]) -> dict[str, Any]:
    """The JSON Schema the model enforces, self-contained: its own document, or for a model of a part of a
    document, a reference into that document embedded as a schema resource."""
    # A deep copy: callers edit what they get (openai's strict conversion does), and the document is what the
    # model enforces.
    document, pointer = schema_location(cls)
    document = copy.deepcopy(document)
    if isinstance(document, bool):
        return {} if document else {"not": {}}
    if not pointer:
        return dict(document)
    identifier = document.get("$id")
    if not isinstance(identifier, str):
        identifier = f"urn:codegen:{cls.__module__}.{cls.__qualname__}"
        document = {"$id": identifier, **document}
    target = identifier.partition("#")[0] + "#" + quote(pointer, safe="/~!$&'()*+,;=:@")
    return {"$ref": target, "$defs": {"document": document}}


def _absolute_refs(schema: Any, base: str) -> Any:
    """`schema` with every `$id`, `$ref` and `$dynamicRef` absolute and http(s): Pydantic's schema generator,
    which embeds this schema in its own when a model is used inside another type, follows every `$ref` it sees
    unless it is an http(s) URI. Other URIs are mapped one to one under `_LOCAL_BASE`.
    """
    if isinstance(schema, list):
        return [_absolute_refs(item, base) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = dict(schema)
    if isinstance(schema.get("$id"), str):
        base = _resolve(base, schema["$id"]).partition("#")[0]
        result["$id"] = _http(base)
    for keyword in ("$ref", "$dynamicRef"):
        if isinstance(schema.get(keyword), str):
            uri, _, fragment = _resolve(base, schema[keyword]).partition("#")
            result[keyword] = f"{_http(uri)}#{fragment}"
    for keyword in (*SUBSCHEMA, *SUBSCHEMA_LISTS):
        if keyword in schema:
            result[keyword] = _absolute_refs(schema[keyword], base)
    for keyword in SUBSCHEMA_MAPS:
        if isinstance(schema.get(keyword), dict):
            result[keyword] = {
                name: _absolute_refs(sub, base) for name, sub in schema[keyword].items()
            }
    return result


def _http(uri: str) -> str:
    if uri.startswith(("http://", "https://")):
        return uri
    return _LOCAL_BASE + quote(uri, safe="")


def _embeddable_schema(cls: type[Any]) -> dict[str, Any]:
    schema = _schema_of(cls)
    base = f"urn:codegen:embedded:{cls.__module__}.{cls.__qualname__}"
    return {"$id": _http(base), **_absolute_refs(schema, base)}


# -- field checks of native models --
#
# Annotation metadata for the keywords whose pydantic-core equivalent is not exact. Each is a small Python
# check that decides as the interpreter does; together with the native constraints they make a `NativeModel`.


class _NotNull:
    """An optional field that is not nullable: `None` is its "absent" default, never a value it accepts."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        schema = handler(source)
        if schema["type"] == "nullable":
            inner: core_schema.CoreSchema = schema["schema"]
            return inner
        return schema


NOT_NULL = _NotNull()


def _not_json(kind: str) -> PydanticCustomError:
    return PydanticCustomError("json_schema", "not {kind}", {"kind": kind})


class _Formatted:
    """`format: date` / `date-time` text (or a date / datetime, as its ISO text), as a `date` / `datetime`.

    Text of the plain form `common` (a Rust regular expression) is parsed by pydantic-core alone, which checks
    the calendar and clock as the interpreter does; the form leaves out what Pydantic's parser might read
    otherwise than RFC 3339 (hour 24, second 60, more than 6 fractional digits, lower-case `t` and `z`), and
    tests/test_native_formats.py holds the two paths to the same verdicts and values (`json_strict`: JSON text
    of the plain form is read by the type's own strict parse, which takes that form alone). Anything else goes to
    Python: `typed` accepts values already typed whose ISO text the interpreter would accept. `valid` is a
    quick form check after which Python's ISO parser, where it accepts the text, makes the value (the same
    instant Pydantic would make, the calendar and clock checked as the interpreter checks them); otherwise the
    interpreter's own check (`exact`) decides, and Pydantic's parser makes the value.
    """

    def __init__(
        self,
        typed: Callable[[Any], bool],
        valid: Callable[[str], bool],
        exact: Callable[[str], bool],
        parse: Callable[[str], Any],
        target: core_schema.CoreSchema,
        kind: str,
        common: str,
        json_strict: bool = False,
    ) -> None:
        self._common = common
        self._json_strict = json_strict
        self._typed = typed
        self._valid = valid
        self._exact = exact
        self._parse = parse
        self._kind = kind
        self._target = target
        self._typer: SchemaValidator | None = None

    def _value(self, value: Any, _handler: Any) -> Any:
        if type(value) is str and self._valid(value):  # the common case first
            try:
                return self._parse(value)
            except ValueError:
                pass
        elif self._typed(value):
            return value
        elif isinstance(value, (datetime.date, datetime.time)):
            return self._value(value.isoformat(), _handler)
        if isinstance(value, str) and self._exact(value):
            if self._typer is None:
                self._typer = SchemaValidator(self._target)
            return self._typer.validate_python(value)
        raise _not_json(self._kind)

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # A wrap validator around the type's own schema, for its serializer; the check types the value itself
        # (the inner schema would be strict in strict mode, refusing text).
        python = core_schema.no_info_wrap_validator_function(self._value, self._target)
        common: core_schema.CoreSchema = core_schema.chain_schema(
            [
                core_schema.str_schema(
                    pattern=self._common, regex_engine="rust-regex", strict=True
                ),
                {**self._target, "strict": False},
            ]
        )
        if self._json_strict:
            # In JSON text the type's strict parse reads exactly the plain form (`json_strict`), no regex first.
            common = core_schema.json_or_python_schema(
                json_schema={**self._target, "strict": True}, python_schema=common
            )
        return core_schema.union_schema(
            [common, python],
            mode="left_to_right",
            custom_error_type="json_schema",
            custom_error_message=f"not {self._kind}",
        )


def _date_text(text: str) -> bool:
    # The form of RFC 3339's full-date; `date.fromisoformat` then checks the calendar.
    return len(text) == 10 and _DATE_TEXT.fullmatch(text) is not None


def _date_time_text(text: str) -> bool:
    # The form of RFC 3339's date-time and its offset's range; `datetime.fromisoformat` checks the rest.
    match = _DATE_TIME.fullmatch(text)
    if match is None:
        return False
    hours, minutes = match.group(9, 10)
    return hours is None or (int(hours) <= 23 and int(minutes) <= 59)


_DATE_TEXT = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def _is_date(value: Any) -> bool:
    return type(value) is datetime.date


def _is_aware_datetime(value: Any) -> bool:
    # Its ISO text is an RFC 3339 date-time when it has an offset in whole minutes (the year has 4 digits).
    if type(value) is not datetime.datetime:
        return False
    offset = value.utcoffset()
    return offset is not None and offset.seconds % 60 == 0 and not offset.microseconds


DATE = _Formatted(
    _is_date,
    _date_text,
    _valid_date,
    datetime.date.fromisoformat,
    core_schema.date_schema(),
    "an RFC 3339 date",
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    # pydantic-core's strict date from JSON text takes `YYYY-MM-DD` alone, year 0001 to 9999, the calendar
    # checked: the plain form exactly (its date-time takes more than RFC 3339: no offset, a space, `t`).
    json_strict=True,
)
DATE_TIME = _Formatted(
    _is_aware_datetime,
    _date_time_text,
    _valid_date_time,
    datetime.datetime.fromisoformat,
    core_schema.datetime_schema(),
    "an RFC 3339 date-time",
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$",
)


class _UniqueStrings:
    """`uniqueItems` of an array of strings: string equality is JSON equality there."""

    @staticmethod
    def _check(items: list[str]) -> list[str]:
        if len(items) > 1 and len(set(items)) != len(items):
            raise PydanticCustomError("json_schema", "items are not unique")
        return items

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(
            self._check, handler(source)
        )


UNIQUE_STRINGS = _UniqueStrings()


class Pattern:
    """`pattern`, on pydantic-core's Rust engine as the interpreter runs it (its translation there, made when
    the model class is built). Text with lone surrogates, which Rust cannot hold, and every text for a pattern
    with lookaround, which Rust lacks, go to the interpreter's matcher, which decides it (see
    `validation.patterns`)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def _matched(self, value: Any) -> Any:
        if compile_pattern(self.pattern).search(value):
            return value
        raise PydanticCustomError(
            "json_schema", "does not match {pattern}", {"pattern": self.pattern}
        )

    def _surrogates(self, value: Any) -> Any:
        if (
            isinstance(value, str)
            and not value.isascii()
            and _SURROGATE.search(value)
            and compile_pattern(self.pattern).search(value)
        ):
            return value
        raise PydanticCustomError(
            "json_schema", "does not match {pattern}", {"pattern": self.pattern}
        )

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        rust = _rust_translation(self.pattern)
        inner = handler(source)
        if rust is None:
            return core_schema.chain_schema(
                [inner, core_schema.no_info_plain_validator_function(self._matched)]
            )
        if inner.get("type") == "str" and "pattern" not in inner:
            # The common case in one string validation: the type's own constraints and the pattern together;
            # text the Rust engine cannot hold (lone surrogates) fails it and goes on to the interpreter's.
            matched: Any = {**inner, "pattern": rust, "regex_engine": "rust-regex"}
            surrogates = core_schema.chain_schema(
                [inner, core_schema.no_info_plain_validator_function(self._surrogates)]
            )
            return core_schema.union_schema([matched, surrogates], mode="left_to_right")
        matched = core_schema.str_schema(pattern=rust, regex_engine="rust-regex")
        choices: list[Any] = [
            matched,
            core_schema.no_info_plain_validator_function(self._surrogates),
        ]
        either = core_schema.union_schema(choices, mode="left_to_right")
        return core_schema.chain_schema([inner, either])


_SURROGATE = re.compile("[\ud800-\udfff]")


class MultipleOf:
    """`multipleOf` of a number, decided exactly as the interpreter does (pydantic-core's is approximate)."""

    def __init__(self, divisor: int | float) -> None:
        self.divisor = divisor
        # The interpreter divides a float's shortest literal by the divisor's. For a power of two at most 1
        # that its literal states exactly (0.5, not 2**-30, whose literal is 9.313225746154785e-10), dividing a
        # float by it is exact (it doubles; it cannot round, only overflow), and so is the test of the
        # quotient; a whole quotient q makes the value q times the divisor's digits, which is its literal
        # while that has at most 15 digits (no shorter decimal rounds to the same float). And every integer is
        # a multiple of it.
        self._binary = 0.0  # the largest whole quotient decided here (0: none)
        if (
            isinstance(divisor, float)
            and math.frexp(divisor)[0] == 0.5
            and divisor <= 1
        ):
            exact = Decimal(divisor)
            if Decimal(repr(divisor)) == exact:
                self._binary = 10**15 / int("".join(map(str, exact.as_tuple().digits)))

    def _check(self, value: Any) -> Any:
        """The interpreter's exact test (`_checker` puts the shortcuts before it)."""
        kind = type(value)
        if (kind in (int, float) or isinstance(value, Decimal)) and not _is_multiple(
            value, self.divisor
        ):
            raise PydanticCustomError(
                "json_schema", "not a multiple of {divisor}", {"divisor": self.divisor}
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(
            self._checker(), handler(source)
        )

    def _checker(self) -> Callable[[Any], Any]:
        """The check of a value: `_check`, or for a divisor whose floats are decided here (`_binary`), its
        shortcuts first, with their numbers in local names (it runs once per value): every integer is a
        multiple, and so is a float whose quotient is whole and below `_binary`."""
        if not self._binary:
            return self._check
        divisor, bound, check = self.divisor, self._binary, self._check

        def binary(value: Any) -> Any:
            kind = type(value)
            if kind is int:
                return value
            if kind is float:
                quotient = value / divisor
                if quotient.is_integer() and -bound < quotient < bound:
                    return value
            return check(value)

        return binary


class Checked:
    """A field whose keywords have no native form: the interpreter checks its value against its subschema
    (`pointer` in `document`), then Pydantic types the JSON data. The model around it stays native.
    Its exact check is built on first use (`schema_checks.py`).
    """

    def __init__(self, document: Any, pointer: str) -> None:
        self.check = SchemaCheck(document, pointer)

    def _check(self, value: Any) -> Any:
        data = to_json_data(value)
        problems = self.check.problems(data)
        if problems:
            raise problems_error(problems)
        return data

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(
            self._check, handler(source)
        )


def _is_json_data(value: Any, depth: int) -> bool:
    """Whether `value` is already the JSON data it stands for (what `to_json_data` would leave unchanged and
    the interpreter accept as JSON)."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return True
    if kind is float:
        return math.isfinite(value) and not (
            value.is_integer() and abs(value) >= _INT64_LIMIT
        )
    if depth > 64:
        return False
    if kind is list:
        return all(_is_json_data(item, depth + 1) for item in value)
    if kind is dict:
        return all(
            type(key) is str and _is_json_data(item, depth + 1)
            for key, item in value.items()
        )
    return isinstance(value, Decimal) and value.is_finite()


def _json_value(value: Any) -> Any:
    if _is_json_data(value, 0):
        return value
    raise _not_json("JSON data")


class _JsonData:
    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(_json_value)


# A slot of a native model that takes any JSON value (`{}`, `true`, an array without `items`).
JsonValue = Annotated[Any, _JsonData()]


# -- base classes --


class _ObjectModel(BaseModel):
    """What every generated object model shares: construction by either name, and its dumps and schema."""

    # Each model's validator is built when it is first used, not when its module is imported: importing the
    # models of 1,000 tools takes half the time (bench/imports.py), and names a model refers to that its module
    # imports last (cycles between spec files) are in place by then, so no `model_rebuild()` is needed.
    model_config = ConfigDict(extra="allow", protected_namespaces=(), defer_build=True)

    def __init_subclass__(
        cls, *, schema: str = "", exact_numbers: bool | None = None, **kwargs: Any
    ) -> None:
        """`schema`: where the model's schema is, `"CONSTANT#/pointer"` (`schema_location`); `exact_numbers`:
        JSON text must be read with every digit (a decimal field, a slot for any JSON).
        """
        super().__init_subclass__(**kwargs)
        _declare_schema(cls, schema, exact_numbers)

    def __init__(self, /, **data: Any) -> None:
        """Keyword arguments may use Python field names as well as wire names."""
        super().__init__(**_wire_keys(type(self), data))

    # Pydantic would call a custom `__init__` from `model_validate` too; this one is for callers only (data is
    # keyed by wire names alone), so it is marked as Pydantic's own.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_serializer(mode="wrap")
    def _omit_absent(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        """A field that was not given and holds None is absent, not null: the `None` stands for "no value",
        and the schema may not allow null there. Fields that were given, or have a default, are dumped.
        """
        data = handler(self)
        if not isinstance(data, dict):
            return data
        given = self.__pydantic_fields_set__
        values = self.__dict__
        for name, wire in _dump_keys(type(self)):
            if values.get(name) is None and name not in given:
                data.pop(wire if info.by_alias else name, None)
        return data

    def model_dump(self, *, mode: str = "python", **kwargs: Any) -> dict[str, Any]:
        """In JSON mode decimals are numbers, never strings (see `json_number`)."""
        if mode != "json":
            return super().model_dump(mode=mode, **kwargs)
        data: dict[str, Any] = to_json_output(super().model_dump(**kwargs))
        return data

    def model_dump_json(
        self, *, indent: int | None = None, ensure_ascii: bool = False, **kwargs: Any
    ) -> str:
        """The JSON of `model_dump(mode="json")`, decimals written digit for digit."""
        return _dump_json(self.model_dump(mode="json", **kwargs), indent, ensure_ascii)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) this model enforces: exactly the instances it accepts."""
        return {"$schema": DRAFT, **_schema_of(cls)}

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return _embeddable_schema(cls)


class SchemaModel(_ObjectModel):
    """A generated object model whose schema needs the interpreter: checked against its JSON Schema, then
    typed."""

    model_config = ConfigDict(populate_by_name=True)

    @model_validator(mode="wrap")
    @classmethod
    def _check_json_schema(
        cls, data: Any, handler: ModelWrapValidatorHandler[Any], info: ValidationInfo
    ) -> Any:
        if isinstance(data, cls):
            return handler(data)
        if _already_checked(info):
            data = to_json_data(data)
        else:
            data = _check(data, cls)
        shadowed = _shadowed_fields(cls, data)
        if not shadowed:
            return handler(data)
        # Hand each shadowed field its default under its wire name, so that Pydantic never reads its Python
        # name; the field still counts as unset afterwards.
        defaults = {
            wire: cls.model_fields[name].get_default(call_default_factory=True)
            for wire, name in shadowed.items()
        }
        model = handler({**data, **defaults})
        model.__pydantic_fields_set__.difference_update(shadowed.values())
        return model

    def __init__(self, /, **data: Any) -> None:
        """Keyword arguments may use Python field names as well as wire names."""
        wire = _wire_keys(type(self), data)
        self.__pydantic_validator__.validate_python(
            wire, self_instance=self, strict=False
        )

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(cls: type[ModelT], obj: Any, **kwargs: Any) -> ModelT:
        """Checked, then typed: laxly, as the check has decided (also for the native models inside)."""
        parent: Any = super()
        return parent.model_validate(obj, **{"strict": False, **kwargs})  # type: ignore[no-any-return]

    @classmethod
    def model_validate_json(
        cls: type[ModelT], json_data: str | bytes | bytearray, **kwargs: Any
    ) -> ModelT:
        """JSON text, its numbers read exactly (a `decimal` field gets every digit), checked and typed."""
        parent: Any = super()
        return _validate_json(cls, parent.model_validate_json, json_data, kwargs)


class NativeModel(_ObjectModel):
    """A generated object model whose every keyword has an exact native check (`codegen/passes/native.py`):
    Pydantic validates it alone, in strict mode (no `"5"` for an integer, no `1` for a boolean).

    Strict mode accepts a subset of what the schema accepts, never more; what it refuses (the JSON number
    `1.0` for an integer, a tuple for an array, a `Mapping`, an invalid instance) is decided as a
    `SchemaModel` decides it: the interpreter checks the JSON data, with its messages, and Pydantic types it.
    """

    # Strict in its config, which is how the entry points below validate it first (every NativeModel, nested
    # ones too, has this config): a call's own `strict=True` would also override the few parts that say
    # `strict: False` themselves (the common form of a date-time, read by pydantic-core from text of a form it
    # reads as RFC 3339 does). The entry points here, and `SchemaModel`'s, type checked data with
    # `strict=False` instead.
    # `validate_by_name=False` keys data by wire names only; `populate_by_name=True` (which it overrides) only
    # tells Pydantic's mypy plugin that the constructor takes Python names too (it does: `_wire_keys`).
    model_config = ConfigDict(
        populate_by_name=True,
        validate_by_name=False,
        validate_by_alias=True,
        allow_inf_nan=False,
        strict=True,
    )

    # Additional properties (where the schema allows them) must be JSON data, as the interpreter would ask.
    __pydantic_extra__: dict[str, JsonValue] = Field(init=False)
    # Whether JSON text must be read with every digit (a decimal field, a slot that keeps the numbers of
    # arbitrary JSON: there `read_json` keeps the digits a float would lose) rather than by Pydantic's parser.
    __json_exact_numbers__: ClassVar[bool] = False

    def __init__(self, /, **data: Any) -> None:
        """Keyword arguments may use Python field names as well as wire names."""
        wire = _wire_keys(type(self), data)
        validator = self.__pydantic_validator__
        try:
            validator.validate_python(wire, self_instance=self)
        except ValidationError:
            checked = _checked_data(type(self), wire)
            validator.validate_python(checked, self_instance=self, strict=False)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(cls: type[ModelT], obj: Any, **kwargs: Any) -> ModelT:
        """Python data as the JSON it stands for: strict native validation, the interpreter where it refuses."""
        if not kwargs:
            try:
                return cls.__pydantic_validator__.validate_python(obj)  # type: ignore[no-any-return]
            except ValidationError:
                pass
        checked = _checked_data(cls, obj)
        parent: Any = super()
        return parent.model_validate(checked, **{**kwargs, "strict": False})  # type: ignore[no-any-return]

    @classmethod
    def model_validate_json(
        cls: type[ModelT], json_data: str | bytes | bytearray, **kwargs: Any
    ) -> ModelT:
        """JSON text: Pydantic's parser and strict validation where that reads it exactly, else as
        `SchemaModel` reads it (numbers exact, checked, typed)."""
        if not kwargs and not getattr(cls, "__json_exact_numbers__", True):
            try:
                return cls.__pydantic_validator__.validate_json(json_data)  # type: ignore[no-any-return]
            except ValidationError:
                pass
        parent: Any = super()
        return _validate_json(cls, parent.model_validate_json, json_data, kwargs)


def _checked_data(cls: type[BaseModel], data: Any) -> Any:
    """`data` as JSON data once the model's schema accepts it (by its exact check, `schema_checks.py`); a
    `ValidationError` listing its problems if not."""
    json_data = data if _is_json_data(data, 0) else to_json_data(data)
    problems = schema_check(cls).problems(json_data)
    if problems:
        error = problems_error(problems)
        raise ValidationError.from_exception_data(
            cls.__name__, [{"type": error, "loc": (), "input": data}]
        )
    return json_data


# -- validating once --

_CHECKED = "codegen_checked"


def _already_checked(info: ValidationInfo) -> bool:
    context = info.context
    return isinstance(context, dict) and context.get(_CHECKED) is True


def native_instance(cls: type[ModelT], data: Any) -> ModelT | None:
    """The model of `data` when native strict validation accepts it (the schema then accepts it too), else
    None: the caller then checks `data` with the interpreter and types it by `checked_instance`.
    """
    if not issubclass(cls, NativeModel):
        return None
    try:
        return cls.__pydantic_validator__.validate_python(data)  # type: ignore[no-any-return]
    except ValidationError:
        return None


def schema_problems(data: Any, schema: SchemaCheck) -> list[Problem]:
    """The problems of `data` against a schema, by its exact check (or the interpreter). The check judges
    plain JSON data: other Python data (tuples, dates) is first made that, once known to be bounded and finite
    (as the interpreter first checks it)."""
    if not _is_json_data(data, 0):
        problems = _check_data(data, False)
        if problems:
            return problems
        data = to_json_data(data)
    return schema.problems(data)


def checked_instance(cls: type[ModelT], data: Any) -> ModelT:
    """The model of `data`, which the interpreter has just accepted against the model's schema: typed, not
    checked again."""
    json_data = to_json_data(data)
    if issubclass(cls, NativeModel):
        return cls.__pydantic_validator__.validate_python(json_data, strict=False)  # type: ignore[no-any-return]
    return cls.model_validate(json_data, context={_CHECKED: True}, strict=False)


def _dump_keys(cls: type[BaseModel]) -> list[tuple[str, str]]:
    """(Python name, wire name) of every field."""
    cached: list[tuple[str, str]] | None = cls.__dict__.get("__codegen_dump_keys__")
    if cached is None:
        cached = [
            (name, _wire_name(name, info)) for name, info in cls.model_fields.items()
        ]
        setattr(cls, "__codegen_dump_keys__", cached)
    return cached


class SchemaRootModel(RootModel[RootT], Generic[RootT]):
    """A generated model whose schema is not a plain object (a string, a list, a union, ...)."""

    model_config = ConfigDict(defer_build=True)  # as `SchemaModel`'s

    def __init_subclass__(cls, *, schema: str = "", **kwargs: Any) -> None:
        """`schema`: where the model's schema is, `"CONSTANT#/pointer"` (`schema_location`)."""
        super().__init_subclass__(**kwargs)  # type: ignore[no-untyped-call]
        _declare_schema(cls, schema, None)

    @model_validator(mode="before")
    @classmethod
    def _check_json_schema(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        return _check(data, cls)

    @classmethod
    def model_validate(cls: type[ModelT], obj: Any, **kwargs: Any) -> ModelT:
        """Checked, then typed: laxly, as the check has decided (also for the native models inside)."""
        parent: Any = super()
        return parent.model_validate(obj, **{"strict": False, **kwargs})  # type: ignore[no-any-return]

    @classmethod
    def model_validate_json(
        cls: type[ModelT], json_data: str | bytes | bytearray, **kwargs: Any
    ) -> ModelT:
        """JSON text, its numbers read exactly (a `decimal` field gets every digit), checked and typed."""
        parent: Any = super()
        return _validate_json(cls, parent.model_validate_json, json_data, kwargs)

    def model_dump(self, *, mode: str = "python", **kwargs: Any) -> Any:
        """In JSON mode decimals are numbers, never strings (see `json_number`)."""
        if mode != "json":
            return super().model_dump(mode=mode, **kwargs)
        return to_json_output(super().model_dump(**kwargs))

    def model_dump_json(
        self, *, indent: int | None = None, ensure_ascii: bool = False, **kwargs: Any
    ) -> str:
        """The JSON of `model_dump(mode="json")`, decimals written digit for digit."""
        return _dump_json(self.model_dump(mode="json", **kwargs), indent, ensure_ascii)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) this model enforces: exactly the instances it accepts."""
        return {"$schema": DRAFT, **_schema_of(cls)}

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return _embeddable_schema(cls)


class _DefaultContainsItself(Exception):
    """Building a default met the same default again (`{"$ref": "#", "default": {}}`): it would never end."""


_BUILDING_DEFAULTS = threading.local()


def _kind_key(kind: Any) -> Any:
    """What names a default's type across calls: the type itself, compared by value (`bool | Model` is a new
    union object at each use, so its id never meets itself again); its id when it cannot be hashed.
    """
    try:
        hash(kind)
    except TypeError:
        return id(kind)
    return kind


def default_value(kind: Any, value: Any) -> Any:
    """A field default that is not a plain literal (a model, a date), built from its JSON when used (it was
    checked when compiled).

    A default whose value holds a field with that same default again (a recursive model whose `$ref` carries a
    `default`) would be built forever: it is not applied, and the field is left without a value (None).
    """
    building: set[tuple[Any, str]] = _BUILDING_DEFAULTS.__dict__.setdefault(
        "keys", set()
    )
    key = (_kind_key(kind), repr(value))
    if key in building:
        raise _DefaultContainsItself
    building.add(key)
    try:
        return TypeAdapter(kind).validate_python(value, strict=False)
    except _DefaultContainsItself:
        return None
    finally:
        building.discard(key)
