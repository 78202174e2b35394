"""LLM-facing exports (`schemas/tools.*`, `export_tools()`): each format's rules written as checks, real clients
(the `openai` and `mcp` packages, offline) accepting what we write, strict OpenAI calls read back by `dispatch`,
and XML that is well-formed for any text."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from conftest import compile_ok, generate_package, shared
from hypothesis import HealthCheck, assume, given, settings
from hypothesis_jsonschema import from_schema
from oracle import accepts

from toolspec_runtime import exports

FLAVOUR_FILES = exports.EXPORT_FILES

# -- the rules of each format, as checks ----------------------------------------------------------------------

OPENAI_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
MCP_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}\Z")
# OpenAI strict mode: the keywords it supports (structured outputs, "Supported schemas").
OPENAI_KEYWORDS = {
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
}
OPENAI_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}
JSON_TYPES = {"string", "integer", "number", "boolean", "object", "array", "null"}


def openai_strict_problems(tool: Any) -> list[str]:
    """Every way a tool breaks the OpenAI strict function-tool rules (../shared/reference/json-tools.md §4)."""
    problems: list[str] = []
    if tool.get("type") != "function" or set(tool) != {"type", "function"}:
        return [f"not a function tool: {sorted(tool)}"]
    function = tool["function"]
    if not set(function) <= {"name", "description", "parameters", "strict"}:
        problems.append(
            f"unknown keys {sorted(set(function) - {'name', 'description', 'parameters', 'strict'})}"
        )
    if not OPENAI_NAME.match(function.get("name", "")):
        problems.append(f"bad function name {function.get('name')!r}")
    if function.get("strict") is not True:
        return problems + ["not strict"]
    root = function["parameters"]
    if root.get("type") != "object":
        problems.append("the root is not an object")
    defs = root.get("$defs", {})

    def walk(node: Any, where: str, depth: int) -> None:
        if not isinstance(node, dict):
            problems.append(f"{where}: a schema must be an object, not {node!r}")
            return
        keys = set(node) - ({"$defs"} if node is root else set())
        if keys - OPENAI_KEYWORDS:
            problems.append(
                f"{where}: unsupported keywords {sorted(keys - OPENAI_KEYWORDS)}"
            )
        if "$ref" in node:
            if len(node) != 1:
                problems.append(f"{where}: $ref with siblings")
            ref = node["$ref"]
            if ref != "#" and not (
                ref.startswith("#/$defs/") and ref[len("#/$defs/") :] in defs
            ):
                problems.append(
                    f"{where}: $ref {ref!r} does not name a root $defs entry"
                )
            return
        if not ({"type", "anyOf", "enum"} & set(node)):
            problems.append(f"{where}: neither type, anyOf nor $ref")
        kind = node.get("type")
        kinds = [kind] if isinstance(kind, str) else list(kind or [])
        if not set(kinds) <= JSON_TYPES or len([k for k in kinds if k != "null"]) > 1:
            problems.append(
                f"{where}: type {kind!r} (one JSON type, perhaps with null)"
            )
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            problems.append(f"{where}: format {node['format']!r} is not supported")
        if "enum" in node:
            for value in node["enum"]:
                if isinstance(value, (dict, list)) or (
                    value is None and "null" not in kinds
                ):
                    problems.append(
                        f"{where}: enum value {value!r} does not fit the type"
                    )
        if "object" in kinds:
            properties = node.get("properties")
            if not isinstance(properties, dict):
                problems.append(f"{where}: an object without properties")
                properties = {}
            if node.get("additionalProperties") is not False:
                problems.append(f"{where}: additionalProperties is not false")
            if node.get("required") != list(properties):
                problems.append(f"{where}: not every property is required")
            for name, sub in properties.items():
                walk(sub, f"{where}.{name}", depth + 1)
        elif "properties" in node or "additionalProperties" in node:
            problems.append(f"{where}: object keywords on a non-object")
        if "array" in kinds:
            if "items" not in node:
                problems.append(f"{where}: an array without items")
            else:
                walk(node["items"], f"{where}[]", depth + 1)
        for index, alternative in enumerate(node.get("anyOf", [])):
            walk(alternative, f"{where}|{index}", depth)
        if depth > 10:
            problems.append(f"{where}: nested deeper than 10 levels")

    walk(root, function["name"], 0)
    for name, definition in defs.items():
        walk(definition, f"$defs/{name}", 0)
    return problems


def anthropic_problems(tool: Any) -> list[str]:
    problems = []
    if (
        not {"name", "input_schema"}
        <= set(tool)
        <= {"name", "description", "input_schema"}
    ):
        problems.append(f"keys {sorted(tool)}")
    if not OPENAI_NAME.match(tool.get("name", "")):
        problems.append(f"bad name {tool.get('name')!r}")
    schema = tool.get("input_schema", {})
    if schema.get("type") != "object" or "$schema" in schema:
        problems.append("input_schema must be an object schema without $schema")
    jsonschema.Draft202012Validator.check_schema(schema)
    return problems


def mcp_problems(tool: Any) -> list[str]:
    problems = []
    allowed = {
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "execution",
        "icons",
        "_meta",
    }
    if not {"name", "inputSchema"} <= set(tool) <= allowed:
        problems.append(f"keys {sorted(tool)}")
    if not MCP_NAME.match(tool.get("name", "")):
        problems.append(f"bad name {tool.get('name')!r}")
    for key in ("inputSchema", "outputSchema"):
        if key in tool:
            if tool[key].get("type") != "object":
                problems.append(f"{key} must have type object at its root")
            jsonschema.Draft202012Validator.check_schema(tool[key])
    return problems


def xml_problems(text: str, definitions: list[dict[str, Any]]) -> list[str]:
    """Well-formed, and names, descriptions and enum values come back exactly."""
    root = ET.fromstring(text)
    problems = []
    tools = root.findall("tool")
    if [t.get("name") for t in tools] != [d["name"] for d in definitions]:
        problems.append("tool names do not round-trip")
    for element, definition in zip(tools, definitions):
        if element.get("description") != (definition.get("description") or ""):
            problems.append(
                f"{definition['name']}: the description does not round-trip"
            )
        schema = definition["inputSchema"]
        arguments = element.find("arguments")
        assert arguments is not None
        names = [arg.get("name") for arg in arguments.findall("arg")]
        if names != [
            n for n, s in schema.get("properties", {}).items() if s is not False
        ]:
            problems.append(f"{definition['name']}: argument names do not round-trip")
        for arg in arguments.findall("arg"):
            sub = schema["properties"][arg.get("name")]
            if isinstance(sub, dict) and isinstance(sub.get("description"), str):
                if arg.get("description") != sub["description"]:
                    problems.append(
                        f"{definition['name']}.{arg.get('name')}: description differs"
                    )
            if (
                isinstance(sub, dict)
                and "enum" in sub
                and all(isinstance(v, str) for v in sub["enum"])
            ):
                shown = [v.text or "" for v in arg.iterfind("enum/value")]
                if shown != sub["enum"]:
                    problems.append(
                        f"{definition['name']}.{arg.get('name')}: enum values differ: {shown}"
                    )
    return problems


# -- fixtures: the examples and the real-tools corpus ----------------------------------------------------------


def _definitions(out: Path) -> list[dict[str, Any]]:
    found = []
    for path in sorted((out / "schemas").glob("*.json")):
        if path.name not in FLAVOUR_FILES.values():
            found.append(json.loads(path.read_text(encoding="utf-8")))
    return sorted(found, key=lambda d: d["name"])


@pytest.fixture(params=["examples_package", "real_tools_package"])
def package(request: pytest.FixtureRequest) -> tuple[Path, ModuleType]:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


def test_files_and_python_give_the_same_exports(
    package: tuple[Path, ModuleType],
) -> None:
    out, pkg = package
    for flavour, name in FLAVOUR_FILES.items():
        text = (out / "schemas" / name).read_text(encoding="utf-8")
        exported = pkg.export_tools(flavour)
        if flavour == "xml":
            assert text == exported
        else:
            assert text == exports.dump_json(exported)
    # ... and both come from the per-tool definitions, which are the registry's.
    definitions = _definitions(out)
    assert definitions == [pkg.TOOLS[d["name"]].definition() for d in definitions]
    assert (
        exports.render_export(definitions, "mcp")
        == (out / "schemas" / "tools.mcp.json").read_text()
    )


def test_every_openai_export_follows_the_strict_rules(
    package: tuple[Path, ModuleType],
) -> None:
    _, pkg = package
    tools = pkg.export_tools("openai")
    assert len(tools) == len(pkg.TOOLS)
    for tool in tools:
        assert openai_strict_problems(tool) == [], tool["function"]["name"]


def test_every_anthropic_export_follows_its_rules(
    package: tuple[Path, ModuleType],
) -> None:
    _, pkg = package
    tools = pkg.export_tools("anthropic")
    for tool in tools:
        assert anthropic_problems(tool) == [], tool["name"]
    # The schema is the tool's own, so it accepts exactly what the generated model accepts.
    for name, tool in zip(sorted(pkg.TOOLS), tools):
        own = pkg.TOOLS[name].definition()["inputSchema"]
        assert {k: v for k, v in own.items() if k != "$schema"} == {
            k: v
            for k, v in tool["input_schema"].items()
            if k != "type" or "type" in own
        }


def test_every_mcp_export_is_a_tool_the_mcp_package_accepts(
    package: tuple[Path, ModuleType],
) -> None:
    import mcp.types

    _, pkg = package
    listing = pkg.export_tools("mcp")
    assert set(listing) == {"tools"}
    parsed = mcp.types.ListToolsResult.model_validate(listing)
    assert [t.name for t in parsed.tools] == sorted(pkg.TOOLS)
    for tool in listing["tools"]:
        assert mcp_problems(tool) == [], tool["name"]
        model = mcp.types.Tool.model_validate(tool)
        dumped = model.model_dump(
            by_alias=True, exclude_none=True
        )  # camelCase, as on the wire
        assert dumped["inputSchema"] == tool["inputSchema"] and dumped.get(
            "description"
        ) == tool.get("description")
        has_output = pkg.TOOLS[tool["name"]].output_schema is not None
        assert ("outputSchema" in tool) == has_output
        # Dumped back by alias, the SDK's model is what we wrote.
        assert {k: v for k, v in dumped.items() if k in tool} == tool


def test_every_xml_export_is_well_formed_and_round_trips(
    package: tuple[Path, ModuleType],
) -> None:
    out, pkg = package
    text = pkg.export_tools("xml")
    assert xml_problems(text, _definitions(out)) == []


def test_exports_are_deterministic(examples_package: tuple[Path, ModuleType]) -> None:
    out, pkg = examples_package
    again = compile_ok(Path(__file__).resolve().parents[1] / "examples" / "specs")
    for name in FLAVOUR_FILES.values():
        assert again[f"schemas/{name}"] == (out / "schemas" / name).read_text(
            encoding="utf-8"
        )
    first = pkg.export_tools("openai")
    assert json.dumps(first) == json.dumps(pkg.export_tools("openai"))  # key order too


# -- constraints a format cannot express ----------------------------------------------------------------------


def _function(pkg: ModuleType, name: str) -> dict[str, Any]:
    return next(
        t["function"]
        for t in pkg.export_tools("openai")
        if t["function"]["name"] == name
    )


def test_openai_moves_what_it_cannot_express_into_descriptions(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    properties = _function(pkg, "get_orders")["parameters"]["properties"]
    assert properties["limit"] == {
        "type": ["integer", "null"],
        "description": "Default: 20.",
        "minimum": 1,
        "maximum": 100,
    }
    assert properties["status"]["enum"] == ["pending", "shipped", "cancelled", None]
    search = _function(pkg, "search_web")["parameters"]["properties"]
    assert (
        search["query"]["description"]
        == "What to search for.\nConstraints: minLength 1."
    )
    # A map is sent as JSON text, described by its schema.
    assert search["headers"]["type"] == ["string", "null"]
    assert (
        '{"type":"object","additionalProperties":{"type":"string"}}'
        in search["headers"]["description"]
    )
    # ... and the constraints stay enforced: the same call is still checked against the tool's own schema.
    call = {"query": "", "num_results": None, "filters": None, "headers": None}
    result = pkg.dispatch("search_web", call, None, flavour="openai")
    assert result.error.kind == "invalid_arguments"
    assert [(p.path, p.message) for p in result.error.problems] == [
        ("query", "must be at least 1 character long")
    ]


def test_xml_states_constraints_defaults_and_enums(
    examples_package: tuple[Path, ModuleType],
) -> None:
    _, pkg = examples_package
    root = ET.fromstring(pkg.export_tools("xml"))
    limit = root.find("tool[@name='get_orders']/arguments/arg[@name='limit']")
    assert limit is not None and limit.attrib == {
        "name": "limit",
        "type": "integer",
        "required": "false",
        "default": "20",
        "constraints": "minimum 1, maximum 100",
    }
    item = root.find("tool[@name='search_web']/arguments/arg[@name='filters']/items")
    assert item is not None and item.get("type") == "object"
    assert [a.get("name") for a in item.findall("arg")] == ["field", "from", "values"]


# -- real clients, offline: the openai package ----------------------------------------------------------------


def _strict_shape(
    schema: Any, root: dict[str, Any], seen: frozenset[str] = frozenset()
) -> Any:
    """What a strict schema lets an LLM send, structurally: object properties, array items, the JSON types of
    scalars and enum values; `$ref`s followed; a map or any value is ("open",). Nullability is left out.
    """
    if "$ref" in schema and schema["$ref"] not in seen:
        target = root
        for token in schema["$ref"].lstrip("#").split("/")[1:]:
            target = target[token]
        return _strict_shape(target, root, seen | {schema["$ref"]})
    if "$ref" in schema:
        return ("recursive", schema["$ref"].rsplit("/", 1)[-1])
    if "anyOf" in schema:
        shapes = [
            _strict_shape(a, root, seen)
            for a in schema["anyOf"]
            if a.get("type") != "null"
        ]
        return shapes[0] if len(shapes) == 1 else ("anyOf", tuple(shapes))
    kinds = schema.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds or [])
    kinds.discard("null")
    if kinds == {"object"}:
        properties = schema.get("properties", {})
        assert schema.get("required", []) == list(properties)
        if schema.get("additionalProperties") is not False:
            return ("open",)
        return (
            "object",
            tuple((n, _strict_shape(s, root, seen)) for n, s in properties.items()),
        )
    if not kinds and not schema.get("enum"):
        return ("open",)
    if kinds == {"array"}:
        return ("array", _strict_shape(schema["items"], root, seen))
    enum = tuple(v for v in schema.get("enum", []) if v is not None)
    return ("scalar", tuple(sorted(kinds)), enum)


def _compare_with_openai(
    ours: dict[str, Any], theirs: dict[str, Any], original: dict[str, Any]
) -> None:
    """Ours and the `openai` package's strict conversion agree on what an LLM may send, but for the deliberate
    differences: where theirs keeps a map or any-value (which the API refuses in strict mode), ours sends JSON
    text; `$defs` are flattened into the root."""

    def walk(a: Any, b: Any, orig: Any) -> None:
        if orig.get("$ref"):
            target = original
            for token in orig["$ref"].lstrip("#").split("/")[1:]:
                target = target[token]
            orig = target
        if a == ("scalar", ("string",), ()) and b[0] != "scalar":
            # JSON text for what strict mode cannot describe: a map or any value (theirs keeps the map, which
            # the API refuses in strict mode, or closes a free-form object so that only {} can be sent)
            assert b[0] == "open" or b == ("object", ()) or b[0] == "anyOf", (a, b)
            return
        if a[0] == "anyOf" and b[0] == "scalar" and len(b[1]) > 1:
            # `"type": [a, b]`: ours splits it into alternatives, one per type
            assert sorted(t for alt in a[1] for t in alt[1]) == sorted(b[1]), (a, b)
            return
        assert a[0] == b[0], (a, b)
        if a[0] == "object":
            assert [n for n, _ in a[1]] == [n for n, _ in b[1]]
            for (name, sub_a), (_, sub_b) in zip(a[1], b[1]):
                walk(sub_a, sub_b, orig["properties"][name])
        elif a[0] == "array":
            walk(a[1], b[1], orig.get("items", {}))
        elif a[0] == "scalar":
            assert set(a[1]) == set(b[1]) or not b[1], (a, b)
            assert set(a[2]) == set(b[2]), (a, b)

    walk(_strict_shape(ours, ours), _strict_shape(theirs, theirs), original)


@pytest.fixture(scope="module", params=["examples", "real-tools"])
def own_package(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> ModuleType:
    """A package of its own: the `openai` package's conversion mutates the schema `model_json_schema()` returns,
    which shares its nested objects with the schema the model enforces (see the report), so it must not touch
    the session's packages."""
    import importlib
    import sys

    specs = Path(__file__).resolve().parents[1] / "examples" / "specs"
    if request.param == "real-tools":
        specs = shared("corpus", "real-tools")
    name = f"openai_check_{request.param.replace('-', '_')}"
    out = tmp_path_factory.mktemp(name) / name
    from codegen.writer import write_output

    write_output(out, compile_ok(specs))
    sys.path.insert(0, str(out.parent))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def test_the_openai_packages_strict_conversion_agrees(own_package: ModuleType) -> None:
    import openai
    from openai.lib._pydantic import to_strict_json_schema

    try:
        from openai.types.chat import ChatCompletionFunctionTool
    except ImportError:  # openai < 1.99
        from openai.types.chat import ChatCompletionTool as ChatCompletionFunctionTool
    from openai.types.responses import FunctionTool

    pkg = own_package
    for tool in pkg.export_tools("openai"):
        function = tool["function"]
        spec = next(
            s
            for s in pkg.TOOLS.values()
            if exports.export_names(pkg.TOOLS, "openai")[s.name] == function["name"]
        )
        # The SDK's own types accept ours, in the Chat Completions and the Responses (flat) form.
        ChatCompletionFunctionTool.model_validate(tool)
        FunctionTool.model_validate({"type": "function", **function})
        theirs = openai.pydantic_function_tool(
            spec.args_model, name=function["name"], description=spec.description
        )
        assert (
            theirs["function"]["strict"] is True
            and theirs["function"]["name"] == function["name"]
        )
        assert (
            to_strict_json_schema(spec.args_model) == theirs["function"]["parameters"]
        )
        assert (
            pkg.export_tools("openai") is not None
        )  # ours does not depend on what theirs did
        _compare_with_openai(
            function["parameters"],
            theirs["function"]["parameters"],
            spec.definition()["inputSchema"],
        )
        # Deliberate difference: optional properties. Theirs makes them required as they are (an LLM must
        # always send a value); ours makes them nullable, null meaning "not given" (the spec's default applies).
        required = set(spec.input_schema.get("required", []))
        for name, sub in function["parameters"]["properties"].items():
            nullable = "null" in json.dumps(sub.get("type")) or any(
                a.get("type") == "null" for a in sub.get("anyOf", [])
            )
            if name not in required:
                assert nullable, (function["name"], name)


