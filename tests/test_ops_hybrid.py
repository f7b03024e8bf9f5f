"""Dynamic-range ("hybrid") CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED against tflite-runtime 2.14
(BUILTIN_REF: conv.cc / depthwise_conv.cc kReference, fully_connected.cc EvalHybridDense).

Float32 activations, int8 weights, float32 bias. The int8 input quantization is reproduced exactly
(it is float/double arithmetic the C repeats step by step); outputs are float and must agree within
1e-5 x max|output| (the harness's float tolerance); the count of bit-exact cases is printed.
Writer-generated single-operator cases; TensorFlow-converted models: tests/data/hybrid/.
``UTVM_TEST_FULL=1`` runs 24 cases per (operator, variant), CI 4.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from harness import Case, check_against_oracle
from tflite_writer import ModelBuilder

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

F32 = np.float32
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
N = 24 if FULL else 4
ACTS = ["NONE", "RELU", "RELU6", "RELU_N1_TO_1"]
DATA = Path(__file__).parent / "data" / "hybrid"


def _weights(rng, shape, channels: int, axis: int, per_channel: bool, equal: bool = False):
    w = rng.integers(-127, 128, shape).astype(np.int8)
    if per_channel:
        scales = [float(F32(s)) for s in rng.uniform(0.001, 0.05, channels)]
        if equal:
            scales = [scales[0]] * channels
        return w, {"scale": scales, "zero_point": [0] * channels, "quantized_dimension": axis}
    return w, {"scale": float(F32(rng.uniform(0.001, 0.05, channels)[0])), "zero_point": 0}


def _input(rng, shape, k: int) -> np.ndarray:
    kind = k % 5
    x = rng.standard_normal(shape).astype(F32) * F32(rng.uniform(0.1, 5))
    if kind == 1:
        x = np.abs(x)  # all positive: asymmetric zero point at the low end
    elif kind == 2:
        x = -np.abs(x)  # all negative
    elif kind == 3:
        x[..., ::2] = 0  # many zeros
    elif kind == 4 and x.size > 1:
        x.reshape(-1)[0] = 0
    return x


def fc_case(k: int, seed: int, asym: bool, per_channel: bool) -> Case:
    rng = np.random.default_rng(seed)
    batches, depth, units = [(1, 8, 4), (3, 10, 5), (2, 33, 7), (1, 1, 3), (4, 64, 16), (2, 7, 1)][k % 6]
    mb = ModelBuilder()
    x = mb.tensor((batches, depth), "float32")
    wd, wq = _weights(rng, (units, depth), units, 0, per_channel)
    w = mb.tensor((units, depth), "int8", data=wd, **wq)
    ins = [x, w]
    if k % 3 != 2:
        ins.append(mb.tensor((units,), "float32", data=rng.standard_normal(units).astype(F32)))
    y = mb.tensor((batches, units), "float32")
    act = ACTS[k % 4]
    mb.operator("FULLY_CONNECTED", ins, [y], {"fused_activation_function": act, "asymmetric_quantize_inputs": asym})
    xs = _input(rng, (batches, depth), k)
    if k % 7 == 6:
        xs[:] = 0  # all-zero input: the reference's shortcut
    return Case(mb.build([x], [y]), [xs], f"FC hybrid {batches}x{depth}->{units} asym={asym} pc={per_channel} {act}")


def conv_case(op: str, k: int, seed: int, per_channel: bool, equal: bool = False, groups: int = 1) -> Case:
    rng = np.random.default_rng(seed)
    dw = op == "DEPTHWISE_CONV_2D"
    n, h, w_, c = [(1, 5, 5, 3), (2, 6, 4, 2), (1, 7, 7, 4), (1, 3, 8, 1), (2, 4, 4, 3)][k % 5]
    fh, fw = [(3, 3), (1, 1), (2, 3), (3, 1)][k % 4]
    stride = 1 + (k // 3) % 2
    dil = 2 if k % 7 == 3 else 1
    padding = "SAME" if k % 2 == 0 else "VALID"
    if padding == "VALID" and (h < (fh - 1) * dil + 1 or w_ < (fw - 1) * dil + 1):
        padding = "SAME"
    dm = 1 + k % 2 if dw else 1
    oc = c * dm if dw else [4, 2, 5][k % 3]
    if groups > 1:
        c, oc = 2 * groups, 3 * groups
    wshape = (1, fh, fw, oc) if dw else (oc, fh, fw, c // groups)
    wd, wq = _weights(rng, wshape, oc, 3 if dw else 0, per_channel, equal)
    eff_h, eff_w = (fh - 1) * dil + 1, (fw - 1) * dil + 1
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w_ // stride)
    else:
        oh, ow = (h - eff_h) // stride + 1, (w_ - eff_w) // stride + 1
    mb = ModelBuilder()
    x = mb.tensor((n, h, w_, c), "float32")
    wt = mb.tensor(wshape, "int8", data=wd, **wq)
    ins = [x, wt]
    if k % 4 != 3 or not dw:
        ins.append(mb.tensor((oc,), "float32", data=rng.standard_normal(oc).astype(F32)))
    y = mb.tensor((n, oh, ow, oc), "float32")
    act = ACTS[k % 4]
    opts = {"padding": padding, "stride_h": stride, "stride_w": stride, "dilation_h_factor": dil,
            "dilation_w_factor": dil, "fused_activation_function": act}
    if dw:
        opts["depth_multiplier"] = dm
    mb.operator(op, ins, [y], opts)
    return Case(mb.build([x], [y]), [_input(rng, (n, h, w_, c), k)],
                f"{op} hybrid {(n, h, w_, c)} f{fh}x{fw} s{stride} d{dil} {padding} oc{oc} pc={per_channel} {act}")


def _cases() -> dict[str, list[Case]]:
    out: dict[str, list[Case]] = {}
    for asym in (False, True):
        out[f"FULLY_CONNECTED asym={asym}"] = [fc_case(k, 100 + 7 * k + 2 * asym, asym, False) for k in range(N)]
    out["CONV_2D per-tensor"] = [conv_case("CONV_2D", k, 300 + k, False) for k in range(N)]
    out["CONV_2D per-channel"] = [conv_case("CONV_2D", k, 400 + k, True) for k in range(N)]
    out["CONV_2D grouped per-channel"] = [conv_case("CONV_2D", k, 420 + k, True, groups=2 + k % 2) for k in range(N)]
    out["DEPTHWISE_CONV_2D per-channel"] = [conv_case("DEPTHWISE_CONV_2D", k, 500 + k, True) for k in range(N)]
    # per-tensor depthwise with one output channel (input shape (1, 3, 8, 1), depth multiplier 1)
    out["DEPTHWISE_CONV_2D per-tensor, 1 channel"] = [conv_case("DEPTHWISE_CONV_2D", 8 + 10 * j, 550 + j, False)
                                                      for j in range(max(1, N // 4))]
    return out


def test_hybrid_single_ops():
    groups = _cases()
    cases = [c for cs in groups.values() for c in cs]
    res = check_against_oracle(cases)
    print(f"{len(cases)} cases ({', '.join(f'{k}: {len(v)}' for k, v in groups.items())}), "
          f"{res['bit_exact']} bit-exact")


def test_conv_per_channel_equal_scales():
    """Equal per-channel scales: computed as the per-tensor model with that scale (2.14 outputs the
    bias only there, see ops/hybrid.py), so the reference is the per-tensor model."""
    from harness import assert_matches, run_cases
    from oracle import reference_outputs_many

    pcs = [conv_case("CONV_2D", k, 450 + k, True, True) for k in range(N)]
    pts = [conv_case("CONV_2D", k, 450 + k, False) for k in range(N)]
    ours = run_cases(pcs)
    refs = reference_outputs_many([(c.model, c.inputs) for c in pts])
    for c, o, r in zip(pcs, ours, refs):
        assert not isinstance(r, Exception), r
        assert_matches(o[0], np.asarray(r[0]), c.label)


def test_hybrid_rejections():
    def fc(wzp: int = 0, act: str = "NONE", bias_dtype: str = "float32"):
        mb = ModelBuilder()
        x = mb.tensor((1, 4), "float32")
        w = mb.tensor((2, 4), "int8", data=np.ones((2, 4)), scale=0.1, zero_point=wzp)
        b = mb.tensor((2,), bias_dtype, data=np.zeros(2))
        y = mb.tensor((1, 2), "float32")
        mb.operator("FULLY_CONNECTED", [x, w, b], [y], {"fused_activation_function": act})
        with pytest.raises(UtvmError) as e:
            compile_bytes(mb.build([x], [y]), "m")
        assert "\n" not in str(e.value)
        return str(e.value)

    assert "zero points 0" in fc(wzp=3)
    assert "TANH" in fc(act="TANH")
    assert "bias" in fc(bias_dtype="int32")

    grouped = conv_case("CONV_2D", 0, 1, False, groups=2)
    with pytest.raises(UtvmError, match="grouped CONV_2D needs per-channel"):
        compile_bytes(grouped.model, "m")
    dw = conv_case("DEPTHWISE_CONV_2D", 0, 1, False)
    with pytest.raises(UtvmError, match="hybrid DEPTHWISE_CONV_2D needs per-channel"):
        compile_bytes(dw.model, "m")

    mb = ModelBuilder()
    x = mb.tensor((1, 4), "float32")
    w = mb.tensor((2, 4), "int8", data=np.ones((2, 4)), scale=[0.1, 0.2], zero_point=[0, 0])
    y = mb.tensor((1, 2), "float32")
    mb.operator("FULLY_CONNECTED", [x, w], [y])
    with pytest.raises(UtvmError, match="per-channel"):
        compile_bytes(mb.build([x], [y]), "m")


@pytest.mark.parametrize("model", sorted(DATA.glob("*.tflite")), ids=lambda p: p.name)
def test_converted_models(model: Path):
    """TensorFlow-converted dynamic-range models (tests/data/hybrid/make_hybrid_models.py), among them
    a re-creation of MLPerf Tiny's DS-CNN keyword spotter: within the float tolerance."""
    from oracle import random_inputs

    data = model.read_bytes()
    cases = [Case(data, random_inputs(data, seed), f"{model.name} seed {seed}") for seed in (0, 1, 2)]
    res = check_against_oracle(cases)
    print(f"{model.name}: {len(cases)} inputs, {res['bit_exact']} bit-exact")


def test_hybrid_non_finite_inputs_run_clean():
    """inf / NaN inputs: no undefined behaviour in the run-time quantization (the harness builds
    with ASan/UBSan); the outputs are not compared (the reference's casts of NaN are undefined)."""
    from harness import run_cases

    cases = []
    for k, asym in enumerate((False, True)):
        c = fc_case(1, 600 + k, asym, False)
        x = c.inputs[0].copy()
        x.reshape(-1)[:3] = [np.inf, -np.inf, np.nan]
        cases.append(Case(c.model, [x], c.label + " non-finite"))
        c = conv_case("DEPTHWISE_CONV_2D", 0, 610 + k, True)
        x = c.inputs[0].copy()
        x.reshape(-1)[0] = np.nan
        cases.append(Case(c.model, [x], c.label + " non-finite"))
    assert len(run_cases(cases)) == len(cases)
