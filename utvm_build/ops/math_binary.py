"""Elementwise binary (and n-ary) operators with TFLite broadcasting: EQUAL, NOT_EQUAL, GREATER,
GREATER_EQUAL, LESS, LESS_EQUAL, LOGICAL_AND, LOGICAL_OR, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE,
DIV, FLOOR_DIV, FLOOR_MOD, PRELU, SELECT_V2, ADD_N, in the types TFLite Micro's kernels accept.

Broadcasting reuses ``elementwise.broadcast_plan`` (collapsed dims, strides in ``utvm_ew_shape``);
SELECT_V2 broadcasts three inputs (output dims padded to 6, one stride set per input).
Prepare work done here, as the reference kernels' Prepare does it:
- int8 comparisons (comparisons.cc): left_shift 8, each input's scale through
  QuantizeMultiplierSmallerThanOneExp (double of the float scale);
- SQUARED_DIFFERENCE int8 / int16 (TFLM squared_difference.cc PrepareQuantized): left_shift 7 / 0,
  twice_max_input_scale in double, input multipliers SmallerThanOneExp, the output multiplier
  (twice_max^2 / (2^(2 left_shift) * s_out)) through QuantizeMultiplier;
- PRELU int8 (TFLite activations.cc: ``s_in / s_out`` and ``s_in * s_alpha / s_out`` in float32, then
  double) and int16 with int8 alpha (TFLM prelu_common.cc: the same ratios in double);
- DIV int8 (TFLM div.cc CalculateOpDataDiv): s1 / (s2 * s_out) through QuantizeMultiplier;
- ADD_N int8 (TFLM add_n.cc): left_shift 20, input multiplier 1/2, output multiplier
  2 s_in / (2^20 s_out), all in double; every input shares the first one's scale and zero point.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import UnrepresentableMultiplier, activation_range_float, activation_range_quantized, quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import In, Lit, Out, Params, Prepared, PtrArray, call
from .elementwise import MAX_DIMS, _shape_fields, broadcast_plan, check_broadcast_rank, quantize_multiplier_lt1

_F32 = np.float32
_I32_MIN, _I32_MAX = -(1 << 31), (1 << 31) - 1
_ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def check_broadcast(op: Operator, a: Tensor, b: Tensor, out: Tensor) -> None:
    """The two inputs have the output's shape or broadcast to it (at most MAX_DIMS collapsed dims)."""
    check_broadcast_rank(op, a, b)
    if tuple(a.shape) == tuple(b.shape):
        if a.size != out.size:
            raise fail(op, f"output shape {list(out.shape)} does not match the inputs {list(a.shape)}")
        return
    if broadcast_plan(a.shape, b.shape, out.shape) is None:
        raise fail(op, f"shapes {list(a.shape)} and {list(b.shape)} do not broadcast to {list(out.shape)} "
                       f"(or need more than {MAX_DIMS} dimensions)")


def shape_params(a: Tensor, b: Tensor, out: Tensor) -> Params:
    return Params("utvm_ew_shape", _shape_fields(a, b, out), "shape")


def _positive_scales(op: Operator, *tensors: tuple[Tensor, str]) -> None:
    for t, role in tensors:
        expect_quant(op, t, role)
        if not (t.quant.s > 0 and np.isfinite(t.quant.s)):
            raise fail(op, f"{role} tensor #{t.index} '{t.name}' scale must be positive and finite")


def _lt1(op: Operator, real: float, what: str) -> tuple[int, int]:
    if not 0 < real < 1:
        raise fail(op, f"{what} {real:.6g} must be in (0, 1) (TFLite QuantizeMultiplierSmallerThanOneExp)")
    return quantize_multiplier_lt1(real)


def _binary_io(op: Operator, g: Graph, types: tuple[str, ...], out_types: tuple[str, ...] | None = None):
    expect_counts(op, 2)
    a, b, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
    expect_dtype(op, a, types, "input1")
    expect_dtype(op, b, (a.dtype,), "input2")
    expect_dtype(op, out, out_types or (a.dtype,), "output")
    check_broadcast(op, a, b, out)
    return a, b, out