def test_a_strict_openai_call_comes_back_through_dispatch(
    examples_package: tuple[Path, ModuleType],
) -> None:
    """What a strict-mode model sends (every key, null for "not given", JSON text for a map) is read back."""
    _, pkg = examples_package
    seen: dict[str, Any] = {}

    class Impl:
        def search_web(self, **kwargs: Any) -> Any:
            seen.update(kwargs)
            return {"results": []}

    arguments = json.dumps(
        {
            "query": "q",
            "num_results": None,
            "filters": [{"field": "f", "from": None, "values": None}],
            "headers": '{"Accept": "text/html"}',
        }
    )
    result = pkg.dispatch("search_web", arguments, Impl(), flavour="openai")
    assert result.ok, result.to_json()
    assert seen["num_results"] == 5 and seen["headers"] == {"Accept": "text/html"}
    assert seen["filters"][0].from_ is None and seen["filters"][0].model_fields_set == {
        "field"
    }
    # Without the flavour the nulls are what they are: not integers.
    plain = pkg.dispatch("search_web", arguments, Impl())
    assert plain.error.kind == "invalid_arguments"
    assert {p.path for p in plain.error.problems} >= {"num_results", "headers"}
    # Text that is not JSON is reported at its path.
    bad = pkg.dispatch(
        "search_web", {"query": "q", "headers": "{nope"}, Impl(), flavour="openai"
    )
    assert (
        bad.error.kind == "invalid_arguments"
        and bad.error.problems[0].path == "headers"
    )


