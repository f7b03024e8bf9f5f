"""CONCATENATION: int8, int16, int32, int64, float32, bool, any axis (TFLite concatenation.cc semantics).

concatenation.cc Prepare, which this handler mirrors:
- the fused activation must be NONE (the reference rejects any other);
- int8: every input must have exactly the output's scale and zero point (no requantization for
  int8; only the uint8 path, ConcatenationWithScaling, rescales);
- int16: every zero point must be 0; scales are *not* checked and the reference copies the raw
  values, so inputs with another scale are copied unchanged, as done here;
- a negative axis counts from the end.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Out, Params, Prepared, PtrArray, call

_DTYPES = ("int8", "int16", "int32", "int64", "float32", "bool")


def _axis(op: Operator, rank: int) -> int:
    axis = int(op.options.get("axis", 0))
    if axis < 0:
        axis += rank
    if not 0 <= axis < rank:
        raise fail(op, f"axis {op.options.get('axis', 0)} is out of range for rank {rank}")
    return axis


@register("CONCATENATION")
class Concatenation(OpHandler):
    supported = "int8 (same quantization as the output), int16, int32, int64, float32, bool; any axis"

    def validate(self, op: Operator, g: Graph) -> None:
        if len(op.inputs) < 1 or len(op.outputs) != 1:
            raise fail(op, f"expected at least 1 input and 1 output, got {len(op.inputs)} and {len(op.outputs)}")
        out = out_tensor(g, op)
        ins = [tensor(g, op, k) for k in range(len(op.inputs))]
        expect_dtype(op, ins[0], _DTYPES, "input")
        act = op.options.get("fused_activation_function", "NONE")
        if act != "NONE":
            raise fail(op, f"fused activation {act} is not supported (the reference accepts only NONE)")
        rank = len(ins[0].shape)
        axis = _axis(op, rank)
        total = 0
        for k, t in enumerate(ins):
            expect_dtype(op, t, (ins[0].dtype,), f"input {k}")
            if len(t.shape) != rank or any(t.shape[d] != ins[0].shape[d] for d in range(rank) if d != axis):
                raise fail(op, f"input {k} shape {list(t.shape)} does not match input 0 {list(ins[0].shape)} "
                               f"outside axis {axis}")
            total += t.shape[axis]
        expect_dtype(op, out, (ins[0].dtype,), "output")
        want = list(ins[0].shape)
        want[axis] = total
        if list(out.shape) != want:
            raise fail(op, f"output shape {list(out.shape)} does not match the concatenation {want}")
        if out.dtype == "int8":
            for k, t in enumerate(ins):
                if t.quant is None or out.quant is None or np.float32(t.quant.s) != np.float32(out.quant.s) \
                        or t.quant.zp != out.quant.zp:
                    raise fail(op, f"int8 input {k} must have the output's scale and zero point "
                                   "(the reference does not requantize int8)")
        if out.dtype == "int16":
            for t in [*ins, out]:
                if t.quant is not None and t.quant.zp != 0:
                    raise fail(op, "int16 tensors must have zero point 0")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        out = out_tensor(g, op)
        if out.size == 0:
            return Prepared()
        ins = [tensor(g, op, k) for k in range(len(op.inputs))]
        axis = _axis(op, len(out.shape))
        outer = int(np.prod(out.shape[:axis], dtype=np.int64))
        inner = int(np.prod(out.shape[axis + 1:], dtype=np.int64)) * np.dtype(out.dtype).itemsize
        blocks = np.array([t.shape[axis] * inner for t in ins], dtype=np.int32)
        p = Params("utvm_concat_params", {"outer": outer, "count": len(ins)})
        ptrs = PtrArray(tuple(In(k) for k in range(len(ins))), "ins")
        return Prepared([call("utvm_concatenation", p, ptrs, Const("block_bytes", blocks, "int32_t"), Out(0))])
