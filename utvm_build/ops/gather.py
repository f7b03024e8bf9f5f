"""GATHER, GATHER_ND, EMBEDDING_LOOKUP (plain and hybrid) and DYNAMIC_UPDATE_SLICE.

Indices that are constants are checked here and become offset tables (ops/movement.py: no
run-time check is needed). Indices computed at run time (model inputs) are untrusted: the
kernels never read outside the params. Where the reference fails the invocation on an
out-of-range index (GATHER, GATHER_ND, EMBEDDING_LOOKUP), our C writes that slice as zero bytes
(float +0.0) and keeps going; DYNAMIC_UPDATE_SLICE clamps its start exactly as the reference does.
See docs/operators/shape.md.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Out, Params, Prepared, call
from .movement import ALL, check_shape, gather_call, strides

_IDX = ("int32", "int64")


def _prod(v) -> int:
    return int(np.prod([int(d) for d in v], dtype=np.int64))


@register("GATHER")
class Gather(OpHandler):
    supported = "int8, int16, int32, int64, float32, bool params; int32/int64 indices; axis, batch_dims"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, idx, y = tensor(g, op, 0), tensor(g, op, 1, "indices"), out_tensor(g, op)
        expect_dtype(op, x, ALL, "params")
        expect_dtype(op, idx, _IDX, "indices")
        expect_dtype(op, y, (x.dtype,), "output")
        rank, irank = len(x.shape), len(idx.shape)
        axis = int(op.options.get("axis", 0))
        bd = int(op.options.get("batch_dims", 0))
        axis = axis + rank if axis < 0 else axis
        bd = bd + irank if bd < 0 else bd
        if not 0 <= axis < rank or not 0 <= bd <= min(axis, irank):
            raise fail(op, f"axis {op.options.get('axis', 0)} / batch_dims {op.options.get('batch_dims', 0)} "
                           f"are out of range for params rank {rank} and indices rank {irank}")
        if list(x.shape[:bd]) != list(idx.shape[:bd]):
            raise fail(op, f"params {list(x.shape)} and indices {list(idx.shape)} differ in the batch dimensions")
        want = list(x.shape[:axis]) + list(idx.shape[bd:]) + list(x.shape[axis + 1:])
        check_shape(op, y, want)
        if y.size == 0:
            return Prepared()
        batch, outer = _prod(x.shape[:bd]), _prod(x.shape[bd:axis])
        coords, inner, n = _prod(idx.shape[bd:]), _prod(x.shape[axis + 1:]), x.shape[axis]
        if idx.is_const:
            vals = np.asarray(idx.data).astype(np.int64).reshape(batch, coords)
            if vals.size and (vals.min() < 0 or vals.max() >= n):
                raise fail(op, f"constant index {int(vals.min() if vals.min() < 0 else vals.max())} is outside "
                               f"[0, {n}) (the reference fails on it)")
            st = strides([batch, outer, n, inner])
            if batch == 1:
                tabs = [np.arange(outer) * st[1], vals[0] * st[2], np.arange(inner)]
            elif outer == 1:   # batch_dims == axis: row b picks from batch b
                tabs = [(np.arange(batch)[:, None] * st[0] + vals * st[2]).ravel(), np.arange(inner)]
            else:
                return Prepared([self._runtime(batch, outer, coords, n, inner, x, idx)])
            return Prepared([gather_call(op, x, tabs)])
        return Prepared([self._runtime(batch, outer, coords, n, inner, x, idx)])

    @staticmethod
    def _runtime(batch, outer, coords, n, inner, x, idx):
        p = Params("utvm_gather_params", {
            "batch": batch, "outer": outer, "coords": coords, "axis_size": n,
            "inner_bytes": inner * np.dtype(x.dtype).itemsize, "index_size": np.dtype(idx.dtype).itemsize})
        return call("utvm_gather", p, In(0), In(1), Out(0))


@register("GATHER_ND")
class GatherNd(OpHandler):
    supported = "int8, int16, int32, int64, float32 params; int32/int64 indices"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, idx, y = tensor(g, op, 0), tensor(g, op, 1, "indices"), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "int32", "int64", "float32"), "params")
        expect_dtype(op, idx, _IDX, "indices")
        expect_dtype(op, y, (x.dtype,), "output")
        if len(idx.shape) < 1 or len(x.shape) < 1:
            raise fail(op, "params and indices must have at least 1 dimension")
        nd = idx.shape[-1]
        if not 1 <= nd <= min(len(x.shape), 6):
            raise fail(op, f"index depth {nd} must be 1..{min(len(x.shape), 6)} (params rank {len(x.shape)})")
        check_shape(op, y, list(idx.shape[:-1]) + list(x.shape[nd:]))
        if y.size == 0:
            return Prepared()
        total = x.size
        counts, rem = [], total
        for d in range(nd):
            rem //= x.shape[d] if x.shape[d] else 1
            counts.append(rem)
        p = Params("utvm_gather_nd_params", {
            "slices": _prod(idx.shape[:-1]), "nd": nd, "slice_elems": _prod(x.shape[nd:]), "total_elems": total,
            "elem_size": np.dtype(x.dtype).itemsize, "index_size": np.dtype(idx.dtype).itemsize,
            "dims_to_count": counts + [0] * (6 - nd)})
        return Prepared([call("utvm_gather_nd", p, In(0), In(1), Out(0))])


@register("EMBEDDING_LOOKUP")
class EmbeddingLookup(OpHandler):
    supported = ("float32, int8 rows (copy); int8 rows with float32 output (hybrid, per-tensor "
                 "scale); int32 lookups")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        ids, v, y = tensor(g, op, 0, "lookup"), tensor(g, op, 1, "value"), out_tensor(g, op)
        expect_dtype(op, ids, ("int32",), "lookup")
        if len(ids.shape) != 1 or len(v.shape) < 2:
            raise fail(op, f"lookup must be 1-D and value at least 2-D, got {list(ids.shape)} and {list(v.shape)}")
        check_shape(op, y, [ids.shape[0]] + list(v.shape[1:]))
        hybrid = v.dtype == "int8" and y.dtype == "float32"
        if not hybrid:
            expect_dtype(op, v, ("float32", "int8"), "value")
            expect_dtype(op, y, (v.dtype,), "output")
        if y.size == 0:
            return Prepared()
        rows, cols = v.shape[0], _prod(v.shape[1:])
        if not hybrid:
            if ids.is_const:
                r = np.asarray(ids.data).astype(np.int64)
                if r.size and (r.min() < 0 or r.max() >= rows):
                    raise fail(op, f"constant lookup index outside [0, {rows})")
                return Prepared([gather_call(op, v, [r * cols, np.arange(cols)], k_in=1)])
            p = Params("utvm_gather_params", {"batch": 1, "outer": 1, "coords": ids.shape[0], "axis_size": rows,
                                              "inner_bytes": cols * np.dtype(v.dtype).itemsize, "index_size": 4})
            return Prepared([call("utvm_gather", p, In(1), In(0), Out(0))])
        if v.quant is None:
            raise fail(op, f"int8 value tensor #{v.index} '{v.name}' has no scale (hybrid lookup needs one)")
        scales = np.asarray(v.quant.scale, dtype=np.float32).ravel()
        per_row = len(scales) > 1
        if per_row:
            # tflite-runtime 2.14's EvalHybrid reads only params.scale, which is 0 for a per-channel
            # tensor: it outputs zeros. Rather than reproduce that, such a table is refused.
            raise fail(op, f"value tensor #{v.index} '{v.name}' has per-row scales; the 2.14 reference hybrid "
                           "lookup supports one scale per tensor")
        p = Params("utvm_embedding_hybrid_params", {"lookups": ids.shape[0], "rows": rows, "cols": cols,
                                                    "per_row": int(per_row)})
        return Prepared([call("utvm_embedding_lookup_hybrid", p, In(0), In(1), Const("scales", scales, "float"),
                              Out(0))])


@register("DYNAMIC_UPDATE_SLICE")
class DynamicUpdateSlice(OpHandler):
    supported = "int8, int16, int32, int64, float32, bool; int32 start indices (clamped as the reference)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 3)
        x, u, s, y = tensor(g, op, 0), tensor(g, op, 1, "update"), tensor(g, op, 2, "start"), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "int32", "int64", "float32", "bool"), "operand")
        expect_dtype(op, u, (x.dtype,), "update")
        expect_dtype(op, s, ("int32",), "start")
        expect_dtype(op, y, (x.dtype,), "output")
        rank = len(x.shape)
        if rank > 6 or len(u.shape) != rank or list(s.shape) != [rank]:
            raise fail(op, f"operand {list(x.shape)}, update {list(u.shape)} and start {list(s.shape)} must agree in "
                           "rank (at most 6)")
        if any(a < b for a, b in zip(x.shape, u.shape)):
            raise fail(op, f"update {list(u.shape)} is larger than the operand {list(x.shape)}")
        check_shape(op, y, x.shape)
        if y.size == 0:
            return Prepared()
        pad = 6 - rank
        p = Params("utvm_dynamic_update_slice_params", {
            "rank": rank, "in_dims": [1] * pad + list(x.shape), "upd_dims": [1] * pad + list(u.shape),
            "elem_size": np.dtype(x.dtype).itemsize, "index_size": np.dtype(s.dtype).itemsize})
        return Prepared([call("utvm_dynamic_update_slice", p, In(0), In(1), In(2), Out(0))])


__all__ = ["strides"]
