"""Real models (../shared/models/examples): bit-exact against the reference, planned tightly."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, assert_matches, record, run_cases
from test_codegen import compile_strict

from utvm_build import compile_model
from utvm_build.compiler import compile_bytes

EXAMPLES = SHARED_MODELS / "examples"
BUNDLED = Path(__file__).resolve().parents[1] / "examples" / "models"
MODELS = sorted(EXAMPLES.glob("*.tflite")) if EXAMPLES.is_dir() else []
OWN_MODELS = sorted(BUNDLED.glob("*/*.tflite"))
# real third-party models kept in the repository (third_party/, with their licences)
THIRD_PARTY_MODELS = [Path(__file__).resolve().parents[1] / "third_party" / "tflite-micro" / "person_detect.tflite"]
# TFLite's reference resolver aborts on keyword_scrambled_8bit (see shared/models/README.md), and
# tflite-runtime refuses person_detect's per-tensor biases that carry quantized_dimension 3 (TFLM,
# and we, read one scale as per-tensor whatever the dimension): TFLM is the oracle for both.
MICRO_ORACLE = {"keyword_scrambled_8bit.tflite", "person_detect.tflite"}
SEEDS = (0, 1, 2)

needs_shared = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="../shared/models is not present")


def _check(model: Path) -> None:
    from oracle import micro_reference_outputs_many, random_inputs, reference_outputs_many

    data = model.read_bytes()
    cases = [Case(data, random_inputs(data, seed), f"{model.name} seed {seed}") for seed in SEEDS]
    oracle = micro_reference_outputs_many if model.name in MICRO_ORACLE else reference_outputs_many
    refs = oracle([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    exact = 0
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: oracle failed: {ref}"
        for i, (o, r) in enumerate(zip(mine, ref)):
            assert_matches(o, np.asarray(r), f"{case.label} output {i}")
        exact += all(np.array_equal(o, np.asarray(r).reshape(o.shape)) for o, r in zip(mine, ref))
    record(len(cases), exact)


@needs_shared
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_example_model_matches_reference(model: Path) -> None:
    _check(model)


@pytest.mark.parametrize("model", OWN_MODELS, ids=lambda p: p.name)
def test_bundled_model_matches_reference(model: Path) -> None:
    _check(model)


@pytest.mark.parametrize("model", THIRD_PARTY_MODELS, ids=lambda p: p.name)
def test_third_party_model_matches_reference(model: Path) -> None:
    _check(model)


@needs_shared
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_workspace_close_to_lower_bound(model: Path) -> None:
    meta = compile_bytes(model.read_bytes(), "m").metadata
    bound = meta["workspace_lower_bound_bytes"]
    # Alignment padding (16 B per buffer) is not in the bound; allow it on tiny models.
    assert meta["workspace_bytes"] <= max(1.10 * bound, bound + 64), meta


@needs_shared
@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.name)
def test_example_model_compiles_with_clang(model: Path, tmp_path: Path) -> None:
    if shutil.which("clang") is None:
        pytest.fail("clang is not installed (scripts/setup.sh installs it)")
    compile_model(model, tmp_path / "gen")
    compile_strict(tmp_path / "gen", "clang")
