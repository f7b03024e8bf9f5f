"""Dynamic-range ("hybrid") CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: float32 activations,
int8 constant weights (per-tensor or per-channel), float32 bias; what TensorFlow's converter writes
with default optimizations and no calibration data. TFLite Micro refuses these models; this
follows tflite-runtime 2.14's hybrid kernels (kernels/hybrid*.h):

- FULLY_CONNECTED (fully_connected.cc EvalHybridDense): each batch row quantized at run time,
  symmetric or, with the ``asymmetric_quantize_inputs`` option, asymmetric; the weight scale is
  folded into the batch scale; asymmetric inputs subtract row_sum * input offset (row sums of the
  constant weights computed here). Per-channel weights are refused: 2.14 multiplies by the legacy
  per-tensor scale, 0 for a per-channel tensor, and outputs the bias;
- CONV_2D (conv.cc; a bias is required): weights with one scale take EvalHybrid: symmetric
  per-batch quantization of the whole image, filter scale folded. Per-channel scales that are all
  equal take that path too, where 2.14 multiplies by the legacy scale 0 (bias only); here the
  common scale is used, as a per-tensor model computes (tested against that model);
  per-channel weights with different scales, or grouped convolutions (per-channel scales required:
  2.14 reads past a per-tensor scale there), take EvalHybridPerChannel:
  asymmetric per-batch quantization, taps inside the image accumulate w * (q - offset);
- DEPTHWISE_CONV_2D (depthwise_conv.cc EvalHybridPerChannel): asymmetric per batch, per-channel
  scales (a per-tensor scale only with one output channel: 2.14 reads past it otherwise);
- BATCH_MATMUL (batch_matmul.cc EvalHybrid) with a constant per-tensor int8 RHS: every LHS row
  quantized on its own (symmetric or asymmetric per ``asymmetric_quantize_inputs``), row sums of the
  transposed RHS, the offset correction in float as the reference computes it; adj_x,
  per-channel RHS scales (2.14 outputs zeros) and more than one batch dimension above 1 per operand
  (2.14 steps its per-row scales and row sums by one matrix per dimension) are refused.

The scratch holds the quantized input (int8), one float scale and one int32 offset per batch.
Outputs are float: equal to the reference within float rounding (tests/test_ops_hybrid.py).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import activation_range_float
from .base import OpHandler, expect_const, expect_counts, expect_dtype, expect_quant, fail, out_tensor, tensor
from .batch_matmul_geometry import MAX_DEPTH_S8, geometry, rhs_operand
from .call import Const, In, Null, Operand, Out, Params, Prepared, Scratch, call

_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
#: largest accumulation depth whose int32 sums cannot overflow (the reference would overflow
#: silently): |w x q| <= 127 x 128 plus |row_sum x offset| <= 127 x 128 per term, or
#: |w x (q - offset)| <= 127 x 255 per tap
MAX_DEPTH = (1 << 31) // (2 * 128 * 128) - 1


def is_hybrid(op: Operator, g: Graph) -> bool:
    """float32 input with int8 weights (input 1)."""
    x, w = g.input_tensor(op, 0), g.input_tensor(op, 1)
    return x is not None and w is not None and x.dtype == "float32" and w.dtype == "int8"


def _f32(v: float) -> float:
    return float(np.float32(v))


def _check_common(op: Operator, g: Graph, w: Tensor, channels: int, axis: int) -> tuple[Operand, Operand]:
    """Output, weights and bias checks; returns (bias operand, per-channel scales operand or Null)."""
    out = out_tensor(g, op)
    expect_dtype(op, out, ("float32",), "output")
    expect_const(op, w, "weights")
    expect_quant(op, w, "weights", per_channel_ok=True)
    if np.any(w.quant.zero_point != 0):
        raise fail(op, "hybrid int8 weights must be symmetrically quantized (zero points 0)")
    if w.quant.per_channel and (w.quant.axis != axis or len(w.quant.scale) != channels):
        raise fail(op, f"per-channel weight quantization must be along dimension {axis} ({channels} scales), "
                       f"got {len(w.quant.scale)} along {w.quant.axis}")
    act = op.options.get("fused_activation_function", "NONE")
    if act not in _ACTS:
        raise fail(op, f"fused activation {act} is not supported ({', '.join(_ACTS)})")
    bias = g.input_tensor(op, 2)
    b: Operand = Null()
    if bias is not None:
        expect_const(op, bias, "bias")
        expect_dtype(op, bias, ("float32",), "bias")
        if bias.size != channels:
            raise fail(op, f"bias has {bias.size} values, expected {channels}")
        b = In(2)
    scales = np.asarray(w.quant.scale, dtype=np.float32)
    cs: Operand = Const("channel_scale", np.broadcast_to(scales, (channels,)).copy(), "float")
    return b, cs


def _quantize_call(batches: int, batch_size: int, asymmetric: bool, fold: float | None) -> tuple:
    p = Params("utvm_hybrid_q_params", {"batches": batches, "batch_size": batch_size, "asymmetric": int(asymmetric),
                                        "fold_filter_scale": int(fold is not None),
                                        "filter_scale": 1.0 if fold is None else fold}, "quant")
    q_bytes = (batches * batch_size + 3) // 4 * 4
    scratch = (Scratch("int8_t", 0), Scratch("float", q_bytes), Scratch("int32_t", q_bytes + 4 * batches))
    return call("utvm_hybrid_quantize", p, In(0), *scratch), scratch, q_bytes + 8 * batches


def prepare_hybrid_fc(op: Operator, g: Graph) -> Prepared:
    expect_counts(op, (2, 3))
    x, w, out = tensor(g, op, 0), tensor(g, op, 1, "weights"), out_tensor(g, op)
    if len(w.shape) != 2:
        raise fail(op, f"weights must be 2-D, got {list(w.shape)}")
    if op.options.get("weights_format", "DEFAULT") != "DEFAULT":
        raise fail(op, "shuffled weights format is not supported")
    units, depth = w.shape
    if depth <= 0 or x.size % depth or out.size != x.size // depth * units:
        raise fail(op, f"shapes do not match: input {list(x.shape)}, weights {list(w.shape)}, output {list(out.shape)}")
    if depth > MAX_DEPTH:
        raise fail(op, f"accumulation depth {depth} could overflow the int32 accumulator; at most {MAX_DEPTH}")
    b, cs = _check_common(op, g, w, units, 0)
    if w.quant.per_channel:
        raise fail(op, "per-channel int8 weights with float32 activations: tflite-runtime 2.14's hybrid "
                       "FULLY_CONNECTED ignores per-channel scales (it outputs the bias); use per-tensor weights")
    asym = bool(op.options.get("asymmetric_quantize_inputs", False))
    batches = x.size // depth
    per_channel = w.quant.per_channel
    fold = None if per_channel else _f32(w.quant.s)
    qc, (sq, ssf, soff), nbytes = _quantize_call(batches, depth, asym, fold)
    lo, hi = activation_range_float(op.options.get("fused_activation_function", "NONE"))
    row_sums = Const("row_sums", w.data.astype(np.int32).sum(axis=1).astype(np.int32), "int32_t")
    p = Params("utvm_hybrid_fc_params", {"batches": batches, "accum_depth": depth, "out_depth": units,
                                         "asymmetric": int(asym), "act_min": lo, "act_max": hi})
    fc = call("utvm_hybrid_fc", p, sq, ssf, soff, In(1), row_sums, b, cs if per_channel else Null(), Out(0))
    return Prepared([qc, fc], macs=out.size * depth, scratch_bytes=nbytes)


def prepare_hybrid_conv(handler: OpHandler, op: Operator, g: Graph) -> Prepared:
    """``handler``: the CONV_2D / DEPTHWISE_CONV_2D handler of ops/conv.py (its geometry)."""
    expect_counts(op, (2, 3))
    depthwise = bool(getattr(handler, "depthwise", False))
    x, w, out = tensor(g, op, 0), tensor(g, op, 1, "filter"), out_tensor(g, op)
    geo = handler.geometry(op, g)  # type: ignore[attr-defined]
    taps = geo.filter_h * geo.filter_w * geo.filter_in_c
    if taps > MAX_DEPTH:
        raise fail(op, f"a window of {taps} taps could overflow the int32 accumulator; at most {MAX_DEPTH}")
    b, cs = _check_common(op, g, w, geo.out_c, 3 if depthwise else 0)
    if not depthwise and g.input_tensor(op, 2) is None:
        raise fail(op, "a hybrid CONV_2D needs a bias (conv.cc requires it for float32 input with int8 filter)")
    scales = np.asarray(w.quant.scale, dtype=np.float32)
    groups = geo.in_c // geo.filter_in_c
    if (depthwise or groups != 1) and not w.quant.per_channel and geo.out_c > 1:
        what = "DEPTHWISE_CONV_2D" if depthwise else "grouped CONV_2D"
        raise fail(op, f"a hybrid {what} needs per-channel filter scales (the reference reads one scale per "
                       "output channel from a per-tensor filter, past its end)")
    per_channel_path = depthwise or groups != 1 or (w.quant.per_channel and bool(np.any(scales != scales[0])))
    batches = geo.batches
    fold = None if per_channel_path else _f32(w.quant.s)
    qc, (sq, ssf, soff), nbytes = _quantize_call(batches, x.size // batches, per_channel_path, fold)
    lo, hi = activation_range_float(op.options.get("fused_activation_function", "NONE"))
    mode = 2 if depthwise else (1 if per_channel_path else 0)
    p = Params("utvm_hybrid_conv_params", {"g": vars(geo), "depthwise": int(depthwise), "scale_mode": mode,
                                           "act_min": lo, "act_max": hi})
    conv = call("utvm_hybrid_conv", p, sq, ssf, soff, In(1), b, cs if mode else Null(), Out(0))
    return Prepared([qc, conv], macs=out.size * taps, scratch_bytes=nbytes)


def prepare_hybrid_bmm(op: Operator, g: Graph) -> Prepared:
    """BATCH_MATMUL with a float32 LHS and a constant int8 RHS (batch_matmul.cc EvalHybrid)."""
    lhs, rhs, out = tensor(g, op, 0, "lhs"), tensor(g, op, 1, "rhs"), out_tensor(g, op)
    expect_dtype(op, out, ("float32",), "output")
    expect_const(op, rhs, "rhs")
    if op.options.get("adj_x", False):
        raise fail(op, "hybrid BATCH_MATMUL with adj_x is not supported (the reference quantizes the transposed "
                       "LHS); use adj_x false")
    geo = geometry(op, g)
    if geo["depth"] > min(MAX_DEPTH, MAX_DEPTH_S8):
        raise fail(op, f"accumulation depth {geo['depth']} could overflow the int32 accumulator")
    n, k = geo["cols"], geo["depth"]
    rank = len(rhs.shape)
    expect_quant(op, rhs, "rhs", per_channel_ok=True)
    if np.any(rhs.quant.zero_point != 0):
        raise fail(op, "hybrid int8 RHS must be symmetrically quantized (zero points 0)")
    if rhs.quant.per_channel:
        raise fail(op, "per-channel int8 RHS with a float32 LHS: tflite-runtime 2.14's hybrid BATCH_MATMUL "
                       "multiplies by the legacy per-tensor scale (0) there; use a per-tensor RHS")
    for t, role in ((lhs, "lhs"), (rhs, "rhs")):
        if sum(1 for d in t.shape[:-2] if d != 1) > 1:
            raise fail(op, f"hybrid BATCH_MATMUL: the {role} has more than one batch dimension above 1; the reference "
                           "indexes its per-row scales and row sums as if there were one (wrong results)")
    b, geo = rhs_operand(op, rhs, geo)
    # row sums of the transposed RHS: one per (RHS matrix, output column)
    rt = np.swapaxes(rhs.data, -1, -2) if not op.options.get("adj_y", False) else rhs.data
    sums = rt.astype(np.int32).sum(axis=-1).reshape(-1).astype(np.int32)
    rb = [1] * (5 - rank) + list(rhs.shape)
    ext, size = [0, 0, 0], n
    for d in range(2, -1, -1):
        ext[d] = 0 if rb[d] == 1 else size
        size *= rb[d]
    rows = lhs.size // k
    asym = bool(op.options.get("asymmetric_quantize_inputs", False))
    qc, (sq, ssf, soff), nbytes = _quantize_call(rows, k, asym, _f32(rhs.quant.s))
    p = Params("utvm_hybrid_bmm_params", {"g": geo, "row_sums_ext": ext})
    mm = call("utvm_hybrid_bmm", p, sq, ssf, soff, b, Const("row_sums", sums, "int32_t"), Null(), Out(0))
    return Prepared([qc, mm], macs=out.size * k, scratch_bytes=nbytes)
