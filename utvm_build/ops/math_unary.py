"""Elementwise unary operators: ABS, NEG, CEIL, FLOOR, ROUND, SQRT, RSQRT, SQUARE, EXP, LOG, SIN, COS,
ELU, HARD_SWISH, LOGICAL_NOT, ZEROS_LIKE, CAST, in the types TFLite Micro's kernels accept.

Semantics are TFLite's reference kernels (elementwise.cc, activations.cc, elu.cc, hard_swish.h,
round.h, cast.cc, zeros_like.cc); the types are TFLM's (a type TFLM refuses is refused here).
Prepare work done here:
- float32: one libm call or expression per element in C (``kernels/unary_f32.h``);
- int8 ABS, RSQRT, ELU, HARD_SWISH: the reference arithmetic for each of the 256 input bytes,
  computed here into a table (``kernels/lut_s8.h``): ABS's MultiplyByQuantizedMultiplier rescale,
  RSQRT's integer path (GetInvSqrtQuantizedMultiplierExp, shifts of 20), ELU's
  PopulateLookupTable (float32 expf), HARD_SWISH's int16 fixed-point path (hard_swish.h);
- int16 ABS (quantized, zero points 0, or unquantized): MultiplyByQuantizedMultiplier in C;
- int16 RSQRT (TFLM only; zero points 0): RSQRT's integer path per element in C (``kernels/rsqrt_s16.h``).
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator, Tensor
from ..quant import quantize_multiplier
from .base import OpHandler, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import Const, In, Lit, Out, Params, Prepared, call
from .math_fixed import INT16_MAX, INT16_MIN, downscale_multiplier_int16, inv_sqrt_multiplier, mbqm, rdbp, srdhm, wrap
from .nonlinear import expf, lut_int8

_F32 = np.float32

#: operator -> the int8/int16 types it accepts besides float32 (TFLM's kernels)
_FLOAT_ONLY = ("NEG", "CEIL", "FLOOR", "ROUND", "SQRT", "SQUARE", "EXP", "LOG", "SIN", "COS")
_TYPES = {**{name: ("float32",) for name in _FLOAT_ONLY},
          "ABS": ("float32", "int8", "int16"), "RSQRT": ("float32", "int8", "int16"), "ELU": ("float32", "int8"),
          "HARD_SWISH": ("float32", "int8")}


def _same_shape(op: Operator, x: Tensor, out: Tensor) -> None:
    if tuple(out.shape) != tuple(x.shape):
        raise fail(op, f"output shape {list(out.shape)} differs from the input shape {list(x.shape)}")


def _quant_in_out(op: Operator, x: Tensor, out: Tensor) -> tuple[float, int, float, int]:
    expect_quant(op, x, "input")
    expect_quant(op, out, "output")
    for t, role in ((x, "input"), (out, "output")):
        if not (t.quant.s > 0 and math.isfinite(t.quant.s)):
            raise fail(op, f"{role} tensor #{t.index} '{t.name}' scale must be positive and finite")
    return float(_F32(x.quant.s)), int(x.quant.zp), float(_F32(out.quant.s)), int(out.quant.zp)


def _clamp8(v: int) -> int:
    return max(-128, min(127, v))


def abs_table(si: float, zi: int, so: float, zo: int) -> np.ndarray:
    """elementwise.cc AbsEvalQuantized for every int8 input."""
    rescale = _F32(si) != _F32(so)
    m, s = quantize_multiplier(float(_F32(si) / _F32(so))) if rescale else (0, 0)
    table = np.zeros(256, dtype=np.int8)
    for v in range(-128, 128):
        a = abs(v - zi)
        r = (mbqm(a, m, s) if rescale else a) + zo
        table[v & 0xFF] = _clamp8(r)
    return table


def rsqrt_table(si: float, zi: int, so: float, zo: int) -> np.ndarray:
    """elementwise.cc RsqrtEvalQuantized (int8) for every input: 1/sqrt through
    GetInvSqrtQuantizedMultiplierExp and two MultiplyByQuantizedMultiplier with shifts of +-20.
    The reference fails at run time on inputs below the zero point; the table holds what its
    arithmetic gives there (GetInvSqrt treats x <= 1 as 1)."""
    denom = float(_F32(np.sqrt(_F32(si))) * _F32(so))
    # A float32 product that underflows to 0 makes the reference's 1/x infinite: not representable.
    m, s = quantize_multiplier(1.0 / denom if denom else math.inf)
    table = np.zeros(256, dtype=np.int8)
    for v in range(-128, 128):
        x = v - zi
        if x == 0:
            r = 127
        else:
            im, ish = inv_sqrt_multiplier(x)
            data = mbqm(1, im, ish + 20)
            r = _clamp8(mbqm(data, m, s - 20) + zo)
        table[v & 0xFF] = r
    return table


def elu_table(si: float, zi: int, so: float, zo: int) -> np.ndarray:
    """elu.cc PopulateLookupTable<int8_t> with x < 0 ? expf(x) - 1 : x (float32)."""
    return lut_int8(si, zi, so, zo, lambda v: _F32(expf(v) - _F32(1.0)) if v < 0 else _F32(v))


def hard_swish_params(si: float, so: float) -> tuple[int, int, int, int]:
    """HardSwishPrepare: (output multiplier int16, exponent, reluish multiplier int16, exponent)."""
    hires = _F32(_F32(1.0 / 128.0) * _F32(si))
    reluish_scale = _F32(3.0 / 32768.0)
    om, oe = quantize_multiplier(float(_F32(hires / _F32(so))))
    rm, re_ = quantize_multiplier(float(_F32(hires / reluish_scale)))
    return downscale_multiplier_int16(om), oe, downscale_multiplier_int16(rm), re_


def _sat_left_shift16(v: int, amount: int) -> int:
    return max(INT16_MIN, min(INT16_MAX, v * (1 << amount)))


def hard_swish_table(si: float, zi: int, so: float, zo: int) -> np.ndarray:
    """reference_ops::HardSwish<int8_t> (int16 fixed point) for every int8 input."""
    om, oe, rm, re_ = hard_swish_params(si, so)
    table = np.zeros(256, dtype=np.int8)
    for v in range(-128, 128):
        iv = wrap(v - zi, 16)
        hires = wrap(iv * 128, 16)
        preshift_out = srdhm(hires, om, 16)
        reluish = hires
        if re_ > 0:
            reluish = _sat_left_shift16(reluish, re_ - 1)
        reluish = srdhm(reluish, rm, 16)
        if re_ > 0:
            reluish = _sat_left_shift16(reluish, 1)
        if re_ < 0:
            reluish = rdbp(reluish, -re_)
        reluish = wrap((reluish + (1 << 15)) >> 1, 16)
        if reluish == preshift_out == INT16_MIN:
            pre = INT16_MAX
        else:
            p = reluish * preshift_out
            pre = wrap(abs(p) // (1 << 15) * (1 if p >= 0 else -1), 16)
        out = wrap(rdbp(pre, -oe) + zo, 16)
        table[v & 0xFF] = _clamp8(out)
    return table


_TABLES = {"ABS": abs_table, "RSQRT": rsqrt_table, "ELU": elu_table, "HARD_SWISH": hard_swish_table}


#: operator -> its own ``supported`` text (docs/operators.md; each operator's types exactly)
_SUPPORTED = {
    **{name: "float32 (TFLite Micro's kernels take no integer type)" for name in _FLOAT_ONLY},
    "ABS": "float32; int8 (table made at compile time); int16 (quantized with zero point 0, or unquantized)",
    "RSQRT": ("float32; int8 (table made at compile time: the reference's integer path); int16 (zero points 0, "
              "the same integer path per element, TFLM)"),
    "ELU": "float32; int8 (table made at compile time)",
    "HARD_SWISH": "float32; int8 (table made at compile time; input scale / 128 at most the output scale)",
}


def _rsqrt_s16(op: Operator, x: Tensor, out: Tensor) -> Prepared:
    """TFLM's int16 RSQRT (elementwise.cc): quantized, zero points 0, multiplier as for int8."""
    if x.quant is None or out.quant is None:
        raise fail(op, "int16 RSQRT needs quantized input and output (TFLM)")
    si, zi, so, zo = _quant_in_out(op, x, out)
    if zi or zo:
        raise fail(op, f"int16 zero points must be 0 (input {zi}, output {zo})")
    m, s = quantize_multiplier(1.0 / float(_F32(np.sqrt(_F32(si))) * _F32(so)))
    if not -31 <= s - 20 <= 31:   # the second MultiplyByQuantizedMultiplier's shift
        raise fail(op, f"int16 RSQRT: output multiplier shift {s} out of range (input scale {si}, output "
                       f"scale {so}); supported: -31 <= shift - 20 <= 31")
    p = Params("utvm_rsqrt_s16_params", {"multiplier": m, "shift": s})
    return Prepared([call("utvm_rsqrt_s16", p, Lit(x.size), In(0), Out(0))], macs=x.size)


