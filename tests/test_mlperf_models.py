"""The MLPerf Tiny networks of benchmarks/mlperf_tiny.py: deterministic, bit-exact, planned tightly.

Each model is generated twice (byte-identical), compiled with utvm-build, built with sanitizers and
run on the host for a few seeded random inputs, and compared byte for byte with tflite-runtime's
reference kernels. The reference outputs must not be degenerate (they change with the input and do
not sit at the int8 limits), and the architecture fingerprints (weight bytes, MACs, activation lower
bound) must stay those of the MLPerf Tiny reference networks.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from harness import Case, assert_matches, record, run_cases

from utvm_build.compiler import compile_bytes

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)  # benchmarks/ is not an installed package
from benchmarks import mlperf_tiny  # noqa: E402

SEEDS = (0, 1, 2)

#: name -> (int8 weights + int32 biases in bytes, MACs of the conv/FC layers, activation lower bound)
#: The lower bound is the largest sum of intermediate tensors alive at one step: KWS 2 x 25x5x64,
#: VWW 48x48x8 + 48x48x16 (first pointwise conv), ResNet-8 3 x 32x32x16 (first stack), AD 128 + 128.
EXPECTED = {
    "kws_dscnn": (24_368, 2_656_768, 16_000),
    "vww_mobilenet": (219_064, 7_489_664, 55_296),
    "ic_resnet8": (78_744, 12_501_632, 49_152),
    "ad_autoencoder": (270_880, 264_192, 256),
}
#: MLPerf Tiny paper / reference figures: MACs, weights+biases (KiB)
ANCHORS = {
    "kws_dscnn": (2.66e6, 24),
    "vww_mobilenet": (7.49e6, 214),
    "ic_resnet8": (12.5e6, 77),
    "ad_autoencoder": (0.26e6, 265),
}


def test_model_table() -> None:
    assert sorted(mlperf_tiny.MODELS) == sorted(EXPECTED)


def test_write_models_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = mlperf_tiny.write_models(tmp_path / "a")
    assert sorted(paths) == sorted(EXPECTED)
    assert mlperf_tiny.main(["--out", str(tmp_path / "b")]) == 0
    assert "kws_dscnn.tflite" in capsys.readouterr().out
    for name, path in paths.items():
        assert path == tmp_path / "a" / f"{name}.tflite"
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_mlperf_model(name: str) -> None:
    from oracle import model_io, random_inputs, reference_outputs_many

    make = mlperf_tiny.MODELS[name]
    data = make()
    assert make() == data, f"{name}: two builds differ"

    io = model_io(data)
    assert [t.dtype for t in io.inputs + io.outputs] == [np.dtype(np.int8)] * 2

    weights, macs, bound = EXPECTED[name]
    anchor_macs, anchor_kib = ANCHORS[name]
    assert mlperf_tiny.weight_bytes(name) == weights
    assert abs(weights / 1024 - anchor_kib) <= 0.02 * anchor_kib
    assert abs(macs - anchor_macs) <= 0.02 * anchor_macs
    meta = compile_bytes(data, name).metadata
    # utvm-build also counts pooling and additions (one per output value): at most 0.3 % more
    assert macs <= meta["macs"] <= 1.003 * macs, meta["macs"]
    assert meta["workspace_lower_bound_bytes"] == bound
    assert meta["workspace_bytes"] <= max(1.02 * bound, bound + 64), meta

    cases = [Case(data, random_inputs(data, seed), f"{name} seed {seed}") for seed in SEEDS]
    refs = reference_outputs_many([(c.model, c.inputs) for c in cases])
    for case, ref in zip(cases, refs):
        assert not isinstance(ref, Exception), f"{case.label}: oracle failed: {ref}"
    ref_out = [np.asarray(r[0]).ravel() for r in refs]
    for i in range(len(ref_out)):
        inner = np.count_nonzero((ref_out[i] > -128) & (ref_out[i] < 127))
        assert inner >= min(2, ref_out[i].size), f"{name}: degenerate output {ref_out[i][:16]}"
        for j in range(i):
            assert not np.array_equal(ref_out[i], ref_out[j]), f"{name}: seeds {i} and {j} give the same output"

    ours = run_cases(cases)
    for case, mine, ref in zip(cases, ours, refs):
        for i, (o, r) in enumerate(zip(mine, ref)):
            assert_matches(o, np.asarray(r), f"{case.label} output {i}")
    record(len(cases), len(cases))
