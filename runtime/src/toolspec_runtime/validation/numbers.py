"""JSON numbers as Python holds them: integral values, counts, comparison and
``multipleOf`` by coefficients and exponents (never expanding a large exponent)."""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import Any, TypeGuard

from .limits import _MAX_DIGITS


def _is_integral(value: object) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, Decimal):
        return value == value.to_integral_value()
    return False


def _is_number(value: object) -> TypeGuard[int | float | Decimal]:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _as_count(value: object) -> int | None:
    """A schema's non-negative count ("minLength": 2 or 2.0), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, (float, Decimal)) and _is_integral(value):
        # Beyond sys.maxsize no length differs, and 1e10000000 stays cheap.
        return int(max(min(value, sys.maxsize), -sys.maxsize))
    return None


# Integers of at most this size are floats exactly: a float compares with one by value as by its literal.
_EXACT_FLOAT = 2**53


def _aligned(a: Any, b: Any) -> tuple[Any, Any]:
    """Compare a float with a Decimal, or with an int no float holds, by the
    float's JSON literal (shortest repr), not its binary expansion:
    Decimal("0.1") >= 0.1 must hold, and so must 3.381401931792213e+31 <=
    33814019317922130000000000000000 (the float's binary value is larger)."""
    if isinstance(b, float) and (
        isinstance(a, Decimal) or (isinstance(a, int) and abs(a) > _EXACT_FLOAT)
    ):
        return a, Decimal(repr(b))
    if isinstance(a, float) and (
        isinstance(b, Decimal) or (isinstance(b, int) and abs(b) > _EXACT_FLOAT)
    ):
        return Decimal(repr(a)), b
    return a, b


def _float_key(value: float) -> int | float:
    """A float under JSON equality: the integer its literal writes when no
    float-sized comparison would find it (3.381401931792213e+31 is
    33814019317922130000000000000000, not the float's binary value)."""
    if abs(value) > _EXACT_FLOAT and value.is_integer():
        return int(Decimal(repr(value)))
    return value


def _decimal_parts(value: int | float | Decimal) -> tuple[int, int]:
    """``(coefficient, exponent)`` with value == coefficient * 10**exponent.
    A float stands for its shortest decimal literal, so 0.0075 is a multiple
    of 0.0001 and 1e308 / 0.123456789 cannot overflow."""
    if isinstance(value, int):
        return value, 0
    if isinstance(value, float):
        value = Decimal(repr(value))
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite: non-numbers were refused
    coefficient = int(Decimal((0, digits, 0)))
    return (-coefficient if sign else coefficient), exponent


# The smallest integer of more than _MAX_DIGITS digits; and the bits below which no integer reaches it (log2(10)
# is 3.3219...: an estimate from the bit length alone let integers of 4,301 to 4,310 digits through).
_TOO_LONG: int = 10**_MAX_DIGITS
_SHORT_BITS = _TOO_LONG.bit_length() - 1


def _too_long(value: int | Decimal) -> bool:
    if isinstance(value, int):
        return value.bit_length() > _SHORT_BITS and abs(value) >= _TOO_LONG
    return len(value.as_tuple().digits) > _MAX_DIGITS


def _is_multiple(value: int | float | Decimal, divisor: int | float | Decimal) -> bool:
    """Whether value / divisor is an integer, in time bounded by the digits of
    both, whatever their exponents (1e10000000 is never expanded)."""
    if isinstance(value, int) and isinstance(divisor, int):
        return value % divisor == 0
    coefficient, exponent = _decimal_parts(value)
    divisor_coefficient, divisor_exponent = _decimal_parts(divisor)
    if coefficient == 0:
        return True
    shift = exponent - divisor_exponent  # value / divisor = c * 10**shift / d
    if shift < 0:
        if -shift >= abs(coefficient).bit_length():
            return False  # 0 < |c| < 10**-shift: no multiple of 10**-shift
        scale: int = 10**-shift
        return coefficient % (divisor_coefficient * scale) == 0
    # d divides c * 10**shift iff its part prime to 10 divides c and its
    # factors 2 and 5 beyond the shift divide c too.
    rest, fives = abs(divisor_coefficient), 0
    twos = (rest & -rest).bit_length() - 1
    rest >>= twos
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    needed: int = 2 ** max(0, twos - shift) * 5 ** max(0, fives - shift) * rest
    return coefficient % needed == 0
