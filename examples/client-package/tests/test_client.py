"""The client package's own tests: they use the generated models, the registry and dispatch."""

from __future__ import annotations

import json

import pytest

from acme_tools.generated import TOOLS, Forecast, GetForecastArgs, GreetArgs
from acme_tools.service import handle


def test_generated_models_validate() -> None:
    assert GetForecastArgs(city="Porto").days == 3
    with pytest.raises(ValueError):
        GetForecastArgs.model_validate({"city": "Porto", "days": 15})
    assert GreetArgs.model_validate({"personName": "Ana"}).person_name == "Ana"
    assert Forecast.model_validate({"date": "2026-01-01", "high": 1, "low": 0}).high == 1.0


def test_dispatch_runs_the_implementation() -> None:
    assert handle("greet", '{"personName": "Ana", "language": "pt"}').value == "Olá, Ana!"
    result = handle("get_forecast", '{"city": "Porto", "days": 20}')
    assert not result.ok and json.loads(result.to_json())["problems"][0]["path"] == "days"


def test_registry_holds_every_tool() -> None:
    assert sorted(TOOLS) == ["get_forecast", "greet"]
