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

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import MAX_MULTIPLIER, MAX_MULTIPLIER_64, dtype_range, quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import Const, In, Operand, Out, Params, Prepared, call
from .fully_connected import conv_multiplier

#: depth limits: int8 sums of (255 x 255) products in int32; int16 sums below 2^47 (the int64
#: MultiplyByQuantizedMultiplier's stated input range)
MAX_DEPTH_S8 = (1 << 31) // (255 * 255) - 1
MAX_DEPTH_S16 = (1 << 47) // (1 << 30) - 1


def geometry(op: Operator, g: Graph) -> dict:
    """Shapes, broadcast batch dims and element strides; raises on mismatches."""
    lhs, rhs, out = tensor(g, op, 0, "lhs"), tensor(g, op, 1, "rhs"), out_tensor(g, op)
    adj_x, adj_y = bool(op.options.get("adj_x", False)), bool(op.options.get("adj_y", False))
    for t, role in ((lhs, "lhs"), (rhs, "rhs")):
        if not 2 <= len(t.shape) <= 5:
            raise fail(op, f"{role} tensor #{t.index} '{t.name}' has rank {len(t.shape)}; ranks 2 to 5 are supported")
    if adj_x and len(lhs.shape) > 2 and len(rhs.shape) > 2 and rhs.shape[-3] == 1:
        # batch_matmul.cc Eval merges lhs [.., Q, R, S] into [.., Q*R, S] when the rhs has a 1 there,
        # ignoring adj_x: the reference then reads a wrong (or uninitialized) transposed lhs
        raise fail(op, "adj_x with a rank > 2 rhs whose third-to-last dimension is 1 is not supported (the "
                       "reference merges the lhs dimensions as if adj_x were false)")
    lb, rb = list(lhs.shape[:-2]), list(rhs.shape[:-2])
    m, k = (lhs.shape[-1], lhs.shape[-2]) if adj_x else (lhs.shape[-2], lhs.shape[-1])
    k2, n = (rhs.shape[-1], rhs.shape[-2]) if adj_y else (rhs.shape[-2], rhs.shape[-1])
    if k != k2:
        raise fail(op, f"lhs {list(lhs.shape)} (adj_x {adj_x}) and rhs {list(rhs.shape)} (adj_y {adj_y}) "
                       "do not share the accumulation dimension")
    lb5, rb5 = [1] * (3 - len(lb)) + lb, [1] * (3 - len(rb)) + rb
    batch = []
    for a, b in zip(lb5, rb5):
        if a != b and a != 1 and b != 1:
            raise fail(op, f"batch dimensions of {list(lhs.shape)} and {list(rhs.shape)} do not broadcast")
        batch.append(b if a == 1 else a)
    want = batch[3 - max(len(lb), len(rb)):] + [m, n]
    if list(out.shape) != want:
        raise fail(op, f"output {list(out.shape)} does not match the computed {want}")
    if min(m, n, k, *batch) <= 0:
        raise fail(op, "empty tensors are not supported")

    def ext(dims: list[int]) -> list[int]:
        out_ext, size = [0, 0, 0], m * k if dims is lb5 else k * n
        for d in range(2, -1, -1):
            out_ext[d] = 0 if dims[d] == 1 else size
            size *= dims[d]
        return out_ext

    return {"batch": batch, "lhs_ext": ext(lb5), "rhs_ext": ext(rb5), "rows": m, "cols": n, "depth": k,
            "lhs_row_stride": 1 if adj_x else k, "lhs_depth_stride": m if adj_x else 1,
            "rhs_depth_stride": 1 if adj_y else n, "rhs_col_stride": k if adj_y else 1}


def rhs_operand(op: Operator, rhs: Tensor, geo: dict) -> tuple[Operand, dict]:
    """The RHS argument: a constant non-adjoint RHS becomes its transpose ([.., N, K]) in flash."""
    if rhs.data is None or rhs.is_variable or op.options.get("adj_y", False):
        return In(1), geo
    t = np.ascontiguousarray(np.swapaxes(rhs.data, -1, -2))
    ctype = {"float32": "float", "int8": "int8_t", "int16": "int16_t"}[rhs.dtype]
    return Const("rhs_t", t, ctype), {**geo, "rhs_depth_stride": 1, "rhs_col_stride": geo["depth"]}


@register("BATCH_MATMUL")
class BatchMatMul(OpHandler):
    supported = ("float32, int8, int16 (16x16, zero points 0); adj_x/adj_y, broadcast batch dims (ranks 2-5); "
                 "float32 x constant int8 (hybrid)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        lhs, rhs, out = tensor(g, op, 0, "lhs"), tensor(g, op, 1, "rhs"), out_tensor(g, op)
        if lhs.dtype == "float32" and rhs.dtype == "int8":
            from .hybrid import prepare_hybrid_bmm

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
