"""Support code generated packages carry (copied verbatim into `OUT/_runtime/`).

It depends on nothing but Pydantic v2 (and SQLAlchemy, for `sql`): `validation` decides acceptance with JSON
Schema semantics (a subpackage, one module per job, mapped in its `__init__`), `models` holds the base classes of
generated models, `dispatch` runs tool calls, `exports` writes tools in the formats LLM APIs take, `lazy` lets a
package import each module when first used; `sql` (SQL tools) and `paths` (resources) ship only in packages that
use them.
"""