_CMP = {"EQUAL": 0, "NOT_EQUAL": 1, "GREATER": 2, "GREATER_EQUAL": 3, "LESS": 4, "LESS_EQUAL": 5}
_CMP_TYPES = {"float32": "f32", "int32": "s32", "int64": "s64", "bool": "b8"}


class Comparison(OpHandler):
    """One instance per comparison (registered below): EQUAL / NOT_EQUAL also take bool."""

    supported = ""

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        eq = op.op in ("EQUAL", "NOT_EQUAL")
        types = ("float32", "int8", "int32", "int64") + (("bool",) if eq else ())
        a, b, out = _binary_io(op, g, types, ("bool",))
        code = _CMP[op.op]
        s = shape_params(a, b, out)
        if a.dtype != "int8":
            return Prepared([call(f"utvm_compare_{_CMP_TYPES[a.dtype]}", Lit(code), s, In(0), In(1), Out(0))],
                            macs=out.size)
        _positive_scales(op, (a, "input1"), (b, "input2"))
        m1, e1 = _lt1(op, float(_F32(a.quant.s)), "input1 scale")
        m2, e2 = _lt1(op, float(_F32(b.quant.s)), "input2 scale")
        p = Params("utvm_compare_q_params", {
            "op": code, "left_shift": 8, "input1_offset": -a.quant.zp, "input1_multiplier": m1, "input1_shift": e1,
            "input2_offset": -b.quant.zp, "input2_multiplier": m2, "input2_shift": e2})
        return Prepared([call("utvm_compare_s8", p, s, In(0), In(1), Out(0))], macs=out.size)


for _name in _CMP:
    register(_name)(type(f"Comparison_{_name}", (Comparison,), {"supported": (
        "float32, int8 (compared after the reference's rescale), int32, int64"
        + (", bool" if _name in ("EQUAL", "NOT_EQUAL") else "") + "; bool output; broadcasting")}))


@register("LOGICAL_AND", "LOGICAL_OR")
class LogicalBinary(OpHandler):
    supported = "bool; broadcasting"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        a, b, out = _binary_io(op, g, ("bool",))
        return Prepared([call("utvm_logical_and_or", Lit(int(op.op == "LOGICAL_OR")), shape_params(a, b, out),
                              In(0), In(1), Out(0))], macs=out.size)


_MINMAX = {"float32": "f32", "int8": "s8", "int16": "s16", "int32": "s32", "int64": "s64"}


@register("MAXIMUM", "MINIMUM")
class MaximumMinimum(OpHandler):
    supported = "float32, int8, int16, int32, int64 (quantized values compared as stored); broadcasting"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        a, b, out = _binary_io(op, g, tuple(_MINMAX))
        return Prepared([call(f"utvm_maximum_minimum_{_MINMAX[a.dtype]}", Lit(int(op.op == "MAXIMUM")),
                              shape_params(a, b, out), In(0), In(1), Out(0))], macs=out.size)


def sqdiff_params(op: Operator, a: Tensor, b: Tensor, out: Tensor) -> dict:
    """TFLM squared_difference.cc PrepareQuantized (int8: left_shift 7, int16: 0)."""
    left_shift = 7 if a.dtype == "int8" else 0
    s1, s2, so = (float(_F32(t.quant.s)) for t in (a, b, out))
    twice_max = 2.0 * max(s1, s2)
    m1, e1 = _lt1(op, s1 / twice_max, "input1 rescale")
    m2, e2 = _lt1(op, s2 / twice_max, "input2 rescale")
    real_out = (twice_max * twice_max) / float(_F32(_F32(1 << (2 * left_shift)) * _F32(so)))
    mo, eo = quantize_multiplier(real_out)
    lo, hi = (-128, 127) if a.dtype == "int8" else (-32768, 32767)
    return {"left_shift": left_shift, "input1_offset": -a.quant.zp, "input1_multiplier": m1, "input1_shift": e1,
            "input2_offset": -b.quant.zp, "input2_multiplier": m2, "input2_shift": e2,
            "output_offset": out.quant.zp, "output_multiplier": mo, "output_shift": eo, "act_min": lo, "act_max": hi}


