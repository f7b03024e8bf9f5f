"""Dev-only: the "real models of the field" of issue 14, made with TensorFlow's converter.

Run with a Python that has TensorFlow (not needed by the product or its tests):

    python tests/data/field_models/make_field_models.py   # writes the .tflite files next to it

Keras application architectures with random weights (seeded) and small inputs, plus small
hand-built transformer, audio and U-Net models, each as float32 and full-integer int8 (random
representative data). Width multipliers keep the committed files small; the architecture, and so
the set of operators and their shapes' variety, is the real one. Which model uses which operator:
`utvm-build info <model>`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).resolve().parent
SEED = 20261125


def _dataset(shape: tuple[int, ...], n: int = 16):  # noqa: ANN202 - a generator for the converter
    rng = np.random.default_rng(SEED)

    def gen():  # noqa: ANN202
        for _ in range(n):
            yield [rng.uniform(-1.0, 1.0, size=(1, *shape)).astype(np.float32)]

    return gen


def convert(model: tf.keras.Model, name: str, int8: bool) -> None:
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    if int8:
        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = _dataset(tuple(model.input_shape[1:]))
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    data = conv.convert()
    path = HERE / f"{name}_{'int8' if int8 else 'float'}.tflite"
    path.write_bytes(data)
    print(f"{path.name}: {len(data)} bytes")


def _classifier(base: tf.keras.Model, classes: int = 10) -> tf.keras.Model:
    """The application's feature extractor with a small classifier (the applications' own top
    layers are 1000-class, hundreds of KB)."""
    return tf.keras.Model(base.input, tf.keras.layers.Dense(classes, activation="softmax")(base.output))


def mobilenet_v2() -> tf.keras.Model:
    return _classifier(tf.keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.1, weights=None,
                                                         include_top=False, pooling="avg"))


def mobilenet_v3() -> tf.keras.Model:
    # minimalistic=False: HARD_SWISH and squeeze-and-excitation blocks (the operators V3 adds)
    return _classifier(tf.keras.applications.MobileNetV3Small(
        input_shape=(32, 32, 3), alpha=0.25, weights=None, include_top=False, pooling="avg",
        include_preprocessing=False))


def efficientnet_b0_scaled() -> tf.keras.Model:
    """EfficientNet-B0's blocks (MBConv, squeeze-and-excitation, swish) at width 0.25, depth 0.5."""
    from keras.src.applications import efficientnet

    return _classifier(efficientnet.EfficientNet(0.25, 0.5, 32, 0.2, model_name="efficientnet_b0_w025",
                                                 weights=None, input_shape=(32, 32, 3), include_top=False,
                                                 pooling="avg"))


def transformer_block() -> tf.keras.Model:
    """One pre-norm encoder block: layer norm (MEAN, SQUARED_DIFFERENCE, RSQRT), attention
    (BATCH_MATMUL, TRANSPOSE, SOFTMAX), feed-forward, residual adds."""
    seq, dim, heads = 16, 32, 2
    x_in = tf.keras.Input((seq, dim))

    def layer_norm(x):  # noqa: ANN001, ANN202 - written out so the converter keeps MEAN/RSQRT
        mean = tf.reduce_mean(x, axis=-1, keepdims=True)
        var = tf.reduce_mean(tf.math.squared_difference(x, mean), axis=-1, keepdims=True)
        return (x - mean) * tf.math.rsqrt(var + 1e-5)

    h = layer_norm(x_in)
    q = tf.keras.layers.Dense(dim)(h)
    k = tf.keras.layers.Dense(dim)(h)
    v = tf.keras.layers.Dense(dim)(h)

    def split(t):  # noqa: ANN001, ANN202
        return tf.transpose(tf.reshape(t, (-1, seq, heads, dim // heads)), (0, 2, 1, 3))

    q, k, v = split(q), split(k), split(v)
    scores = tf.matmul(q, k, transpose_b=True) * (1.0 / np.sqrt(dim // heads))
    att = tf.nn.softmax(scores, axis=-1)
    ctx = tf.reshape(tf.transpose(tf.matmul(att, v), (0, 2, 1, 3)), (-1, seq, dim))
    x = x_in + tf.keras.layers.Dense(dim)(ctx)
    h = layer_norm(x)
    h = tf.keras.layers.Dense(2 * dim, activation="relu")(h)
    x = x + tf.keras.layers.Dense(dim)(h)
    out = tf.keras.layers.Dense(4)(tf.reduce_mean(x, axis=1))
    return tf.keras.Model(x_in, out)


def yamnet_style() -> tf.keras.Model:
    """A YAMNet-style audio classifier: depthwise-separable convolutions over a 48x32 log-mel
    patch, global max and average pooling, logistic outputs."""
    x_in = tf.keras.Input((48, 32, 1))
    x = tf.keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(x_in)
    for filters, stride in ((32, 1), (32, 2), (64, 1), (64, 2)):
        x = tf.keras.layers.DepthwiseConv2D(3, strides=stride, padding="same", activation="relu")(x)
        x = tf.keras.layers.Conv2D(filters, 1, activation="relu")(x)
    x = tf.keras.layers.Concatenate()([tf.keras.layers.GlobalMaxPooling2D()(x),
                                       tf.keras.layers.GlobalAveragePooling2D()(x)])
    out = tf.keras.layers.Dense(8, activation="sigmoid")(x)
    return tf.keras.Model(x_in, out)


def unet() -> tf.keras.Model:
    """A small U-Net: down with MAX_POOL_2D, up with TRANSPOSE_CONV and RESIZE_BILINEAR /
    RESIZE_NEAREST_NEIGHBOR, skip connections by CONCATENATION."""
    x_in = tf.keras.Input((32, 32, 3))
    c1 = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(x_in)
    p1 = tf.keras.layers.MaxPooling2D()(c1)
    c2 = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu")(p1)
    p2 = tf.keras.layers.MaxPooling2D()(c2)
    c3 = tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu")(p2)
    u2 = tf.keras.layers.Conv2DTranspose(16, 2, strides=2, padding="same")(c3)
    m2 = tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu")(tf.keras.layers.Concatenate()([u2, c2]))
    u1 = tf.keras.layers.UpSampling2D(interpolation="bilinear")(m2)
    m1 = tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu")(tf.keras.layers.Concatenate()([u1, c1]))
    side = tf.keras.layers.UpSampling2D(size=4, interpolation="nearest")(c3)
    out = tf.keras.layers.Conv2D(2, 1)(tf.keras.layers.Concatenate()([m1, side]))
    return tf.keras.Model(x_in, out)


#: name -> (builder, variants): float and int8 unless said otherwise (EfficientNet: int8, as issue 14 asks).
MODELS = {"mobilenet_v2": mobilenet_v2, "mobilenet_v3_small": mobilenet_v3,
          "efficientnet_b0_w025": efficientnet_b0_scaled, "transformer_block": transformer_block,
          "yamnet_style": yamnet_style, "unet": unet}


def main(names: list[str]) -> None:
    for name in names or list(MODELS):
        tf.keras.utils.set_random_seed(SEED)
        model = MODELS[name]()
        for int8 in ((True,) if name.startswith("efficientnet") else (False, True)):
            convert(model, name, int8)


if __name__ == "__main__":
    main(sys.argv[1:])
