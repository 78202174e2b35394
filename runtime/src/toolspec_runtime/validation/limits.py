"""Bounds that keep validation cheap whatever the instance or schema."""

# Deepest array/object nesting accepted in an instance.  Evaluation recurses
# per level, so the limit keeps us well inside Python's recursion limit even
# when called from deep inside Pydantic; real tool arguments are far shallower.
_MAX_DEPTH = 64
# Bounds for the identity-keyed caches (schemas are normally module constants).
_MAX_CACHED_SCHEMAS = 256
_MAX_CACHED_PATTERNS = 1024
# Python's own bound on int <-> text conversion (sys.int_info): data numbers
# with more digits are refused, which keeps arithmetic on them cheap whatever
# their exponent (Decimal("1e10000000") is fine, it is never expanded).
_MAX_DIGITS = 4300
# Integers longer than this are described, not printed (Python refuses to
# convert ints of more than 4300 digits to text).
_MAX_SHOWN_BITS = 10_000
# An alternative's problem quoted in an anyOf/oneOf summary is cut to this
# many characters: summaries quote summaries, so alternatives of alternatives
# (a few references deep) would otherwise double the message per level.
_MAX_QUOTED = 1000
# The compiler refuses a document whose contested dynamic anchors can be bound
# in more ways than this (``index._bindings``): each way is a dynamic scope a
# ``$dynamicRef`` may tell apart, and validating with them in general is
# PSPACE-hard, so only a bound keeps it polynomial.
_MAX_BINDINGS = 256
# The longest chain of schemas applied to the same value ($ref, allOf, anyOf,
# not, if/then/else, dependentSchemas, each inside the next) the compiler
# accepts (``check_refs.check_chains``).  The evaluator follows one by
# recursion, two or three frames a step, consuming no level of the instance:
# this many steps stay well inside Python's recursion limit, where about 400
# would fail every instance.
_MAX_IN_PLACE = 128
