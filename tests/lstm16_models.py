"""Generated UNIDIRECTIONAL_SEQUENCE_LSTM models for TFLite Micro's integer kernel: 16x8 (int16
activations, int64 biases) and int8 (int8 activations, int32 biases, the four gate intermediates float32
without quantization as TensorFlow's converter writes them); int8 weights and an int16 cell state in
both. The standard LSTM TFLM's kernel runs (no CIFG, peephole, projection or layer norm; 24 inputs), over
shapes, time-major or not, quantization parameters (zero points, cell state scales 2^-16..2^-8) and cell
clipping. Shared by tests/test_ops_lstm16.py and fuzz/seeds_seq.py."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tflite_writer import ModelBuilder

F32 = np.float32
GEOMETRY16 = [  # (batch, time, n_input, n_cell)
    (1, 4, 3, 4), (2, 3, 5, 8), (1, 6, 8, 16), (3, 2, 2, 3), (1, 1, 10, 5), (2, 5, 4, 6), (1, 8, 16, 12),
    (4, 2, 6, 2), (1, 3, 1, 1), (2, 2, 20, 24),
]
CELL_LOG2 = (-11, -12, -13, -10, -14, -15, -9, -16, -12, -8)


def variants16(k: int) -> dict:
    return {"time_major": k % 2 == 1, "clip": k % 5 in (1, 4), "zp": k % 4 == 3,
            "small": k % 7 == 5}


def lstm16_model(k: int, seed: int, variants: dict | None = None, geometry: tuple | None = None,
                 cell_scale: float | None = None, bias_dtype: str | None = None,
                 intermediates: bool = True, mutate: Callable[[ModelBuilder, list[int], dict], None] | None = None,
                 act: str = "int16", quantized_gates: bool = False) -> tuple[bytes, np.ndarray, str]:
    """One 16x8 (``act`` int16) or int8 (``act`` int8) LSTM model and a random input ``feed`` (the model's
    input shape); ``label`` names it. ``mutate(mb, inputs, options)`` may change the operator's 24 inputs
    and options (error tests). int8: the gate intermediates are float32 without quantization (the
    converter's) unless ``quantized_gates`` (int16, 2^-12: the writer-made form TFLite's kernel runs)."""
    s8 = act == "int8"
    bias_dtype = bias_dtype or ("int32" if s8 else "int64")
    lo, hi = (-128, 127) if s8 else (-32768, 32767)
    rng = np.random.default_rng(seed)
    v = variants or variants16(k)
    batch, time, n_in, n_cell = geometry or GEOMETRY16[k % len(GEOMETRY16)]
    x_shape = (time, batch, n_in) if v["time_major"] else (batch, time, n_in)
    y_shape = (time, batch, n_cell) if v["time_major"] else (batch, time, n_cell)
    s_in = float(F32(rng.uniform(1e-4, 6e-4) * (50 if s8 else 1)))
    zp_in = int(rng.integers(-3000, 3000) // (30 if s8 else 1)) if v["zp"] else 0
    s_h = float(F32(rng.uniform(2.2e-5, 6e-5) * (128 if s8 else 1)))
    zp_h = int(rng.integers(-2000, 2000) // (20 if s8 else 1)) if v["zp"] else 0
    s_c = 2.0 ** CELL_LOG2[k % len(CELL_LOG2)] if cell_scale is None else cell_scale
    if cell_scale is None and k % 11 == 10:   # not a power of two: TFLM rounds its log2 for the tanh
        s_c *= 1.3
    mb = ModelBuilder()
    x = mb.tensor(x_shape, act, scale=s_in, zero_point=zp_in)
    amp = 0.15 if v["small"] else 1.0

    def weights(rows: int, cols: int, q_std: float, s_x: float) -> tuple[int, float]:
        s_w = float(F32(rng.uniform(0.6, 2.5) * amp / (np.sqrt(cols) * 70.0 * q_std * s_x)))
        return mb.tensor((rows, cols), "int8", data=rng.integers(-127, 128, (rows, cols)), scale=s_w,
                         zero_point=0), s_w

    gates, rec, bias = [], [], []
    for _ in range(4):
        t, s_w = weights(n_cell, n_in, 70.0 if s8 else 18000.0, s_in)
        gates.append(t)
        rec.append(weights(n_cell, n_cell, 0.4 / s_h, s_h)[0])
        s_b = float(F32(s_w * s_in))
        lim = int(1.0 / s_b) + 1
        bias.append(mb.tensor((n_cell,), bias_dtype, data=rng.integers(-lim, lim, n_cell), scale=s_b,
                              zero_point=0))
    h = mb.tensor((batch, n_cell), act, scale=s_h, zero_point=zp_h, is_variable=True)
    c = mb.tensor((batch, n_cell), "int16", scale=s_c, zero_point=0, is_variable=True)
    y = mb.tensor(y_shape, act, scale=s_h, zero_point=zp_h)
    inter = None
    if intermediates:   # what TensorFlow's converter writes (TFLM does not read them)
        if s8 and not quantized_gates:
            inter = [mb.tensor((0,), "float32", name=f"input_to_gate_{g}_intermediate") for g in range(4)]
        else:
            inter = [mb.tensor((0,), "int16", scale=2.0 ** -12, zero_point=0, name=f"inter_{g}") for g in range(4)]
        inter.append(mb.tensor((0,), act, scale=s_h, zero_point=zp_h, name="hidden_intermediate"))
    ins = [x, *gates, *rec, -1, -1, -1, *bias, -1, -1, h, c, -1, -1, -1, -1]
    opts = {"fused_activation_function": "TANH", "time_major": v["time_major"],
            "cell_clip": float(F32(rng.uniform(0.2, 2.0))) if v["clip"] else 0.0}
    if mutate is not None:
        mutate(mb, ins, opts)
    mb.operator("UNIDIRECTIONAL_SEQUENCE_LSTM", ins, [y], opts, intermediates=inter)
    if k % 3 == 2:   # edge values: the whole range
        feed = rng.choice(np.array([lo, hi, 0, -1, 1], act), x_shape)
        feed = np.where(rng.random(x_shape) < 0.5, feed, rng.integers(lo, hi + 1, x_shape)).astype(act)
    else:
        feed = rng.integers(lo, hi + 1, x_shape).astype(act)
    label = (f"LSTM {'int8' if s8 else '16x8'} b{batch} t{time} in{n_in} cell{n_cell} cell_scale=2^{np.log2(s_c):.3g} "
             f"{ {key: val for key, val in v.items() if val} } seed={seed}")
    return mb.build([x], [y]), feed, label
