"""Integer arithmetic of TFLite's reference kernels in Python, for tables made at compile time.

Every function works on Python ints with C's int32/int16 semantics (truncating division, two's
complement wrap-around where the reference relies on it), so a 256-entry int8 table computed here
is what the reference computes for each input byte.
"""

from __future__ import annotations

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def wrap(x: int, bits: int) -> int:
    """Two's complement wrap-around of x to a signed ``bits``-bit integer."""
    m = 1 << bits
    x &= m - 1
    return x - m if x >= (m >> 1) else x


def _tdiv(a: int, b: int) -> int:
    """C integer division (truncates toward zero), b > 0."""
    q = abs(a) // b
    return q if a >= 0 else -q


def srdhm(a: int, b: int, bits: int = 32) -> int:
    """gemmlowp SaturatingRoundingDoublingHighMul for int32 (bits 32) or int16 (bits 16)."""
    lo = -(1 << (bits - 1))
    if a == b == lo:
        return -lo - 1
    ab = a * b
    half = 1 << (bits - 2)
    nudge = half if ab >= 0 else 1 - half
    return wrap(_tdiv(ab + nudge, 1 << (bits - 1)), bits)


def rdbp(x: int, exponent: int) -> int:
    """gemmlowp RoundingDivideByPOT (round half away from zero)."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if remainder > threshold else 0)


def sat_mul_pot(x: int, exponent: int, bits: int = 32) -> int:
    """gemmlowp SaturatingRoundingMultiplyByPOT<exponent> (exponent > 0: saturating left shift)."""
    if exponent <= 0:
        return rdbp(x, -exponent)
    threshold = (1 << (bits - 1 - exponent)) - 1
    if x > threshold:
        return (1 << (bits - 1)) - 1
    if x < -threshold:
        return -(1 << (bits - 1))
    return x << exponent


def mbqm(x: int, multiplier: int, shift: int) -> int:
    """MultiplyByQuantizedMultiplier (int32, double rounding)."""
    left = shift if shift > 0 else 0
    right = -shift if shift < 0 else 0
    return rdbp(srdhm(wrap(x << left, 32), multiplier), right)


def mbqm_lt1(x: int, multiplier: int, shift: int) -> int:
    """MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0)."""
    return rdbp(srdhm(x, multiplier), -shift)


def inv_sqrt_multiplier(x: int, reverse_shift: int = -1) -> tuple[int, int]:
    """GetInvSqrtQuantizedMultiplierExp: 1 / sqrt(x) as (multiplier, shift), gemmlowp Newton-Raphson
    in FixedPoint<int32, 3> (5 iterations), times sqrt(2)/2."""
    if x <= 1:
        return INT32_MAX, 0
    shift = 11
    while x >= (1 << 29):
        x //= 4
        shift += 1
    max_left_shift_bits = (32 - x.bit_length()) - 1
    pairs = max_left_shift_bits // 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    fin = x >> 1                       # F3 raw
    half_in = sat_mul_pot(fin, -1)
    half_three = (1 << 28) + (1 << 27)  # 1.5 in F3
    xr = 1 << 28                        # F3::One()
    for _ in range(5):
        x3 = sat_mul_pot(srdhm(srdhm(xr, xr), xr), 6)        # F9 -> F3
        diff = wrap(srdhm(half_three, xr) - srdhm(half_in, x3), 32)  # F6
        xr = sat_mul_pot(diff, 3)                             # F6 -> F3
    xr = srdhm(xr, 1518500250)          # * sqrt(2)/2 (F0)
    if shift < 0:
        xr = wrap(xr << -shift, 32)
        shift = 0
    return xr, shift * reverse_shift


def downscale_multiplier_int16(m: int) -> int:
    """DownScaleInt32ToInt16Multiplier."""
    if m >= INT32_MAX - (1 << 15):
        return INT16_MAX
    return (m + (1 << 15)) >> 16
