"""QUANTIZE / DEQUANTIZE conformance against TFLite's reference kernels.

Oracle: tflite-runtime 2.14 BUILTIN_REF; TFLite Micro's interpreter (PyPI tflite-micro) for the
requantize pairs only TFLM accepts (int8 -> int16, int8 -> int32).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, assert_matches, check_against_oracle, record, run_cases
from oracle import micro_reference_outputs_many, random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

SHAPES = [(7,), (3, 5), (2, 3, 4), (1, 4, 4, 3), (1, 1, 33), (2, 2, 2, 2, 3)]


def _q(rng: np.random.Generator, dtype: str, lo: float = 1e-4, hi: float = 0.1) -> dict:
    scale = float(np.float32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))
    zp = int(rng.integers(-128, 128)) if dtype == "int8" else int(rng.integers(0, 256)) if dtype == "uint8" else 0
    return {"scale": scale, "zero_point": zp}


def single(op: str, shape, in_dtype: str, qin: dict, out_dtype: str, qout: dict, seed: int,
           inputs: list[np.ndarray] | None = None) -> Case:
    mb = ModelBuilder()
    x = mb.tensor(shape, in_dtype, **qin)
    y = mb.tensor(shape, out_dtype, **qout)
    mb.operator(op, [x], [y])
    model = mb.build([x], [y])
    label = f"{op} {in_dtype}{qin}->{out_dtype}{qout} {shape} seed={seed}"
    return Case(model, inputs if inputs is not None else random_inputs(model, seed), label)


def _float_input(rng: np.random.Generator, shape, scale: float, zp: int, dtype: str) -> np.ndarray:
    """Floats spanning past the representable range, plus exact rounding ties (k + 0.5) * scale."""
    lo, hi = np.iinfo(dtype).min, np.iinfo(dtype).max
    span = (hi - lo) * scale
    x = rng.uniform(-0.7 * span, 0.7 * span, size=shape).astype(np.float32)
    flat = x.reshape(-1)
    k = rng.integers(lo - zp, hi - zp, size=flat.size // 3)
    flat[: k.size] = ((k + 0.5) * np.float64(scale)).astype(np.float32)
    return x


def quantize_float_cases(out_dtype: str, n: int, seed0: int) -> list[Case]:
    cases = []
    for k in range(n):
        rng = np.random.default_rng(seed0 + k)
        shape = SHAPES[k % len(SHAPES)]
        q = _q(rng, out_dtype, 1e-4 if out_dtype == "int16" else 1e-3, 0.1)
        x = _float_input(rng, shape, q["scale"], q["zero_point"], out_dtype)
        cases.append(single("QUANTIZE", shape, "float32", {}, out_dtype, q, seed0 + k, [x]))
    return cases


def requantize_cases(in_dtype: str, out_dtype: str, n: int, seed0: int) -> list[Case]:
    cases = []
    for k in range(n):
        rng = np.random.default_rng(seed0 + k)
        shape = SHAPES[k % len(SHAPES)]
        qin = _q(rng, in_dtype, 1e-4, 0.1)
        # output scale within 2^-6 .. 2^6 of a scale that maps the input range onto the output
        ratio = (np.iinfo(in_dtype).max - np.iinfo(in_dtype).min) / (np.iinfo(out_dtype).max - np.iinfo(out_dtype).min)
        qout = {"scale": float(np.float32(qin["scale"] * ratio * 2.0 ** rng.uniform(-6, 6))),
                "zero_point": _q(rng, out_dtype)["zero_point"]}
        if k % 7 == 0:
            qout["scale"] = qin["scale"]   # same scale: multiplier 2^30, shift 1
            if {in_dtype, out_dtype} == {"int8", "uint8"}:   # the reference's in ^ 0x80 fast path
                zin = int(rng.integers(0, 128)) if in_dtype == "uint8" else int(rng.integers(-128, 0))
                qin["zero_point"] = zin
                qout["zero_point"] = zin + 128 if out_dtype == "uint8" else zin - 128
        cases.append(single("QUANTIZE", shape, in_dtype, qin, out_dtype, qout, seed0 + k))
    return cases


def dequantize_cases(in_dtype: str, n: int, seed0: int) -> list[Case]:
    cases = []
    for k in range(n):
        rng = np.random.default_rng(seed0 + k)
        shape = SHAPES[k % len(SHAPES)]
        cases.append(single("DEQUANTIZE", shape, in_dtype, _q(rng, in_dtype, 1e-5, 1.0), "float32", {}, seed0 + k))
    return cases


def _run(cases: list[Case], exact: bool = True) -> dict:
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    if exact:
        assert res["bit_exact"] == res["cases"]
    return res


def _run_tflm(cases: list[Case]) -> None:
    """Every case byte-identical to TFLite Micro's interpreter."""
    refs = micro_reference_outputs_many([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    for case, mine, ref in zip(cases, ours, refs):
        assert not isinstance(ref, Exception), f"{case.label}: TFLM failed: {ref}"
        for i, (o, r) in enumerate(zip(mine, ref)):
            assert_matches(o, np.asarray(r), f"{case.label} output {i}", 0.0)
            assert np.array_equal(o, np.asarray(r).reshape(o.shape)), case.label
    record(len(cases), len(cases))
    print(f"{len(cases)} cases, all bit-exact against TFLM")


@pytest.mark.parametrize("out_dtype", ["int8", "int16"])
def test_quantize_float(out_dtype):
    _run(quantize_float_cases(out_dtype, 32, 1000 if out_dtype == "int8" else 2000))


def test_requantize():
    cases = []
    for i, (a, b) in enumerate([("int8", "int8"), ("int16", "int8"), ("int16", "int16"), ("int16", "int32"),
                                ("int32", "int8"), ("int32", "int16")]):
        cases += requantize_cases(a, b, 30, 3000 + 100 * i)
    _run(cases)


def test_requantize_uint8():
    """int8 <-> uint8 (microWakeWord's last operator is QUANTIZE int8 -> uint8), including the
    reference's same-scale "xor 0x80" fast path."""
    cases = requantize_cases("int8", "uint8", 30, 3700) + requantize_cases("uint8", "int8", 30, 3800)
    _run(cases)


def test_requantize_tflm_only():
    """int8 -> int16 / int32: pairs TFLM's quantize kernel accepts and TFLite's does not."""
    _run_tflm(requantize_cases("int8", "int16", 20, 3900) + requantize_cases("int8", "int32", 20, 3950))


@pytest.mark.parametrize("in_dtype", ["int8", "uint8", "int16"])
def test_dequantize(in_dtype):
    _run(dequantize_cases(in_dtype, 32, {"int8": 5000, "uint8": 5500, "int16": 6000}[in_dtype]))


def test_unsupported_pairs():
    for a, b in [("uint8", "uint8"), ("float32", "uint8"), ("int16", "uint8"), ("float32", "int32")]:
        qin = {} if a == "float32" else {"scale": 0.1, "zero_point": 0}
        case = single("QUANTIZE", (4,), a, qin, b, {"scale": 0.1, "zero_point": 0}, 0, [np.zeros(4)])
        with pytest.raises(UnsupportedError):
            compile_bytes(case.model, "m")


SHARED_QUANTIZE = SHARED_MODELS / "ops" / "quantize"


@pytest.mark.skipif(not SHARED_QUANTIZE.is_dir(), reason="../shared/models is not present")
def test_shared_quantize_models():
    cases = []
    for p in sorted(SHARED_QUANTIZE.glob("*.tflite")):
        model = p.read_bytes()
        for seed in (1, 2):
            cases.append(Case(model, random_inputs(model, seed), f"{p.name} seed {seed}"))
    _run(cases)
