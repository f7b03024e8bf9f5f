"""FULLY_CONNECTED: int8, int16x8 and float32 (TFLite reference semantics).

16x8 with an int64 bias accumulates in int64 and rounds with the int64 MultiplyByQuantizedMultiplier;
without a bias or with an int32 bias the reference instantiates its int32-bias template: int32 sums
and the int32 (double rounding) MultiplyByQuantizedMultiplier, which differs by one in places.
Per-tensor weights: the multiplier is ``float32(input_scale * filter_scale) / output_scale``
(GetQuantizedConvolutionMultipler). Per-channel weights (quantized_dimension 0, one scale per output
unit; tflite-runtime 2.14's reference runs FullyConnectedPerChannel for int8 and int16): one
multiplier per output unit, ``double(input_scale) * double(filter_scale[c]) / double(output_scale)``
as PopulateConvolutionQuantizationParams computes it for convolutions.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import (
    MAX_MULTIPLIER,
    MAX_MULTIPLIER_64,
    activation_range_float,
    activation_range_quantized,
    quantize_multiplier,
)
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
from .hybrid import is_hybrid, prepare_hybrid_fc
from .limits import check_accumulators
from .multipliers import conv_multiplier, per_channel_multipliers, unit_multipliers

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def acc32(dtype: str, bias) -> int:
    """16x8 without an int64 bias: the reference's int32 instantiation (int32 sums, int32 rounding)."""
    return int(dtype == "int16" and (bias is None or bias.dtype == "int32"))


