"""CONV_2D and DEPTHWISE_CONV_2D: int8, int16 (16x8) and float32 (TFLite reference semantics).

Prepare work done here at compile time, as TFLite's conv.cc / depthwise_conv.cc do it:
- output size and padding: ``ComputePaddingHeightWidth`` (kernels/padding.h); only the top/left
  padding is used by the reference kernels, the odd extra padding ends up bottom/right;
- per-channel requantization: ``PopulateConvolutionQuantizationParams`` (kernel_util.cc), which
  takes ``double(input_scale) * double(filter_scale) / double(output_scale)`` (double, unlike
  FULLY_CONNECTED's float32 product) for every output channel, broadcasting a per-tensor scale;
- depthwise: int8 and float32 Eval use ``filter channels / input channels`` (``ComputeDepthMultiplier``)
  and ignore the ``depth_multiplier`` option, as done here; the 16x8 Eval passes the option itself
  to the kernel, so a 16x8 model whose option disagrees with the shapes is rejected;
- int8: ``-input_zero_point * sum(weights)`` is folded into the bias; the kernels compensate the
  taps that the reference skips at the borders (see kernels/conv.h), so this is exact everywhere;
  CONV_2D with one group and dilation_w 1 (kernels/conv2d_s8.h) instead computes its border pixels
  from the model's own bias and the input offset, as the reference does (``border_bias``); grouped
  or width-dilated CONV_2D uses kernels/conv2d_s8_generic.h;
- 16x8 CONV_2D with an int32 bias: the reference then accumulates in int32 and requantizes with
  the int32 (double rounding) ``MultiplyByQuantizedMultiplier``; with an int64 bias (or none) it
  uses the int64 overload.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import activation_range_float, activation_range_quantized
from ..selection import offers, optimize_mode, scratch_frugal
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
from .call import Const, In, KernelCall, Null, Operand, Out, Params, Prepared, Scratch, call
from .conv_mve import conv_mve_call, depthwise_mve_call
from .hybrid import is_hybrid, prepare_hybrid_conv
from .limits import check_accumulators, check_window_extent
from .multipliers import per_channel_multipliers, real_multipliers

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
#: Option set by passes/patches.py on a stripe of an operator: {"pad_h": top padding of the stripe's
#: input rows, "of": the operator's index, "stripe": k, "stripes": n}.
PATCH_OPTION = "utvm_patch"
#: Option set by passes/fuse_pad.py on a VALID operator that reads a PAD's input instead of its
#: output: {"top", "bottom", "left", "right"}, the PAD's rows and columns (the kernels skip them).
PAD_OPTION = "utvm_pad"


def window(padding: str, in_size: int, filter_size: int, stride: int, dilation: int) -> tuple[int, int]:
    """TFLite ComputeOutSize + ComputePaddingWithOffset: (output size, leading padding)."""
    eff = (filter_size - 1) * dilation + 1
    if padding == "SAME":
        out = (in_size + stride - 1) // stride
    else:  # VALID; C++ division truncates toward zero
        out = int((in_size + stride - eff) / stride)
    total = max((out - 1) * stride + eff - in_size, 0)
    return out, total // 2


@dataclass
class _Geom:
    batches: int
    in_h: int
    in_w: int
    in_c: int
    filter_h: int
    filter_w: int
    filter_in_c: int
    depth_multiplier: int
    out_h: int
    out_w: int
    out_c: int
    stride_h: int
    stride_w: int
    dilation_h: int
    dilation_w: int
    pad_h: int
    pad_w: int


class _ConvBase(OpHandler):
    depthwise = False
    family = ""
    supported = ("int8 (per-channel or per-tensor weights), int16 (16x8), float32, float32 with int8 weights "
                 "(hybrid); SAME/VALID, "
                 "strides, dilations, fused NONE/RELU/RELU6/RELU_N1_TO_1, optional bias")

    # ---- shapes --------------------------------------------------------------------------------
    def geometry(self, op: Operator, g: Graph) -> _Geom:
        x, w, out = tensor(g, op, 0), tensor(g, op, 1, "filter"), out_tensor(g, op)
        for t, role in ((x, "input"), (w, "filter"), (out, "output")):
            if len(t.shape) != 4:
                raise fail(op, f"{role} must be 4-D (NHWC), got {list(t.shape)}")
        o = op.options
        padding = o.get("padding", "SAME")
        if padding not in ("SAME", "VALID"):
            raise fail(op, f"padding {padding} is not supported (SAME, VALID)")
        sh, sw = int(o.get("stride_h", 1)), int(o.get("stride_w", 1))
        dh, dw = int(o.get("dilation_h_factor", 1)), int(o.get("dilation_w_factor", 1))
        if min(sh, sw, dh, dw) < 1:
            raise fail(op, f"strides ({sh}, {sw}) and dilations ({dh}, {dw}) must be >= 1")
        n, ih, iw, ic = x.shape
        if self.depthwise:
            one, fh, fw, oc = w.shape
            if one != 1:
                raise fail(op, f"depthwise filter must have shape [1, H, W, C], got {list(w.shape)}")
            if ic <= 0 or oc % ic:
                raise fail(op, f"filter channels {oc} are not a multiple of input channels {ic}")
            fic, dm = 1, oc // ic
        else:
            oc, fh, fw, fic = w.shape
            if fic <= 0 or ic % fic or oc % (ic // fic):
                raise fail(op, f"input channels {ic} and filter {list(w.shape)} do not form groups")
            dm = 1
        oh, ph = window(padding, ih, fh, sh, dh)
        ow, pw = window(padding, iw, fw, sw, dw)
        fused = o.get(PAD_OPTION)
        if fused is not None and padding == "VALID":   # VALID over the padded input, the padding in the kernel
            oh, ph = window(padding, ih + fused["top"] + fused["bottom"], fh, sh, dh)[0], int(fused["top"])
            ow, pw = window(padding, iw + fused["left"] + fused["right"], fw, sw, dw)[0], int(fused["left"])
        stripe = o.get(PATCH_OPTION)
        if stripe is not None:   # a stripe of rows of the operator (passes/patches.py): its own top padding
            oh, ph = int(out.shape[1]), int(stripe["pad_h"])
        check_window_extent(op, ih, oh, fh, sh, dh, ph, "height")
        check_window_extent(op, iw, ow, fw, sw, dw, pw, "width")
        if min(n, ih, iw, ic, fh, fw, oh, ow, oc) <= 0:
            raise fail(op, f"empty tensor: input {list(x.shape)}, filter {list(w.shape)}, output "
                           f"{[n, oh, ow, oc]}")
        if tuple(out.shape) != (n, oh, ow, oc):
            raise fail(op, f"output shape {list(out.shape)} does not match the computed {[n, oh, ow, oc]}")
        return _Geom(n, ih, iw, ic, fh, fw, fic, dm, oh, ow, oc, sh, sw, dh, dw, ph, pw)

    # ---- OpHandler -----------------------------------------------------------------------------
    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, (2, 3))
        x, w, out = tensor(g, op, 0), tensor(g, op, 1, "filter"), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        expect_dtype(op, w, ("float32",) if x.dtype == "float32" else ("int8",), "filter")
        expect_dtype(op, out, (x.dtype,), "output")
        expect_const(op, w, "filter")
        act = op.options.get("fused_activation_function", "NONE")
        if act not in _ACTS:
            raise fail(op, f"fused activation {act} is not supported ({', '.join(_ACTS)})")
        geom = self.geometry(op, g)
        bias = g.input_tensor(op, 2)
        if bias is not None:
            expect_const(op, bias, "bias")
            if x.dtype == "int8":
                allowed: tuple[str, ...] = ("int32",)
            elif x.dtype == "int16":
                allowed = ("int64",) if self.depthwise else ("int64", "int32")
            else:
                allowed = ("float32",)
            expect_dtype(op, bias, allowed, "bias")
            if bias.size != geom.out_c:
                raise fail(op, f"bias has {bias.size} values, expected {geom.out_c}")
        if x.dtype == "float32":
            return
        expect_quant(op, x, "input")
        expect_quant(op, out, "output")
        expect_quant(op, w, "filter", per_channel_ok=True)
        axis = 3 if self.depthwise else 0
        if w.quant.per_channel and (w.quant.axis != axis or len(w.quant.scale) != geom.out_c):
            raise fail(op, f"per-channel filter quantization must be along dimension {axis} "
                           f"({geom.out_c} scales), got {len(w.quant.scale)} along {w.quant.axis}")
        if np.any(w.quant.zero_point != 0):
            raise fail(op, "filter must be symmetrically quantized (zero points 0)")
        if x.dtype == "int16" and (x.quant.zp != 0 or out.quant.zp != 0):
            raise fail(op, "int16 activations must have zero point 0")
        w_abs = np.abs(w.data.astype(np.int64))
        sums = w_abs.sum(axis=(0, 1, 2)) if self.depthwise else w_abs.sum(axis=(1, 2, 3))
        check_accumulators(op, x, w, bias, sums, real_multipliers(x, w, out, geom.out_c))
        if self.depthwise and x.dtype == "int16" and op.options.get("depth_multiplier") != geom.depth_multiplier:
            # depthwise_conv.cc EvalQuantizedPerChannel16x8 passes params->depth_multiplier to the
            # kernel (int8 and float compute it from the shapes): a mismatch reads/writes out of
            # bounds in TFLite, so there is no reference behaviour to reproduce.
            raise fail(op, f"16x8 depthwise: the depth_multiplier option ({op.options.get('depth_multiplier')}) "
                           f"must equal filter channels / input channels ({geom.depth_multiplier})")

    def macs(self, op: Operator, g: Graph) -> int:
        geo = self.geometry(op, g)
        return out_tensor(g, op).size * geo.filter_h * geo.filter_w * geo.filter_in_c

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        if is_hybrid(op, g):  # float32 activations, int8 weights: ops/hybrid.py
            return prepare_hybrid_conv(self, op, g)
        self.validate(op, g)
        x, w, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        bias = g.input_tensor(op, 2)
        geo = self.geometry(op, g)
        act = op.options.get("fused_activation_function", "NONE")
        kernel = f"{self.family}_{dtype_suffix(x.dtype)}"
        fast_s8 = x.dtype == "int8" and not self.depthwise and geo.filter_in_c == geo.in_c and geo.dilation_w == 1
        if x.dtype == "int8" and not self.depthwise and not fast_s8:
            kernel += "_generic"  # grouped or width-dilated (kernels/conv2d_s8_generic.h)
        fn = f"utvm_{kernel}"
        macs = self.macs(op, g)
        if x.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_conv_f32_params", {"g": vars(geo), "act_min": lo, "act_max": hi})
            return Prepared([call(fn, p, In(0), In(1), In(2), Out(0))], macs=macs)
        mult, shift = per_channel_multipliers(x, w, out, geo.out_c)
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        m = Const("multiplier", mult, "int32_t")
        s = Const("shift", shift, "int32_t")
        fields = {"g": vars(geo), "pad_value": 0, "output_offset": out.quant.zp, "acc32": 0,
                  "act_min": lo, "act_max": hi}
        biases: list[Operand]
        if x.dtype == "int8" and not self.depthwise and geo.filter_in_c == geo.in_c:  # one group
            mve = conv_mve_call(geo, x, w, bias, mult, shift, fields, target)  # Helium targets
            if mve is not None:
                return Prepared([mve], macs=macs)
            q15 = conv_q15_call(geo, x, w, bias, mult, shift, fields, target)
            if q15 is not None:
                return Prepared([q15], macs=macs)
        if x.dtype == "int8" and self.depthwise:
            mve = depthwise_mve_call(geo, x, w, bias, mult, shift, fields, target)  # Helium targets
            if mve is not None:
                return Prepared([mve], macs=macs)
        if (x.dtype == "int8" and self.depthwise and geo.in_c == 1 and geo.out_c % 4 == 0
                and (geo.filter_h, geo.filter_w, geo.dilation_w) == (3, 3, 1)):
            # one input channel, 3x3 (person_detect's first layer, depth multiplier 8): one int16 plane
            # that every output channel reads, two pixels per step (3.2 instead of 7.8 per MAC there)
            q15 = depthwise_q15_call(geo, x, w, bias, mult, shift, fields, target)
            if q15 is not None:
                return Prepared([q15], macs=macs)
        if x.dtype == "int8" and self.depthwise and geo.in_c == 1:
            # one input channel (e.g. micro_speech's 10x8 filter, depth multiplier 8): the same sums as
            # a CONV_2D with out_c = depth multiplier filters of [KH][KW][1], the DSP kernel of that
            q15 = conv_q15_call(replace(geo, depth_multiplier=1), x, _depthwise_as_conv_filter(w), bias,
                                mult, shift, fields, target)
            if q15 is not None:
                return Prepared([q15], macs=macs)
        if x.dtype == "int8" and self.depthwise and geo.depth_multiplier == 1 and geo.in_c % 4 == 0:
            tiny = depthwise_tiny_call(geo, x, w, bias, mult, shift, fields, target)
            if tiny is not None:
                return Prepared([tiny], macs=macs)
            q15 = depthwise_q15_call(geo, x, w, bias, mult, shift, fields, target)
            if q15 is not None:
                return Prepared([q15], macs=macs)
        if x.dtype == "int8":
            wsum = self.weight_sums(w.data)
            folded = -x.quant.zp * wsum
            if bias is not None:
                folded = folded + bias.data.astype(np.int64).reshape(-1)
            if np.any(np.abs(folded) >= 2**31):
                raise fail(op, "the folded bias does not fit in int32")
            fields["pad_value"] = x.quant.zp
            b = Const("bias", folded.astype(np.int32), "int32_t")
            biases = [b]
            if fast_s8:
                biases.append(self.border_bias(geo, x.quant.zp, bias, b))
        else:
            biases = [Null()]
            if bias is not None:
                fields["acc32"] = int(bias.dtype == "int32")
                biases = [Const("bias", bias.data.astype(np.int64).reshape(-1), "int64_t")]
        p = Params("utvm_conv_q_params", fields)
        return Prepared([call(fn, p, In(0), In(1), *biases, m, s, Out(0))], macs=macs)

    @staticmethod
    def border_bias(geo: _Geom, zp: int, bias: Tensor | None, folded: Const) -> Operand:
        """int8 CONV_2D (kernels/conv2d_s8.h): the bias of the pixels with taps outside the image,
        which the kernel computes without the folded input offset: the model's own bias (zeros
        without one), or NULL when no window leaves the image. With input zero point 0 nothing
        is folded, so it is the folded bias."""
        def leaves(size: int, filt: int, stride: int, dil: int, pad: int, out: int) -> bool:
            return pad > 0 or (out - 1) * stride - pad + (filt - 1) * dil + 1 > size

        if not (leaves(geo.in_h, geo.filter_h, geo.stride_h, geo.dilation_h, geo.pad_h, geo.out_h)
                or leaves(geo.in_w, geo.filter_w, geo.stride_w, geo.dilation_w, geo.pad_w, geo.out_w)):
            return Null()
        if zp == 0:
            return folded
        data = np.zeros(geo.out_c, np.int32) if bias is None else bias.data.astype(np.int32).reshape(-1)
        return Const("border_bias", data, "int32_t")

    def weight_sums(self, w: np.ndarray) -> np.ndarray:
        """Sum of every output channel's weights (int64)."""
        w64 = w.astype(np.int64)
        return w64.sum(axis=(0, 1, 2)) if self.depthwise else w64.sum(axis=(1, 2, 3))


