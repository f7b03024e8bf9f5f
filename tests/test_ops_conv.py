"""CONV_2D and DEPTHWISE_CONV_2D conformance against the TFLite reference kernels.

Seeded random single-operator models: int8 (per-channel and per-tensor weights, asymmetric input
and output), int16 activations with int8 weights (16x8, int64/int32 bias) and float32; SAME/VALID
padding, strides, dilations, depth multipliers, grouped convolution, fused activations, with and
without bias, batches 1..3. The real 16x8 conv models of ../shared/models/ops/conv run too.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_MODELS
from harness import Case, assert_matches, check_against_oracle, record, run_cases
from tflite_writer import ModelBuilder

from utvm_build.ops.conv import window

ACTS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1")
N_CASES = 36  # per operator and dtype


def _spec(rng: np.random.Generator, k: int, depthwise: bool, dtype: str) -> dict:
    """Random operator geometry; k walks through paddings/activations so every value is covered."""
    padding = ("SAME", "VALID")[k % 2]
    act = ACTS[(k // 2) % 4]
    fh, fw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    dh, dw = (1, 1) if k % 3 else (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    ih = int(rng.integers((fh - 1) * dh + 1, (fh - 1) * dh + 8))
    iw = int(rng.integers((fw - 1) * dw + 1, (fw - 1) * dw + 8))
    batches = int(rng.choice([1, 1, 2, 3]))
    if depthwise:
        ic = int(rng.integers(1, 7))
        dm = int(rng.choice([1, 1, 2, 3]))
        oc, fic, groups = ic * dm, 1, 1
        wshape = [1, fh, fw, oc]
    else:
        groups = int(rng.choice([1, 1, 1, 2, 3])) if k % 5 == 4 else 1
        fic = int(rng.integers(1, 6))
        ic = fic * groups
        oc = groups * int(rng.integers(1, 5))
        dm = 1
        wshape = [oc, fh, fw, fic]
    oh, _ = window(padding, ih, fh, sh, dh)
    ow, _ = window(padding, iw, fw, sw, dw)
    opts = {"padding": padding, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh,
            "dilation_w_factor": dw, "fused_activation_function": act}
    if depthwise and k % 7 == 3 and dtype != "int16":
        opts["depth_multiplier"] = dm + 1  # int8/float32 Eval ignore the option (ComputeDepthMultiplier)
    return {"in": [batches, ih, iw, ic], "w": wshape, "out": [batches, oh, ow, oc], "oc": oc,
            "taps": fh * fw * fic, "opts": opts, "bias": k % 6 < 4, "per_channel": k % 4 != 1,
            "label": f"{padding} {act} in={[batches, ih, iw, ic]} w={wshape} s=({sh},{sw}) d=({dh},{dw}) "
                     f"groups={groups} dm={dm}"}


def _quant_case(rng: np.random.Generator, k: int, op: str, dtype: str) -> Case:
    dwc = op == "DEPTHWISE_CONV_2D"
    sp = _spec(rng, k, dwc, dtype)
    oc = sp["oc"]
    if dtype == "int8":
        s_in, zp_in = float(rng.uniform(0.005, 0.05)), int(rng.integers(-40, 41))
        x = rng.integers(-128, 128, sp["in"]).astype(np.int8)
        x_std = float(np.std(x.astype(np.float64) - zp_in)) + 1.0
    else:
        s_in, zp_in = float(rng.uniform(1e-4, 1e-3)), 0
        x = rng.integers(-32768, 32768, sp["in"]).astype(np.int16)
        x_std = float(np.std(x.astype(np.float64))) + 1.0
    w_scales = rng.uniform(0.002, 0.02, oc if sp["per_channel"] else 1).astype(np.float32)
    w = rng.integers(-127, 128, sp["w"]).astype(np.int8)
    acc_std = np.sqrt(sp["taps"]) * x_std * 73.0  # std of uniform int8 weights ~ 73
    out_scale = float(s_in * np.mean(w_scales) * acc_std / (60.0 if dtype == "int8" else 8000.0)
                      * rng.uniform(0.5, 2.0))
    zp_out = int(rng.integers(-20, 21)) if dtype == "int8" else 0
    bias = None
    if sp["bias"]:
        bias = np.round(rng.normal(0.0, acc_std, oc)).astype(np.int64)
    btype = "int32" if dtype == "int8" or (not dwc and k % 3 == 0) else "int64"

    def build(zero_bias: bool) -> bytes:
        mb = ModelBuilder()
        ti = mb.tensor(sp["in"], dtype, scale=s_in, zero_point=zp_in)
        tw = mb.tensor(sp["w"], "int8", data=w, scale=w_scales, zero_point=[0] * len(w_scales),
                       quantized_dimension=3 if dwc else 0)
        tb = -1
        if bias is not None or zero_bias:
            bs = (np.float32(s_in) * w_scales).astype(np.float32)
            tb = mb.tensor([oc], btype, data=bias if bias is not None else np.zeros(oc, np.int64),
                           scale=bs, zero_point=[0] * len(bs))
        to = mb.tensor(sp["out"], dtype, scale=out_scale, zero_point=zp_out)
        mb.operator(op, [ti, tw, tb] if tb >= 0 or k % 2 else [ti, tw], [to], sp["opts"])
        return mb.build([ti], [to])

    label = f"{op} {dtype} #{k}: {sp['label']} bias={sp['bias']} per_channel={sp['per_channel']}"
    return _pair(build, op, bias is None and (op == "CONV_2D" or k % 2 == 1), [x], label)


def _float_case(rng: np.random.Generator, k: int, op: str) -> Case:
    sp = _spec(rng, k, op == "DEPTHWISE_CONV_2D", "float32")
    w = rng.normal(0.0, 1.0 / np.sqrt(sp["taps"]), sp["w"]).astype(np.float32)
    bias = rng.normal(0.0, 0.5, sp["oc"]).astype(np.float32) if sp["bias"] else None
    x = rng.normal(0.0, 1.0, sp["in"]).astype(np.float32)

    def build(zero_bias: bool) -> bytes:
        mb = ModelBuilder()
        ti = mb.tensor(sp["in"], "float32")
        tw = mb.tensor(sp["w"], "float32", data=w)
        tb = -1
        if bias is not None or zero_bias:
            tb = mb.tensor([sp["oc"]], "float32", data=bias if bias is not None else np.zeros(sp["oc"], np.float32))
        to = mb.tensor(sp["out"], "float32")
        mb.operator(op, [ti, tw, tb] if tb >= 0 or k % 2 else [ti, tw], [to], sp["opts"])
        return mb.build([ti], [to])

    label = f"{op} float32 #{k}: {sp['label']} bias={sp['bias']}"
    return _pair(build, op, bias is None and (op == "CONV_2D" or k % 2 == 1), [x], label)


def _pair(build, op: str, oracle_zero_bias: bool, inputs: list[np.ndarray], label: str) -> tuple[Case, bytes]:
    """(our case, the model the oracle runs).

    tflite-runtime 2.14 cannot run some bias-less forms that utvm-build supports (as TFLM does):
    CONV_2D always requires a bias (conv.cc Prepare: TF_LITE_ENSURE(context, has_bias)), and
    DEPTHWISE_CONV_2D accepts 2 inputs but not an absent (-1) third input (GetInputSafe fails).
    Those are checked against the same model with an all-zero bias, which the reference kernels
    treat identically (acc += 0; float: total + 0.0f).
    """
    ours = build(False)
    return Case(ours, inputs, label), build(True) if oracle_zero_bias else ours


def _check(pairs: list[tuple[Case, bytes]]) -> dict:
    """harness.check_against_oracle, but the oracle may run a different (equivalent) model."""
    from oracle import reference_outputs_many

    cases = [c for c, _ in pairs]
    refs = reference_outputs_many([(m, c.inputs) for c, m in pairs])
    ours = run_cases(cases)
    exact, failures = 0, []
    for case, mine, ref in zip(cases, ours, refs):
        if isinstance(ref, Exception):
            failures.append(f"{case.label}: the reference interpreter failed: {ref}")
            continue
        try:
            for i, (o, r) in enumerate(zip(mine, ref)):
                assert_matches(o, np.asarray(r), f"{case.label} output {i}")
            exact += all(np.array_equal(o, np.asarray(r).reshape(o.shape)) for o, r in zip(mine, ref))
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures[:20])
    record(len(cases), exact)
    return {"cases": len(cases), "bit_exact": exact}


def _cases(op: str, dtype: str, seed: int) -> list[tuple[Case, bytes]]:
    rng = np.random.default_rng(seed)
    if dtype == "float32":
        return [_float_case(rng, k, op) for k in range(N_CASES)]
    return [_quant_case(rng, k, op, dtype) for k in range(N_CASES)]


@pytest.mark.parametrize("op", ["CONV_2D", "DEPTHWISE_CONV_2D"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_random_against_reference(op: str, dtype: str) -> None:
    seed = {"int8": 1, "int16": 2, "float32": 3}[dtype] + (10 if op == "DEPTHWISE_CONV_2D" else 0)
    res = _check(_cases(op, dtype, seed))
    assert res["cases"] == N_CASES
    if dtype != "float32":
        assert res["bit_exact"] == N_CASES


CONV_MODELS = sorted((SHARED_MODELS / "ops" / "conv").glob("*.tflite")) if SHARED_MODELS.is_dir() else []


@pytest.mark.skipif(not CONV_MODELS, reason="../shared/models (real 16x8 conv models) is absent")
def test_shared_conv_models() -> None:
    from oracle import random_inputs

    cases = [Case(p.read_bytes(), random_inputs(p, seed), f"{p.name} seed {seed}")
             for p in CONV_MODELS for seed in (0, 1)]
    res = check_against_oracle(cases)
    assert res["bit_exact"] == len(cases)

