"""A streaming wake-word model built like microWakeWord's (issue 23): int8 streaming convolutions
whose time context lives in resource variables, and a final QUANTIZE int8 -> uint8.

microWakeWord (ESPHome / Home Assistant) converts a Keras model whose "stream" layers keep the last
frames of their input in a ``tf.Variable``. In the .tflite each becomes, per call:

    CALL_ONCE (subgraph 1: VAR_HANDLE + ASSIGN_VARIABLE of the zero-point frames, once)
    VAR_HANDLE -> READ_VARIABLE -> CONCATENATION(old frames, new frames) along time
                                -> STRIDED_SLICE (the newest k - 1 frames) -> ASSIGN_VARIABLE
                                -> the convolution over the concatenation (VALID in time)

and the classifier ends with FULLY_CONNECTED -> LOGISTIC -> QUANTIZE int8 -> uint8 (the
probability as a byte). This writer-made copy has the same operators and tensor types: an input of
3 feature frames of 40 int8 values (microWakeWord's stride of 3 frames), a streaming CONV_2D
(kernel 3 in time, 24 channels, per-channel weights, ReLU), a streaming DEPTHWISE_CONV_2D (kernel 5
in time), a 1x1 CONV_2D, a streaming window of 4 steps flattened into FULLY_CONNECTED, LOGISTIC and
QUANTIZE to uint8. Weights and scales come from a seed.
"""

from __future__ import annotations

import numpy as np
from tflite_writer import ModelBuilder

FRAMES, FEATURES = 3, 40          # one call: 3 new feature frames of 40 values (microWakeWord)


class _Builder:
    """The main subgraph and the CALL_ONCE subgraph that zero-fills every ring buffer."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.mb = ModelBuilder("microWakeWord-like streaming model")
        self.init = ModelBuilder()
        self.init_ops: list[tuple[int, int]] = []

    def act(self, shape, q: tuple[float, int], name: str) -> int:
        return self.mb.tensor(shape, "int8", scale=q[0], zero_point=q[1], name=name)

    def const_i32(self, values, name: str) -> int:
        v = np.asarray(values, dtype=np.int32)
        return self.mb.tensor(v.shape, "int32", data=v, name=name)

    def stream(self, x: int, shape: tuple[int, ...], q: tuple[float, int], keep: int, name: str) -> tuple[int, tuple]:
        """The ring buffer of ``keep`` frames before ``x`` (shape [1, T, 1, C]): returns the
        concatenation [1, keep + T, 1, C] and writes the newest ``keep`` frames back."""
        state_shape = (1, keep, 1, shape[3])
        h = self.mb.tensor((), "resource", name=f"{name}_handle")
        old = self.act(state_shape, q, f"{name}_state")
        cat_shape = (1, keep + shape[1], 1, shape[3])
        cat = self.act(cat_shape, q, f"{name}_concat")
        new = self.act(state_shape, q, f"{name}_state_new")
        self.mb.operator("VAR_HANDLE", [], [h], {"shared_name": name})
        self.mb.operator("READ_VARIABLE", [h], [old])
        self.mb.operator("CONCATENATION", [old, x], [cat], {"axis": 1})
        begin = self.const_i32([0, cat_shape[1] - keep, 0, 0], f"{name}_begin")
        end = self.const_i32(list(cat_shape), f"{name}_end")
        strides = self.const_i32([1, 1, 1, 1], f"{name}_strides")
        self.mb.operator("STRIDED_SLICE", [cat, begin, end, strides], [new])
        self.mb.operator("ASSIGN_VARIABLE", [h, new], [])
        # CALL_ONCE's subgraph: the buffer starts as zero-point frames (real value 0)
        ih = self.init.tensor((), "resource", name=f"{name}_handle_init")
        zeros = np.full(state_shape, q[1], dtype=np.int8)
        ic = self.init.tensor(state_shape, "int8", data=zeros, scale=q[0], zero_point=q[1], name=f"{name}_zero")
        self.init.operator("VAR_HANDLE", [], [ih], {"shared_name": name})
        self.init.operator("ASSIGN_VARIABLE", [ih, ic], [])
        return cat, cat_shape

    def weights(self, shape: tuple[int, ...], channels: int, axis: int, in_scale: float,
                name: str) -> tuple[int, int, list]:
        """Per-channel int8 weights, the int32 bias at in_scale * w_scale[c]; returns (w, b, w_scales)."""
        w = self.rng.integers(-127, 128, size=shape).astype(np.int8)
        w_scales = [float(np.float32(s)) for s in self.rng.uniform(0.002, 0.02, channels)]
        wt = self.mb.tensor(shape, "int8", data=w, scale=w_scales, zero_point=[0] * channels,
                            quantized_dimension=axis, name=f"{name}_weights")
        b_scales = [float(np.float32(in_scale * s)) for s in w_scales]
        bias = self.rng.integers(-3000, 3000, size=channels).astype(np.int32)
        bt = self.mb.tensor((channels,), "int32", data=bias, scale=b_scales, zero_point=[0] * channels,
                            name=f"{name}_bias")
        return wt, bt, w_scales


def _out_scale(in_scale: float, w_scales: list, taps: int) -> float:
    """An output scale that spreads a random layer's accumulators over about +-60 levels."""
    spread = np.sqrt(taps) * 73.0 * 40.0 * in_scale * float(np.mean(w_scales))
    return float(np.float32(spread / 60.0))