# -- the strict conversion on hard schemas, with instances --------------------------------------------------

HARD_SCHEMAS: dict[str, dict[str, Any]] = {
    "refs_and_recursion": {
        "type": "object",
        "properties": {
            "tree": {"$ref": "#/$defs/Node", "description": "The tree."},
            "other": {"$ref": "#/$defs/Node"},
            "line": {"$ref": "#/$defs/Outer/$defs/Line"},
        },
        "required": ["tree"],
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 20},
                    "children": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/Node"},
                        "maxItems": 2,
                    },
                },
                "required": ["name"],
                "additionalProperties": False,
            },
            "Outer": {
                "$defs": {
                    "Line": {"type": "object", "properties": {"n": {"type": "integer"}}}
                }
            },
        },
    },
    "unions_and_types": {
        "type": "object",
        "properties": {
            "mixed": {
                "type": ["string", "integer", "null"],
                "minLength": 2,
                "minimum": 3,
            },
            "either": {
                "oneOf": [
                    {"type": "string", "format": "uri"},
                    {"type": "integer", "multipleOf": 2},
                ]
            },
            "maybe": {
                "anyOf": [
                    {"type": "object", "properties": {"a": {"type": "integer"}}},
                    {"type": "null"},
                ]
            },
            "objects": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"x": {"type": "integer"}},
                        "required": ["x"],
                    },
                    {"type": "object", "properties": {"y": {"type": "string"}}},
                ]
            },
            "choice": {"enum": ["a, b", 1, 2.5, True, None]},
            "fixed": {"const": "only"},
            "both": {"allOf": [{"type": "integer", "minimum": 0}]},
        },
    },
    "free_form": {
        "type": "object",
        "properties": {
            "anything": {},
            "meta": {"type": "object"},
            "pairs": {
                "type": "object",
                "patternProperties": {"^x": {"type": "integer"}},
            },
            "tuple": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
            },
            "list": {"type": "array"},
            "never": False,
            "unique": {
                "type": "array",
                "items": {"type": "string"},
                "uniqueItems": True,
                "default": [],
            },
            "odd key/~name": {
                "type": "boolean",
                "deprecated": True,
                "examples": [True],
            },
        },
        "required": ["odd key/~name"],
        "dependentRequired": {"meta": ["list"]},
    },
}


