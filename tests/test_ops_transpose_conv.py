"""TRANSPOSE_CONV conformance against TFLite's reference kernels: int8 (per-channel), 16x8
(int64 and int32 bias), float32; SAME/VALID, strides, fused activations, bias or none, the
output_shape operand constant or a model input."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, check_against_oracle
from oracle import random_inputs
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError

ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")


def _f32(x: float) -> float:
    return float(np.float32(x))


def tconv_case(dtype: str, k: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    n = 1 + int(k % 9 == 4)
    h, w = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    ic, oc = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    kh, kw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    padding = "SAME" if k % 2 else "VALID"

    def out_size(i: int, f: int, s: int) -> int:
        # any output size whose forward conv (ComputeOutSize) gives back the input size
        if padding == "SAME":
            lo, hi = (i - 1) * s + 1, i * s
        else:
            lo, hi = (i - 1) * s + f, (i - 1) * s + f + s - 1
        return int(rng.integers(lo, hi + 1)) if k % 3 == 2 else (hi if padding == "SAME" else lo)

    out_shape = [n, out_size(h, kh, sh), out_size(w, kw, sw), oc]
    act = ACTS[(k // 2) % 4] if k % 5 else "NONE"
    has_bias = k % 4 != 3
    shape_is_input = k % 3 == 0
    mb = ModelBuilder()
    if dtype == "float32":
        x = mb.tensor([n, h, w, ic], "float32")
        wt = mb.tensor([oc, kh, kw, ic], "float32", data=rng.uniform(-1, 1, (oc, kh, kw, ic)).astype(np.float32))
        bias = mb.tensor([oc], "float32", data=rng.uniform(-1, 1, oc).astype(np.float32)) if has_bias else -1
        y = mb.tensor(out_shape, "float32")
        desc = ""
    else:
        s_in = _f32(rng.uniform(0.005, 0.05) if dtype == "int8" else rng.uniform(1e-4, 1e-3))
        zp_in = int(rng.integers(-128, 128)) if dtype == "int8" else 0
        per_channel = k % 6 != 5
        w_scales = [_f32(v) for v in rng.uniform(0.002, 0.02, oc if per_channel else 1)]
        wdata = rng.integers(-127, 128, (oc, kh, kw, ic))
        taps = ic * kh * kw / max(1, sh * sw)
        s_out = _f32(s_in * float(np.mean(w_scales)) * 127 * (128 if dtype == "int8" else 32768)
                     / (100 if dtype == "int8" else 20000) * np.sqrt(taps) * rng.uniform(0.3, 3))
        zp_out = int(rng.integers(-128, 128)) if dtype == "int8" else 0
        x = mb.tensor([n, h, w, ic], dtype, scale=s_in, zero_point=zp_in)
        wt = mb.tensor([oc, kh, kw, ic], "int8", data=wdata, scale=w_scales, zero_point=0,
                       quantized_dimension=0)
        bias = -1
        if has_bias:
            bdt = "int32" if dtype == "int8" or k % 4 == 1 else "int64"
            lim = 20000 if dtype == "int8" else 2**22
            bias = mb.tensor([oc], bdt, data=rng.integers(-lim, lim, oc),
                             scale=[_f32(s_in * s) for s in w_scales], zero_point=0)
        y = mb.tensor(out_shape, dtype, scale=s_out, zero_point=zp_out)
        desc = f"in=({s_in},{zp_in}) w={w_scales} out=({s_out},{zp_out})"
    shape_t = mb.tensor([4], "int32") if shape_is_input else mb.tensor([4], "int32", data=np.array(out_shape))
    opts = {"padding": padding, "stride_h": sh, "stride_w": sw, "fused_activation_function": act}
    ins = [shape_t, wt, x] + ([bias] if has_bias or k % 8 == 7 else [])
    mb.operator("TRANSPOSE_CONV", ins, [y], opts)
    model = mb.build([shape_t, x] if shape_is_input else [x], [y])
    inputs = random_inputs(model, seed)
    return Case(model, inputs, f"TRANSPOSE_CONV {dtype} in={[n, h, w, ic]} w={[oc, kh, kw, ic]} out={out_shape} "
                               f"{opts} bias={has_bias} {desc} seed={seed}")


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_transpose_conv(dtype):
    cases = [tconv_case(dtype, k, 7000 + 1000 * len(dtype) + k) for k in range(40)]
    res = check_against_oracle(cases)
    print(f"{dtype}: {res['cases']} cases, {res['bit_exact']} bit-exact")
    if dtype != "float32":
        assert res["bit_exact"] == res["cases"]


def test_transpose_conv_scratch_planned():
    c = compile_bytes(tconv_case("int16", 1, 3).model, "m")
    out = c.graph.tensors[c.graph.operators[0].outputs[0]]
    assert c.plan.scratch and c.plan.workspace_bytes >= 8 * out.size


def test_transpose_conv_rejections():
    mb = ModelBuilder()
    x = mb.tensor([1, 2, 2, 1], "float32")
    wt = mb.tensor([1, 3, 3, 1], "float32", data=np.ones((1, 3, 3, 1), np.float32))
    s = mb.tensor([4], "int32", data=np.array([1, 5, 5, 1]))
    y = mb.tensor([1, 4, 4, 1], "float32")
    mb.operator("TRANSPOSE_CONV", [s, wt, x], [y], {"padding": "SAME", "stride_h": 2, "stride_w": 2})
    with pytest.raises(UnsupportedError, match="output_shape"):
        compile_bytes(mb.build([x], [y]), "m")


def test_shared_transpose_conv_models():
    folder = SHARED_MODELS / "ops" / "transpose_conv"
    if not folder.is_dir():
        pytest.skip("../shared/models is not present")
    cases = []
    for p in sorted(folder.glob("*.tflite")):
        model = p.read_bytes()
        for seed in (1, 2):   # random_inputs feeds the output_shape input with the real output shape
            cases.append(Case(model, random_inputs(model, seed), f"{p.name} seed {seed}"))
    assert cases
    res = check_against_oracle(cases)
    assert res["bit_exact"] == res["cases"]
