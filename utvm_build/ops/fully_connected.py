"""FULLY_CONNECTED: int8, int16x8 and float32 (TFLite reference semantics)."""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import activation_range_float, activation_range_quantized, quantize_multiplier
from .base import (
    OpHandler,
    dtype_suffix,
    expect_const,
    expect_counts,
    expect_dtype,
    expect_quant,
    fail,
    out_tensor,
    register,
    tensor,
)

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def conv_multiplier(input_scale: float, filter_scale: float, output_scale: float) -> float:
    """TFLite GetQuantizedConvolutionMultipler: the product is taken in float32."""
    product = float(np.float32(input_scale) * np.float32(filter_scale))
    return product / float(np.float32(output_scale))


@register("FULLY_CONNECTED")
class FullyConnected(OpHandler):
    supported = "int8, int16 (16x8), float32; per-tensor weights"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, (2, 3))
        x, w, out = tensor(g, op, 0), tensor(g, op, 1, "weights"), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        wt = {"int8": ("int8",), "int16": ("int8",), "float32": ("float32",)}[x.dtype]
        expect_dtype(op, w, wt, "weights")
        expect_dtype(op, out, (x.dtype,), "output")
        expect_const(op, w, "weights")
        if op.options.get("weights_format", "DEFAULT") != "DEFAULT":
            raise fail(op, "shuffled weights format is not supported")
        if op.options.get("fused_activation_function", "NONE") not in _ACTS:
            raise fail(op, f"fused activation {op.options['fused_activation_function']} is not supported")
        if len(w.shape) != 2:
            raise fail(op, f"weights must be 2-D, got {list(w.shape)}")
        out_depth, depth = w.shape
        if x.size % depth or out.size != x.size // depth * out_depth:
            raise fail(op, f"shapes do not match: input {list(x.shape)}, weights {list(w.shape)}, "
                           f"output {list(out.shape)}")
        bias = g.input_tensor(op, 2)
        if bias is not None:
            expect_const(op, bias, "bias")
            bt = {"int8": ("int32",), "int16": ("int64", "int32"), "float32": ("float32",)}[x.dtype]
            expect_dtype(op, bias, bt, "bias")
            if bias.size != out_depth:
                raise fail(op, f"bias has {bias.size} values, expected {out_depth}")
        if x.dtype != "float32":
            for t, role in ((x, "input"), (w, "weights"), (out, "output")):
                expect_quant(op, t, role)
            if w.quant.zp != 0:
                raise fail(op, "weights must be symmetrically quantized (zero point 0)")
            if x.dtype == "int16" and (x.quant.zp != 0 or out.quant.zp != 0):
                raise fail(op, "int16 activations must have zero point 0")

    def macs(self, op: Operator, g: Graph) -> int:
        return out_tensor(g, op).size * tensor(g, op, 1).shape[1]

    def emit(self, op: Operator, g: Graph, ctx) -> None:
        x, w, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        bias = g.input_tensor(op, 2)
        out_depth, depth = w.shape
        act = op.options.get("fused_activation_function", "NONE")
        ctx.kernel(f"fully_connected_{dtype_suffix(x.dtype)}")
        common = {"batches": x.size // depth, "accum_depth": depth, "out_depth": out_depth}
        if x.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = ctx.param_struct("utvm_fc_f32_params", {**common, "act_min": lo, "act_max": hi})
            b = ctx.input(2) if bias is not None else "NULL"
            ctx.line(f"utvm_fully_connected_f32(&{p}, {ctx.input(0)}, {ctx.input(1)}, {b}, {ctx.output(0)});")
            return
        mult, shift = quantize_multiplier(conv_multiplier(x.quant.s, w.quant.s, out.quant.s))
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        fields = {**common, "output_offset": out.quant.zp, "multiplier": mult, "shift": shift,
                  "act_min": lo, "act_max": hi}
        p = ctx.param_struct("utvm_fc_q_params", fields)
        if x.dtype == "int8":
            folded = w.data.astype(np.int64).sum(axis=1) * -x.quant.zp
            if bias is not None:
                folded = folded + bias.data.astype(np.int64)
            if np.any(np.abs(folded) >= 2**31):
                raise fail(op, "the folded bias does not fit in int32")
            b = ctx.const("bias", folded.astype(np.int32), "int32_t")
            ctx.line(f"utvm_fully_connected_s8(&{p}, {ctx.input(0)}, {ctx.input(1)}, {b}, {ctx.output(0)});")
        else:
            b = "NULL"
            if bias is not None:
                b = ctx.const("bias", bias.data.astype(np.int64), "int64_t")
            ctx.line(f"utvm_fully_connected_s16(&{p}, {ctx.input(0)}, {ctx.input(1)}, {b}, {ctx.output(0)});")
