"""The Brimley front end (../shared/reference/brimley.md, the seed ../shared/seeds/000_7520fc9f74ddcb36.txt):
file routing, every type and alias, the three `inline` modes, required/optional rules, `entity_ref`
inheritance, return shapes, the `args`/`returns` spellings, `config`, context parameters, and safe YAML.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import EXAMPLES, compile_ok, compile_result, generate_package


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def schema_of(files: dict[str, str], tool: str) -> dict[str, Any]:
    return json.loads(files[f"schemas/{tool}.json"])


def compiled(tmp_path: Path, files: dict[str, str]) -> dict[str, str]:
    return compile_ok(write(tmp_path / "specs", files))


def errors(tmp_path: Path, files: dict[str, str]) -> list[str]:
    result = compile_result(write(tmp_path / "specs", files))
    return [d.render() for d in result.diagnostics.sorted()]


# ── Types ──────────────────────────────────────────────────────────────────────────────────────────────────


TYPES = {
    "int": {"type": "integer"},
    "integer": {"type": "integer"},
    "float": {"type": "number"},
    "number": {"type": "number"},
    "decimal": {"type": "number", "format": "decimal"},
    "bool": {"type": "boolean"},
    "boolean": {"type": "boolean"},
    "string": {"type": "string"},
    "str": {"type": "string"},
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "primitive": {"type": ["string", "number", "boolean"]},
    "any": {"type": ["string", "number", "boolean"]},
    "int[]": {"type": "array", "items": {"type": "integer"}},
    "date[][]": {
        "type": "array",
        "items": {"type": "array", "items": {"type": "string", "format": "date"}},
    },
    "Pet": {"$ref": "#/$defs/Pet"},
    "Pet[]": {"type": "array", "items": {"$ref": "#/$defs/Pet"}},
}
PET = "type: entity\nname: Pet\nfields:\n  name: string\n"


def test_every_type_and_alias_lowers_to_the_shared_fragments(tmp_path: Path) -> None:
    names = [
        f"v{chr(97 + i)}" for i in range(len(TYPES))
    ]  # va, vb, ...: snake_case as they are
    inline = "".join(f"    {n}: '{t}'\n" for n, t in zip(names, TYPES))
    files = compiled(
        tmp_path,
        {
            "Pet.yaml": PET,
            "t.yaml": f"name: types\ntype: python_function\narguments:\n  inline:\n{inline}",
        },
    )
    properties = schema_of(files, "types")["inputSchema"]["properties"]
    assert [properties[n] for n in names] == list(TYPES.values())
    assert schema_of(files, "types")["inputSchema"]["required"] == names
    module = files["t.py"]
    # (In a native model the annotation may carry its checks: `Annotated[_dt.date, _models.DATE]`.)
    assert "    va: int\n" in module
    assert re.search(r"    ve: (Annotated\[\s*)?_decimal\.Decimal\b", module)
    assert re.search(r"    vj: (Annotated\[)?_dt\.date\b", module)
    assert re.search(r"    vl: (Annotated\[\s*)?str \| int \| float \| bool\b", module)
    assert "    vp: Pet\n" in module and "    vq: list[Pet]\n" in module


def test_the_three_inline_modes_mixed_entry_by_entry(tmp_path: Path) -> None:
    files = compiled(
        tmp_path,
        {
            "mixed.yaml": """
name: mixed
type: python_function
arguments:
  inline:
    customer_id: int
    status:
      type: string
      default: shipped
      enum: [pending, shipped, cancelled]
      description: Which orders.
    limit:
      type: int
      default: 10
      maximum: 100
      minimum: 1
    tags: {type: 'string[]', maxItems: 3, pattern: '^[a-z]+$'}
    note: {type: string, required: false, maxLength: 20}
""",
            "standard.yaml": """
