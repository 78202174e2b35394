"""Validation speed: codegen's models against datamodel-code-generator's on the same schemas and instances.

    python bench/validation.py --datamodel-codegen PATH/TO/datamodel-codegen [--tools 100] [--instances 20]

The tool schemas are `bench/run.py`'s synthetic ones. codegen compiles the spec folder; the peer gets each
tool's parameter schema as a JSON Schema file of its own (as in `bench/peers.py`). Valid instances are drawn
from each schema (and checked with `jsonschema`); both sides validate the same instances as Python data
(`model_validate`) and as JSON text (`model_validate_json`), and the figure is the median over tools of the
per-tool time ratio codegen / peer. Then invalid instances (each valid one with a property made wrong), which
strict native validation refuses: codegen decides them by the check the runtime builds for the model on first use, as
Python data, against the peer, and against codegen's interpreter (the fallback before that check). Last, 10,000 SQLite rows are read into a generated entity (the SQL
binding's `fetch_all`) and into a plain Pydantic model of the same fields.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from peers import peer_input as _peer_input  # noqa: E402
from run import make_specs  # noqa: E402
from toolspec_runtime import schema_checks  # noqa: E402

ROUNDS = 5


# -- valid instances of the synthetic schemas --


def draw(schema: dict[str, Any], root: dict[str, Any], rng: random.Random) -> Any:
    """A valid instance of one of `bench/run.py`'s schemas (its keywords only), optional fields at random."""
    if "$ref" in schema:  # the compiled input schema holds the entities under `$defs`
        return draw(root["$defs"][schema["$ref"].rpartition("/")[2]], root, rng)
    if "anyOf" in schema:
        return draw(rng.choice(schema["anyOf"]), root, rng)
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema["type"]
    if kind == "object":
        required = set(schema.get("required", ()))
        return {
            name: draw(sub, root, rng)
            for name, sub in schema["properties"].items()
            if name in required or rng.random() < 0.6
        }
    if kind == "array":
        words = {_word(rng, 1, 12) for _ in range(rng.randint(1, 5))}
        return sorted(words)
    if kind == "string":
        if schema.get("format") == "date":
            return (
                datetime.date(2020, 1, 1)
                + datetime.timedelta(days=rng.randint(0, 2000))
            ).isoformat()
        if schema.get("format") == "date-time":
            moment = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
            moment += datetime.timedelta(seconds=rng.randint(0, 10**8))
            return moment.isoformat().replace("+00:00", "Z")
        if "pattern" in schema:
            return _word(rng, 1, 12)
        return _word(rng, schema.get("minLength", 0), min(40, schema["maxLength"]))
    if kind == "integer":
        return rng.randint(schema.get("minimum", 0), schema.get("maximum", 1000))
    if kind == "number":
        return rng.randint(1, 2000) / 2
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    raise ValueError(f"no instances drawn for {schema}")


def _word(rng: random.Random, low: int, high: int) -> str:
    return "".join(
        rng.choices(string.ascii_lowercase, k=rng.randint(max(1, low), high))
    )


# -- timing --


def best_time(run: Callable[[], Any], rounds: int = ROUNDS) -> float:
    """The fastest of `rounds` runs (the machine is shared: the minimum is the least noisy)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def _per_instance(validate: Callable[[Any], Any], instances: list[Any]) -> float:
    def run() -> None:
        for instance in instances:
            validate(instance)

    return best_time(run) / len(instances)


def _per_refusal(validate: Callable[[Any], Any], instances: list[Any]) -> float:
    """As `_per_instance`, for instances every validator refuses (each refusal is an exception)."""

    def refuse(instance: Any) -> None:
        try:
            validate(instance)
        except ValueError:  # Pydantic's ValidationError
            return
        raise AssertionError("an invalid instance was accepted")

    return _per_instance(refuse, instances)


def spoiled(instance: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """`instance` with one property's value replaced by one no property of the synthetic schemas accepts."""
    name = rng.choice(sorted(instance))
    return {**instance, name: [{}]}


# -- the two sides --


def compile_codegen(specs: Path, out: Path) -> Any:
    command = [sys.executable, "-m", "codegen", str(specs), "-o", str(out / "ours")]
    subprocess.run(command + ["-q", "--no-cache"], check=True)
    sys.path.insert(0, str(out))
    return importlib.import_module("ours")