@register("SQUARED_DIFFERENCE")
class SquaredDifference(OpHandler):
    supported = "float32, int32, int8, int16 (zero points 0); broadcasting"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        a, b, out = _binary_io(op, g, ("float32", "int32", "int8", "int16"))
        s = shape_params(a, b, out)
        if a.dtype in ("float32", "int32"):
            sfx = "f32" if a.dtype == "float32" else "s32"
            return Prepared([call(f"utvm_squared_difference_{sfx}", s, In(0), In(1), Out(0))], macs=out.size)
        _positive_scales(op, (a, "input1"), (b, "input2"), (out, "output"))
        if a.dtype == "int16" and (a.quant.zp or b.quant.zp or out.quant.zp):
            raise fail(op, "int16 tensors must have zero point 0")
        p = Params("utvm_sqdiff_q_params", sqdiff_params(op, a, b, out))
        sfx = "s8" if a.dtype == "int8" else "s16"
        return Prepared([call(f"utvm_squared_difference_{sfx}", p, s, In(0), In(1), Out(0))], macs=out.size)


def _act(op: Operator) -> str:
    act = op.options.get("fused_activation_function", "NONE")
    if act not in _ACTS:
        raise fail(op, f"fused activation {act} is not supported; supported: {', '.join(_ACTS)}")
    return act


#: TFLite Micro's int8 DIV shifts right by headroom + recip_shift - output_shift >= 23 - 1 - output_shift:
#: an output shift above this would make the exponent negative (undefined there), refused.
DIV_S8_MAX_OUTPUT_SHIFT = 22


def div_s8_params(op: Operator, a: Tensor, b: Tensor, out: Tensor, act: str) -> dict:
    """TFLM div.cc CalculateOpDataDiv: s1 / (s2 * s_out) through QuantizeMultiplier. The source writes
    the ratio in float; the TFLite Micro build that is the oracle yields the ratio of the float scales
    evaluated in double (cases with exact ties tell the two apart), which is followed here."""
    _positive_scales(op, (a, "input1"), (b, "input2"), (out, "output"))
    real = float(_F32(a.quant.s)) / (float(_F32(b.quant.s)) * float(_F32(out.quant.s)))
    try:
        mult, shift = quantize_multiplier(real)
    except UnrepresentableMultiplier:
        mult, shift = 0, DIV_S8_MAX_OUTPUT_SHIFT + 1
    if shift > DIV_S8_MAX_OUTPUT_SHIFT:
        raise fail(op, f"input1 scale / (input2 scale * output scale) = {real:.6g} is not supported (it must be "
                       f"below 2^{DIV_S8_MAX_OUTPUT_SHIFT}: TFLite Micro's int8 DIV shifts by a negative count beyond)")
    lo, hi = activation_range_quantized(act, "int8", out.quant.s, out.quant.zp)
    return {"input1_offset": -a.quant.zp, "input2_offset": -b.quant.zp, "output_offset": out.quant.zp,
            "output_multiplier": mult, "output_shift": shift, "act_min": lo, "act_max": hi}


@register("DIV")
class Div(OpHandler):
    supported = ("float32, int32 (unquantized; a zero divisor gives 0), int8 (TFLite Micro's arithmetic; a zero "
                 "divisor gives what it computes); fused NONE/RELU/RELU6/RELU_N1_TO_1; broadcasting")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        a, b, out = _binary_io(op, g, ("float32", "int32", "int8"))
        act = _act(op)
        s = shape_params(a, b, out)
        if a.dtype == "float32":
            lo, hi = activation_range_float(act)
            p = Params("utvm_div_f32_params", {"act_min": lo, "act_max": hi})
            return Prepared([call("utvm_div_f32", p, s, In(0), In(1), Out(0))], macs=out.size)
        if a.dtype == "int8":
            p = Params("utvm_div_s8_params", div_s8_params(op, a, b, out, act))
            return Prepared([call("utvm_div_s8", p, s, In(0), In(1), Out(0))], macs=out.size)
        if a.quant is not None or b.quant is not None:
            raise fail(op, "int32 DIV supports unquantized tensors only (as TFLite Micro)")
        lo, hi = {"NONE": (_I32_MIN, _I32_MAX), "RELU": (0, _I32_MAX), "RELU6": (0, 6),
                  "RELU_N1_TO_1": (-1, 1)}[act]
        p = Params("utvm_div_s32_params", {"act_min": lo, "act_max": hi})
        return Prepared([call("utvm_div_s32", p, s, In(0), In(1), Out(0))], macs=out.size)


