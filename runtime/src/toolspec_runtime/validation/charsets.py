"""Sets of code points (what one pattern atom matches) and the Unicode general
categories of ``\\p{...}`` escapes."""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from collections.abc import Iterable

from .limits import _MAX_CACHED_PATTERNS

# A set of code points: sorted, disjoint, non-adjacent inclusive ranges.
_Ranges = tuple[tuple[int, int], ...]
_EVERYTHING: _Ranges = ((0, sys.maxunicode),)
_NOT_NEWLINE: _Ranges = ((0, 9), (11, sys.maxunicode))
# ECMA-262's sets (22.2.2.9): \d and \w are ASCII; "." stops at every
# LineTerminator; \s is WhiteSpace (TAB, VT, FF, ZWNBSP and every
# Space_Separator: listed here, as scanning unicodedata for them would cost
# every process a pass over all code points; the tests hold the list to
# unicodedata's Zs) plus LineTerminator.
_ECMA_DIGIT: _Ranges = ((0x30, 0x39),)
_ECMA_WORD: _Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_LINE_TERMINATORS: _Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_ECMA_DOT: _Ranges = ((0, 9), (11, 12), (14, 0x2027), (0x202A, sys.maxunicode))
_SPACE_SEPARATORS: _Ranges = (
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
)
# TAB to CR, the separators, LS and PS, ZWNBSP: sorted and merged.
_ECMA_SPACE: _Ranges = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


def _merge(ranges: Iterable[tuple[int, int]]) -> _Ranges:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
        else:
            merged.append((low, high))
    return tuple(merged)


def _complement(ranges: _Ranges) -> _Ranges:
    gaps: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            gaps.append((start, low - 1))
        start = high + 1
    if start <= sys.maxunicode:
        gaps.append((start, sys.maxunicode))
    return tuple(gaps)


def _ecma_class(letter: str) -> _Ranges:
    """The set of ECMA-262's ``\\d``, ``\\D``, ``\\w``, ``\\W``, ``\\s`` or ``\\S``."""
    lower = letter.lower()
    if lower == "d":
        ranges = _ECMA_DIGIT
    elif lower == "w":
        ranges = _ECMA_WORD
    else:
        ranges = _ECMA_SPACE
    return _complement(ranges) if letter != lower else ranges


def _python_class_body(ranges: _Ranges) -> str:
    """A Python character-class body (no brackets) naming exactly *ranges*."""
    return "".join(
        f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}"
        for low, high in ranges
    )


def _surrogates_like_fffd(ranges: _Ranges) -> bool:
    surrogates = sum(
        max(0, min(high, 0xDFFF) - max(low, 0xD800) + 1) for low, high in ranges
    )
    fffd = any(low <= 0xFFFD <= high for low, high in ranges)
    return surrogates == (0x800 if fffd else 0)


def _rust_set(ranges: _Ranges) -> str:
    """The set in Rust syntax; surrogates are left out (Rust text has none)."""
    parts: list[str] = []
    for low, high in ranges:
        for start, end in ((low, min(high, 0xD7FF)), (max(low, 0xE000), high)):
            if start == end:
                parts.append(f"\\x{{{start:X}}}")
            elif start < end:
                parts.append(f"\\x{{{start:X}}}-\\x{{{end:X}}}")
    if len(parts) == 1 and "-" not in parts[0]:
        return parts[0]
    return "[" + "".join(parts) + "]" if parts else "[a&&b]"


_SCANNED: dict[tuple[str, int], _Ranges] = {}
_CODE_POINTS: list[str] = []


def _scan(atom: str, flags: int) -> _Ranges:
    """The code points that a one-character Python regex matches under
    *flags*, found by running Python's ``re`` over all of them (once)."""
    flags &= re.A | re.I
    key = (atom, flags)
    if key not in _SCANNED:
        if len(_SCANNED) >= _MAX_CACHED_PATTERNS:
            _SCANNED.clear()
        runs = re.compile(f"(?:{atom})+", flags).finditer(_code_points())
        _SCANNED[key] = tuple((run.start(), run.end() - 1) for run in runs)
    return _SCANNED[key]


def _code_points() -> str:
    """Every code point, in order, as one string (built once, in C)."""
    if not _CODE_POINTS:
        codes = array("I", range(sys.maxunicode + 1))
        if codes.itemsize == 4:
            codec = "utf-32-le" if sys.byteorder == "little" else "utf-32-be"
            _CODE_POINTS.append(codes.tobytes().decode(codec, "surrogatepass"))
        else:
            _CODE_POINTS.append("".join(map(chr, range(sys.maxunicode + 1))))
    return _CODE_POINTS[0]


_PROPERTY_ESCAPE = re.compile(r"\\([pP])\{(?:(?:General_Category|gc)=)?([A-Za-z_]+)\}")
# ECMA-262 General_Category values (long and short names) -> Unicode
# categories as reported by unicodedata.category.
_CATEGORY_GROUPS = {
    "L": "Lu Ll Lt Lm Lo",
    "LC": "Lu Ll Lt",
    "M": "Mn Mc Me",
    "N": "Nd Nl No",
    "P": "Pc Pd Ps Pe Pi Pf Po",
    "S": "Sm Sc Sk So",
    "Z": "Zs Zl Zp",
    "C": "Cc Cf Cs Co Cn",
}
_CATEGORY_NAMES = {
    "Letter": "L",
    "Cased_Letter": "LC",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm",
    "Other_Letter": "Lo",
    "Mark": "M",
    "Combining_Mark": "M",
    "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me",
    "Number": "N",
    "Decimal_Number": "Nd",
    "digit": "Nd",
    "Letter_Number": "Nl",
    "Other_Number": "No",
    "Punctuation": "P",
    "punct": "P",
    "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd",
    "Open_Punctuation": "Ps",
    "Close_Punctuation": "Pe",
    "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf",
    "Other_Punctuation": "Po",
    "Symbol": "S",
    "Math_Symbol": "Sm",
    "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk",
    "Other_Symbol": "So",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Line_Separator": "Zl",
    "Paragraph_Separator": "Zp",
    "Other": "C",
    "Control": "Cc",
    "cntrl": "Cc",
    "Format": "Cf",
    "Surrogate": "Cs",
    "Private_Use": "Co",
    "Unassigned": "Cn",
}
_CATEGORY_SETS: dict[str, _Ranges] = {}


def _category_set(name: str) -> _Ranges:
    """The code points of a general category, by its ECMA-262 name.  Built by
    scanning all code points once per category, which is slow-ish but only
    happens when such a pattern is first compiled."""
    cached = _CATEGORY_SETS.get(name)
    if cached is not None:
        return cached
    short = _CATEGORY_NAMES.get(name, name)
    if short in _CATEGORY_GROUPS:
        wanted = frozenset(_CATEGORY_GROUPS[short].split())
    elif any(short in group.split() for group in _CATEGORY_GROUPS.values()):
        wanted = frozenset({short})
    else:
        raise re.error(f"unsupported Unicode property {name!r}")
    category = unicodedata.category
    inside = [category(char) in wanted for char in _code_points()]
    members = (code for code, member in enumerate(inside) if member)
    found = _merge((code, code) for code in members)
    _CATEGORY_SETS[name] = found
    return found


def _category_ranges(name: str, negated: bool) -> str:
    """Python character-class body for a general category (or its
    complement, for ``\\P`` inside a class)."""
    ranges = _category_set(name)
    return _python_class_body(_complement(ranges) if negated else ranges)
