"""CUMSUM: float32, int32, int64 (TFLite cumsum.cc / reference_ops::CumSum), constant axis,
exclusive and reverse. float32 adds in the reference's order: bit-exact."""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call
from .movement import axis_of, check_shape, ints


@register("CUMSUM")
class CumSum(OpHandler):
    supported = "float32, int32, int64; constant axis; exclusive, reverse"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int32", "int64"), "input")
        expect_dtype(op, y, (x.dtype,), "output")
        ax = ints(op, g, 1, "axis", ("int32",))
        if len(ax) != 1 or len(x.shape) < 1:
            raise fail(op, "axis must be a single value and the input at least 1-D")
        axis = axis_of(op, ax[0], len(x.shape))
        check_shape(op, y, x.shape)
        if y.size == 0:
            return Prepared()
        p = Params("utvm_cumsum_params", {
            "outer": int(np.prod(x.shape[:axis], dtype=np.int64)), "axis": x.shape[axis],
            "inner": int(np.prod(x.shape[axis + 1:], dtype=np.int64)),
            "exclusive": int(bool(op.options.get("exclusive", False))),
            "reverse": int(bool(op.options.get("reverse", False)))})
        return Prepared([call(f"utvm_cumsum_{dtype_suffix(x.dtype)}", p, In(0), Out(0))], macs=y.size)