name: standard
type: python_function
arguments:
  inline:
    properties:
      customer_id: {type: integer}
      address:
        type: object
        properties: {street: {type: string}}
        required: [street]
        additionalProperties: false
    required: [customer_id]
""",
        },
    )
    mixed = schema_of(files, "mixed")["inputSchema"]
    assert mixed["properties"] == {
        "customer_id": {"type": "integer"},
        "status": {
            "type": "string",
            "description": "Which orders.",
            "default": "shipped",
            "enum": ["pending", "shipped", "cancelled"],
        },
        "limit": {"type": "integer", "default": 10, "minimum": 1, "maximum": 100},
        "tags": {
            "type": "array",
            "maxItems": 3,
            "items": {"type": "string", "pattern": "^[a-z]+$"},
        },
        "note": {"type": "string", "maxLength": 20},
    }
    assert list(mixed["properties"]["status"]) == [
        "type",
        "description",
        "default",
        "enum",
    ]  # gram's key order
    assert mixed["required"] == ["customer_id", "tags"]
    assert mixed["additionalProperties"] is False
    standard = schema_of(files, "standard")["inputSchema"]
    assert (
        standard["required"] == ["customer_id"]
        and standard["additionalProperties"] is False
    )
    assert "address: StandardArgsAddress | None = None" in files["standard.py"]


def test_required_and_optional_rules(tmp_path: Path, import_package: Any) -> None:
    specs = write(
        tmp_path / "specs",
        {"rules.yaml": """
name: rules
type: python_function
arguments:
  inline:
    plain: string
    with_default: {type: int, default: 3}
    optional: {type: date, required: false}
    from_ctx: {type: string, from_context: app.user.id}
"""},
    )
    out, name = generate_package(tmp_path, specs)
    pkg = import_package(out, name)
    schema = pkg.TOOLS["rules"].input_schema
    assert schema["required"] == ["plain"]
    assert set(schema["properties"]) == {
        "plain",
        "with_default",
        "optional",
    }  # from_context is not an LLM input
    assert pkg.RulesArgs(plain="x").optional is None
    assert pkg.RulesArgs.model_validate({"plain": "x"}).with_default == 3
    assert "from_ctx" not in pkg.RulesArgs.model_fields


# ── entity_ref, return shapes, spellings, config ──────────────────────────────────────────────────────────


def test_entity_ref_inherits_fields_and_inline_adds_to_them(tmp_path: Path) -> None:
    files = compiled(
        tmp_path,
        {
            "Customer.yaml": """
type: entity
name: Customer
fields:
  customer_id: int
  region: {type: string, enum: [eu, us]}
  vip: {type: bool, required: false}
""",
            "get_orders.yaml": """
name: find_customer_orders
type: python_function
arguments:
  entity_ref: Customer
  inline:
    region: {default: eu}
    customer_id: {from_context: app.user.customer_id}
    status: {type: string, default: shipped}
""",
        },
    )
    schema = schema_of(files, "find_customer_orders")["inputSchema"]
    assert schema["properties"] == {
        "region": {"type": "string", "default": "eu", "enum": ["eu", "us"]},
        "vip": {"type": "boolean"},
        "status": {"type": "string", "default": "shipped"},
    }
    assert "required" not in schema
    module = files["get_orders.py"]
    assert "customer_id: int,\n    ) -> Any:" in module or "customer_id: int" in module
    assert 'path="app.user.customer_id"' in module


def test_entity_ref_to_a_json_schema_entity_keeps_its_local_refs(
    tmp_path: Path,
) -> None:
    """Order.schema.json refers to its own `#/$defs/Line` and to `Customer.schema.json`; inherited fields
    still mean the same from a Brimley file in another folder."""
    specs = tmp_path / "specs"
    files = compile_ok(
        EXAMPLES / "shop",
        write(
            specs,
            {"elsewhere/resend.yaml": """
name: resend_order
type: python_function
arguments:
  entity_ref: Order
