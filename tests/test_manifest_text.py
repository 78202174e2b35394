"""The manifest is written without the standard library's indenting encoder, exactly as it would write it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import __version__
from codegen.writer import digest, manifest_text


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), st.text(), max_size=6))
def test_the_manifest_is_json_dumps_with_an_indent_of_two(
    files: dict[str, str],
) -> None:
    listing = {path: {"sha256": digest(files[path])} for path in sorted(files)}
    document = {"generator": "codegen", "version": __version__, "files": listing}
    assert manifest_text(files) == json.dumps(document, indent=2) + "\n"
