"""Generated models mean exactly what their schemas mean: the official JSON Schema test suite, through the
compiler, in every dialect it covers (draft-04, draft-07, 2019-09 and 2020-12).

Every group of ../shared/conformance/json-schema-test-suite/<dialect>/*.json becomes one `*.schema.json` entity
spec, declaring the dialect in `$schema` where the group does not; all groups of a dialect are compiled together
into one package. Each test instance goes to the group's model twice, as
JSON text (`model_validate_json`) and as Python data (`model_validate`); a case agrees when both forms give the
suite's verdict. A group the compiler refuses (with a diagnostic) disagrees on all its cases; a crash, a model
raising anything but a validation error, or a generated module that does not import fails the test outright.

The agreement of each dialect may not fall below its figure in `conformance_ratchet.json`, and the test asks for
the ratchet to be raised when it is higher, so the figures only go up.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from codegen.compiler import compile_specs
from codegen.passes.naming import class_name, module_name
from codegen.writer import write_output
from bundling import suite_ref_map
from conftest import shared
from test_compiled_checks import count_checks

RATCHET = Path(__file__).with_name("conformance_ratchet.json")
# Suite folder -> the `$schema` its groups are read in.
DIALECTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}
PACKAGE = "suite_gen"

LEFT_OUT: dict[str, set[str]] = {}  # suite folder -> files not compiled


@dataclass
class Group:
    file: str
    index: int
    description: str
    schema: Any
    tests: list[dict[str, Any]]
    dialect: str  # the `$schema` the group is read in when it names none
    verdicts: bool = (
        True  # whether the suite's verdicts apply (not to a group read in another dialect)
    )

    @property
    def stem(self) -> str:
        base = re.sub(r"[^a-z0-9]+", "_", self.file[: -len(".json")].lower()).strip("_")
        return f"{base}_{self.index:03d}"

    @property
    def entity(self) -> str:
        """The entity name: the unique title given to an object schema, the file stem of a boolean one."""
        if isinstance(self.schema, bool):
            return self.stem
        return "Suite" + "".join(part.capitalize() for part in self.stem.split("_"))

    def spec_text(self) -> str:
        if isinstance(self.schema, bool):
            return json.dumps(
                {"$schema": self.dialect, "not": {}}
                if not self.schema
                else {"$schema": self.dialect}
            )
        schema = {"$schema": self.dialect, **self.schema, "title": self.entity}
        return json.dumps(schema, indent=1)


@dataclass
class Suite:
    dialect: str  # the suite folder
    groups: list[Group]
    out: Path
    refused: dict[str, str]  # stem -> the compiler's diagnostic
    models: dict[str, type[Any]]  # stem -> model


@dataclass
class Tally:
    agree: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)
    disagreements: list[str] = field(default_factory=list)


def load_groups(dialect: str) -> list[Group]:
    folder = shared("conformance", "json-schema-test-suite", dialect)
    groups = []
    for path in sorted(folder.glob("*.json")):
        if path.name in LEFT_OUT.get(dialect, ()):
            continue
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            groups.append(
                Group(
                    path.name,
                    index,
                    group["description"],
                    group["schema"],
                    group["tests"],
                    DIALECTS[dialect],
                )
            )
    return groups


def compile_groups(
    groups: list[Group], folder: Path
) -> tuple[dict[str, str], dict[str, str]]:
    """Compile every group in one run; leave out the groups the compiler refuses and compile the rest again."""
    specs = folder / "specs"
    specs.mkdir()
    for group in groups:
        (specs / f"{group.stem}.schema.json").write_text(
            group.spec_text(), encoding="utf-8"
        )
    refused: dict[str, str] = {}
    while True:
        result = compile_specs([specs], ref_map=suite_ref_map())
        if result.files is not None:
            return result.files, refused
        errors = [d for d in result.diagnostics.sorted() if d.severity == "error"]
        culprits = {
            d.span.source.path.name[: -len(".schema.json")]: d.render()
            for d in errors
            if d.span and d.span.source.path.parent == specs
        }
        assert culprits, "the compiler failed without naming a spec:\n" + "\n".join(
            d.render() for d in errors
        )
        for stem, message in culprits.items():
            refused.setdefault(stem, message)
            (specs / f"{stem}.schema.json").unlink()


@contextmanager
def compiled_suite(
    dialect: str, groups: list[Group], folder: Path, package: str
) -> Iterator[Suite]:
    """The groups compiled into one imported package (forgotten afterwards)."""
    files, refused = compile_groups(groups, folder)
    out = folder / package
    write_output(out, files)
    sys.path.insert(0, str(folder))
    try:
        models = {}
        for group in groups:
            if group.stem not in refused:  # every module must import
                module = importlib.import_module(f"{package}.{module_name(group.stem)}")
                models[group.stem] = getattr(module, class_name(group.entity))
        yield Suite(dialect, groups, out, refused, models)
    finally:
        sys.path.remove(str(folder))
        for name in [
            m for m in sys.modules if m == package or m.startswith(package + ".")
        ]:
            del sys.modules[name]


@pytest.fixture(scope="module", params=sorted(DIALECTS))
def suite(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Suite]:
    dialect: str = request.param
    package = "suite_" + re.sub(r"[^a-z0-9]", "_", dialect)
    folder = tmp_path_factory.mktemp("conformance")
    with compiled_suite(dialect, load_groups(dialect), folder, package) as built:
        yield built


def verdict(model: type[Any], instance: Any, where: str) -> bool | None:
    """Whether the model accepts `instance` both as Python data and as JSON text; None when the forms differ."""
    verdicts = []
    for form, load in (
        ("Python data", lambda: model.model_validate(instance)),
        ("JSON text", lambda: model.model_validate_json(json.dumps(instance))),
    ):
        try:
            load()
            verdicts.append(True)
        except ValidationError:
            verdicts.append(False)
        except Exception as exc:  # a crash fails the test; it is never a verdict
            raise AssertionError(
                f"{where}: the model crashed on {instance!r} as {form}: {exc!r}"
            ) from exc
    return verdicts[0] if verdicts[0] == verdicts[1] else None


def tally(suite: Suite) -> Tally:
    result = Tally()
    for group in suite.groups:
        result.total[group.file] += len(group.tests)
        model = suite.models.get(group.stem)
        for test in group.tests if model is not None else ():
            where = f"{group.file} #{group.index} {group.description!r} / {test['description']!r}"
            seen = verdict(model, test["data"], where)
            if seen is test["valid"]:
                result.agree[group.file] += 1
            else:
                shown = (
                    "the two forms disagree"
                    if seen is None
                    else ("accepted" if seen else "rejected")
                )
                expected = "valid" if test["valid"] else "invalid"
                result.disagreements.append(
                    f"{where}: {shown}, the suite says {expected}"
                )
    return result


def report(suite: Suite, result: Tally) -> str:
    agree, total = sum(result.agree.values()), sum(result.total.values())
    lines = [
        f"{name:30} {result.agree[name]:4}/{result.total[name]:<4}"
        for name in sorted(result.total)
    ]
    lines.append(f"{'total':30} {agree:4}/{total:<4} ({100 * agree / total:.2f}%)")
    for group in suite.groups:
        if group.stem in suite.refused:
            first = suite.refused[group.stem].splitlines()[0].split(": ", 1)[1]
            lines.append(
                f"refused: {group.file} #{group.index} {group.description!r}: {first}"
            )
    lines += [f"disagrees: {item}" for item in result.disagreements]
    return "\n".join(lines)


def test_generated_models_agree_with_the_official_suite(
    suite: Suite, capsys: pytest.CaptureFixture[str]
) -> None:
    result = tally(suite)
    agree, total = sum(result.agree.values()), sum(result.total.values())
    with capsys.disabled():
        print(f"\n{suite.dialect}:\n" + report(suite, result))
    recorded = json.loads(RATCHET.read_text(encoding="utf-8"))[suite.dialect]
    assert (
        agree >= recorded["agree"]
    ), f"{suite.dialect}: conformance fell to {agree}/{total}, below the ratchet ({recorded['agree']})"
    assert (
        agree <= recorded["agree"]
    ), f"{suite.dialect}: conformance rose to {agree}/{total}: raise its 'agree' in {RATCHET.name} to {agree}"
    assert (
        total == recorded["total"]
    ), f"{suite.dialect}: {total} cases now, {recorded['total']} recorded"


def test_emitted_schemas_are_valid_and_are_what_the_models_enforce(
    suite: Suite,
) -> None:
    for group in suite.groups:
        model = suite.models.get(group.stem)
        if model is None:
            continue
        path = suite.out / "schemas" / "entities" / f"{model.__name__}.json"
        emitted = json.loads(path.read_text(encoding="utf-8"))
        # Formats are annotations in 2020-12 (and Python cannot compile every ECMA-262 `pattern`).
        jsonschema.Draft202012Validator.check_schema(emitted, format_checker=None)
        assert model.model_json_schema() == emitted, path.name


# Per dialect and suite file: (groups whose models all take the compiled path or are native, groups left in
# part to the interpreter). What stays interpreted reaches a `$dynamicRef` the dynamic scope may resolve, a
# `$recursiveRef`, or a meta-schema (which has them). Fewer compiled is a regression; more is progress (raise the figures).
COMPILED_PATH = {
    "draft4": {"ref.json": (19, 0), "refRemote.json": (8, 0)},
    "draft7": {"ref.json": (35, 0), "refRemote.json": (11, 0)},
    "draft2019-09": {
        "anchor.json": (4, 0),
        "ref.json": (36, 1),
        "refRemote.json": (15, 0),
        "unevaluatedItems.json": (25, 1),
        "unevaluatedProperties.json": (43, 1),
    },
    "draft2020-12": {
        "anchor.json": (4, 0),
        "dynamicRef.json": (10, 11),
        "ref.json": (35, 1),
        "refRemote.json": (15, 0),
        "unevaluatedItems.json": (28, 1),
        "unevaluatedProperties.json": (43, 1),
    },
}
COMPILED_PATH_FILES = (
    "anchor.json",
    "dynamicRef.json",
    "ref.json",
    "refRemote.json",
    "unevaluatedItems.json",
    "unevaluatedProperties.json",
)


def test_unevaluated_and_references_take_the_compiled_path(suite: Suite) -> None:
    found: dict[str, list[int]] = {}
    for group in suite.groups:
        if group.file not in COMPILED_PATH_FILES or group.stem in suite.refused:
            continue
        module = sys.modules[suite.models[group.stem].__module__]
        counts = found.setdefault(group.file, [0, 0])
        counts[0 if count_checks(module)[1] == 0 else 1] += 1
    shown = {name: tuple(counts) for name, counts in sorted(found.items())}
    assert shown == COMPILED_PATH[suite.dialect], shown
