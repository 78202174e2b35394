"""Pure-Python JSON Schema draft 2020-12 validator for generated models.

Generated packages use it through the runtime library (``toolspec_runtime``): a
model's ``model_validator(mode="before")`` calls
:func:`validate` so that the model accepts exactly the instances its emitted
JSON Schema accepts.  Hence: standard library only (plus pydantic-core, which
Pydantic ships, for linear-time pattern matching, imported on first use), no
import-time work beyond compiling constant regexes, and messages written for an
LLM fixing its call.

Instances are JSON values as Python holds them: ``None``, ``bool`` (never a
number), ``int``, ``float`` / ``Decimal`` (integral values are integers too),
``str``, ``list`` / ``tuple`` and any ``Mapping`` with ``str`` keys.
``datetime.date`` / ``datetime.datetime`` / ``uuid.UUID`` stand for their
ISO / canonical strings, because that is how Pydantic serialises them.
Anything else (sets, bytes, NaN, arbitrary objects) is not JSON data and is
reported as such.

Deliberate choices beyond plain draft 2020-12:

* ``format`` is an annotation, except that ``"format": "date"`` or
  ``"date-time"`` beside ``"type": "string"`` asserts an RFC 3339 full-date /
  date-time that is also a real calendar date and time (so leap seconds are
  rejected), because the compiler maps those to ``datetime.date`` /
  ``datetime.datetime`` and both layers must agree.
* ``pattern`` is an ECMA-262 regular expression read with the "u" flag, as
  JSON Schema says (and jsonschema-rs and ajv read it), not Python's ``re``:
  ``\\d`` is [0-9], ``\\w`` is [A-Za-z0-9_], ``\\s`` is ECMA's WhiteSpace and
  LineTerminator, ``\\b`` looks at those ASCII word characters, ``.`` stops
  at ``\\n``, ``\\r``, U+2028 and U+2029, ``$`` is the end of input,
  ``\\cX`` is a control character, ``(?<name>...)`` a named group, and
  ``\\p{...}`` general categories are supported; Python's extensions
  (inline flags, ``\\A``, ``\\Z``) keep Python's meaning.  Matching never
  backtracks: it runs in time linear in the text on the Rust regex engine
  inside pydantic-core, or, for lookahead and lookbehind (of any width), on
  ``automata``.  Patterns that need backtracking (backreferences, possessive
  quantifiers, atomic groups) or are too large are refused (see
  :func:`compile_pattern`).  Text with lone surrogates, which Rust cannot
  hold, is matched with U+FFFD in their place when the pattern cannot tell
  the two apart, and fails the pattern otherwise (a pattern with lookaround
  matches it as it is).
* Numbers with more than 4300 digits (Python's own limit for int <-> text)
  are refused; exponents may be anything (``multipleOf`` never expands them).
* Remote references are never fetched: a ``$ref`` can reach the document
  itself (``$id``, ``$anchor``, ``$dynamicAnchor``, JSON pointers) and the
  embedded draft 2020-12 meta-schemas.
* Validation costs a polynomial in (schema size x instance size): what a
  ``$ref``/``$dynamicRef`` target produces at an instance location (problems,
  each once, and annotations) is remembered once it is met there twice, so a
  schema reached along many paths is evaluated once per location, mode and
  binding of contested dynamic anchors (the compiler bounds those bindings);
  an anyOf/oneOf summary quotes at most 1000 characters of each problem.
* A defect of the schema met while validating (unresolvable or looping
  ``$ref``, uncompilable pattern) rejects the instance with a single problem
  whose message starts with "schema error:"; nothing is guessed.

A schema document is indexed once and cached by identity, so schemas must not
be mutated after their first use.

Modules, each importing only those listed before it:

* ``limits``: bounds on depth, digits and cache sizes.
* ``metaschema``: the embedded draft 2020-12 meta-schema text.
* ``uris``: RFC 3986 reference resolution.
* ``numbers``: integral values, counts, comparison, ``multipleOf``.
* ``formats``: the asserted formats ``date`` and ``date-time``.
* ``problems``: :class:`Problem`, instance locations, message wording.
* ``data``: the JSON data model over Python values (type, equality, display).
* ``charsets``: code-point sets and Unicode general categories.
* ``translation``: ECMA-262 -> Python ``re`` syntax -> tokens -> Rust ``regex``.
* ``automata``: the linear-time matcher of patterns with lookaround.
* ``patterns``: :func:`compile_pattern` and the linear-time :class:`Matcher`.
* ``index``: subschema keywords; ``$id``/anchor index of a document.
* ``context``: dynamic scope, annotations, the state keyword families share.
* ``resolution``: ``$ref`` and ``$dynamicRef``.
* ``assertions``: ``type``, ``enum`` and the number and string keywords.
* ``arrays``, ``objects``: the array and object keywords, ``unevaluated*``.
* ``applicators``: ``allOf``/``anyOf``/``oneOf``/``not``/``if``.
* ``evaluator``: :func:`validate` and :func:`is_valid`, keyword dispatch.
"""

from .evaluator import is_valid, validate
from .index import SUBSCHEMA as SUBSCHEMA
from .index import SUBSCHEMA_LISTS as SUBSCHEMA_LISTS
from .index import SUBSCHEMA_MAPS as SUBSCHEMA_MAPS
from .numbers import _is_multiple as _is_multiple
from .patterns import Matcher, compile_pattern
from .problems import Problem
from .problems import format_path as format_path
from .translation import PatternError, UnsupportedPattern
from .translation import _translate_pattern as _translate_pattern
from .uris import _resolve as _resolve

__all__ = [
    "Matcher",
    "PatternError",
    "Problem",
    "UnsupportedPattern",
    "compile_pattern",
    "is_valid",
    "validate",
]
