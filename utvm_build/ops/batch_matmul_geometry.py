"""BATCH_MATMUL's shapes: broadcast batch dimensions, element strides for adj_x / adj_y, the RHS
operand (stored transposed when constant). Shared by the integer/float handler and the hybrid one
(ops/hybrid.py), below both."""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from .base import fail, out_tensor, tensor
from .call import Const, In, Operand

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
