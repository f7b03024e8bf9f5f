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

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UnsupportedError
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



MICRO_SPEECH = SHARED_MODELS / "examples" / "micro_speech_quantized.tflite"


@pytest.mark.skipif(not MICRO_SPEECH.is_file(), reason="../shared/models (micro_speech example) is absent")
def test_micro_speech_depthwise_and_fc() -> None:
    """micro_speech's DEPTHWISE_CONV_2D (10x8 filter, SAME, stride 2, depth multiplier 8, input zero
    point -128, per-channel weights) and the FULLY_CONNECTED after it, cut out of the model (its
    RESHAPE and SOFTMAX are other operators) and rebuilt with the original tensors."""
    from utvm_build.frontend.tflite import read_tflite

    g = read_tflite(MICRO_SPEECH.read_bytes())
    ops = [op for op in g.operators if op.op in ("DEPTHWISE_CONV_2D", "FULLY_CONNECTED")]
    assert [op.op for op in ops] == ["DEPTHWISE_CONV_2D", "FULLY_CONNECTED"]
    mb = ModelBuilder()
    index: dict[int, int] = {}

    def tensor(i: int) -> int:
        if i not in index:
            t = g.tensors[i]
            q = t.quant
            index[i] = mb.tensor(t.shape, t.dtype, data=t.data, name=t.name,
                                 scale=None if q is None else q.scale.astype(np.float32),
                                 zero_point=None if q is None else q.zero_point,
                                 quantized_dimension=0 if q is None else q.axis)
        return index[i]

    for op in ops:
        mb.operator(op.op, [tensor(i) for i in op.inputs], [tensor(i) for i in op.outputs], op.options)
    x, y = index[ops[0].inputs[0]], index[ops[-1].outputs[0]]
    model = mb.build([x], [y])
    rng = np.random.default_rng(5)
    shape = g.tensors[ops[0].inputs[0]].shape
    cases = [Case(model, [rng.integers(-128, 128, shape).astype(np.int8)], f"micro_speech dw+fc seed {s}")
             for s in range(2)]
    res = check_against_oracle(cases)
    assert res["bit_exact"] == len(cases)


# ---- edge cases --------------------------------------------------------------------------------
# (op, input NHWC, filter shape, stride, dilation, padding, input zero point)
EDGES = [
    ("CONV_2D", [1, 2, 3, 2], [3, 5, 4, 2], (1, 1), (1, 1), "SAME", -128),   # filter larger than input
    ("CONV_2D", [2, 3, 2, 3], [2, 3, 3, 3], (1, 2), (3, 2), "SAME", 127),    # dilated taps mostly outside
    ("CONV_2D", [1, 1, 1, 5], [4, 3, 3, 5], (2, 2), (1, 1), "SAME", -77),    # 1x1 image, only centre tap
    ("CONV_2D", [1, 9, 9, 2], [3, 2, 2, 2], (4, 3), (1, 1), "VALID", 50),    # stride > filter
    ("CONV_2D", [1, 5, 5, 32], [24, 3, 3, 32], (1, 1), (1, 1), "SAME", -128),  # long accumulation
    ("CONV_2D", [1, 4, 6, 8], [8, 3, 3, 2], (1, 1), (2, 1), "SAME", 10),     # 4 groups, dilated
    ("DEPTHWISE_CONV_2D", [1, 2, 3, 2], [1, 5, 4, 6], (1, 1), (1, 1), "SAME", -128),
    ("DEPTHWISE_CONV_2D", [3, 3, 2, 1], [1, 3, 3, 4], (2, 1), (3, 2), "SAME", 127),
    ("DEPTHWISE_CONV_2D", [1, 1, 1, 3], [1, 3, 3, 3], (2, 2), (1, 1), "SAME", -77),
    ("DEPTHWISE_CONV_2D", [1, 9, 9, 2], [1, 2, 2, 8], (4, 3), (1, 1), "VALID", 50),
    ("DEPTHWISE_CONV_2D", [1, 6, 6, 16], [1, 3, 3, 16], (1, 1), (1, 1), "SAME", -128),
    ("DEPTHWISE_CONV_2D", [1, 49, 40, 1], [1, 10, 8, 8], (2, 2), (1, 1), "SAME", -128),  # micro_speech shape
]