"""},
        ),
    )
    schema = schema_of(files, "resend_order")["inputSchema"]
    assert schema["properties"]["lines"]["items"] == {
        "$ref": "#/$defs/Order/$defs/Line"
    }
    assert schema["properties"]["customer"] == {"$ref": "#/$defs/Customer"}
    assert "Customer" in schema["$defs"] and "Line" in schema["$defs"]["Order"]["$defs"]


@pytest.mark.parametrize(
    ("shape", "output", "annotation"),
    [
        ("void", None, "None"),
        (None, None, "None"),
        ("int", {"type": "integer"}, "int"),
        ("'string[]'", {"type": "array", "items": {"type": "string"}}, "list[str]"),
        ("Pet", {"$ref": "#/$defs/Pet"}, "Pet"),
        ("'Pet[]'", {"type": "array", "items": {"$ref": "#/$defs/Pet"}}, "list[Pet]"),
        ("{entity_ref: Pet}", {"$ref": "#/$defs/Pet"}, "Pet"),
        (
            "{entity_ref: 'Pet[]'}",
            {"type": "array", "items": {"$ref": "#/$defs/Pet"}},
            "list[Pet]",
        ),
        (
            "{inline: {data: 'Pet[]', count: int}}",
            {
                "type": "object",
                "properties": {
                    "data": {"type": "array", "items": {"$ref": "#/$defs/Pet"}},
                    "count": {"type": "integer"},
                },
                "required": ["data", "count"],
                "additionalProperties": False,
            },
            "ShapeResult",
        ),
    ],
)
def test_return_shapes(
    tmp_path: Path, shape: str | None, output: Any, annotation: str
) -> None:
    line = f"return_shape: {shape}\n" if shape is not None else ""
    files = compiled(
        tmp_path,
        {"Pet.yaml": PET, "shape.yaml": f"name: shape\ntype: python_function\n{line}"},
    )
    definition = schema_of(files, "shape")
    if output is None:
        assert "outputSchema" not in definition
    else:
        got = {
            k: v
            for k, v in definition["outputSchema"].items()
            if k not in ("$schema", "$defs")
        }
        assert got == output
    assert f"def __call__(self) -> {annotation}:" in files["shape.py"]
    assert "def shape(self) -> ShapeFn: ..." in files["shape.py"]


def test_args_and_returns_spellings_mean_arguments_and_return_shape(
    tmp_path: Path,
) -> None:
    one = compiled(
        tmp_path / "a",
        {
            "f.yaml": "name: f\ntype: python_function\nargs:\n  inline: {x: int}\nreturns: int\n"
        },
    )
    two = compiled(
        tmp_path / "b",
        {
            "f.yaml": "name: f\ntype: python_function\narguments:\n  inline: {x: int}\nreturn_shape: int\n"
        },
    )
    assert one == two
    both = errors(
        tmp_path / "c",
        {"f.yaml": "name: f\ntype: python_function\nargs: {}\narguments: {}\n"},
    )
    assert any(
        "error[brimley-key]" in e and "'args' is another spelling of 'arguments'" in e
        for e in both
    )


def test_config_becomes_the_config_model(tmp_path: Path) -> None:
    files = compiled(
        tmp_path,
        {
            "Creds.yaml": "type: entity\nname: Creds\nfields:\n  api_key: string\n",
            "f.yaml": """
name: configured
type: api_function
config:
  entity_ref: Creds
  inline:
    timeout: {type: float, default: 5.0}
