"""SOFTMAX, LOGISTIC, TANH: int8, int16, float32 (TFLite reference semantics).

Prepare work, as tensorflow/lite/kernels/activations.cc (kReference) does it:

- SOFTMAX int8 -> int8 / int8 -> int16: the gemmlowp fixed-point reference
  (internal/reference/softmax.h). ``PreprocessSoftmaxScaling(beta, input_scale, 5)`` gives
  ``QuantizeMultiplierGreaterThanOne(min(beta * scale * 2^26, 2^31 - 1))`` (double math) and
  ``diff_min = -CalculateInputRadius(5, left_shift)``. The output is fixed: scale 1/256, zero point
  -128 (int8) or 1/65536, -32768 (int16: the kernel adds ``numeric_limits<int16_t>::min()``).
- SOFTMAX int16 -> int16: ``SoftmaxInt16`` with two 513-entry LUTs (exp on [-10, 0] and
  1/(1+x) on [0, 1]) made by ``LUTPopulate<int16_t>`` in double (``LUTPopulateInt16<double>``);
  ``QuantizeMultiplier(input_scale * beta / (10 / 65535))``. Zero points 0, output scale 1/32768.
- LOGISTIC/TANH int8: a 256-entry table, ``LUTPopulate<int8_t>`` in float32
  (dequantize, ``1/(1+expf(-x))`` / ``tanhf``, ``round(y / output_scale) + zp``, clamp);
  LOGISTIC requires output scale 1/256 (the reference checks it; any zero point).
- LOGISTIC/TANH int16 (zero points 0, output scale 2^-15): ``reference_integer_ops::Logistic/Tanh``
  with the 256-entry ``sigmoid_table_uint16``. Power-of-two input scales (2^-12 for LOGISTIC, 2^-12
  or 2^-11 for TANH) use multiplier ``3 << left_shift``; other scales the multiplier found by
  doubling ``input_scale * 4096 * 3`` while it is <= 32767 / 2.
- float32: ``reference_ops::Softmax`` (expf of (x - max) * beta, sum, divide), ``Logistic``
  (cut-offs 16.619047 and -9) and ``std::tanh``.

The int8 tables use float32 ``expf`` / ``tanhf``; they are computed here from the double-precision
functions rounded to float32 (what a correctly rounded libm returns).
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph, Operator
from ..quant import quantize_multiplier
from .base import OpHandler, dtype_suffix, expect_counts, expect_dtype, expect_scale, fail, out_tensor, register, tensor
from .call import Const, In, Lit, Out, Params, Prepared, call

_F32 = np.float32


def expf(x: float) -> np.float32:
    """float32 exp, as a correctly rounded libm expf returns it."""
    try:
        r = math.exp(float(x))
    except OverflowError:
        r = math.inf
    with np.errstate(over="ignore"):
        return _F32(r)


def round_away(x: float) -> float:
    """std::round: halves away from zero (exact for every double)."""
    if not math.isfinite(x):
        return x
    a = abs(x)
    f = math.floor(a)
    r = f + 1.0 if a - f >= 0.5 else f
    return math.copysign(r, x)


def tanhf(x: float) -> np.float32:
    return _F32(math.tanh(float(x)))


def lut_int8(in_scale: float, in_zp: int, out_scale: float, out_zp: int, fn) -> np.ndarray:
    """TFLite LUTPopulate<int8_t> (float32 math); index = (uint8_t)input."""
    inverse_scale = _F32(1.0) / _F32(out_scale)
    table = np.zeros(256, dtype=np.int8)
    for val in range(-128, 128):
        dequantized = _F32(in_scale) * _F32(val - in_zp)
        transformed = _F32(fn(dequantized))
        with np.errstate(over="ignore", invalid="ignore"):
            rescaled = _F32(transformed * inverse_scale)
        if math.isnan(rescaled):
            raise ValueError("NaN in lookup table")
        if math.isinf(rescaled):
            q = 127 if rescaled > 0 else -128
        else:
            q = int(_F32(_F32(round_away(float(rescaled))) + _F32(out_zp)))
        table[val & 0xFF] = max(-128, min(127, q))
    return table


def _logistic_f32(x: np.float32) -> np.float32:
    one = _F32(1.0)
    return one / (one + expf(-x))


def lut_int16_double(input_scale: float, input_zp: int, output_scale: float, output_zp: int, fn) -> np.ndarray:
    """TFLite LUTPopulateInt16<double> (513 entries, used by the int16 SOFTMAX)."""
    input_min = input_scale * (-32768 - input_zp)
    input_max = input_scale * (32767 - input_zp)
    output_min = output_scale * (-32768 - output_zp)
    output_max = output_scale * (32767 - output_zp)
    nb_steps = 512
    step = (input_max - input_min) / nb_steps
    half_step = step / 2
    inv = 65536.0 / (output_max - output_min)
    lut = np.zeros(nb_steps + 1, dtype=np.int16)

    for i in range(nb_steps):
        val = fn(input_min + i * step)
        val_mid = fn(input_min + i * step + half_step)
        val_next = fn(input_min + (i + 1) * step)
        sample_val = round_away(val * inv)
        midpoint_interp_val = round_away((val_next * inv + round_away(val * inv)) / 2)
        midpoint_val = round_away(val_mid * inv)
        midpoint_err = midpoint_interp_val - midpoint_val
        bias = round_away(midpoint_err / 2)
        lut[i] = int(min(max(sample_val - bias, -32768.0), 32767.0))
    lut[nb_steps] = int(min(max(round_away(fn(input_max) * inv), -32768.0), 32767.0))
    return lut


def checked_log2(x: float) -> tuple[bool, int]:
    """TFLite CheckedLog2 (float32 math)."""
    x_log2 = _F32(_F32(math.log(float(_F32(x)))) * (_F32(1.0) / _F32(math.log(2.0))))
    rounded = _F32(round_away(float(x_log2)))
    frac = _F32(x_log2 - rounded)
    return bool(abs(frac) < _F32(1e-3)), int(rounded)


def _near(a: float, b: float, tol: float) -> bool:
    return abs(float(_F32(a)) - b) <= tol


class _Unary(OpHandler):
    name_out_int8 = ""

    def _common(self, op: Operator, g: Graph) -> None:
        expect_counts(op, 1)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, x, ("int8", "int16", "float32"), "input")
        if x.size != out.size:
            raise fail(op, f"input {list(x.shape)} and output {list(out.shape)} sizes differ")
        if x.dtype != "float32":
            expect_scale(op, ((x, "input"), (out, "output")), int16_zero_points=False)


# ---------------------------------------------------------------------------------- SOFTMAX

def softmax_s8_params(beta: float, input_scale: float) -> tuple[int, int, int]:
    """PreprocessSoftmaxScaling(beta, input_scale, 5) + CalculateInputRadius: (mult, shift, diff_min)."""
    real = min(float(_F32(beta)) * float(_F32(input_scale)) * float(1 << 26), float((1 << 31) - 1))
    # capped below 2^31 as in the reference: a left shift of up to 31 (utvm_shl_wrap_i32, defined)
    mult, shift = quantize_multiplier(real, float(1 << 31))
    if shift < 0:
        raise ValueError("beta * input_scale is too small")
    radius = math.floor(1.0 * 31 * (1 << 26) / (1 << shift))
    return mult, shift, -int(radius)


@register("SOFTMAX")
class Softmax(_Unary):
    supported = ("int8 -> int8 (output 1/256, -128), int8 -> int16 (output 1/65536, -32768), "
                 "int16 -> int16 (zero points 0, output 1/32768, rank <= 4), float32; any beta")

    def validate(self, op: Operator, g: Graph) -> None:
        self._common(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        allowed = {"int8": ("int8", "int16"), "int16": ("int16",), "float32": ("float32",)}[x.dtype]
        expect_dtype(op, out, allowed, "output")
        if len(x.shape) < 1:
            raise fail(op, "input must have at least one dimension")
        beta = float(op.options.get("beta", 0.0))
        if not math.isfinite(beta):
            raise fail(op, "beta must be finite")
        if x.dtype == "float32":
            return
        if x.dtype == "int8":
            if out.dtype == "int8" and (out.quant.zp != -128 or not _near(out.quant.s, 1 / 256, 0.001 / 256)):
                raise fail(op, "int8 output must have scale 1/256 and zero point -128")
            if out.dtype == "int16" and (out.quant.zp != -32768 or not _near(out.quant.s, 1 / 65536, 0.001 / 65536)):
                raise fail(op, "int16 output of an int8 softmax must have scale 1/65536 and zero point -32768")
            try:
                softmax_s8_params(beta, x.quant.s)
            except ValueError:
                raise fail(op, "beta * input scale is too small for the reference kernel "
                               "(QuantizeMultiplierGreaterThanOne)") from None
        else:
            if x.quant.zp or out.quant.zp:
                raise fail(op, "int16 tensors must have zero point 0")
            if not _near(out.quant.s, 1 / 32768, 0.001 / 32768):
                raise fail(op, "int16 output must have scale 1/32768")
            if len(x.shape) > 4:
                raise fail(op, "int16 softmax supports rank 1 to 4 (as the reference)")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        beta = float(op.options.get("beta", 0.0))
        depth = x.shape[-1]
        common = {"outer": x.size // depth if depth else 0, "depth": depth}
        if x.dtype == "float32":
            p = Params("utvm_softmax_f32_params", {**common, "beta": beta})
            return Prepared([call("utvm_softmax_f32", p, In(0), Out(0))])
        if x.dtype == "int8":
            mult, shift, diff_min = softmax_s8_params(beta, x.quant.s)
            name = "softmax_s8" if out.dtype == "int8" else "softmax_s8_s16"
            p = Params("utvm_softmax_s8_params", {
                **common, "input_multiplier": mult, "input_left_shift": shift, "diff_min": diff_min})
            return Prepared([call(f"utvm_{name}", p, In(0), Out(0))])
        rng = 65535.0
        exp_lut = lut_int16_double(10.0 / rng, 32767, 2.0 / rng, 0, math.exp)
        inv_lut = lut_int16_double(1.0 / rng, -32768, 2.0 / rng, 0, lambda v: 1.0 / (1.0 + v))
        mult, shift = quantize_multiplier(float(_F32(x.quant.s) * _F32(beta)) / (10.0 / 65535.0))
        e = Const("exp_lut", exp_lut, "int16_t")
        r = Const("one_over_one_plus_x_lut", inv_lut, "int16_t")
        p = Params("utvm_softmax_s16_params", {**common, "input_multiplier": mult, "input_left_shift": shift})
        return Prepared([call("utvm_softmax_s16", p, e, r, In(0), Out(0))])


# ------------------------------------------------------------------------- LOGISTIC / TANH

def int16_sigmoid_tanh_params(op: Operator, input_scale: float, is_tanh: bool) -> tuple[int, int]:
    """TanhPrepare / SigmoidPrepare for int16: the (multiplier, right shift) the kernel applies."""
    ok, log2 = checked_log2(input_scale)
    left_shift = (15 - 3) + log2
    pot = ok and (left_shift in (0, 1) if is_tanh else left_shift == 0)
    if pot:
        return 3 << left_shift, 0
    multiplier = float(_F32(input_scale)) * 4096.0 * 3.0
    left_shift = 0
    while multiplier <= 32767.0 / 2.0 and left_shift <= 30:
        left_shift += 1
        multiplier *= 2.0
    mult = int(multiplier)
    if mult >= 65536:
        raise fail(op, f"input scale {input_scale:g} is too large for the int16 kernel (int32 overflow)")
    return mult, left_shift


class _SigmoidTanh(_Unary):
    is_tanh = False
    family = ""
    supported = ""

    def validate(self, op: Operator, g: Graph) -> None:
        self._common(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        expect_dtype(op, out, (x.dtype,), "output")
        if x.dtype == "int8" and not self.is_tanh and float(_F32(out.quant.s)) != 1.0 / 256:
            raise fail(op, "int8 LOGISTIC output scale must be 1/256 (as the reference checks)")
        if x.dtype == "int16":
            if x.quant.zp or out.quant.zp:
                raise fail(op, "int16 tensors must have zero point 0")
            ok, log2 = checked_log2(out.quant.s)
            if not ok or log2 != -15 or (not self.is_tanh and float(_F32(out.quant.s)) != 1.0 / 32768):
                raise fail(op, "int16 output scale must be 1/32768")
            int16_sigmoid_tanh_params(op, x.quant.s, self.is_tanh)

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        self.validate(op, g)
        x, out = tensor(g, op, 0), out_tensor(g, op)
        fn = f"utvm_{self.family}_{dtype_suffix(x.dtype)}"
        if x.dtype == "float32":
            return Prepared([call(fn, Lit(out.size), In(0), Out(0))])
        if x.dtype == "int8":
            f = tanhf if self.is_tanh else _logistic_f32
            try:
                table = lut_int8(x.quant.s, x.quant.zp, out.quant.s, out.quant.zp, f)
            except ValueError:   # 0 x inf: 1 / output scale overflows float32 (the reference casts NaN)
                raise fail(op, f"the quantization scales (input {x.quant.s:g}, output {out.quant.s:g}) make the "
                               "reference's lookup table NaN (1 / output scale is infinite in float32)") from None
            # the table lookup every int8 elementwise operator with a 256-entry table shares
            return Prepared([call("utvm_lut_s8", Lit(out.size), Const("lut", table, "int8_t"), In(0), Out(0))])
        mult, shift = int16_sigmoid_tanh_params(op, x.quant.s, self.is_tanh)
        return Prepared([call(fn, Lit(out.size), Lit(mult), Lit(shift), In(0), Out(0))])


@register("LOGISTIC")
class Logistic(_SigmoidTanh):
    is_tanh = False
    family = "logistic"
    supported = "int8 (output scale 1/256), int16 (zero points 0, output scale 1/32768), float32"


@register("TANH")
class Tanh(_SigmoidTanh):
    is_tanh = True
    family = "tanh"
    supported = "int8, int16 (zero points 0, output scale 1/32768), float32"
