"""The checks native models fall back to, written when a model first needs one.

A `NativeModel` is validated by pydantic-core alone, in strict mode. What strict mode refuses (an invalid
instance, which needs the interpreter's messages and paths, or a valid one such as `1.0` for an integer) needs
the exact check of the model's schema. Emitting that check into every generated module would more than double
the generated code, and a build's time, for a path few calls take; so it is written here instead, from the
schema the model names, by the compiler's own planner and writer (`check_planner.py`, `check_writer.py`), once
per model and on first use, as fastjsonschema compiles its validators. Spec text only ever appears in it as a
literal (`literal.py`), as in the generated modules. A schema the planner leaves to the interpreter (a
`$dynamicRef` the dynamic scope resolves) has no check here.
"""

from __future__ import annotations

import __future__
import decimal
from typing import Any

from . import checks as _checks
from .check_planner import ModuleChecks
from .check_writer import render_checks
from .checks import Check

# Stored on the model class: its check, or this mark when the interpreter keeps its schema.
_INTERPRETED = "interpreted"
_ATTRIBUTE = "__codegen_fallback_check__"


def fallback_check(cls: type[Any]) -> Check | None:
    """The check of the schema a model names (its document at its pointer), or None if none compiles."""
    found = cls.__dict__.get(_ATTRIBUTE)
    if found is None:
        found = write_check(cls.__json_schema_document__, cls.__json_schema_pointer__)
        setattr(cls, _ATTRIBUTE, found if found is not None else _INTERPRETED)
    return None if found == _INTERPRETED else found


def write_check(document: Any, pointer: str) -> Check | None:
    """The compiled check of the subschema at `pointer` in `document`, or None if the interpreter keeps it."""
    checks = ModuleChecks()
    name = checks.entry(document, pointer)
    if name is None:
        return None
    if name.startswith("_checks."):  # the schema `true` or `false`
        return getattr(_checks, name.removeprefix("_checks."))  # type: ignore[no-any-return]
    source = "\n".join(render_checks(checks.functions))
    # Annotations stay unevaluated (as in a generated module, which imports `annotations`).
    code = compile(
        source,
        "<codegen fallback check>",
        "exec",
        flags=__future__.annotations.compiler_flag,
        dont_inherit=True,
    )
    namespace: dict[str, Any] = {"_checks": _checks, "Any": Any, "_decimal": decimal}
    exec(code, namespace)
    found: Check = namespace[name]
    return found