def _edge_case(rng: np.random.Generator, k: int, dtype: str) -> Case:
    op, ishape, wshape, (sh, sw), (dh, dw), padding, zp = EDGES[k]
    dwc = op == "DEPTHWISE_CONV_2D"
    oc = wshape[3] if dwc else wshape[0]
    oh, _ = window(padding, ishape[1], wshape[1], sh, dh)
    ow, _ = window(padding, ishape[2], wshape[2], sw, dw)
    oshape = [ishape[0], oh, ow, oc]
    opts = {"padding": padding, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh, "dilation_w_factor": dw,
            "fused_activation_function": ACTS[k % 4]}
    taps = wshape[1] * wshape[2] * (1 if dwc else wshape[3])
    mb = ModelBuilder()
    if dtype == "float32":
        ti = mb.tensor(ishape, "float32")
        tw = mb.tensor(wshape, "float32", data=rng.normal(0, 1 / np.sqrt(taps), wshape).astype(np.float32))
        tb = mb.tensor([oc], "float32", data=rng.normal(0, 0.3, oc).astype(np.float32))
        to = mb.tensor(oshape, "float32")
        x = rng.normal(0, 1, ishape).astype(np.float32)
    else:
        zp = zp if dtype == "int8" else 0
        s_in = 0.02 if dtype == "int8" else 3e-4
        ws = rng.uniform(0.002, 0.02, oc).astype(np.float32)
        ti = mb.tensor(ishape, dtype, scale=s_in, zero_point=zp)
        tw = mb.tensor(wshape, "int8", data=rng.integers(-127, 128, wshape), scale=ws, zero_point=[0] * oc,
                       quantized_dimension=3 if dwc else 0)
        tb = mb.tensor([oc], "int32" if dtype == "int8" else "int64", data=rng.integers(-3000, 3000, oc),
                       scale=(np.float32(s_in) * ws).astype(np.float32), zero_point=[0] * oc)
        lim = 128 if dtype == "int8" else 32768
        x = rng.integers(-lim, lim, ishape).astype(dtype)
        acc_std = np.sqrt(taps) * 73.0 * (74.0 if dtype == "int8" else 18900.0)
        to = mb.tensor(oshape, dtype, scale=float(s_in * np.mean(ws) * acc_std / (50.0 if dtype == "int8" else 8000.0)),
                       zero_point=-5 if dtype == "int8" else 0)
    mb.operator(op, [ti, tw, tb], [to], opts)
    return Case(mb.build([ti], [to]), [x], f"edge {k} {dtype}: {EDGES[k]}")


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_edge_cases(dtype: str) -> None:
    rng = np.random.default_rng(7)
    res = check_against_oracle([_edge_case(rng, k, dtype) for k in range(len(EDGES))])
    if dtype != "float32":
        assert res["bit_exact"] == len(EDGES)


# ---- int8 CONV_2D: the blocked kernel (kernels/conv2d_s8.h) and the generic one --------------------
# (input NHWC, filter [OC, KH, KW, C], stride, dilation, padding, input zero point, per-channel, bias)
S8_BLOCKS = [
    ([1, 2, 2, 3], [5, 3, 3, 3], (1, 1), (1, 1), "SAME", -128, True, True),   # every pixel on the border
    ([1, 1, 4, 2], [3, 3, 5, 2], (1, 1), (1, 1), "SAME", 127, False, True),   # filter larger than the image
    ([1, 3, 3, 5], [7, 3, 3, 5], (1, 1), (1, 1), "VALID", 127, True, False),  # one interior pixel, unpaired
    ([1, 3, 3, 5], [7, 3, 3, 5], (1, 1), (1, 1), "SAME", -128, False, True),  # one interior pixel among borders
    ([2, 5, 5, 3], [1, 1, 1, 3], (2, 2), (1, 1), "SAME", -7, True, True),     # 1x1 stride 2, odd width: pairs
    ([1, 7, 5, 9], [6, 1, 1, 9], (2, 2), (1, 1), "VALID", 0, False, False),   # across rows and batches; zp 0
    ([1, 6, 5, 300], [3, 2, 2, 300], (1, 1), (1, 1), "SAME", -128, True, True),  # long rows, odd channels
    ([3, 4, 7, 1], [9, 2, 3, 1], (1, 2), (1, 1), "SAME", 50, False, True),    # in_c 1; 9 = 2 x 4 + 1 channels
    ([1, 9, 6, 4], [5, 3, 2, 4], (1, 1), (3, 1), "SAME", -100, True, True),   # dilation_h only: blocked kernel
    ([1, 8, 8, 2], [4, 3, 3, 2], (4, 4), (1, 1), "SAME", 20, True, False),    # stride larger than the filter
    ([1, 10, 10, 8], [16, 3, 3, 8], (1, 1), (1, 1), "SAME", -128, True, True),  # ResNet-like
    ([1, 49, 10, 1], [8, 10, 4, 1], (2, 2), (1, 1), "SAME", 83, True, True),  # DS-CNN's first layer
    ([2, 4, 4, 3], [2, 4, 4, 3], (1, 1), (1, 1), "VALID", -1, False, True),   # one pixel per image, paired
    ([1, 6, 6, 3], [5, 3, 3, 3], (1, 1), (1, 2), "SAME", -128, True, True),   # width-dilated: generic kernel
    ([1, 5, 5, 4], [6, 3, 3, 2], (1, 1), (1, 1), "SAME", 127, True, False),   # 2 groups: generic kernel
    ([2, 3, 5, 7], [1, 3, 3, 7], (1, 1), (1, 1), "SAME", 127, False, False),  # one output channel, no bias
]