MANUAL_INSTANCES = {
    "refs_and_recursion": [
        {"tree": {"name": "a"}},
        {
            "tree": {
                "name": "a",
                "children": [{"name": "b", "children": [{"name": "c"}]}],
            }
        },
        {
            "tree": {"name": "a", "children": []},
            "other": {"name": "o"},
            "line": {"n": 1, "extra": [1]},
        },
        {"tree": {"name": "a"}, "line": {}},
    ]
}


def _encode(strict: Any, schema: Any, value: Any) -> Any:
    """A valid instance of the tool's schema as a strict-mode LLM would send it (the inverse of
    `openai_arguments`): every declared key present, null for the ones not given, JSON text where needed.
    """
    shape = strict.shape(schema)
    if shape == "json":
        return json.dumps(value)
    if value is None:
        return None
    if shape == "ref":
        return _encode(strict, exports._resolve(strict.root, schema["$ref"]), value)
    if shape == "allof":
        return _encode(strict, schema["allOf"][0], value)
    if shape == "nullable":
        alternatives = schema.get("anyOf", schema.get("oneOf"))
        (inner,) = [a for a in alternatives if not exports._is_null_schema(a)]
        return _encode(strict, inner, value)
    if shape == "array" and isinstance(value, list):
        return [_encode(strict, schema.get("items", True), item) for item in value]
    if shape == "object" and isinstance(value, dict):
        properties = schema.get("properties", {})
        return {
            name: _encode(strict, sub, value[name]) if name in value else None
            for name, sub in properties.items()
            if sub is not False
        }
    return value


