"""TFLite_Detection_PostProcess (custom operator): SSD box decoding and non-max suppression.

Semantics of tensorflow/lite/kernels/detection_postprocess.cc (TFLite 2.14, registered by both
of tflite-runtime's resolvers). The frontend names custom operators ``CUSTOM(<custom_code>)`` and
reads this one's FlexBuffers custom_options into ``op.options`` (frontend/flexbuffers.py).

Compile-time work: the options are checked (what the reference ENSUREs at run time becomes a
one-line error here), the constant anchors are dequantized to float32 (uint8 anchors:
``(float(q) - zp) * scale`` in float, as the reference's Dequantizer) and passed as a constant;
the kernel decodes the boxes in double as the reference does, then runs fast or regular NMS.
Inputs: box encodings [1, N, >=4] and class scores [1, N, C or C+1] in float32 or uint8 (the
reference dequantizes uint8; it has no int8 path), anchors [N, 4] constant. Outputs: four float32
tensors (boxes, classes, scores, number of detections).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, Operator
from .base import OpHandler, expect_const, expect_counts, expect_dtype, expect_quant, fail, out_tensor, register, tensor
from .call import Const, In, Out, Params, Prepared, Scratch, call

NAME = "CUSTOM(TFLite_Detection_PostProcess)"
_REQUIRED = ("max_detections", "max_classes_per_detection", "nms_score_threshold", "nms_iou_threshold",
             "num_classes", "y_scale", "x_scale", "h_scale", "w_scale")
_INT32 = (-2**31, 2**31 - 1)


def _int(op: Operator, name: str, default: int | None = None) -> int:
    v = op.options.get(name, default)
    if isinstance(v, float) or v is None or isinstance(v, str) or not _INT32[0] <= int(v) <= _INT32[1]:
        raise fail(op, f"option {name} = {v!r} is not a 32-bit integer")
    return int(v)


def _float(op: Operator, name: str) -> np.float32:
    v = op.options.get(name)
    if v is None or isinstance(v, str):
        raise fail(op, f"option {name} = {v!r} is not a number")
    with np.errstate(over="ignore"):
        return np.float32(v)    # flexbuffers' AsFloat: a double or an integer cast to float


def _scratch(n: int, cb: int, c: int, m: int, max_cls: int, score_u8: bool) -> int:
    """Scratch bytes, laid out as kernels/detection_postprocess.h carves them (handed over as
    ``Prepared.scratch_bytes``: kernel_table imports the handlers, so no rule is registered there)."""
    words = 4 * n + (n * cb if score_u8 else 0) + 6 * n + n * min(max_cls, c) + c + 3 * (n + m) + m
    return 4 * words + n


@register(NAME)
class DetectionPostProcess(OpHandler):
    supported = ("box encodings and scores float32 or uint8, constant anchors; fast NMS (use_regular_nms "
                 "false) and regular per-class NMS; batch 1")

    def prepare(self, op: Operator, g: Graph, target: str = "generic") -> Prepared:
        expect_counts(op, 3, 4)
        for key in _REQUIRED:
            if key not in op.options:
                raise fail(op, f"custom option {key} is missing")
        boxes, scores, anchors = (tensor(g, op, k) for k in range(3))
        for t, role in ((boxes, "box encodings"), (scores, "class scores"), (anchors, "anchors")):
            expect_dtype(op, t, ("float32", "uint8"), role)
            if t.dtype == "uint8":
                expect_quant(op, t, role)
        if len(boxes.shape) != 3 or len(scores.shape) != 3 or len(anchors.shape) != 2:
            raise fail(op, f"box encodings {list(boxes.shape)} and scores {list(scores.shape)} must be 3-D and "
                           f"anchors {list(anchors.shape)} 2-D")
        _, n, box_len = boxes.shape
        if boxes.shape[0] != 1 or scores.shape[0] != 1:
            raise fail(op, "only batch 1 is supported (as the reference)")
        if box_len < 4:
            raise fail(op, f"box encodings have {box_len} values per box; at least 4 are needed")
        if scores.shape[1] != n or tuple(anchors.shape) != (n, 4):
            raise fail(op, f"scores {list(scores.shape)} and anchors {list(anchors.shape)} do not match "
                           f"{n} boxes")
        if boxes.dtype == "uint8" and anchors.dtype != "uint8":
            raise fail(op, "uint8 box encodings need uint8 anchors (the reference reads them as uint8)")
        if boxes.dtype == "float32" and anchors.dtype != "float32":
            raise fail(op, "float32 box encodings need float32 anchors")
        raw = expect_const(op, anchors, "anchors")
        if anchors.dtype == "uint8":
            zp, s = np.float32(int(anchors.quant.zp)), np.float32(anchors.quant.s)
            anc = (raw.astype(np.float32) - zp) * s
        else:
            anc = raw.astype(np.float32)
        if np.any(anc[:, 2:] < 0):
            raise fail(op, "an anchor has a negative height or width (the reference fails on the decoded box)")
        num_classes, cb = _int(op, "num_classes"), int(scores.shape[2])
        max_det, max_cls = _int(op, "max_detections"), _int(op, "max_classes_per_detection")
        per_class = _int(op, "detections_per_class", 100)
        regular = op.options.get("use_regular_nms", False)
        regular = bool(regular) if regular is not None else False
        if num_classes <= 0 or not 0 <= cb - num_classes <= 1:
            raise fail(op, f"num_classes {num_classes} does not fit scores with {cb} classes (C or C + 1)")
        if max_det <= 0 or max_cls <= 0 or (regular and per_class <= 0):
            raise fail(op, f"max_detections {max_det}, max_classes_per_detection {max_cls} and "
                           f"detections_per_class {per_class} must be positive")
        iou = _float(op, "nms_iou_threshold")
        if not (iou > 0 and iou <= 1):
            raise fail(op, f"nms_iou_threshold {iou} must be in (0, 1]")
        scales = [_float(op, k) for k in ("y_scale", "x_scale", "h_scale", "w_scale")]
        if not all(np.isfinite(v) and v != 0 for v in scales):
            raise fail(op, f"box scales {[float(v) for v in scales]} must be finite and non-zero")
        slots = max_det * max_cls
        want = [(1, slots, 4), (1, slots), (1, slots), (1,)]
        for k, shape in enumerate(want):
            o = out_tensor(g, op, k)
            expect_dtype(op, o, ("float32",), f"output {k}")
            if tuple(o.shape) != shape:
                raise fail(op, f"output {k} has shape {list(o.shape)}; the reference makes {list(shape)}")
        threshold = _float(op, "nms_score_threshold")
        if not np.isfinite(threshold):
            raise fail(op, f"nms_score_threshold {threshold} must be finite")
        bq, sq = boxes.quant, scores.quant
        for t in (boxes, scores, anchors):
            if t.dtype == "uint8" and not 0 <= int(t.quant.zp) <= 255:
                raise fail(op, f"tensor #{t.index} '{t.name}' has zero point {t.quant.zp} outside the uint8 range")
        p = Params("utvm_detection_params", {
            "num_boxes": n, "box_len": box_len, "num_classes": num_classes, "classes_bg": cb,
            "max_detections": max_det, "max_classes": max_cls, "per_class": per_class, "regular": int(regular),
            "box_u8": int(boxes.dtype == "uint8"), "score_u8": int(scores.dtype == "uint8"),
            "box_zp": int(bq.zp) if boxes.dtype == "uint8" else 0,
            "score_zp": int(sq.zp) if scores.dtype == "uint8" else 0,
            "box_scale": float(np.float32(bq.s)) if boxes.dtype == "uint8" else 1.0,
            "score_scale": float(np.float32(sq.s)) if scores.dtype == "uint8" else 1.0,
            "score_threshold": float(threshold), "iou_threshold": float(iou),
            "y_scale": float(scales[0]), "x_scale": float(scales[1]), "h_scale": float(scales[2]),
            "w_scale": float(scales[3])})
        return Prepared([call("utvm_detection_postprocess", p, In(0), In(1), Const("anchors", anc.reshape(-1), "float"),
                              Out(0), Out(1), Out(2), Out(3), Scratch("void"))],
                        scratch_bytes=_scratch(n, cb, num_classes, max_det, max_cls, scores.dtype == "uint8"))
