"""TFLite_Detection_PostProcess (custom operator) against tflite-runtime 2.14.

Oracle: tflite-runtime's reference resolver (BUILTIN_REF), which registers this custom operator
(as does the default resolver; both run kernels/detection_postprocess.cc). The outputs are
float32 and every case here is compared bit-exact (the kernel reproduces the reference's
double-precision decoding and its orderings) over the output slots the reference fills: the
reference leaves the others as the arena had them (uninitialised memory); ours are zero, checked.
Cases: fast and regular NMS, float32 and uint8 boxes/scores, with and without a background
class, anchors counts 1..40, ties in scores (scores drawn from a few levels) and distinct scores.
48 cases in CI, 240 with UTVM_TEST_FULL=1.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from flatbuffers import flexbuffers
from harness import Case, record, run_cases
from oracle import reference_outputs_many
from tflite_writer import ModelBuilder, flex_map

from utvm_build.compiler import compile_bytes
from utvm_build.errors import ModelFormatError, UnsupportedError
from utvm_build.options import CompileOptions

CODE = "TFLite_Detection_PostProcess"


def detection_model(n: int, classes: int, background: bool, max_det: int, max_cls: int, *,
                    box_dtype: str = "float32", score_dtype: str = "float32", anchors: np.ndarray,
                    box_len: int = 4, raw_options: bytes | None = None, **opts) -> bytes:
    b = ModelBuilder()
    cb = classes + int(background)
    bq = {"scale": 0.05, "zero_point": 128} if box_dtype == "uint8" else {}
    sq = {"scale": 1 / 255, "zero_point": 0} if score_dtype == "uint8" else {}
    box = b.tensor([1, n, box_len], box_dtype, **bq)
    sc = b.tensor([1, n, cb], score_dtype, **sq)
    if box_dtype == "uint8":
        anc = b.tensor([n, 4], "uint8", data=anchors, scale=0.01, zero_point=0)
    else:
        anc = b.tensor([n, 4], "float32", data=anchors)
    slots = max_det * max_cls
    outs = [b.tensor([1, slots, 4], "float32"), b.tensor([1, slots], "float32"),
            b.tensor([1, slots], "float32"), b.tensor([1], "float32")]
    options = dict(max_detections=max_det, max_classes_per_detection=max_cls, nms_score_threshold=0.3,
                   nms_iou_threshold=0.5, num_classes=classes, y_scale=10.0, x_scale=10.0, h_scale=5.0,
                   w_scale=5.0)
    options.update(opts)
    b.custom_operator(CODE, [box, sc, anc], outs, flex_map(**options) if raw_options is None else raw_options)
    return b.build([box, sc], outs)


def _case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 3, 8, 17, 40]))
    num_classes = int(rng.integers(1, 6))
    background = bool(rng.integers(0, 2))
    regular = seed % 3 == 0
    max_det = int(rng.integers(1, 8))
    max_cls = int(rng.integers(1, 4))
    box_dtype = "uint8" if seed % 4 == 1 else "float32"
    score_dtype = "uint8" if seed % 4 in (1, 2) else "float32"
    cb = num_classes + int(background)
    if box_dtype == "uint8":
        anchors = rng.integers(0, 100, (n, 4)).astype(np.uint8)
        boxes = rng.integers(0, 256, (1, n, 4)).astype(np.uint8)
    else:
        centers = rng.uniform(0, 1, (n, 2))
        sizes = rng.uniform(0.05, 0.6, (n, 2))
        anchors = np.concatenate([centers, sizes], axis=1).astype(np.float32)
        boxes = rng.normal(0, 2, (1, n, 4)).astype(np.float32)
    if score_dtype == "uint8":
        scores = (rng.integers(0, 6, (1, n, cb)) * 40).astype(np.uint8)    # few levels: ties
    else:
        scores = (rng.integers(0, 6, (1, n, cb)) / 5).astype(np.float32)   # ties
        if seed % 5 == 4:
            scores = rng.uniform(0, 1, (1, n, cb)).astype(np.float32)
    if regular and seed % 2 == 1:
        # distinct scores
        levels = rng.permutation(256)[:n * cb].reshape(1, n, cb)
        scores = levels.astype(np.uint8) if score_dtype == "uint8" else (levels / 255).astype(np.float32)
    opts = dict(nms_score_threshold=float(rng.choice([0.0, 0.3, 0.5, 0.9])),
                nms_iou_threshold=float(rng.choice([0.1, 0.5, 0.6, 1.0])),
                y_scale=float(rng.choice([10.0, 1.0])), x_scale=10.0, h_scale=float(rng.choice([5.0, 2.0])),
                w_scale=5.0)
    if regular:
        opts["use_regular_nms"] = True
        opts["detections_per_class"] = int(rng.integers(1, 10))
    model = detection_model(n, num_classes, background, max_det, max_cls, box_dtype=box_dtype,
                            score_dtype=score_dtype, anchors=anchors, **opts)
    label = (f"seed{seed} n{n} C{num_classes}{'+bg' if background else ''} det{max_det}x{max_cls} "
             f"{'regular' if regular else 'fast'} {box_dtype}/{score_dtype} {opts}")
    return Case(model, [boxes, scores], label)


def _filled(case_model_slots: int, max_cls: int, k: int, regular: bool, num: int) -> np.ndarray:
    """The output slots the reference writes: regular NMS the first ``num``; fast NMS the first
    ``min(max_classes_per_detection, num_classes)`` of each of the first ``num`` groups."""
    slot = np.arange(case_model_slots)
    if regular:
        return slot < num
    return (slot // max_cls < num) & (slot % max_cls < k)


def test_detection_postprocess_against_reference() -> None:
    seeds = range(240 if os.environ.get("UTVM_TEST_FULL") == "1" else 48)
    cases = [_case(seed) for seed in seeds]
    refs = reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    failures = []
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: reference failed: {ref}"
        num = int(ref[3][0])
        assert mine[3].tobytes() == np.asarray(ref[3], np.float32).tobytes(), f"{case.label}: num {mine[3]} {ref[3]}"
        slots = mine[1].size
        max_cls = int(case.label.split("det")[1].split()[0].split("x")[1])
        num_classes = int(case.label.split(" C")[1].split()[0].replace("+bg", ""))
        mask = _filled(slots, max_cls, min(max_cls, num_classes), "regular" in case.label, num)
        for j in range(3):
            o = mine[j].reshape(slots, -1)
            r = np.asarray(ref[j], np.float32).reshape(slots, -1)
            if o[mask].tobytes() != r[mask].tobytes():
                failures.append(f"{case.label} output {j}: ours {o[mask].tolist()} reference {r[mask].tolist()}")
            if np.any(o[~mask] != 0):
                failures.append(f"{case.label} output {j}: unfilled slots not zero")
    assert not failures, f"{len(failures)} failures:\n" + "\n".join(failures[:10])
    record(len(cases), len(cases))


def _compile_error(model: bytes) -> Exception:
    with pytest.raises((UnsupportedError, ModelFormatError)) as e:
        compile_bytes(model, "det", CompileOptions())
    msg = str(e.value)
    assert "\n" not in msg
    return e.value


_ANCHORS = np.full((3, 4), 0.5, np.float32)


@pytest.mark.parametrize("opts, expect", [
    ({"nms_iou_threshold": 0.0}, "nms_iou_threshold"),
    ({"nms_iou_threshold": 1.5}, "nms_iou_threshold"),
    ({"y_scale": 0.0}, "box scales"),
    ({"num_classes": 7}, "num_classes"),
    ({"max_classes_per_detection": 0}, "must be positive"),
    ({"use_regular_nms": True, "detections_per_class": 0}, "must be positive"),
])
def test_unsupported_variants_one_line(opts: dict, expect: str) -> None:
    err = _compile_error(detection_model(3, 2, True, 2, 1, anchors=_ANCHORS, **opts))
    assert isinstance(err, UnsupportedError) and expect in str(err) and CODE in str(err)


def test_int8_and_bad_anchors_rejected() -> None:
    b = ModelBuilder()
    box = b.tensor([1, 3, 4], "int8", scale=0.1, zero_point=0)
    sc = b.tensor([1, 3, 3], "float32")
    anc = b.tensor([3, 4], "float32", data=_ANCHORS)
    outs = [b.tensor([1, 2, 4], "float32"), b.tensor([1, 2], "float32"), b.tensor([1, 2], "float32"),
            b.tensor([1], "float32")]
    b.custom_operator(CODE, [box, sc, anc], outs, flex_map(
        max_detections=2, max_classes_per_detection=1, nms_score_threshold=0.3, nms_iou_threshold=0.5,
        num_classes=2, y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0))
    assert "int8" in str(_compile_error(b.build([box, sc], outs)))
    neg = _ANCHORS.copy()
    neg[1, 2] = -0.5
    assert "negative" in str(_compile_error(detection_model(3, 2, True, 2, 1, anchors=neg)))


def test_missing_option_one_line() -> None:
    raw = flex_map(max_detections=2, max_classes_per_detection=1, nms_score_threshold=0.3, num_classes=2,
                       y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)
    assert "nms_iou_threshold" in str(_compile_error(detection_model(3, 2, True, 2, 1, anchors=_ANCHORS,
                                                                     raw_options=raw)))


@pytest.mark.parametrize("mutate", ["truncate", "root_width", "offset", "empty", "not_map"])
def test_corrupted_flexbuffer_one_line(mutate: str) -> None:
    good = flex_map(max_detections=2, max_classes_per_detection=1, nms_score_threshold=0.3,
                        nms_iou_threshold=0.5, num_classes=2, y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)
    raw = bytearray(good)
    if mutate == "truncate":
        raw = raw[len(raw) // 2:]
    elif mutate == "root_width":
        raw[-1] = 3
    elif mutate == "offset":
        raw[-3] = 0xFF      # the root offset points before the buffer
    elif mutate == "empty":
        raw = bytearray()
    else:
        fbb = flexbuffers.Builder()
        fbb.Int(5)
        raw = bytearray(fbb.Finish())
    err = _compile_error(detection_model(3, 2, True, 2, 1, anchors=_ANCHORS, raw_options=bytes(raw)))
    assert isinstance(err, ModelFormatError) and "custom options" in str(err)


def test_flexbuffer_reader_fuzz() -> None:
    """Random byte flips never escape as anything but ModelFormatError."""
    from utvm_build.frontend.flexbuffers import read_map

    good = flex_map(a=1, b=2.5, c=True, d=-7, e=1 << 40)
    assert read_map(good) == {"a": 1, "b": 2.5, "c": True, "d": -7, "e": 1 << 40}
    rng = np.random.default_rng(0)
    for _ in range(2000):
        raw = bytearray(good)
        for _ in range(int(rng.integers(1, 4))):
            raw[int(rng.integers(0, len(raw)))] = int(rng.integers(0, 256))
        try:
            read_map(bytes(raw))
        except ModelFormatError as e:
            assert "\n" not in str(e)
