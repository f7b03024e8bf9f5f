"""BATCH_MATMUL: float32, int8, int16 (zero points 0); adj_x / adj_y; broadcast batch dimensions
(ranks 2 to 5); float32 LHS with a constant int8 RHS is the hybrid kernel (ops/hybrid.py).

tflite-runtime 2.14's batch_matmul.cc (reference kernel): the output is
``out[b][m][n] = sum_k lhs[b][m][k] * rhs[b][k][n]`` with the batch dimensions broadcast; it
transposes the RHS (once, when constant) and calls reference_ops::BatchMatMul with the operands
swapped. Here every transposition is a stride (kernels/batch_matmul.h), and a constant RHS is
stored transposed at code generation so its inner loop is contiguous.

int8: ``(lhs - lhs_zp) * (rhs - rhs_zp)`` summed in int32, ``MultiplyByQuantizedMultiplier`` with
``QuantizeMultiplier(float(lhs_scale * rhs_scale) / output_scale)``; int16: zero points 0, int64
sums and the int64 MultiplyByQuantizedMultiplier. No fused activation (the full output range).
"""

from __future__ import annotations

from ..graph import Graph, Operator
from ..quant import MAX_MULTIPLIER, MAX_MULTIPLIER_64, dtype_range, quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .batch_matmul_geometry import MAX_DEPTH_S8, MAX_DEPTH_S16, geometry, rhs_operand
from .call import In, Out, Params, Prepared, call
from .hybrid import prepare_hybrid_bmm
from .multipliers import conv_multiplier


@register("BATCH_MATMUL")
class BatchMatMul(OpHandler):
    supported = ("float32, int8, int16 (16x16, zero points 0); adj_x/adj_y, broadcast batch dims (ranks 2-5); "
                 "float32 x constant int8 (hybrid)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        lhs, rhs, out = tensor(g, op, 0, "lhs"), tensor(g, op, 1, "rhs"), out_tensor(g, op)
        if lhs.dtype == "float32" and rhs.dtype == "int8":
            return prepare_hybrid_bmm(op, g)
        expect_dtype(op, lhs, ("float32", "int8", "int16"), "lhs")
        expect_dtype(op, rhs, (lhs.dtype,), "rhs")
        expect_dtype(op, out, (lhs.dtype,), "output")
        geo = geometry(op, g)
        macs = out.size * geo["depth"]
        b, geo = rhs_operand(op, rhs, geo)
        if lhs.dtype == "float32":
            return Prepared([call("utvm_batch_matmul_f32", Params("utvm_bmm_f32_params", {"g": geo}), In(0), b,
                                  Out(0))], macs=macs)
        for t, role in ((lhs, "lhs"), (rhs, "rhs"), (out, "output")):
            expect_quant(op, t, role)
        limit = MAX_DEPTH_S8 if lhs.dtype == "int8" else MAX_DEPTH_S16
        if geo["depth"] > limit:
            raise fail(op, f"accumulation depth {geo['depth']} could overflow the accumulator; at most {limit}")
        if lhs.dtype == "int16" and (lhs.quant.zp or rhs.quant.zp or out.quant.zp):
            raise fail(op, "int16 tensors must have zero point 0")
        mult, shift = quantize_multiplier(conv_multiplier(lhs.quant.s, rhs.quant.s, out.quant.s),
                                          MAX_MULTIPLIER if lhs.dtype == "int8" else MAX_MULTIPLIER_64)
        lo, hi = dtype_range(out.dtype)
        p = Params("utvm_bmm_q_params", {"g": geo, "lhs_offset": -lhs.quant.zp, "rhs_offset": -rhs.quant.zp,
                                         "output_offset": out.quant.zp, "multiplier": mult, "shift": shift,
                                         "out_min": lo, "out_max": hi})
        sfx = "s8" if lhs.dtype == "int8" else "s16"
        return Prepared([call(f"utvm_batch_matmul_{sfx}", p, In(0), b, Out(0))], macs=macs)
