"""RELU / RELU6 / LEAKY_RELU conformance against TFLite's reference kernels."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

SHAPES = [(9,), (3, 5), (2, 3, 4), (1, 4, 4, 3), (1, 1, 40), (2, 2, 2, 2, 3)]
ALPHAS = (0.2, 0.01, 0.3, 0.5, 0.0, 0.9, 1.5, -0.25)


def _scale(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(np.float32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def unary_case(op: str, dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = SHAPES[k % len(SHAPES)]
    qin: dict = {}
    qout: dict = {}
    if dtype != "float32":
        lo, hi = (1e-3, 0.1) if dtype == "int8" else (1e-5, 1e-2)
        qin = {"scale": _scale(rng, lo, hi), "zero_point": int(rng.integers(-128, 128)) if dtype == "int8" else 0}
        # output scale: same as input, or within 1/8 .. 4 of it
        s_out = qin["scale"] if k % 4 == 0 else float(np.float32(qin["scale"] * 2.0 ** rng.uniform(-3, 2)))
        qout = {"scale": s_out, "zero_point": int(rng.integers(-128, 128)) if dtype == "int8" else 0}
        if op == "RELU6" and k % 3 == 0:   # make the upper clamp bite: 6.0 well inside the range
            qout["scale"] = float(np.float32(6.0 / rng.uniform(20, 120) if dtype == "int8" else 6.0 / 20000))
    mb = ModelBuilder()
    x = mb.tensor(shape, dtype, **qin)
    y = mb.tensor(shape, dtype, **qout)
    opts = {"alpha": ALPHAS[k % len(ALPHAS)]} if op == "LEAKY_RELU" else None
    mb.operator(op, [x], [y], opts)
    model = mb.build([x], [y])
    inputs = random_inputs(model, seed)
    if dtype == "float32":
        inputs = [inputs[0] * 8.0]   # exercise the RELU6 upper bound
    return Case(model, inputs, f"{op} {dtype} {shape} {opts} {qin}->{qout} seed={seed}")


def _run(cases: list[Case], exact: bool = True) -> dict:
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    if exact:
        assert res["bit_exact"] == res["cases"]
    return res


@pytest.mark.parametrize("op", ["RELU", "RELU6", "LEAKY_RELU"])
def test_activation(op):
    cases = []
    for i, dtype in enumerate(("int8", "int16", "float32")):
        cases += [unary_case(op, dtype, k, 10000 * (i + 1) + 100 * len(op) + k) for k in range(32)]
    _run(cases)


SHARED_LEAKY = SHARED_MODELS / "ops" / "leaky_relu"


@pytest.mark.skipif(not SHARED_LEAKY.is_dir(), reason="../shared/models is not present")
def test_shared_leaky_relu_models():
    cases = []
    for p in sorted(SHARED_LEAKY.glob("*.tflite")):
        model = p.read_bytes()
        for seed in (1, 2):
            cases.append(Case(model, random_inputs(model, seed), f"{p.name} seed {seed}"))
    _run(cases)
