"""Metadata quirks TFLite Micro accepts (issue 14 part 5): accepted and computed as TFLM does.

TFLM's person_detect example declares its convolution biases (rank 1) with per-channel scales and
``quantized_dimension`` 3. tflite-runtime's interpreter refuses that ("quantized_dimension must be
less than the number of dimensions"), TFLM reads it unchecked: the bias scale is never used (the
kernels take input scale x filter scale). Reference here: TFLM's interpreter. Operators that do
apply per-channel parameters still check them (a filter's scales must lie along its output
channels), as TFLM's kernels do.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import Case, assert_matches, run_cases
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError


def _conv(op: str, seed: int, bias_axis: int) -> Case:
    rng = np.random.default_rng(seed)
    mb = ModelBuilder()
    dw = op == "DEPTHWISE_CONV_2D"
    c = 4
    x = mb.tensor((1, 6, 6, 3 if not dw else c), "int8", scale=0.05, zero_point=-2)
    ws = [float(s) for s in rng.uniform(0.002, 0.02, c)]
    wshape = (1, 3, 3, c) if dw else (c, 3, 3, 3)
    w = mb.tensor(wshape, "int8", data=rng.integers(-127, 128, wshape), scale=ws, zero_point=[0] * c,
                  quantized_dimension=3 if dw else 0)
    b = mb.tensor((c,), "int32", data=rng.integers(-2000, 2000, c), scale=[0.05 * s for s in ws],
                  zero_point=[0] * c)
    mb.tensors[b].quantized_dimension = bias_axis  # the quirk: dimension 3 of a rank-1 tensor
    y = mb.tensor((1, 6, 6, c), "int8", scale=0.1, zero_point=5)
    mb.operator(op, [x, w, b], [y], {"padding": "SAME"})
    data = rng.integers(-128, 128, (1, 6, 6, 3 if not dw else c)).astype(np.int8)
    return Case(mb.build([x], [y]), [data], f"{op} bias quantized_dimension {bias_axis}")


def test_rank1_bias_with_quantized_dimension_3():
    from oracle import micro_reference_outputs_many

    cases = [_conv(op, 10 + k, axis) for k, (op, axis) in
             enumerate([("CONV_2D", 3), ("DEPTHWISE_CONV_2D", 3), ("CONV_2D", 7), ("DEPTHWISE_CONV_2D", 1)])]
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: TFLM failed: {ref}"
        assert_matches(mine[0], np.asarray(ref[0]), case.label)


def test_filter_scales_off_the_channel_axis_are_rejected():
    mb = ModelBuilder()
    x = mb.tensor((1, 4, 4, 3), "int8", scale=0.05, zero_point=0)
    w = mb.tensor((4, 3, 3, 3), "int8", data=np.ones((4, 3, 3, 3)), scale=[0.01] * 3, zero_point=[0] * 3,
                  quantized_dimension=3)
    y = mb.tensor((1, 4, 4, 4), "int8", scale=0.1, zero_point=0)
    mb.operator("CONV_2D", [x, w], [y], {"padding": "SAME"})
    with pytest.raises(UtvmError, match="dimension 0") as e:
        compile_bytes(mb.build([x], [y]), "m")
    assert "\n" not in str(e.value)
