"""UNIDIRECTIONAL_SEQUENCE_LSTM: float32 and int8 (8x8->16, int16 cell state) with TFLite semantics;
16x8, and int8 whose four gate intermediates carry no quantization (what TensorFlow's converter makes),
with TFLite Micro's (``_prepare_micro``, kernels/lstm_micro.h).

tensorflow/lite/kernels/unidirectional_sequence_lstm.cc (Prepare, PopulateQuantizedLstmParams8x8_16,
PopulatePrecomputedZPTimesWeightsWithBias) and lstm_eval.cc (EvalFloat / EvalInteger8x8_16 with
LstmStepFloat / LstmStepInteger8x8_16) with the portable tensor_utils.

Inputs (lstm_shared.h): 0 input, 1-4 input-to-{input, forget, cell, output} weights, 5-8 recurrent-to-
{...} weights, 9-11 cell-to-{input, forget, output} (peephole) weights, 12-15 gate biases,
16 projection weights, 17 projection bias, 18 output state and 19 cell state (variable tensors: they
persist across invocations in the state region, updated in place), 20-23 layer norm coefficients.
Optional: the input gate (1, 5, 9, 12: absent = CIFG), peephole, projection, layer norm.

- float32: every gate is ``act(W x + R h (+ p . c) + b)`` (layer norm: normalised before the
  coefficients and the bias), sigmoid for the input, forget and output gates and the fused activation
  for the cell gate and the output; the peephole of the output gate sees the updated cell state.
- int8: the prepare work is here: effective scales taken in float32 as the reference does, zero
  point x row sums folded into the biases; with projection the reference stores the hidden state
  with zero point -hidden_zp and folds +hidden_zp x row sums into the projection bias, without it
  the hidden state (the output state) has zero point hidden_zp; quantized clips. The cell state
  scale must be a power of two; the tanh of the cell uses 15 + log2 integer bits, which the
  reference supports from 0 to 6; outside (TensorFlow's converter makes 2^-16 cell states) the
  reference's ApplyTanh writes nothing and its buffer still holds the step's input gate, which the
  kernel reproduces (refused for CIFG, where that buffer is undefined). The 5 intermediate tensors
  carry the gate scales for layer norm (0-3) and the hidden state's scale and zero point (4). The
  kernel reproduces the reference's peephole quirk (it runs over n_output elements per batch).
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import MAX_MULTIPLIER_64, quantize_multiplier
from .base import OpHandler, expect_const, expect_dtype, expect_quant, fail, out_tensor, register
from .call import Const, In, Null, Out, Params, Prepared, Scratch, call

_F32 = np.float32
_FLOAT_ACTS = {"TANH": 0, "RELU": 2, "RELU6": 3, "RELU_N1_TO_1": 4}

# input indices
X, W_I, W_F, W_C, W_O, R_I, R_F, R_C, R_O, P_I, P_F, P_O = range(12)
B_I, B_F, B_C, B_O, PROJ_W, PROJ_B, H_STATE, C_STATE, LN_I, LN_F, LN_C, LN_O = range(12, 24)
_NAMES = ["input", "input_to_input_weights", "input_to_forget_weights", "input_to_cell_weights",
          "input_to_output_weights", "recurrent_to_input_weights", "recurrent_to_forget_weights",
          "recurrent_to_cell_weights", "recurrent_to_output_weights", "cell_to_input_weights",
          "cell_to_forget_weights", "cell_to_output_weights", "input_gate_bias", "forget_gate_bias",
          "cell_gate_bias", "output_gate_bias", "projection_weights", "projection_bias", "output_state",
          "cell_state", "input_layer_norm_coefficients", "forget_layer_norm_coefficients",
          "cell_layer_norm_coefficients", "output_layer_norm_coefficients"]


def _opt(op: Operator, g: Graph, k: int) -> Tensor | None:
    return g.input_tensor(op, k)


def _req(op: Operator, g: Graph, k: int) -> Tensor:
    t = g.input_tensor(op, k)
    if t is None:
        raise fail(op, f"the {_NAMES[k]} tensor (input {k}) is missing")
    return t


def _shape(op: Operator, t: Tensor, k: int, shape: tuple[int, ...]) -> None:
    if tuple(t.shape) != shape:
        raise fail(op, f"{_NAMES[k]} tensor #{t.index} has shape {list(t.shape)}, expected {list(shape)}")


def _geometry(op: Operator, g: Graph) -> dict:
    if len(op.inputs) not in (20, 24) or len(op.outputs) != 1:
        raise fail(op, f"expected 20 or 24 inputs and 1 output, got {len(op.inputs)} and {len(op.outputs)}")
    x = _req(op, g, X)
    if len(x.shape) != 3:
        raise fail(op, f"the input must be 3-D ([batch, time, features] or time-major), got {list(x.shape)}")
    time_major = bool(op.options.get("time_major", False))
    n_time, n_batch = (x.shape[0], x.shape[1]) if time_major else (x.shape[1], x.shape[0])
    n_input = x.shape[2]
    w_o = _req(op, g, W_O)
    if len(w_o.shape) != 2:
        raise fail(op, f"input_to_output_weights must be 2-D, got {list(w_o.shape)}")
    n_cell = w_o.shape[0]
    r_o = _req(op, g, R_O)
    if len(r_o.shape) != 2:
        raise fail(op, f"recurrent_to_output_weights must be 2-D, got {list(r_o.shape)}")
    n_output = r_o.shape[1]
    cifg = _opt(op, g, W_I) is None
    for k in (W_I, W_F, W_C, W_O):
        t = _opt(op, g, k) if k == W_I else _req(op, g, k)
        if t is not None:
            _shape(op, t, k, (n_cell, n_input))
    for k in (R_I, R_F, R_C, R_O):
        t = _opt(op, g, k) if k == R_I else _req(op, g, k)
        if t is not None:
            _shape(op, t, k, (n_cell, n_output))
    if (_opt(op, g, R_I) is None) != cifg:
        raise fail(op, "input_to_input and recurrent_to_input weights must be both present or both absent")
    peep = [_opt(op, g, k) for k in (P_I, P_F, P_O)]
    use_peephole = peep[2] is not None
    if use_peephole:
        if peep[1] is None or ((peep[0] is None) != cifg):
            raise fail(op, "the peephole weights must be all present (cell_to_input only without CIFG) or "
                           "all absent")
    elif any(p is not None for p in peep):
        raise fail(op, "the peephole weights must be all present or all absent")
    for k, p in zip((P_I, P_F, P_O), peep):
        if p is not None:
            _shape(op, p, k, (n_cell,))
    if (_opt(op, g, B_I) is None) != cifg:
        raise fail(op, "input_gate_bias must be present exactly when input_to_input_weights is")
    for k in (B_I, B_F, B_C, B_O):
        t = _opt(op, g, k) if k == B_I else _req(op, g, k)
        if t is not None:
            _shape(op, t, k, (n_cell,))
    pw, pb = _opt(op, g, PROJ_W), _opt(op, g, PROJ_B)
    if pw is not None:
        _shape(op, pw, PROJ_W, (n_output, n_cell))
    elif n_output != n_cell:
        raise fail(op, f"without projection weights n_output {n_output} must equal n_cell {n_cell}")
    if pb is not None:
        if pw is None:
            raise fail(op, "a projection bias needs projection weights")
        _shape(op, pb, PROJ_B, (n_output,))
    use_ln = len(op.inputs) == 24 and _opt(op, g, LN_F) is not None
    if use_ln:
        if (_opt(op, g, LN_I) is None) != cifg:
            raise fail(op, "input_layer_norm_coefficients must be present exactly when the input gate is")
        for k in (LN_I, LN_F, LN_C, LN_O):
            t = _opt(op, g, k) if k == LN_I else _req(op, g, k)
            if t is not None:
                _shape(op, t, k, (n_cell,))
    elif len(op.inputs) == 24 and any(_opt(op, g, k) is not None for k in (LN_I, LN_C, LN_O)):
        raise fail(op, "the layer norm coefficients must be all present or all absent")
    h, c = _req(op, g, H_STATE), _req(op, g, C_STATE)
    for t, k, n in ((h, H_STATE, n_batch * n_output), (c, C_STATE, n_batch * n_cell)):
        if not t.is_variable or t.data is not None:
            raise fail(op, f"the {_NAMES[k]} tensor #{t.index} must be a variable tensor without data")
        if t.size != n:
            raise fail(op, f"the {_NAMES[k]} tensor #{t.index} has {t.size} elements, expected {n}")
    out = out_tensor(g, op)
    expected = (n_time, n_batch, n_output) if time_major else (n_batch, n_time, n_output)
    if tuple(out.shape) != expected:
        raise fail(op, f"the output has shape {list(out.shape)}, expected {list(expected)}")
    for k in range(1, len(op.inputs)):
        t = _opt(op, g, k)
        if t is not None and k not in (H_STATE, C_STATE):
            expect_const(op, t, _NAMES[k])
    cell_clip = float(op.options.get("cell_clip", 0.0))
    proj_clip = float(op.options.get("proj_clip", 0.0))
    if not (cell_clip >= 0 and proj_clip >= 0) or not (math.isfinite(cell_clip) and math.isfinite(proj_clip)):
        raise fail(op, f"cell_clip {cell_clip} and proj_clip {proj_clip} must be finite and >= 0")
    if op.options.get("diagonal_recurrent_tensors", False):
        raise fail(op, "diagonal recurrent weights are not supported")
    return {"n_batch": n_batch, "n_time": n_time, "n_input": n_input, "n_cell": n_cell, "n_output": n_output,
            "time_major": int(time_major), "cifg": cifg, "peephole": use_peephole, "ln": use_ln,
            "projection": pw is not None, "cell_clip": cell_clip, "proj_clip": proj_clip}


def _ln_args(op: Operator, d: dict) -> list:
    """The layer norm coefficients in kernel order, NULL when the LSTM has none."""
    return [In(k) if d["ln"] else Null() for k in (LN_I, LN_F, LN_C, LN_O)]


def _macs(d: dict) -> int:
    gates = 3 if d["cifg"] else 4
    per = gates * d["n_cell"] * (d["n_input"] + d["n_output"]) + (d["n_output"] * d["n_cell"] if d["projection"] else 0)
    return per * d["n_batch"] * d["n_time"]


def _log2_scale(scale: float) -> tuple[int, bool]:
    """TFLite CheckedLog2 in float32: (round(log2), |fraction| < 1e-3)."""
    x_log2 = _F32(np.log(_F32(scale))) * (_F32(1.0) / _F32(np.log(_F32(2.0))))
    rounded = _F32(np.round(x_log2)) if abs(x_log2 - np.trunc(x_log2)) != 0.5 else _F32(
        np.trunc(x_log2) + np.sign(x_log2))
    return int(rounded), bool(abs(_F32(x_log2 - rounded)) < _F32(1e-3))


def _mult(op: Operator, real: float, what: str) -> tuple[int, int]:
    if not math.isfinite(real) or real < 0:
        raise fail(op, f"the {what} rescale factor {real:.6g} is not representable")
    return quantize_multiplier(real)


def _mult64(op: Operator, real: float, what: str) -> tuple[int, int]:
    """QuantizeMultiplier for TFLite's int64 MultiplyByQuantizedMultiplier (shift <= 14)."""
    if not math.isfinite(real) or not 0 <= real < MAX_MULTIPLIER_64:
        raise fail(op, f"the {what} rescale factor {real:.6g} is not representable (it must be below "
                       f"{MAX_MULTIPLIER_64:.6g})")
    return quantize_multiplier(real, MAX_MULTIPLIER_64)


