"""Generated packages pass `mypy --strict` (with the pydantic plugin) and `black --check` (SPEC §4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

MYPY_CONFIG = """\
[mypy]
strict = True
plugins = pydantic.mypy
"""


def _mypy(tmp_path: Path, *packages: Path) -> None:
    """`mypy --strict` (pydantic plugin) over generated packages that sit in one folder, in one run."""
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(config),
        "--no-incremental",
    ]
    for package in packages:
        command += ["-p", package.name]
    run = subprocess.run(
        command, cwd=packages[0].parent, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def _black(package_dir: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "black", "--check", "-q", str(package_dir)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("which", ["examples_package", "real_tools_package"])
def test_generated_package_passes_mypy_strict_and_black(
    request: pytest.FixtureRequest, which: str, tmp_path: Path
) -> None:
    out, _ = request.getfixturevalue(which)
    _black(out)
    _mypy(tmp_path, out)


IMPLEMENTATION = """\
from typing import Any
from {pkg} import Tools, dispatch, GetOrdersArgs, Order


class Shop:
    def get_orders(self, *, customer_id: int, status: Any = "shipped", limit: int = 20, since: Any = None) -> list[Order]:
        return []

    def cancel_order(self, *, order_id: int, reason: str | None) -> Any:
        return None

    def search_web(self, **kwargs: Any) -> Any:
        raise NotImplementedError

    def run_sandboxed_script(self, **kwargs: Any) -> Any:
        raise NotImplementedError

{extra}

impl: Tools = Shop()
dispatch("get_orders", {{"customer_id": 1}}, impl)
args = GetOrdersArgs(customer_id=1)
"""


def test_mypy_checks_an_implementation_against_the_specs(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    """The `Tools` protocol is what makes a wrong implementation a type error."""
    out, _ = examples_package
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    tools = sorted(
        f"    def {n}(self, **kwargs: Any) -> Any: ..." for n in _other_tools(out)
    )
    good = tmp_path / "impl_good.py"
    good.write_text(
        IMPLEMENTATION.format(pkg=out.name, extra="\n".join(tools)).replace(
            "\n\n\nimpl", "\n\nimpl"
        )
    )
    # A wrong parameter type must be caught.
    bad = tmp_path / "impl_bad.py"
    bad.write_text(
        good.read_text().replace("customer_id: int, status", "customer_id: str, status")
    )
    env_path = f"{out.parent}"
    for path, should_pass in ((good, True), (bad, False)):
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(config),
            "--no-incremental",
            str(path),
        ]
        run = subprocess.run(
            command,
            capture_output=True,
            text=True,
            env={"MYPYPATH": env_path, "PATH": ""},
        )
        assert (run.returncode == 0) == should_pass, run.stdout + run.stderr


def _other_tools(out: Path) -> list[str]:
    import json

    from toolspec_runtime.exports import (
        EXPORT_FILES,
    )  # schemas/tools.*: every tool in one LLM format

    exported = set(EXPORT_FILES.values())
    names = [
        json.loads(p.read_text())["name"]
        for p in (out / "schemas").glob("*.json")
        if p.name not in exported
    ]
    known = {"get_orders", "cancel_order", "search_web", "run_sandboxed_script"}
    from codegen.passes.naming import function_name

    return [function_name(n) for n in names if n not in known]


def test_codegen_itself_passes_mypy_strict_and_black(tmp_path: Path) -> None:
    """The compiler and its runtime library are held to what they ask of the code codegen generates (the
    settings in pyproject.toml: Python 3.10, whose branches are checked too)."""
    root = Path(__file__).resolve().parents[1]
    _black(root / "codegen")
    _black(root / "runtime")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / "cache"),
            "codegen",
            "runtime/src/toolspec_runtime",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


CLIENT_PROGRAM = """\
import datetime
from mcp import ClientSession
from {pkg} import Invoice, McpClient, Order


async def main(session: ClientSession) -> None:
    client = McpClient(session)
    orders: list[Order] = await client.get_orders(customer_id=7, status="pending")
    invoice: Invoice | None = await client.get_invoice(invoice_id=1)
    if invoice is not None:
        letter: str = await client.dunning_letter(customer_name="Ann", invoice=invoice)
    when = datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)
    await client.schedule_call(email="a@b", starts_at=when)
"""

# Each line, put in the program, must be a type error: a wrong argument type, a positional argument, a
# parameter the application supplies (context, config), a result of another type, an unknown tool.
CLIENT_MISTAKES = [
    'await client.get_orders(customer_id="7")',
    "await client.get_orders(7)",
    "await client.get_invoice(invoice_id=1, tenant_id=2)",
    'await client.forecast_cash(currencies=["EUR"], config=None)',
    "text: str = await client.get_orders(customer_id=7)",
    "await client.get_order(customer_id=7)",
]


def test_mypy_checks_a_program_that_calls_the_typed_client(
    examples_package: tuple[Path, ModuleType], tmp_path: Path
) -> None:
    """One mypy run over the good program and each mistake put in it (a file each)."""
    out, _ = examples_package
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG)
    good = CLIENT_PROGRAM.format(pkg=out.name)
    (tmp_path / "client_good.py").write_text(good)
    bad = []
    for n, line in enumerate(CLIENT_MISTAKES):
        bad.append(tmp_path / f"client_bad_{n}.py")
        bad[-1].write_text(good + f"    {line}\n")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental"]
        + ["client_good.py"]
        + [path.name for path in bad],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"MYPYPATH": str(out.parent), "PATH": ""},
    )
    failing = {
        line.split(":", 1)[0] for line in run.stdout.splitlines() if ": error:" in line
    }
    assert failing == {path.name for path in bad}, run.stdout + run.stderr
