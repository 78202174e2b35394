"""User names never shadow what generated code relies on, and two things never share one Python name (SPEC §4, §7).

Generated modules reach the runtime only through underscore names (`_dispatch`, `_models`, ...), which the
naming authority never gives a user name; the few names the templates do bind are `RESERVED_NAMES`, which no user
name may take. A package whose names would collide with those still imports, dispatches every tool and passes
`mypy --strict`; two files that would become one module name are a diagnostic.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

from codegen.passes.naming import RESERVED_NAMES
from conftest import EXAMPLES, compile_result, generate_package
from test_typecheck import _mypy

SQL_TOOL = """\
/*
---
name: {name}
type: sql_function
connection: db
description: Adds a context value.
arguments:
  inline:
    n: int
    since:
      type: date
      default: "2020-01-01"
    extra:
      type: int
      from_context: app.extra
return_shape: int
---
*/
SELECT :n + :extra AS total
"""

GRAM_AGENT = """\
[helper:Agent {description: "Helps."} |
  [ping:Tool {description: "Pings."} | (host::Text)==>(::Text)]
]
"""


def _entity(folder: Path, title: str, schema: dict[str, Any] | None = None) -> None:
    body = schema or {"type": "object", "properties": {"a": {"type": "integer"}}}
    (folder / f"{title}.schema.json").write_text(json.dumps({"title": title, **body}))


def _colliding_specs(folder: Path) -> Path:
    """Every kind of name that once collided with a runtime, typing or package name, in one package."""
    folder.mkdir(parents=True)
    for title in (
        "ContextArg",
        "AgentSpec",
        "Connection",
        "ToolSpec",
        "Tools",
        "FooFn",
    ):
        _entity(folder, title)
    # Entities that refer to themselves (or each other) outside an object.
    _entity(folder, "L", {"type": "array", "items": {"$ref": "L.schema.json"}})
    _entity(
        folder,
        "M",
        {"type": "object", "additionalProperties": {"$ref": "M.schema.json"}},
    )
    _entity(
        folder,
        "U",
        {
            "anyOf": [
                {"type": "string"},
                {"type": "array", "items": {"$ref": "U.schema.json"}},
            ]
        },
    )
    _entity(folder, "A", {"type": "array", "items": {"$ref": "B.schema.json"}})
    _entity(folder, "B", {"type": "array", "items": {"$ref": "A.schema.json"}})
    for name in ("run_tool", "default_value", "export_tools"):
        (folder / f"{name}.sql").write_text(SQL_TOOL.format(name=name))
    tools = {
        # file names that are names the package `__init__` binds
        "annotations.json": {
            "name": "ann",
            "parameters": {
                "type": "object",
                "properties": {
                    "kwargs": {"type": "integer"},
                    "": {"type": "string"},
                    "self": {"type": "integer"},
                    "conn": {"$ref": "Connection.schema.json"},
                },
            },
        },
        "dispatch.json": {
            "name": "Foo",
            "parameters": {
                "type": "object",
                "properties": {
                    "c": {"$ref": "ContextArg.schema.json"},
                    "a": {"$ref": "AgentSpec.schema.json"},
                    "l": {"$ref": "L.schema.json"},
                },
            },
        },
    }
    for file_name, tool in tools.items():
        (folder / file_name).write_text(json.dumps(tool))
    (folder / "agents.gram").write_text(GRAM_AGENT)
    return folder


class _Impl:
    def ann(self, **kwargs: Any) -> Any:
        return sorted(kwargs)

    def foo(self, **kwargs: Any) -> Any:
        return type(kwargs["l"]).__name__

    def ping(self, *, host: str) -> str:
        return host


def test_colliding_names_import_dispatch_and_pass_mypy(
    tmp_path: Path, import_package: Callable[[Path, str], ModuleType]
) -> None:
    sqlalchemy = pytest.importorskip("sqlalchemy")
    shared = tmp_path / "packages"
    out, name = generate_package(shared, _colliding_specs(tmp_path / "specs"))
    package = import_package(out, name)

    # Entities keep their names where no runtime name needs them, and shadow nothing.
    assert package.ContextArg.__module__ == f"{name}.context_arg"
    assert package.Connection.__module__ == f"{name}.connection"
    # ... except SPEC §4's names, which win.
    assert package.ToolSpec.__module__ == "toolspec_runtime.dispatch"
    assert package.AGENTS["helper"].tools == ("ping",)
    # Every tool dispatches: JSON tools, the gram tool, and SQL tools whose names are runtime helpers'.
    impl = _Impl()
    found = package.dispatch("ann", {"kwargs": 1, "": "x", "self": 2}, impl)
    assert found.error is None and found.value == ["conn", "field", "kwargs_", "self_"]
    found = package.dispatch("Foo", {"l": [[]]}, impl)
    assert found.error is None and found.value == "L"
    assert package.dispatch("ping", {"host": "h"}, impl).value == "h"
    engine = sqlalchemy.create_engine("sqlite://")
    with engine.connect() as connection:
        context = {"databases": {"db": connection}, "app": {"extra": 5}}
        for tool in ("run_tool", "default_value", "export_tools"):
            found = package.dispatch(tool, {"n": 2}, None, context)
            assert (found.error, found.value) == (None, 7), tool
    # Self-referential entities outside an object are importable, typed models.
    assert package.L.model_validate([[], [[]]]).root[1].root[0].root == []
    assert package.M.model_validate({"a": {"b": {}}}).root["a"].root["b"].root == {}
    assert package.U.model_validate(["x", ["y"]]).root[1].root[0].root == "y"
    assert type(package.A.model_validate([[[]]]).root[0]).__name__ == "B"

    # Packages with only entities, or only a resource, have no tools: they must type-check too.
    entities = tmp_path / "entities"
    entities.mkdir()
    _entity(entities, "Lonely")
    entities_out, _ = generate_package(shared, entities)
    resource_out, _ = generate_package(
        shared, EXAMPLES / "brimley" / "docs" / "help_page.yaml"
    )
    _mypy(tmp_path, out, entities_out, resource_out)


def _bindings(tree: ast.Module) -> tuple[set[str], set[str], set[str]]:
    """Names a module binds at its top level: (imported from outside the package, imported from another
    generated module, defined here)."""
    imported: set[str] = set()
    foreign: set[str] = set()
    defined: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names = {a.asname or a.name.split(".")[0] for a in statement.names}
            generated = isinstance(statement, ast.ImportFrom) and _is_generated(
                statement
            )
            (foreign if generated else imported).update(names - {"*"})
        elif isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            defined.add(statement.name)
        elif isinstance(statement, ast.AnnAssign) and isinstance(
            statement.target, ast.Name
        ):
            defined.add(statement.target.id)
        elif isinstance(statement, ast.Assign):
            defined |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return imported, foreign, defined


def test_templates_bind_only_reserved_or_underscore_names(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    """Holds `RESERVED_NAMES` to the templates: what a generated file imports from outside the package is
    reserved or private; what it defines or imports from another generated module is reserved, private, or a
    user name (exported by the module that defines it), and a user name is never reserved.
    """
    out, _ = examples_package
    colliding, _ = generate_package(tmp_path, _colliding_specs(tmp_path / "specs"))
    for package in (out, colliding):
        for path in package.rglob("*.py"):
            tree = ast.parse(path.read_text())
            imported, foreign, defined = _bindings(tree)
            # The package __init__ exports only reserved names of its own (it star-imports the rest).
            user = set(_exported(tree)) if path.name != "__init__.py" else set()
            assert user.isdisjoint(RESERVED_NAMES), path
            public = {n for n in imported | defined if not n.startswith("_")}
            assert public - user <= RESERVED_NAMES | {"__all__"}, path
            assert foreign.isdisjoint(RESERVED_NAMES), path


def _is_generated(statement: ast.ImportFrom) -> bool:
    """`from ..other import Model`: a model of another generated module (or the module itself)."""
    return statement.level > 0


def _exported(tree: ast.Module) -> list[str]:
    for statement in tree.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id == "__all__"
        ):
            return list(ast.literal_eval(statement.value))  # type: ignore[arg-type]
    return []


def test_a_file_and_a_folder_of_one_module_name_is_a_diagnostic(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    (specs / "x").mkdir(parents=True)
    tool = {"name": "t", "parameters": {"type": "object", "properties": {}}}
    (specs / "x.json").write_text(json.dumps(tool))
    (specs / "x" / "y.json").write_text(json.dumps({**tool, "name": "u"}))
    result = compile_result(specs)
    assert result.files is None
    (diagnostic,) = result.diagnostics.sorted()
    assert diagnostic.code == "module-collision"
    assert diagnostic.span is not None and diagnostic.span.source.display.endswith(
        "x.json"
    )
    assert [
        span.source.display.endswith("y.json") for _, span in diagnostic.notes if span
    ] == [True]


@pytest.mark.parametrize(
    "schemas",
    [
        {"C": {"$ref": "D.schema.json"}, "D": {"$ref": "C.schema.json"}},
        {"V": {"anyOf": [{"type": "string"}, {"$ref": "V.schema.json"}]}},
        {
            "W": {
                "allOf": [{"$ref": "#/$defs/a"}],
                "$defs": {"a": {"not": {"$ref": "#"}}},
            }
        },
        {"S": {"$ref": "#"}},
    ],
    ids=["two-files", "anyOf-itself", "through-defs", "itself"],
)
def test_ref_loops_that_never_descend_are_diagnostics(
    tmp_path: Path, schemas: dict[str, Any]
) -> None:
    for title, schema in schemas.items():
        _entity(tmp_path, title, schema)
    result = compile_result(tmp_path)
    assert result.files is None
    found = result.diagnostics.sorted()
    assert {d.code for d in found} == {"ref-loop"}
    assert {
        Path(d.span.source.display).stem.split(".")[0] for d in found if d.span
    } == set(schemas)


def test_recursion_through_the_instance_is_no_loop(tmp_path: Path) -> None:
    _entity(
        tmp_path,
        "Tree",
        {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#"}}]},
    )
    result = compile_result(tmp_path)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]


def test_a_title_of_any_length_or_digits_gives_usable_names() -> None:
    # Found by the hostile suite: a title of thousands of characters named a file of OUT beyond 255 bytes, and
    # the title "\x1b[31m" gave the constant `31_M_SCHEMA`.
    from codegen.passes.naming import MAX_CLASS_NAME, class_name, constant_name, snake

    long = class_name("M31" * 3000)
    assert len(long) <= MAX_CLASS_NAME and long.isidentifier()
    assert class_name("M31" * 3000) == long != class_name("M31" * 3001)
    assert constant_name(snake("\x1b[31m")).isidentifier()
    assert constant_name(snake("\x1b[31m")) + "_SCHEMA" == "VALUE_31_M_SCHEMA"


def test_fields_keep_clear_of_every_public_attribute_of_the_installed_pydantic() -> (
    None
):
    """The reserved field names are a constant (output must not depend on the pydantic beside codegen): the
    pydantic generated code runs on must not have added a public attribute a field could shadow.
    """
    from pydantic import BaseModel, RootModel

    from codegen.passes.naming import FIELD_RESERVED, field_name

    public = {n for n in dir(BaseModel) + dir(RootModel) if not n.startswith("_")}
    assert public <= FIELD_RESERVED
    assert {field_name(name) for name in public} == {name + "_" for name in public}


def _empty_name_tools(folder: Path) -> Path:
    """Tools with a property named "": one model the interpreter checks, one native (closed, with a pattern and
    a nested native model), each with the "" property required, and an optional one beside.
    """
    folder.mkdir(parents=True)
    checked = {
        "name": "checked",
        "parameters": {
            "type": "object",
            "properties": {"": {"type": "string"}, "n": {"type": "integer"}},
            "required": [""],
        },
    }
    inner = {
        "type": "object",
        "properties": {"": {"type": "integer"}},
        "additionalProperties": False,
    }
    native = {
        "name": "native",
        "parameters": {
            "type": "object",
            "properties": {"": {"type": "string", "pattern": "^(a|b)*$"}, "x": inner},
            "required": [""],
            "additionalProperties": False,
        },
    }
    # Open, with "" optional: a key "field" is an additional property, not the "" property.
    open_ = {"name": "open", "parameters": {"properties": {"": {"type": "string"}}}}
    (folder / "tools.json").write_text(json.dumps([checked, native, open_]))
    return folder


class _Echo:
    def checked(self, **kwargs: Any) -> Any:
        return repr(sorted(kwargs.items()))

    def native(self, **kwargs: Any) -> Any:
        return repr(sorted(kwargs.items()))


def test_a_property_named_empty_is_set_by_its_python_name_or_its_wire_name(
    tmp_path: Path, import_package: Callable[[Path, str], ModuleType]
) -> None:
    out, name = generate_package(tmp_path, _empty_name_tools(tmp_path / "specs"))
    package = import_package(out, name)
    Checked, Native, Inner = (
        package.CheckedArgs,
        package.NativeArgs,
        package.NativeArgsX,
    )
    assert Checked.__bases__[0].__name__ == "SchemaModel"
    assert Native.__bases__[0].__name__ == Inner.__bases__[0].__name__ == "NativeModel"
    field = Checked.model_fields["field"]
    assert field.alias == "" and Native.model_fields["field"].alias == ""
    for model, value in ((Checked, "x"), (Native, "ab")):
        by_name = model(field=value)
        assert by_name == model(**{"": value}) == model.model_validate({"": value})
        assert by_name.field == value
        # Only what was given is dumped: the unset optional fields are absent, not null.
        assert by_name.model_dump(by_alias=True) == {"": value}
        assert by_name.model_dump() == {"field": value}
    assert Inner().model_dump(by_alias=True) == {}  # an unset optional "" is absent
    inner = Inner(field=1)
    assert inner == Inner(**{"": 1}) and inner.model_dump(by_alias=True) == {"": 1}
    assert Native(field="a", x=inner).model_dump(by_alias=True) == {
        "": "a",
        "x": {"": 1},
    }
    # The Python name is no wire name: data keyed by it lacks the required property.
    with pytest.raises(ValueError):
        Checked.model_validate({"field": "x"})
    with pytest.raises(ValueError):
        Native.model_validate({"field": "a"})
    opened = package.OpenArgs.model_validate({"field": "extra"})
    assert opened.field is None and opened.model_extra == {"field": "extra"}
    impl = _Echo()
    found = package.dispatch("checked", {"": "x"}, impl)
    assert (found.error, found.value) == (None, "[('field', 'x'), ('n', None)]")
    found = package.dispatch("native", '{"": "ab", "x": {"": 2}}', impl)
    assert found.error is None and "('field', 'ab')" in found.value
    found = package.dispatch("native", {"field": "ab"}, impl)
    assert found.error is not None and found.error.kind == "invalid_arguments"