@pytest.mark.parametrize("name", sorted(HARD_SCHEMAS))
def test_strict_conversion_of_hard_schemas(name: str) -> None:
    schema = {"$schema": exports.DRAFT, **HARD_SCHEMAS[name]}
    tool = exports.openai_tool(
        {"name": name, "description": "Hard.", "inputSchema": schema}
    )
    assert openai_strict_problems(tool) == []
    parameters = tool["function"]["parameters"]
    jsonschema.Draft202012Validator.check_schema(parameters)
    strict = exports._Strict(schema)

    def round_trip(instance: Any) -> None:
        sent = _encode(strict, schema, instance)
        assert accepts(parameters, sent), f"the strict schema refuses {sent!r}"
        back, problems = exports.openai_arguments(schema, sent)
        assert problems == []
        assert accepts(
            schema, back
        ), f"{instance!r} -> {sent!r} -> {back!r} is not valid"

    if (
        name in MANUAL_INSTANCES
    ):  # hypothesis-jsonschema cannot generate recursive schemas
        for instance in MANUAL_INSTANCES[name]:
            assert accepts(schema, instance)
            round_trip(instance)
        return

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(copy.deepcopy(schema)))
    def generated(instance: Any) -> None:
        assume(
            accepts(schema, instance)
        )  # it predates some 2020-12 keywords (dependentRequired)
        round_trip(instance)

    generated()