request: {method: GET, url: "https://example.invalid"}
""",
        },
    )
    module = files["f.py"]
    assert re.search(
        r"class ConfiguredConfig\(\s*_models\.(Schema|Native)Model, schema=", module
    )
    assert "api_key: str" in module and "timeout: float = 5.0" in module
    assert (
        'metadata={"request": {"method": "GET", "url": "https://example.invalid"}}'
        in module
    )


# ── Routing ────────────────────────────────────────────────────────────────────────────────────────────────


def test_sql_files_are_specs_only_with_the_yaml_header(tmp_path: Path) -> None:
    specs = write(
        tmp_path / "specs",
        {
            "plain.sql": "SELECT 1;\n",
            "comment.sql": "/* just a comment */\nSELECT 1;\n",
            "func.sql": "\ufeff\n  /*\n---\nname: one\ntype: sql_function\nreturn_shape: int\n---\n*/\nSELECT 1\n",
            "also.yml": "name: two\ntype: python_function\n",
        },
    )
    result = compile_result(specs)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]
    assert sorted(Path(p).name for p in result.ignored) == ["comment.sql", "plain.sql"]
    assert "func.py" in result.files and "also.py" in result.files
    assert 'ONE_SQL: str = "SELECT 1"' in result.files["func.py"]


def test_a_yaml_tool_manifest_is_compiled_like_the_same_json(tmp_path: Path) -> None:
    manifest = {
        "name": "yaml_tool",
        "description": "d",
        "parameters": {
            "type": "object",
            "properties": {"q": {"type": "string"}},
            "required": ["q"],
        },
    }
    as_yaml = compiled(tmp_path / "y", {"m.yaml": json.dumps(manifest)})  # JSON is YAML
    as_json = compiled(tmp_path / "j", {"m.json": json.dumps(manifest)})
    assert as_yaml["schemas/yaml_tool.json"] == as_json["schemas/yaml_tool.json"]
    # the same module but for the comment naming its spec, the third line
    assert as_yaml["m.py"].split("\n", 3)[3] == as_json["m.py"].split("\n", 3)[3]


# ── Context ────────────────────────────────────────────────────────────────────────────────────────────────


def test_context_parameters_in_stubs_registry_and_dispatch(
    tmp_path: Path, import_package: Any
) -> None:
    specs = write(
        tmp_path / "specs",
        {"audit.yaml": """
name: audit
type: python_function
arguments:
  inline:
    reason: string
    actor_id:
      type: string
      from_context: "app.user.id"
    timeout:
      type: float
      from_context: config.api.timeout
      default: 2.5
