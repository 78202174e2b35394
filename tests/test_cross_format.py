"""The same tool written in Brimley YAML, gram and JSON compiles to the same `<Tool>Args` model, the same stub
and the same `schemas/<tool>.json`, byte for byte (one IR, one mapping from types to Python).

Each format is compiled on its own; three tools cover an entity parameter and result, a record parameter, and
defaults, enums, dates, decimals and lists.
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


def test_the_entity_is_identical_too(outputs: dict[str, dict[str, str]]) -> None:
    for other in ("gram", "json"):
        assert (
            outputs["brimley"]["schemas/entities/Pet.json"]
            == outputs[other]["schemas/entities/Pet.json"]
        )
        assert block(outputs["brimley"], "class Pet(") == block(
            outputs[other], "class Pet("
        )


def test_the_stubs_say_what_was_written(outputs: dict[str, dict[str, str]]) -> None:
    stub = block(outputs["brimley"], "class GetForecastFn(")
    assert 'unit: Literal["celsius", "fahrenheit"] = "celsius"' in stub
    assert "start: _dt.date = ..." in stub and "budget: _decimal.Decimal = ..." in stub
    assert (
        "at: _dt.datetime" in stub
        and "tags: list[str] = []" in stub
        and ") -> list[float]:" in stub
    )
