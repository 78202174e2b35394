"""What a reviewer sees when a spec changes: adding a property to an entity changes only the lines that mention
it (the entity's module and schema file, and the copies of its schema in the tools that use it), never names
elsewhere (no name of generated code comes from a traversal counter)."""

from __future__ import annotations

import difflib
import json
import shutil
from pathlib import Path

from codegen.compiler import compile_specs

ROOT = Path(__file__).resolve().parent.parent


def _changed_lines(before: str, after: str) -> int:
    """Lines removed plus lines added, as a unified diff counts them."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
    return sum(
        1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def test_a_new_property_of_an_entity_changes_few_lines(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "examples" / "specs", specs)
    before = compile_specs([specs]).files
    order = specs / "shop" / "entities" / "Order.schema.json"
    schema = json.loads(order.read_text())
    properties = list(schema["properties"].items())
    priority = {"type": "integer", "enum": [1, 2, 3]}
    schema["properties"] = dict(
        [properties[0], ("priority", priority), *properties[1:]]
    )
    order.write_text(json.dumps(schema, indent=2))
    after = compile_specs([specs]).files
    assert before is not None and after is not None
    changed = {
        path: _changed_lines(str(before.get(path, "")), str(after.get(path, "")))
        for path in sorted(set(before) | set(after))
        if path.endswith(".py") and before.get(path) != after.get(path)
    }
    # The entity's module (its model): nothing else of Python. The schemas change as JSON beside their
    # modules: Order's own, and the copy in `get_orders`' output schema.
    assert set(changed) == {"shop/entities/order.py"}
    assert sum(changed.values()) <= 40, changed
    data = {
        path
        for path in set(before) | set(after)
        if path.endswith(".schemas.json") and before.get(path) != after.get(path)
    }
    assert data == {
        "shop/entities/order.schemas.json",
        "shop/billing/orders.schemas.json",
    }
    # The new field, typed as its schema says (an integer enum: 1.0 is one of its values, so it is checked).
    entity = str(after["shop/entities/order.py"])
    assert "    priority: Annotated[\n        Literal[1, 2, 3] | None," in entity
