"""L2_NORMALIZATION (float32, int8), L2_POOL_2D (float32), LOG_SOFTMAX (float32, int8): the types
TFLite Micro's kernels accept, computed as tflite-runtime 2.14's reference kernels do.

- L2_NORMALIZATION (l2norm.cc): rank <= 4, activation NONE; float32 divides by
  ``max(sqrt(sum x^2), 1e-6)``; int8 needs output scale 1/128 and zero point 0 and runs
  reference_integer_ops::L2Normalization (integer inverse square root, kernels/l2norm_s8.h);
- L2_POOL_2D (pooling.cc L2Eval, float32 only in TFLite and TFLM): the geometry of the other
  pooling operators (ops/pooling.py), ``sqrt(sum of squares / taps)``, fused activation;
- LOG_SOFTMAX (activations.cc): float32 ``x - max - log(sum exp(x - max))`` per row of the last
  dimension; int8 (output scale 16/256, zero point 127) with the reference's fixed-point path.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import activation_range_float, quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call
from .nonlinear import softmax_s8_params
from .pooling import _empty_window
from .pooling import _geometry as _pool_geometry

_F32 = np.float32


def _rows(op: Operator, g: Graph) -> tuple[int, int]:
    x = tensor(g, op, 0)
    if not x.shape:
        raise fail(op, "the input must have at least one dimension")
    depth = x.shape[-1]
    if depth <= 0 or x.size == 0:
        raise fail(op, "empty input tensors are not supported")
    return x.size // depth, depth


@register("L2_NORMALIZATION")
class L2Normalization(OpHandler):
    supported = "float32, int8 (output scale 1/128, zero point 0); rank <= 4, no fused activation"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int8"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        if len(x.shape) > 4:
            raise fail(op, f"input rank {len(x.shape)}: the reference supports rank <= 4")
        if tuple(out.shape) != tuple(x.shape):
            raise fail(op, f"output {list(out.shape)} must have the input's shape {list(x.shape)}")
        act = op.options.get("fused_activation_function", "NONE")
        if act != "NONE":
            raise fail(op, f"fused activation {act} is not supported (the reference requires NONE)")
        outer, depth = _rows(op, g)
        zp = 0
        if x.dtype == "int8":
            expect_quant(op, x, "input")
            expect_quant(op, out, "output")
            if float(_F32(out.quant.s)) != 1.0 / 128.0 or out.quant.zp != 0:
                raise fail(op, "int8 output quantization must be scale 1/128, zero point 0")
            if depth > 33025:
                raise fail(op, f"depth {depth} could overflow the int32 sum of squares; at most 33025")
            zp = x.quant.zp
        sfx = "s8" if x.dtype == "int8" else "f32"
        p = Params("utvm_l2norm_params", {"outer": outer, "depth": depth, "input_zero_point": zp})
        return Prepared([call(f"utvm_l2norm_{sfx}", p, In(0), Out(0))], macs=x.size)


@register("L2_POOL_2D")
class L2Pool2D(OpHandler):
    supported = "float32; SAME/VALID, any stride and filter size, fused NONE/RELU/RELU6/RELU_N1_TO_1"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32",), "input")
        expect_dtype(op, out, ("float32",), "output")
        act = op.options.get("fused_activation_function", "NONE")
        if act not in ("NONE", "RELU", "RELU6", "RELU_N1_TO_1"):
            raise fail(op, f"fused activation {act} is not supported (NONE, RELU, RELU6, RELU_N1_TO_1)")
        geo = _pool_geometry(op, g)
        if x.size and _empty_window(geo):
            raise fail(op, "a pooling window lies entirely in the padding (the reference divides by zero)")
        lo, hi = activation_range_float(act)
        p = Params("utvm_pool_f32_params", {**geo, "act_min": lo, "act_max": hi})
        return Prepared([call("utvm_l2_pool_f32", p, In(0), Out(0))],
                        macs=out.size * geo["filter_h"] * geo["filter_w"])


@register("LOG_SOFTMAX")
class LogSoftmax(OpHandler):
    supported = "float32, int8 (output scale 16/256, zero point 127)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int8"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        if tuple(out.shape) != tuple(x.shape):
            raise fail(op, f"output {list(out.shape)} must have the input's shape {list(x.shape)}")
        outer, depth = _rows(op, g)
        if x.dtype == "float32":
            p = Params("utvm_log_softmax_f32_params", {"outer": outer, "depth": depth})
            return Prepared([call("utvm_log_softmax_f32", p, In(0), Out(0))])
        expect_quant(op, x, "input")
        expect_quant(op, out, "output")
        if float(_F32(out.quant.s)) != 16.0 / 256.0 or out.quant.zp != 127:
            raise fail(op, "int8 output quantization must be scale 16/256, zero point 127")
        if depth > 4096:
            raise fail(op, f"depth {depth}: the reference's Q12 sum of exponentials holds at most 4096 terms")
        try:
            mult, shift, diff_min = softmax_s8_params(1.0, x.quant.s)
        except ValueError:
            raise fail(op, "the input scale is too small for the reference's Q5.26 input rescaling") from None
        if mult == 0:   # QuantizeMultiplier flushed it to 0: the reference divides by it (then aborts)
            raise fail(op, "the input scale is too small for the reference's Q5.26 input rescaling")
        # PreprocessLogSoftmaxScalingExp: the inverse of the input scaling, QuantizeMultiplierSmallerThanOneExp
        rev_mult, rev_shift = quantize_multiplier((1 << (31 - shift)) / float(mult))
        if rev_shift > 0:
            raise fail(op, "the input scale is too small for the reference's inverse scaling")
        p = Params("utvm_log_softmax_s8_params", {"outer": outer, "depth": depth, "input_multiplier": mult,
                                                  "input_left_shift": shift, "reverse_multiplier": rev_mult,
                                                  "reverse_shift": rev_shift, "diff_min": diff_min})
        return Prepared([call("utvm_log_softmax_s8", p, In(0), Out(0))])
