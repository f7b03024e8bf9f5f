"""Dev-only: converts small Keras LSTMs with TensorFlow's converter (run with /work/tfvenv/bin/python
from this directory). The .tflite files it writes are committed; tests never import TensorFlow.

- keras_lstm_float.tflite: Sequential(LSTM(8, return_sequences=True), LSTM(6)), float32
- keras_lstm_int8.tflite: the same, full-integer quantized (int8 in/out, the 8x8->16 LSTM with its
  five quantization-only intermediate tensors)
16x8 (int16 activations) is not made: TensorFlow 2.15's converter refuses it for this operator
("Quantization to 16x8-bit not yet supported for op: 'UNIDIRECTIONAL_SEQUENCE_LSTM'").
"""

import numpy as np
import tensorflow as tf

tf.random.set_seed(1)
np.random.seed(1)
T, F = 5, 4


def model() -> tf.keras.Model:
    inp = tf.keras.Input(shape=(T, F), batch_size=1)
    x = tf.keras.layers.LSTM(8, return_sequences=True)(inp)
    x = tf.keras.layers.LSTM(6)(x)
    out = tf.keras.layers.Dense(3)(x)
    return tf.keras.Model(inp, out)


def rep():
    for _ in range(50):
        yield [np.random.uniform(-1, 1, (1, T, F)).astype(np.float32)]


m = model()
conv = tf.lite.TFLiteConverter.from_keras_model(m)
open("keras_lstm_float.tflite", "wb").write(conv.convert())

conv = tf.lite.TFLiteConverter.from_keras_model(m)
conv.optimizations = [tf.lite.Optimize.DEFAULT]
conv.representative_dataset = rep
conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
conv.inference_input_type = tf.int8
conv.inference_output_type = tf.int8
open("keras_lstm_int8.tflite", "wb").write(conv.convert())