@register("FLOOR_DIV", "FLOOR_MOD")
class FloorDivMod(OpHandler):
    supported = "float32; broadcasting"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        a, b, out = _binary_io(op, g, ("float32",))
        return Prepared([call(f"utvm_{op.op.lower()}_f32", shape_params(a, b, out), In(0), In(1), Out(0))],
                        macs=out.size)


@register("PRELU")
class Prelu(OpHandler):
    supported = ("float32, int8 (int8 alpha), int16 (int8 alpha, zero points 0: TFLite Micro); alpha broadcast; "
                 "rank <= 4")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 2)
        x, alpha, out = tensor(g, op, 0), tensor(g, op, 1), out_tensor(g, op)
        expect_dtype(op, x, ("float32", "int8", "int16"), "input")
        expect_dtype(op, alpha, ("int8",) if x.dtype == "int16" else (x.dtype,), "alpha")
        expect_dtype(op, out, (x.dtype,), "output")
        if max(len(x.shape), len(alpha.shape), len(out.shape)) > 4:
            # TFLite's and TFLM's kernels broadcast through 4-D shapes (BroadcastPrelu4DSlow); the
            # reference aborts on rank 5
            raise fail(op, f"rank {max(len(x.shape), len(out.shape))} is not supported (the reference handles 1 to 4)")
        if tuple(out.shape) != tuple(x.shape):   # activations.cc PreluPrepare: HaveSameShapes(input, output)
            raise fail(op, f"output shape {list(out.shape)} must be the input's shape {list(x.shape)} "
                           "(alpha broadcasts to the input)")
        check_broadcast(op, x, alpha, out)
        s = shape_params(x, alpha, out)
        if x.dtype == "float32":
            return Prepared([call("utvm_prelu_f32", s, In(0), In(1), Out(0))], macs=out.size)
        _positive_scales(op, (x, "input"), (alpha, "alpha"), (out, "output"))
        si, sa, so = (float(_F32(t.quant.s)) for t in (x, alpha, out))
        if x.dtype == "int8":   # TFLite activations.cc: float32 arithmetic, then double
            r1 = float(_F32(si) / _F32(so))
            r2 = float(_F32(_F32(si) * _F32(sa)) / _F32(so))
            lo, hi = -128, 127
        else:                   # TFLM prelu_common.cc: double
            if x.quant.zp or out.quant.zp:
                raise fail(op, "int16 input and output must have zero point 0")
            r1 = si / so
            r2 = si * sa / so
            lo, hi = -32768, 32767
        m1, e1 = quantize_multiplier(r1)
        m2, e2 = quantize_multiplier(r2)
        p = Params("utvm_prelu_q_params", {
            "input_offset": -x.quant.zp, "alpha_offset": -alpha.quant.zp, "output_offset": out.quant.zp,
            "output_multiplier_1": m1, "output_shift_1": e1, "output_multiplier_2": m2, "output_shift_2": e2,
            "out_min": lo, "out_max": hi})
        sfx = "s8" if x.dtype == "int8" else "s16"
        return Prepared([call(f"utvm_prelu_{sfx}", p, s, In(0), In(1), Out(0))], macs=out.size)


_SEL_DIMS = 6


def select_strides(shapes: list[tuple[int, ...]],
                   out_shape: tuple[int, ...]) -> tuple[list[int], list[list[int]]] | None:
    """Output dims padded to 6 and each input's element strides (0 where it broadcasts)."""
    rank = max([len(out_shape)] + [len(s) for s in shapes])
    if rank > _SEL_DIMS:
        return None
    so = (1,) * (_SEL_DIMS - len(out_shape)) + tuple(out_shape)
    strides = []
    for shape in shapes:
        sp = (1,) * (_SEL_DIMS - len(shape)) + tuple(shape)
        st = [0] * _SEL_DIMS
        acc = 1
        for d in range(_SEL_DIMS - 1, -1, -1):
            if sp[d] == so[d]:
                st[d] = acc if so[d] > 1 else 0
            elif sp[d] != 1:
                return None
            acc *= sp[d]
        strides.append(st)
    for d in range(_SEL_DIMS):   # every output dim is some input's (TFLite's broadcast shape)
        if so[d] != 1 and all(((1,) * (_SEL_DIMS - len(s)) + tuple(s))[d] == 1 for s in shapes):
            return None
    return list(so), strides


