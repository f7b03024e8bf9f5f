"""CUMSUM: float32, int32, int64 (TFLite cumsum.cc / reference_ops::CumSum), int8 (TFLite Micro
cumsum.cc: TFLite 2.14 has no int8 CUMSUM), constant axis, exclusive and reverse. float32 adds in the
reference's order: bit-exact.

int8 prepare work (TFLM CalculateOpData), in double as there: left_shift 20, twice_max_input_scale
2 s_in, input multiplier s_in / (2 s_in) = 1/2, output multiplier 2 s_in / (2^20 s_out), both through
QuantizeMultiplierSmallerThanOneExp (the output ratio must be below 1: TFLM aborts otherwise)."""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import UnrepresentableMultiplier
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call
from .elementwise import quantize_multiplier_lt1
from .movement import axis_of, check_shape, ints

_LEFT_SHIFT = 20   # TFLM cumsum.cc kCumSumIntegerShift


def _lt1(op: Operator, real: float, what: str) -> tuple[int, int]:
    try:
        mult, shift = quantize_multiplier_lt1(real)
    except UnrepresentableMultiplier:
        shift = 1
    if shift > 0:   # TFLite: TFLITE_CHECK_LT(real, 1.) and TFLITE_CHECK_LE(shift, 0)
        raise fail(op, f"the {what} rescale factor {real:.6g} must be below 1 (TFLite Micro aborts otherwise)")
    return mult, shift


def s8_params(op: Operator, x: Tensor, y: Tensor) -> dict:
    for t, role in ((x, "input"), (y, "output")):
        expect_quant(op, t, role)
        if not (t.quant.s > 0 and np.isfinite(t.quant.s)):
            raise fail(op, f"{role} tensor #{t.index} '{t.name}' scale must be positive and finite")
    s_in, s_out = float(np.float32(x.quant.s)), float(np.float32(y.quant.s))
    twice = 2.0 * s_in
    mi, ei = _lt1(op, s_in / twice, "input")
    mo, eo = _lt1(op, twice / ((1 << _LEFT_SHIFT) * s_out), "output")
    return {"left_shift": _LEFT_SHIFT, "input_offset": -x.quant.zp, "input_multiplier": mi, "input_shift": ei,
            "output_offset": y.quant.zp, "output_multiplier": mo, "output_shift": eo, "act_min": -128, "act_max": 127}


@register("CUMSUM")
class CumSum(OpHandler):
    supported = "float32, int32, int64, int8 (TFLite Micro's rescaled sum); constant axis; exclusive, reverse"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int32", "int64", "int8"), "input")
        expect_dtype(op, y, (x.dtype,), "output")
        ax = ints(op, g, 1, "axis", ("int32",))
        if len(ax) != 1 or len(x.shape) < 1:
            raise fail(op, "axis must be a single value and the input at least 1-D")
        axis = axis_of(op, ax[0], len(x.shape))
        check_shape(op, y, x.shape)
        q = s8_params(op, x, y) if x.dtype == "int8" else None
        if y.size == 0:
            return Prepared()
        p = Params("utvm_cumsum_params", {
            "outer": int(np.prod(x.shape[:axis], dtype=np.int64)), "axis": x.shape[axis],
            "inner": int(np.prod(x.shape[axis + 1:], dtype=np.int64)),
            "exclusive": int(bool(op.options.get("exclusive", False))),
            "reverse": int(bool(op.options.get("reverse", False)))})
        if q is not None:
            return Prepared([call("utvm_cumsum_s8", p, Params("utvm_cumsum_s8_params", q, "quant"), In(0), Out(0))],
                            macs=y.size)
        return Prepared([call(f"utvm_cumsum_{dtype_suffix(x.dtype)}", p, In(0), Out(0))], macs=y.size)