def test_hard_schemas_in_words() -> None:
    tool = exports.openai_tool(
        {"name": "t", "inputSchema": HARD_SCHEMAS["unions_and_types"]}
    )
    properties = tool["function"]["parameters"]["properties"]
    assert properties["choice"] == {
        "anyOf": [
            {"type": "string", "enum": ["a, b"]},
            {"type": "number", "enum": [1, 2.5]},
            {"type": "boolean", "enum": [True]},
            {"type": "null"},
        ]
    }
    assert properties["fixed"] == {"type": ["string", "null"], "enum": ["only", None]}
    assert (
        properties["either"]["description"]
        == "Exactly one of the alternatives must match."
    )
    assert properties["either"]["anyOf"][0] == {
        "type": "string",
        "description": "Constraints: format uri.",
    }
    # Alternatives whose objects have optional properties cannot be read back: sent as JSON text.
    assert properties["objects"]["type"] == ["string", "null"]
    refs = exports.openai_tool(
        {"name": "t", "inputSchema": HARD_SCHEMAS["refs_and_recursion"]}
    )
    parameters = refs["function"]["parameters"]
    assert sorted(parameters["$defs"]) == ["Line", "Node"]
    assert (
        parameters["properties"]["tree"]["description"] == "The tree."
    )  # inlined: nothing beside $ref
    assert parameters["properties"]["other"] == {
        "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]
    }
    free = exports.openai_tool({"name": "t", "inputSchema": HARD_SCHEMAS["free_form"]})
    function = free["function"]
    assert "never" not in function["parameters"]["properties"]
    assert (
        function["description"] == 'Constraints: dependentRequired {"meta":["list"]}.'
    )
    odd = function["parameters"]["properties"]["odd key/~name"]
    assert odd == {"type": "boolean", "description": "Deprecated.\nExamples: true."}


def test_free_form_arguments_are_exported_non_strict() -> None:
    tool = exports.openai_tool({"name": "t", "inputSchema": {"type": "object"}})
    assert tool["function"]["strict"] is False and tool["function"]["parameters"] == {
        "type": "object"
    }
    assert (
        exports.openai_tool({"name": "t", "inputSchema": {"properties": {}}})[
            "function"
        ]["strict"]
        is True
    )


# -- names -----------------------------------------------------------------------------------------------------


