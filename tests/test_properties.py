"""Differential property tests: generated models and `jsonschema` agree on generated and mutated instances.

For every entity and tool of examples/specs/ and ../shared/corpus/real-tools/, hypothesis-jsonschema draws
instances from the schema (a bounded, derandomized number per schema, so CI runs are deterministic), each is
mutated a few ways, and every instance must get the same verdict from the model (as JSON text and as Python data)
as from the oracle. Valid instances are therefore all accepted, and invalid ones all rejected.

Round trip: every emitted schema passes the draft 2020-12 metaschema; a model's `model_json_schema()` is the
emitted schema for a whole document, and for every model (nested ones too) it accepts exactly what the model
accepts, also when Pydantic embeds it in a bigger schema (`TypeAdapter(list[Model]).json_schema()`).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis_jsonschema import from_schema
from instances import variants
from oracle import FORMATS, model_accepts
from pydantic import BaseModel, TypeAdapter
from toolspec_runtime.models import schema_location

MAX_EXAMPLES = 15
# Where tool definition files (one tool, or exports of many) hold JSON Schemas.
SCHEMA_KEYS = {"inputSchema", "outputSchema", "parameters", "input_schema"}
JUNK: list[Any] = ["5", 5, 1.5, True, None, [], {}, "", -(2**70), [1, "a"]]


@dataclass(frozen=True)
class Subject:
    """A schema and the model generated from it."""

    label: str
    schema: Any
    model: type[BaseModel]
    # A tool call's arguments are always an object, whatever the schema allows.
    tool_args: bool


def subjects(out: Path, package: ModuleType) -> list[Subject]:
    """The tools' arguments and the entities of a compiled package."""
    found = [
        Subject(f"tool {name}", dict(spec.input_schema), spec.args_model, True)
        for name, spec in sorted(package.TOOLS.items())
    ]
    for name, model in entities(out, package).items():
        found.append(Subject(f"entity {name}", schema_location(model)[0], model, False))
    return found


def entities(out: Path, package: ModuleType) -> dict[str, type[BaseModel]]:
    """Class name -> model, for every entity (OUT/schemas/entities/<Class>.json)."""
    names = sorted(path.stem for path in (out / "schemas" / "entities").glob("*.json"))
    return {name: getattr(package, name) for name in names}


def generated_models(package: ModuleType) -> list[type[BaseModel]]:
    """Every model class of the package, nested ones included."""
    runtime = __import__("toolspec_runtime.models", fromlist=["SchemaModel"])
    bases = (runtime.SchemaModel, runtime.SchemaRootModel)
    models = {}
    for name in package.__all__:
        value = getattr(package, name)
        if isinstance(value, type) and issubclass(value, bases) and value not in bases:
            models[value.__name__] = value
    return [models[name] for name in sorted(models)]


# -- instances ---------------------------------------------------------------------


def drawn(schema: Any) -> list[Any]:
    """Up to MAX_EXAMPLES instances drawn from the schema by hypothesis-jsonschema (none if it cannot)."""
    found: list[Any] = []

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )
    @given(from_schema(copy.deepcopy(schema)))  # it rewrites the schema it is given
    def collect(instance: Any) -> None:
        found.append(instance)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collect()
    except Exception:  # noqa: BLE001
        # `collect` cannot fail: hypothesis-jsonschema gave up on the schema (a recursive
        # one, or 2020-12 keywords it does not know). Mutations and variants remain.
        return []
    return found


def mutations(instance: Any, seed: int) -> Iterator[Any]:
    """A few deterministic near misses of an instance: one property missing, wrong, or extra; one item wrong."""
    yield from JUNK[seed % 3 :: 3]
    if isinstance(instance, dict) and instance:
        keys = sorted(instance)
        key = keys[seed % len(keys)]
        yield {k: v for k, v in instance.items() if k != key}
        for junk in JUNK[seed % 2 :: 2]:
            yield {**instance, key: junk}
        yield {**instance, "zz_unexpected": JUNK[seed % len(JUNK)]}
        for inner in (
            mutations(instance[key], seed + 1)
            if isinstance(instance[key], (dict, list))
            else ()
        ):
            yield {**instance, key: inner}
    elif isinstance(instance, list):
        yield [*instance, JUNK[seed % len(JUNK)]]
        if instance:
            yield [JUNK[(seed + 1) % len(JUNK)], *instance[1:]]
            yield instance[:-1]


