"""AVERAGE_POOL_2D / MAX_POOL_2D conformance against TFLite's reference kernels."""

from __future__ import annotations

import numpy as np
import pytest
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
DTYPES = ("int8", "int16", "float32")


def _out(size: int, f: int, s: int, padding: str) -> int:
    return (size + s - 1) // s if padding == "SAME" else (size - f + s) // s


def pool_case(op: str, dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = 1 + int(k % 7 == 3)
    c = int(rng.choice([1, 2, 3, 5, 8]))
    fh, fw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    if k % 5 == 0:   # global pooling
        fh, fw, sh, sw = 0, 0, 1, 1
    padding = "SAME" if k % 2 else "VALID"
    h, w = int(rng.integers(1, 11)), int(rng.integers(1, 11))
    if fh == 0:
        fh, fw = h, w
    if padding == "VALID":
        h, w = max(h, fh), max(w, fw)
    else:   # keep every window non-empty (the reference AveragePool fails otherwise)
        fh, fw = min(fh, 2 * h), min(fw, 2 * w)
    act = ACTS[(k // 2) % len(ACTS)]
    q: dict = {}
    if dtype == "int8":
        q = {"scale": float(np.float32(rng.uniform(0.005, 0.05))), "zero_point": int(rng.integers(-100, 100))}
    elif dtype == "int16":
        q = {"scale": float(np.float32(rng.uniform(5e-5, 5e-4))), "zero_point": 0}
    qout = dict(q)
    if dtype == "int8" and k % 9 == 8:
        # pooling.cc only DCHECKs equal input/output quantization: the reference passes values
        # through unchanged and clamps with the output's activation range
        qout = {"scale": q["scale"] * 2, "zero_point": int(rng.integers(-100, 100))}
    mb = ModelBuilder()
    x = mb.tensor([n, h, w, c], dtype, **q)
    y = mb.tensor([n, _out(h, fh, sh, padding), _out(w, fw, sw, padding), c], dtype, **qout)
    opts = {"padding": padding, "stride_h": sh, "stride_w": sw, "filter_height": fh, "filter_width": fw,
            "fused_activation_function": act}
    mb.operator(op, [x], [y], opts)
    model = mb.build([x], [y])
    inputs = random_inputs(model, seed)
    if dtype == "float32":
        inputs = [inputs[0] * 8.0]
    return Case(model, inputs, f"{op} {dtype} {[n, h, w, c]} {opts} {q} seed={seed}")


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
def test_pool(op):
    cases = []
    for i, dtype in enumerate(DTYPES):
        cases += [pool_case(op, dtype, k, 1000 * (i + 1) + 100 * len(op) + k) for k in range(36)]
    res = check_against_oracle(cases)
    print(f"{op}: {res['cases']} cases, {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == res["cases"]


def test_pool_rejections():
    mb = ModelBuilder()
    x = mb.tensor([1, 4, 4, 1], "int8", scale=0.1, zero_point=0)
    y = mb.tensor([1, 4, 4, 1], "int8", scale=0.1, zero_point=0)
    mb.operator("AVERAGE_POOL_2D", [x], [y], {"padding": "SAME", "stride_h": 1, "stride_w": 1,
                                              "filter_height": 3, "filter_width": 3,
                                              "fused_activation_function": "TANH"})
    with pytest.raises(UnsupportedError, match="fused activation"):
        compile_bytes(mb.build([x], [y]), "m")
    mb = ModelBuilder()
    x = mb.tensor([1, 4, 4, 1], "float32")
    y = mb.tensor([1, 3, 3, 1], "float32")
    mb.operator("MAX_POOL_2D", [x], [y], {"padding": "SAME", "stride_h": 1, "stride_w": 1,
                                          "filter_height": 2, "filter_width": 2})
    with pytest.raises(UnsupportedError, match="output shape"):
        compile_bytes(mb.build([x], [y]), "m")
