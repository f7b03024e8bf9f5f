"""TRANSPOSE_CONV: int8 (per-channel), 16x8 and float32 (TFLite transpose_conv.cc, kReference).

Prepare work done here, as transpose_conv.cc does it:
- inputs: 0 output_shape (int32 [4]; constant from the converter, or a model input in some
  models: its value is not read, shapes are static, a constant one must equal the output shape),
  1 weights [out_c][kh][kw][in_c], 2 input [n][h][w][in_c], 3 optional bias;
- padding: ``ComputePaddingHeightWidth`` on the *output* size (the conv that maps the output back
  to the input), dilation 1; only the top/left padding is used;
- requantization: ``PopulateConvolutionQuantizationParams``: per output channel
  double(input_scale) * double(filter_scale) / double(output_scale) (double, not float32),
  per-tensor filter scales broadcast; the fused activation clamps with the output's range;
- the reference int8/int16 kernels scatter every input element into an accumulator buffer of the
  output's size (int32 for int8, int64 for 16x8), then add the bias and requantize. That buffer is
  this operator's scratch (planned in the workspace). 16x8 with an int32 bias: the reference
  accumulates in int32 and requantizes with the int32 (double rounding)
  ``MultiplyByQuantizedMultiplier``; so it does *without* a bias (tflite-runtime 2.14 selects
  the int64 accumulator only for an int64 bias tensor); with an int64 bias the int64 overload;
- float32 scatters into the output in the reference's order (bit-exact), then adds the bias.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import activation_range_float, activation_range_quantized
from .base import OpHandler, dtype_suffix, expect_const, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import Const, In, Null, Operand, Out, Params, Prepared, Scratch, call
from .conv import window
from .limits import check_accumulators, check_window_extent
from .multipliers import per_channel_multipliers, real_multipliers

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _geometry(op: Operator, g: Graph) -> dict[str, int]:
    x, w, out = tensor(g, op, 2), tensor(g, op, 1, "weights"), out_tensor(g, op)
    if len(x.shape) != 4 or len(w.shape) != 4 or len(out.shape) != 4:
        raise fail(op, f"input {list(x.shape)}, weights {list(w.shape)} and output {list(out.shape)} must be 4-D")
    n, h, wd, c = x.shape
    oc, kh, kw, wc = w.shape
    if wc != c:
        raise fail(op, f"weights {list(w.shape)} do not match the input channels {c}")
    if out.shape[0] != n or out.shape[3] != oc:
        raise fail(op, f"output {list(out.shape)} does not match batches {n} and output channels {oc}")
    sh, sw = int(op.options.get("stride_h", 0)), int(op.options.get("stride_w", 0))
    if sh <= 0 or sw <= 0:
        raise fail(op, f"strides ({sh}, {sw}) must be positive")
    pad = op.options.get("padding", "SAME")
    _, pad_h = window(pad, out.shape[1], kh, sh, 1)
    _, pad_w = window(pad, out.shape[2], kw, sw, 1)
    check_window_extent(op, h, out.shape[1], kh, sh, 1, pad_h, "height")
    check_window_extent(op, wd, out.shape[2], kw, sw, 1, pad_w, "width")
    return {"batches": n, "in_h": h, "in_w": wd, "in_c": c, "filter_h": kh, "filter_w": kw,
            "out_h": out.shape[1], "out_w": out.shape[2], "out_c": oc, "stride_h": sh, "stride_w": sw,
            "pad_h": pad_h, "pad_w": pad_w}


@register("TRANSPOSE_CONV")
class TransposeConv(OpHandler):
    supported = ("int8 (per-channel or per-tensor weights), 16x8 (int64 or int32 bias), float32; "
                 "SAME/VALID, strides, fused activation")

    def validate(self, op: Operator, g: Graph) -> None:
        if not 3 <= len(op.inputs) <= 4 or len(op.outputs) != 1:
            raise fail(op, f"expected 3 or 4 inputs and 1 output, got {len(op.inputs)} and {len(op.outputs)}")
        shape_t = tensor(g, op, 0, "output_shape")
        w, x, out = tensor(g, op, 1, "weights"), tensor(g, op, 2), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        expect_dtype(op, w, ("float32",) if x.dtype == "float32" else ("int8",), "weights")
        expect_dtype(op, out, (x.dtype,), "output")
        expect_dtype(op, shape_t, ("int32",), "output_shape")
        expect_const(op, w, "weights")
        if shape_t.size != 4:
            raise fail(op, f"output_shape must hold 4 values, got {shape_t.size}")
        if shape_t.is_const and [int(v) for v in np.asarray(shape_t.data).ravel()] != list(out.shape):
            raise fail(op, f"output_shape {np.asarray(shape_t.data).ravel().tolist()} differs from the output "
                           f"tensor's shape {list(out.shape)}")
        act = op.options.get("fused_activation_function", "NONE")
        if act not in _ACTS:
            raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_ACTS)}")
        geo = _geometry(op, g)
        bias = g.input_tensor(op, 3)
        if bias is not None:
            expect_const(op, bias, "bias")
            bt = {"int8": ("int32",), "int16": ("int64", "int32"), "float32": ("float32",)}[x.dtype]
            expect_dtype(op, bias, bt, "bias")
            if bias.size != geo["out_c"]:
                raise fail(op, f"bias has {bias.size} values, expected {geo['out_c']}")
        if x.dtype != "float32":
            expect_quant(op, x, "input")
            expect_quant(op, out, "output")
            expect_quant(op, w, "weights", per_channel_ok=True)
            if np.any(w.quant.zero_point != 0):
                raise fail(op, "weights must be symmetrically quantized (zero point 0)")
            if w.quant.per_channel and (w.quant.axis != 0 or len(w.quant.scale) != geo["out_c"]):
                raise fail(op, "per-channel weights must be quantized along dimension 0 (output channels)")
            if x.dtype == "int16" and (x.quant.zp != 0 or out.quant.zp != 0):
                raise fail(op, "int16 activations must have zero point 0")
            sums = np.abs(w.data.astype(np.int64)).sum(axis=(1, 2, 3))
            check_accumulators(op, x, w, bias, sums, real_multipliers(x, w, out, geo["out_c"]))

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        w, x, out = tensor(g, op, 1), tensor(g, op, 2), out_tensor(g, op)
        bias = g.input_tensor(op, 3)
        geo = _geometry(op, g)
        act = op.options.get("fused_activation_function", "NONE")
        fn = f"utvm_transpose_conv_{dtype_suffix(x.dtype)}"
        macs = x.size * int(np.prod(w.shape[:3]))
        b: Operand = In(3) if bias is not None else Null()
        if x.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_tconv_f32_params", {"g": geo, "act_min": lo, "act_max": hi})
            return Prepared([call(fn, p, In(2), In(1), b, Out(0))], macs=macs)
        mult, shift = per_channel_multipliers(x, w, out, geo["out_c"])
        m = Const("multiplier", mult, "int32_t")
        s = Const("shift", shift, "int32_t")
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        fields = {"g": geo, "input_offset": -x.quant.zp, "output_offset": out.quant.zp,
                  "acc32": 0, "act_min": lo, "act_max": hi}
        if x.dtype == "int8":
            acc = Scratch("int32_t")
        else:
            # 2.14 picks the int64 accumulator only for an int64 bias; no bias -> int32 (verified
            # against the oracle: the int64 path would round differently).
            fields["acc32"] = int(bias is None or bias.dtype == "int32")
            b = Null() if bias is None else Const("bias", bias.data.astype(np.int64).reshape(-1), "int64_t")
            acc = Scratch("int64_t")
        p = Params("utvm_tconv_q_params", fields)
        return Prepared([call(fn, p, In(2), In(1), b, m, s, Out(0), acc)], macs=macs)
