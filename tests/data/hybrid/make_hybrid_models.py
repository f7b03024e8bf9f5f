"""Dev-only: TensorFlow-converted dynamic-range ("hybrid") models for tests/test_ops_hybrid.py.

Run with TensorFlow (not a product or CI dependency): ``/work/tfvenv/bin/python make_hybrid_models.py``.
Writes the .tflite files next to this script. Default optimizations, no representative dataset:
float32 activations, int8 weights (TF quantizes weight tensors of at least 1024 elements; smaller
ones stay float32). Random weights from fixed seeds (the architecture is what matters here).

- kws_dscnn_dynamic.tflite: a re-creation of MLPerf Tiny's kws_ref_model (DS-CNN: conv 10x4/2 with
  64 filters, 4 x (depthwise 3x3 + pointwise 1x1 with 64 filters), batch norms, average pool, FC 12,
  softmax) on a 49x10x1 MFCC input, converted with dynamic-range quantization as MLPerf's
  kws_ref_model_float32 would be;
- mlp_dynamic.tflite: dense 40 -> 64 -> 32 -> 10 on a batch of 2 (hybrid FULLY_CONNECTED, asymmetric
  input quantization as the converter sets it);
- conv_dynamic.tflite: two 3x3 convolutions (32 and 48 filters, per-channel int8 weights), a dense
  head (hybrid CONV_2D, per-channel path);
- dwconv_dynamic.tflite: a depthwise 5x5 with depth multiplier 8 on 32 channels (256 outputs, 6400
  weights: hybrid DEPTHWISE_CONV_2D), a pointwise conv.
"""

from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).resolve().parent


def _convert(model: tf.keras.Model, name: str) -> None:
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    data = conv.convert()
    (HERE / name).write_bytes(data)
    print(name, len(data), "bytes")


def _randomize_bn(model: tf.keras.Model, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            g, b, m, v = layer.get_weights()
            layer.set_weights([rng.uniform(0.5, 1.5, g.shape).astype(np.float32),
                               rng.normal(0, 0.1, b.shape).astype(np.float32),
                               rng.normal(0, 0.1, m.shape).astype(np.float32),
                               rng.uniform(0.5, 1.5, v.shape).astype(np.float32)])


def kws_dscnn() -> tf.keras.Model:
    tf.random.set_seed(1)
    L = tf.keras.layers
    x_in = tf.keras.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(64, (10, 4), strides=(2, 2), padding="same")(x_in)
    x = L.BatchNormalization()(x)
    x = L.Activation("relu")(x)
    for _ in range(4):
        x = L.DepthwiseConv2D((3, 3), padding="same")(x)
        x = L.BatchNormalization()(x)
        x = L.Activation("relu")(x)
        x = L.Conv2D(64, (1, 1), padding="same")(x)
        x = L.BatchNormalization()(x)
        x = L.Activation("relu")(x)
    x = L.AveragePooling2D(pool_size=x.shape[1:3])(x)
    x = L.Flatten()(x)
    x = L.Dense(12)(x)
    out = L.Softmax()(x)
    m = tf.keras.Model(x_in, out)
    _randomize_bn(m, 1)
    return m


def mlp() -> tf.keras.Model:
    tf.random.set_seed(2)
    L = tf.keras.layers
    x_in = tf.keras.Input((40,), batch_size=2)
    x = L.Dense(64, activation="relu")(x_in)
    x = L.Dense(32, activation="relu")(x)
    out = L.Dense(10)(x)
    return tf.keras.Model(x_in, out)


def conv() -> tf.keras.Model:
    tf.random.set_seed(3)
    L = tf.keras.layers
    x_in = tf.keras.Input((12, 12, 3), batch_size=1)
    x = L.Conv2D(32, 3, padding="same", activation="relu")(x_in)
    x = L.Conv2D(48, 3, strides=2, padding="valid", activation="relu")(x)
    x = L.Flatten()(x)
    out = L.Dense(8)(x)
    return tf.keras.Model(x_in, out)


def dwconv() -> tf.keras.Model:
    tf.random.set_seed(4)
    L = tf.keras.layers
    x_in = tf.keras.Input((8, 8, 32), batch_size=1)
    x = L.DepthwiseConv2D(5, depth_multiplier=8, padding="same", activation="relu6")(x_in)
    out = L.Conv2D(16, 1)(x)
    return tf.keras.Model(x_in, out)


if __name__ == "__main__":
    _convert(kws_dscnn(), "kws_dscnn_dynamic.tflite")
    _convert(mlp(), "mlp_dynamic.tflite")
    _convert(conv(), "conv_dynamic.tflite")
    _convert(dwconv(), "dwconv_dynamic.tflite")