def _depthwise_as_conv_filter(w: Tensor) -> Tensor:
    """A depthwise filter [1][KH][KW][OC] of one input channel as the CONV_2D filter [OC][KH][KW][1]."""
    _, kh, kw, oc = w.shape
    data = np.ascontiguousarray(np.transpose(np.asarray(w.data).reshape(1, kh, kw, oc), (3, 1, 2, 0)))
    return replace(w, data=data, shape=(oc, kh, kw, 1))


#: The DSP targets' CONV_2D (kernels/arm_dsp/conv2d_s8_q15.h): q15 windows in scratch, re-laid out weights.
Q15_KERNEL = "utvm_conv2d_s8_q15"
#: Largest window (bytes, rounded up to 4) it takes: its scratch is 5 bytes per window byte.
Q15_MAX_DEPTH = 4096
#: conv2d_s8_q15w.h's strips (an output row's input columns as packed q15 words): the largest strip
#: (bytes of scratch) taken; larger rows keep the pixel-pair windows.
Q15_STRIP_MAX_BYTES = 8192


def q15_strip_cols(geo: _Geom) -> int:
    """The input columns of conv2d_s8_q15w.h's strip for this layer (its window of whole q15 words per
    column segment: in_c a multiple of 4, dilation_w 1, a filter larger than 1x1, the strip within
    Q15_STRIP_MAX_BYTES), else 0 (the pixel-pair windows)."""
    if geo.in_c % 4 or geo.dilation_w != 1 or geo.filter_h * geo.filter_w == 1:
        return 0
    cols = (geo.out_w - 1) * geo.stride_w + geo.filter_w
    return cols if 2 * cols * geo.filter_h * geo.in_c <= Q15_STRIP_MAX_BYTES else 0


