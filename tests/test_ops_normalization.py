"""L2_NORMALIZATION, L2_POOL_2D, LOG_SOFTMAX against tflite-runtime 2.14 BUILTIN_REF.

int8 byte-identical; float32 within 1e-5 x max|output| (sqrt, exp and log come from the C library:
bit-exact where it rounds as the reference's does; the count is printed).
``UTVM_TEST_FULL=1``: 24 cases per (operator, type), CI 4.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

F32 = np.float32
N = 24 if os.environ.get("UTVM_TEST_FULL") == "1" else 4
SHAPES = [(1, 8), (3, 5), (2, 3, 4), (1, 2, 2, 16), (7,), (4, 1), (2, 1, 1, 300), (1, 4, 4, 3)]


def l2norm_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = SHAPES[k % len(SHAPES)]
    mb = ModelBuilder()
    if dtype == "int8":
        zp = int(rng.choice([-128, 127, 0, int(rng.integers(-128, 128))]))
        x = mb.tensor(shape, "int8", scale=float(F32(rng.uniform(0.01, 0.5))), zero_point=zp)
        y = mb.tensor(shape, "int8", scale=1.0 / 128.0, zero_point=0)
        data = rng.integers(-128, 128, shape).astype(np.int8)
        if k % 5 == 4:
            data[...] = zp  # all-zero rows: the inverse square root of 0
            data.reshape(-1)[0] = np.int8(max(-128, min(127, zp + 1)))
    else:
        x = mb.tensor(shape, "float32")
        y = mb.tensor(shape, "float32")
        data = (rng.standard_normal(shape) * rng.uniform(0.01, 10)).astype(F32)
        if k % 5 == 4:
            data[..., :] = 0
    mb.operator("L2_NORMALIZATION", [x], [y], {"fused_activation_function": "NONE"})
    return Case(mb.build([x], [y]), [data], f"L2_NORMALIZATION {dtype} {shape}")


def l2pool_case(k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n, h, w, c = [(1, 5, 5, 3), (2, 6, 4, 2), (1, 7, 7, 1), (1, 3, 8, 4)][k % 4]
    fh, fw = [(2, 2), (3, 3), (1, 2), (3, 1)][k % 4]
    s = 1 + k % 2
    padding = "VALID" if k % 3 == 0 else "SAME"
    act = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"][k % 4]
    if padding == "SAME":
        oh, ow = -(-h // s), -(-w // s)
    else:
        oh, ow = (h - fh) // s + 1, (w - fw) // s + 1
    mb = ModelBuilder()
    x = mb.tensor((n, h, w, c), "float32")
    y = mb.tensor((n, oh, ow, c), "float32")
    mb.operator("L2_POOL_2D", [x], [y], {"padding": padding, "stride_h": s, "stride_w": s, "filter_height": fh,
                                         "filter_width": fw, "fused_activation_function": act})
    return Case(mb.build([x], [y]), [rng.standard_normal((n, h, w, c)).astype(F32) * 3],
                f"L2_POOL_2D {(n, h, w, c)} f{fh}x{fw} s{s} {padding} {act}")


def log_softmax_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    shape = SHAPES[k % len(SHAPES)]
    mb = ModelBuilder()
    if dtype == "int8":
        x = mb.tensor(shape, "int8", scale=float(F32(rng.uniform(0.002, 0.1))), zero_point=int(rng.integers(-128, 128)))
        y = mb.tensor(shape, "int8", scale=16.0 / 256.0, zero_point=127)
        data = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = mb.tensor(shape, "float32")
        y = mb.tensor(shape, "float32")
        data = (rng.standard_normal(shape) * rng.uniform(0.1, 20)).astype(F32)
    mb.operator("LOG_SOFTMAX", [x], [y])
    return Case(mb.build([x], [y]), [data], f"LOG_SOFTMAX {dtype} {shape}")


def test_normalization_family():
    groups = {
        "L2_NORMALIZATION float32": [l2norm_case("float32", k, 100 + k) for k in range(N)],
        "L2_NORMALIZATION int8": [l2norm_case("int8", k, 200 + k) for k in range(N)],
        "L2_POOL_2D float32": [l2pool_case(k, 300 + k) for k in range(N)],
        "LOG_SOFTMAX float32": [log_softmax_case("float32", k, 400 + k) for k in range(N)],
        "LOG_SOFTMAX int8": [log_softmax_case("int8", k, 500 + k) for k in range(N)],
    }
    cases = [c for cs in groups.values() for c in cs]
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases ({', '.join(f'{k}: {len(v)}' for k, v in groups.items())}), "
          f"{res['bit_exact']} bit-exact")
    n_int = sum(len(v) for k, v in groups.items() if "int8" in k)
    assert res["bit_exact"] >= n_int


def test_normalization_rejections():
    mb = ModelBuilder()
    x = mb.tensor((2, 4), "int8", scale=0.1, zero_point=0)
    y = mb.tensor((2, 4), "int8", scale=0.1, zero_point=0)
    mb.operator("L2_NORMALIZATION", [x], [y], {"fused_activation_function": "NONE"})
    with pytest.raises(UtvmError, match="1/128") as e:
        compile_bytes(mb.build([x], [y]), "m")
    assert "\n" not in str(e.value)
    mb = ModelBuilder()
    x = mb.tensor((1, 4, 4, 2), "int8", scale=0.1, zero_point=0)
    y = mb.tensor((1, 2, 2, 2), "int8", scale=0.1, zero_point=0)
    mb.operator("L2_POOL_2D", [x], [y], {"padding": "VALID", "stride_h": 2, "stride_w": 2, "filter_height": 2,
                                         "filter_width": 2})
    with pytest.raises(UtvmError, match="supported: float32"):
        compile_bytes(mb.build([x], [y]), "m")
