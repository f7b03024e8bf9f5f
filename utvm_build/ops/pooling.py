"""AVERAGE_POOL_2D and MAX_POOL_2D: int8, int16, float32 (TFLite reference semantics).

Prepare work done here, as tensorflow/lite/kernels/pooling.cc GenericPrepare does it:
- output size and padding: ``ComputePaddingHeightWidth`` with dilation 1 (kernels/padding.h); the
  reference kernels use only the top/left padding and clamp every window to the image, so padded
  taps are skipped (average pool divides by the number of taps inside the image);
- quantized pooling does not requantize: the reference passes input values straight through
  (pooling.cc only DCHECKs equal input/output scale and zero point), the fused activation clamp
  comes from the *output* quantization (``CalculateActivationRangeQuantized``);
- a window entirely outside the image makes the reference AveragePool fail (it returns false on
  ``filter_count == 0``); such models are rejected here.
"""

from __future__ import annotations

from ..graph import Graph, Operator
from ..quant import activation_range_float, activation_range_quantized
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call
from .conv import window
from .limits import check_window_extent

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _geometry(op: Operator, g: Graph) -> dict[str, int]:
    x, out = tensor(g, op, 0), out_tensor(g, op)
    o = op.options
    sh, sw = int(o.get("stride_h", 0)), int(o.get("stride_w", 0))
    fh, fw = int(o.get("filter_height", 0)), int(o.get("filter_width", 0))
    if min(sh, sw, fh, fw) <= 0:
        raise fail(op, f"strides ({sh}, {sw}) and filter size ({fh}, {fw}) must be positive")
    if len(x.shape) != 4:
        raise fail(op, f"input must be 4-D (NHWC), got {list(x.shape)}")
    n, h, w, c = x.shape
    pad = o.get("padding", "SAME")
    out_h, pad_h = window(pad, h, fh, sh, 1)
    out_w, pad_w = window(pad, w, fw, sw, 1)
    check_window_extent(op, h, out_h, fh, sh, 1, pad_h, "height")
    check_window_extent(op, w, out_w, fw, sw, 1, pad_w, "width")
    if tuple(out.shape) != (n, out_h, out_w, c):
        raise fail(op, f"output shape {list(out.shape)} does not match the computed {[n, out_h, out_w, c]}")
    return {"batches": n, "in_h": h, "in_w": w, "channels": c, "out_h": out_h, "out_w": out_w,
            "stride_h": sh, "stride_w": sw, "filter_h": fh, "filter_w": fw, "pad_h": pad_h, "pad_w": pad_w}


def _empty_window(geo: dict[str, int]) -> bool:
    """True if some output position's window has no tap inside the image."""
    for out, stride, pad, flt, size in ((geo["out_h"], geo["stride_h"], geo["pad_h"], geo["filter_h"], geo["in_h"]),
                                        (geo["out_w"], geo["stride_w"], geo["pad_w"], geo["filter_w"], geo["in_w"])):
        for o in range(out):
            origin = o * stride - pad
            if min(flt, size - origin) <= max(0, -origin):
                return True
    return False


class _PoolBase(OpHandler):
    supported = "int8, int16, float32; SAME/VALID, any stride and filter size, fused NONE/RELU/RELU6/RELU_N1_TO_1"
    kind = ""

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        act = op.options.get("fused_activation_function", "NONE")
        if act not in _ACTS:
            raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_ACTS)}")
        geo = _geometry(op, g)
        if x.dtype != "float32":
            expect_quant(op, out, "output")
        if self.kind == "avg" and x.size and _empty_window(geo):
            raise fail(op, "a pooling window lies entirely in the padding (the reference fails on it)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        geo = _geometry(op, g)
        act = op.options.get("fused_activation_function", "NONE")
        sfx = dtype_suffix(x.dtype)
        if x.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_pool_f32_params", {**geo, "act_min": lo, "act_max": hi})
        else:
            lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
            p = Params("utvm_pool_q_params", {**geo, "act_min": lo, "act_max": hi})
        macs = out.size * geo["filter_h"] * geo["filter_w"] if self.kind == "avg" else 0
        return Prepared([call(f"utvm_{self.kind}_pool_{sfx}", p, In(0), Out(0))], macs=macs)


@register("AVERAGE_POOL_2D")
class AveragePool2D(_PoolBase):
    kind = "avg"


@register("MAX_POOL_2D")
class MaxPool2D(_PoolBase):
    kind = "max"
