"""Base classes of generated models: the JSON Schema check runs before Pydantic builds the typed object.

Pydantic alone coerces (`"5"` becomes `5`) and cannot express every JSON Schema keyword, so each generated model
names the schema document it came from and the pointer to its schema, and the check below applies that schema to
the raw instance first. Pydantic then only gives the accepted data its Python shape.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, RootModel, TypeAdapter, model_validator
from pydantic_core import PydanticCustomError

from .validation import Problem, validate

RootT = TypeVar("RootT")


def to_json_data(value: Any) -> Any:
    """Python values as the JSON data they stand for (models by alias, dates as ISO text), for the check."""
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
    if isinstance(value, decimal.Decimal):
        return value
    return value


def problems_error(problems: list[Problem]) -> PydanticCustomError:
    text = "; ".join(problem.format() for problem in problems)
    return PydanticCustomError("json_schema", "{problems}", {"problems": text})


def _check(cls: type[BaseModel], data: Any, schema: Any, pointer: str) -> Any:
    wire = _wire_names(cls)
    if isinstance(data, Mapping) and wire:
        # Accept Python field names as well as wire names: rename to the wire name unless that is a name itself.
        data = {
            (wire.get(key, key) if key not in wire.values() else key): item
            for key, item in data.items()
        }
    problems = validate(to_json_data(data), schema, pointer=pointer)
    if problems:
        raise problems_error(problems)
    return data


def _wire_names(cls: type[BaseModel]) -> dict[str, str]:
    cached: dict[str, str] | None = cls.__dict__.get("__codegen_wire_names__")
    if cached is None:
        cached = {
            name: info.alias
            for name, info in cls.model_fields.items()
            if info.alias and info.alias != name
        }
        setattr(cls, "__codegen_wire_names__", cached)
    return cached


class SchemaModel(BaseModel):
    """A generated object model: checked against its JSON Schema, then typed."""

    model_config = ConfigDict(
        populate_by_name=True, extra="allow", protected_namespaces=()
    )

    __json_schema_document__: ClassVar[Any] = True
    __json_schema_pointer__: ClassVar[str] = ""

    @model_validator(mode="before")
    @classmethod
    def _check_json_schema(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        return _check(
            cls, data, cls.__json_schema_document__, cls.__json_schema_pointer__
        )


class SchemaRootModel(RootModel[RootT], Generic[RootT]):
    """A generated model whose schema is not a plain object (a string, a list, a union, ...)."""

    __json_schema_document__: ClassVar[Any] = True
    __json_schema_pointer__: ClassVar[str] = ""

    @model_validator(mode="before")
    @classmethod
    def _check_json_schema(cls, data: Any) -> Any:
        if isinstance(data, cls):
            return data
        return _check(
            cls, data, cls.__json_schema_document__, cls.__json_schema_pointer__
        )


def default_value(kind: Any, value: Any) -> Any:
    """A field default that is not a plain literal (a model, a date), built from its JSON when used."""
    return TypeAdapter(kind).validate_python(value)
