"""MEAN conformance against TFLite's reference kernels (int8/int16: integer QuantizedMeanOrSum)."""

from __future__ import annotations

import numpy as np
import pytest
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

from utvm_build.errors import UtvmError

F32 = np.float32
# (input shape, axes); keep_dims alternates
GEOMETRY = [
    ((1, 5, 7, 3), [1, 2]), ((2, 4, 4, 8), [2, 1]), ((3, 6, 5, 2), [1, 2]), ((1, 10), [1]), ((4, 9), [0]),
    ((2, 3, 4), [-1]), ((2, 3, 4), [0, 2]), ((5,), [0]), ((2, 3, 4, 5), [3]), ((2, 3, 4, 5), [0, 3]),
    ((2, 3, 4, 5), [1, -2]), ((1, 3, 4, 5), [-3, -2]), ((2, 2, 3, 2, 3), [1, 3]), ((6, 7), [0, 1]),
    ((2, 3, 4), [1, 1]), ((3, 1, 2, 7), [3, 0, 1]), ((1, 25, 20, 8), [1, 2]), ((1, 700), [-1]),
]


def _scale(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(F32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def _out_shape(shape, axes, keep):
    res = {a % len(shape) for a in axes}
    if keep:
        return tuple(1 if d in res else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in res)


def mean_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape, axes = GEOMETRY[k % len(GEOMETRY)]
    keep = (k // len(GEOMETRY)) % 2 == 0 if len(shape) != 4 or sorted(axes) != [1, 2] else k % 3 != 2
    out_shape = _out_shape(shape, axes, keep)
    mb = ModelBuilder()
    q_in: dict = {}
    q_out: dict = {}
    if dtype != "float32":
        info = np.iinfo(dtype)
        s = _scale(rng, 0.01, 0.1) if dtype == "int8" else _scale(rng, 1e-4, 1e-3)
        zp = int(rng.integers(-100, 100)) if dtype == "int8" else 0
        q_in = {"scale": s, "zero_point": zp}
        if k % 3 == 0:
            q_out = dict(q_in)
        else:
            q_out = {"scale": float(F32(s * rng.uniform(0.3, 2.5))),
                     "zero_point": int(rng.integers(-100, 100)) if dtype == "int8" else 0}
        x_data = rng.integers(info.min, info.max + 1, shape).astype(dtype)
    else:
        x_data = (rng.standard_normal(shape) * 3).astype(F32)
    x = mb.tensor(shape, dtype, **q_in)
    ax = mb.tensor((len(axes),), "int32", data=np.array(axes, dtype=np.int32))
    y = mb.tensor(out_shape, dtype, **q_out)
    mb.operator("MEAN", [x, ax], [y], {"keep_dims": keep})
    return Case(mb.build([x], [y]), [x_data], f"MEAN {dtype} {shape} axes={axes} keep={keep} {q_in}->{q_out}")


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_mean(dtype):
    seed0 = {"int8": 100, "int16": 200, "float32": 300}[dtype]
    cases = [mean_case(dtype, k, seed0 + k) for k in range(54)]
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    if dtype != "float32":
        assert res["bit_exact"] == len(cases)


def test_mean_rejections():
    from utvm_build.compiler import compile_bytes

    mb = ModelBuilder()
    x = mb.tensor((2, 3), "int16", scale=0.01, zero_point=1)
    ax = mb.tensor((1,), "int32", data=np.array([1], dtype=np.int32))
    y = mb.tensor((2,), "int16", scale=0.01, zero_point=1)
    mb.operator("MEAN", [x, ax], [y], {"keep_dims": False})
    with pytest.raises(UtvmError):
        compile_bytes(mb.build([x], [y]), "bad")
