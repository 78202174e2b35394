"""Brimley front end: Brimley YAML and `.sql` files -> IR `Tool`s, `Entity`s and `Resource`s (reference/brimley.md).

- `definitions`: one YAML document or SQL header -> IR; what needs other files is left `Pending`
- `arguments`: Brimley argument syntax -> JSON Schema fragments (the fragments gram and JSON give too)
- `safe_yaml`: YAML -> IR JSON nodes that keep their spans, under the limits of the JSON reader
- `pending`: what a tool carries until it is linked (`entity_ref` inheritance, the SQL to check)
- `link`: run by the driver once every file is loaded; finishes pending tools and resources
"""

from .definitions import has_sql_header, load_brimley_sql, load_brimley_yaml
from .link import link

__all__ = ["load_brimley_yaml", "load_brimley_sql", "has_sql_header", "link"]
