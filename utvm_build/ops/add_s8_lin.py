"""The DSP targets' linear form of int8 ADD / SUB (kernels/arm_dsp/add_s8_lut.h, utvm_add_s8_lin).

TFLite computes, per element (reference_integer_ops::AddElementwise; add_s8_q.h has the derivation)::

    out = clamp(RDBP(SRDHM(G1(a) + G2(b), mo), eo) + zo, lo, hi)
    G_i(v) = RDBP(SRDHM((v - z_i) * 2^20, m_i), e_i)

a function of two int8 values: 65 536 cases. The kernel computes instead::

    out' = clamp((floor(c * a / 2^8) + u[b]) >> 16, lo + 128, hi + 128) - 128

(one SMLAWB with ``a * 2^8`` in a 16-bit lane, then the top half of the sum, saturated to 0..255: the
table holds the result plus 128) for one int32 ``c`` and one 256-entry int32 table ``u``. Which
(c, u) work is a plain question about 65 536 integer inequalities, and this module answers it exactly:
for a candidate ``c``, each value ``b`` of the tabulated input needs ``u[b]`` with
``L(a, b) <= h(a) + u[b] < H(a, b)`` for all 256 values ``a`` (``h(a) = floor(c * a / 2^8)``; ``[L, H)``
the sums whose top half gives the reference's result, open-ended on the side of a clamp bound), which
exists iff ``max_a(L - h) < min_a(H - h)``. The candidates are the ``c`` nearest
``s_lin / s_out * 2^24``; the one kept is checked once more by evaluating the kernel's arithmetic on
every pair against the reference arithmetic (below, exact integers) and on int32 overflow. No ``c``
found: the caller keeps the exact tables of utvm_add_s8_lut.

Why it usually exists: the larger-scale input's rescale is exact (multiplier 2^30, shift 0:
``G = (v - z) * 2^19``), so the sum is that linear term plus a function of the other input, which the
table absorbs whole; only the rounding of the linear term to ``c / 2^24`` is approximated, and over
256 values of ``a`` a 32-bit ``c`` leaves room (docs/kernel-guide.md has the measured rate). It fails
where a rounding tie of the reference (a sum exactly halfway, rounded away from zero) falls on both
sides of zero in one column (scales in simple ratios, e.g. 0.05 / 0.04 / 0.08): the direction then
depends on the sign of the whole sum, which no ``h(a) + u[b]`` reproduces; and where both inputs'
scales exceed 128x the output's (``c`` past int32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_BIG = 1 << 62
#: How far from the nearest c the search goes: 299 fits of 300 random parameter sets took the nearest
#: one (the other fitted none), so a few neighbours suffice; an operator that fits none costs
#: 2 x (2 _SPAN - 1) candidates of about 2 ms each at compile time.
_SPAN = 4


@dataclass(frozen=True)
class LinearAdd:
    #: which operand goes through c (0: input1, 1: input2); the other is the tabulated one
    linear: int
    c: int
    table: np.ndarray  # int32[256], indexed by the tabulated input's byte as unsigned


def _srdhm(x: np.ndarray, m: int) -> np.ndarray:
    """gemmlowp SaturatingRoundingDoublingHighMul, int64 lanes (|x| < 2^30: no saturation)."""
    ab = x * np.int64(m)
    num = ab + np.where(ab >= 0, np.int64(1 << 30), np.int64(1 - (1 << 30)))
    q = np.abs(num) >> 31
    return np.where(num >= 0, q, -q)


def _rdbp(x: np.ndarray, e: int) -> np.ndarray:
    """gemmlowp RoundingDivideByPOT, int64 lanes."""
    mask = np.int64((1 << e) - 1)
    threshold = (mask >> 1) + (x < 0)
    return (x >> e) + ((x & mask) > threshold)


_VALUES = np.arange(-128, 128, dtype=np.int64)


def reference_table(offsets: tuple[int, int], multipliers: tuple[int, int, int], shifts: tuple[int, int, int],
                    output_offset: int, act: tuple[int, int]) -> np.ndarray:
    """TFLite's int8 ADD on every pair: [a + 128, b + 128] -> output (a: input1, b: input2 values)."""
    g1 = _rdbp(_srdhm((_VALUES + offsets[0]) << 20, multipliers[0]), -shifts[0])
    g2 = _rdbp(_srdhm((_VALUES + offsets[1]) << 20, multipliers[1]), -shifts[1])
    x = g1[:, None] + g2[None, :]
    out = _rdbp(_srdhm(x, multipliers[2]), -shifts[2]) + output_offset
    return np.clip(out, act[0], act[1])


def _kernel(c: int, table: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, bool]:
    """The kernel's arithmetic on every pair [a + 128, b + 128] (table indexed by b + 128 here), and
    whether a sum overflows int32."""
    s = ((np.int64(c) * (_VALUES << 8)) >> 16)[:, None] + table[None, :]
    overflow = bool(np.any(s >= (1 << 31)) or np.any(s < -(1 << 31)))
    return np.clip(s >> 16, lo, hi), overflow


def _fit(ref: np.ndarray, lo: int, hi: int, c: int) -> np.ndarray | None:
    """u (by b + 128) with clamp((h(a) + u[b]) >> 16) == ref[a, b] for every pair, or None."""
    h = ((np.int64(c) * (_VALUES << 8)) >> 16)[:, None]
    low = np.where(ref == lo, -_BIG, ref << 16) - h
    high = np.where(ref == hi, _BIG, (ref + 1) << 16) - h
    lower, upper = low.max(axis=0), high.min(axis=0)
    if np.any(lower >= upper):
        return None
    u = np.where(lower > -_BIG // 2, lower, upper - 1)
    if np.any(np.abs(u) >= (1 << 31)):
        return None
    return u


def fit_linear_add(ref: np.ndarray, scales: tuple[float, float], output_scale: float, sub: bool, lo: int,
                   hi: int, bias: int = 128) -> LinearAdd | None:
    """(c, u) for ``ref`` (reference_table's layout), the larger-scale input linear first; None if none fits.
    bias: what the table adds to each result (128: arm_dsp's USAT16 form; 0: arm_mve's, which clamps the
    int32 lanes to [lo, hi] and stores their low bytes)."""
    order = (0, 1) if scales[0] >= scales[1] else (1, 0)
    for lin in order:
        r = (ref if lin == 0 else ref.T) + bias  # [linear value, tabulated value]
        real = scales[lin] / output_scale * (-1.0 if sub and lin == 1 else 1.0)
        c0 = int(round(real * (1 << 24)))
        for d in range(_SPAN):
            for c in (c0 + d, c0 - d) if d else (c0,):
                if not -(1 << 31) < c < (1 << 31):
                    continue
                u = _fit(r, lo + bias, hi + bias, c)
                if u is None:
                    continue
                got, overflow = _kernel(c, u, lo + bias, hi + bias)
                if overflow or not np.array_equal(got, r):
                    continue
                table = np.roll(u, -128).astype(np.int32)  # index: the byte as unsigned
                return LinearAdd(lin, c, table)
    return None