def compile_peer(peer: str, specs: Path, out: Path) -> Path:
    _peer_input(specs, out / "peer_in")
    target = out / "theirs"
    command = [peer, "--input", str(out / "peer_in"), "--output", str(target)]
    command += ["--input-file-type", "jsonschema"]
    command += ["--output-model-type", "pydantic_v2.BaseModel"]
    subprocess.run(
        command + ["--formatters", "builtin"], check=True, capture_output=True
    )
    return target


def peer_model(folder: Path, tool: str) -> Any:
    """The peer's root model of a tool's schema (its module is named after the schema file)."""
    module = importlib.import_module(f"theirs.{tool}")
    name = "".join(part.capitalize() for part in tool.split("_"))
    found = getattr(module, name, None)
    if found is None:
        found = getattr(module, "Model")
    return found


def validation_figures(peer: str, tools: int, per_tool: int) -> None:
    import jsonschema

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        specs = out / "specs"
        make_specs(specs, tools)
        ours = compile_codegen(specs, out)
        compile_peer(peer, specs, out)
        rng = random.Random(11)
        rows: list[tuple[str, float, float, float, float, bool]] = []
        invalid: list[tuple[float, float, float]] = []
        for name, spec in sorted(ours.TOOLS.items()):
            schema = spec.input_schema
            instances = [draw(schema, schema, rng) for _ in range(per_tool)]
            checker = jsonschema.Draft202012Validator(schema)
            for instance in instances:
                checker.validate(instance)
            wrong = [spoiled(instance, rng) for instance in instances if instance]
            assert not any(checker.is_valid(instance) for instance in wrong)
            texts = [json.dumps(instance) for instance in instances]
            mine, theirs = spec.args_model, peer_model(out, name)
            for instance in instances:
                theirs.model_validate(instance)
                mine.model_validate(instance)
            rows.append(
                (
                    name,
                    _per_instance(mine.model_validate, instances),
                    _per_instance(theirs.model_validate, instances),
                    _per_instance(mine.model_validate_json, texts),
                    _per_instance(theirs.model_validate_json, texts),
                    issubclass(mine, _native_base(ours)),
                )
            )
            if wrong and issubclass(mine, _native_base(ours)):
                checked = _per_refusal(mine.model_validate, wrong)
                peer = _per_refusal(theirs.model_validate, wrong)
                built = schema_checks.SchemaCheck.check
                schema_checks.SchemaCheck.check = lambda self: None  # type: ignore[method-assign]  # the interpreter decides
                try:
                    interpreted = _per_refusal(mine.model_validate, wrong)
                finally:
                    schema_checks.SchemaCheck.check = built  # type: ignore[method-assign]
                invalid.append((checked, peer, interpreted))
    data = [ours_t / theirs_t for _, ours_t, theirs_t, _, _, _ in rows]
    text = [ours_t / theirs_t for _, _, _, ours_t, theirs_t, _ in rows]
    native = sum(1 for row in rows if row[5])
    print(
        f"{len(rows)} tools ({native} on the native path), {per_tool} valid instances each"
    )
    print(f"{'':>22} {'codegen us':>10} {'peer us':>8} {'median ratio':>12}")
    for label, index, ratios in (("Python data", 1, data), ("JSON text", 3, text)):
        ours_us = statistics.median(row[index] for row in rows) * 1e6
        theirs_us = statistics.median(row[index + 1] for row in rows) * 1e6
        print(
            f"{label:>22} {ours_us:>10.1f} {theirs_us:>8.1f} {statistics.median(ratios):>12.2f}"
        )
    if invalid:
        checked_us, peer_us, interpreted_us = (
            statistics.median(row[i] for row in invalid) * 1e6 for i in range(3)
        )
        ratio = statistics.median(c / p for c, p, _ in invalid)
        speedup = statistics.median(i / c for c, _, i in invalid)
        print(
            f"{'invalid Python data':>22} {checked_us:>10.1f} {peer_us:>8.1f} {ratio:>12.2f}"
            f"  ({len(invalid)} native tools; the interpreter took {interpreted_us:.1f} us,"
            f" {speedup:.1f}x the built check)"
        )


