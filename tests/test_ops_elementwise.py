"""ADD / SUB / MUL conformance against TFLite's reference kernels (int8, int16, float32)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
#: The reference aborts (SIGABRT) on broadcasts of higher rank: BroadcastAdd6DSlow,
#: BroadcastSubSlow<N=5>, BroadcastMul4DSlow. utvm-build handles any rank whose collapsed form fits
#: in 6 dimensions; only what the oracle can check is tested.
MAX_BCAST_RANK = {"ADD": 6, "SUB": 5, "MUL": 4}

SAME = [(8,), (3, 5), (2, 3, 4), (1, 4, 4, 3), (2, 2, 3, 2, 3), (1, 2, 2, 1, 2, 3), (1, 1, 17)]
BCAST = [
    ((2, 3, 4), (4,)), ((4,), (2, 3, 4)), ((1, 4, 4, 3), (1, 1, 1, 3)), ((1, 4, 4, 3), (1, 4, 1, 1)),
    ((3, 1, 5), (1, 4, 1)), ((1,), (2, 3)), ((2, 3), (1,)), ((2, 1, 3, 1), (4, 1, 5)),
    ((1, 1, 1, 1), (2, 3, 4, 5)), ((2, 3, 4, 5), (2, 1, 4, 1)), ((2, 1, 3, 1, 2), (1, 4, 1, 5, 1)),
    ((2, 1, 2, 1, 2, 1), (1, 2, 1, 2, 1, 2)), ((5, 1), (1, 6)), ((1, 2, 12, 8), (8,)),
]


def _scale(rng: np.random.Generator, lo: float = 1e-3, hi: float = 0.2) -> float:
    return float(np.float32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def _qparams(rng: np.random.Generator, dtype: str) -> dict:
    if dtype == "float32":
        return {}
    zp = 0 if dtype == "int16" else int(rng.integers(-128, 128))
    return {"scale": _scale(rng, 1e-3, 0.2) if dtype == "int8" else _scale(rng, 2e-5, 1e-2), "zero_point": zp}


def _rand_data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    if dtype == "float32":
        return rng.uniform(-2, 2, size=shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)


def binary_case(op: str, dtype: str, shape1, shape2, seed: int, act: str = "NONE", const2: bool = False,
                q: tuple[dict, dict, dict] | None = None, pot: bool | None = None) -> Case:
    rng = np.random.default_rng(seed)
    out_shape = tuple(np.broadcast_shapes(tuple(shape1), tuple(shape2)))
    q1, q2, qo = q if q is not None else (_qparams(rng, dtype), _qparams(rng, dtype), _qparams(rng, dtype))
    if op == "MUL" and dtype != "float32" and q is None:
        # keep the float range of the product representable: s_out ~ s1 * s2 * k
        qo["scale"] = float(np.float32(q1["scale"] * q2["scale"] * (128 if dtype == "int8" else 32768)
                                       * rng.uniform(0.05, 1.5)))
    mb = ModelBuilder()
    a = mb.tensor(shape1, dtype, **q1)
    b = mb.tensor(shape2, dtype, data=_rand_data(rng, shape2, dtype) if const2 else None, **q2)
    o = mb.tensor(out_shape, dtype, **qo)
    opts = {"fused_activation_function": act}
    if op in ("ADD", "SUB") and pot is not None:
        opts["pot_scale_int16"] = pot
    mb.operator(op, [a, b], [o], opts)
    model = mb.build([a] if const2 else [a, b], [o])
    label = f"{op} {dtype} {shape1}x{shape2} {act} const2={const2} q={q1},{q2},{qo} seed={seed}"
    return Case(model, random_inputs(model, seed), label)


def random_cases(op: str, dtype: str, n: int, seed0: int) -> list[Case]:
    cases = []
    for k in range(n):
        seed = seed0 + k
        rng = np.random.default_rng(seed * 7 + 1)
        if k % 3 == 0:
            s = SAME[k // 3 % len(SAME)]
            s1, s2 = s, s
        else:
            s1, s2 = BCAST[k % len(BCAST)]
            j = k
            while max(len(s1), len(s2)) > MAX_BCAST_RANK[op]:
                j += 1
                s1, s2 = BCAST[j % len(BCAST)]
        act = ACTS[k % len(ACTS)] if k % 2 else "NONE"
        const2 = k % 5 == 4
        cases.append(binary_case(op, dtype, s1, s2, seed, act, const2,
                                 pot=bool(rng.integers(0, 2)) if dtype == "int16" else None))
    return cases


def pot_cases(op: str, n: int, seed0: int) -> list[Case]:
    """int16 with power-of-two scales and pot_scale_int16: the fixed-point path."""
    cases = []
    for k in range(n):
        rng = np.random.default_rng(seed0 + k)
        e_out = int(rng.integers(-14, -6))
        shift = int(rng.integers(0, 5))
        e = [e_out, e_out - shift] if k % 2 else [e_out - shift, e_out]
        q = tuple({"scale": 2.0 ** x, "zero_point": 0} for x in (*e, e_out))
        s = SAME[k % len(SAME)]
        act = ACTS[k % len(ACTS)]
        cases.append(binary_case(op, "int16", s, s, seed0 + k, act, const2=k % 4 == 3, q=q, pot=True))
    return cases


def _run(cases: list[Case]) -> dict:
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    return res


@pytest.mark.parametrize("op", ["ADD", "SUB"])
def test_add_sub_int8(op):
    res = _run(random_cases(op, "int8", 36, 100))
    assert res["bit_exact"] == res["cases"]


@pytest.mark.parametrize("op", ["ADD", "SUB"])
def test_add_sub_int16(op):
    res = _run(random_cases(op, "int16", 32, 200) + pot_cases(op, 14, 300))
    assert res["bit_exact"] == res["cases"]


@pytest.mark.parametrize("op", ["ADD", "SUB"])
def test_add_sub_float32(op):
    _run(random_cases(op, "float32", 32, 400))


def test_mul_int8():
    res = _run(random_cases("MUL", "int8", 36, 500))
    assert res["bit_exact"] == res["cases"]


def test_mul_int16():
    res = _run(random_cases("MUL", "int16", 34, 600))
    assert res["bit_exact"] == res["cases"]


def test_mul_float32():
    _run(random_cases("MUL", "float32", 32, 700))


def test_quant_extremes():
    """Equal scales, one scale much larger, extreme zero points."""
    cases = []
    for k, (s1, s2, so, z1, z2, zo) in enumerate([
        (0.05, 0.05, 0.05, 0, 0, 0), (0.5, 0.001, 0.3, -128, 127, 5), (0.001, 0.5, 0.6, 127, -128, -128),
        (0.01, 0.02, 0.0301, -1, 1, 127),
    ]):
        q = ({"scale": s1, "zero_point": z1}, {"scale": s2, "zero_point": z2}, {"scale": so, "zero_point": zo})
        for op in ("ADD", "SUB"):
            cases.append(binary_case(op, "int8", (2, 3, 8), (3, 8), 900 + k, ACTS[k], q=q))
    _run(cases)


SHARED_OPS = SHARED_MODELS / "ops"


@pytest.mark.skipif(not SHARED_OPS.is_dir(), reason="../shared/models is not present")
def test_shared_add_sub_models():
    paths = sorted((SHARED_OPS / "add").glob("*.tflite")) + sorted((SHARED_OPS / "sub").glob("*.tflite"))
    paths.append(SHARED_MODELS / "examples" / "simple_add_model.tflite")
    cases = []
    for p in paths:
        model = p.read_bytes()
        for seed in (1, 2):
            cases.append(Case(model, random_inputs(model, seed), f"{p.name} seed {seed}"))
    res = _run(cases)
    assert res["bit_exact"] == res["cases"]
