"""Tool sets from several sources: a spec folder's tools under a prefix (`[tool.codegen] prefixes`, `--prefix`),
as MCP clients name a server's tools, so two servers that both define `search` compile into one package.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from test_bad_input import run_cli, write

from codegen.compiler import compile_specs


def _tools_list(description: str, extra: dict[str, Any]) -> dict[str, Any]:
    """An MCP `tools/list` result defining `search` (and an agent-free second tool)."""
    return {
        "tools": [
            {
                "name": "search",
                "description": description,
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}, **extra},
                    "required": ["query"],
                },
            },
            {
                "name": "get_item",
                "description": f"{description} One item.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}},
                    "required": ["id"],
                },
            },
        ]
    }


def _servers(root: Path) -> Path:
    servers = root / "servers"
    write(servers / "github", "tools.json", _tools_list("Searches GitHub.", {}))
    write(
        servers / "gitlab",
        "tools.list.json",
        _tools_list("Searches GitLab.", {"group": {"type": "string"}}),
    )
    return servers


def test_without_prefixes_the_second_search_is_refused(tmp_path: Path) -> None:
    result = compile_specs([_servers(tmp_path)])
    assert result.files is None
    assert any(
        d.code == "duplicate-name" and "'search'" in d.message
        for d in result.diagnostics.sorted()
    )


def test_two_servers_defining_search_compile_into_one_package(
    tmp_path: Path, import_package: Any
) -> None:
    servers = _servers(tmp_path)
    prefixes = {servers / "github": "github", servers / "gitlab": "gitlab"}
    result = compile_specs([servers], prefixes=prefixes)
    problems = "\n".join(d.render() for d in result.diagnostics.sorted())
    assert result.files is not None, problems
    out = tmp_path / "gen_prefixed"
    from codegen.writer import write_output

    write_output(out, result.files)
    pkg = import_package(out, "gen_prefixed")

    names = {"github__search", "github__get_item", "gitlab__search", "gitlab__get_item"}
    assert set(pkg.TOOLS) == names
    for flavour in ("openai", "anthropic", "mcp"):
        exported = json.dumps(pkg.export_tools(flavour))
        assert all(f'"{name}"' in exported for name in names), flavour
        assert '"search"' not in exported
    for name in names:  # valid for the OpenAI and Anthropic name rules as they are
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name)

    # The stubs are distinct methods of Tools; dispatch goes by the prefixed wire names.
    methods = {m for m in dir(pkg.Tools) if not m.startswith("_")}
    assert {"github_search", "gitlab_search"} <= methods

    class Impl:
        def github_search(self, *, query: str) -> str:
            return f"github:{query}"

        def gitlab_search(self, *, query: str, group: str | None = None) -> str:
            return f"gitlab:{query}:{group}"

    impl = Impl()
    assert pkg.dispatch("github__search", '{"query": "x"}', impl).value == "github:x"
    assert (
        pkg.dispatch("gitlab__search", {"query": "y", "group": "g"}, impl).value
        == "gitlab:y:g"
    )
    unknown = pkg.dispatch("search", {"query": "z"}, impl)
    assert unknown.error is not None and unknown.error.kind == "unknown_tool"
    assert pkg.GithubSearchArgs is not pkg.GitlabSearchArgs
    assert "group" in pkg.GitlabSearchArgs.model_fields
    assert "group" not in pkg.GithubSearchArgs.model_fields
    # The written schema files and exports carry the prefixed names too.
    schema = json.loads((out / "schemas" / "github_search.json").read_text())
    assert schema["name"] == "github__search"
    mcp = json.loads((out / "schemas" / "tools.mcp.json").read_text())
    assert sorted(t["name"] for t in mcp["tools"]) == sorted(names)


def test_pyproject_prefixes_and_the_prefix_flag(tmp_path: Path) -> None:
    _servers(tmp_path)
    write(
        tmp_path,
        "pyproject.toml",
        "[tool.codegen]\n"
        'specs = ["servers"]\n'
        'output = "gen"\n'
        'prefixes = { "servers/github" = "github", "servers/gitlab" = "gitlab" }\n',
    )
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "4 tool(s)" in run.stdout
    assert (
        '"gitlab__search"'
        in (tmp_path / "gen" / "schemas" / "tools.mcp.json").read_text()
    )
    assert run_cli("--check", cwd=tmp_path).returncode == 0

    flags = run_cli(
        "servers",
        "-o",
        "gen2",
        "--prefix",
        "servers/github=github",
        "--prefix",
        "servers/gitlab=gl",
        "--config",
        str(tmp_path / "missing.toml"),
        cwd=tmp_path,
    )
    assert flags.returncode == 2  # --config names a file that is not there
    (tmp_path / "pyproject.toml").unlink()
    flags = run_cli(
        "servers",
        "-o",
        "gen2",
        "--prefix",
        "servers/github=github",
        "--prefix",
        "servers/gitlab=gl",
        cwd=tmp_path,
    )
    assert flags.returncode == 0, flags.stderr
    assert (
        '"gl__search"' in (tmp_path / "gen2" / "schemas" / "tools.mcp.json").read_text()
    )


def test_bad_prefixes_are_diagnostics(tmp_path: Path) -> None:
    _servers(tmp_path)
    write(
        tmp_path,
        "pyproject.toml",
        "[tool.codegen]\n"
        'specs = ["servers"]\n'
        'output = "gen"\n'
        'prefixes = { "servers/github" = "git hub", "servers/nowhere" = "x", "servers/gitlab" = "a__b" }\n',
    )
    run = run_cli(cwd=tmp_path)
    assert run.returncode == 2
    assert "'git hub' is not a prefix" in run.stderr
    assert "'servers/nowhere' is not a spec folder or file" in run.stderr
    assert "'a__b' is not a prefix" in run.stderr
    assert "pyproject.toml:4:" in run.stderr
    (tmp_path / "pyproject.toml").unlink()
    bad = run_cli("servers", "-o", "gen", "--prefix", "servers/github", cwd=tmp_path)
    assert bad.returncode == 2 and "--prefix takes PATH=PREFIX" in bad.stderr


def test_a_prefixed_agent_follows_its_tools(
    tmp_path: Path, import_package: Any
) -> None:
    """A gram agent in a prefixed folder lists its tools by their names in the spec."""
    write(
        tmp_path / "specs" / "helpdesk",
        "desk.gram",
        '[helper:Agent {description: "Helps."} |\n'
        '  [lookup:Tool {description: "Looks up."} | (query::Text)==>(::String)]\n'
        "]\n",
    )
    result = compile_specs(
        [tmp_path / "specs"], prefixes={tmp_path / "specs" / "helpdesk": "desk"}
    )
    assert result.files is not None, [d.render() for d in result.diagnostics.sorted()]
    out = tmp_path / "gen_agent"
    from codegen.writer import write_output

    write_output(out, result.files)
    pkg = import_package(out, "gen_agent")
    assert set(pkg.TOOLS) == {"desk__lookup"}
    assert tuple(pkg.AGENTS["helper"].tools) == ("desk__lookup",)
