"""ARG_MAX and ARG_MIN: float32, int8, int32, uint8, bool inputs; int32 or int64 output (TFLite semantics).

tflite-runtime 2.14's arg_min_max.cc (one kernel for the reference and optimized resolvers) takes a
one-element int32 or int64 axis (negative counts from the end), an input of rank >= 1 and writes
the index of the first maximum / minimum along the axis (reference_ops::ArgMinMax with
std::greater / std::less). TFLite Micro runs float32 and int8 inputs with int32 axis and output;
the other types are TFLite's. The quantization of int8 inputs does not matter (indices only).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_const, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import In, Null, Out, Params, Prepared, call

_INPUTS = {"float32": "f32", "int8": "s8", "int32": "s32", "uint8": "u8", "bool": "u8"}


@register("ARG_MAX", "ARG_MIN")
class ArgMinMax(OpHandler):
    supported = "float32, int8, int32, uint8, bool input; int32 or int64 output; constant int32/int64 axis"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, axis, out = tensor(g, op, 0), tensor(g, op, 1, "axis"), out_tensor(g, op)
        expect_dtype(op, x, tuple(_INPUTS), "input")
        expect_dtype(op, axis, ("int32", "int64"), "axis")
        expect_dtype(op, out, ("int32", "int64"), "output")
        data = np.asarray(expect_const(op, axis, "axis")).ravel()
        if data.size != 1:
            raise fail(op, f"axis tensor #{axis.index} '{axis.name}' must hold one value, it has {data.size}")
        rank = len(x.shape)
        if rank == 0:
            raise fail(op, "the input must have at least one dimension")
        a = int(data[0])
        r = a + rank if a < 0 else a
        if not 0 <= r < rank:
            raise fail(op, f"axis {a} is out of range for a rank-{rank} input")
        want = x.shape[:r] + x.shape[r + 1:]
        if tuple(out.shape) != tuple(want):
            raise fail(op, f"output {list(out.shape)} does not match {list(want)} (the input without axis {a})")
        if x.size == 0:
            raise fail(op, "empty input tensors are not supported")
        outer = int(np.prod(x.shape[:r], dtype=np.int64))
        inner = int(np.prod(x.shape[r + 1:], dtype=np.int64))
        p = Params("utvm_arg_params", {"outer": outer, "axis_size": x.shape[r], "inner": inner,
                                       "is_max": int(op.op == "ARG_MAX")})
        outs = (Out(0), Null()) if out.dtype == "int32" else (Null(), Out(0))
        return Prepared([call(f"utvm_arg_min_max_{_INPUTS[x.dtype]}", p, In(0), *outs)])
