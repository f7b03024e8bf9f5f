"""The Helium (MVE) 16x8 kernels (int16 activations, int8 weights: utvm_build/kernels/arm_mve/
conv2d_s16.h, depthwise_conv2d_s16.h, fully_connected_s16.h, fully_connected_s16_pc.h).

Models of one operator per edge case, compiled --target cortex-m55 and run on QEMU mps3-an547,
against the generic build on the host byte for byte, and the host against TFLite's reference
kernels: shapes (channel counts not a multiple of 4 or 8, 1x1 pixels, windows longer and shorter
than a vector, batches), strides, dilations, SAME / VALID padding, grouped CONV_2D, depth
multipliers above 1 and windows over 256 taps (the generic depthwise loop), per-channel and
per-tensor weights, int64 / int32 / no bias, and requantization regimes: shifts -17..-1
(depthwise: the vector requantization), above (multipliers >= 0.5), below (tiny multipliers),
biases beyond 2^30 (the per-lane requantization), every activation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from test_kernels_arm_dsp import _qemu  # noqa: E402

MACHINE = "mps3-an547"


@pytest.fixture(scope="module")
def tools() -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "cc")


# real multipliers s_in * s_w / s_out per regime (QuantizeMultiplier's shift in brackets)
def _reals(rng: np.random.Generator, regime: str, n: int) -> np.ndarray:
    return {"typical": rng.uniform(2.0**-11, 2.0**-7, n),          # -10..-6
            "edges": np.where(np.arange(n) % 2 == 0, 2.0**-17.5, 0.3),  # -17 and -1
            "above": rng.uniform(0.5, 3.0, n),                      # 0..2
            "tiny": np.where(np.arange(n) % 2 == 0, 2.0**-18.5, 2.0**-30),  # -18, -29
            "mixed": 2.0 ** rng.uniform(-24, 1, n),
            "per-tensor": np.full(1, 2.0**-9.3)}[regime]


def _bias(rng: np.random.Generator, kind: str, n: int, acc_std: float) -> np.ndarray | None:
    if kind == "none":
        return None
    if kind == "large":  # beyond 2^30 (int64): the depthwise kernel's per-lane requantization
        return (rng.choice([-1, 1], n) * rng.integers(2**30, 2**34, n)).astype(np.int64)
    return np.round(rng.normal(0.0, acc_std, n)).astype(np.int64)


# CONV_2D: (in shape, out_c, filter, strides, dilations, padding, activation, regime, bias kind,
# groups); windows of at most 504 elements with one group and dilation_w 1 are gathered (im2col),
# the others (dilation_w, groups, larger windows) walked as runs
CONV = [
    ([1, 7, 6, 8], 6, (3, 3), (1, 1), (1, 1), "SAME", "RELU", "typical", "int64", 1),
    ([1, 9, 9, 16], 9, (3, 3), (2, 2), (1, 1), "SAME", "NONE", "mixed", "int64", 1),
    ([2, 5, 6, 3], 5, (3, 3), (1, 2), (1, 1), "VALID", "RELU6", "above", "int32", 1),
    ([1, 6, 6, 13], 4, (1, 1), (1, 1), (1, 1), "VALID", "NONE", "per-tensor", "int64", 1),
    ([1, 9, 8, 4], 7, (3, 3), (1, 1), (2, 2), "SAME", "RELU_N1_TO_1", "edges", "int64", 1),
    ([1, 11, 7, 2], 3, (5, 3), (2, 1), (1, 2), "SAME", "NONE", "tiny", "int32", 1),
    ([1, 1, 1, 40], 3, (1, 1), (1, 1), (1, 1), "VALID", "NONE", "typical", "int64", 1),
    ([1, 6, 5, 6], 4, (2, 2), (1, 1), (1, 1), "SAME", "RELU", "typical", "int64", 2),
    ([1, 13, 7, 1], 6, (10, 4), (2, 2), (1, 1), "SAME", "NONE", "mixed", "int32", 1),
    ([1, 5, 6, 7], 5, (3, 3), (1, 1), (1, 1), "SAME", "RELU", "typical", "large", 1),
    ([1, 4, 5, 64], 5, (3, 3), (1, 2), (1, 1), "SAME", "NONE", "typical", "int64", 1),  # 576: runs
    ([2, 2, 3, 600], 3, (1, 1), (1, 1), (1, 1), "VALID", "NONE", "typical", "int32", 1),  # 600: 2 chunks
    ([1, 3, 1, 4], 3, (2, 2), (1, 1), (2, 2), "SAME", "NONE", "typical", "int64", 1),  # no tap inside
]

# DEPTHWISE_CONV_2D: (in shape, depth multiplier, filter, strides, dilations, padding, activation,
# regime, bias kind)
DW = [
    ([1, 7, 5, 8], 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU6", "typical", "int64"),
    ([1, 9, 8, 13], 1, (3, 3), (2, 2), (1, 1), "SAME", "NONE", "edges", "int64"),
    ([2, 6, 6, 3], 1, (3, 3), (1, 1), (1, 1), "VALID", "RELU", "mixed", "int64"),
    ([1, 9, 9, 16], 1, (5, 5), (1, 2), (2, 1), "SAME", "NONE", "above", "int64"),
    ([1, 6, 7, 5], 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", "tiny", "int64"),
    ([1, 5, 5, 10], 1, (3, 3), (1, 1), (1, 1), "SAME", "RELU_N1_TO_1", "typical", "large"),
    ([1, 4, 4, 9], 1, (2, 3), (1, 1), (1, 1), "SAME", "NONE", "per-tensor", "none"),
    ([1, 1, 1, 7], 1, (3, 3), (1, 1), (1, 1), "SAME", "NONE", "typical", "int64"),
    ([1, 17, 17, 4], 1, (17, 17), (1, 1), (1, 1), "VALID", "NONE", "typical", "int64"),  # 289 taps
    ([1, 6, 7, 3], 2, (3, 3), (1, 1), (1, 1), "SAME", "NONE", "typical", "int64"),
    ([1, 3, 1, 8], 1, (2, 2), (1, 1), (2, 2), "SAME", "RELU", "typical", "int64"),  # no tap inside
]

# FULLY_CONNECTED: (batches, depth, units, activation, per-channel, bias kind, regime)
FC = [
    (1, 640, 128, "RELU", False, "int64", "per-tensor"),
    (1, 37, 5, "NONE", True, "int64", "mixed"),
    (3, 16, 4, "NONE", False, "int32", "per-tensor"),
    (2, 15, 9, "RELU6", True, "none", "above"),
    (1, 1, 1, "NONE", False, "int64", "per-tensor"),
    (1, 250, 13, "NONE", True, "int32", "typical"),
    (2, 9, 6, "RELU_N1_TO_1", True, "int64", "tiny"),
]


def _conv_model(seed: int, depthwise: bool) -> bytes:
    from tflite_writer import ModelBuilder

    from utvm_build.ops.conv import window

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_mve 16x8 conv")
    ins, outs = [], []
    for case in DW if depthwise else CONV:
        if depthwise:
            shape, dm, (fh, fw), (sh, sw), (dh, dw), pad, act, regime, bkind = case
            oc, fic = shape[3] * dm, 1
            wshape = [1, fh, fw, oc]
        else:
            shape, oc, (fh, fw), (sh, sw), (dh, dw), pad, act, regime, bkind, groups = case
            fic = shape[3] // groups
            wshape = [oc, fh, fw, fic]
        n, ih, iw, _ = shape
        s_in = 1e-3
        acc_std = np.sqrt(fh * fw * fic) * 18900.0 * 73.0
        s_out = float(s_in * 0.01 * acc_std / 8000.0)
        reals = _reals(rng, regime, oc)
        w_scales = (reals * s_out / s_in).astype(np.float32)
        w = rng.integers(-127, 128, wshape).astype(np.int8)
        w.flat[0] = -128  # the int8 extreme once
        bias = _bias(rng, bkind, oc, acc_std)
        ti = mb.tensor(shape, "int16", scale=s_in, zero_point=0)
        tw = mb.tensor(wshape, "int8", data=w, scale=w_scales, zero_point=[0] * len(w_scales),
                       quantized_dimension=3 if depthwise else 0)
        inputs = [ti, tw]
        if bias is not None:
            bs = (np.float32(s_in) * w_scales).astype(np.float32)
            inputs.append(mb.tensor([oc], bkind if bkind != "large" else "int64", data=bias, scale=bs,
                                    zero_point=[0] * len(bs)))
        oh, _ = window(pad, ih, fh, sh, dh)
        ow, _ = window(pad, iw, fw, sw, dw)
        to = mb.tensor([n, oh, ow, oc], "int16", scale=s_out, zero_point=0)
        opts = {"padding": pad, "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh,
                "dilation_w_factor": dw, "fused_activation_function": act}
        if depthwise:
            opts["depth_multiplier"] = dm
        mb.operator("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", inputs, [to], opts)
        ins.append(ti)
        outs.append(to)
    return mb.build(ins, outs)


def _fc_model(seed: int) -> bytes:
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder("arm_mve 16x8 fully connected")
    ins, outs = [], []
    for batches, depth, units, act, per_channel, bkind, regime in FC:
        s_in = 1e-3
        acc_std = np.sqrt(depth) * 18900.0 * 73.0
        s_out = float(s_in * 0.01 * acc_std / 8000.0)
        n = units if per_channel else 1
        reals = _reals(rng, regime, n)
        w_scales = (reals * s_out / s_in).astype(np.float32)
        w = rng.integers(-128, 128, [units, depth]).astype(np.int8)
        ti = mb.tensor([batches, depth], "int16", scale=s_in, zero_point=0)
        tw = mb.tensor(w.shape, "int8", data=w, scale=w_scales, zero_point=[0] * n, quantized_dimension=0)
        tb = -1
        bias = _bias(rng, bkind, units, acc_std)
        if bias is not None:
            bs = (np.float32(s_in) * w_scales).astype(np.float32)
            tb = mb.tensor([units], bkind, data=bias, scale=bs, zero_point=[0] * n)
        to = mb.tensor([batches, units], "int16", scale=s_out, zero_point=0)
        mb.operator("FULLY_CONNECTED", [ti, tw, tb], [to], {"fused_activation_function": act})
        ins.append(ti)
        outs.append(to)
    return mb.build(ins, outs)


def test_mve_s16_kernels_on_qemu_equal_generic_host_and_reference(tools, tmp_path: Path) -> None:
    """conv2d_s16 / depthwise_conv2d_s16 / fully_connected_s16(_pc) (arm_mve) on every case above:
    cortex-m55 on QEMU == the generic host build == TFLite's reference kernels."""
    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    models = []
    for name, data in (("mve16_conv", _conv_model(31, False)), ("mve16_dw", _conv_model(32, True)),
                       ("mve16_fc", _fc_model(33))):
        (tmp_path / f"{name}.tflite").write_bytes(data)
        models.append(BenchModel(name, tmp_path / f"{name}.tflite", "test"))
    build(models, None, "O2", tmp_path / "host", target="generic")
    build(models, CORES["m55"], "Os", tmp_path / "m55", target="cortex-m55")
    for m, kernels in zip(models, (("conv2d_s16",), ("depthwise_conv2d_s16",),
                                   ("fully_connected_s16", "fully_connected_s16_pc"))):
        meta = model_metadata(tmp_path / "m55", m)
        assert meta["target"] == "cortex-m55"
        for kernel in kernels:
            assert meta["kernel_variants"].get(kernel) == "arm_mve", meta["kernel_variants"]
        host_meta = model_metadata(tmp_path / "host", m)
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        assert host.rc == 0
        ref = reference.check(m, host_meta, host.outputs)
        assert ref.startswith("identical"), f"{m.name}: host vs reference: {ref}"
        rc, out = _qemu(tmp_path / "m55" / f"bench_{m.name}.elf", tmp_path, machine=MACHINE)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        ok, how = outputs_match(target.outputs, host.outputs, [t["dtype"] for t in meta["outputs"]])
        assert ok and how == "identical", f"{m.name}: cortex-m55 vs host: {how}"
