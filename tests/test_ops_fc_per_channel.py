"""FULLY_CONNECTED with per-channel weights (int8, 16x8), 16x8 bias variants (int64, int32, none),
and the int8 kernel's blocks of batch rows and output units, against TFLite's reference kernels."""

from __future__ import annotations

import numpy as np
import pytest
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

F32 = np.float32
SHAPES = [((1, 8), 4), ((3, 16), 10), ((2, 5, 6), 7), ((1, 64), 32), ((4, 3), 1), ((2, 2, 2, 9), 5)]
ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _scale(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(F32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def fc_case(dtype: str, k: int, seed: int, per_channel: bool = True, shape: tuple | None = None,
            zp: int | None = None) -> Case:
    rng = np.random.default_rng(seed)
    in_shape, units = shape or SHAPES[k % len(SHAPES)]
    depth = in_shape[-1]
    batches = int(np.prod(in_shape)) // depth
    act = ACTS[k % len(ACTS)]
    with_bias = k % 5 != 4
    s_in = _scale(rng, 0.01, 0.1) if dtype == "int8" else _scale(rng, 1e-4, 1e-3)
    zp_in = int(rng.integers(-100, 100)) if dtype == "int8" else 0
    if zp is not None:
        zp_in = zp
    w_scales = [_scale(rng, 0.001, 0.05) for _ in range(units if per_channel else 1)]
    typical = np.sqrt(depth) * 75 * (75 if dtype == "int8" else 10000) * s_in * float(np.median(w_scales))
    s_out = float(F32(typical / rng.uniform(20, 120 if dtype == "int8" else 20000)))
    zp_out = int(rng.integers(-50, 50)) if dtype == "int8" else 0
    mb = ModelBuilder()
    x = mb.tensor(in_shape, dtype, scale=s_in, zero_point=zp_in)
    w = mb.tensor((units, depth), "int8", data=rng.integers(-127, 128, (units, depth)), scale=w_scales,
                  zero_point=[0] * len(w_scales), quantized_dimension=0)
    b = -1
    if with_bias:
        bdt = "int32" if dtype == "int8" or k % 3 == 1 else "int64"
        b = mb.tensor((units,), bdt, data=rng.integers(-20000, 20000, units),
                      scale=[float(F32(s_in * s)) for s in w_scales], zero_point=[0] * len(w_scales))
    y = mb.tensor((batches, units), dtype, scale=s_out, zero_point=zp_out)
    mb.operator("FULLY_CONNECTED", [x, w, b], [y], {"fused_activation_function": act})
    info = np.iinfo(dtype)
    inputs = [rng.integers(info.min, info.max + 1, in_shape).astype(dtype)]
    bias_t = "none" if not with_bias else ("int32" if dtype == "int8" or k % 3 == 1 else "int64")
    kind = "per-channel" if per_channel else "per-tensor"
    return Case(mb.build([x], [y]), inputs, f"FC {kind} {dtype} {in_shape}x{units} {act} bias={bias_t}")


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_fully_connected_per_channel(dtype):
    cases = [fc_case(dtype, k, (1 if dtype == "int8" else 2) * 1000 + k) for k in range(36)]
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases, {res['bit_exact']} bit-exact")
    assert res["bit_exact"] == len(cases)


# int8 blocks (kernels/fully_connected_s8_rows.h): 2 batch rows x 2 units, 1 row x 4 units, and
# what is left over of both; depth 1 and long rows
S8_BLOCKS = [((1, 1), 1), ((1, 9), 3), ((1, 5), 4), ((1, 700), 9), ((2, 3), 1), ((2, 33), 5),
             ((3, 17), 6), ((5, 2), 7), ((4, 1), 2), ((1, 2, 3, 8), 8), ((3, 300), 13), ((7, 16), 4)]


@pytest.mark.parametrize("per_channel", [False, True])
def test_fully_connected_s8_blocks(per_channel):
    zps = (-128, 127, 0)
    cases = [fc_case("int8", k, 4000 + k, per_channel, shape, zps[k % 3]) for k, shape in enumerate(S8_BLOCKS)]
    res = check_against_oracle(cases)
    assert res["bit_exact"] == len(cases)


def test_fully_connected_16x8_bias_variants():
    """Per-tensor 16x8 with int64, int32 and no bias (the latter two use int32 arithmetic)."""
    cases = [fc_case("int16", k, 3000 + k, per_channel=False) for k in range(36)]
    res = check_against_oracle(cases)
    assert res["bit_exact"] == len(cases)
