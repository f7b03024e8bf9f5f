"""Tests of the test infrastructure: the TFLite writer (tests/tflite_writer.py) and the oracle.

Every model built here is run by tflite-runtime's reference kernels (in one batched worker);
float models are compared with NumPy, quantized ones with a float computation (+-1 LSB) or by
shape and dtype. Tests that need ../shared/models skip when that folder is absent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from oracle import (
    OracleError,
    micro_reference_outputs,
    model_io,
    random_inputs,
    reference_outputs,
    reference_outputs_many,
    tflm_available,
)
from tflite.Model import Model
from tflite_writer import ModelBuilder, TensorSpec, options_table_name, single_op_model

SHARED = Path(__file__).resolve().parents[2] / "shared" / "models"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/models not present")
needs_tflm = pytest.mark.skipif(not tflm_available(),
                                reason="tflite-micro not installed (pip install --pre tflite-micro)")

RNG = np.random.default_rng(1234)


# ------------------------------------------------------------ numpy helpers
def _same_pad(size: int, k: int, stride: int, dil: int = 1) -> tuple[int, int]:
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dil + 1 - size, 0)
    return out, total // 2


def np_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, padding: str) -> np.ndarray:
    """NHWC x OHWI convolution in float64 (TFLite padding rules)."""
    n, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    if padding == "SAME":
        oh, ph = _same_pad(h, kh, stride)
        ow, pw = _same_pad(wd, kw, stride)
    else:
        oh, ow, ph, pw = (h - kh) // stride + 1, (wd - kw) // stride + 1, 0, 0
    xp = np.zeros((n, h + 2 * kh, wd + 2 * kw, x.shape[3]))
    xp[:, ph:ph + h, pw:pw + wd, :] = x  # padded copy; offsets shifted by (ph, pw)
    y = np.zeros((n, oh, ow, o))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            y[:, i, j, :] = np.einsum("nhwc,ohwc->no", patch, w)
    return y + (0 if b is None else b)


def np_depthwise(x: np.ndarray, w: np.ndarray, b: np.ndarray, mult: int) -> np.ndarray:
    """Depthwise conv, stride 1, VALID; w is [1, kh, kw, C*mult]."""
    c = x.shape[3]
    wf = np.zeros((c * mult, w.shape[1], w.shape[2], c))
    for oc in range(c * mult):
        wf[oc, :, :, oc // mult] = w[0, :, :, oc]
    return np_conv2d(x, wf, b, 1, "VALID")


def np_transpose_conv(x: np.ndarray, w: np.ndarray, out_shape: tuple[int, ...], stride: int) -> np.ndarray:
    """TRANSPOSE_CONV with VALID padding; w is [O, kh, kw, I]."""
    n, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    y = np.zeros(out_shape)
    for i in range(h):
        for j in range(wd):
            contrib = np.einsum("nc,ohwc->nhwo", x[:, i, j, :], w)
            y[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :] += contrib[:, :out_shape[1] - i * stride,
                                                                                      :out_shape[2] - j * stride]
    return y


def quantize(x: np.ndarray, scale: float | np.ndarray, zp: int, dtype: str) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(np.round(x / scale) + zp, info.min, info.max).astype(dtype)


def rand_q(shape: tuple[int, ...], dtype: str, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    info = np.iinfo(dtype)
    return RNG.integers(info.min if lo is None else lo, info.max if hi is None else hi, size=shape,
                        endpoint=True).astype(dtype)


def rand_f(*shape: int) -> np.ndarray:
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


# --------------------------------------------------------------- the cases
@dataclass
class Case:
    model: bytes
    inputs: list[np.ndarray]
    out_shape: tuple[int, ...]
    out_dtype: str
    expect: np.ndarray | None = None      # expected values (float: allclose; int: within `lsb`)
    lsb: int = 0
    extra: dict = field(default_factory=dict)


def _float_unary(op: str, fn: Callable[[np.ndarray], np.ndarray], options: dict | None = None) -> Case:
    x = rand_f(2, 3, 4)
    m = single_op_model(op, [TensorSpec((2, 3, 4), "float32")], [TensorSpec((2, 3, 4), "float32")], options)
    return Case(m, [x], (2, 3, 4), "float32", fn(x.astype(np.float64)))


def build_cases() -> dict[str, Case]:
    c: dict[str, Case] = {}
    # ---- float32 cases, checked against NumPy
    c["relu_f32"] = _float_unary("RELU", lambda x: np.maximum(x, 0))
    c["relu6_f32"] = _float_unary("RELU6", lambda x: np.clip(6 * x, 0, 6) / 6 * 1)
    c["relu6_f32"].inputs[0] *= 8
    c["relu6_f32"].expect = np.clip(c["relu6_f32"].inputs[0].astype(np.float64), 0, 6)
    c["logistic_f32"] = _float_unary("LOGISTIC", lambda x: 1 / (1 + np.exp(-x)))
    c["tanh_f32"] = _float_unary("TANH", np.tanh)
    c["leaky_relu_f32"] = _float_unary("LEAKY_RELU", lambda x: np.where(x > 0, x, 0.25 * x), {"alpha": 0.25})
    c["gelu_f32"] = _float_unary("GELU", np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2)))),
                                 {"approximate": False})  # builtin code 150 (>= 127)
    c["softmax_f32"] = _float_unary(
        "SOFTMAX", lambda x: np.exp(2 * x) / np.exp(2 * x).sum(-1, keepdims=True), {"beta": 2.0})

    a, b = rand_f(2, 3, 4), rand_f(2, 3, 4)
    m = single_op_model("ADD", [TensorSpec((2, 3, 4), "float32")] * 2, [TensorSpec((2, 3, 4), "float32")])
    c["add_f32"] = Case(m, [a, b], (2, 3, 4), "float32", a.astype(np.float64) + b)
    m = single_op_model("SUB", [TensorSpec((2, 3, 4), "float32")] * 2, [TensorSpec((2, 3, 4), "float32")],
                        {"fused_activation_function": "RELU_N1_TO_1"})
    c["sub_f32"] = Case(m, [a, b], (2, 3, 4), "float32", np.clip(a.astype(np.float64) - b, -1, 1))
    bb = rand_f(1, 1, 4)
    m = single_op_model("MUL", [TensorSpec((2, 3, 4), "float32"), TensorSpec((1, 1, 4), "float32", data=bb)],
                        [TensorSpec((2, 3, 4), "float32")], {"fused_activation_function": "RELU"})
    c["mul_f32"] = Case(m, [a], (2, 3, 4), "float32", np.maximum(a.astype(np.float64) * bb, 0))

    x = rand_f(1, 7, 6, 3)
    w, bias = rand_f(5, 3, 3, 3), rand_f(5)
    m = single_op_model("CONV_2D", [TensorSpec(x.shape, "float32"), TensorSpec(w.shape, "float32", data=w),
                                    TensorSpec((5,), "float32", data=bias)], [TensorSpec((1, 4, 3, 5), "float32")],
                        {"padding": "SAME", "stride_w": 2, "stride_h": 2})
    c["conv_f32"] = Case(m, [x], (1, 4, 3, 5), "float32", np_conv2d(x, w, bias, 2, "SAME"))

    wd, bd = rand_f(1, 2, 2, 6), rand_f(6)
    m = single_op_model("DEPTHWISE_CONV_2D", [TensorSpec(x.shape, "float32"), TensorSpec(wd.shape, "float32", data=wd),
                                              TensorSpec((6,), "float32", data=bd)],
                        [TensorSpec((1, 6, 5, 6), "float32")], {"padding": "VALID"})
    c["dwconv_f32"] = Case(m, [x], (1, 6, 5, 6), "float32", np_depthwise(x, wd, bd, 2))

    xf, wf, bf = rand_f(2, 3, 8), rand_f(5, 8), rand_f(5)
    m = single_op_model("FULLY_CONNECTED", [TensorSpec(xf.shape, "float32"), TensorSpec(wf.shape, "float32", data=wf),
                                            TensorSpec((5,), "float32", data=bf)], [TensorSpec((2, 3, 5), "float32")],
                        {"keep_num_dims": True})
    c["fc_f32_keepdims"] = Case(m, [xf], (2, 3, 5), "float32", xf.astype(np.float64) @ wf.T + bf)
    m = single_op_model("FULLY_CONNECTED", [TensorSpec(xf.shape, "float32"), TensorSpec(wf.shape, "float32", data=wf),
                                            None], [TensorSpec((6, 5), "float32")])
    c["fc_f32_nobias"] = Case(m, [xf], (6, 5), "float32", xf.reshape(6, 8).astype(np.float64) @ wf.T)

    xp = rand_f(1, 5, 5, 2)
    pool_opts = {"padding": "VALID", "stride_w": 2, "stride_h": 2, "filter_width": 2, "filter_height": 3}
    blocks = np.stack([xp[:, i * 2:i * 2 + 3, j * 2:j * 2 + 2, :] for i in range(2) for j in range(2)], 1)
    for op, red in [("AVERAGE_POOL_2D", np.mean), ("MAX_POOL_2D", np.max)]:
        m = single_op_model(op, [TensorSpec(xp.shape, "float32")], [TensorSpec((1, 2, 2, 2), "float32")], pool_opts)
        c[op.lower() + "_f32"] = Case(m, [xp], (1, 2, 2, 2), "float32",
                                      red(blocks.astype(np.float64), axis=(2, 3)).reshape(1, 2, 2, 2))

    m = single_op_model("RESHAPE", [TensorSpec((2, 3, 4), "float32"), TensorSpec((2,), "int32", data=[6, 4])],
                        [TensorSpec((6, 4), "float32")], {"new_shape": [6, 4]})
    c["reshape_f32"] = Case(m, [a], (6, 4), "float32", a.reshape(6, 4))
    m = single_op_model("SQUEEZE", [TensorSpec((1, 3, 1, 4), "float32")], [TensorSpec((1, 3, 4), "float32")],
                        {"squeeze_dims": [2]})
    xs = rand_f(1, 3, 1, 4)
    c["squeeze_f32"] = Case(m, [xs], (1, 3, 4), "float32", xs.reshape(1, 3, 4))
    pads = np.array([[0, 0], [1, 2], [0, 1]], np.int32)
    m = single_op_model("PAD", [TensorSpec((2, 3, 4), "float32"), TensorSpec((3, 2), "int32", data=pads)],
                        [TensorSpec((2, 6, 5), "float32")])
    c["pad_f32"] = Case(m, [a], (2, 6, 5), "float32", np.pad(a, pads))
    m = single_op_model("CONCATENATION", [TensorSpec((2, 3, 4), "float32")] * 2, [TensorSpec((2, 6, 4), "float32")],
                        {"axis": -2})  # TFLite rejects a fused activation on CONCATENATION
    c["concat_f32"] = Case(m, [a, b], (2, 6, 4), "float32", np.concatenate([a, b], 1))
    m = single_op_model("MEAN", [TensorSpec((2, 3, 4), "float32"), TensorSpec((2,), "int32", data=[0, 2])],
                        [TensorSpec((1, 3, 1), "float32")], {"keep_dims": True})
    c["mean_f32"] = Case(m, [a], (1, 3, 1), "float32", a.astype(np.float64).mean(axis=(0, 2), keepdims=True))
    xs5 = rand_f(4, 6, 5)
    begin, end, strides = np.array([1, 0, 4], np.int32), np.array([4, 6, 0], np.int32), np.array([2, 1, -2], np.int32)
    m = single_op_model(
        "STRIDED_SLICE",
        [TensorSpec(xs5.shape, "float32"), TensorSpec((3,), "int32", data=begin), TensorSpec((3,), "int32", data=end),
         TensorSpec((3,), "int32", data=strides)],
        [TensorSpec((2, 5), "float32")], {"begin_mask": 2, "end_mask": 2, "shrink_axis_mask": 0, "offset": False})
    c["strided_slice_f32"] = Case(m, [xs5], (2, 6, 2), "float32", xs5[1:4:2, :, 4:0:-2])
    m = single_op_model("STRIDED_SLICE",
                        [TensorSpec(xs5.shape, "float32"), TensorSpec((3,), "int32", data=[2, 1, 0]),
                         TensorSpec((3,), "int32", data=[3, 5, 5]), TensorSpec((3,), "int32", data=[1, 2, 1])],
                        [TensorSpec((2, 5), "float32")], {"shrink_axis_mask": 1})
    c["strided_slice_shrink_f32"] = Case(m, [xs5], (2, 5), "float32", xs5[2, 1:5:2, :])

    xt, wt = rand_f(1, 3, 3, 4), rand_f(2, 3, 3, 4)
    m = single_op_model("TRANSPOSE_CONV",
                        [TensorSpec((4,), "int32", data=[1, 7, 7, 2]), TensorSpec(wt.shape, "float32", data=wt),
                         TensorSpec(xt.shape, "float32")], [TensorSpec((1, 7, 7, 2), "float32")],
                        {"padding": "VALID", "stride_w": 2, "stride_h": 2})
    c["transpose_conv_f32"] = Case(m, [xt], (1, 7, 7, 2), "float32", np_transpose_conv(xt, wt, (1, 7, 7, 2), 2))

    # ---- quantized cases
    # CONV_2D int8, per-channel weights
    xs_, wsc = 0.02, np.array([0.004, 0.01, 0.007, 0.02], np.float32)
    xq = rand_q((1, 6, 6, 3), "int8")
    wq = rand_q((4, 3, 3, 3), "int8", -127, 127)
    bq = RNG.integers(-2000, 2000, size=4).astype(np.int32)
    ys, yzp, xzp = 0.05, -3, 5
    m = single_op_model(
        "CONV_2D",
        [TensorSpec(xq.shape, "int8", scale=xs_, zero_point=xzp),
         TensorSpec(wq.shape, "int8", data=wq, scale=wsc, zero_point=0, quantized_dimension=0),
         TensorSpec((4,), "int32", data=bq, scale=xs_ * wsc, zero_point=0)],
        [TensorSpec((1, 6, 6, 4), "int8", scale=ys, zero_point=yzp)],
        {"padding": "SAME", "fused_activation_function": "RELU6"})
    ref = np_conv2d((xq.astype(np.float64) - xzp) * xs_, wq * wsc[:, None, None, None], bq * xs_ * wsc, 1, "SAME")
    c["conv_s8_per_channel"] = Case(m, [xq], (1, 6, 6, 4), "int8", quantize(np.clip(ref, 0, 6), ys, yzp, "int8"),
                                    lsb=1, extra={"version": 3})

    # DEPTHWISE_CONV_2D int8, depth multiplier 2 (derived from shapes)
    wdq = rand_q((1, 3, 3, 6), "int8", -127, 127)
    wdsc = RNG.uniform(0.002, 0.02, size=6).astype(np.float32)
    bdq = RNG.integers(-500, 500, size=6).astype(np.int32)
    m = single_op_model(
        "DEPTHWISE_CONV_2D",
        [TensorSpec(xq.shape, "int8", scale=xs_, zero_point=xzp),
         TensorSpec(wdq.shape, "int8", data=wdq, scale=wdsc, zero_point=0, quantized_dimension=3),
         TensorSpec((6,), "int32", data=bdq, scale=xs_ * wdsc, zero_point=0)],
        [TensorSpec((1, 4, 4, 6), "int8", scale=ys, zero_point=yzp)], {"padding": "VALID"})
    ref = np_depthwise((xq.astype(np.float64) - xzp) * xs_, wdq * wdsc, bdq * xs_ * wdsc, 2)
    c["dwconv_s8"] = Case(m, [xq], (1, 4, 4, 6), "int8", quantize(ref, ys, yzp, "int8"), lsb=1,
                          extra={"version": 3, "depth_multiplier": 2})

    # FULLY_CONNECTED int8
    xfq, wfq = rand_q((3, 16), "int8"), rand_q((5, 16), "int8", -127, 127)
    bfq = RNG.integers(-3000, 3000, size=5).astype(np.int32)
    m = single_op_model(
        "FULLY_CONNECTED",
        [TensorSpec(xfq.shape, "int8", scale=0.03, zero_point=-7), TensorSpec(wfq.shape, "int8", data=wfq, scale=0.01),
         TensorSpec((5,), "int32", data=bfq, scale=0.0003)],
        [TensorSpec((3, 5), "int8", scale=0.2, zero_point=10)], {"weights_format": "DEFAULT"})
    ref = ((xfq.astype(np.float64) + 7) * 0.03) @ (wfq.T * 0.01) + bfq * 0.0003
    c["fc_s8"] = Case(m, [xfq], (3, 5), "int8", quantize(ref, 0.2, 10, "int8"), lsb=1, extra={"version": 4})

    # ADD int16 (general scaling, pot_scale_int16 = False)
    a16, b16 = rand_q((2, 10), "int16"), rand_q((2, 10), "int16")
    m = single_op_model("ADD", [TensorSpec((2, 10), "int16", scale=0.001), TensorSpec((2, 10), "int16", scale=0.0007)],
                        [TensorSpec((2, 10), "int16", scale=0.0015)])
    ref = a16 * 0.001 + b16 * 0.0007
    c["add_s16"] = Case(m, [a16, b16], (2, 10), "int16", quantize(ref, 0.0015, 0, "int16"), lsb=1,
                        extra={"version": 3})

    # SOFTMAX int8 -> int8 (the converter's fixed output quantization 1/256, -128)
    xsm = rand_q((2, 10), "int8")
    m = single_op_model("SOFTMAX", [TensorSpec((2, 10), "int8", scale=0.05, zero_point=3)],
                        [TensorSpec((2, 10), "int8", scale=1 / 256, zero_point=-128)], {"beta": 1.0})
    e = np.exp((xsm.astype(np.float64) - 3) * 0.05)
    c["softmax_s8"] = Case(m, [xsm], (2, 10), "int8", quantize(e / e.sum(-1, keepdims=True), 1 / 256, -128, "int8"),
                           lsb=1, extra={"version": 2})

    # STRIDED_SLICE int16 with begin/end masks
    xss = rand_q((3, 8, 4), "int16")
    m = single_op_model(
        "STRIDED_SLICE",
        [TensorSpec(xss.shape, "int16", scale=0.01), TensorSpec((3,), "int32", data=[1, 1, 0]),
         TensorSpec((3,), "int32", data=[0, 7, 3]), TensorSpec((3,), "int32", data=[1, 3, 1])],
        [TensorSpec((2, 2, 3), "int16", scale=0.01)], {"begin_mask": 0, "end_mask": 1})
    c["strided_slice_s16"] = Case(m, [xss], (2, 2, 3), "int16", xss[1:, 1:7:3, 0:3])

    # TRANSPOSE_CONV 16x8 (int16 activations, int8 per-channel weights, int64 bias)
    xtq = rand_q((1, 3, 3, 4), "int16")
    wtq = rand_q((2, 3, 3, 4), "int8", -127, 127)
    wtsc = np.array([0.01, 0.02], np.float32)
    btq = RNG.integers(-10000, 10000, size=2).astype(np.int64)
    m = single_op_model(
        "TRANSPOSE_CONV",
        [TensorSpec((4,), "int32", data=[1, 7, 7, 2]),
         TensorSpec(wtq.shape, "int8", data=wtq, scale=wtsc, zero_point=0),
         TensorSpec(xtq.shape, "int16", scale=0.0005), TensorSpec((2,), "int64", data=btq, scale=0.0005 * wtsc)],
        [TensorSpec((1, 7, 7, 2), "int16", scale=0.004)], {"padding": "VALID", "stride_w": 2, "stride_h": 2})
    ref = np_transpose_conv(xtq * 0.0005, wtq * wtsc[:, None, None, None], (1, 7, 7, 2), 2) + btq * 0.0005 * wtsc
    c["transpose_conv_16x8"] = Case(m, [xtq], (1, 7, 7, 2), "int16", quantize(ref, 0.004, 0, "int16"), lsb=1,
                                    extra={"version": 3})

    # SVDF int8 (rank 2, 3 units -> 6 filters, memory 4); state is an int16 variable tensor
    xsv = rand_q((2, 8), "int8")
    m = single_op_model(
        "SVDF",
        [TensorSpec((2, 8), "int8", scale=0.05, zero_point=-2),
         TensorSpec((6, 8), "int8", data=rand_q((6, 8), "int8", -127, 127), scale=0.01),
         TensorSpec((6, 4), "int16", data=rand_q((6, 4), "int16", -20000, 20000), scale=2e-5),
         TensorSpec((3,), "int32", data=RNG.integers(-100, 100, size=3).astype(np.int32), scale=1e-5),
         TensorSpec((2, 24), "int16", scale=0.004, zero_point=0, is_variable=True)],
        [TensorSpec((2, 3), "int8", scale=0.02, zero_point=1)], {"rank": 2, "fused_activation_function": "RELU"})
    c["svdf_s8"] = Case(m, [xsv], (2, 3), "int8", extra={"version": 3})

    # QUANTIZE float -> int8 and DEQUANTIZE int8 -> float
    xq_f = rand_f(3, 5) * 3
    m = single_op_model("QUANTIZE", [TensorSpec((3, 5), "float32")], [TensorSpec((3, 5), "int8", scale=0.03,
                                                                                 zero_point=4)])
    c["quantize_f32_s8"] = Case(m, [xq_f], (3, 5), "int8", quantize(xq_f.astype(np.float64), 0.03, 4, "int8"), lsb=1)
    xdq = rand_q((3, 5), "int8")
    m = single_op_model("DEQUANTIZE", [TensorSpec((3, 5), "int8", scale=0.03, zero_point=4)],
                        [TensorSpec((3, 5), "float32")])
    c["dequantize_s8_f32"] = Case(m, [xdq], (3, 5), "float32", (xdq.astype(np.float64) - 4) * 0.03)
    return c


CASES = build_cases()


@pytest.fixture(scope="module")
def oracle_results() -> dict[str, list[np.ndarray] | OracleError]:
    names = list(CASES)
    res = reference_outputs_many([(CASES[n].model, CASES[n].inputs) for n in names])
    return dict(zip(names, res))


def _opcode(model: bytes, k: int = 0) -> tuple[int, int, int]:
    oc = Model.GetRootAsModel(model, 0).OperatorCodes(k)
    return oc.DeprecatedBuiltinCode(), oc.BuiltinCode(), oc.Version()


@pytest.mark.parametrize("name", list(CASES))
def test_oracle_runs_written_model(name: str, oracle_results: dict) -> None:
    case = CASES[name]
    out = oracle_results[name]
    assert not isinstance(out, OracleError), f"{name}: {out}"
    assert len(out) == 1
    y = out[0]
    assert y.dtype == np.dtype(case.out_dtype)
    exp_shape = case.expect.shape if case.expect is not None else case.out_shape
    assert y.shape == exp_shape
    if case.expect is not None:
        if case.out_dtype == "float32":
            np.testing.assert_allclose(y, case.expect, rtol=1e-5, atol=1e-6)
        else:
            diff = np.abs(y.astype(np.int64) - case.expect.astype(np.int64))
            assert diff.max() <= case.lsb, f"{name}: max diff {diff.max()} LSB"
    if "version" in case.extra:
        assert _opcode(case.model)[2] == case.extra["version"]


def test_values_relu_and_add_exact(oracle_results: dict) -> None:
    x = CASES["relu_f32"].inputs[0]
    np.testing.assert_array_equal(oracle_results["relu_f32"][0], np.maximum(x, 0))
    a, b = CASES["add_f32"].inputs
    np.testing.assert_array_equal(oracle_results["add_f32"][0], a + b)


def test_large_builtin_code_uses_placeholder() -> None:
    dep, code, _ = _opcode(CASES["gelu_f32"].model)
    assert (dep, code) == (127, 150)
    dep, code, _ = _opcode(CASES["conv_f32"].model)
    assert (dep, code) == (3, 3)


def test_model_structure() -> None:
    mb = ModelBuilder("desc")
    x = mb.tensor([1, 4], "int8", scale=0.5, zero_point=-1, name="x")
    w = mb.tensor([2, 4], "int8", data=np.ones((2, 4), np.int8), scale=[0.1, 0.2], zero_point=0)
    y = mb.tensor([1, 2], "int8", scale=1.0, zero_point=0, shape_signature=[-1, 2])
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    m = Model.GetRootAsModel(mb.build([x], [y]), 0)
    assert m.Version() == 3 and m.Description() == b"desc"
    assert m.BuffersLength() == 4 and m.Buffers(0).DataLength() == 0
    sg = m.Subgraphs(0)
    tw = sg.Tensors(w)
    assert m.Buffers(tw.Buffer()).DataLength() == 8
    assert m.Buffers(sg.Tensors(x).Buffer()).DataLength() == 0 and sg.Tensors(x).Buffer() != 0
    assert list(tw.Quantization().ScaleAsNumpy()) == pytest.approx([0.1, 0.2])
    assert list(sg.Tensors(y).ShapeSignatureAsNumpy()) == [-1, 2]
    op = sg.Operators(0)
    assert list(op.InputsAsNumpy()) == [x, w, -1]
    assert op.BuiltinOptionsType() == 8  # FullyConnectedOptions
    assert options_table_name("AVERAGE_POOL_2D") == "Pool2DOptions"
    assert options_table_name("RELU") is None


def test_writer_rejects_bad_options() -> None:
    mb = ModelBuilder()
    x = mb.tensor([1, 4], "float32")
    with pytest.raises(ValueError, match="no field"):
        mb.operator("ADD", [x, x], [x], {"stride_w": 1})
    with pytest.raises(ValueError, match="unknown value"):
        mb.operator("ADD", [x, x], [x], {"fused_activation_function": "SWISH"})
    with pytest.raises(ValueError, match="takes no options"):
        mb.operator("RELU", [x], [x], {"alpha": 1.0})
    with pytest.raises(ValueError):
        mb.tensor([2], "int8", data=np.array([1, 300]))


# -------------------------------------------------------------- oracle tests
def test_random_inputs_deterministic_and_full_range() -> None:
    m = single_op_model("ADD", [TensorSpec((64, 64), "int16", scale=1.0), TensorSpec((64, 64), "int16", scale=1.0)],
                        [TensorSpec((64, 64), "int16", scale=2.0)])
    a = random_inputs(m, 7)
    b = random_inputs(m, 7)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))
    assert not np.array_equal(a[0], random_inputs(m, 8)[0])
    assert a[0].dtype == np.int16 and a[0].min() < -32000 and a[0].max() > 32000
    f = random_inputs(CASES["add_f32"].model, 0)[0]
    assert f.dtype == np.float32 and -1 <= f.min() and f.max() < 1


def test_random_inputs_fills_transpose_conv_output_shape() -> None:
    m = single_op_model("TRANSPOSE_CONV",
                        [TensorSpec((4,), "int32"), TensorSpec((2, 3, 3, 4), "float32", data=rand_f(2, 3, 3, 4)),
                         TensorSpec((1, 3, 3, 4), "float32")], [TensorSpec((1, 7, 7, 2), "float32")],
                        {"padding": "VALID", "stride_w": 2, "stride_h": 2})
    ins = random_inputs(m, 0)
    assert ins[0].tolist() == [1, 7, 7, 2]
    assert reference_outputs(m, ins)[0].shape == (1, 7, 7, 2)


def test_oracle_errors_are_per_case() -> None:
    good = CASES["relu_f32"]
    res = reference_outputs_many([(good.model, good.inputs), (b"not a model", []),
                                  (good.model, [good.inputs[0].astype(np.float64)]), (good.model, good.inputs)])
    assert isinstance(res[1], OracleError) and isinstance(res[2], OracleError)
    np.testing.assert_array_equal(res[0][0], res[3][0])
    with pytest.raises(OracleError):
        reference_outputs(b"not a model", [])


@needs_shared
def test_crashing_model_becomes_oracle_error() -> None:
    crash = SHARED / "examples" / "keyword_scrambled_8bit.tflite"
    good = CASES["relu_f32"]
    res = reference_outputs_many([(good.model, good.inputs), (crash, random_inputs(crash, 0)),
                                  (good.model, good.inputs)])
    assert isinstance(res[1], OracleError)
    assert not isinstance(res[0], OracleError) and not isinstance(res[2], OracleError)


@needs_shared
def test_shared_op_models_run() -> None:
    files = sorted((SHARED / "ops").glob("*/*.tflite"))
    assert files
    cases = [(f, random_inputs(f, 0)) for f in files]
    res = reference_outputs_many(cases)
    for f, (_, ins), out in zip(files, cases, res):
        assert not isinstance(out, OracleError), f"{f.name}: {out}"
        io = model_io(f)
        assert [o.shape for o in out] == [t.shape for t in io.outputs], f.name
        assert [o.dtype for o in out] == [t.dtype for t in io.outputs], f.name
        if f.parent.name == "transpose_conv":  # output_shape input = the real output shape
            assert ins[0].tolist() == list(io.outputs[0].shape)


@needs_shared
def test_shared_examples_run() -> None:
    names = ["hello_world_int8", "hello_world_float", "micro_speech_quantized", "keyword_scrambled",
             "simple_add_model"]
    paths = [SHARED / "examples" / f"{n}.tflite" for n in names]
    res = reference_outputs_many([(p, random_inputs(p, 1)) for p in paths])
    for p, out in zip(paths, res):
        assert not isinstance(out, OracleError), f"{p.name}: {out}"


@needs_shared
@needs_tflm
def test_tflm_oracle() -> None:
    p = SHARED / "examples" / "keyword_scrambled_8bit.tflite"
    ins = random_inputs(p, 0)
    out = micro_reference_outputs(p, ins)
    assert [o.shape for o in out] == [t.shape for t in model_io(p).outputs]
    assert all(np.array_equal(u, v) for u, v in zip(out, micro_reference_outputs(p, ins)))
    q = SHARED / "examples" / "keyword_scrambled.tflite"
    ins = random_inputs(q, 3)
    np.testing.assert_array_equal(micro_reference_outputs(q, ins)[0], reference_outputs(q, ins)[0])


@needs_tflm
def test_tflm_runs_written_model() -> None:
    case = CASES["conv_s8_per_channel"]
    np.testing.assert_array_equal(micro_reference_outputs(case.model, case.inputs)[0],
                                  reference_outputs(case.model, case.inputs)[0])
