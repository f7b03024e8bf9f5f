"""RELU, RELU6, LEAKY_RELU: int8, int16 (zero point 0) and float32 (TFLite reference semantics,
tensorflow/lite/kernels/activations.cc ReluPrepare / QuantizedReluX / LeakyReluPrepare).

Multipliers are computed as activations.cc does, in float32 before widening to double:
``input->params.scale / output->params.scale`` and
``input->params.scale * alpha / output->params.scale``. The clamp bounds of RELU6 are
``zp + (int)roundf(6.0f / s_out)`` (float32 division).
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator
from ..quant import dtype_range, quantize_multiplier, tflite_round
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, expect_scale, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call

_F32 = np.float32


class _Unary(OpHandler):
    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        if x.size != out.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} sizes differ")
        if x.dtype == "float32":
            return
        expect_scale(op, ((x, "input"), (out, "output")))


@register("RELU", "RELU6")
class Relu(_Unary):
    supported = "int8, int16 (zero point 0), float32"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        upper = 6.0 if op.op == "RELU6" else None
        if x.dtype == "float32":
            p = Params("utvm_relu_f32_params", {
                "size": out.size, "act_min": 0.0, "act_max": upper if upper is not None else math.inf})
            return Prepared([call("utvm_relu_f32", p, In(0), Out(0))])
        qmin, qmax = dtype_range(out.dtype)
        s_out, zp = _F32(out.quant.s), out.quant.zp
        lo = max(qmin, zp + tflite_round(float(_F32(0.0) / s_out)))
        hi = qmax if upper is None else min(qmax, zp + tflite_round(float(_F32(upper) / s_out)))
        mult, shift = quantize_multiplier(float(_F32(x.quant.s) / s_out))
        p = Params("utvm_relu_q_params", {
            "size": out.size, "input_offset": x.quant.zp, "output_offset": zp, "multiplier": mult,
            "shift": shift, "act_min": lo, "act_max": hi})
        return Prepared([call(f"utvm_relu_{dtype_suffix(x.dtype)}", p, In(0), Out(0))])


@register("LEAKY_RELU")
class LeakyRelu(_Unary):
    supported = "int8, int16 (zero point 0), float32"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        alpha = _F32(op.options.get("alpha", 0.0))
        if x.dtype == "float32":
            p = Params("utvm_leaky_relu_f32_params", {"size": out.size, "alpha": float(alpha)})
            return Prepared([call("utvm_leaky_relu_f32", p, In(0), Out(0))])
        s_in, s_out = _F32(x.quant.s), _F32(out.quant.s)
        m_alpha, e_alpha = quantize_multiplier(float(_F32(s_in * alpha) / s_out))
        m_id, e_id = quantize_multiplier(float(s_in / s_out))
        qmin, qmax = dtype_range(out.dtype)
        p = Params("utvm_leaky_relu_q_params", {
            "size": out.size, "input_offset": x.quant.zp, "output_offset": out.quant.zp,
            "multiplier_identity": m_id, "shift_identity": e_id, "multiplier_alpha": m_alpha,
            "shift_alpha": e_alpha, "qmin": qmin, "qmax": qmax})
        return Prepared([call(f"utvm_leaky_relu_{dtype_suffix(x.dtype)}", p, In(0), Out(0))])
