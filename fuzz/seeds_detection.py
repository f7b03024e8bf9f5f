"""Seeds of TFLite_Detection_PostProcess (custom operator with FlexBuffers options): fast and
regular NMS, float32 and uint8 inputs, small models from the detection tests' generator."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .seeds import _writer


def seeds() -> Iterator[tuple[str, bytes]]:
    _writer()   # puts tests/ on the path
    from test_ops_detection import detection_model

    anchors = np.array([[0.3, 0.3, 0.2, 0.2], [0.6, 0.5, 0.3, 0.4], [0.5, 0.6, 0.1, 0.2]], np.float32)
    yield "detection_fast_f32", detection_model(3, 2, True, 2, 2, anchors=anchors)
    yield "detection_regular_f32", detection_model(3, 2, True, 3, 1, anchors=anchors, use_regular_nms=True,
                                                   detections_per_class=2)
    q = np.array([[30, 30, 20, 20], [60, 50, 30, 40], [50, 60, 10, 20]], np.uint8)
    yield "detection_fast_u8", detection_model(3, 2, False, 2, 1, anchors=q, box_dtype="uint8", score_dtype="uint8")
