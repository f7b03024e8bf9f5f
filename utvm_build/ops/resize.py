"""RESIZE_BILINEAR: float32, int8, int16 (TFLite resize_bilinear.cc, reference kernels).

The per-row and per-column source indices and weights are computed here exactly as the
reference computes them for every pixel (ComputeInterpolationValues in float32 arithmetic;
ComputeInterpolationValuesInteger in 10-bit fixed point with C's truncating division), so the
C only interpolates. RESIZE_NEAREST_NEIGHBOR is a table copy (ops/movement.py).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Out, Params, Prepared, call
from .movement import check_shape, ints

f32 = np.float32


def _tdiv(a: int, b: int) -> int:
    """C/C++ integer division (truncation toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def float_axis(out_size: int, in_size: int, align: bool, half: bool):
    scale = f32(in_size) / f32(out_size)
    if align and out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1)
    idx, w = [], []
    for v in range(out_size):
        s = (f32(v) + f32(0.5)) * scale - f32(0.5) if half else f32(v) * scale
        lo = max(int(np.floor(s)), 0)
        hi = min(int(np.ceil(s)), in_size - 1)
        idx += [lo, hi]
        w.append(f32(s - f32(lo)))
    return np.array(idx, np.int32), np.array(w, np.float32)


def int_axis(out_size: int, in_size: int, align: bool, half: bool):
    scale = _tdiv((1 << 10) * in_size + out_size // 2, out_size)
    if align and out_size > 1:
        scale = _tdiv((1 << 10) * (in_size - 1) + (out_size - 1) // 2, out_size - 1)
    idx, w = [], []
    for v in range(out_size):
        s = v * scale + _tdiv(scale, 2) - (1 << 9) if half else v * scale
        lo = max(_tdiv(s, 1 << 10), 0)
        hi = min(_tdiv(s + (1 << 10) - 1, 1 << 10), in_size - 1)
        idx += [lo, hi]
        w.append(s - (1 << 10) * lo)
    return np.array(idx, np.int32), np.array(w, np.int32)


@register("RESIZE_BILINEAR")
class ResizeBilinear(OpHandler):
    supported = "float32, int8, int16; align_corners or half_pixel_centers; constant size"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int8", "int16"), "input")
        expect_dtype(op, y, (x.dtype,), "output")
        size = ints(op, g, 1, "size", ("int32",))
        if len(x.shape) != 4 or len(size) != 2 or min(size) < 1:
            raise fail(op, f"input must be 4-D and size two positive values, got {list(x.shape)} and {size}")
        align = bool(op.options.get("align_corners", False))
        half = bool(op.options.get("half_pixel_centers", False))
        if align and half:
            raise fail(op, "align_corners and half_pixel_centers cannot both be set (the reference rejects it)")
        b, h, w, c = x.shape
        check_shape(op, y, [b, size[0], size[1], c])
        if y.size == 0:
            return Prepared()
        if max(h, w) >= (1 << 20) or max(size) >= (1 << 20):
            raise fail(op, "spatial sizes must be below 2^20 (10-bit fixed point in int32)")
        axis = float_axis if x.dtype == "float32" else int_axis
        ry, wy = axis(size[0], h, align, half)
        rx, wx = axis(size[1], w, align, half)
        ct = "float" if x.dtype == "float32" else "int32_t"
        p = Params("utvm_resize_bilinear_params", {"batch": b, "in_h": h, "in_w": w, "out_h": size[0],
                                                   "out_w": size[1], "depth": c})
        return Prepared([call(f"utvm_resize_bilinear_{dtype_suffix(x.dtype)}", p, Const("rows", ry, "int32_t"),
                              Const("wy", wy, ct), Const("cols", rx, "int32_t"), Const("wx", wx, ct),
                              In(0), Out(0))], macs=4 * y.size)
