"""RESHAPE and SQUEEZE as a copy.

The graph passes turn most reshapes into aliases (passes/aliases.py: the output shares the input's
storage). One that stays as an operator, e.g. a model input reshaped straight into a model output
(two caller buffers), copies the bytes, as TFLite's reshape.cc does (no requantization). RESHAPE's
optional second input (the shape tensor, constant or a model input) is not read: shapes are static.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_counts, fail, out_tensor, register, tensor
from .call import In, Lit, Out, Prepared, call


@register("RESHAPE", "SQUEEZE")
class Reshape(OpHandler):
    supported = "any dtype (byte copy; shape input ignored, shapes are static)"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, (1, 2) if op.op == "RESHAPE" else 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        if x.dtype != out.dtype:
            raise fail(op, f"input is {x.dtype} but output is {out.dtype}")
        if x.size != out.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} have different sizes")
        shape = g.input_tensor(op, 1)
        if shape is not None:
            if shape.dtype not in ("int32", "int64"):
                raise fail(op, f"shape tensor #{shape.index} is {shape.dtype}; expected int32")
            if shape.is_const:
                want = [int(v) for v in np.asarray(shape.data).ravel()]
                if -1 in want:   # one free dimension, as reshape.cc resolves it
                    known = int(np.prod([v for v in want if v != -1])) if len(want) > 1 else 1
                    if known and want.count(-1) == 1:
                        want[want.index(-1)] = x.size // known
                if len(want) and want != list(out.shape):
                    raise fail(op, f"shape tensor {want} does not match the output shape {list(out.shape)}")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        out = out_tensor(g, op)
        if out.nbytes == 0:
            return Prepared()
        return Prepared([call("utvm_copy", In(0), Out(0), Lit(out.nbytes, "size_t"))])