def wakeword_model(seed: int) -> bytes:
    """The model (int8 [1, 3, 40] features in, uint8 [1, 1] probability out)."""
    rng = np.random.default_rng(seed)
    b = _Builder(rng)
    mb = b.mb
    # CALL_ONCE runs first: its subgraph (index 1) fills every ring buffer once
    mb.operator("CALL_ONCE", [], [], {"init_subgraph_index": 1})
    q_in = (float(np.float32(rng.uniform(0.05, 0.15))), int(rng.integers(-128, -100)))
    x = mb.tensor((1, FRAMES, FEATURES), "int8", scale=q_in[0], zero_point=q_in[1], name="features")
    x4 = b.act((1, FRAMES, 1, FEATURES), q_in, "features_4d")
    mb.operator("RESHAPE", [x, b.const_i32([1, FRAMES, 1, FEATURES], "features_shape")], [x4],
                {"new_shape": [1, FRAMES, 1, FEATURES]})

    # streaming CONV_2D: kernel 3 in time over 2 remembered + 3 new frames -> 3 frames of 24 channels
    c1 = 24
    cat1, s1 = b.stream(x4, (1, FRAMES, 1, FEATURES), q_in, 2, "stream_conv")
    w1, b1, ws1 = b.weights((c1, 3, 1, FEATURES), c1, 0, q_in[0], "conv")
    q1 = (_out_scale(q_in[0], ws1, 3 * FEATURES), -128)
    y1 = b.act((1, FRAMES, 1, c1), q1, "conv_out")
    mb.operator("CONV_2D", [cat1, w1, b1], [y1], {"padding": "VALID", "fused_activation_function": "RELU"})

    # streaming DEPTHWISE_CONV_2D: kernel 5 in time
    cat2, s2 = b.stream(y1, (1, FRAMES, 1, c1), q1, 4, "stream_depthwise")
    w2, b2, ws2 = b.weights((1, 5, 1, c1), c1, 3, q1[0], "depthwise")
    q2 = (_out_scale(q1[0], ws2, 5) * 0.6, -128)
    y2 = b.act((1, FRAMES, 1, c1), q2, "depthwise_out")
    mb.operator("DEPTHWISE_CONV_2D", [cat2, w2, b2], [y2], {"padding": "VALID", "fused_activation_function": "RELU"})

    # pointwise CONV_2D 24 -> 16
    c3 = 16
    w3, b3, ws3 = b.weights((c3, 1, 1, c1), c3, 0, q2[0], "pointwise")
    q3 = (_out_scale(q2[0], ws3, c1) * 0.6, -128)
    y3 = b.act((1, FRAMES, 1, c3), q3, "pointwise_out")
    mb.operator("CONV_2D", [y2, w3, b3], [y3], {"padding": "VALID", "fused_activation_function": "RELU"})

    # the classifier sees the last 4 calls (12 frames): one more ring buffer, flattened
    cat3, s3 = b.stream(y3, (1, FRAMES, 1, c3), q3, 9, "stream_window")
    flat_n = s3[1] * c3
    flat = b.act((1, flat_n), q3, "flatten")
    mb.operator("RESHAPE", [cat3, b.const_i32([1, flat_n], "flatten_shape")], [flat], {"new_shape": [1, flat_n]})
    wf = rng.integers(-127, 128, size=(1, flat_n)).astype(np.int8)
    # weights scaled so that the logit's real value spreads over about +-3 (LOGISTIC not saturated)
    wfs = float(np.float32(3.0 / (np.sqrt(flat_n) * 73.0 * 40.0 * q3[0]) * rng.uniform(0.7, 1.4)))
    wft = mb.tensor((1, flat_n), "int8", data=wf, scale=wfs, zero_point=0, name="dense_weights")
    bft = mb.tensor((1,), "int32", data=np.array([int(rng.integers(-50, 50))], np.int32),
                    scale=float(np.float32(q3[0] * wfs)), zero_point=0, name="dense_bias")
    q4 = (_out_scale(q3[0], [wfs], flat_n), int(rng.integers(-10, 10)))
    logit = b.act((1, 1), q4, "logit")
    mb.operator("FULLY_CONNECTED", [flat, wft, bft], [logit])
    prob = b.act((1, 1), (1.0 / 256.0, -128), "probability_int8")
    mb.operator("LOGISTIC", [logit], [prob])
    out = mb.tensor((1, 1), "uint8", scale=1.0 / 256.0, zero_point=0, name="probability")
    mb.operator("QUANTIZE", [prob], [out])

    return mb.build([x], [out], [(b.init, [], [])])


def wakeword_feeds(seed: int, steps: int) -> list[np.ndarray]:
    """Feature frames as a front end gives them: a quiet background with louder stretches."""
    rng = np.random.default_rng(seed)
    base = rng.integers(-128, -90, size=(steps, 1, FRAMES, FEATURES))
    loud = rng.integers(-60, 127, size=(steps, 1, FRAMES, FEATURES))
    mask = (np.arange(steps) % 7 >= 3)[:, None, None, None]
    return [np.where(mask, loud, base).astype(np.int8)]