def _native_base(package: Any) -> type:
    # (`type(None)` for a package from before the native path, to compare with.)
    models = importlib.import_module("toolspec_runtime.models")
    return getattr(models, "NativeModel", type(None))  # type: ignore[no-any-return]


# -- SQL rows --

ROW_SCHEMA = {
    "title": "Reading",
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": 1},
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "status": {"type": "string", "enum": ["open", "paid", "void"]},
        "amount": {"type": "number", "minimum": 0},
        "paid": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "created_at": {"type": "string", "format": "date-time"},
    },
    "required": ["id", "name", "status", "amount", "paid", "created_at"],
    "additionalProperties": False,
}
ROW_COLUMNS = {
    "id": "integer",
    "name": "string",
    "status": "string",
    "amount": "number",
    "paid": "boolean",
    "note": "string?",
    "created_at": "date-time",
}


def sql_figures(count: int) -> None:
    import sqlalchemy as sa
    from pydantic import BaseModel, ConfigDict
    from typing import Literal

    class PlainReading(BaseModel):
        """The same fields as a hand-written Pydantic model (lax, as plain models are)."""

        model_config = ConfigDict(extra="forbid")
        id: int
        name: str
        status: Literal["open", "paid", "void"]
        amount: float
        paid: bool
        note: str | None = None
        created_at: datetime.datetime

    with tempfile.TemporaryDirectory() as tmp:
        specs = Path(tmp) / "specs" / "entities"
        specs.mkdir(parents=True)
        (specs / "Reading.schema.json").write_text(json.dumps(ROW_SCHEMA))
        command = [
            sys.executable,
            "-m",
            "codegen",
            str(specs.parent),
            "-o",
            str(Path(tmp) / "rows"),
        ]
        subprocess.run(command + ["-q", "--no-cache"], check=True)
        sys.path.insert(0, tmp)
        package = importlib.import_module("rows")
        from toolspec_runtime import (
            sql,
        )  # what a package with SQL tools carries as `_runtime/sql.py`

        reading = package.Reading
        engine = sa.create_engine("sqlite://")
        rng = random.Random(5)
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "create table reading (id integer primary key, name text, status text, amount real,"
                    " paid integer, note text, created_at text)"
                )
            )
            conn.execute(
                sa.text(
                    "insert into reading values (:id, :name, :status, :amount, :paid, :note, :created_at)"
                ),
                [
                    {
                        "id": i + 1,
                        "name": _word(rng, 3, 20),
                        "status": rng.choice(["open", "paid", "void"]),
                        "amount": rng.randint(0, 10**6) / 100,
                        "paid": rng.randint(0, 1),
                        "note": None if rng.random() < 0.5 else _word(rng, 1, 30),
                        "created_at": f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} 10:00:00",
                    }
                    for i in range(count)
                ],
            )
        select = sa.text("select * from reading")
        with engine.connect() as conn:

            def ours() -> None:
                found = sql.fetch_all(conn.execute(select), reading, ROW_COLUMNS, True)
                assert len(found) == count

            def plain() -> None:
                found = [
                    PlainReading.model_validate(dict(row))
                    for row in conn.execute(select).mappings()
                ]
                assert len(found) == count

            def raw() -> None:
                assert len(list(conn.execute(select).mappings())) == count

            ours_s, plain_s, raw_s = best_time(ours), best_time(plain), best_time(raw)
    print(
        f"{count} SQLite rows into entities: codegen {ours_s * 1e3:.1f} ms, plain Pydantic {plain_s * 1e3:.1f} ms"
        f" (ratio {ours_s / plain_s:.2f}); reading the rows alone {raw_s * 1e3:.1f} ms"
        f" (ratio of the rest {(ours_s - raw_s) / (plain_s - raw_s):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--datamodel-codegen",
        required=True,
        help="path to the datamodel-codegen executable",
    )
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument(
        "--instances", type=int, default=20, help="valid instances per tool"
    )
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    validation_figures(args.datamodel_codegen, args.tools, args.instances)
    sql_figures(args.rows)


if __name__ == "__main__":
    main()
