"""Instantiation config (seed 004): declared in JSON (`config_schema`) or gram (`[:Config | …]`), compiled into
`<Tool>Config`, validated when built, handed to the implementation by `dispatch(..., config=...)` as a typed
keyword argument, and never shown to an LLM."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import compile_result, generate_package
from pydantic import ValidationError

GRAM = """\
[searchWeb:Tool {description: "Searches the web."} |
  (query::Text)==>(numResults::Int {default: 5})==>(::Array {elementType: "Text"}),
  [:Config {description: "Set once by the application."} |
    (apiKey::Text {description: "The search API key.", minLength: 8}),
    (maxResults::Int {default: 50, minimum: 1, maximum: 100}),
    (region::Text {enum: ["eu", "us"], default: "eu"})
  ]
]
"""

JSON_TOOLS = [
    {
        "name": "fetch_page",
        "description": "Fetches a page.",
        "parameters": {
            "type": "object",
            "properties": {"url": {"type": "string"}, "config": {"type": "integer"}},
            "required": ["url"],
        },
        "config_schema": {
            "type": "object",
            "properties": {
                "user_agent": {"type": "string"},
                "secret_token": {"type": "string", "minLength": 4},
            },
            "required": ["secret_token"],
            "additionalProperties": False,
        },
    },
    {
        "name": "mcp_style",
        "description": "An MCP-shaped tool with config.",
        "inputSchema": {"type": "object", "properties": {}},
        "config_schema": {
            "type": "object",
            "properties": {"level": {"type": "integer", "default": 1}},
        },
    },
]
SECRET = "s3cr3t-VALUE-never-shown"


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ModuleType]:
    import importlib

    tmp = tmp_path_factory.mktemp("configured")
    specs = tmp / "specs"
    specs.mkdir()
    (specs / "search.gram").write_text(GRAM)
    (specs / "fetch.json").write_text(json.dumps(JSON_TOOLS))
    out, name = generate_package(tmp, specs, name="configured_gen")
    sys.path.insert(0, str(out.parent))
    try:
        return out, importlib.import_module(name)
    finally:
        sys.path.remove(str(out.parent))


def test_config_models_from_gram_and_json(configured: tuple[Path, ModuleType]) -> None:
    _, pkg = configured
    config = pkg.SearchWebConfig(api_key="12345678")
    assert (config.api_key, config.max_results, config.region) == ("12345678", 50, "eu")
    assert (
        pkg.SearchWebConfig.model_validate(
            {"apiKey": "12345678", "region": "us"}
        ).region
        == "us"
    )
    # Validated when built: the schema of the [:Config] element, closed like every gram object.
    for bad in (
        {},
        {"apiKey": "short"},
        {"apiKey": "12345678", "maxResults": 0},
        {"apiKey": "12345678", "x": 1},
    ):
        with pytest.raises(ValidationError):
            pkg.SearchWebConfig.model_validate(bad)
    assert pkg.SearchWebConfig.__doc__ == "Set once by the application."
    assert pkg.FetchPageConfig(secret_token=SECRET).user_agent is None
    assert pkg.TOOLS["searchWeb"].config_model is pkg.SearchWebConfig
    assert pkg.TOOLS["mcp_style"].config_model is pkg.McpStyleConfig


def test_the_stub_shows_the_config_parameter(
    configured: tuple[Path, ModuleType],
) -> None:
    import inspect

    _, pkg = configured
    signature = inspect.signature(pkg.SearchWebFn.__call__)
    config = signature.parameters["config"]
    assert (
        config.kind is inspect.Parameter.KEYWORD_ONLY
        and config.default is inspect.Parameter.empty
    )
    assert config.annotation == "SearchWebConfig"
    # An argument named `config` keeps its name; the config comes in as `tool_config`.
    fetch = inspect.signature(pkg.FetchPageFn.__call__).parameters
    assert list(fetch)[1:] == ["url", "config", "tool_config"]
    assert fetch["tool_config"].annotation == "FetchPageConfig"
    assert pkg.TOOLS["fetch_page"].config_param == "tool_config"


class Impl:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def search_web(self, **kwargs: Any) -> list[str]:
        self.calls.append(kwargs)
        return [f"{kwargs['config'].region}:{kwargs['query']}"]

    def fetch_page(self, **kwargs: Any) -> str:
        self.calls.append(kwargs)
        return "page"

    def mcp_style(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)


def test_dispatch_hands_the_config_to_the_implementation(
    configured: tuple[Path, ModuleType],
) -> None:
    _, pkg = configured
    impl = Impl()
    settings = {"searchWeb": pkg.SearchWebConfig(api_key="12345678", region="us")}
    result = pkg.dispatch("searchWeb", '{"query": "q"}', impl, config=settings)
    assert result.ok and result.value == ["us:q"]
    assert (
        impl.calls[-1]["config"] is settings["searchWeb"]
        and impl.calls[-1]["num_results"] == 5
    )
    # A plain mapping is validated into the model on the way.
    result = pkg.dispatch(
        "fetch_page",
        {"url": "u", "config": 3},
        impl,
        config={"fetch_page": {"secret_token": SECRET}},
    )
    assert result.ok
    assert (
        impl.calls[-1]["config"] == 3
        and impl.calls[-1]["tool_config"].secret_token == SECRET
    )
    assert isinstance(impl.calls[-1]["tool_config"], pkg.FetchPageConfig)
    # Defaults apply when the config is given empty.
    assert pkg.dispatch("mcp_style", {}, impl, config={"mcp_style": {}}).ok
    assert impl.calls[-1]["config"].level == 1


def test_missing_or_invalid_config_is_an_error_that_leaks_nothing(
    configured: tuple[Path, ModuleType],
) -> None:
    _, pkg = configured
    impl = Impl()
    missing = pkg.dispatch("searchWeb", {"query": "q"}, impl)
    assert missing.error.kind == "configuration_error" and not impl.calls
    assert "arguments cannot fix" in missing.error.message
    other = pkg.dispatch(
        "searchWeb",
        {"query": "q"},
        impl,
        config={"fetch_page": {"secret_token": SECRET}},
    )
    assert other.error.kind == "configuration_error"
    invalid = pkg.dispatch(
        "fetch_page",
        {"url": "u"},
        impl,
        config={"fetch_page": {"secret_token": 12345, "x": SECRET}},
    )
    assert invalid.error.kind == "configuration_error" and invalid.error.problems
    assert SECRET not in invalid.to_json() and "12345" not in invalid.to_json()
    # Argument errors come first: the LLM can fix those.
    assert pkg.dispatch("searchWeb", {}, impl).error.kind == "invalid_arguments"


def test_config_never_reaches_anything_an_llm_sees(
    configured: tuple[Path, ModuleType],
) -> None:
    out, pkg = configured
    config_words = [
        "apiKey",
        "api_key",
        "maxResults",
        "Set once by the application",
        "secret_token",
        "user_agent",
    ]
    seen = [
        (out / "schemas" / p).read_text()
        for p in sorted(p.name for p in (out / "schemas").glob("*.*"))
    ]
    seen += [
        json.dumps(pkg.export_tools(f)) for f in ("openai", "anthropic", "mcp")
    ] + [pkg.export_tools("xml")]
    seen += [json.dumps(spec.definition()) for spec in pkg.TOOLS.values()]
    for text in seen:
        for word in config_words:
            assert word not in text
    # `config` here is an argument of fetch_page (the LLM's), not its instantiation config.
    assert "config" in pkg.TOOLS["fetch_page"].definition()["inputSchema"]["properties"]
    result = pkg.dispatch(
        "fetch_page",
        {"url": "u"},
        Impl(),
        config={"fetch_page": {"secret_token": SECRET}},
    )
    assert SECRET not in result.to_json() and SECRET not in json.dumps(result.to_mcp())


def test_mypy_checks_the_config_parameter(
    configured: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    out, _ = configured
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = True\nplugins = pydantic.mypy\n"
    )
    good = """\
