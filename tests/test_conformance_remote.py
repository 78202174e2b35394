"""The suite files whose schemas refer to remote documents, served from the suite's `remotes/` with no network.

`refRemote.json`, `dynamicRef.json` and `vocabulary.json` of draft2020-12 refer to `http://localhost:1234/...`;
that prefix is mapped (`ref_map`, as `--ref-map` or `[tool.codegen] ref-map` would) to
../shared/conformance/json-schema-test-suite/remotes/, so the compiler bundles those documents into each schema.
Otherwise as `test_conformance.py`, whose machinery this reuses: every instance as JSON text and as Python data,
a ratchet (`conformance_remote_ratchet.json`) that only goes up.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import shared
from test_conformance import DIALECTS, Group, Suite, compiled_suite, report, tally

RATCHET = Path(__file__).with_name("conformance_remote_ratchet.json")
FILES = ("refRemote.json", "dynamicRef.json", "vocabulary.json")
PACKAGE = "suite_remote_gen"


def load_groups() -> list[Group]:
    folder = shared("conformance", "json-schema-test-suite", "draft2020-12")
    return [
        Group(
            name,
            index,
            group["description"],
            group["schema"],
            group["tests"],
            DIALECTS["draft2020-12"],
        )
        for name in FILES
        for index, group in enumerate(
            json.loads((folder / name).read_text(encoding="utf-8"))
        )
    ]


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    folder = tmp_path_factory.mktemp("conformance_remote")
    with compiled_suite("draft2020-12", load_groups(), folder, PACKAGE) as built:
        yield built


def test_remote_references_agree_with_the_official_suite(
    suite: Suite, capsys: pytest.CaptureFixture[str]
) -> None:
    result = tally(suite)
    agree, total = sum(result.agree.values()), sum(result.total.values())
    with capsys.disabled():
        print("\n" + report(suite, result))
    recorded = json.loads(RATCHET.read_text(encoding="utf-8"))["agree"]
    assert (
        agree >= recorded
    ), f"conformance fell to {agree}/{total}, below the ratchet ({recorded})"
    assert (
        agree <= recorded
    ), f"conformance rose to {agree}/{total}: raise 'agree' in {RATCHET.name} to {agree}"


def test_bundled_schemas_are_self_contained(suite: Suite) -> None:
    """Each emitted schema is valid 2020-12 and validates the suite's instances as the suite says, with
    `jsonschema` given no way to fetch anything: every document it needs is inside."""
    import jsonschema

    for group in suite.groups:
        model = suite.models.get(group.stem)
        if model is None:
            continue
        path = suite.out / "schemas" / "entities" / f"{model.__name__}.json"
        emitted = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.Draft202012Validator.check_schema(emitted)
        validator = jsonschema.Draft202012Validator(emitted)
        for test in group.tests:
            assert validator.is_valid(test["data"]) is test["valid"], (
                group.file,
                group.description,
                test["description"],
            )
