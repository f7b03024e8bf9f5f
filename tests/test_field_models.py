"""Issue 14 part 4: real models of the field compile and match the reference.

The models (tests/data/field_models/, made by the dev-only make_field_models.py with
TensorFlow's converter): MobileNetV2 and MobileNetV3-Small (int8 and float32), EfficientNet-B0's
blocks at width 0.25 (int8), a transformer encoder block, a YAMNet-style audio classifier and a
small U-Net (int8 and float32). int8: byte-identical to tflite-runtime's reference kernels;
float32: within 1e-5 x max|output| (harness.assert_matches).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import Case, check_against_oracle
from oracle import random_inputs

from utvm_build.compiler import compile_bytes
from utvm_build.options import CompileOptions

FIELD = Path(__file__).resolve().parent / "data" / "field_models"
MODELS = sorted(FIELD.glob("*.tflite"))
SEEDS = (0, 1, 2) if os.environ.get("UTVM_TEST_FULL") == "1" else (0,)
#: tflite-runtime 2.14's reference resolver aborts (SIGABRT, no message) while allocating these
#: three Keras-application int8 models (the TFLM interpreter of the tflite-micro package aborts on
#: the MobileNetV3 and EfficientNet ones too): the oracle is tflite-runtime's default builtin
#: resolver, which runs them.
BUILTIN_ORACLE = {"mobilenet_v2_int8", "mobilenet_v3_small_int8", "efficientnet_b0_w025_int8"}


def test_the_field_models_are_there() -> None:
    names = {p.stem for p in MODELS}
    for want in ("mobilenet_v2_int8", "mobilenet_v2_float", "mobilenet_v3_small_int8", "mobilenet_v3_small_float",
                 "efficientnet_b0_w025_int8", "transformer_block_int8", "transformer_block_float",
                 "yamnet_style_int8", "unet_int8", "unet_float"):
        assert want in names


@pytest.mark.parametrize("model", MODELS, ids=lambda p: p.stem)
def test_field_model_matches_reference(model: Path) -> None:
    data = model.read_bytes()
    cases = [Case(data, random_inputs(data, seed), f"{model.name} seed {seed}") for seed in SEEDS]
    counts = check_against_oracle(cases, builtin=model.stem in BUILTIN_ORACLE)
    if model.stem.endswith("_int8"):
        assert counts["bit_exact"] == counts["cases"]


@pytest.mark.parametrize("model", [m for m in MODELS if m.stem.endswith("_int8")], ids=lambda p: p.stem)
def test_field_model_compiles_for_cortex_m4(model: Path) -> None:
    compiled = compile_bytes(model.read_bytes(), "m", CompileOptions(target="cortex-m4"))
    assert compiled.metadata["workspace_bytes"] > 0
