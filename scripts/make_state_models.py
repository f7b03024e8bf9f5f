"""Dev-only: build the stateful / control-flow test models in tests/data/state/ with TensorFlow's
converter (issue 15). Not used by the product or CI (they read the committed .tflite files).

    /work/tfvenv/bin/python scripts/make_state_models.py [OUT_DIR]

- streaming_kws_float.tflite, streaming_kws_int8.tflite: a streaming keyword model as streaming
  wake-word models are built (kws_streaming's "stream" layers): `tf.Variable` ring buffers hold the
  last frames of the features and of a hidden layer; each call gets one feature slice, shifts the
  buffers (READ_VARIABLE, CONCATENATION/STRIDED_SLICE, ASSIGN_VARIABLE) and scores the window. The
  variables are initialised in a CALL_ONCE subgraph.
- cond_float.tflite: `tf.cond` on a run-time condition, a bool input (IF with two branch subgraphs).
- while_float.tflite: `tf.while_loop` whose trip count is a run-time input (WHILE with cond and
  body subgraphs).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

FEATURES = 10      # features per slice (e.g. log-mel bins)
WINDOW = 5         # frames the first ring buffer keeps
HIDDEN = 8
WINDOW2 = 3        # frames of the hidden layer the second ring buffer keeps
CLASSES = 4


class StreamingKws(tf.Module):
    def __init__(self) -> None:
        super().__init__()
        rng = np.random.default_rng(15)
        self.frames = tf.Variable(tf.zeros([1, WINDOW, FEATURES]), trainable=False, name="frames")
        self.hidden = tf.Variable(tf.zeros([1, WINDOW2, HIDDEN]), trainable=False, name="hidden")
        self.w1 = tf.constant(rng.normal(0, 0.3, (WINDOW * FEATURES, HIDDEN)).astype(np.float32))
        self.b1 = tf.constant(rng.normal(0, 0.1, (HIDDEN,)).astype(np.float32))
        self.w2 = tf.constant(rng.normal(0, 0.3, (WINDOW2 * HIDDEN, CLASSES)).astype(np.float32))
        self.b2 = tf.constant(rng.normal(0, 0.1, (CLASSES,)).astype(np.float32))

    @tf.function(input_signature=[tf.TensorSpec([1, 1, FEATURES], tf.float32, name="slice")])
    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        frames = tf.concat([self.frames[:, 1:, :], x], axis=1)   # ring buffer: drop the oldest frame
        self.frames.assign(frames)
        h = tf.nn.relu(tf.matmul(tf.reshape(frames, [1, WINDOW * FEATURES]), self.w1) + self.b1)
        hidden = tf.concat([self.hidden[:, 1:, :], tf.reshape(h, [1, 1, HIDDEN])], axis=1)
        self.hidden.assign(hidden)
        logits = tf.matmul(tf.reshape(hidden, [1, WINDOW2 * HIDDEN]), self.w2) + self.b2
        return tf.nn.softmax(logits)


class Cond(tf.Module):
    """IF on a run-time condition (a bool model input: the comparison operators are issue 14's)."""

    @tf.function(input_signature=[tf.TensorSpec([], tf.bool, name="flag"), tf.TensorSpec([1, 8], tf.float32, name="x")])
    def __call__(self, flag: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        y = tf.cond(flag, lambda: tf.tanh(x * 2.0 + 1.0), lambda: tf.nn.relu(x - 0.5) * 3.0)
        return y + 1.0


class While(tf.Module):
    """WHILE whose trip count is a run-time input: loop variables f0..f3 (bool) shift by one per
    iteration (a False enters at the end), the loop runs while f0 holds: 0 to 4 iterations, bounded
    by the model. Only data movement decides (no comparison operator)."""

    @tf.function(input_signature=[tf.TensorSpec([], tf.bool, name=f"f{k}") for k in range(4)]
                 + [tf.TensorSpec([1, 6], tf.float32, name="x")])
    def __call__(self, f0: tf.Tensor, f1: tf.Tensor, f2: tf.Tensor, f3: tf.Tensor, x: tf.Tensor) -> tf.Tensor:
        def body(a, b, c, d, v):   # noqa: ANN001, ANN202 - tf.while_loop callback
            return b, c, d, tf.constant(False), tf.tanh(v * 0.9 + 0.25)

        *_, y = tf.while_loop(lambda a, b, c, d, v: a, body, [f0, f1, f2, f3, x])
        return y * 2.0


def convert(module: tf.Module, int8: bool = False, shape: tuple[int, ...] = (1, 1, FEATURES)) -> bytes:
    fn = module.__call__.get_concrete_function()
    conv = tf.lite.TFLiteConverter.from_concrete_functions([fn], module)
    conv.experimental_enable_resource_variables = True
    if int8:
        rng = np.random.default_rng(0)

        def rep():   # noqa: ANN202 - converter callback
            for _ in range(64):
                yield [rng.normal(0, 1, shape).astype(np.float32)]

        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = rep
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
        conv._experimental_variable_quantization = True   # int8 ring buffers, as TFLM streaming models
    return conv.convert()


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests/data/state")
    out.mkdir(parents=True, exist_ok=True)
    models = {
        "streaming_kws_float.tflite": convert(StreamingKws()),
        "streaming_kws_int8.tflite": convert(StreamingKws(), int8=True),
        "cond_float.tflite": convert(Cond()),
        "while_float.tflite": convert(While()),
    }
    for name, data in models.items():
        (out / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
