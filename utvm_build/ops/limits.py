"""Bounds that keep a quantized kernel's integer arithmetic defined for every input.

TFLite's reference kernels accumulate ``bias + sum(w * (x - zp))`` in int32 (int8) or int64 (16x8)
and rescale with MultiplyByQuantizedMultiplier; with an absurd bias or rescale factor they
overflow (undefined behaviour in C) for some inputs. The worst case is known at compile time from
the constant weights and bias, so such operators are rejected here, naming the tensors, instead of
generating C whose result depends on the compiler. Real models are far from these bounds.
"""

from __future__ import annotations

import numpy as np

from ..graph import Operator, Tensor
from .base import fail

INT32_MAX = (1 << 31) - 1
#: The int64 MultiplyByQuantizedMultiplier multiplies the accumulator by up to 2^15.
INT64_ACC_MAX = (1 << 47) - 1
#: Head room for the output zero point added after the rescale (|zp| <= 2^15).
_ZP_ROOM = 1 << 16


def input_span(x: Tensor) -> int:
    """Largest |x - zero_point| of the input's type."""
    lo, hi = {"int8": (-128, 127), "int16": (-32768, 32767)}[x.dtype]
    zp = x.quant.zp if x.quant is not None else 0
    return max(abs(lo - zp), abs(hi - zp))


def check_accumulators(op: Operator, x: Tensor, w: Tensor, bias: Tensor | None, abs_weight_sums: np.ndarray,
                       reals: np.ndarray) -> None:
    """``abs_weight_sums[c]``: sum of |w| feeding output channel c; ``reals[c]``: its rescale factor.

    int8 (int32 accumulator, the input offset folded into the bias): |bias| + 256 * sum|w| must fit
    int32 (any order of the partial sums then stays in range), and after the rescale the value plus
    the output zero point too. 16x8 (int64 accumulators in the kernels, also where the reference
    narrows to int32): below 2^47, so that the int64 rescale's product by 2^15 fits.
    """
    span = 256 if x.dtype == "int8" else input_span(x)
    b = np.zeros(len(abs_weight_sums), dtype=object)
    if bias is not None and bias.data is not None:
        b = np.abs(bias.data.astype(object).reshape(-1))
    bound = b + np.asarray(abs_weight_sums, dtype=object) * span
    limit = INT32_MAX if x.dtype == "int8" else INT64_ACC_MAX
    worst = int(np.argmax(bound))
    if int(bound[worst]) > limit:
        what = f"bias tensor #{bias.index} '{bias.name}' and " if bias is not None else ""
        raise fail(op, f"{what}weights tensor #{w.index} '{w.name}': the accumulator of output channel {worst} "
                       f"can reach {int(bound[worst])}, beyond the {limit.bit_length()}-bit range of the "
                       "reference arithmetic")
    if x.dtype != "int8":   # 16x8: the output zero point is 0; the int64 -> int32 narrowing is defined
        return
    scaled = [float(bound[c]) * abs(float(reals[c])) for c in range(len(bound))]
    worst = int(np.argmax(scaled))
    if scaled[worst] >= INT32_MAX - _ZP_ROOM:
        raise fail(op, f"weights tensor #{w.index} '{w.name}': output channel {worst} rescales its accumulator "
                       f"to up to {scaled[worst]:.4g}, beyond int32 (the output scale is too small)")


def check_window_extent(op: Operator, in_size: int, out_size: int, filt: int, stride: int, dilation: int,
                        pad: int, axis: str) -> None:
    """Every index a windowed kernel computes (``o * stride - pad + k * dilation`` over the output,
    ``i * stride - pad`` over the input of a transposed convolution) must fit int32."""
    reach = max(out_size, in_size) * stride + filt * dilation + pad + max(in_size, out_size)
    if reach >= INT32_MAX or pad >= INT32_MAX:
        raise fail(op, f"{axis}: stride {stride}, dilation {dilation} and filter size {filt} reach index "
                       f"{reach}, beyond int32")
