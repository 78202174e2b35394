"""The same tool written in Brimley YAML, gram and JSON compiles to the same `<Tool>Args` model, the same stub
and the same `schemas/<tool>.json`, byte for byte (one IR, one mapping from types to Python); the same entity
to the same model and the same `schemas/entities/<Entity>.json`, titled by its name in every format.

Each format is compiled on its own; three tools cover an entity parameter and result, a record parameter, and
defaults, enums, dates, decimals and lists; two entities cover an untitled and a titled `*.schema.json` and the
field types.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import compile_ok

GRAM = """
[Pet:Entity {description: "A pet."} |
  (name::Text),
  (age::Int {minimum: 0})
]

[Order:Entity {description: "An order."} |
  (id::Int {minimum: 1}),
  (total::Decimal),
  (placed::DateTime),
  (day::Date {default: "2024-01-01"}),
  (note::Text {default: "", maxLength: 200}),
  (tags::Array {elementType: "Text", default: []}),
  (paid::Boolean {default: false}),
  (weight::Double),
  (pet::Pet),
  (status::Text {enum: ["open", "closed"]})
]

[adopt_pet:Tool {description: "Adopts a pet."} |
  (pet::Pet)==>(note::Text {description: "Why this pet."})==>(::Pet)
]

[ship_parcel:Tool {description: "Ships a parcel."} |
  (address::Object {description: "Where to.", fields: {street: "Text", zip: {type: "Text", pattern: "^[0-9]{5}$"}}})
    ==>(weight::Double {minimum: 0})==>(::Boolean)
]

[get_forecast:Tool {description: "Forecasts the weather."} |
  (city::Text {description: "City name.", minLength: 1})
    ==>(days::Int {default: 3, minimum: 1, maximum: 10})
    ==>(unit::Text {default: "celsius", enum: ["celsius", "fahrenheit"]})
    ==>(start::Date {default: "2024-01-01"})
    ==>(budget::Decimal {default: 0})
    ==>(at::DateTime)
    ==>(tags::Array {elementType: {type: "Text", maxLength: 8}, default: [], maxItems: 4})
    ==>(::Array {elementType: "Double"})
]
"""

PET_SCHEMA = {
    "type": "object",
    "description": "A pet.",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "minimum": 0},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}
ORDER_SCHEMA = {
    "title": "Order",
    "type": "object",
    "description": "An order.",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "total": {"type": "number", "format": "decimal"},
        "placed": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date", "default": "2024-01-01"},
        "note": {"type": "string", "default": "", "maxLength": 200},
        "tags": {"type": "array", "default": [], "items": {"type": "string"}},
        "paid": {"type": "boolean", "default": False},
        "weight": {"type": "number"},
        "pet": {"$ref": "Pet.schema.json"},
        "status": {"type": "string", "enum": ["open", "closed"]},
    },
    "required": ["id", "total", "placed", "weight", "pet", "status"],
    "additionalProperties": False,
}
JSON_TOOLS = [
    {
        "name": "adopt_pet",
        "description": "Adopts a pet.",
        "parameters": {
            "type": "object",
            "properties": {
                "pet": {"$ref": "Pet.schema.json"},
                "note": {"type": "string", "description": "Why this pet."},
            },
            "required": ["pet", "note"],
            "additionalProperties": False,
        },
        "outputSchema": {"$ref": "Pet.schema.json"},
    },
    {
        "name": "ship_parcel",
        "description": "Ships a parcel.",
        "parameters": {
            "type": "object",
            "properties": {
                "address": {
                    "type": "object",
                    "description": "Where to.",
                    "properties": {
                        "street": {"type": "string"},
                        "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
                    },
                    "required": ["street", "zip"],
                    "additionalProperties": False,
                },
                "weight": {"type": "number", "minimum": 0},
            },
            "required": ["address", "weight"],
            "additionalProperties": False,
        },
        "outputSchema": {"type": "boolean"},
    },
    {
        "name": "get_forecast",
        "description": "Forecasts the weather.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name.", "minLength": 1},
                "days": {"type": "integer", "default": 3, "minimum": 1, "maximum": 10},
                "unit": {
                    "type": "string",
                    "default": "celsius",
                    "enum": ["celsius", "fahrenheit"],
                },
                "start": {"type": "string", "format": "date", "default": "2024-01-01"},
                "budget": {"type": "number", "format": "decimal", "default": 0},
                "at": {"type": "string", "format": "date-time"},
                "tags": {
                    "type": "array",
                    "default": [],
                    "maxItems": 4,
                    "items": {"type": "string", "maxLength": 8},
                },
            },
            "required": ["city", "at"],
            "additionalProperties": False,
        },
        "outputSchema": {"type": "array", "items": {"type": "number"}},
    },
]

BRIMLEY = {
    "Pet.yaml": """
type: entity
name: Pet
description: A pet.
fields:
  name: string
  age: {type: int, minimum: 0}
""",
    "Order.yaml": """
type: entity
name: Order
description: An order.
fields:
  id: {type: int, minimum: 1}
  total: decimal
  placed: datetime
  day: {type: date, default: 2024-01-01}
  note: {type: string, default: "", maxLength: 200}
  tags: {type: 'string[]', default: []}
  paid: {type: bool, default: false}
  weight: float
  pet: Pet
  status: {type: string, enum: [open, closed]}
""",
    "adopt_pet.yaml": """
name: adopt_pet
type: python_function
description: Adopts a pet.
arguments:
  inline:
    pet: Pet
    note: {type: string, description: Why this pet.}
return_shape: {entity_ref: Pet}
""",
    "ship_parcel.yaml": """