return_shape: string
"""},
    )
    out, name = generate_package(tmp_path, specs)
    module = (out / "audit.py").read_text()
    assert (
        "def __call__(self, *, reason: str, actor_id: str, timeout: float = 2.5) -> str:"
        in module
    )
    pkg = import_package(out, name)
    spec = pkg.TOOLS["audit"]
    assert [(a.name, a.path, a.required, a.default) for a in spec.context_args] == [
        ("actor_id", "app.user.id", True, None),
        ("timeout", "config.api.timeout", False, 2.5),
    ]
    assert set(spec.definition()["inputSchema"]["properties"]) == {"reason"}

    class Impl:
        def audit(self, *, reason: str, actor_id: str, timeout: float = 2.5) -> str:
            return f"{reason}/{actor_id}/{timeout}"

    class App:
        class user:  # noqa: N801
            id = "u-7"

    context = {"app": App(), "config": {"api": {"timeout": 9}}}
    # A caller's actor_id is dropped: the context wins.
    result = pkg.dispatch(
        "audit", '{"reason": "r", "actor_id": "forged"}', Impl(), context
    )
    assert result.ok and result.value == "r/u-7/9.0"
    assert (
        pkg.dispatch(
            "audit", {"reason": "r"}, Impl(), {"app": {"user": {"id": "u"}}}
        ).value
        == "r/u/2.5"
    )
    missing = pkg.dispatch("audit", {"reason": "r"}, Impl(), {})
    assert missing.error is not None and missing.error.kind == "missing_context"
    assert "app.user.id" in missing.error.message
    invalid = pkg.dispatch(
        "audit",
        {"reason": "r"},
        Impl(),
        {"app": {"user": {"id": ["not", "a", "string"]}}},
    )
    assert invalid.error is not None and invalid.error.kind == "invalid_context"


# ── Entities ───────────────────────────────────────────────────────────────────────────────────────────────


def test_entities_recursive_and_across_formats(
    tmp_path: Path, import_package: Any
) -> None:
    specs = write(
        tmp_path / "specs",
        {
            "Tree.yaml": "type: entity\nname: TreeNode\ndescription: A tree.\nfields:\n  label: string\n  children: {type: 'TreeNode[]', default: []}\n",
            "people.gram": "[Owner:Entity | (name::Text)]\n",
            "Pet.yaml": "type: entity\nname: Pet\nfields:\n  name: string\n  owner: Owner\n",
        },
    )
    out, name = generate_package(tmp_path, specs)
    pkg = import_package(out, name)
    tree = pkg.TreeNode.model_validate({"label": "a", "children": [{"label": "b"}]})
    assert tree.children[0].label == "b" and tree.children[0].children == []
    entity = json.loads((out / "schemas" / "entities" / "TreeNode.json").read_text())
    assert list(entity)[:4] == ["$schema", "title", "type", "description"]
    assert (
        pkg.Pet.model_validate({"name": "rex", "owner": {"name": "ann"}}).owner.name
        == "ann"
    )


# ── Safe YAML ──────────────────────────────────────────────────────────────────────────────────────────────


def _bomb(levels: int = 9) -> str:
    lines = ['  l0: &l0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, levels):
        lines.append(f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]")
    return "name: bomb\ntype: python_function\nmcp:\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_bomb(), "expands to more than"),
        (
            "name: deep\ntype: python_function\nmcp: "
            + "[" * 10_000
            + "]" * 10_000
            + "\n",
            "nested more than 64",
        ),
        (
            "name: deep\ntype: python_function\nmcp: "
            + "{a: " * 3000
            + "1"
            + "}" * 3000
            + "\n",
            "nested more than 64",
        ),
        ("name: r\ntype: python_function\nmcp: &m\n  self: *m\n", "recursive alias"),
        (
            "name: t\ntype: python_function\nmcp: !!python/object/apply:os.system [echo hi]\n",
            "unsupported YAML tag",
        ),
        (
            "name: t\ntype: python_function\nmcp: !!binary aGk=\n",
            "unsupported YAML tag",
        ),
        ("name: t\ntype: python_function\nmcp: .inf\n", "not a JSON number"),
        ("name: d\nname: e\ntype: python_function\n", "the key 'name' is given twice"),
    ],
)
def test_hostile_yaml_is_a_diagnostic_never_a_hang(
    tmp_path: Path, text: str, message: str
) -> None:
    start = time.perf_counter()
    found = errors(tmp_path, {"f.yaml": text})
    assert time.perf_counter() - start < 10
    assert any("error[brimley-yaml]" in e and message in e for e in found), found


def test_yaml_merge_keys_and_timestamps(tmp_path: Path) -> None:
    files = compiled(
        tmp_path,
        {"m.yaml": """
name: merged
type: python_function
arguments:
  inline:
    since: &since {type: date, default: 2024-01-31}
    until:
      <<: *since
      description: Last day.
"""},
    )
    properties = schema_of(files, "merged")["inputSchema"]["properties"]
    assert properties["until"] == {
        "type": "string",
        "format": "date",
        "description": "Last day.",
        "default": "2024-01-31",
    }


def test_examples_compile_and_their_sql_functions_are_implemented(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    assert pkg.TOOLS["list_invoices"].implementation is not None
    assert pkg.TOOLS["forecast_cash"].implementation is None
    assert not hasattr(pkg.Tools, "list_invoices") and hasattr(
        pkg.Tools, "forecast_cash"
    )
    assert pkg.TOOLS["dunning_letter"].metadata["template_engine"] == "jinja2"
    assert pkg.match_help_page("/help/invoices/v2/a/b%20c").page == "a/b c"