@register("SELECT_V2")
class SelectV2(OpHandler):
    supported = "float32, int8, int16 (bool condition); the three inputs broadcast (up to 6 dims)"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 3)
        c, x, y, out = tensor(g, op, 0), tensor(g, op, 1), tensor(g, op, 2), out_tensor(g, op)
        expect_dtype(op, c, ("bool",), "condition")
        expect_dtype(op, x, ("float32", "int8", "int16"), "x")
        expect_dtype(op, y, (x.dtype,), "y")
        expect_dtype(op, out, (x.dtype,), "output")
        check_broadcast_rank(op, c, x, y)
        plan = select_strides([c.shape, x.shape, y.shape], out.shape)
        if plan is None:
            raise fail(op, f"shapes {list(c.shape)}, {list(x.shape)}, {list(y.shape)} do not broadcast to "
                           f"{list(out.shape)} (or have more than {_SEL_DIMS} dimensions)")
        dims, (sc, sx, sy) = plan
        p = Params("utvm_select_v2_params", {
            "size": out.size, "elem_size": {"float32": 4, "int8": 1, "int16": 2}[x.dtype], "dims": dims,
            "stride_c": sc, "stride_x": sx, "stride_y": sy})
        return Prepared([call("utvm_select_v2", p, In(0), In(1), In(2), Out(0))], macs=out.size)


@register("ADD_N")
class AddN(OpHandler):
    supported = "float32, int8 (every input with the same scale and zero point: TFLite Micro); same shapes"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        if len(op.inputs) < 2 or len(op.outputs) != 1:
            raise fail(op, f"expected at least 2 inputs and 1 output, got {len(op.inputs)} and {len(op.outputs)}")
        ins = [tensor(g, op, k) for k in range(len(op.inputs))]
        out = out_tensor(g, op)
        expect_dtype(op, ins[0], ("float32", "int8"), "input 0")
        expect_dtype(op, out, (ins[0].dtype,), "output")
        for k, t in enumerate(ins):
            expect_dtype(op, t, (ins[0].dtype,), f"input {k}")
            if tuple(t.shape) != tuple(ins[0].shape):
                raise fail(op, f"input {k} shape {list(t.shape)} differs from input 0 {list(ins[0].shape)}")
        if out.size != ins[0].size:
            raise fail(op, f"output shape {list(out.shape)} does not match the inputs {list(ins[0].shape)}")
        ptrs = PtrArray(tuple(In(k) for k in range(len(ins))), "inputs")
        n = len(ins)
        if out.dtype == "float32":
            return Prepared([call("utvm_add_n_f32", Lit(n), Lit(out.size), ptrs, Out(0))], macs=out.size * n)
        _positive_scales(op, *[(t, f"input {k}") for k, t in enumerate(ins)], (out, "output"))
        for k, t in enumerate(ins[1:], 1):
            if t.quant.zp != ins[0].quant.zp or _F32(t.quant.s) != _F32(ins[0].quant.s):
                raise fail(op, f"input {k} quantization differs from input 0 (TFLite Micro requires one scale "
                               "and zero point)")
        si, so = float(_F32(ins[0].quant.s)), float(_F32(out.quant.s))
        twice = 2.0 * si
        mi, ei = _lt1(op, si / twice, "input rescale")
        mo, eo = _lt1(op, twice / ((1 << 20) * so), "output rescale")
        lo, hi = activation_range_quantized("NONE", "int8", out.quant.s, out.quant.zp)
        p = Params("utvm_add_n_q_params", {
            "left_shift": 20, "input_offset": -ins[0].quant.zp, "input_multiplier": mi, "input_shift": ei,
            "output_offset": out.quant.zp, "output_multiplier": mo, "output_shift": eo, "act_min": lo, "act_max": hi})
        return Prepared([call("utvm_add_n_s8", p, Lit(n), Lit(out.size), ptrs, Out(0))], macs=out.size * n)
