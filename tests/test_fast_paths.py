"""Code written for speed against the code it stands in for: same output, byte for byte."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegen.runtime.exports import dump_json

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.tuples(inner, inner)
    | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=800, deadline=None)
@given(JSON_VALUES)
def test_dump_json_is_json_dumps(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    "value",
    [{1: "a"}, {None: [True]}, {"a": {2.5: 1}}, [math.nan, -math.inf, 10**30]],
)
def test_dump_json_odd_values(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def test_dump_json_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        dump_json({"a": object()})
