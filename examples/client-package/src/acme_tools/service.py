"""The implementation of Acme's tools; mypy checks it against the generated `Tools` protocol."""

from __future__ import annotations

import datetime
from typing import Literal

from acme_tools.generated import ToolResult, Tools, dispatch

GREETINGS = {"en": "Hello", "pt": "Olá", "de": "Hallo"}


class AcmeTools:
    def greet(self, *, person_name: str, language: str = "en") -> str:
        return f"{GREETINGS[language]}, {person_name}!"

    def get_forecast(
        self, *, city: str, days: int = 3, unit: Literal["celsius", "fahrenheit"] = "celsius"
    ) -> object:
        start = datetime.date(2026, 1, 1)
        return [
            {"date": (start + datetime.timedelta(days=n)).isoformat(), "high": 20.0 + n, "low": 10.0}
            for n in range(days)
        ]


def handle(tool_name: str, arguments: str) -> ToolResult:
    """What an LLM loop calls for each tool call."""
    impl: Tools = AcmeTools()
    return dispatch(tool_name, arguments, impl)
