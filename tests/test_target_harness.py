"""The conformance suites' run on QEMU (tests/target_harness.py) checks what it says it checks.

- the sample is a pure function of the cases (the same twice), favours the operators with a target
  kernel and gives every test file its minimum;
- a few models in one image per core: their outputs are the reference's byte for byte, and a
  reference changed in one byte fails naming the case, the core and the byte.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import target_harness as th
from harness import Case
from oracle import random_inputs, reference_outputs_many
from system_tools import need
from tflite_writer import ModelBuilder


def _conv_model(oc: int) -> bytes:
    rng = np.random.default_rng(oc)
    mb = ModelBuilder("target harness conv")
    x = mb.tensor([1, 5, 6, 4], "int8", scale=0.02, zero_point=-3)
    w_scales = rng.uniform(0.004, 0.008, oc).astype(np.float32)
    w = mb.tensor([oc, 3, 3, 4], "int8", data=rng.integers(-127, 128, [oc, 3, 3, 4]).astype(np.int8),
                  scale=w_scales, zero_point=[0] * oc, quantized_dimension=0)
    b = mb.tensor([oc], "int32", data=rng.integers(-2000, 2000, oc), scale=(0.02 * w_scales).astype(np.float32),
                  zero_point=[0] * oc)
    y = mb.tensor([1, 5, 6, oc], "int8", scale=0.05, zero_point=7)
    mb.operator("CONV_2D", [x, w, b], [y], {"padding": "SAME", "stride_h": 1, "stride_w": 1,
                                            "fused_activation_function": "RELU"})
    return mb.build([x], [y])


def _add_model() -> bytes:
    mb = ModelBuilder("target harness add")
    a = mb.tensor([2, 3, 8], "float32")
    b = mb.tensor([2, 3, 8], "float32")
    y = mb.tensor([2, 3, 8], "float32")
    mb.operator("ADD", [a, b], [y], {"fused_activation_function": "NONE"})
    return mb.build([a, b], [y])


def _cases() -> list[Case]:
    models = [_conv_model(5), _conv_model(8), _add_model()]
    return [Case(m, random_inputs(m, 7 + k), f"model {k}") for k, m in enumerate(models)]


def test_sample_is_seeded_and_favours_target_kernels(monkeypatch) -> None:
    monkeypatch.setattr(th, "ALL", False)
    monkeypatch.setattr(th, "_PER_FILE", {})
    conv, add = _conv_model(3), _add_model()
    cases = [Case(conv, [], f"conv {k}") for k in range(600)] + [Case(add, [], f"float add {k}") for k in range(600)]
    # ADD is a family (int8 ADD has target kernels): a model without one, by its operator codes
    monkeypatch.setattr(th, "TARGET_FAMILIES", {3: "CONV_2D"})
    first = th.sample(cases, th.CORES["m4"])
    monkeypatch.setattr(th, "_PER_FILE", {})
    assert th.sample(cases, th.CORES["m4"]) == first
    conv_n = sum(k < 600 for k in first)
    assert 600 / th.FAMILY_RATE / 2 < conv_n < 600 / th.FAMILY_RATE * 2, conv_n
    assert 0 < len(first) - conv_n < 600 / th.OTHER_RATE * 2.5, len(first) - conv_n
    # a file whose hash picks nothing still gets its minimum, once
    few = [Case(add, [], "one"), Case(add, [], "two"), Case(add, [], "three")]
    monkeypatch.setattr(th, "OTHER_RATE", 10**9)
    monkeypatch.setattr(th, "_PER_FILE", {})
    assert th.sample(few, th.CORES["m55"]) == list(range(th.MIN_PER_FILE))
    assert th.sample(few, th.CORES["m55"]) == []
    # cases the generated main cannot drive are never picked (io="workspace")
    odd = [dataclasses.replace(c, options=dataclasses.replace(c.options, io="workspace")) for c in few]
    monkeypatch.setattr(th, "ALL", True)
    assert th.sample(odd, th.CORES["m4"]) == []


@pytest.mark.parametrize("core", ["m4", "m55"])
def test_one_image_matches_the_reference_and_a_changed_byte_fails(core: str, monkeypatch) -> None:
    need(*th.TOOLS)
    monkeypatch.setattr(th, "ALL", True)
    monkeypatch.setenv("UTVM_CONFORMANCE_TARGETS", core)
    monkeypatch.setattr(th, "TARGET_TALLY", {})
    cases = _cases()
    refs = reference_outputs_many([(c.model, c.inputs) for c in cases])
    th.check_on_targets(cases, refs, 1e-5)
    assert th.TARGET_TALLY[core][:2] == [3, 3]   # the float ADD too: IEEE addition is exact on both
    bad = [list(r) for r in refs]
    bad[1][0] = np.array(bad[1][0], copy=True)
    bad[1][0].flat[17] = np.int8(bad[1][0].flat[17] ^ 1)
    with pytest.raises(AssertionError, match=rf"1 target runs failed:\n{th.CORES[core].target} on QEMU "
                                             r".*: model 1 output 0: 1 of 240 values differ"):
        th.check_on_targets(cases, bad, 1e-5)