@register("FULLY_CONNECTED")
class FullyConnected(OpHandler):
    supported = ("int8, int16 (16x8), float32, float32 with per-tensor int8 weights (hybrid); per-tensor or "
                 "per-channel (int8/int16) weights")

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
                expect_quant(op, t, role, per_channel_ok=role == "weights")
            if np.any(w.quant.zero_point != 0):
                raise fail(op, "weights must be symmetrically quantized (zero point 0)")
            if w.quant.per_channel and (w.quant.axis != 0 or len(w.quant.scale) != out_depth):
                raise fail(op, f"per-channel weights need one scale per output unit ({out_depth}) on "
                               f"dimension 0, got {len(w.quant.scale)} on dimension {w.quant.axis}")
            if x.dtype == "int16" and (x.quant.zp != 0 or out.quant.zp != 0):
                raise fail(op, "int16 activations must have zero point 0")
            sums = np.abs(w.data.astype(np.int64)).sum(axis=1)
            check_accumulators(op, x, w, bias, sums, unit_multipliers(x, w, out, out_depth))

    def macs(self, op: Operator, g: Graph) -> int:
        return out_tensor(g, op).size * tensor(g, op, 1).shape[1]

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        if is_hybrid(op, g):  # float32 activations, int8 weights: ops/hybrid.py
            return prepare_hybrid_fc(op, g)
        self.validate(op, g)
        x, w, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        bias = g.input_tensor(op, 2)
        out_depth, depth = w.shape
        act = op.options.get("fused_activation_function", "NONE")
        macs = self.macs(op, g)
        common = {"batches": x.size // depth, "accum_depth": depth, "out_depth": out_depth}
        if x.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_fc_f32_params", {**common, "act_min": lo, "act_max": hi})
            b: Operand = In(2) if bias is not None else Null()
            return Prepared([call("utvm_fully_connected_f32", p, In(0), In(1), b, Out(0))], macs=macs)
        blk4 = fc_blk4_call(op, g, common, act, target)  # DSP targets: re-laid out weights
        if blk4 is not None:
            return Prepared([blk4], macs=macs)
        if w.quant.per_channel:
            return Prepared([self._per_channel(op, g, common, act)], macs=macs)
        mult, shift = quantize_multiplier(conv_multiplier(x.quant.s, w.quant.s, out.quant.s),
                                          MAX_MULTIPLIER if x.dtype == "int8" else MAX_MULTIPLIER_64)
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        fields = {**common, "output_offset": out.quant.zp, "multiplier": mult, "shift": shift,
                  "act_min": lo, "act_max": hi, "acc32": acc32(x.dtype, bias)}
        p = Params("utvm_fc_q_params", fields)
        b = self._bias(op, x, w, bias)
        return Prepared([call(f"utvm_fully_connected_{dtype_suffix(x.dtype)}", p, In(0), In(1), b, Out(0))],
                        macs=macs)

    @staticmethod
    def _bias(op: Operator, x: Tensor, w: Tensor, bias: Tensor | None) -> Operand:
        """int8: the bias with ``-input_zero_point * sum(weights)`` folded in; int16: int64 bias."""
        if x.dtype == "int8":
            folded = w.data.astype(np.int64).sum(axis=1) * -x.quant.zp
            if bias is not None:
                folded = folded + bias.data.astype(np.int64)
            if np.any(np.abs(folded) >= 2**31):
                raise fail(op, "the folded bias does not fit in int32")
            return Const("bias", folded.astype(np.int32), "int32_t")
        return Null() if bias is None else Const("bias", bias.data.astype(np.int64), "int64_t")

    def _per_channel(self, op: Operator, g: Graph, common: dict, act: str) -> KernelCall:
        x, w, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        bias = g.input_tensor(op, 2)
        mult, shift = per_channel_multipliers(x, w, out, w.shape[0])
        lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
        p = Params("utvm_fc_q_params", {**common, "output_offset": out.quant.zp, "multiplier": 0,
                                        "shift": 0, "act_min": lo, "act_max": hi,
                                        "acc32": acc32(x.dtype, bias)})
        m = Const("multipliers", mult, "int32_t")
        sh = Const("shifts", shift, "int32_t")
        b = self._bias(op, x, w, bias)
        return call(f"utvm_fully_connected_{dtype_suffix(x.dtype)}_pc", p, m, sh, In(0), In(1), b, Out(0))


#: The DSP targets' int8 FULLY_CONNECTED (kernels/arm_dsp/fully_connected_s8_blk4.h).
BLK4_KERNEL = "utvm_fully_connected_s8_blk4"
#: fully_connected_s8_blk4.h UTVM_FC_BLK4_RQ2: the requantization of twice the sum (+ 1: a triplet
#: per unit, UTVM_FC_BLK4_RQ2_PC).
FC_RQ2_MODE = 3
#: The largest product of a raw int8 input and an int8 weight (the folded bias takes the zero point).
FC_PRODUCT_MAX = 128 * 128


def fc_blk4_call(op: Operator, g: Graph, common: dict, act: str, target: str) -> KernelCall | None:
    """int8 FULLY_CONNECTED for a target whose FULLY_CONNECTED rows are the DSP ones (not Helium's)
    and a depth that is a multiple of 4, else None.

    Its data: per block of 4 output units their folded biases, then per 4 input bytes the 4 units'
    weight words next to each other (units padded to a multiple of 4 with zero rows and biases), and
    the requantization triplets of ops/conv.py _rq_triplets (one per unit, or one for per-tensor
    weights). Flash: the weights' size (plus at most 3 padded rows), 12 bytes of constants per unit
    with per-channel weights (generic: 8), 12 in all per-tensor. Scratch: the input row widened to
    int16 lanes (2 x depth + 4 bytes, kernel_table.py). More than 4 units (a multiple of 4) at the
    full int8 range, a depth of a multiple of 32 and twice every sum within int32: rq_mode 3 (4 with
    per-channel weights), the requantization of twice the sum (biases doubled, the triplets of
    ops/conv.py rq2_triplets; the kernel doubles the input lanes), the row in one inline assembly
    block. The file compiles only the row loops of its calls' modes (UTVM_FC_BLK4_RQ_MODES)."""
    from .. import kernel_table
    from .conv import _has_kernel, _rq_triplets, doubled_sums_fit, per_channel_multipliers, rq2_triplets

    x, w, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
    if x.dtype != "int8" or w.dtype != "int8" or out.dtype != "int8" or not _has_kernel(BLK4_KERNEL, target):
        return None
    if kernel_table.spec("utvm_fully_connected_s8_rows", target).variant != "arm_dsp":
        return None
    units, depth = w.shape
    if depth % 4 or depth == 0:
        return None
    if w.quant.per_channel:
        mult, shift = per_channel_multipliers(x, w, out, units)
    else:
        m, s = quantize_multiplier(conv_multiplier(x.quant.s, w.quant.s, out.quant.s), MAX_MULTIPLIER)
        mult, shift = np.array([m], np.int64), np.array([s], np.int64)
    lo, hi = activation_range_quantized(act, out.dtype, out.quant.s, out.quant.zp)
    rq, mode = _rq_triplets(np.asarray(mult), np.asarray(shift), out.quant.zp, lo, hi)
    units4 = (units + 3) // 4 * 4
    rows = np.pad(w.data.astype(np.int8).reshape(units, depth), ((0, units4 - units), (0, 0)))
    words = rows.reshape(units4 // 4, 4, depth // 4, 4).transpose(0, 2, 1, 3)
    words = np.ascontiguousarray(words).view("<i4").reshape(units4 // 4, depth).astype(np.int32)
    folded = FullyConnected._bias(op, x, w, g.input_tensor(op, 2))
    bias = np.pad(np.asarray(folded.values, np.int32).reshape(-1), (0, units4 - units))
    bias_max = int(np.abs(bias.astype(np.int64)).max())
    if (mode == 2 and units > 4 and units % 4 == 0 and depth % 32 == 0
            and doubled_sums_fit(bias_max, depth, FC_PRODUCT_MAX)):
        # the requantization of twice the sum (UTVM_FC_BLK4_RQ2 / _PC, the kernel's row in one
        # assembly block): biases doubled here, the input lanes by the kernel's widening
        mode = FC_RQ2_MODE + int(len(mult) > 1)
        bias, rq = bias * 2, rq2_triplets(rq).reshape(-1).astype(np.int32)
    packed = np.concatenate([bias.reshape(units4 // 4, 4), words], axis=1).reshape(-1)  # a block's biases first
    p = Params("utvm_fc_blk4_params", {
        "batches": common["batches"], "depth": depth, "units": units, "output_offset": out.quant.zp,
        "act_min": lo, "act_max": hi, "rq_step": 3 if len(mult) > 1 else 0, "rq_mode": mode},
        selects=("rq_mode", "UTVM_FC_BLK4_RQ_MODES"))
    return call(BLK4_KERNEL, p, In(0), Const("weights_blk4", packed, "int32_t"), Const("requant", rq, "int32_t"),
                Scratch("void"), Out(0))
