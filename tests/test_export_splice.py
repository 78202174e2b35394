"""An edit rebuild splices the export files (codegen/incremental.py): the entries it copies from the file as
it was, in runs, must give the very file `join_export` makes of the same entries, and the same places.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.backends.schemas import (
    join_export,
    respliced_export,
    splice_export,
    tiles,
)
from toolspec_runtime.exports import EXPORT_FILES

_FRAGMENT = st.text(st.characters(codec="utf-8"), max_size=12)
_TOOLS = st.dictionaries(
    st.text("abcdef", min_size=1, max_size=3), _FRAGMENT, max_size=8
)


@settings(max_examples=300)
@given(
    flavour=st.sampled_from(sorted(EXPORT_FILES)),
    old=_TOOLS,
    new=_TOOLS,
    kept=st.lists(st.booleans(), max_size=8),
    as_bytes=st.booleans(),
)
def test_spliced_entries_are_what_join_export_makes(
    flavour: str,
    old: dict[str, str],
    new: dict[str, str],
    kept: list[bool],
    as_bytes: bool,
) -> None:
    """Each tool of the new file is either copied from the old one (where it was) or made anew."""

    def encoded(text: str) -> Any:
        return text.encode("utf-8") if as_bytes else text

    def joined(entries: list[Any]) -> tuple[Any, dict[str, tuple[str, int, int]]]:
        text, places = join_export(flavour, entries)
        return encoded(text) if type(text) is str else text, places  # no entries: text

    before, places = joined(
        [(tool, tool.upper(), encoded(old[tool])) for tool in sorted(old)]
    )
    assert tiles(flavour, before, [(start, end) for _, start, end in places.values()])
    copies = dict(zip(sorted(old), kept))
    tools = sorted({*new, *(tool for tool, keep in copies.items() if keep)})
    made: list[Any] = []
    spliced: list[Any] = []
    for tool in tools:
        if copies.get(tool, False):
            _, start, end = places[tool]
            made.append((tool, tool.upper(), before[start:end]))
            spliced.append((tool, tool.upper(), (start, end)))
        else:
            fragment = encoded(new.get(tool, "x"))
            made.append((tool, tool.upper(), fragment))
            spliced.append((tool, tool.upper(), fragment))
    assert splice_export(flavour, before, spliced) == joined(made)


@settings(max_examples=300)
@given(
    flavour=st.sampled_from(sorted(EXPORT_FILES)),
    old=_TOOLS,
    changes=st.dictionaries(
        st.text("abcdef", min_size=1, max_size=3), st.none() | _FRAGMENT, max_size=4
    ),
    renamed=st.booleans(),
)
def test_an_export_file_respliced_is_what_join_export_makes(
    flavour: str,
    old: dict[str, str],
    changes: dict[str, str | None],
    renamed: bool,
) -> None:
    """Tools made anew (changed, added), removed (None) or, where the tools are the same, only changed: the
    file respliced from the old one and its record's places is the file made whole, with its places.
    """
    before, places = join_export(
        flavour, [(tool, tool.upper(), old[tool]) for tool in sorted(old)]
    )
    new = {**old, **changes}
    tools = sorted(tool for tool, fragment in new.items() if fragment is not None)
    made = {tool: new[tool] for tool in tools if tool in changes}
    # an exported name changes only with the tool's entry made anew (`_Rebuild._tool_files`)
    names = {t: t.upper() + ("_" if renamed and t in made else "") for t in tools}
    text, spans = respliced_export(flavour, before.encode("utf-8"), made, places, names)
    whole, whole_places = join_export(
        flavour, [(tool, names[tool], new[tool]) for tool in tools]
    )
    assert (text if type(text) is str else text.decode("ascii")) == whole
    assert spans == whole_places and list(spans) == list(whole_places)
