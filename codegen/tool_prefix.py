"""The prefix a spec folder's tools are called under (`[tool.codegen] prefixes`, `--prefix`).

Tools of a prefixed folder are called `<prefix>__<tool>` on the wire (as MCP clients name a server's tools):
letters, digits, `-` and single `_`, so the name stays valid for the OpenAI and Anthropic name rules and the
double underscore separates the prefix from the tool's own name. (A module of its own: the settings are read
on every build, a no-op included, which imports none of the compiler's passes.)
"""

from __future__ import annotations

import re

PREFIX_SEPARATOR = "__"
PREFIX_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9-]*(?:_[A-Za-z0-9-]+)*\Z")
PREFIX_MAX_LENGTH = 32


def valid_prefix(prefix: str) -> bool:
    return len(prefix) <= PREFIX_MAX_LENGTH and bool(PREFIX_PATTERN.match(prefix))
