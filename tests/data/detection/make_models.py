"""Dev-only: a tiny SSD-style detector ending in TFLite_Detection_PostProcess, made by TensorFlow's
converter the way the Object Detection API exports SSD models for TFLite (run with
/work/tfvenv/bin/python from this directory). The .tflite files it writes are committed; tests
never import TensorFlow.

The head: image [1, 16, 16, 3] -> conv 3x3/2 (8 ch, relu) -> conv 3x3/2 (16 ch, relu) = 4x4 grid;
a 3x3 box conv (3 anchors x 4) and a class conv (3 anchors x (C + 1), sigmoid) -> box encodings
[1, 48, 4] and class scores [1, 48, 4] (3 classes + background); anchors [48, 4] constant. The
post-processing is an empty `tf.function` with `experimental_implements` naming
TFLite_Detection_PostProcess and its attributes (as `export_tflite_graph_lib_tf2.py` does); the
MLIR converter replaces it by the custom operator (compiler/mlir/lite/utils/nms_utils.cc: int
attributes max_detections, max_classes_per_detection, num_classes, detections_per_class; float
attributes nms_score_threshold, nms_iou_threshold, y/x/h/w_scale; bool use_regular_nms).

- ssd_float_regular.tflite, ssd_float_fast.tflite: float32, regular (per-class) and fast NMS;
- ssd_int8_regular.tflite, ssd_int8_fast.tflite: post-training full-integer quantization with a
  representative dataset (int8 convolutions; the custom operator is not quantized by the converter,
  so it gets float32 inputs through DEQUANTIZE).
"""

from __future__ import annotations

import tempfile

import numpy as np
import tensorflow as tf

H = W = 16
GRID = 4
ANCHORS_PER_CELL = 3
N = GRID * GRID * ANCHORS_PER_CELL
CLASSES = 3

tf.random.set_seed(7)
rng = np.random.default_rng(7)


def anchors() -> np.ndarray:
    """[N, 4] (y_center, x_center, h, w) in normalized coordinates, as SSD's anchor generator."""
    out = []
    for i in range(GRID):
        for j in range(GRID):
            for s in (0.2, 0.35, 0.5):
                out.append(((i + 0.5) / GRID, (j + 0.5) / GRID, s, s * 1.2))
    return np.array(out, np.float32)


def implements(regular: bool) -> str:
    ints = {"max_detections": 10, "max_classes_per_detection": 1 if regular else 2,
            "detections_per_class": 5, "num_classes": CLASSES}
    floats = {"nms_score_threshold": 0.4, "nms_iou_threshold": 0.5, "y_scale": 10.0, "x_scale": 10.0,
              "h_scale": 5.0, "w_scale": 5.0}
    sig = ['name: "TFLite_Detection_PostProcess"']
    sig += [f'attr {{ key: "{k}" value {{ i: {v} }} }}' for k, v in ints.items()]
    sig += [f'attr {{ key: "{k}" value {{ f: {v} }} }}' for k, v in floats.items()]
    sig.append(f'attr {{ key: "use_regular_nms" value {{ b: {str(regular).lower()} }} }}')
    return " ".join(sig)


class Detector(tf.Module):
    def __init__(self, regular: bool) -> None:
        super().__init__()
        init = tf.keras.initializers.GlorotUniform(seed=3)
        self.w1 = tf.Variable(init((3, 3, 3, 8)))
        self.b1 = tf.Variable(tf.random.uniform((8,), -0.1, 0.1, seed=4))
        self.w2 = tf.Variable(init((3, 3, 8, 16)))
        self.b2 = tf.Variable(tf.random.uniform((16,), -0.1, 0.1, seed=5))
        self.wb = tf.Variable(init((3, 3, 16, ANCHORS_PER_CELL * 4)))
        self.wc = tf.Variable(init((3, 3, 16, ANCHORS_PER_CELL * (CLASSES + 1))) * 3.0)
        self.bc = tf.Variable(tf.constant([-1.0] * (ANCHORS_PER_CELL * (CLASSES + 1))))
        self.anchors = tf.constant(anchors())

        @tf.function(experimental_implements=implements(regular))
        def post_processing(box_encodings, class_predictions, anchors):  # noqa: ARG001 (replaced by the op)
            boxes = tf.constant(0.0, dtype=tf.float32, name="boxes")
            scores = tf.constant(0.0, dtype=tf.float32, name="scores")
            classes = tf.constant(0.0, dtype=tf.float32, name="classes")
            num_detections = tf.constant(0.0, dtype=tf.float32, name="num_detections")
            return boxes, classes, scores, num_detections

        self.post_processing = post_processing

    @tf.function(input_signature=[tf.TensorSpec((1, H, W, 3), tf.float32)])
    def __call__(self, image):
        x = tf.nn.relu(tf.nn.conv2d(image, self.w1, 2, "SAME") + self.b1)
        x = tf.nn.relu(tf.nn.conv2d(x, self.w2, 2, "SAME") + self.b2)
        box = tf.reshape(tf.nn.conv2d(x, self.wb, 1, "SAME"), (1, N, 4))
        cls = tf.sigmoid(tf.reshape(tf.nn.conv2d(x, self.wc, 1, "SAME") + self.bc, (1, N, CLASSES + 1)))
        return self.post_processing(box, cls, self.anchors)


def representative():
    for _ in range(64):
        yield [rng.uniform(-1, 1, (1, H, W, 3)).astype(np.float32)]


def convert(regular: bool, int8: bool) -> bytes:
    m = Detector(regular)
    with tempfile.TemporaryDirectory() as d:
        tf.saved_model.save(m, d, signatures=m.__call__.get_concrete_function())
        conv = tf.lite.TFLiteConverter.from_saved_model(d)
        conv.allow_custom_ops = True
        if int8:
            conv.optimizations = [tf.lite.Optimize.DEFAULT]
            conv.representative_dataset = representative
            conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8, tf.lite.OpsSet.TFLITE_BUILTINS]
            conv.inference_input_type = tf.int8
        return conv.convert()


if __name__ == "__main__":
    for regular in (True, False):
        for int8 in (False, True):
            name = f"ssd_{'int8' if int8 else 'float'}_{'regular' if regular else 'fast'}.tflite"
            data = convert(regular, int8)
            open(name, "wb").write(data)
            print(name, len(data))
