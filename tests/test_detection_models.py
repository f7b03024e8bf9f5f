"""Converter-made SSD-style models ending in TFLite_Detection_PostProcess (issue 15, part 4).

Models: tests/data/detection/ (made by its dev-only make_models.py with TensorFlow 2.15's MLIR
converter from a `tf.function` with `experimental_implements="TFLite_Detection_PostProcess"`, as the
Object Detection API exports SSD models): a tiny conv head with 48 anchors and 3 classes + background,
float32 and int8 (post-training quantized; the custom operator gets float32 inputs through
DEQUANTIZE), regular and fast NMS. The converter stores [] as the custom operator's output shapes
(TFLite sizes them in the kernel's Prepare); the compiler sizes them the same way
(passes/shapes.py).

Oracle: tflite-runtime 2.14's reference kernels (BUILTIN_REF registers the custom operator). Every
seeded input yields detections (checked). Compared over the output slots the reference writes (it
leaves the others as the arena had them; ours are zero, checked): the number of detections and
the classes exactly, boxes and scores byte-identical for int8 and within 1e-5 x max|out| for float32.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from harness import Case, record, run_cases
from oracle import reference_outputs_many

from utvm_build.frontend.tflite import read_tflite

DATA = Path(__file__).parent / "data" / "detection"
MODELS = ("ssd_float_regular", "ssd_float_fast", "ssd_int8_regular", "ssd_int8_fast")
INPUTS = 6     # seeded inputs per model (uniform in [-1, 1]; 1 to 10 detections each)


def roles(model: bytes) -> tuple[list[int], int]:
    """Positions of the custom operator's four outputs (boxes, classes, scores, number) among the
    model's outputs, and its max_classes_per_detection."""
    g = read_tflite(model)
    op = next(o for o in g.operators if o.op == "CUSTOM(TFLite_Detection_PostProcess)")
    return [list(g.outputs).index(t) for t in op.outputs], int(op.options["max_classes_per_detection"])


def inputs(model: bytes, seed: int) -> np.ndarray:
    g = read_tflite(model)
    t = g.tensors[g.inputs[0]]
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, t.shape)
    if t.dtype == "int8":
        return np.clip(np.round(x / t.quant.s) + int(t.quant.zp), -128, 127).astype(np.int8)
    return x.astype(np.float32)


def filled(slots: int, max_cls: int, regular: bool, num: int) -> np.ndarray:
    """The slots the reference writes: regular NMS the first ``num``; fast NMS the first
    ``max_classes_per_detection`` of each of the first ``num`` groups (3 classes >= max_cls here)."""
    slot = np.arange(slots)
    return slot < num if regular else slot // max_cls < num


def compare(label: str, model: bytes, mine: list[np.ndarray], ref: list[np.ndarray]) -> tuple[list[str], bool]:
    """Failures, and whether the written slots are byte-identical."""
    (b, c, s, n), max_cls = roles(model)
    num = int(np.asarray(ref[n]).ravel()[0])
    errors, exact = [], True
    if num <= 0:
        errors.append(f"{label}: the reference detects nothing (the input should yield detections)")
    if mine[n].tobytes() != np.asarray(ref[n], np.float32).tobytes():
        errors.append(f"{label}: {mine[n]} detections, the reference {ref[n]}")
    slots = mine[c].size
    mask = filled(slots, max_cls, "regular" in label, num)
    for k, what in ((b, "boxes"), (c, "classes"), (s, "scores")):
        o = mine[k].reshape(slots, -1)
        r = np.asarray(ref[k], np.float32).reshape(slots, -1)
        exact = exact and o[mask].tobytes() == r[mask].tobytes()
        if what == "classes" or "int8" in label:
            ok = o[mask].tobytes() == r[mask].tobytes()
        else:
            tol = 1e-5 * max(float(np.abs(r[mask]).max(initial=0.0)), 1e-30)
            ok = bool(np.all(np.abs(o[mask].astype(np.float64) - r[mask]) <= tol))
        if not ok:
            errors.append(f"{label} {what}: ours {o[mask].tolist()} reference {r[mask].tolist()}")
        if np.any(o[~mask] != 0):
            errors.append(f"{label} {what}: slots the reference does not write are not zero")
    return errors, exact


def test_converter_made_detectors_against_reference() -> None:
    cases = []
    for name in MODELS:
        model = (DATA / f"{name}.tflite").read_bytes()
        cases += [Case(model, [inputs(model, seed)], f"{name} seed{seed}") for seed in range(1, INPUTS + 1)]
    refs = reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    errors, exact = [], 0
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: reference failed: {ref}"
        failed, same = compare(case.label, case.model, mine, ref)
        errors += failed
        exact += same
    assert not errors, f"{len(errors)} failures:\n" + "\n".join(errors[:10])
    record(len(cases), exact)


@pytest.mark.parametrize("name", MODELS)
def test_output_shapes_sized_as_the_reference(name: str) -> None:
    """The converter stores [] for the custom operator's outputs; compiled, they have the shapes the
    reference's Prepare gives them."""
    from utvm_build.compiler import compile_bytes
    from utvm_build.options import CompileOptions

    model = (DATA / f"{name}.tflite").read_bytes()
    g = read_tflite(model)
    op = next(o for o in g.operators if o.op == "CUSTOM(TFLite_Detection_PostProcess)")
    assert all(g.tensors[t].shape == () for t in op.outputs)
    meta = compile_bytes(model, "ssd", CompileOptions()).metadata
    m = 10 * int(op.options["max_classes_per_detection"])
    (b, c, s, n), _ = roles(model)
    shapes = [tuple(o["shape"]) for o in meta["outputs"]]
    assert (shapes[b], shapes[c], shapes[s], shapes[n]) == ((1, m, 4), (1, m), (1, m), (1,))


def _scalar_output_model(**opts) -> bytes:
    """The converter's form: the custom operator's outputs stored as [] (writer-made)."""
    from test_ops_detection import CODE
    from tflite_writer import ModelBuilder, flex_map

    b = ModelBuilder()
    box, sc = b.tensor([1, 3, 4], "float32"), b.tensor([1, 3, 2], "float32")
    anc = b.tensor([3, 4], "float32", data=np.full((3, 4), 0.5, np.float32))
    outs = [b.tensor([], "float32") for _ in range(4)]
    options = dict(max_detections=2, max_classes_per_detection=1, nms_score_threshold=0.3, nms_iou_threshold=0.5,
                   num_classes=1, y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)
    options.update(opts)
    b.custom_operator(CODE, [box, sc, anc], outs, flex_map(**options))
    return b.build([box, sc], outs)


@pytest.mark.parametrize("opts, expect", [
    ({"max_detections": -1}, "must be positive"),
    ({"max_detections": 1 << 20, "max_classes_per_detection": 1 << 20}, "output 0 has shape []"),
    ({"max_classes_per_detection": 1.5}, "max_classes_per_detection"),
])
def test_unsized_outputs_with_bad_options_one_line(opts: dict, expect: str) -> None:
    """Options the outputs cannot be sized from are left to the handler: one line naming the operator."""
    from utvm_build.compiler import compile_bytes
    from utvm_build.errors import UnsupportedError

    assert compile_bytes(_scalar_output_model(), "ok").metadata["outputs"][0]["shape"] == [1, 2, 4]
    with pytest.raises(UnsupportedError) as e:
        compile_bytes(_scalar_output_model(**opts), "bad")
    msg = str(e.value)
    assert "\n" not in msg and "TFLite_Detection_PostProcess" in msg and expect in msg, msg
