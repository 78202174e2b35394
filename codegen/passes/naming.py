"""The one naming authority: every Python identifier the back ends print is made here.

Spec names are wire names and stay untouched in schemas and aliases; Python names are derived from them and made
safe against keywords, builtins our annotations use, BaseModel attributes, leading digits/underscores, non-ASCII
text and collisions.
"""

from __future__ import annotations

import hashlib

import keyword
import re
import unicodedata
from collections.abc import Collection
from functools import lru_cache

# Names an annotation in a generated class body may mention; a field with one of these names would shadow it.
_ANNOTATION_BUILTINS = {"str", "int", "float", "bool", "list", "dict", "None"}
# The names the templates bind at module level, in a generated module or the package `__init__`: the public names
# of SPEC §4 and the typing/pydantic helpers annotations use. No user name may take them (every scope of
# module-level names starts with them taken). Everything else a generated module needs, the runtime and the
# standard library, it reaches through a name with a leading underscore (`_dispatch`, `_models`, `_dt`, ...),
# which no name made here can have. tests/test_generated_names.py holds the templates to this list.
RESERVED_NAMES = frozenset(
    {
        # every generated module
        "annotations",
        "Any",
        "Annotated",
        "Literal",
        "Protocol",
        "TYPE_CHECKING",
        "ConfigDict",
        "Field",
        "Tools",
        "TOOL_SPECS",
        # the package `__init__`
        "Iterable",
        "Mapping",
        "TypedDict",
        "AgentSpec",
        "ToolError",
        "ToolResult",
        "ToolSpec",
        "TOOLS",
        "AGENTS",
        "ToolConfigs",
        "dispatch",
        "export_tools",
        "McpClient",
        "agents_tools",
        "mcp_server",
        "serve_mcp",
    }
)
# A top-level module is also an attribute of the package, beside what its `__init__` binds.
RESERVED_MODULE_NAMES = {"schemas", "__init__", "py"} | RESERVED_NAMES

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[A-Z]")


