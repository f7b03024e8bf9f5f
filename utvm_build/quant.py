"""Compile-time quantization arithmetic with TensorFlow Lite's exact semantics.

The C kernels only see the integers computed here (multipliers, shifts, folded offsets), so an int8
model needs no floating point on the target. Where TFLite computes a product in float32 before
widening to double, the callers must do the same (``np.float32(a) * np.float32(b)``): bit-exactness
depends on it.
"""

from __future__ import annotations

import math

import numpy as np

from .errors import UnsupportedError

ACT_RANGES = {"NONE", "RELU", "RELU6", "RELU_N1_TO_1"}


#: Largest |real multiplier| the kernels accept: shift <= 30, as TFLite's MultiplyByQuantizedMultiplier
#: requires (a left shift by 31 or more overflows int32 there).
MAX_MULTIPLIER = float(1 << 30)
#: The same for the int64 MultiplyByQuantizedMultiplier of the 16x8 kernels: 15 - shift >= 1.
MAX_MULTIPLIER_64 = float(1 << 14)


class UnrepresentableMultiplier(UnsupportedError):
    """A rescale factor (a ratio of quantization scales) that no int32 multiplier and shift express."""


def tflite_round(x: float) -> int:
    """std::round: halves away from zero. Where the reference would convert a value beyond int32
    (undefined in C++: a scale ratio overflowed), raise UnrepresentableMultiplier."""
    if not abs(x) < 2.0**31:
        raise UnrepresentableMultiplier(f"the quantized value {x:.6g} (from the quantization scales) does not "
                                        "fit in int32")
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def check_multiplier(real: float, max_real: float = MAX_MULTIPLIER) -> None:
    if not math.isfinite(real) or abs(real) >= max_real:
        raise UnrepresentableMultiplier(f"the rescale factor {real:.6g} (from the quantization scales) is "
                                        f"not representable: it must be finite and below {max_real:.6g} "
                                        "in magnitude")


def quantize_multiplier(real: float, max_real: float = MAX_MULTIPLIER) -> tuple[int, int]:
    """TFLite QuantizeMultiplier: real ~= multiplier * 2^(shift - 31), multiplier in [2^30, 2^31).

    Raises UnrepresentableMultiplier when ``real`` is not finite or not below ``max_real``.
    """
    check_multiplier(real, max_real)
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = tflite_round(q * (1 << 31))
    assert q_fixed <= (1 << 31)
    if q_fixed == (1 << 31):
        q_fixed //= 2
        shift += 1
    if shift < -31:
        shift, q_fixed = 0, 0
    return int(q_fixed), int(shift)


def quantize_multipliers(reals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized quantize_multiplier: (int32 multipliers, int32 shifts)."""
    pairs = [quantize_multiplier(float(r)) for r in np.asarray(reals, dtype=np.float64).ravel()]
    return (np.array([p[0] for p in pairs], dtype=np.int32), np.array([p[1] for p in pairs], dtype=np.int32))


def dtype_range(dtype: str) -> tuple[int, int]:
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def activation_range_quantized(act: str, dtype: str, scale: float, zero_point: int) -> tuple[int, int]:
    """TFLite CalculateActivationRangeQuantized: the clamp bounds of a fused activation."""
    qmin, qmax = dtype_range(dtype)

    def q(x: float) -> int:
        return zero_point + tflite_round(float(np.float32(x) / np.float32(scale)))

    if act == "NONE":
        return qmin, qmax
    if act == "RELU":
        return max(qmin, q(0.0)), qmax
    if act == "RELU6":
        return max(qmin, q(0.0)), min(qmax, q(6.0))
    if act == "RELU_N1_TO_1":
        return max(qmin, q(-1.0)), min(qmax, q(1.0))
    raise ValueError(act)


def activation_range_float(act: str) -> tuple[float, float]:
    """TFLite CalculateActivationRange for float kernels."""
    inf = float(np.finfo(np.float32).max)
    return {"NONE": (-inf, inf), "RELU": (0.0, inf), "RELU6": (0.0, 6.0),
            "RELU_N1_TO_1": (-1.0, 1.0)}[act]