class UnaryMath(OpHandler):
    """One instance per operator (registered below), each with its own ``supported`` text."""

    supported = ""

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        name = op.op
        expect_dtype(op, x, _TYPES[name], "input")
        expect_dtype(op, out, (x.dtype,), "output")
        _same_shape(op, x, out)
        fn = name.lower()
        if x.dtype == "float32":
            return Prepared([call(f"utvm_{fn}_f32", Lit(x.size), In(0), Out(0))], macs=x.size)
        if x.dtype == "int16" and name == "RSQRT":
            return _rsqrt_s16(op, x, out)
        if x.dtype == "int16":   # ABS
            if x.quant is None and out.quant is None:
                p = {"quantized": 0, "needs_rescale": 0, "multiplier": 0, "shift": 0}
            else:
                si, zi, so, zo = _quant_in_out(op, x, out)
                if zi or zo:
                    raise fail(op, f"int16 zero points must be 0 (input {zi}, output {zo})")
                rescale = _F32(si) != _F32(so)
                m, s = quantize_multiplier(float(_F32(si) / _F32(so))) if rescale else (0, 0)
                p = {"quantized": 1, "needs_rescale": int(rescale), "multiplier": m, "shift": s}
            return Prepared([call("utvm_abs_s16", Params("utvm_abs_s16_params", p), Lit(x.size), In(0), Out(0))],
                            macs=x.size)
        si, zi, so, zo = _quant_in_out(op, x, out)
        if name == "HARD_SWISH" and hard_swish_params(si, so)[1] > 0:
            raise fail(op, "HARD_SWISH int8: input scale / 128 over the output scale must be at most 1 "
                           "(TFLite's output_multiplier_exponent <= 0)")
        try:
            table = _TABLES[name](si, zi, so, zo)
        except ValueError:   # lut_int8: 0 x inf (1 / output scale overflows float32)
            raise fail(op, f"the quantization scales (input {si:g}, output {so:g}) make the reference's lookup "
                           "table NaN (1 / output scale is infinite in float32)") from None
        return Prepared([call("utvm_lut_s8", Lit(x.size), Const(f"{fn}_lut", table, "int8_t"), In(0), Out(0))],
                        macs=x.size)


