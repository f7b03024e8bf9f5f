"""--memory balanced|min: CONCATENATION without a copy, producers writing into its slices
(passes/concat_slices.py).

Generated branching models merged by a CONCATENATION on axis 0, 1 or 3 (only where the slices are
contiguous does the rewrite apply), byte-identical to TFLite's reference kernels with the rewrite
alone, with every --memory rewrite together, and without (fast); inputs in the caller's buffers
and in the workspace. The CI runs a seeded sample; UTVM_TEST_FULL=1 runs every case.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from harness import Case, check_against_oracle
from test_memory_order import branch_model

from utvm_build import compiler
from utvm_build.compiler import compile_bytes
from utvm_build.options import CompileOptions
from utvm_build.passes import concat_slices, order
from utvm_build.passes.patches import PatchReport

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SEEDS = list(range(24)) if FULL else [0, 5, 7]   # the CI's sample: models the rewrite applies to


def _only_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    """--memory min without the stripes and the order: the slices' rewrite alone."""
    monkeypatch.setattr(compiler, "choose_patches", lambda g, mode, *a, **k: PatchReport(mode))
    monkeypatch.setattr(compiler, "choose_order", lambda *a, **k: None)
    monkeypatch.setattr(order, "choose_order", lambda *a, **k: None)   # the slices judged in the file's order


def _cases(label: str) -> tuple[list[Case], int]:
    cases, applied = [], 0
    for seed in SEEDS:
        for axis in (0, 1, 3) if FULL or seed == SEEDS[0] else (0, 1):
            model, inputs = branch_model(seed, concat_axis=axis)
            if label == "slices only":   # once: the reference build without the rewrite
                cases.append(Case(model, inputs, f"seed {seed} axis {axis} fast", CompileOptions()))
            for io in ("caller", "workspace"):
                opts = CompileOptions(memory="min", io=io)
                meta = compile_bytes(model, "m", opts).metadata
                done = meta["memory_transforms"]["concat_slices"]
                applied += bool(done)
                if axis == 3 and done:   # channels: contiguous only when H = W = 1
                    assert meta["inputs"][0]["shape"][1:3] == [1, 1]
                cases.append(Case(model, inputs, f"seed {seed} axis {axis} {label} io {io}", opts))
    return cases, applied


def test_slices_alone_match_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    _only_slices(monkeypatch)
    cases, applied = _cases("slices only")
    assert applied >= len(SEEDS), f"the rewrite applied to only {applied} models"
    check_against_oracle(cases)


def test_with_every_rewrite_match_the_reference() -> None:
    cases, applied = _cases("min")
    assert applied >= len(SEEDS)
    check_against_oracle(cases)


def test_slices_save_the_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rewrite drops the CONCATENATION, never grows the workspace, and saves memory on some models."""
    _only_slices(monkeypatch)
    saved = 0
    for seed in range(12):   # compiled only: cheap
        model, _ = branch_model(seed, concat_axis=1)
        fast = compile_bytes(model, "m", CompileOptions(io="workspace"))
        low = compile_bytes(model, "m", CompileOptions(memory="min", io="workspace"))
        if low.metadata["memory_transforms"]["concat_slices"]:
            assert "CONCATENATION" not in {op.op for op in low.graph.operators}
            assert low.metadata["workspace_bytes"] <= fast.metadata["workspace_bytes"], seed
            saved += low.metadata["workspace_bytes"] < fast.metadata["workspace_bytes"]
    assert saved >= 1


def test_only_when_every_input_qualifies() -> None:
    """An input that is a model input, or read by another operator too, keeps the copy."""
    from tflite_writer import ModelBuilder

    from utvm_build.compiler import lower

    mb = ModelBuilder("concat kept")
    x = mb.tensor([1, 2, 4, 4], "int8", scale=0.1, zero_point=0)
    y = mb.tensor([1, 2, 4, 4], "int8", scale=0.1, zero_point=0)
    mb.operator("RELU", [x], [y])
    z = mb.tensor([1, 4, 4, 4], "int8", scale=0.1, zero_point=0)
    mb.operator("CONCATENATION", [x, y], [z], {"axis": 1})
    g = lower(mb.build([x], [z]))
    assert concat_slices.write_into_slices(g) == []
    assert [op.op for op in g.operators] == ["RELU", "CONCATENATION"]
    rng = np.random.default_rng(0)
    check_against_oracle([Case(mb.build([x], [z]), [rng.integers(-128, 128, [1, 2, 4, 4]).astype(np.int8)],
                               "kept", CompileOptions(memory="min", io="workspace"))])