def instances_for(subject: Subject) -> tuple[list[Any], list[Any]]:
    """(drawn instances, drawn + mutated + hand-made variants), each without duplicates."""
    generated = _unique(drawn(subject.schema))
    everything = list(generated)
    for seed, instance in enumerate(generated):
        everything += mutations(instance, seed)
    everything += variants(subject.schema)
    return generated, _unique(everything)


def _unique(values: list[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for value in values:
        seen.setdefault(json.dumps(value, sort_keys=True), value)
    return list(seen.values())


# -- verdicts ----------------------------------------------------------------------


@lru_cache(maxsize=None)
def _validator(schema_text: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        json.loads(schema_text), format_checker=FORMATS
    )


def oracle(schema: Any, instance: Any) -> bool:
    return _validator(json.dumps(schema, sort_keys=True)).is_valid(instance)


def differential(out: Path, package: ModuleType, source: str) -> None:
    drawn_total = valid_total = checked_total = 0
    disagreements: list[str] = []
    cases = subjects(out, package)
    for subject in cases:
        generated, everything = instances_for(subject)
        for instance in everything:
            expected = oracle(subject.schema, instance) and (
                isinstance(instance, dict) or not subject.tool_args
            )
            if model_accepts(subject.model, instance) != expected:
                disagreements.append(
                    f"{subject.label}: {instance!r} should be {'accepted' if expected else 'rejected'}"
                )
        drawn_total += len(generated)
        valid_total += sum(oracle(subject.schema, instance) for instance in generated)
        checked_total += len(everything)
    print(
        f"\n{source}: {len(cases)} schemas, {drawn_total} instances drawn ({valid_total} valid), "
        f"{checked_total} checked with mutations"
    )
    # hypothesis-jsonschema must really be drawing instances (it gives up silently on what it cannot handle).
    assert drawn_total >= 8 * len(
        cases
    ), f"only {drawn_total} instances drawn for {len(cases)} schemas"
    assert not disagreements, "\n".join(disagreements[:20])


def test_examples_agree_with_jsonschema(
    examples_package: tuple[Path, ModuleType],
) -> None:
    differential(*examples_package, "examples/specs")


def test_real_tools_agree_with_jsonschema(
    real_tools_package: tuple[Path, ModuleType],
) -> None:
    differential(*real_tools_package, "../shared/corpus/real-tools")


def _at(document: Any, pointer: str) -> Any:
    node = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


# -- round trip --------------------------------------------------------------------


@pytest.mark.parametrize("which", ["examples_package", "real_tools_package"])
def test_emitted_schemas_pass_the_metaschema(
    request: pytest.FixtureRequest, which: str
) -> None:
    out, _ = request.getfixturevalue(which)
    checked = 0
    for path in sorted((out / "schemas").rglob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for schema in (
            [document] if path.parent.name == "entities" else embedded_schemas(document)
        ):
            # Formats are annotations in 2020-12 (and Python cannot compile every ECMA-262 `pattern`).
            jsonschema.Draft202012Validator.check_schema(schema, format_checker=None)
            checked += 1
    assert checked >= len(list((out / "schemas").glob("*.json")))


def embedded_schemas(document: Any) -> Iterator[Any]:
    """The schemas in a tool definition file, whatever its shape (one tool, or an export of many)."""
    if isinstance(document, list):
        for item in document:
            yield from embedded_schemas(item)
    elif isinstance(document, dict):
        for key, value in document.items():
            if key in SCHEMA_KEYS and isinstance(value, dict):
                yield value
            else:
                yield from embedded_schemas(value)


@pytest.mark.parametrize("which", ["examples_package", "real_tools_package"])
def test_model_json_schema_is_the_emitted_schema(
    request: pytest.FixtureRequest, which: str
) -> None:
    out, package = request.getfixturevalue(which)
    for spec in package.TOOLS.values():
        emitted = json.loads(
            (out / "schemas" / f"{spec.method}.json").read_text(encoding="utf-8")
        )
        assert spec.args_model.model_json_schema() == emitted["inputSchema"]
    for name, entity in entities(out, package).items():
        emitted = json.loads(
            (out / "schemas" / "entities" / f"{name}.json").read_text(encoding="utf-8")
        )
        assert entity.model_json_schema() == emitted


@pytest.mark.parametrize("which", ["examples_package", "real_tools_package"])
def test_model_json_schema_accepts_what_the_model_accepts(
    request: pytest.FixtureRequest, which: str
) -> None:
    _, package = request.getfixturevalue(which)
    checked = 0
    for model in generated_models(package):
        own = model.model_json_schema()
        embedded = TypeAdapter(list[model]).json_schema()  # type: ignore[valid-type]
        for schema in (own, embedded):
            jsonschema.Draft202012Validator.check_schema(schema, format_checker=None)
        document = schema_location(model)[0]
        subschema = _at(document, schema_location(model)[1])
        for instance in _unique(variants(subschema, document)):
            verdict = model_accepts(model, instance)
            assert (
                oracle(own, instance) == verdict
            ), f"{model.__name__}.model_json_schema() on {instance!r}"
            assert (
                oracle(embedded, [instance]) == verdict
            ), f"list[{model.__name__}] schema on {instance!r}"
            checked += 1
    count = len(generated_models(package))
    print(
        f"\n{which}: {count} models, {checked} instances checked on model_json_schema()"
    )
    assert checked


# -- dumps round trip --------------------------------------------------------------


def round_trip(out: Path, package: ModuleType, source: str) -> None:
    """For every valid drawn instance: `validate -> dump(by_alias, mode="json") -> validate` is the identity,
    and the dump (as data and as `model_dump_json` text) is valid against the emitted schema.
    """
    checked = 0
    failures: list[str] = []
    for subject in subjects(out, package):
        for instance in drawn(subject.schema):
            if not oracle(subject.schema, instance) or (
                subject.tool_args and not isinstance(instance, dict)
            ):
                continue
            model = subject.model.model_validate(instance)
            dump = model.model_dump(by_alias=True, mode="json")
            text = model.model_dump_json(by_alias=True)
            for label, data in (
                ("dump", dump),
                ("dump_json", json.loads(text, parse_float=Decimal)),
            ):
                if not oracle(subject.schema, data):
                    failures.append(f"{subject.label}: {label} {data!r} is invalid")
            again = subject.model.model_validate(dump)
            if again.model_dump(by_alias=True, mode="json") != dump:
                failures.append(f"{subject.label}: {instance!r} -> {dump!r} changed")
            if (
                subject.model.model_validate_json(text).model_dump()
                != model.model_dump()
            ):
                failures.append(f"{subject.label}: {text} read back differently")
            checked += 1
    print(f"\n{source}: {checked} valid instances dumped and read back")
    assert checked
    assert not failures, "\n".join(failures[:20])


def test_examples_dumps_round_trip(examples_package: tuple[Path, ModuleType]) -> None:
    round_trip(*examples_package, "examples/specs")


def test_real_tools_dumps_round_trip(
    real_tools_package: tuple[Path, ModuleType],
) -> None:
    round_trip(*real_tools_package, "../shared/corpus/real-tools")


def results_round_trip(package: ModuleType, source: str) -> None:
    """For every tool with an output schema and every valid result drawn from it: dispatch accepts it, and its
    `to_data()`, `to_json()` and MCP `structuredContent` are valid against the emitted schemas.
    """
    runtime = __import__("toolspec_runtime.dispatch", fromlist=["call_tool"])
    exports = __import__("toolspec_runtime.exports", fromlist=["mcp_output_schema"])
    checked = 0
    failures: list[str] = []
    for name, spec in sorted(package.TOOLS.items()):
        if spec.output_schema is None:
            continue
        arguments = next(
            (
                a
                for a in drawn(dict(spec.input_schema))
                if isinstance(a, dict) and oracle(dict(spec.input_schema), a)
            ),
            None,
        )
        if arguments is None:
            continue
        schema = dict(spec.output_schema)
        mcp_schema = exports.mcp_output_schema(schema)[0]
        for value in drawn(schema):
            if not oracle(schema, value):
                continue
            fake = dataclasses.replace(
                spec,
                context_args=(),
                config_model=None,
                implementation=lambda args, context, v=value: copy.deepcopy(v),
            )
            result = runtime.call_tool(fake, name, arguments, None, None)
            if not result.ok:
                failures.append(f"{name}: {value!r} refused: {result.error}")
                continue
            for label, data, against in (
                ("to_data", result.to_data(), schema),
                ("to_json", json.loads(result.to_json(), parse_float=Decimal), schema),
                ("structuredContent", result.to_mcp()["structuredContent"], mcp_schema),
            ):
                if not oracle(against, data):
                    failures.append(f"{name}: {label} {data!r} is invalid")
            checked += 1
    print(f"\n{source}: {checked} valid results dispatched")
    assert checked
    assert not failures, "\n".join(failures[:20])


def test_examples_results_round_trip(
    examples_package: tuple[Path, ModuleType],
) -> None:
    results_round_trip(examples_package[1], "examples/specs")


def test_real_tools_results_round_trip(
    real_tools_package: tuple[Path, ModuleType],
) -> None:
    results_round_trip(real_tools_package[1], "../shared/corpus/real-tools")
