"""The manifest is written without the standard library's indenting encoder, exactly as it would write it."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen import __version__
from codegen.writer import (
    MANIFEST,
    _manifest,
    _manifest_again,
    digest,
    manifest_text,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(), st.text(), max_size=6))
def test_the_manifest_is_json_dumps_with_an_indent_of_two(
    files: dict[str, str],
) -> None:
    listing = {path: {"sha256": digest(files[path])} for path in sorted(files)}
    document = {"generator": "codegen", "version": __version__, "files": listing}
    assert manifest_text(files) == json.dumps(document, indent=2) + "\n"


_PATHS = st.text(
    st.sampled_from(["a", "é", '"', "\\", "/", "s"]), min_size=1, max_size=4
)
_HASHES = st.sampled_from(["0" * 64, "1" * 64, "f" * 64, '"', "é"])


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(_PATHS, _HASHES, max_size=6),
    st.dictionaries(_PATHS, _HASHES, max_size=3),
    st.booleans(),
)
def test_a_manifest_made_again_from_the_last_is_the_one_made_whole(
    before: dict[str, str], changes: dict[str, str], same_files: bool
) -> None:
    """An edit's manifest replaces the hashes that changed in the last one, where the files are the same."""
    after = (
        {path: changes.get(path, sha) for path, sha in before.items()}
        if same_files
        else {**before, **changes}
    )
    listed = {path: (sha, 1) for path, sha in before.items()}
    listed[MANIFEST] = ("m" * 64, 1)
    again = _manifest_again(_manifest(before).encode("utf-8"), listed, after)
    if after.keys() == before.keys():
        assert again == _manifest(after)
    else:
        assert again is None
    # a manifest not as `_manifest` wrote it is never taken as one
    damaged = _manifest(before).replace('"sha256"', '"sha"').encode("utf-8")
    changed = any(after[path] != sha for path, sha in before.items() if path in after)
    if before and changed:
        assert _manifest_again(damaged, listed, after) is None