def words(name: str) -> list[str]:
    """Split `getHTTPResponse_code2` into ['get', 'HTTP', 'Response', 'code', '2'] (ASCII only)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return [
        w
        for chunk in re.split(r"[^A-Za-z0-9]+", ascii_name)
        for w in _WORD.findall(chunk)
    ]


# A name in snake case already, each word all lowercase letters or all digits, is its own snake form: `words`
# finds exactly its words. Most file, tool and property names are; only the others are split.
_SNAKE = re.compile(r"[a-z]+(?:_(?:[a-z]+|[0-9]+))*")


# Cached: the same property and tool names recur across a package, and each is named several times.
@lru_cache(maxsize=1 << 16)
def snake(name: str) -> str:
    if _SNAKE.fullmatch(name):
        return name
    return "_".join(w.lower() for w in words(name))


@lru_cache(maxsize=1 << 16)
def pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words(name))


def _identifier(candidate: str, fallback: str) -> str:
    if not candidate:
        candidate = fallback
    if candidate[0].isdigit():
        candidate = (
            f"{fallback}_{candidate}"
            if fallback[0].islower()
            else f"{fallback}{candidate}"
        )
    return candidate


def _unreserved(name: str, reserved: Collection[str]) -> str:
    """A trailing underscore keeps a name clear of Python's keywords and of `reserved` (soft keywords such as
    `match` and `type` are valid names and stay as they are)."""
    if keyword.iskeyword(name) or name in reserved:
        name += "_"
    return name


# The public attributes of pydantic's BaseModel and RootModel (`schema`, `json`, `copy`, `model_config`, ...):
# a field must not take one. A constant, not read from the pydantic installed beside codegen, so that output
# does not depend on it (and compiles do not import it); tests/test_generated_names.py checks that the pydantic
# the generated code runs on adds none.
PYDANTIC_ATTRIBUTES = frozenset(
    {
        "construct",
        "copy",
        "dict",
        "from_orm",
        "json",
        "model_computed_fields",
        "model_config",
        "model_construct",
        "model_copy",
        "model_dump",
        "model_dump_json",
        "model_extra",
        "model_fields",
        "model_fields_set",
        "model_json_schema",
        "model_parametrized_name",
        "model_post_init",
        "model_rebuild",
        "model_validate",
        "model_validate_json",
        "model_validate_strings",
        "parse_file",
        "parse_obj",
        "parse_raw",
        "schema",
        "schema_json",
        "update_forward_refs",
        "validate",
    }
)
# Names a field must not take: pydantic's, builtins our annotations use, `root` (RootModel's field), `self` (the
# stub methods' own first parameter) and `kwargs` (the pydantic mypy plugin's name for the extra keywords of the
# `__init__` it writes).
FIELD_RESERVED = PYDANTIC_ATTRIBUTES | {"root", "self", "kwargs"} | _ANNOTATION_BUILTINS


def field_name(wire: str) -> str:
    name = _unreserved(_identifier(snake(wire), "field"), FIELD_RESERVED)
    # Pydantic reserves the `model_` prefix for its own (present and future) methods.
    return name + "_" if name.startswith("model_") and not name.endswith("_") else name


def function_name(wire: str) -> str:
    return _unreserved(_identifier(snake(wire), "tool"), _ANNOTATION_BUILTINS)


# OUT has a file named after each entity's class (`schemas/entities/<Class>.json`): far inside the 255 bytes a
# file name may have, whatever title a spec gives.
MAX_CLASS_NAME = 100


def class_name(wire: str) -> str:
    name = _identifier(pascal(wire), "Model")
    if name in RESERVED_NAMES or keyword.iskeyword(name):
        name += "Model"
    if len(name) > MAX_CLASS_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = f"{name[: MAX_CLASS_NAME - 9]}_{digest}"
    return name


def module_name(stem: str) -> str:
    return _unreserved(_identifier(snake(stem), "spec"), RESERVED_MODULE_NAMES)


_SPEC_SUFFIXES = (".schema.json", ".json", ".gram", ".yaml", ".yml", ".sql")


def module_path(rel: str) -> list[str]:
    """`billing/Orders.schema.json` -> ['billing', 'orders']: the generated module mirroring a spec file (its
    path below its root, as discovery gives it: POSIX, normalised)."""
    *folders, name = rel.split("/")
    for suffix in _SPEC_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return [module_name(part) for part in folders] + [module_name(name)]


def schemas_path(py_path: str) -> str:
    """`billing/orders.py` -> `billing/orders.schemas.json`: the JSON file beside a module that holds its schema
    constants (no module or folder has a dot in its name, so no other output can be this file).
    """
    return py_path[: -len(".py")] + ".schemas.json"


def constant_name(python_name: str) -> str:
    name = python_name.upper().strip("_") or "VALUE"
    return f"VALUE_{name}" if name[0].isdigit() else name  # (`31_M` is no name)


class Scope:
    """A set of taken names; `claim` returns the first free variant of a name, deterministically."""

    def __init__(self, taken: Collection[str] | None = None) -> None:
        self.taken = set(taken or ())
        # name -> the last suffix number tried for it. Names are only ever added to `taken`, so every variant
        # below that number is still taken: the search for a free one goes on from there instead of from 2,
        # which made N names that all collide cost N^2 tests (the result is the same).
        self._suffixes: dict[str, int] = {}

    def claim(self, name: str, *alternatives: str) -> str:
        for candidate in (name, *alternatives):
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        sep = "_" if name[-1:].islower() or name.endswith("_") else ""
        n = self._suffixes.get(name, 2)
        while f"{name}{sep}{n}" in self.taken:
            n += 1
        self._suffixes[name] = n
        self.taken.add(f"{name}{sep}{n}")
        return f"{name}{sep}{n}"