def test_names_the_apis_refuse_are_mapped_and_dispatch_maps_them_back(
    tmp_path: Path, import_package: Any
) -> None:
    spec = tmp_path / "specs" / "tools.json"
    spec.parent.mkdir()
    tool = {"description": "d", "parameters": {"type": "object", "properties": {}}}
    names = ["files.read", "files_read", "x" * 100 + ".y"]
    spec.write_text(json.dumps([{"name": n, **tool} for n in names]))
    out, name = generate_package(tmp_path, spec.parent)
    pkg = import_package(out, name)
    mapping = exports.export_names(names, "openai")
    assert mapping == {
        "files.read": "files_read_2",
        "files_read": "files_read",
        "x" * 100 + ".y": "x" * 64,
    }
    assert [t["function"]["name"] for t in pkg.export_tools("openai")] == [
        mapping[n] for n in sorted(names)
    ]
    assert [t["name"] for t in pkg.export_tools("mcp")["tools"]] == sorted(names)

    class Impl:
        def files_read(self) -> None:
            return None

        def files_read_2(self) -> None:
            return None

    for exported, method in (
        ("files_read_2", "files_read"),
        ("files_read", "files_read_2"),
    ):
        assert pkg.dispatch(exported, "{}", Impl(), flavour="openai").ok
    assert pkg.dispatch("files_read_2", "{}", Impl()).error.kind == "unknown_tool"


# -- XML for any text --------------------------------------------------------------------------------------------

HOSTILE = [
    'say "hi" & <bye>',
    "commas, in, values",
    "naïve café — 東京 🎉",
    "]]> <!-- --> <?pi?>",
    "line\nbreak\ttab\r",
    "'single' \"double\"",
    "&amp; already escaped",
]


def _hostile_definitions() -> Iterator[dict[str, Any]]:
    for index, text in enumerate(HOSTILE):
        yield {
            "name": f"tool_{index}",
            "description": text,
            "inputSchema": {
                "type": "object",
                "properties": {
                    text: {
                        "type": "string",
                        "description": text,
                        "enum": HOSTILE,
                        "default": text,
                    },
                    "nested": {
                        "type": "object",
                        "description": text,
                        "properties": {
                            "deep": {
                                "type": "array",
                                "items": {"enum": [text, 1, None]},
                            }
                        },
                    },
                },
                "required": [text],
            },
        }


def test_xml_is_well_formed_for_any_text() -> None:
    definitions = list(_hostile_definitions())
    text = exports.export_tools(definitions, "xml")
    assert xml_problems(text, definitions) == []
    root = ET.fromstring(text)
    for element, original in zip(root.findall("tool"), HOSTILE):
        arg = element.find("arguments/arg")
        assert (
            arg is not None
            and arg.get("name") == original
            and arg.get("default") == original
        )
        deep = element.find("arguments/arg[@name='nested']/arg[@name='deep']/items")
        assert deep is not None and [v.text for v in deep.iterfind("enum/value")] == [
            original,
            "1",
            "null",
        ]


def test_xml_replaces_what_xml_cannot_carry() -> None:
    text = exports.export_tools(
        [{"name": "t", "description": "bell\x07 nul\x00 \ud800", "inputSchema": {}}],
        "xml",
    )
    assert ET.fromstring(text).find("tool").get("description") == "bell\ufffd nul\ufffd \ufffd"  # type: ignore[union-attr]


def test_xml_replaces_exactly_the_characters_outside_xmls_char_production() -> None:
    """Every code point, against XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
    [#x10000-#x10FFFF] (the pattern lists what it leaves out)."""
    allowed = [(0x9, 0x9), (0xA, 0xA), (0xD, 0xD), (0x20, 0xD7FF), (0xE000, 0xFFFD)]
    allowed.append((0x10000, 0x10FFFF))
    text = "".join(map(chr, range(0x110000)))
    kept = exports._xml_text(text)
    expected = "".join(
        char if any(low <= ord(char) <= high for low, high in allowed) else "\ufffd"
        for char in text
    )
    assert kept == expected


def test_xml_recursion_names_the_structure(
    examples_package: tuple[Path, ModuleType],
) -> None:
    schema = HARD_SCHEMAS["refs_and_recursion"]
    root = ET.fromstring(
        exports.export_tools([{"name": "t", "inputSchema": schema}], "xml")
    )
    tree = root.find("tool/arguments/arg[@name='tree']")
    assert (
        tree is not None
        and tree.get("schema") == "Node"
        and tree.get("description") == "The tree."
    )
    again = tree.find("arg[@name='children']/items")
    assert (
        again is not None
        and again.attrib == {"type": "object", "schema": "Node"}
        and len(again) == 0
    )


# -- MCP results ---------------------------------------------------------------------------------------------------


