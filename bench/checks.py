"""Per-instance time of models whose keywords have no native form (`oneOf`, `if`/`then`/`else`,
`patternProperties`, ...; `unevaluatedProperties` through `allOf`/`if`/`anyOf`): each compiled check against the
interpreter, alone and inside `model_validate`.

    python bench/checks.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.compiler import compile_specs  # noqa: E402
from codegen.writer import write_output  # noqa: E402
from toolspec_runtime.models import schema_check, schema_location
from toolspec_runtime.schema_checks import SchemaCheck

SCHEMA = {
    "title": "Shape",
    "type": "object",
    "properties": {
        "kind": {"enum": ["circle", "square", "polygon"]},
        "size": {
            "oneOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": "^[0-9]+(px|em)$"},
            ]
        },
        "sides": {"type": "integer", "minimum": 3},
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "contains": {"const": "main"},
        },
    },
    "required": ["kind", "size"],
    "if": {"properties": {"kind": {"const": "polygon"}}},
    "then": {"required": ["sides"]},
    "else": {"not": {"required": ["sides"]}},
    "patternProperties": {"^x-": {"type": "string", "maxLength": 20}},
    "additionalProperties": False,
}
INSTANCES = [
    {
        "kind": "polygon",
        "size": 3,
        "sides": 5,
        "tags": ["main", "b"],
        "x-note": "hello",
    },
    {"kind": "circle", "size": "12px", "x-a": "b", "x-c": "d"},
    {"kind": "square", "size": "12pt", "sides": 4},  # invalid twice
]
# Properties declared in subschemas applied in place; `unevaluatedProperties` refuses any other.
EVENT = {
    "title": "Event",
    "type": "object",
    "properties": {
        "kind": {"enum": ["click", "view"]},
        "at": {"type": "integer", "minimum": 0},
    },
    "required": ["kind", "at"],
    "allOf": [
        {
            "if": {"properties": {"kind": {"const": "click"}}},
            "then": {
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"],
            },
            "else": {"properties": {"page": {"type": "string"}}},
        }
    ],
    "anyOf": [
        {"properties": {"session": {"type": "string"}}},
        {"properties": {"user": {"type": "string"}}},
    ],
    "unevaluatedProperties": False,
}
EVENT_INSTANCES = [
    {"kind": "click", "at": 5, "x": 1, "y": 2, "session": "s1"},
    {"kind": "view", "at": 7, "page": "/home", "user": "u", "session": "s"},
    {"kind": "view", "at": 7, "x": 1, "extra": True},  # unevaluated properties
]
MODELS = (
    ("shape", "Shape", SCHEMA, INSTANCES),
    ("event", "Event", EVENT, EVENT_INSTANCES),
)


def _median(action: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(runs):
            action()
        times.append((time.perf_counter() - start) / runs)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        specs = Path(folder) / "specs"
        specs.mkdir()
        for stem, _, schema, _ in MODELS:
            (specs / f"{stem}.schema.json").write_text(json.dumps(schema))
        result = compile_specs([specs])
        assert result.files is not None
        write_output(Path(folder) / "bench_checks_gen", result.files)
        sys.path.insert(0, folder)
        modules = {
            stem: importlib.import_module(f"bench_checks_gen.{stem}")
            for stem, *_ in MODELS
        }
        checks = importlib.import_module("toolspec_runtime.checks")
        validation = importlib.import_module("toolspec_runtime.validation")
    print(f"{'us per instance':>40} {'interpreter':>12} {'compiled':>9} {'ratio':>6}")
    for stem, title, _, instances in MODELS:
        _bench(getattr(modules[stem], title), instances, checks, validation, runs)


def _bench(
    model: Any, instances: list[Any], checks: Any, validation: Any, runs: int
) -> None:
    compiled = schema_check(model).check()
    assert compiled is not None
    document, pointer = schema_location(model)

    def validate_model(instance: Any) -> None:
        try:
            model.model_validate(instance)
        except Exception:
            pass

    name = model.__name__
    for number, instance in enumerate(instances):
        assert checks.run(compiled, instance) == validation.validate(
            instance, document, pointer=pointer
        )
        interpreted = _median(
            lambda: validation.validate(instance, document, pointer=pointer), runs
        )
        fast = _median(lambda: checks.run(compiled, instance), runs)
        print(
            f"{f'{name} check alone, instance {number}':>40} {interpreted:12.1f} {fast:9.1f} {interpreted / fast:6.1f}"
        )
        with_check = _median(lambda: validate_model(instance), runs)
        built = SchemaCheck.check
        SchemaCheck.check = lambda self: None  # type: ignore[method-assign]  # the interpreter decides
        try:
            without = _median(lambda: validate_model(instance), runs)
        finally:
            SchemaCheck.check = built  # type: ignore[method-assign]
        print(
            f"{f'{name} model_validate, instance {number}':>40} {without:12.1f} {with_check:9.1f} {without / with_check:6.1f}"
        )


if __name__ == "__main__":
    main()
