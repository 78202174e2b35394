"""The fields an MCP tool definition carries beside its schemas: `title`, `annotations`, `execution`, `icons`
and `_meta` (the `Tool` of the MCP schema, 2025-06-18 and 2025-11-25).

They are data: the generated package holds them as JSON constants (`ToolSpec(mcp_fields=...)`), its
definitions and its MCP export (a served `tools/list`) give them back as the spec wrote them. A value of
another shape than the MCP schema gives it (a hint that is no boolean, an icon without `src`) is left out with
an `mcp-field` warning: kept, it would make the whole `tools/list` invalid to a client. `null` stands for "not
given", as the MCP SDKs read it, and is kept. Keys the MCP schema does not name inside `annotations`, an icon
or `execution` are kept as they are (the schema leaves those objects open).
"""

from __future__ import annotations

from typing import Any

from ...diagnostics import Diagnostics, Span
from ...ir import JArray, JObject, to_plain
from toolspec_runtime.exports import MCP_TOOL_FIELDS

_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_TASK_SUPPORT = ("forbidden", "optional", "required")
_THEMES = ("light", "dark")


def mcp_fields(entry: JObject, diags: Diagnostics) -> dict[str, Any]:
    """The MCP fields of a tool entry, as plain JSON data, each of the shape the MCP schema gives it."""
    found: dict[str, Any] = {}
    for key in MCP_TOOL_FIELDS:
        if key not in entry:
            continue
        value = entry[key]
        span = entry.value_span(key)
        checked = _CHECKS[key](value, span, diags)
        if checked is not None or value is None:
            found[key] = checked
    return found


def _warn(diags: Diagnostics, span: Span, what: str, shape: str) -> None:
    diags.warning(
        "mcp-field",
        f"{what} must be {shape} (MCP schema): left out of the tool's definition",
        span,
    )


def _title(value: Any, span: Span, diags: Diagnostics) -> Any:
    if value is None or isinstance(value, str):
        return value
    _warn(diags, span, "'title'", "a string")
    return None


def _object(what: str, value: Any, span: Span, diags: Diagnostics) -> JObject | None:
    if isinstance(value, JObject):
        return value
    if value is not None:
        _warn(diags, span, what, "an object")
    return None


def _annotations(value: Any, span: Span, diags: Diagnostics) -> Any:
    node = _object("'annotations'", value, span, diags)
    if node is None:
        return None
    kept: dict[str, Any] = {}
    for key, item in node.items():
        if key in _HINTS and item is not None and not isinstance(item, bool):
            _warn(diags, node.value_span(key), f"'annotations.{key}'", "true or false")
        elif key == "title" and item is not None and not isinstance(item, str):
            _warn(diags, node.value_span(key), "'annotations.title'", "a string")
        else:
            kept[key] = to_plain(item)
    return kept


def _execution(value: Any, span: Span, diags: Diagnostics) -> Any:
    node = _object("'execution'", value, span, diags)
    if node is None:
        return None
    kept: dict[str, Any] = {}
    for key, item in node.items():
        if key == "taskSupport" and item is not None and item not in _TASK_SUPPORT:
            shape = " or ".join(repr(choice) for choice in _TASK_SUPPORT)
            _warn(diags, node.value_span(key), "'execution.taskSupport'", shape)
        else:
            kept[key] = to_plain(item)
    return kept


def _icons(value: Any, span: Span, diags: Diagnostics) -> Any:
    if not isinstance(value, JArray):
        if value is not None:
            _warn(diags, span, "'icons'", "a list of icons")
        return None
    kept = []
    for index, icon in enumerate(value):
        problem = _icon_problem(icon)
        if problem is None:
            kept.append(to_plain(icon))
        else:
            _warn(diags, value.item_span(index), f"'icons[{index}]'", problem)
    return kept


def _icon_problem(icon: Any) -> str | None:
    """What is wrong with an icon, or None."""
    if not isinstance(icon, JObject) or not isinstance(icon.get("src"), str):
        return "an object with a string 'src'"
    if not isinstance(icon.get("mimeType", ""), (str, type(None))):
        return "an object whose 'mimeType' is a string"
    sizes = icon.get("sizes")
    if sizes is not None and not (
        isinstance(sizes, JArray) and all(isinstance(size, str) for size in sizes)
    ):
        return "an object whose 'sizes' is a list of strings"
    if icon.get("theme") is not None and icon.get("theme") not in _THEMES:
        return "an object whose 'theme' is 'light' or 'dark'"
    return None


def _meta(value: Any, span: Span, diags: Diagnostics) -> Any:
    node = _object("'_meta'", value, span, diags)
    return None if node is None else to_plain(node)


_CHECKS = {
    "title": _title,
    "annotations": _annotations,
    "execution": _execution,
    "icons": _icons,
    "_meta": _meta,
}
