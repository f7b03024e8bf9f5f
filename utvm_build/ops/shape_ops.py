"""SHAPE, BROADCAST_ARGS, FILL, EXPAND_DIMS: shape operators that cost nothing at run time.

Shapes are static, so SHAPE is always a constant, and BROADCAST_ARGS of constant shapes and
FILL of a constant value are too: passes/fold.py turns them into constants (and EXPAND_DIMS into
an alias, passes/aliases.py). What is left for the C is only a model output (a constant copied
into the caller's buffer) and the run-time forms: BROADCAST_ARGS of shapes that are model inputs
and FILL of a value computed at run time (its dims must be constant: shapes are static).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Lit, Out, Prepared, call
from .movement import ALL, axis_of, check_shape, ints

_CTYPE = {"int32": "int32_t", "int64": "int64_t"}


def const_copy(values: np.ndarray, dtype: str) -> Prepared:
    arr = np.asarray(values).astype(dtype).ravel()
    ctype = {"int32": "int32_t", "int64": "int64_t", "int8": "int8_t", "int16": "int16_t", "float32": "float",
             "bool": "bool"}[dtype]
    if arr.size == 0:
        return Prepared()
    return Prepared([call("utvm_copy", Const("value", arr, ctype), Out(0), Lit(arr.nbytes, "size_t"))])


@register("SHAPE")
class Shape(OpHandler):
    supported = "any input; int32 or int64 output (a constant)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, y, ("int32", "int64"), "output")
        check_shape(op, y, [len(x.shape)])
        return const_copy(np.array(x.shape, np.int64), y.dtype)


def broadcast_shapes(op: Operator, a: list[int], b: list[int]) -> list[int]:
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for u, v in zip(a, b):
        if u != v and u != 1 and v != 1:
            raise fail(op, f"shapes {a} and {b} do not broadcast")
        out.append(u if v == 1 else v)
    return out


@register("BROADCAST_ARGS")
class BroadcastArgs(OpHandler):
    supported = "int32, int64 shapes (constant: folded; model inputs: computed at run time)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        a, b, y = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        expect_dtype(op, a, ("int32", "int64"), "input 0")
        expect_dtype(op, b, (a.dtype,), "input 1")
        expect_dtype(op, y, (a.dtype,), "output")
        if len(a.shape) != 1 or len(b.shape) != 1:
            raise fail(op, "both shapes must be 1-D")
        check_shape(op, y, [max(a.shape[0], b.shape[0])])
        if a.is_const and b.is_const:
            return const_copy(np.array(broadcast_shapes(op, ints(op, g, 0, "shape"), ints(op, g, 1, "shape"))),
                              y.dtype)
        if y.size == 0:
            return Prepared()
        es = np.dtype(a.dtype).itemsize
        return Prepared([call("utvm_broadcast_args", In(0), Lit(a.shape[0]), In(1), Lit(b.shape[0]), Out(0),
                              Lit(es))])


@register("FILL")
class Fill(OpHandler):
    supported = "int8, int16, int32, int64, float32, bool value; constant dims"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        v, y = tensor(g, op, 1, "value"), out_tensor(g, op)
        expect_dtype(op, v, ALL, "value")
        expect_dtype(op, y, (v.dtype,), "output")
        if v.size != 1 or len(v.shape) > 1:
            raise fail(op, f"value must be a scalar, got shape {list(v.shape)}")
        dims = ints(op, g, 0, "dims")
        if min(dims + [0]) < 0:
            raise fail(op, f"dims {dims} must not be negative")
        check_shape(op, y, dims)
        if y.size == 0:
            return Prepared()
        if v.is_const:
            return const_copy(np.full(y.size, np.asarray(v.data).ravel()[0]), y.dtype)
        return Prepared([call("utvm_fill", In(1), Out(0), Lit(y.size), Lit(np.dtype(y.dtype).itemsize))])


@register("EXPAND_DIMS")
class ExpandDims(OpHandler):
    supported = "any dtype (an alias of the input; a byte copy when it cannot be one)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, y = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, y, (x.dtype,), "output")
        ax = ints(op, g, 1, "axis")
        if len(ax) != 1:
            raise fail(op, "axis must be a single value")
        axis = axis_of(op, ax[0], len(x.shape) + 1)
        want = list(x.shape)
        want.insert(axis, 1)
        check_shape(op, y, want)
        if y.nbytes == 0:
            return Prepared()
        return Prepared([call("utvm_copy", In(0), Out(0), Lit(y.nbytes, "size_t"))])