def test_mcp_output_schemas_are_objects_and_results_fit_them(
    examples_package: tuple[Path, ModuleType],
) -> None:
    import mcp.types

    _, pkg = examples_package
    listing = {t["name"]: t for t in pkg.export_tools("mcp")["tools"]}
    wrapped = listing["get_orders"]["outputSchema"]
    assert wrapped["properties"]["result"]["items"] == {
        "$ref": "#/properties/result/$defs/Order"
    }
    assert (
        listing["registerPerson"]["outputSchema"]["type"] == "object"
    )  # a root $ref to an object: kept

    class Impl:
        def get_orders(self, **kwargs: Any) -> Any:
            return [
                {
                    "order_id": 1,
                    "total": 2,
                    "status": "shipped",
                    "created_at": "2024-01-01T00:00:00Z",
                }
            ]

        def say_hello(self, **kwargs: Any) -> str:
            return "hello"

    for name, arguments in (("get_orders", {"customer_id": 1}), ("sayHello", {})):
        result = pkg.dispatch(name, arguments, Impl(), flavour="mcp")
        payload = result.to_mcp()
        parsed = mcp.types.CallToolResult.model_validate(payload)
        assert parsed.model_dump(by_alias=True)["isError"] is False
        jsonschema.validate(payload["structuredContent"], listing[name]["outputSchema"])
        assert json.loads(payload["content"][0]["text"]) == result.to_data()
    failed = pkg.dispatch("get_orders", {}, Impl()).to_mcp()
    assert (
        mcp.types.CallToolResult.model_validate(failed).model_dump(by_alias=True)[
            "isError"
        ]
        is True
    )
    assert json.loads(failed["content"][0]["text"])["error"] == "invalid_arguments"


def test_every_schema_of_the_test_suite_exports() -> None:
    """Each schema of the JSON-Schema-Test-Suite as an argument: every format accepts the result, strict mode's
    rules hold, and reading the suite's instances back never fails."""
    from conftest import shared

    cases = 0
    for path in sorted(
        shared("conformance", "json-schema-test-suite", "draft2020-12").glob("*.json")
    ):
        for case in json.loads(path.read_text(encoding="utf-8")):
            schema = case["schema"]
            root = {
                "type": "object",
                "properties": {"p": schema, "q": {"type": "integer"}},
                "required": ["q"],
            }
            definition = {
                "name": "t",
                "description": case["description"],
                "inputSchema": root,
                "outputSchema": schema,
            }
            tool = exports.openai_tool(definition)
            assert openai_strict_problems(tool) == [], (path.name, case["description"])
            assert exports.mcp_tool(definition)["outputSchema"]["type"] == "object"
            anthropic = exports.anthropic_tool(definition)
            assert (
                anthropic["input_schema"] == root
            )  # Anthropic takes the schema as it is
            ET.fromstring(exports.export_tools([definition], "xml"))
            for test in case["tests"]:
                exports.openai_arguments(root, {"p": test["data"], "q": 1})
            cases += 1
    assert cases > 300


def test_alternatives_that_only_constrain_stay_strict() -> None:
    """`anyOf: [{required: [a]}, {required: [b]}]` beside properties shapes nothing: the tool stays strict and
    the rule is stated in words (and enforced by dispatch)."""
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
    }
    definition = {"name": "t", "description": "Either.", "inputSchema": schema}
    function = exports.openai_tool(definition)["function"]
    assert (
        function["strict"] is True
        and openai_strict_problems({"type": "function", "function": function}) == []
    )
    assert (
        function["description"]
        == 'Either.\nConstraints: anyOf [{"required":["a"]},{"required":["b"]}].'
    )
    arguments = ET.fromstring(exports.export_tools([definition], "xml")).find(
        "tool/arguments"
    )
    assert arguments is not None
    assert (
        arguments.get("constraints") == 'anyOf [{"required":["a"]},{"required":["b"]}]'
    )
    back, problems = exports.openai_arguments(schema, {"a": None, "b": 2})
    assert back == {"b": 2} and problems == []


def test_xml_repeats_a_shared_definition_until_the_budget_then_names_it() -> None:
    address = {
        "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
    }

    def tool(uses: int) -> dict[str, Any]:
        properties = {f"a{i}": {"$ref": "#/$defs/Address"} for i in range(uses)}
        schema = {
            "type": "object",
            "properties": properties,
            "$defs": {"Address": address},
        }
        return {"name": "t", "inputSchema": schema}

    small = exports.xml_tool(tool(2))
    assert [len(arg) for arg in small.iter("arg") if arg.get("schema")] == [2, 2]
    large = exports.xml_tool(tool(exports._XML_BUDGET))
    shown = [len(arg) for arg in large.iter("arg") if arg.get("schema") == "Address"]
    assert len(shown) == exports._XML_BUDGET
    assert shown[0] == 2 and shown[-1] == 0  # repeated while small, then named only
    assert len(list(large.iter("arg"))) < 2 * exports._XML_BUDGET