def _s8_block_case(rng: np.random.Generator, k: int) -> tuple[Case, bytes]:
    ishape, wshape, (sh, sw), (dh, dw), padding, zp, per_channel, with_bias = S8_BLOCKS[k]
    oc = wshape[0]
    oh, _ = window(padding, ishape[1], wshape[1], sh, dh)
    ow, _ = window(padding, ishape[2], wshape[2], sw, dw)
    oshape = [ishape[0], oh, ow, oc]
    opts = {"padding": padding, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh, "dilation_w_factor": dw,
            "fused_activation_function": ACTS[k % 4]}
    taps = wshape[1] * wshape[2] * wshape[3]
    s_in = 0.02
    ws = rng.uniform(0.002, 0.02, oc if per_channel else 1).astype(np.float32)
    w = rng.integers(-127, 128, wshape)
    x = rng.integers(-128, 128, ishape).astype(np.int8)
    acc_std = np.sqrt(taps) * 73.0 * 74.0
    bias = rng.integers(-3 * int(acc_std), 3 * int(acc_std), oc)
    out_scale = float(s_in * np.mean(ws) * acc_std / 50.0)

    def build(zero_bias: bool) -> bytes:
        mb = ModelBuilder()
        ti = mb.tensor(ishape, "int8", scale=s_in, zero_point=zp)
        tw = mb.tensor(wshape, "int8", data=w, scale=ws, zero_point=[0] * len(ws), quantized_dimension=0)
        ins = [ti, tw]
        if with_bias or zero_bias:
            ins.append(mb.tensor([oc], "int32", data=bias if with_bias else np.zeros(oc, np.int64),
                                 scale=(np.float32(s_in) * ws).astype(np.float32), zero_point=[0] * len(ws)))
        to = mb.tensor(oshape, "int8", scale=out_scale, zero_point=-5)
        mb.operator("CONV_2D", ins, [to], opts)
        return mb.build([ti], [to])

    return _pair(build, "CONV_2D", not with_bias, [x], f"int8 blocks {k}: {S8_BLOCKS[k]} {ACTS[k % 4]}")


def test_int8_conv_blocks() -> None:
    """The pairing of interior pixels (across rows and images), the border pixels, the channel
    blocks and their remainders, 1x1 convolutions, and the generic kernel's geometries."""
    rng = np.random.default_rng(11)
    res = _check([_s8_block_case(rng, k) for k in range(len(S8_BLOCKS))])
    assert res["bit_exact"] == len(S8_BLOCKS)


# ---- rejections ----------------------------------------------------------------------------------
def _reject(op: str, dtype: str = "int8", wdtype: str = "int8", options: dict | None = None,
            per_channel_axis: int | None = None, w_zp: int = 0, out_shape: list[int] | None = None,
            const_filter: bool = True, wshape: list[int] | None = None) -> str:
    dwc = op == "DEPTHWISE_CONV_2D"
    wshape = wshape or ([1, 3, 3, 4] if dwc else [4, 3, 3, 4])
    mb = ModelBuilder()
    q = {} if dtype == "float32" else {"scale": 0.02, "zero_point": 0}
    ti = mb.tensor([1, 5, 5, 4], dtype, **q)
    wq: dict = {} if wdtype == "float32" else {"scale": 0.01, "zero_point": w_zp}
    if per_channel_axis is not None:
        wq = {"scale": [0.01] * 4, "zero_point": [0] * 4, "quantized_dimension": per_channel_axis}
    tw = mb.tensor(wshape, wdtype, data=np.ones(wshape) if const_filter else None, **wq)
    to = mb.tensor(out_shape or [1, 5, 5, 4], dtype, **q)
    mb.operator(op, [ti, tw], [to], {"padding": "SAME", **(options or {})})
    model = mb.build([ti, tw] if not const_filter else [ti], [to])
    with pytest.raises(UnsupportedError) as e:
        compile_bytes(model, "m")
    return str(e.value)


def test_rejections() -> None:
    assert "depth_multiplier" in _reject("DEPTHWISE_CONV_2D", "int16", options={"depth_multiplier": 2})
    assert "dimension 0" in _reject("CONV_2D", per_channel_axis=3)
    assert "dimension 3" in _reject("DEPTHWISE_CONV_2D", per_channel_axis=1, wshape=[1, 4, 3, 4])
    assert "filter" in _reject("CONV_2D", "float32", "int8")          # hybrid
    assert "zero point" in _reject("CONV_2D", w_zp=3)
    assert "output shape" in _reject("CONV_2D", out_shape=[1, 4, 4, 4])
    assert "constant" in _reject("DEPTHWISE_CONV_2D", const_filter=False)
    assert "activation" in _reject("CONV_2D", options={"fused_activation_function": "TANH"})
