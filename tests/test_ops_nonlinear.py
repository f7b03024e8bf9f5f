"""SOFTMAX / LOGISTIC / TANH conformance against TFLite's reference kernels."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

from utvm_build.errors import UtvmError

SHAPES = [(1, 10), (4, 7), (2, 3, 16), (1, 2, 2, 33), (300,), (1, 1, 1, 2), (3, 64), (2, 2, 2, 2, 5)]
BETAS = (1.0, 0.5, 2.0, 0.1, 1.7, 3.0, 0.25, 1.0e-2)
F32 = np.float32


def _scale(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(F32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def _int_input(rng: np.random.Generator, shape: tuple, dtype: str, k: int) -> np.ndarray:
    """Random values, every int8 value at least once where the tensor is big enough."""
    info = np.iinfo(dtype)
    n = int(np.prod(shape))
    if dtype == "int8" and n >= 256:
        x = np.concatenate([np.arange(-128, 128), rng.integers(-128, 128, n - 256)]).astype(np.int8)
        return rng.permutation(x).reshape(shape)
    if k % 3 == 1:   # values close together: many near the row maximum
        center = int(rng.integers(info.min // 2, info.max // 2))
        spread = 20 if dtype == "int8" else 3000
        vals = np.clip(rng.integers(center - spread, center + spread, n), info.min, info.max)
        return vals.astype(dtype).reshape(shape)
    return rng.integers(info.min, info.max + 1, n).astype(dtype).reshape(shape)


def softmax_case(dtype: str, k: int, seed: int, out_dtype: str | None = None) -> Case:
    rng = np.random.default_rng(seed)
    shape = SHAPES[k % len(SHAPES)]
    if dtype == "int16" and len(shape) > 4:
        shape = (2, 3, 7)
    beta = BETAS[k % len(BETAS)]
    out_dtype = out_dtype or dtype
    mb = ModelBuilder()
    if dtype == "float32":
        x = mb.tensor(shape, dtype)
        y = mb.tensor(shape, dtype)
        inputs = [(rng.standard_normal(shape) * rng.uniform(0.5, 8)).astype(F32)]
    elif dtype == "int8":
        s = _scale(rng, 0.01, 0.5)
        x = mb.tensor(shape, "int8", scale=s, zero_point=int(rng.integers(-128, 128)))
        yq = {"int8": (1 / 256, -128), "int16": (1 / 65536, -32768)}[out_dtype]
        y = mb.tensor(shape, out_dtype, scale=yq[0], zero_point=yq[1])
        inputs = [_int_input(rng, shape, "int8", k)]
    else:
        s = _scale(rng, 1e-4, 2e-3)
        x = mb.tensor(shape, "int16", scale=s, zero_point=0)
        y = mb.tensor(shape, "int16", scale=1 / 32768, zero_point=0)
        inputs = [_int_input(rng, shape, "int16", k)]
    mb.operator("SOFTMAX", [x], [y], {"beta": beta})
    return Case(mb.build([x], [y]), inputs, f"SOFTMAX {dtype}->{out_dtype} {shape} beta={beta} seed={seed}")


def unary_case(op: str, dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = SHAPES[k % len(SHAPES)]
    mb = ModelBuilder()
    if dtype == "float32":
        x = mb.tensor(shape, dtype)
        y = mb.tensor(shape, dtype)
        inputs = [(rng.standard_normal(shape) * rng.uniform(1, 12)).astype(F32)]
        label = ""
    elif dtype == "int8":
        s_in = _scale(rng, 0.005, 0.3)
        zp_in = int(rng.integers(-128, 128))
        if op == "LOGISTIC":
            s_out, zp_out = 1 / 256, (-128 if k % 4 else int(rng.integers(-128, 0)))
        elif k % 3 == 0:
            s_out, zp_out = _scale(rng, 1 / 256, 1 / 32), int(rng.integers(-64, 64))
        else:
            s_out, zp_out = 1 / 128, 0
        x = mb.tensor(shape, dtype, scale=s_in, zero_point=zp_in)
        y = mb.tensor(shape, dtype, scale=s_out, zero_point=zp_out)
        inputs = [_int_input(rng, shape, dtype, k)]
        label = f"in ({s_in:.6g}, {zp_in}) out ({s_out:.6g}, {zp_out})"
    else:
        pots = [2.0 ** -12] + ([2.0 ** -11] if op == "TANH" else [])
        s_in = pots[k % len(pots)] if k % 3 == 0 else _scale(rng, 2e-5, 1e-3)
        x = mb.tensor(shape, dtype, scale=s_in, zero_point=0)
        y = mb.tensor(shape, dtype, scale=1 / 32768, zero_point=0)
        inputs = [_int_input(rng, shape, dtype, k)]
        label = f"in scale {s_in:.6g}"
    mb.operator(op, [x], [y])
    return Case(mb.build([x], [y]), inputs, f"{op} {dtype} {shape} {label} seed={seed}")


def _run(cases: list[Case]) -> dict:
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    return res


def test_softmax():
    cases = [softmax_case("int8", k, 100 + k) for k in range(40)]
    cases += [softmax_case("int8", k, 200 + k, out_dtype="int16") for k in range(32)]
    cases += [softmax_case("int16", k, 300 + k) for k in range(36)]
    cases += [softmax_case("float32", k, 400 + k) for k in range(32)]
    res = _run(cases)
    assert res["bit_exact"] >= len(cases) - 32   # float32 within tolerance, integers exact


@pytest.mark.parametrize("op", ["LOGISTIC", "TANH"])
def test_logistic_tanh(op):
    cases = []
    for i, dtype in enumerate(("int8", "int16", "float32")):
        cases += [unary_case(op, dtype, k, 1000 * (i + 1) + 37 * len(op) + k) for k in range(36)]
    res = _run(cases)
    assert res["bit_exact"] >= len(cases) - 36


def test_rejections():
    from utvm_build.compiler import compile_bytes

    def model(op, dtype, s_in, zp_in, s_out, zp_out, out_dtype=None, opts=None):
        mb = ModelBuilder()
        x = mb.tensor((1, 8), dtype, scale=s_in, zero_point=zp_in)
        y = mb.tensor((1, 8), out_dtype or dtype, scale=s_out, zero_point=zp_out)
        mb.operator(op, [x], [y], opts)
        return mb.build([x], [y])

    bad = [
        model("SOFTMAX", "int8", 0.1, 0, 1 / 128, -128, opts={"beta": 1.0}),     # wrong output scale
        model("SOFTMAX", "int16", 0.001, 3, 1 / 32768, 0, opts={"beta": 1.0}),   # int16 zero point
        model("LOGISTIC", "int8", 0.1, 0, 1 / 128, -128),                        # logistic scale
        model("TANH", "int16", 0.001, 0, 1 / 16384, 0),                          # output scale
    ]
    for m in bad:
        with pytest.raises(UtvmError):
            compile_bytes(m, "bad")


EXAMPLES = SHARED_MODELS / "examples"


@pytest.mark.skipif(not (EXAMPLES / "micro_speech_quantized.tflite").is_file(), reason="shared models absent")
def test_micro_speech_softmax_cutout():
    """The SOFTMAX of micro_speech (int8 [1,4], input (0.0917, 14)), all 256 input values."""
    cases = []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        mb = ModelBuilder()
        x = mb.tensor((64, 4), "int8", scale=0.09173192083835602, zero_point=14)
        y = mb.tensor((64, 4), "int8", scale=1 / 256, zero_point=-128)
        mb.operator("SOFTMAX", [x], [y], {"beta": 1.0})
        cases.append(Case(mb.build([x], [y]), [_int_input(rng, (64, 4), "int8", 0)], f"micro_speech softmax {seed}"))
    res = _run(cases)
    assert res["bit_exact"] == len(cases)
