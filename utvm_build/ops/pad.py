"""PAD and PADV2: int8, int16, float32 (and int32); constant paddings (TFLite pad.cc semantics).

- paddings: constant int32/int64 [rank, 2], non-negative; rank <= 5 (PadKernelMaxDimensionCount);
- pad value (pad.cc Eval / EvalInt): float32 and unquantized integers: 0 (PAD) or the
  constant_values scalar (PADV2); quantized int8/int16: the *output* zero point (PAD), or the
  constant_values scalar, which must then have the output's scale and zero point (PADV2);
- no requantization: input values are copied as they are.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_const, expect_counts, expect_dtype, fail, out_tensor, register, tensor
from .call import Const, In, Out, Params, Prepared, call

_CTYPES = {"int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "float32": "float"}


def _padded(values) -> list[int]:
    return [int(v) for v in values]


@register("PAD", "PADV2")
class Pad(OpHandler):
    supported = "int8, int16, int32, float32; constant paddings, rank <= 5"

    def _paddings(self, op: Operator, g: Graph) -> np.ndarray:
        x, pads = tensor(g, op, 0), tensor(g, op, 1, "paddings")
        expect_dtype(op, pads, ("int32", "int64"), "paddings")
        data = np.asarray(expect_const(op, pads, "paddings")).astype(np.int64)
        if data.shape != (len(x.shape), 2):
            raise fail(op, f"paddings must have shape [{len(x.shape)}, 2], got {list(data.shape)}")
        if np.any(data < 0):
            raise fail(op, "negative paddings are not supported (the reference rejects them)")
        return data

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, (2, 3))
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, tuple(_CTYPES), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        if not 1 <= len(x.shape) <= 5:
            raise fail(op, f"input rank {len(x.shape)} is not supported (1 to 5)")
        pads = self._paddings(op, g)
        want = [int(d + lo + hi) for d, (lo, hi) in zip(x.shape, pads)]
        if list(out.shape) != want:
            raise fail(op, f"output shape {list(out.shape)} does not match input + paddings {want}")
        cv = g.input_tensor(op, 2)
        if cv is not None:
            expect_dtype(op, cv, (x.dtype,), "constant_values")
            expect_const(op, cv, "constant_values")
            if cv.size != 1:
                raise fail(op, f"constant_values must hold one value, got {cv.size}")
            if x.quant is not None and x.dtype in ("int8", "int16"):
                if out.quant is None or cv.quant is None or cv.quant.zp != out.quant.zp \
                        or np.float32(cv.quant.s) != np.float32(out.quant.s):
                    raise fail(op, "constant_values must have the output's scale and zero point")
        elif x.quant is not None and x.dtype in ("int8", "int16") and out.quant is None:
            raise fail(op, "quantized input but the output has no quantization parameters")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        if out.size == 0:
            return Prepared()
        pads = self._paddings(op, g)
        lead = 5 - len(x.shape)
        in_dims = [1] * lead + list(x.shape)
        out_dims = [1] * lead + list(out.shape)
        left = [0] * lead + [int(v) for v in pads[:, 0]]
        cv = g.input_tensor(op, 2)
        if cv is not None:
            value = np.asarray(cv.data).reshape(-1)[:1]
        elif x.quant is not None and x.dtype in ("int8", "int16"):
            value = np.array([out.quant.zp])
        else:
            value = np.array([0])
        pv = Const("pad_value", value.astype(np.dtype(x.dtype)), _CTYPES[x.dtype])
        p = Params("utvm_pad_params", {
            "in_dims": _padded(in_dims), "out_dims": _padded(out_dims), "left": _padded(left),
            "out_count": out.size, "elem_size": np.dtype(x.dtype).itemsize})
        return Prepared([call("utvm_pad", p, In(0), Out(0), pv)])