from configured_gen import FetchPageConfig, McpStyleConfig, SearchWebConfig, ToolConfigs, Tools, dispatch


class Impl:
    def search_web(self, *, query: str, num_results: int = 5, config: SearchWebConfig) -> list[str]:
        return [config.api_key]

    def fetch_page(self, *, url: str, config: int | None = None, tool_config: FetchPageConfig) -> str:
        return tool_config.secret_token

    def mcp_style(self, *, config: McpStyleConfig) -> None:
        return None


settings: ToolConfigs = {"searchWeb": SearchWebConfig(api_key="12345678")}
impl: Tools = Impl()
dispatch("searchWeb", {"query": "q"}, impl, config=settings)
"""
    bad = good.replace(
        "config: SearchWebConfig) -> list[str]", "config: FetchPageConfig) -> list[str]"
    )
    bad = bad.replace("return [config.api_key]", "return [config.secret_token]")
    bad += 'wrong: ToolConfigs = {"searchWeb": FetchPageConfig(secret_token="xxxx")}\n'
    (tmp_path / "impl_good.py").write_text(good)
    (tmp_path / "impl_bad.py").write_text(bad)
    for name, should_pass in (("impl_good.py", True), ("impl_bad.py", False)):
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--no-incremental",
            name,
        ]
        env = {"MYPYPATH": str(out.parent), "PATH": ""}
        run = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, env=env
        )
        assert (run.returncode == 0) == should_pass, run.stdout + run.stderr
        if not should_pass:
            assert (
                "config: FetchPageConfig) -> list[str]" in run.stdout
            )  # the stub's config type
            assert '"searchWeb" has type "SearchWebConfig"' in run.stdout  # ToolConfigs


# -- gram [:Config] diagnostics ------------------------------------------------------------------------------


def _errors(tmp_path: Path, text: str) -> list[str]:
    spec = tmp_path / "t.gram"
    spec.write_text(text)
    result = compile_result(spec)
    return [f"{d.code}: {d.message}" for d in result.diagnostics.sorted()]


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            '[t:Tool {description: "d"} | (x::Text)==>(::Text), [:Config | (a::Int)], [:Config | (b::Int)]]',
            "gram-config: tool 't' has more than one [:Config | …] element",
        ),
        (
            '[t:Tool {description: "d"} | (x::Text)==>(::Text), [:Config | (a)]]',
            "gram-labels: field 'a' has no type label; write (a::Text)",
        ),
        (
            '[t:Tool {description: "d"} | (x::Text)==>(::Text), [:Config | (a::Int)==>(b::Int)]]',
            "gram-entity: the config of tool 't': each element is one field node, e.g. (name::Text)",
        ),
        (
            '[t:Tool {description: "d"} | (x::Text)==>(::Text), [:Config {secret: true} | (a::Int)]]',
            "gram-key: the config of tool 't': the key 'secret' means nothing here and is ignored",
        ),
        (
            '[t:Tool {description: "d"} | (x::Text)==>(::Text), [:Settings | (a::Int)]]',
            "gram-signature: tool 't' has 2 elements; a tool has exactly one signature",
        ),
    ],
)
def test_gram_config_diagnostics(tmp_path: Path, text: str, expected: str) -> None:
    found = _errors(tmp_path, text)
    assert any(line.startswith(expected) for line in found), found


def test_gram_config_may_come_first_and_empty(tmp_path: Path) -> None:
    spec = tmp_path / "t.gram"
    spec.write_text(
        '[t:Tool {description: "d"} | [:Config], (x::Text)==>(::Text)]\n'
        '[u:Tool {description: "e"} | [:Config | (x::Int)], (x::Text)==>(::Text)]\n'
    )
    result = compile_result(spec)
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]
    module = result.files["t.py"]
    assert re.search(
        r"class TConfig\(\s*_models\.(Schema|Native)Model, schema=", module
    ) and re.search(r"class UConfig\(\s*_models\.(Schema|Native)Model, schema=", module)
    # A config field is not a parameter: the global parameter identity of gram does not apply to it.
    schemas = json.loads(result.files["t.schemas.json"])
    assert schemas["U_CONFIG_SCHEMA"]["properties"]["x"] == {"type": "integer"}
    assert schemas["U_INPUT_SCHEMA"]["properties"]["x"] == {"type": "string"}
