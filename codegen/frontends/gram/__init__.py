"""gram front end: `.gram` files -> IR `Tool`s, `Agent`s and `Entity`s (../shared/reference/gram.md).

- `syntax`: text -> syntax tree, by the lark parser (grammars/gram.lark) with its transformer inlined
- `schema`: gram type notation -> JSON Schema fragments (the fragments the JSON and Brimley front ends give too)
- `patterns`: subject patterns -> IR; a parameter name means one thing across all .gram files
"""

from .patterns import check_parameter_identity, load_gram_file

__all__ = ["load_gram_file", "check_parameter_identity"]
