"""Support code every generated package carries (copied verbatim into `OUT/_runtime/`).

It depends on nothing but Pydantic v2: `validation` decides acceptance with JSON Schema semantics, `models`
holds the base classes of generated models, `dispatch` runs tool calls.
"""
