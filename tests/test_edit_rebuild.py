"""A rebuild after an edit compiles only the spec files that changed and those depending on them
(codegen/incremental.py), and leaves OUT byte for byte as a full compile would, with the same diagnostics.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codegen import cache, cli, compiler, incremental, module_parts


def _tool(
    name: str, description: str = "A tool.", ref: str | None = None
) -> dict[str, Any]:
    properties: dict[str, Any] = {"x": {"type": "integer"}}
    if ref is not None:
        properties["subject"] = {"$ref": ref}
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties},
    }


def _entity(title: str, extra: str = "y") -> dict[str, Any]:
    return {
        "title": title,
        "type": "object",
        "properties": {
            extra: {"type": "string"},
            "nested": {"type": "object", "properties": {"z": {"type": "integer"}}},
        },
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Tool files referring to an entity, and the cache pointed at a folder of this test."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CODEGEN_CACHE_DIR", str(tmp_path / "cache"))
    specs = tmp_path / "specs"
    (specs / "entities").mkdir(parents=True)
    (specs / "entities" / "User.schema.json").write_text(json.dumps(_entity("User")))
    (specs / "alpha.json").write_text(
        json.dumps([_tool("alpha", ref="entities/User.schema.json")])
    )
    (specs / "beta.json").write_text(json.dumps([_tool("beta"), _tool("beta_two")]))
    (specs / "gamma.json").write_text(json.dumps([_tool("gamma")]))
    return tmp_path


@pytest.fixture
def reuses(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """For each compile the CLI runs: whether it reused the last build."""
    seen: list[bool] = []
    original = compiler.compile_specs

    def spying(*args: Any, **kwargs: Any) -> compiler.CompileResult:
        result = original(*args, **kwargs)
        seen.append(result.reused)
        return result

    monkeypatch.setattr(compiler, "compile_specs", spying)
    return seen


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Python files an edit rebuild renders (a full build renders through the compiler, not here)."""
    seen: list[str] = []
    render = incremental.format_all

    def noting(files: dict[str, Any]) -> dict[str, str]:
        seen.extend(files)
        return render(files)

    monkeypatch.setattr(incremental, "format_all", noting)
    return seen


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _same_as_a_full_build(capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Build into `out` (through the record), then afresh into `fresh`: OUT and the messages must agree."""
    capsys.readouterr()
    status = cli.main(["specs", "-o", "out"])
    ours = capsys.readouterr()
    shutil.rmtree("fresh", ignore_errors=True)
    fresh_status = cli.main(["specs", "-o", "fresh", "--no-cache"])
    theirs = capsys.readouterr()
    assert status == fresh_status
    assert ours.err.replace("out", "fresh") == theirs.err
    if status == 0:
        assert _tree(Path("out")) == _tree(Path("fresh"))
    return status, ours.err


def test_an_edit_recompiles_only_its_file_and_out_matches_a_full_build(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["specs", "-o", "out"]) == 0
    gamma = (project / "out" / "gamma.py").stat().st_mtime_ns
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", "Edited."), _tool("beta_two")])
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses == [False, True, False]
    assert (project / "out" / "gamma.py").stat().st_mtime_ns == gamma
    # the edit's record (its digest of the inputs taken from the scan) makes the next build a no-op
    assert cli.main(["specs", "-o", "out"]) == 0
    assert reuses == [False, True, False]


ENTITY_MODULE = "entities/user.py"  # the module of entities/User.schema.json


def test_an_entity_file_no_edit_reaches_is_reused_unless_its_names_change(
    project: Path,
    reuses: list[bool],
    capsys: pytest.CaptureFixture[str],
    rendered: list[str],
) -> None:
    """An entity file is read again on every edit (for the documents embedding its entities) but reused like
    any other file: its module is not rendered, and the models using its entities are native as the record
    says its models are. When another entity takes the name of User's nested model (`UserNested`), two modules
    define that name, which a full build warns of: the build is a full one."""
    account = project / "specs" / "entities" / "Account.schema.json"
    account.write_text(json.dumps(_entity("Account")))
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", "Edited."), _tool("beta_two")])
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    assert "beta.py" in rendered and ENTITY_MODULE not in rendered
    (project / "specs" / "alpha.json").write_text(  # a tool using User, compiled again
        json.dumps([_tool("alpha", "Edited.", ref="entities/User.schema.json")])
    )
    rendered.clear()
    assert _same_as_a_full_build(capsys)[0] == 0
    assert "alpha.py" in rendered and ENTITY_MODULE not in rendered
    assert (
        "class AlphaArgs(_models.NativeModel, "
        in (project / "out" / "alpha.py").read_text()
    )
    account.write_text(json.dumps(_entity("UserNested")))  # User's nested model's name
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses == [False, True, False, True, False, False, False]


def test_an_edited_entity_recompiles_the_files_embedding_it(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["specs", "-o", "out"]) == 0
    user = project / "specs" / "entities" / "User.schema.json"
    user.write_text(json.dumps(_entity("User", extra="renamed")))
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses[1] is True
    assert "renamed" in (project / "out" / "alpha.schemas.json").read_text()


def test_an_entity_found_by_its_id_makes_an_edit_a_full_compile(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    # Who refers to an entity by its `$id` is not recorded as a dependency: such a package is compiled in full.
    user = project / "specs" / "entities" / "User.schema.json"
    user.write_text(json.dumps({**_entity("User"), "$id": "https://example.com/user"}))
    (project / "specs" / "gamma.json").write_text(
        json.dumps([_tool("gamma", ref="https://example.com/user")])
    )
    assert cli.main(["specs", "-o", "out"]) == 0
    user.write_text(
        json.dumps({**_entity("User", "renamed"), "$id": "https://example.com/user"})
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses == [False, False, False]
    assert "renamed" in (project / "out" / "gamma.schemas.json").read_text()


def test_an_edit_adding_a_duplicate_name_across_files_is_reported_as_a_full_build_does(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "gamma.json").write_text(
        json.dumps([_tool("gamma"), _tool("alpha")])
    )
    status, err = _same_as_a_full_build(capsys)
    assert status == 1 and "duplicate-name" in err
    assert reuses == [False, False, False]


def test_an_edit_removing_an_entity_another_file_uses_is_reported(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "specs" / "gamma.json").write_text(
        json.dumps([_tool("gamma", ref="entity:User")])
    )
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "entities" / "User.schema.json").write_text(
        json.dumps(_entity("Person"))
    )
    status, err = _same_as_a_full_build(capsys)
    assert status == 1 and "unknown-entity" in err and "gamma.json" in err
    assert reuses == [False, False, False]


def test_an_edit_giving_two_tools_one_method_is_reported_as_a_full_build_does(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    """`Beta-two` (in beta.json) and `beta_two` (in gamma.json) both make the method `beta_two`."""
    (project / "specs" / "beta.json").write_text(json.dumps([_tool("beta")]))
    (project / "specs" / "gamma.json").write_text(
        json.dumps([_tool("gamma"), _tool("beta_two")])
    )
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta"), _tool("Beta-two")])
    )
    status, err = _same_as_a_full_build(capsys)
    assert status == 1 and "method-collision" in err and "gamma.json" in err
    assert reuses == [False, False, False]


@pytest.mark.parametrize("damage", ["entities", "span", "shape", "module path"])
def test_a_damaged_record_means_a_full_build(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    assert cli.main(["specs", "-o", "out"]) == 0
    path = cache.record_path(project / "out")
    assert path is not None
    record, parts = _record(path)
    if damage == "entities":  # the entity file's classes, not as a build writes them
        parts["modules"]["entities/User.schema.json"]["entities"] = [["User"]]
    elif damage == "span":  # gamma's place in the OpenAI export shifted
        name, start, end = parts["exports"]["openai"]["gamma"]
        parts["exports"]["openai"]["gamma"] = [name, start + 1, end + 1]
    elif damage == "shape":
        parts["modules"]["gamma.json"]["tools"] = "gamma"
    else:
        parts["modules"]["gamma.json"]["path"] = "../elsewhere.py"
    path.write_bytes(json.dumps(record).encode() + b"\n" + json.dumps(parts).encode())
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", "Edited."), _tool("beta_two")])
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses == [False, False, False]


_NAMES = ["alpha", "beta", "gamma", "Alpha", "beta_two", "delta"]
_EDITS = st.lists(
    st.tuples(
        st.sampled_from(
            ["alpha.json", "beta.json", "gamma.json", "entities/User.schema.json"]
        ),
        st.lists(st.sampled_from(_NAMES), min_size=0, max_size=3),
        st.sampled_from(["one", "two"]),
        st.booleans(),
    ),
    min_size=1,
    max_size=4,
)


def _record(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A record file's two lines: the record, and the parts of the spec files (`cache.Record.to_json`)."""
    head, newline, parts = path.read_bytes().partition(b"\n")
    assert newline and b"\n" not in parts
    return json.loads(head), json.loads(parts)


@contextlib.contextmanager
def _project_of_its_own(factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new working folder (one for each example hypothesis draws) holding the cache: its `specs/entities`."""
    root = factory.mktemp("edits")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CODEGEN_CACHE_DIR", str(root / "cache"))
        patch.chdir(root)
        (root / "specs" / "entities").mkdir(parents=True)
        yield root / "specs"


def _build_as_a_full_build_does() -> None:
    """Build into `out` (through the record), then afresh into `fresh`: the same status, and the same files."""
    status = cli.main(["specs", "-o", "out", "-q"])
    shutil.rmtree("fresh", ignore_errors=True)
    assert status == cli.main(["specs", "-o", "fresh", "-q", "--no-cache"])
    if status == 0:
        assert _tree(Path("out")) == _tree(Path("fresh"))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=_EDITS)
def test_random_edit_sequences_leave_out_as_a_full_build(
    tmp_path_factory: pytest.TempPathFactory,
    edits: list[tuple[str, list[str], str, bool]],
) -> None:
    with _project_of_its_own(tmp_path_factory) as specs:
        (specs / "entities" / "User.schema.json").write_text(
            json.dumps(_entity("User"))
        )
        for name in ("alpha", "beta", "gamma"):
            (specs / f"{name}.json").write_text(
                json.dumps([_tool(name, ref="entities/User.schema.json")])
            )
        assert cli.main(["specs", "-o", "out", "-q"]) == 0
        for file, names, description, refers in edits:
            if file.startswith("entities/"):
                title = names[0] if names else "User"
                text = json.dumps(_entity(title, extra=description))
            else:
                ref = "entities/User.schema.json" if refers else None
                text = json.dumps([_tool(n, description, ref) for n in names])
            (specs / file).write_text(text)
            _build_as_a_full_build_does()


# Several entity files, entities embedding each other, and names shared between tools and entities: an edit
# reads only the entity files the files it compiles again embed, and must still leave what a full build does.
_ENTITIES = ["User", "Team", "Org"]
_REFS = [None, *(f"entities/{e}.schema.json" for e in _ENTITIES)]
_REFS += [f"entity:{e}" for e in _ENTITIES]
_WIDE_EDITS = st.lists(
    st.tuples(
        st.sampled_from(
            ["alpha.json", "beta.json", "gamma.json", "delta.json"]
            + [f"entities/{e}.schema.json" for e in _ENTITIES]
        ),
        st.lists(st.sampled_from([*_NAMES, *_ENTITIES]), min_size=0, max_size=2),
        st.sampled_from(["one", "two"]),
        st.sampled_from(_REFS),
    ),
    min_size=1,
    max_size=4,
)


def _entity_referring(title: str, extra: str, ref: str | None) -> dict[str, Any]:
    entity = _entity(title, extra)
    if ref is not None:
        entity["properties"]["link"] = {"$ref": ref.replace("entities/", "")}
    return entity


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits=_WIDE_EDITS)
def test_random_edits_among_many_entity_files_leave_out_as_a_full_build(
    tmp_path_factory: pytest.TempPathFactory,
    edits: list[tuple[str, list[str], str, str | None]],
) -> None:
    with _project_of_its_own(tmp_path_factory) as specs:
        links = {"User": None, "Team": "entity:User", "Org": "Team.schema.json"}
        for title, link in links.items():
            (specs / "entities" / f"{title}.schema.json").write_text(
                json.dumps(_entity_referring(title, "y", link))
            )
        for name, ref in zip(("alpha", "beta", "gamma"), _REFS[1:]):
            (specs / f"{name}.json").write_text(json.dumps([_tool(name, ref=ref)]))
        assert cli.main(["specs", "-o", "out", "-q"]) == 0
        for file, names, description, ref in edits:
            if file.startswith("entities/"):
                title = names[0] if names else file[9:].split(".")[0]
                text = json.dumps(_entity_referring(title, description, ref))
            else:
                text = json.dumps([_tool(n, description, ref) for n in names])
            (specs / file).write_text(text)
            _build_as_a_full_build_does()


def test_an_edit_reads_only_the_entity_files_its_file_embeds(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    entities = project / "specs" / "entities"
    (entities / "Team.schema.json").write_text(json.dumps(_entity("Team")))
    assert cli.main(["specs", "-o", "out"]) == 0
    read: list[str] = []
    original = incremental.read_half

    def noting(found: list[tuple[Path, Path]], *args: Any) -> Any:
        read.extend(rel.as_posix() for _, rel in found)
        return original(found, *args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(incremental, "read_half", noting)
        (project / "specs" / "alpha.json").write_text(
            json.dumps([_tool("alpha", "Edited.", ref="entities/User.schema.json")])
        )
        assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses[1] is True and read == ["alpha.json", "entities/User.schema.json"]
    # a tool taking the name of the entity of a file the edit does not read: reported as a full build does
    (project / "specs" / "gamma.json").write_text(json.dumps([_tool("Team")]))
    status, err = _same_as_a_full_build(capsys)
    assert status == 1 and "duplicate-name" in err and "Team.schema.json" in err


def test_the_record_of_a_build_says_what_each_file_left(project: Path) -> None:
    assert cli.main(["specs", "-o", "out", "-q"]) == 0
    path = cache.record_path(project / "out")
    assert path is not None
    _, parts = _record(path)
    order, documents, _, _ = module_parts.outline(parts)
    modules = {
        rel: module_parts.read_module(rel, doc) for rel, doc in documents.items()
    }
    assert modules["entities/User.schema.json"].entities == [("User", "User")]
    assert [rel for rel, _ in order] == [
        "alpha.json",
        "beta.json",
        "entities/User.schema.json",
        "gamma.json",
    ]
    assert modules["alpha.json"].deps == {"entities/User.schema.json"}
    assert modules["gamma.json"].deps == set()


def test_an_edit_that_leaves_the_package_init_as_it_was_does_not_render_it(
    project: Path,
    reuses: list[bool],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from codegen.backends import python

    assert cli.main(["specs", "-o", "out"]) == 0
    render_init = python._render_init
    calls: list[int] = []

    def counting(plan: Any) -> Any:
        calls.append(1)
        return render_init(plan)

    monkeypatch.setattr(python, "_render_init", counting)
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", "Edited."), _tool("beta_two")])
    )
    assert cli.main(["specs", "-o", "out"]) == 0
    assert reuses == [False, True] and calls == []
    (project / "specs" / "beta.json").write_text(json.dumps([_tool("beta")]))
    assert (
        _same_as_a_full_build(capsys)[0] == 0
    )  # a tool less: the init is rendered again
    assert reuses[2] is True and calls == [1, 1]


@pytest.mark.parametrize("description", ["Edited.", "Édité — ✓", "ÿ"])
def test_export_files_are_spliced_alike_as_ascii_bytes_or_as_text(
    project: Path,
    reuses: list[bool],
    capsys: pytest.CaptureFixture[str],
    description: str,
) -> None:
    """An edit splices the export files as bytes while they and the new entries are ASCII, and as text once
    anything is not: OUT is what a full build makes either way, and so after a later edit.
    """
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", description), _tool("beta_two")])
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    (project / "specs" / "gamma.json").write_text(json.dumps([_tool("gamma", "Next.")]))
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses[1] is True and reuses[3] is True


def test_an_edit_under_prefixes_matches_a_full_build(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("github", "gitlab"):
        folder = project / "specs" / name
        folder.mkdir()
        (folder / "tools.json").write_text(json.dumps([_tool("search")]))
    prefixes = ["--prefix", "specs/github=gh", "--prefix", "specs/gitlab=gl"]
    assert cli.main(["specs", "-o", "out", *prefixes]) == 0
    (project / "specs" / "gitlab" / "tools.json").write_text(
        json.dumps([_tool("search", "Edited."), _tool("issues")])
    )
    assert cli.main(["specs", "-o", "out", *prefixes]) == 0
    assert reuses == [False, True]
    assert cli.main(["specs", "-o", "fresh", "--no-cache", *prefixes]) == 0
    assert _tree(project / "out") == _tree(project / "fresh")
    assert "gl__issues" in (project / "out" / "schemas" / "tools.mcp.json").read_text()


def test_an_edit_renders_its_own_module_and_the_package_files_only_when_its_names_change(
    project: Path,
    reuses: list[bool],
    capsys: pytest.CaptureFixture[str],
    rendered: list[str],
) -> None:
    """An edit that keeps its file's names (a description here, then a type) makes again only that file's
    module and the export files; one that changes them (a tool more, a tool renamed) the package `__init__`
    too, never another spec file's module."""
    assert cli.main(["specs", "-o", "out"]) == 0
    beta = project / "specs" / "beta.json"
    beta.write_text(json.dumps([_tool("beta", "Edited."), _tool("beta_two")]))
    assert _same_as_a_full_build(capsys)[0] == 0
    assert rendered == ["beta.py"]
    typed = [_tool("beta", "Edited."), _tool("beta_two")]
    typed[1]["parameters"]["properties"]["x"] = {"type": "string", "maxLength": 3}
    beta.write_text(json.dumps(typed))
    rendered.clear()
    assert _same_as_a_full_build(capsys)[0] == 0
    assert rendered == ["beta.py"]
    assert "max_length=3" in (project / "out" / "beta.py").read_text()
    for tools in ([*typed, _tool("beta_three")], [typed[0], _tool("beta-two")]):
        beta.write_text(json.dumps(tools))
        rendered.clear()
        assert _same_as_a_full_build(capsys)[0] == 0
        assert sorted(rendered) == ["__init__.py", "beta.py"]
    assert '"beta-two"' in (project / "out" / "schemas" / "tools.mcp.json").read_text()
    assert reuses == [False] + [True, False] * 4


def test_adding_and_removing_spec_files_keeps_every_other_files_outputs(
    project: Path,
    reuses: list[bool],
    capsys: pytest.CaptureFixture[str],
    rendered: list[str],
) -> None:
    """A file added is compiled, a file removed takes its outputs with it; the other files keep theirs
    (their names are their own), and the package files are composed again."""
    assert cli.main(["specs", "-o", "out"]) == 0
    (project / "specs" / "sub").mkdir()
    (project / "specs" / "sub" / "delta.json").write_text(json.dumps([_tool("delta")]))
    assert _same_as_a_full_build(capsys)[0] == 0
    assert sorted(rendered) == ["__init__.py", "sub/__init__.py", "sub/delta.py"]
    (project / "specs" / "gamma.json").unlink()
    rendered.clear()
    assert _same_as_a_full_build(capsys)[0] == 0
    assert rendered == ["__init__.py"]
    assert not (project / "out" / "gamma.py").exists()
    assert reuses == [False, True, False, True, False]


@pytest.mark.parametrize("damage", ["edited entry", "edited deps", "span"])
def test_a_record_damaged_with_its_digest_made_again_still_means_a_full_build(
    project: Path, reuses: list[bool], capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """The digest of the record's parts makes any damage a full build; an edit also checks what it reads of
    them, so a record changed with its digest made to match is not taken as it stands either.
    """
    assert cli.main(["specs", "-o", "out"]) == 0
    path = cache.record_path(project / "out")
    assert path is not None
    record, parts = _record(path)
    if damage == "edited entry":
        parts["modules"]["beta.json"]["tools"] = "beta"
    elif damage == "edited deps":
        parts["modules"]["beta.json"]["deps"] = [["entities/User.schema.json"]]
    else:
        name, start, end = parts["exports"]["mcp"]["gamma"]
        parts["exports"]["mcp"]["gamma"] = [name, start - 1, end - 1]
    text = json.dumps(parts).encode()
    record["parts_sha"] = hashlib.sha256(text).hexdigest()
    path.write_bytes(json.dumps(record).encode() + b"\n" + text)
    (project / "specs" / "beta.json").write_text(
        json.dumps([_tool("beta", "Edited."), _tool("beta_two")])
    )
    assert _same_as_a_full_build(capsys)[0] == 0
    assert reuses == [False, False, False]