name: ship_parcel
type: python_function
description: Ships a parcel.
arguments:
  inline:                      # JSON Schema mode: a record parameter
    properties:
      address:
        type: object
        description: Where to.
        properties:
          street: {type: string}
          zip: {type: string, pattern: "^[0-9]{5}$"}
        required: [street, zip]
        additionalProperties: false
      weight: {type: number, minimum: 0}
    required: [address, weight]
return_shape: bool
""",
    "get_forecast.yaml": """
name: get_forecast
type: python_function
description: Forecasts the weather.
args:
  inline:
    city: {type: str, description: City name., minLength: 1}
    days: {type: integer, default: 3, minimum: 1, maximum: 10}
    unit: {type: string, default: celsius, enum: [celsius, fahrenheit]}
    start: {type: date, default: 2024-01-01}
    budget: {type: decimal, default: 0}
    at: datetime
    tags: {type: 'string[]', default: [], maxItems: 4, maxLength: 8}
returns: float[]
""",
}

TOOLS = {
    "adopt_pet": "AdoptPet",
    "ship_parcel": "ShipParcel",
    "get_forecast": "GetForecast",
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    found = {}
    gram = tmp_path_factory.mktemp("gram")
    (gram / "tools.gram").write_text(GRAM)
    found["gram"] = compile_ok(gram)
    js = tmp_path_factory.mktemp("json")
    (js / "Pet.schema.json").write_text(json.dumps(PET_SCHEMA, indent=2))
    (js / "Order.schema.json").write_text(json.dumps(ORDER_SCHEMA, indent=2))
    (js / "tools.json").write_text(json.dumps(JSON_TOOLS, indent=2))
    found["json"] = compile_ok(js)
    brimley = tmp_path_factory.mktemp("brimley")
    for name, text in BRIMLEY.items():
        (brimley / name).write_text(text)
    found["brimley"] = compile_ok(brimley)
    return found


def block(files: dict[str, str], header: str) -> str:
    """A top-level class of any generated module, from its `class` line to the next top-level statement."""
    for path, text in files.items():
        if not path.endswith(".py"):
            continue
        match = re.search(
            rf"^{re.escape(header)}.*?(?=^\S)", text + "\nEND", re.MULTILINE | re.DOTALL
        )
        if match:
            return match.group(0)
    raise AssertionError(f"no {header!r} in the generated files")


@pytest.mark.parametrize("tool", sorted(TOOLS))
@pytest.mark.parametrize("other", ["gram", "json"])
def test_brimley_gram_and_json_give_identical_output(
    outputs: dict[str, dict[str, str]], tool: str, other: str
) -> None:
    prefix = TOOLS[tool]
    brimley, theirs = outputs["brimley"], outputs[other]
    assert brimley[f"schemas/{tool}.json"] == theirs[f"schemas/{tool}.json"]
    for header in (
        f"class {prefix}Args(",
        f"class {prefix}Fn(",
        f"{tool.upper()}_INPUT_SCHEMA: ",
    ):
        assert block(brimley, header) == block(theirs, header), header
    if tool == "ship_parcel":
        assert block(brimley, f"class {prefix}ArgsAddress(") == block(
            theirs, f"class {prefix}ArgsAddress("
        )


@pytest.mark.parametrize("entity", ["Pet", "Order"])
@pytest.mark.parametrize("other", ["gram", "json"])
def test_the_entities_are_identical_too(
    outputs: dict[str, dict[str, str]], entity: str, other: str
) -> None:
    path = f"schemas/entities/{entity}.json"
    brimley, theirs = outputs["brimley"], outputs[other]
    assert brimley[path] == theirs[path]
    assert block(brimley, f"class {entity}(") == block(theirs, f"class {entity}(")
    const = f"{entity.upper()}_SCHEMA"
    assert constant(brimley, const) == constant(theirs, const)


def constant(files: dict[str, str], name: str) -> object:
    """A schema constant, from the JSON beside its module."""
    (found,) = [
        schemas[name]
        for path, text in files.items()
        if path.endswith(".schemas.json")
        for schemas in [json.loads(text)]
        if name in schemas
    ]
    return found


@pytest.mark.parametrize("fmt", ["brimley", "gram", "json"])
def test_every_entity_schema_is_titled_by_its_name(
    outputs: dict[str, dict[str, str]], fmt: str
) -> None:
    for entity in ("Pet", "Order"):
        schema = json.loads(outputs[fmt][f"schemas/entities/{entity}.json"])
        assert list(schema)[:2] == ["$schema", "title"] and schema["title"] == entity


def test_the_stubs_say_what_was_written(outputs: dict[str, dict[str, str]]) -> None:
    stub = block(outputs["brimley"], "class GetForecastFn(")
    assert 'unit: Literal["celsius", "fahrenheit"] = "celsius"' in stub
    assert "start: _dt.date = ..." in stub and "budget: _decimal.Decimal = ..." in stub
    assert (
        "at: _dt.datetime" in stub
        and "tags: list[str] = []" in stub
        and ") -> list[float]:" in stub
    )


def test_a_boolean_entity_schema_is_titled_too(tmp_path: Path) -> None:
    (tmp_path / "Anything.schema.json").write_text("true")
    (tmp_path / "Nothing.schema.json").write_text("false")
    files = compile_ok(tmp_path)
    anything = json.loads(files["schemas/entities/Anything.json"])
    nothing = json.loads(files["schemas/entities/Nothing.json"])
    assert anything == {"$schema": anything["$schema"], "title": "Anything"}
    assert nothing == {"$schema": nothing["$schema"], "title": "Nothing", "not": {}}
