"""Resource paths: parse a path into a resource's arguments, and build a path from them.

A template such as `/docs/{category}/{page}` or `/files/{root}/{rest*}` names its parameters in braces; `{name*}`
captures the rest of the path, slashes included, and is last. Building a path percent-encodes every value (a
catch-all keeps its slashes); parsing decodes them and gives each value its JSON type from the arguments model's
schema (`int`, `float`, `bool` or text), so `match(format(args)) == args`. Any other text, whatever its length,
gives None, never an exception. The compiler checks templates with `parse_template` at compile time, so the
generated code only ever meets valid ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any
from urllib.parse import quote, unquote

from pydantic import BaseModel, ValidationError

from .validation.limits import _MAX_DIGITS
from .models import schema_location

_PARAMETER = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
# An integer has at most 4300 digits, the runtime's bound on numbers and the most Python turns into an `int` by
# default: beyond it `int()` raises, and on long text it takes quadratic time.
_INTEGER = re.compile(rf"-?(?:0|[1-9][0-9]{{0,{_MAX_DIGITS - 1}}})\Z")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")


class TemplateError(ValueError):
    """A malformed path template; `start` and `end` are offsets into the template."""

    def __init__(self, message: str, start: int, end: int) -> None:
        super().__init__(message)
        self.start = start
        self.end = end


# A parsed template: literal text and parameters (name, catch-all) in order.
Part = tuple[str, str | None, bool]


def parse_template(template: str) -> list[Part]:
    """The parts of a template: ("literal", None, False) or ("", name, catch_all)."""
    parts: list[Part] = []
    names: set[str] = set()
    at = 0
    for found in _PARAMETER.finditer(template):
        literal = template[at : found.start()]
        _check_literal(literal, at)
        if literal:
            parts.append((literal, None, False))
        elif parts:
            raise TemplateError(
                "two parameters with nothing between them cannot be told apart",
                found.start(),
                found.end(),
            )
        raw = found.group(1)
        catch_all = raw.endswith("*")
        name = raw[:-1] if catch_all else raw
        if not _NAME.match(name):
            raise TemplateError(
                f"{raw!r} is not a parameter name (write {{name}} or {{name*}})",
                found.start(),
                found.end(),
            )
        if name in names:
            raise TemplateError(
                f"the parameter {name!r} appears twice", found.start(), found.end()
            )
        if any(part[2] for part in parts):
            raise TemplateError(
                "a catch-all parameter {name*} must be last", found.start(), found.end()
            )
        names.add(name)
        parts.append(("", name, catch_all))
        at = found.end()
    rest = template[at:]
    _check_literal(rest, at)
    if rest and parts and parts[-1][2]:
        raise TemplateError(
            "a catch-all parameter {name*} must end the path", at, len(template)
        )
    if rest:
        parts.append((rest, None, False))
    return parts


def _check_literal(text: str, offset: int) -> None:
    for index, char in enumerate(text):
        if char in "{}":
            raise TemplateError(
                f"unbalanced {char!r} in the path", offset + index, offset + index + 1
            )


@lru_cache(maxsize=256)
def _parts(template: str) -> tuple[Part, ...]:
    return tuple(parse_template(template))


def _split(parts: tuple[Part, ...], path: str) -> list[str] | None:
    """The raw parameter values of `path`, or None when it does not fit.

    Each parameter takes the longest text that lets the rest of the path fit (what a backtracking
    `[^/]*` would take), but found in time linear in the path: first, right to left, where each part
    could start for the rest to fit; then, left to right, the longest choice at each parameter.
    """
    size = len(path)
    fits = [bytearray(size + 1) for _ in range(len(parts) + 1)]
    fits[-1][size] = 1  # the empty rest fits at the end only
    for index in range(len(parts) - 1, -1, -1):
        _starts(parts[index], path, fits[index + 1], fits[index])
    if not fits[0][0]:
        return None
    values: list[str] = []
    at = 0
    for index, (literal, name, catch_all) in enumerate(parts):
        if name is None:
            at += len(literal)
        elif catch_all:
            values.append(path[at:])
            at = size
        else:
            slash = path.find("/", at)
            end = fits[index + 1].rfind(1, at, (size if slash < 0 else slash) + 1)
            values.append(path[at:end])
            at = end
    return values


def _starts(part: Part, path: str, rest: bytearray, out: bytearray) -> None:
    """Mark in `out` every offset of `path` where `part` can start so that what follows fits (`rest`)."""
    literal, name, catch_all = part
    if name is None:
        found = path.find(literal)
        while found >= 0:
            if rest[found + len(literal)]:
                out[found] = 1
            found = path.find(literal, found + 1)
    elif catch_all:
        out[:] = rest[-1:] * len(
            out
        )  # it takes the rest of the path, and ends the template
    else:
        reachable = False  # a fitting end lies ahead, before the next "/"
        for offset in range(len(path), -1, -1):
            if offset < len(path) and path[offset] == "/":
                reachable = False
            reachable = reachable or rest[offset] == 1
            out[offset] = reachable


def match_path(template: str, model: type[BaseModel], path: str) -> Any:
    """The arguments model for `path`, or None when the path does not fit the template or the schema."""
    if not _is_text(path):
        return None
    parts = _parts(template)
    raw = _split(parts, path)
    if raw is None:
        return None
    names = [name for _, name, _ in parts if name is not None]
    properties = _properties(model)
    data: dict[str, Any] = {}
    for name, encoded in zip(names, raw):
        try:
            text = unquote(encoded, errors="strict")
        except UnicodeDecodeError:
            return None
        value = _typed(text, properties.get(name))
        if value is _NO_VALUE:
            return None
        data[name] = value
    try:
        return model.model_validate(data)
    except ValidationError:
        return None


def _is_text(path: str) -> bool:
    """Whether `path` is text UTF-8 can write: a lone surrogate is in no path, and a value holding one could not
    be percent-encoded back into a path by `format_path`."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def format_path(template: str, args: BaseModel) -> str:
    """The path of the arguments `args`, every value percent-encoded."""
    data = args.model_dump(mode="json", by_alias=True)
    out: list[str] = []
    for literal, name, catch_all in parse_template(template):
        if name is None:
            out.append(literal)
            continue
        out.append(quote(_text(data.get(name)), safe="/" if catch_all else ""))
    return "".join(out)


_NO_VALUE = object()


def _properties(model: type[BaseModel]) -> Mapping[str, Any]:
    document, _ = schema_location(model)
    properties = document.get("properties") if isinstance(document, dict) else None
    return properties if isinstance(properties, dict) else {}


def _typed(text: str, schema: Any) -> Any:
    """A path segment as the JSON value its schema wants (text stays text)."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "integer":
        return _integer(text)
    if kind == "number":
        if not _NUMBER.match(text):
            return _NO_VALUE
        if schema.get("format") == "decimal":
            try:
                return Decimal(text)
            except InvalidOperation:  # an exponent beyond what a Decimal holds
                return _NO_VALUE
        return _integer(text) if _INTEGER.match(text) else float(text)
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, _NO_VALUE)
    return text


def _integer(text: str) -> Any:
    """An integer of at most `_MAX_DIGITS` digits (`_INTEGER`), else no value. Python may still refuse one: an
    application can lower its bound (`sys.set_int_max_str_digits`), and then `int()` raises ValueError.
    """
    if not _INTEGER.match(text):
        return _NO_VALUE
    try:
        return int(text)
    except ValueError:
        return _NO_VALUE


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)