for _name in _TYPES:
    register(_name)(type(f"UnaryMath_{_name}", (UnaryMath,), {"supported": _SUPPORTED[_name]}))


@register("LOGICAL_NOT")
class LogicalNot(OpHandler):
    supported = "bool"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("bool",), "input")
        expect_dtype(op, out, ("bool",), "output")
        _same_shape(op, x, out)
        return Prepared([call("utvm_logical_not", Lit(x.size), In(0), Out(0))], macs=x.size)


@register("ZEROS_LIKE")
class ZerosLike(OpHandler):
    supported = "int8, int32, int64, float32"

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int32", "int64", "float32"), "input")
        expect_dtype(op, out, (x.dtype,), "output")
        _same_shape(op, x, out)
        return Prepared([call("utvm_zeros_like", Lit(out.nbytes), Out(0))])


_CAST_IN = {"int8": 0, "int16": 1, "int32": 2, "float32": 3, "bool": 4, "uint32": 5}
_CAST_OUT = {"int8": 0, "int16": 1, "int32": 2, "float32": 3, "bool": 4, "uint32": 5}


@register("CAST")
class Cast(OpHandler):
    supported = ("from int8, int16, int32, uint32, float32, bool to int8, int16, int32, uint32, float32, bool "
                 "(TFLite Micro's pairs)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, tuple(_CAST_IN), "input")
        expect_dtype(op, out, tuple(_CAST_OUT), "output")
        if x.size != out.size:
            raise fail(op, f"output shape {list(out.shape)} has another element count than the input "
                           f"{list(x.shape)}")
        p = Params("utvm_cast_params", {"in_type": _CAST_IN[x.dtype], "out_type": _CAST_OUT[out.dtype]})
        return Prepared([call("utvm_cast", p, Lit(x.size), In(0), Out(0))], macs=x.size)