def conv_q15_call(geo: _Geom, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray, shift: np.ndarray,
                  fields: dict, target: str) -> KernelCall | None:
    """int8 CONV_2D with one group for a target whose kernels have utvm_conv2d_s8_q15, else None.

    Its data: the weights as int32 words, per pair of output channels and per 4 window bytes the
    word of each channel (the window zero-padded to a multiple of 4 bytes, an odd last channel
    paired with a copy of itself: at most one filter row and 3 bytes per row more flash), the
    model's own bias, the last of an odd count twice (taps outside the image are 0 in its q15
    windows, as the reference skips them), and 12 bytes of requantization constants per channel
    (_rq_triplets; the generic kernels take 8).
    """
    if not _has_kernel(Q15_KERNEL, target):
        return None
    depth = geo.filter_h * geo.filter_w * geo.in_c
    depth4 = (depth + 3) // 4 * 4
    if depth4 > Q15_MAX_DEPTH:
        return None
    strip_cols = q15_strip_cols(geo) if widen() and offers(Q15W_KERNEL, target) else 0
    w8 = w.data.astype(np.int8).reshape(geo.out_c, geo.filter_h, geo.filter_w, geo.in_c)
    if strip_cols:  # the strips' windows run column by column: [OC][KW][KH][IC]
        w8 = w8.transpose(0, 2, 1, 3)
    rows = np.ascontiguousarray(w8).reshape(geo.out_c, depth)
    if geo.out_c % 2:
        rows = np.concatenate([rows, rows[-1:]])
    rows = np.pad(rows, ((0, 0), (0, depth4 - depth)))
    words = rows.reshape(-1, 2, depth4 // 4, 4).transpose(0, 2, 1, 3)  # [pair][step][channel][4 bytes]
    w4 = words
    b = np.zeros(geo.out_c, np.int32) if bias is None else bias.data.astype(np.int32).reshape(-1)
    b = np.concatenate([b, b[-1:]]) if geo.out_c % 2 else b
    rq, mode = _rq_triplets(mult, shift, fields["output_offset"], fields["act_min"], fields["act_max"])
    fn = Q15_KERNEL
    widened = widen() and offers(Q15W_KERNEL, target)
    tri = q15w_triples(geo, depth4, mode, strip_cols, widened)
    if tri and not doubled_sums_fit(int(np.abs(b.astype(np.int64)).max()), depth):
        tri = 0  # (twice a sum could leave int32: the pair kernel)
    tri_value = tri + (2 if tri and fields["output_offset"] != -128 else 0)  # (+ 2: the sign term)
    if tri:  # the triple block sums twice the layer's sums for its SMMLAR requantization
        mode = Q15W_RQ2
    if widened:
        # int16 lanes (bytes 0 and 2, bytes 1 and 3) per channel: twice the weight bytes (the
        # triple block's: twice the weights, -256..254)
        lanes = (words.astype(np.int64) * (2 if tri else 1)) & 0xFFFF
        words = np.stack([lanes[..., 0] | (lanes[..., 2] << 16), lanes[..., 1] | (lanes[..., 3] << 16)], axis=-1)
        packed = np.ascontiguousarray(words).reshape(-1).astype(np.uint32).view(np.int32)
        fn = Q15W_KERNEL
    else:
        packed = np.ascontiguousarray(words).view("<i4").reshape(-1).astype(np.int32)
    p = Params("utvm_conv2d_q15_params", {
        "g": fields["g"], "input_offset": -x.quant.zp, "output_offset": fields["output_offset"],
        "act_min": fields["act_min"], "act_max": fields["act_max"], "depth4": depth4, "rq_mode": mode,
        "strip_cols": strip_cols}, selects=("rq_mode", "UTVM_CONV2D_Q15_RQ_MODES"),
        selects_values=(("UTVM_CONV2D_Q15W_TRI", tri_value),))
    fn1 = Q15_1X1_KERNELS[fn]
    if conv_q15_1x1_layer(geo, mode, int(np.abs(b.astype(np.int64)).max())) and offers(fn1, target):
        # per channel pair its two biases, its weights and its two requantization triplets (an odd
        # last channel paired with a copy of itself, as the weights and the bias are); the kernel
        # sums twice the products (widened: the weights doubled here; int8: the inputs at run time)
        # for its SMMLAR requantization: the biases doubled, the triplets (m, 2k, s + 1)
        pairs = (geo.out_c + 1) // 2
        rq2 = rq2_triplets(np.concatenate([rq, rq[-3:]]) if geo.out_c % 2 else rq)
        if fn == Q15_KERNEL:  # int8: per 4 bytes, bytes 0 and 2 interleaved by channel, then 1 and 3
            inter = w4[:, :, :, [0, 2, 1, 3]].reshape(pairs, -1, 2, 2, 2).transpose(0, 1, 3, 4, 2)
            packed = np.ascontiguousarray(inter).reshape(-1).view("<i4").astype(np.int32)
        else:  # int16 lanes of twice the weights (-256..254)
            lanes2 = (w4.astype(np.int64) * 2) & 0xFFFF
            packed = np.stack([lanes2[..., 0] | (lanes2[..., 2] << 16), lanes2[..., 1] | (lanes2[..., 3] << 16)],
                              axis=-1).reshape(-1).astype(np.uint32).view(np.int32)
        widened = fn == Q15W_KERNEL
        odd4 = conv_q15_1x1_odd4(geo.in_c, widened) + 2 * conv_q15_1x1_sign(geo, fields["output_offset"])
        p = replace(p, selects_values=(("UTVM_CONV2D_Q15_1X1_ODD4", odd4),
                                       ("UTVM_CONV2D_Q15_1X1_FORMS", conv_q15_1x1_form(geo, widened))))
        return call(fn1, p, In(0), Const("weights_q15", conv_q15_1x1_stream(b, packed, rq2, geo.out_c), "int32_t"),
                    Scratch("void"), Out(0))
    if tri:  # the block's stream (conv2d_s8_q15w.h utvm_conv2d_q15w_tri_ctx), no separate bias and rq;
        # its last pair flagged as conv2d_q15_1x1.h's (UTVM_CONV2D_Q15W_TRI_LASTPAIR; out_c is even)
        stream = conv_q15_1x1_stream(b, packed, rq2_triplets(rq), geo.out_c)
        return call(fn, p, In(0), Const("weights_q15", stream, "int32_t"),
                    Null(), Null(), Scratch("void"), Out(0))
    return call(fn, p, In(0), Const("weights_q15", packed, "int32_t"), Const("bias", b, "int32_t"),
                Const("requant", rq, "int32_t"), Scratch("void"), Out(0))


#: conv2d_s8_q15w.h UTVM_CONV2D_Q15W_RQ2: the rq_mode of a layer the three-pixel block takes, its
#: weights and biases doubled and its triplets (m, 2k, s + 1) (rq2_triplets; UTVM_DSP_RQ_FULL's range).
Q15W_RQ2 = 3


def pair_stream(bias: np.ndarray, words: np.ndarray, rq2: np.ndarray) -> np.ndarray:
    """Per channel pair its two biases doubled, its weight words (already doubled by the caller)
    and its two triplets (m, 2k, s + 1): the int32 stream of conv2d_q15_1x1.h and of conv2d_s8_q15w.h's
    three-pixel block (an even channel count: the caller pads an odd one)."""
    pairs = bias.size // 2
    return np.concatenate([2 * bias.astype(np.int64).reshape(pairs, 2), words.reshape(pairs, -1),
                           rq2.reshape(pairs, 6)], axis=1).reshape(-1).astype(np.int32)


def conv_q15_1x1_stream(bias: np.ndarray, words: np.ndarray, rq2: np.ndarray, out_c: int) -> np.ndarray:
    """pair_stream for conv2d_q15_1x1.h: the last whole channel pair's loop end flagged in bit 8 of
    its channel c + 1's s + 1 (the kernel's pair loops test it instead of comparing the weight
    pointer with the stream's end, UTVM_CONV2D_Q15_1X1_LASTPAIR; ASR by a register reads the low
    byte alone, the C form masks it). An odd last channel's pair follows, unflagged."""
    stream = pair_stream(bias, words, rq2)
    whole = out_c // 2
    if whole:
        stream[whole * (stream.size // ((out_c + 1) // 2)) - 1] |= 0x100
    return stream


def q15w_triples(geo: _Geom, depth4: int, mode: int, strip_cols: int, widened: bool) -> int:
    """conv2d_s8_q15w.h's three-pixel block a layer takes (its utvm_conv2d_q15w_is_tri): 1 for
    windows of 28 bytes, 2 for 40, 0 for none (widened weights, the full int8 range
    UTVM_DSP_RQ_FULL = 2, an even out_c, no strips, a filter larger than 1x1). Only to leave the
    unused blocks out of the build (UTVM_CONV2D_Q15W_TRI, whose value adds 2 for a layer whose
    output zero point is not -128: the requantization's sign term): the kernel decides from the fields."""
    if (not widened or mode != 2 or geo.out_c % 2 or strip_cols or geo.filter_h * geo.filter_w == 1
            or depth4 not in (28, 40)):
        return 0
    return 1 if depth4 == 28 else 2


#: The DSP CONV_2D with int16 pre-widened weights (kernels/arm_dsp/conv2d_s8_q15w.h; --optimize).
Q15W_KERNEL = "utvm_conv2d_s8_q15w"
#: Their 1x1 entry points (kernels/arm_dsp/conv2d_q15_1x1.h): biases, weights and requantization per
#: channel pair in one stream.
Q15_1X1_KERNELS = {Q15_KERNEL: "utvm_conv2d_s8_q15_1x1", Q15W_KERNEL: "utvm_conv2d_s8_q15w_1x1"}


def conv_q15_1x1_odd4(in_c: int, widened: bool) -> int:
    """1 when a layer of conv2d_q15_1x1.h enters its loops of 8 steps at their second half (steps of 4
    input bytes: widened more than 8, int8 more than 2, an odd multiple of 4), else 0. Only to leave
    the loops' entry test out of the build when no layer needs it (UTVM_CONV2D_Q15_1X1_ODD4, whose
    value adds 2 conv_q15_1x1_sign: the requantization's sign term): the
    kernel decides from the fields (such a layer takes its C form there)."""
    steps = in_c // 4
    return int(steps % 8 == 4 and steps > (8 if widened else 2))


def conv_q15_1x1_form(geo: _Geom, widened: bool) -> int:
    """The block form a 1x1 layer of conv2d_q15_1x1.h takes (UTVM_CONV2D_Q15_1X1_FORMS, bit 1 << form:
    the generated file compiles only the forms its layers use; a layer whose form is left out takes
    the C form): int8 weights 0 (2 steps of 4 input bytes) or 1 (loops of 8 steps); widened 2 (in_c
    8 at stride 1 with out_c a multiple of 4 and at least 3 pixels: every pixel triple in one block),
    6 (the same with a last triple in the per-triple block, 3), 3 (2 steps), 4 (4 steps), 5 (more).
    """
    steps = geo.in_c // 4
    if not widened:
        return 0 if steps == 2 else 1
    if steps != 2:
        return 4 if steps == 4 else 5
    total = geo.batches * geo.out_h * geo.out_w
    dense = (geo.stride_h, geo.stride_w) == (1, 1)  # (1x1 without padding: the input's pixels)
    if dense and geo.out_c % 4 == 0 and total >= 3:
        return 2 if total % 3 == 0 else 6
    return 3


#: conv2d_q15_1x1.h: a layer of at most this many MACs that needs the requantization's sign term
#: (an output zero point other than -128) takes the C form rather than keep the sign term in the
#: assembly of every layer of its file (person_detect's last 1x1 layer: 512 MACs).
Q15_1X1_SIGN_C_MACS = 4096


def conv_q15_1x1_sign(geo: _Geom, output_zp: int) -> int:
    """0 when a 1x1 layer's requantization needs no sign term (output zero point -128: conv2d_q15_1x1.h
    UTVM_CONV2D_Q15_1X1_RQ1 without it), 1 when it does, 2 when it does but is small enough
    (Q15_1X1_SIGN_C_MACS) not to keep the term in the file's assembly (its C form instead)."""
    if output_zp == -128:
        return 0
    macs = geo.batches * geo.out_h * geo.out_w * geo.out_c * geo.in_c
    return 2 if macs <= Q15_1X1_SIGN_C_MACS else 1


def conv_q15_1x1_layer(geo: _Geom, mode: int, bias_max: int = 0) -> bool:
    """Does a layer take its Q15_1X1_KERNELS kernel? 1x1 without padding, input channels a multiple
    of 16 or 8, the full int8 output range (UTVM_DSP_RQ_FULL = 2), and twice any sum in int32 (its
    SMMLAR requantization: the largest bias magnitude bias_max plus in_c products of at most
    255 x 128 under 2^30)."""
    return ((geo.filter_h, geo.filter_w, geo.pad_h, geo.pad_w) == (1, 1, 0, 0)
            and (geo.in_c % 16 == 0 or geo.in_c == 8) and mode == 2 and doubled_sums_fit(bias_max, geo.in_c))
#: --optimize balanced: the extra flash of widened weights is at most this fraction of the int8
#: weight bytes of the model's convolutions and fully connected layers, plus WIDEN_ALLOWANCE bytes ...
WIDEN_BUDGET = 0.35
WIDEN_ALLOWANCE = 16384
#: ... spent on the layers with the most output pixels first (each weight byte is used once per
#: output pixel, and its int16 lane saves about one SXTB16 per 4 uses: per extra byte, pixels / 4
#: instructions per inference), never on layers with fewer than this many (docs/kernel-guide.md).
WIDEN_MIN_PIXELS = 16


def widen() -> bool:
    """Does this layer get int16 pre-widened weights? ``optimize_mode()`` is the layer's "speed" or
    "size" (compiler.layer_optimize resolves "balanced" per layer with :func:`balanced_plan`; a
    prepare outside a compile, e.g. `info`'s support check, sees "balanced": no)."""
    return optimize_mode() == "speed"


def widen_candidate(g: Graph, op: Operator) -> tuple[int, int] | None:
    """(output pixels, extra flash bytes of int16 weights) of an int8 CONV_2D with one group or a
    DEPTHWISE_CONV_2D of one input channel (a CONV_2D for the DSP kernels), else None."""
    if op.op not in ("CONV_2D", "DEPTHWISE_CONV_2D") or len(op.inputs) < 2 or op.inputs[1] < 0:
        return None
    x, w = g.tensors[op.inputs[0]], g.tensors[op.inputs[1]]
    if not w.is_const or w.dtype != "int8" or x.dtype != "int8" or len(w.shape) != 4 or len(x.shape) != 4:
        return None
    if op.op == "CONV_2D" and w.shape[3] == x.shape[3]:
        oc = w.shape[0]
    elif op.op == "DEPTHWISE_CONV_2D" and x.shape[3] == 1:
        oc = w.shape[3]
    else:
        return None
    if oc <= 0:
        return None
    depth4 = (w.size // oc + 3) // 4 * 4
    return g.tensors[op.outputs[0]].size // oc, (oc + oc % 2) * depth4  # int16: one more byte per byte


def balanced_plan(g: Graph) -> set[int]:
    """The operators (indices) whose weights ``--optimize balanced`` widens (:func:`widen_candidate`),
    by output pixels (most first, at least WIDEN_MIN_PIXELS) while the extra bytes stay within
    WIDEN_BUDGET of the model's int8 weight bytes plus WIDEN_ALLOWANCE."""
    weights = 0
    layers = []
    for sg in g.all_graphs:
        for op in sg.operators:
            if op.op in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED") and len(op.inputs) > 1 \
                    and op.inputs[1] >= 0 and sg.tensors[op.inputs[1]].is_const \
                    and sg.tensors[op.inputs[1]].dtype == "int8":
                weights += sg.tensors[op.inputs[1]].size
            cand = widen_candidate(sg, op)
            if cand is not None and cand[0] >= WIDEN_MIN_PIXELS:
                layers.append((-cand[0], op.index, cand[1]))
    chosen: set[int] = set()
    spent = 0
    for _, index, extra in sorted(layers):
        if spent + extra > WIDEN_BUDGET * weights + WIDEN_ALLOWANCE:
            break
        spent += extra
        chosen.add(index)
    return chosen


#: The DSP targets' DEPTHWISE_CONV_2D (kernels/arm_dsp/depthwise_conv2d_s8_q15.h).
DW_Q15_KERNEL = "utvm_depthwise_conv2d_s8_q15"
#: Scratch of its bands of input rows (bytes; one band of the fewest rows may take more). 8 KB: VWW's
#: and person_detect's 48x48 / 24x24 layers in fewer bands (the 2 halo rows filled again per band),
#: their workspace unchanged (the scratch fits under the peak); 4 KB before (docs/kernel-guide.md).
DW_Q15_BAND_BYTES = 8192
#: ... under --memory balanced|min and --ram-limit (selection.scratch_frugal), where the workspace's
#: peak is low enough for 4 KB more to show (person_detect --memory min: 28 616 B with 8 KB, 24 368 B
#: with 4 KB, for about 1 % more cycles in its depthwise layers).
DW_Q15_BAND_BYTES_FRUGAL = 4096


def _has_kernel(fn: str, target: str) -> bool:
    """May this layer take the target path whose kernel is ``fn``? (selection.offers: the target
    has it and the layer's tuning does not exclude it; ``utvm-build tune`` measures both ways.)"""
    return offers(fn, target)


def _rq_triplets(mult: np.ndarray, shift: np.ndarray, zp: int, lo: int, hi: int) -> tuple[np.ndarray, int]:
    """The requantization constants of the DSP kernels (kernels/arm_dsp/dsp_s8.h utvm_dsp_rq3): per
    channel three int32 and the operator's mode. UTVM_DSP_RQ_FAST (1) or _FULL (2, clamp range
    -128..127) when every shift -e is in -31..-2 and e <= 22: (m, 2^(e-2) + zp 2^(e-1), e - 1), the
    output zero point folded into the rounding constant; else UTVM_DSP_RQ_ANY (0): (m, 0, shift)."""
    e = -shift.astype(np.int64)
    if bool(np.all((e >= 2) & (e <= 22))):
        cols = [mult.astype(np.int64), np.left_shift(1, e - 2) + zp * np.left_shift(1, e - 1), e - 1]
        mode = 2 if (lo, hi) == (-128, 127) else 1
    else:
        cols = [mult.astype(np.int64), np.zeros_like(e), shift.astype(np.int64)]
        mode = 0
    return np.stack(cols, axis=1).astype(np.int32).reshape(-1), mode


def rq2_triplets(rq: np.ndarray) -> np.ndarray:
    """_rq_triplets' UTVM_DSP_RQ_FULL triplets (m, k, s) as the (m, 2k, s + 1) of the requantization
    of twice the sum (dsp_s8.h UTVM_DSP_RQ2_TEXT / utvm_dsp_rq2), [channel][3] int64."""
    return rq.astype(np.int64).reshape(-1, 3) * np.array([1, 2, 1]) + np.array([0, 0, 1])


def doubled_sums_fit(bias_max: int, products: int, product_max: int = 255 * 128) -> bool:
    """Does twice every sum (bias plus ``products`` products of at most ``product_max``) stay in
    int32, as the requantization of twice the sum needs (utvm_dsp_rq2)?"""
    return bias_max + products * product_max < 2 ** 30


def depthwise_q15_call(geo: _Geom, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray,
                       shift: np.ndarray, fields: dict, target: str) -> KernelCall | None:
    """int8 DEPTHWISE_CONV_2D, depth multiplier 1 and channels a multiple of 4, or one input channel
    and a multiple of 4 output channels (one plane for all), for a target whose kernels have
    utvm_depthwise_conv2d_s8_q15, else None.

    Its data: the weights as int16 (2x the weight bytes), per channel its taps row by row; the
    model's own bias, and 12 bytes of requantization constants per channel (_rq_triplets). 3x3
    filters (dilation_w 1) at the full int8 range whose doubled sums fit int32 take weights and
    biases doubled, for the requantization of twice the sum (rq_mode 3 with the triplets of
    rq2_triplets, or 4 with UTVM_DSP_RQ_ANY's, the kernel converting them). Bands of output rows
    whose input rows fit DW_Q15_BAND_BYTES of scratch.
    """
    if not _has_kernel(DW_Q15_KERNEL, target):
        return None
    taps = geo.filter_h * geo.filter_w
    wt = w.data.astype(np.int64).reshape(taps, geo.out_c).T  # [channel][tap]
    strides = {"in_sx": geo.in_c, "in_sy": geo.in_w * geo.in_c, "out_sx": geo.out_c, "out_sy": geo.out_w * geo.out_c}
    gf = fields["g"]
    if _dw_transpose(geo):
        # the map's transpose (rows of out_h pixels): the filter transposed, the strides swapped
        wt = wt.reshape(geo.out_c, geo.filter_h, geo.filter_w).transpose(0, 2, 1).reshape(geo.out_c, taps)
        strides = {"in_sx": strides["in_sy"], "in_sy": strides["in_sx"], "out_sx": strides["out_sy"],
                   "out_sy": strides["out_sx"]}
        geo = _transposed(geo)
        gf = vars(geo)
    b = np.zeros(geo.out_c, np.int32) if bias is None else bias.data.astype(np.int32).reshape(-1)
    rq, mode = _rq_triplets(mult, shift, fields["output_offset"], fields["act_min"], fields["act_max"])
    if dw_q15_doubled(geo, mode, (fields["act_min"], fields["act_max"]), int(np.abs(b.astype(np.int64)).max())):
        # the weights (int16 lanes: -256..254 fit) and the biases doubled, the FULL triplets (m, 2k, s + 1)
        wt = 2 * wt
        b = (2 * b.astype(np.int64)).astype(np.int32)
        if mode == 2:
            rq = rq2_triplets(rq).reshape(-1).astype(np.int32)
        mode = 3 if mode == 2 else 4
    words = wt.astype(np.int16).reshape(-1).view("<u2").astype(np.int64)
    words = words[0::2] | (words[1::2] << 16)
    split = words.astype(np.uint32).view(np.int32)
    cols = (geo.out_w - 1) * geo.stride_w + (geo.filter_w - 1) * geo.dilation_w + 1
    band = geo.out_h
    limit = DW_Q15_BAND_BYTES_FRUGAL if scratch_frugal() else DW_Q15_BAND_BYTES
    while band > 1 and _dw_rows_in(geo, band) * cols * 8 > limit:
        band -= 1
    p = Params("utvm_dw_q15_params", {
        "g": gf, "input_offset": -x.quant.zp, "output_offset": fields["output_offset"],
        "act_min": fields["act_min"], "act_max": fields["act_max"], "band_rows": band, "cols": cols,
        "rq_mode": mode, **strides}, selects_values=(("UTVM_DW_Q15_SIGN", dw_q15_sign(mode, fields["output_offset"])),))
    return call(DW_Q15_KERNEL, p, In(0), Const("weights_q15", split, "int32_t"), Const("bias", b, "int32_t"),
                Const("requant", rq, "int32_t"), Scratch("void"), Out(0))


#: The DSP targets' DEPTHWISE_CONV_2D of tiny output maps (kernels/arm_dsp/depthwise_conv2d_s8_tiny.h).
DW_TINY_KERNEL = "utvm_depthwise_conv2d_s8_tiny"
#: Its largest output map (out_h x out_w pixels): below it the q15 band kernel's per-channel band fill
#: and set-up (about 455 M4 cycles a channel) outweigh its faster multiply-accumulates
#: (docs/kernel-guide.md, ninth round).
DW_TINY_MAX_PIXELS = 9


def depthwise_tiny_call(geo: _Geom, x: Tensor, w: Tensor, bias: Tensor | None, mult: np.ndarray,
                        shift: np.ndarray, fields: dict, target: str) -> KernelCall | None:
    """int8 DEPTHWISE_CONV_2D, depth multiplier 1, channels a multiple of 4, a 3x3 filter without
    dilation, input rows of at least 2 columns (every output pixel then has 2 or 3 columns of taps
    inside, SAME or VALID: the kernel's assembly has those two row forms), the full int8 range
    (_rq_triplets' UTVM_DSP_RQ_FULL) with twice every sum in int32, and at most DW_TINY_MAX_PIXELS
    output pixels, for a target whose kernels have
    utvm_depthwise_conv2d_s8_tiny (the DSP targets whose depthwise is the q15 band kernel), else None.
    Its data: the model's int8 weights per block of 4 channels ([C/4][KH][KW][4]: a block's taps in
    36 contiguous bytes) and per block one record of its 4 biases (zeros without a bias) and 4
    rq2_triplets (the requantization of twice the sum), 64 bytes."""
    if (geo.depth_multiplier != 1 or geo.in_c % 4 != 0 or geo.out_h * geo.out_w > DW_TINY_MAX_PIXELS
            or (geo.filter_h, geo.filter_w, geo.dilation_h, geo.dilation_w) != (3, 3, 1, 1) or geo.in_w < 2
            or not _has_kernel(DW_TINY_KERNEL, target)):
        return None
    b = np.zeros(geo.out_c, np.int32) if bias is None else bias.data.astype(np.int32).reshape(-1)
    rq, mode = _rq_triplets(mult, shift, fields["output_offset"], fields["act_min"], fields["act_max"])
    if mode != 2 or not doubled_sums_fit(int(np.abs(b.astype(np.int64)).max()), 9):
        return None  # the band kernel's other modes
    zp = fields["output_offset"]
    p = Params("utvm_dw_tiny_params", {"g": fields["g"], "input_offset": -x.quant.zp, "output_offset": zp},
               selects_values=(("UTVM_DW_TINY_SIGN", int(zp != -128)),))
    blocks = geo.out_c // 4
    weights = w.data.astype(np.int8).reshape(9, blocks, 4).transpose(1, 0, 2).reshape(-1)
    # per block of 4 channels one record: the 4 biases, then the 4 triplets (m, 2k, s + 1)
    stream = np.concatenate([b.astype(np.int64).reshape(blocks, 4), rq2_triplets(rq).reshape(blocks, 12)], axis=1)
    return call(DW_TINY_KERNEL, p, In(0), Const("weights", weights, "int8_t"),
                Const("bias_requant", stream.reshape(-1).astype(np.int32), "int32_t"), Out(0))


def dw_q15_sign(mode: int, output_zp: int) -> int:
    """1 when a depthwise_q15_call layer's assembly steps need the requantization's sign term (the
    doubled sums, rq_mode 3 or 4, at an output zero point other than -128), else 0. Only to leave
    the term out of the build when no layer needs it (depthwise_conv2d_s8_q15.h UTVM_DW_Q15_SIGN):
    the kernel decides from the fields (such a layer takes its C form there)."""
    return int(mode in (3, 4) and output_zp != -128)


def dw_q15_doubled(geo: _Geom, mode: int, act: tuple[int, int], bias_max: int) -> bool:
    """Does a depthwise_q15_call layer sum twice the products (weights and biases doubled) for the
    requantization of twice the sum (dsp_s8.h UTVM_DSP_RQ2_TEXT, the kernel's rq_mode 3, or 4 from
    UTVM_DSP_RQ_ANY, each channel turned to 3 at run time where its shift allows)? 3x3 filters without
    dilation along the rows (the kernel's assembly steps), mode UTVM_DSP_RQ_FULL (2) or _ANY (0) at
    the full int8 range, and twice every sum in int32 (bias_max: the largest bias magnitude)."""
    return ((geo.filter_h, geo.filter_w, geo.dilation_w) == (3, 3, 1) and mode in (0, 2) and act == (-128, 127)
            and doubled_sums_fit(bias_max, geo.filter_h * geo.filter_w))


def _dw_row_cost(rows: int, n: int) -> int:
    """Estimated M4 cycles of one channel's rows x n 3x3 pixels in depthwise_conv2d_s8_q15.h (4-pixel
    steps about 100, the 1-2 pixels left by the pair loop 65 / 85, 3 left by one more step, about
    30 per row)."""
    return rows * (100 * (n // 4) + (0, 65, 85, 100)[n % 4] + 30)


def _dw_transpose(geo: _Geom) -> bool:
    """Run the layer as its transpose? 3x3 without dilation, several input channels (the planes are
    filled from input positions in_c or in_w x in_c bytes apart) and fewer estimated cycles that way:
    KWS's 25x5 maps (rows of 5: one 4-pixel step and a single; transposed, rows of 25)."""
    if (geo.filter_h, geo.filter_w, geo.dilation_h, geo.dilation_w) != (3, 3, 1, 1) or geo.in_c == 1:
        return False
    return _dw_row_cost(geo.out_w, geo.out_h) < _dw_row_cost(geo.out_h, geo.out_w)


def _transposed(geo: _Geom) -> _Geom:
    """The geometry of the transposed maps (rows and columns swapped)."""
    return replace(geo, in_h=geo.in_w, in_w=geo.in_h, filter_h=geo.filter_w, filter_w=geo.filter_h,
                   out_h=geo.out_w, out_w=geo.out_h, stride_h=geo.stride_w, stride_w=geo.stride_h,
                   dilation_h=geo.dilation_w, dilation_w=geo.dilation_h, pad_h=geo.pad_w, pad_w=geo.pad_h)


def _dw_rows_in(geo: _Geom, rows: int) -> int:
    return (rows - 1) * geo.stride_h + (geo.filter_h - 1) * geo.dilation_h + 1


@register("CONV_2D")
class Conv2D(_ConvBase):
    depthwise = False
    family = "conv2d"


@register("DEPTHWISE_CONV_2D")
class DepthwiseConv2D(_ConvBase):
    depthwise = True
    family = "depthwise_conv2d"

    def macs(self, op: Operator, g: Graph) -> int:
        geo = self.geometry(op, g)
        return out_tensor(g, op).size * geo.filter_h * geo.filter_w
