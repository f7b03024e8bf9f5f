"""SVDF: int8 (int16 or int8 state) and float32 (TFLite reference semantics).

tensorflow/lite/kernels/svdf.cc + internal/reference/svdf.h (EvalIntegerSVDF / EvalFloatSVDF):

- inputs: input [batch, input_size], weights_feature [num_filters, input_size], weights_time
  [num_filters, memory_size], bias [num_units] (optional), state [batch, memory_size * num_filters]
  (a variable tensor: it lives in a "state" location and the kernel updates it in place).
- int8: ``effective_scale_1 = input_scale * weights_feature_scale / state_scale`` and
  ``effective_scale_2 = state_scale * weights_time_scale / output_scale``, both products taken in
  float32 (TFLite and TFLM alike), then QuantizeMultiplier. The state is assumed symmetric; the
  feature activation is saturated to int16. TFLite's Eval insists on a RELU fused activation for
  int8 but never applies it (only the int8 range clamp): the activation is ignored here, as in both
  TFLite and TFLM.
- int8 with int8 weights_time and int8 state is TFLite Micro's variant (TFLite's reference resolver
  does not run it): the state zero point is added after the int8 clamp and subtracted in the time
  dot product.
- float32: the fused activation (NONE, RELU, RELU_N1_TO_1, RELU6, TANH) is applied to the output.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from ..quant import activation_range_float, quantize_multiplier
from .base import OpHandler, expect_const, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Out, Params, Prepared, call

_F32 = np.float32
_FLOAT_ACTS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH")


def _dims(op: Operator, g: Graph) -> dict[str, int]:
    x, wf, wt = tensor(g, op, 0), tensor(g, op, 1, "weights_feature"), tensor(g, op, 2, "weights_time")
    rank = int(op.options.get("rank", 0))
    return {"batches": x.shape[0], "input_size": x.shape[1], "num_filters": wf.shape[0],
            "memory_size": wt.shape[1], "rank": rank, "num_units": wf.shape[0] // rank if rank > 0 else 0}


@register("SVDF")
class Svdf(OpHandler):
    supported = "int8 with int16 state (TFLite), int8 with int8 state (TFLM), float32; any rank"

    def validate(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 5)
        x, wf, wt = tensor(g, op, 0), tensor(g, op, 1, "weights_feature"), tensor(g, op, 2, "weights_time")
        state, out = tensor(g, op, 4, "state"), out_tensor(g, op)
        bias = g.input_tensor(op, 3)
        expect_dtype(op, x, ("int8", "float32"), "input")
        if len(x.shape) != 2 or len(wf.shape) != 2 or len(wt.shape) != 2:
            raise fail(op, "input, weights_feature and weights_time must be 2-D")
        rank = int(op.options.get("rank", 0))
        if rank <= 0 or wf.shape[0] % rank:
            raise fail(op, f"rank {rank} must be positive and divide num_filters {wf.shape[0]}")
        d = _dims(op, g)
        if wf.shape[1] != d["input_size"] or wt.shape[0] != d["num_filters"] or d["memory_size"] < 1:
            raise fail(op, f"shapes do not match: input {list(x.shape)}, weights_feature {list(wf.shape)}, "
                           f"weights_time {list(wt.shape)}")
        if state.size != d["batches"] * d["memory_size"] * d["num_filters"] or not state.is_variable:
            raise fail(op, f"state must be a variable tensor of {d['batches']} x "
                           f"{d['memory_size'] * d['num_filters']} elements")
        if out.size != d["batches"] * d["num_units"]:
            raise fail(op, f"output must have {d['batches']} x {d['num_units']} elements")
        expect_const(op, wf, "weights_feature")
        expect_const(op, wt, "weights_time")
        if bias is not None:
            expect_const(op, bias, "bias")
            if bias.size != d["num_units"]:
                raise fail(op, f"bias has {bias.size} values, expected {d['num_units']}")
        if x.dtype == "float32":
            for t, role in ((wf, "weights_feature"), (wt, "weights_time"), (state, "state"), (out, "output")):
                expect_dtype(op, t, ("float32",), role)
            if bias is not None:
                expect_dtype(op, bias, ("float32",), "bias")
            act = op.options.get("fused_activation_function", "NONE")
            if act not in _FLOAT_ACTS:
                raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_FLOAT_ACTS)}")
            return
        expect_dtype(op, wf, ("int8",), "weights_feature")
        expect_dtype(op, wt, ("int16", "int8"), "weights_time")
        expect_dtype(op, state, (wt.dtype,), "state")
        expect_dtype(op, out, ("int8",), "output")
        if bias is not None:
            expect_dtype(op, bias, ("int32",), "bias")
        for t, role in ((x, "input"), (wf, "weights_feature"), (wt, "weights_time"), (state, "state"),
                        (out, "output")):
            expect_quant(op, t, role)
        if state.dtype == "int16" and state.quant.zp != 0:
            raise fail(op, "the int16 state must have zero point 0")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, wf, wt = tensor(g, op, 0), tensor(g, op, 1), tensor(g, op, 2)
        state, out = tensor(g, op, 4), out_tensor(g, op)
        d = _dims(op, g)
        macs = d["batches"] * d["num_filters"] * (d["input_size"] + d["memory_size"])
        args = (In(0), In(1), In(2), In(3), In(4), Out(0))
        if x.dtype == "float32":
            act = op.options.get("fused_activation_function", "NONE")
            lo, hi = activation_range_float(act) if act not in ("NONE", "TANH") else (0.0, 0.0)
            kind = {"NONE": 0, "TANH": 1}.get(act, 2)
            p = Params("utvm_svdf_f32_params", {**d, "activation": kind, "act_min": lo, "act_max": hi})
            return Prepared([call("utvm_svdf_f32", p, *args)], macs=macs)
        s1 = float(_F32(x.quant.s) * _F32(wf.quant.s) / _F32(state.quant.s))
        s2 = float(_F32(state.quant.s) * _F32(wt.quant.s) / _F32(out.quant.s))
        m1, sh1 = quantize_multiplier(s1)
        m2, sh2 = quantize_multiplier(s2)
        name = "svdf_s8" if state.dtype == "int16" else "svdf_s8_s8"
        p = Params("utvm_svdf_q_params", {
            **d, "input_offset": -x.quant.zp, "state_zero_point": state.quant.zp if state.dtype == "int8" else 0,
            "output_offset": out.quant.zp, "multiplier_1": m1, "shift_1": sh1, "multiplier_2": m2, "shift_2": sh2})
        return Prepared([call(f"utvm_{name}", p, *args)], macs=macs)
