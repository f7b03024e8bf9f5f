"""QUANTIZE and DEQUANTIZE (TFLite reference semantics, tensorflow/lite/kernels/quantize.cc,
dequantize.cc).

QUANTIZE float32 -> int8/int16: AffineQuantize (float32 division and round in the kernel).
QUANTIZE int -> int (requantize), the pairs TFLite Micro's quantize kernel accepts
(quantize_common.cc): int8 -> int8/uint8/int16/int32, uint8 -> int8, int16 -> int8/int16/int32,
int32 -> int8/int16; multiplier from ``double(s_in) / double(s_out)`` through QuantizeMultiplier;
int16 -> int16 needs zero points 0 (TFLite's check, kept). float32 -> uint8, uint8 -> uint8 and the
other pairs TFLite accepts and TFLM does not are refused (microcontroller firmware runs TFLM).
DEQUANTIZE int8/uint8/int16 -> float32.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import dtype_range, quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call

#: width code of each integer type in the kernels (kernels/quantize.h: UTVM_Q_U8 is -8)
_BITS = {"int8": 8, "uint8": -8, "int16": 16, "int32": 32}
REQUANT_PAIRS = {("int8", "int8"), ("int8", "uint8"), ("int8", "int16"), ("int8", "int32"), ("uint8", "int8"),
                 ("int16", "int8"), ("int16", "int16"), ("int16", "int32"), ("int32", "int8"), ("int32", "int16")}


@register("QUANTIZE")
class Quantize(OpHandler):
    supported = ("float32 -> int8/int16; requantize int8->int8/uint8/int16/int32, uint8->int8, "
                 "int16->int8/int16/int32, int32->int8/int16; per-tensor")

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int8", "uint8", "int16", "int32"), "input")
        if x.dtype == "float32":
            expect_dtype(op, out, ("int8", "int16"), "output")
        else:
            allowed = tuple(o for i, o in sorted(REQUANT_PAIRS) if i == x.dtype)
            expect_dtype(op, out, allowed, "output")
            expect_quant(op, x, "input")
            if not x.quant.s > 0:
                raise fail(op, "input scale must be positive")
        expect_quant(op, out, "output")
        if not out.quant.s > 0:
            raise fail(op, "output scale must be positive")
        if x.size != out.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} sizes differ")
        if x.dtype == "int16" and out.dtype == "int16" and (x.quant.zp or out.quant.zp):
            raise fail(op, "int16 -> int16 requires zero points 0 (as TFLite)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        qmin, qmax = dtype_range(out.dtype)
        if x.dtype == "float32":
            p = Params("utvm_quantize_f32_params", {
                "size": out.size, "out_bits": _BITS[out.dtype], "scale": float(np.float32(out.quant.s)),
                "zero_point": out.quant.zp, "qmin": qmin, "qmax": qmax})
            return Prepared([call("utvm_quantize_f32", p, In(0), Out(0))])
        mult, shift = quantize_multiplier(float(x.quant.s) / float(out.quant.s))
        p = Params("utvm_requantize_params", {
            "size": out.size, "in_bits": _BITS[x.dtype], "out_bits": _BITS[out.dtype],
            "input_zero_point": x.quant.zp, "output_zero_point": out.quant.zp, "multiplier": mult,
            "shift": shift, "qmin": qmin, "qmax": qmax})
        return Prepared([call("utvm_requantize", p, In(0), Out(0))])


@register("DEQUANTIZE")
class Dequantize(OpHandler):
    supported = "int8/uint8/int16 -> float32, per-tensor"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "uint8", "int16"), "input")
        expect_dtype(op, out, ("float32",), "output")
        expect_quant(op, x, "input")
        if x.size != out.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} sizes differ")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        p = Params("utvm_dequantize_params", {
            "size": out.size, "in_bits": _BITS[x.dtype], "zero_point": x.quant.zp,
            "scale": float(np.float32(x.quant.s))})
        return Prepared([call("utvm_dequantize", p, In(0), Out(0))])
