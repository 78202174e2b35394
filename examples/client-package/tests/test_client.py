"""The client package's own tests: they use the generated models, the registry and dispatch."""

from __future__ import annotations

import json

import pytest

import sqlalchemy

from acme_tools.generated import TOOLS, Forecast, GetForecastArgs, GreetArgs, SavedForecastsArgs, dispatch
from acme_tools.generated.saved_forecasts import saved_forecasts
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
    assert sorted(TOOLS) == ["get_forecast", "greet", "saved_forecasts"]


def test_sql_function_returns_typed_rows() -> None:
    engine = sqlalchemy.create_engine("sqlite://")
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text("CREATE TABLE forecasts (city TEXT, date TEXT, high REAL, low REAL, summary TEXT)"))
        conn.execute(
            sqlalchemy.text("INSERT INTO forecasts VALUES (:c, :d, :h, :l, :s)"),
            [
                {"c": "Porto", "d": "2026-01-01", "h": 15.0, "l": 9.0, "s": "rain"},
                {"c": "Porto", "d": "2026-01-02", "h": 16.5, "l": 10.0, "s": None},
                {"c": "Faro'); DROP TABLE forecasts; --", "d": "2026-01-01", "h": 20.0, "l": 12.0, "s": "sun"},
            ],
        )
        rows = saved_forecasts(conn, SavedForecastsArgs(city="Porto"))
        assert [type(r) for r in rows] == [Forecast, Forecast] and rows[0].high == 16.5
        assert str(rows[0].date) == "2026-01-02" and rows[0].summary is None
        result = dispatch(
            "saved_forecasts", '{"city": "Faro\'); DROP TABLE forecasts; --", "limit": 1}',
            context={"databases": {"default": conn}},
        )
        assert result.ok and [r.high for r in result.value] == [20.0]