def _row_sums(w: np.ndarray) -> np.ndarray:
    return w.astype(np.int64).sum(axis=1)


def _wrap32(v: np.ndarray) -> np.ndarray:
    return ((np.asarray(v, dtype=np.int64) + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


@register("UNIDIRECTIONAL_SEQUENCE_LSTM")
class UnidirectionalSequenceLstm(OpHandler):
    supported = ("float32, int8 (8x8->16: int8 input/output state, int16 cell state, int8 weights, int16 "
                 "peephole and layer norm coefficients); CIFG, peephole, projection, layer norm, time-major "
                 "or batch-major, cell and projection clipping (int8 with quantized gate intermediates, as "
                 "TensorFlow Lite; without, as TensorFlow's converter makes it, as TFLite Micro: the standard "
                 "LSTM, TANH, time-major or batch-major, cell clipping); 16x8 (int16 input/output state, int8 weights, "
                 "int64 biases, int16 cell state) as TFLite Micro: the standard LSTM (24 inputs, no CIFG, "
                 "peephole, projection or layer norm), TANH, time-major or batch-major, cell clipping")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        d = _geometry(op, g)
        x = _req(op, g, X)
        expect_dtype(op, x, ("float32", "int8", "int16"), "input")
        if x.dtype == "float32":
            return self._prepare_f32(op, g, d)
        if x.dtype == "int16":
            return self._prepare_micro(op, g, d, "int16")
        return self._prepare_s8(op, g, d)

    # ---- float32 ----------------------------------------------------------------------------
    def _prepare_f32(self, op: Operator, g: Graph, d: dict) -> Prepared:
        for k in range(1, len(op.inputs)):
            t = _opt(op, g, k)
            if t is not None:
                expect_dtype(op, t, ("float32",), _NAMES[k])
        expect_dtype(op, out_tensor(g, op), ("float32",), "output")
        act = op.options.get("fused_activation_function", "TANH")
        if act not in _FLOAT_ACTS:
            raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_FLOAT_ACTS)}")
        p = Params("utvm_lstm_f32_params", {
            "n_batch": d["n_batch"], "n_time": d["n_time"], "n_input": d["n_input"], "n_cell": d["n_cell"],
            "n_output": d["n_output"], "time_major": d["time_major"], "activation": _FLOAT_ACTS[act],
            "cell_clip": float(_F32(d["cell_clip"])), "proj_clip": float(_F32(d["proj_clip"]))})
        call_args = [p, *[In(k) for k in range(0, 20)], *_ln_args(op, d), Out(0), Scratch("float")]
        scratch = 5 * d["n_cell"] * 4
        return Prepared([call("utvm_lstm_f32", *call_args)], macs=_macs(d), scratch_bytes=scratch)

    # ---- int8 (8x8->16) ------------------------------------------------------------------------
    def _prepare_s8(self, op: Operator, g: Graph, d: dict) -> Prepared:
        # TensorFlow's converter leaves the four gate intermediates float32 without quantization and
        # picks cell state scales (2^-16) outside the 0..6 integer bits TensorFlow Lite's integer tanh of
        # the cell supports, where TFLite's kernel gives meaningless results; TFLite Micro derives
        # everything from the input, weight and state scales. So a model in the converter's form (gate
        # intermediates unquantized or absent) runs as TFLite Micro; one whose gate intermediates are
        # quantized (a calibrated, hand-made model) keeps TFLite's kernel.
        gate_inter = [g.tensors[i] for i in op.intermediates[:4]]
        if len(op.intermediates) != 5 or any(t.quant is None for t in gate_inter):
            return self._prepare_micro(op, g, d, "int8")
        x, out = _req(op, g, X), out_tensor(g, op)
        h, c = _req(op, g, H_STATE), _req(op, g, C_STATE)
        expect_dtype(op, out, ("int8",), "output")
        expect_dtype(op, h, ("int8",), "output_state")
        expect_dtype(op, c, ("int16",), "cell_state")
        for k in (W_I, W_F, W_C, W_O, R_I, R_F, R_C, R_O, PROJ_W):
            t = _opt(op, g, k)
            if t is not None:
                expect_dtype(op, t, ("int8",), _NAMES[k])
                expect_quant(op, t, _NAMES[k])
                if t.quant.zp != 0:
                    raise fail(op, f"{_NAMES[k]} must be symmetric (zero point 0), got {t.quant.zp}")
        for k in (P_I, P_F, P_O, LN_I, LN_F, LN_C, LN_O):
            t = _opt(op, g, k) if k < len(op.inputs) else None
            if t is not None:
                expect_dtype(op, t, ("int16",), _NAMES[k])
                expect_quant(op, t, _NAMES[k])
        for k in (B_I, B_F, B_C, B_O, PROJ_B):
            t = _opt(op, g, k)
            if t is not None:
                expect_dtype(op, t, ("int32",), _NAMES[k])
        for t, role in ((x, "input"), (out, "output"), (h, "output_state"), (c, "cell_state")):
            expect_quant(op, t, role)
        inter = [g.tensors[i] for i in op.intermediates]
        for k, t in enumerate(inter):
            if (k == 4 or d["ln"]) and (t.quant is None or t.quant.per_channel):
                raise fail(op, f"intermediate tensor {k} #{t.index} '{t.name}' needs per-tensor quantization "
                               "parameters")
        if d["peephole"] and d["n_output"] > d["n_cell"]:
            raise fail(op, f"int8 peephole weights with n_output {d['n_output']} > n_cell {d['n_cell']} "
                           "are not supported (the reference reads past the weights)")
        cell_scale, exact = _log2_scale(c.quant.s)
        if not exact or not -30 <= cell_scale <= 1:
            raise fail(op, f"the cell state scale {c.quant.s:.6g} must be a power of two from 2^-30 to 2^1")
        if not -15 <= cell_scale <= -9 and d["cifg"]:
            raise fail(op, f"a CIFG LSTM needs a cell state scale from 2^-15 to 2^-9 (got 2^{cell_scale}): the "
                           "reference's tanh of the cell state is undefined otherwise")
        if c.quant.zp != 0:
            raise fail(op, f"the cell state must have zero point 0, got {c.quant.zp}")

        def s(k: int) -> _F32:
            t = _opt(op, g, k)
            return _F32(1.0) if t is None else _F32(t.quant.s)

        inter_scale = [(_F32(inter[k].quant.s) if d["ln"] else _F32(2.0 ** -12)) for k in range(4)]
        hidden_scale, hidden_zp = _F32(inter[4].quant.s), int(inter[4].quant.zp)
        in_s, h_s = _F32(x.quant.s), _F32(h.quant.s)
        eff_in, eff_rec, eff_cell = [], [], []
        for gate, (wk, rk, pk) in enumerate(((W_I, R_I, P_I), (W_F, R_F, P_F), (W_C, R_C, None),
                                              (W_O, R_O, P_O))):
            skip = gate == 0 and d["cifg"]
            eff_in.append(1.0 if skip else float(_F32(s(wk) * in_s) / inter_scale[gate]))
            eff_rec.append(1.0 if skip else float(_F32(s(rk) * h_s) / inter_scale[gate]))
            if d["peephole"] and pk is not None and not skip:
                eff_cell.append(float(_F32(2.0 ** cell_scale * float(s(pk)) / float(inter_scale[gate]))))
            else:
                eff_cell.append(1.0)
        eff_hidden = float(_F32(2.0 ** -15 / float(hidden_scale) * 2.0 ** -15))
        eff_proj = float(_F32(s(PROJ_W) * hidden_scale) / h_s)
        ln_scale = [s(k) if (d["ln"] and _opt(op, g, k) is not None) else _F32(1.0) for k in (LN_I, LN_F, LN_C, LN_O)]
        q = {name: [] for name in ("in_m", "in_s", "rec_m", "rec_s", "cell_m", "cell_s", "ln_m", "ln_s", "guard")}
        for gate in range(4):
            for (mk, sk), real, what in ((("in_m", "in_s"), eff_in[gate], "input-to-gate"),
                                         (("rec_m", "rec_s"), eff_rec[gate], "recurrent-to-gate"),
                                         (("cell_m", "cell_s"), eff_cell[gate], "cell-to-gate"),
                                         (("ln_m", "ln_s"), float(ln_scale[gate]), "layer norm")):
                m, sh = _mult(op, real, what)
                q[mk].append(m)
                q[sk].append(sh)
            q["guard"].append(max(1, int(_F32(10000) * ln_scale[gate])) if float(ln_scale[gate]) * 10000 < 2**31
                              else 2**31 - 1)
        hid_m, hid_s = _mult(op, eff_hidden, "hidden")
        proj_m, proj_s = _mult(op, eff_proj, "projection")
        cell_clip = 0
        if d["cell_clip"] > 0:
            cell_clip = int(np.clip(_F32(d["cell_clip"]) / _F32(c.quant.s), -32768.0, 32767.0))
        proj_clip = 0
        if d["proj_clip"] > 0:
            proj_clip = int(np.clip(_F32(d["proj_clip"]) / _F32(out.quant.s), -128.0, 127.0))
        # zero point x row sums folded into the biases (PopulatePrecomputedZPTimesWeightsWithBias)
        n_cell = d["n_cell"]
        eff = np.zeros((8 * n_cell + d["n_output"],), dtype=np.int64)
        for gate, (wk, rk, bk) in enumerate(((W_I, R_I, B_I), (W_F, R_F, B_F), (W_C, R_C, B_C), (W_O, R_O, B_O))):
            w, r = _opt(op, g, wk), _opt(op, g, rk)
            if w is None:
                continue
            b = _opt(op, g, bk)
            base = np.zeros(n_cell, np.int64) if (d["ln"] or b is None) else b.data.astype(np.int64)
            eff[2 * gate * n_cell:(2 * gate + 1) * n_cell] = _wrap32(base + _row_sums(w.data) * -x.quant.zp)
            eff[(2 * gate + 1) * n_cell:(2 * gate + 2) * n_cell] = _wrap32(_row_sums(r.data) * -h.quant.zp)
        if d["projection"]:
            pw, pb = _opt(op, g, PROJ_W), _opt(op, g, PROJ_B)
            base = np.zeros(d["n_output"], np.int64) if pb is None else pb.data.astype(np.int64)
            eff[8 * n_cell:] = _wrap32(base + _row_sums(pw.data) * hidden_zp)
        p = Params("utvm_lstm_s8_params", {
            "n_batch": d["n_batch"], "n_time": d["n_time"], "n_input": d["n_input"], "n_cell": n_cell,
            "n_output": d["n_output"], "time_major": d["time_major"], "cell_scale": cell_scale,
            "cell_clip": cell_clip, "proj_clip": proj_clip,
            "hidden_zp": -hidden_zp if d["projection"] else hidden_zp,
            "output_state_zp": int(h.quant.zp), "hidden_m": hid_m, "hidden_s": hid_s, "proj_m": proj_m,
            "proj_s": proj_s, **q})
        args = [p, In(X), *[In(k) for k in range(1, 12)], *[In(k) for k in (B_I, B_F, B_C, B_O)], In(PROJ_W),
                Const("lstm_bias", _wrap32(eff), "int32_t"), In(H_STATE), In(C_STATE), *_ln_args(op, d), Out(0),
                Scratch("int16_t")]
        scratch = 5 * 2 * d["n_batch"] * n_cell + d["n_batch"] * n_cell
        return Prepared([call("utvm_lstm_s8", *args)], macs=_macs(d), scratch_bytes=scratch)

    # ---- 16x8 and int8 with uncalibrated intermediates (TFLite Micro) ---------------------------
    def _prepare_micro(self, op: Operator, g: Graph, d: dict, act: str) -> Prepared:
        """TFLite Micro's unidirectional_sequence_lstm.cc (Prepare: LstmTensors::ValidateTensorStatus,
        ValidateTensorSize, PrepareGateParametersInteger, CreateLstmCellStateInfo) and lstm_eval.h
        EvalLstm<int16_t, int8_t, int16_t, int64_t> (``act`` int16) or EvalLstm<int8_t, int8_t, int16_t,
        int32_t> (``act`` int8)."""
        s8 = act == "int8"
        kind = "16x8" if not s8 else "int8 without quantized gate intermediates"
        noun = "a 16x8 LSTM" if not s8 else "an int8 LSTM without quantized gate intermediates"
        why = ("as TFLite Micro" if not s8 else "the converter's form, which runs as TFLite Micro, and TFLite Micro "
               "refuses the variant")
        if len(op.inputs) != 24:
            raise fail(op, f"{noun} needs the 24-input form ({why}), got {len(op.inputs)} inputs")
        for flag, what in (("cifg", "CIFG (no input gate)"), ("peephole", "peephole weights"),
                           ("projection", "projection weights"), ("ln", "layer norm coefficients")):
            if d[flag]:
                raise fail(op, f"{kind} supports the standard LSTM only ({why}): {what} are not supported")
        for k in (PROJ_B, LN_I, LN_C, LN_O):
            if _opt(op, g, k) is not None:
                raise fail(op, f"{kind} supports the standard LSTM only ({why}): {_NAMES[k]} must be absent")
        fused = op.options.get("fused_activation_function", "TANH")
        if fused != "TANH":
            raise fail(op, f"fused activation {fused} is not supported for {kind}; supported: TANH (TFLite Micro "
                           "asserts on others)")
        x, out = _req(op, g, X), out_tensor(g, op)
        h, c = _req(op, g, H_STATE), _req(op, g, C_STATE)
        expect_dtype(op, out, (act,), "output")
        expect_dtype(op, h, (act,), "output_state")
        expect_dtype(op, c, ("int16",), "cell_state")
        if len(h.shape) < 2 or h.shape[1] != d["n_cell"]:
            raise fail(op, f"the output_state tensor #{h.index} must be [batch, {d['n_cell']}], got "
                           f"{list(h.shape)}")
        lo, hi = (-128, 127) if s8 else (-32768, 32767)
        for t, role, (zlo, zhi) in ((x, "input", (lo, hi)), (h, "output_state", (lo, hi)),
                                    (c, "cell_state", (-32768, 32767))):
            expect_quant(op, t, role)
            if not zlo <= int(t.quant.zp) <= zhi:
                raise fail(op, f"the {role} zero point {int(t.quant.zp)} is outside the {t.dtype} range")
        weights = [_req(op, g, k) for k in (W_I, W_F, W_C, W_O, R_I, R_F, R_C, R_O)]
        for k, t in zip((W_I, W_F, W_C, W_O, R_I, R_F, R_C, R_O), weights):
            expect_dtype(op, t, ("int8",), _NAMES[k])
            expect_quant(op, t, _NAMES[k])
            if t.quant.zp != 0:
                raise fail(op, f"{_NAMES[k]} must be symmetric (zero point 0), got {int(t.quant.zp)}")
        bias_dtype = "int32" if s8 else "int64"
        biases = [_req(op, g, k) for k in (B_I, B_F, B_C, B_O)]
        for k, t in zip((B_I, B_F, B_C, B_O), biases):
            if t.dtype != bias_dtype:
                raise fail(op, f"{_NAMES[k]} tensor #{t.index} is {t.dtype}: {noun} needs {bias_dtype} gate biases "
                               f"(TFLite Micro reads them as {bias_dtype})")
        in_s, h_s, c_s = _F32(x.quant.s), _F32(h.quant.s), _F32(c.quant.s)
        in_zp, h_zp = int(x.quant.zp), int(h.quant.zp)
        if not (in_s > 0 and h_s > 0 and c_s > 0 and math.isfinite(in_s * h_s * c_s)):
            raise fail(op, "the input, output_state and cell_state scales must be finite and > 0")
        # CreateLstmCellStateInfo: CheckedLog2 (rounded, not required to be exact), quantized clip
        power, _ = _log2_scale(float(c_s))
        if not -43 <= power <= 2:
            raise fail(op, f"the cell state scale {float(c_s):.6g} (2^{power}) is outside 2^-43..2^2, where TFLite "
                           "Micro's tanh of the cell state overflows")
        shift = 15 + power - 3
        tanh_m, tanh_s = (3 << shift, 0) if shift >= 0 else (3, -shift)
        clip = d["cell_clip"] > 0
        q_clip = int(min(max(float(_F32(d["cell_clip"])) / float(c_s), -32768.0), 32767.0)) if clip else 0
        # CreateGateParams: the scales' product and the division by 2^-12 in double (the tflite-micro
        # build the oracle runs rounds there; a float32 product differs in rare reduced multipliers)
        q: dict[str, list[int]] = {"in_m": [], "in_s": [], "rec_m": [], "rec_s": []}
        for gate in range(4):
            for (mk, sk), t, s_x, what in ((("in_m", "in_s"), weights[gate], in_s, "input-to-gate"),
                                           (("rec_m", "rec_s"), weights[4 + gate], h_s, "recurrent-to-gate")):
                real = float(s_x) * float(_F32(t.quant.s)) / 2.0 ** -12
                m, sh = _mult(op, real, what) if s8 else _mult64(op, real, what)
                q[mk].append(m)
                q[sk].append(sh)
        # the sums must stay within the reference's accumulator: |sum| < 2^47 for TFLite's int64
        # MultiplyByQuantizedMultiplier (16x8), the int32 accumulator (int8)
        limit, where = (2**31, "the int32 accumulator") if s8 else (2**47, "TFLite's int64 requantization range")
        x_max = max(hi - in_zp, in_zp - lo)
        h_max = max(hi - h_zp, h_zp - lo)
        for gate in range(4):
            w, r, b = weights[gate], weights[4 + gate], biases[gate]
            worst_x = np.abs(w.data.astype(np.int64)).sum(axis=1) * x_max + np.abs(b.data.astype(np.int64))
            if int(worst_x.max()) >= limit or int(np.abs(r.data.astype(np.int64)).sum(axis=1).max()) * h_max >= limit:
                raise fail(op, f"the weights and {_NAMES[(B_I, B_F, B_C, B_O)[gate]]} allow sums that leave {where} "
                               f"(|sum| < 2^{limit.bit_length() - 1})")
        # CreateInterGateMulParams: double products of the float scales
        forget_m, forget_s = _mult(op, 2.0**-15 * float(c_s) / float(c_s), "forget gate x cell state")
        input_m, input_s = _mult(op, 2.0**-15 * 2.0**-15 / float(c_s), "input gate x cell gate")
        hidden_m, hidden_s = _mult(op, 2.0**-15 * 2.0**-15 / float(h_s), "hidden state")
        p = Params("utvm_lstm_micro_params", {
            "n_batch": d["n_batch"], "n_time": d["n_time"], "n_input": d["n_input"], "n_cell": d["n_cell"],
            "time_major": d["time_major"], "input_zp": in_zp, "hidden_zp": h_zp, **q,
            "forget_m": forget_m, "forget_s": forget_s, "input_m": input_m, "input_s": input_s,
            "hidden_m": hidden_m, "hidden_s": hidden_s, "hidden_min": lo, "hidden_max": hi, "tanh_m": tanh_m,
            "tanh_s": tanh_s, "clip": int(clip), "cell_clip": q_clip})
        args = [p, In(X), *[In(k) for k in (W_I, W_F, W_C, W_O, R_I, R_F, R_C, R_O, B_I, B_F, B_C, B_O)],
                In(H_STATE), In(C_STATE), Out(0), Scratch("int16_t")]
        rows = d["n_batch"] if d["time_major"] else 1
        return Prepared([call("utvm_lstm_s8_micro" if s8 else "utvm_lstm_s16", *args)], macs=_macs(d),
                        scratch_bytes=4 * 2 * rows * d["n_cell"])
