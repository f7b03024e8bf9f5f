"""--memory balanced|min: a PAD folded into the VALID CONV_2D / DEPTHWISE_CONV_2D that reads it
(passes/fuse_pad.py, ops/conv.PAD_OPTION).

Generated models PAD (or PADV2 with the zero point) -> convolution over shapes, asymmetric
paddings, strides, dilations, int8 and float32, byte-identical (float32: within the harness's
tolerance) to TFLite's reference kernels with the fusion alone, with every --memory rewrite, and
without; PADs that must stay (a window wholly in the padding, another pad value, AVERAGE_POOL_2D)
stay. Host here; Cortex-M4 on QEMU in test_on_cortex_m4. The CI runs a seeded sample;
UTVM_TEST_FULL=1 runs every case.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from harness import Case, check_against_oracle
from system_tools import need

from utvm_build import compiler
from utvm_build.compiler import compile_bytes, lower
from utvm_build.options import CompileOptions
from utvm_build.passes import fuse_pad, order
from utvm_build.passes.patches import PatchReport

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SEEDS = list(range(40 if FULL else 8))


def pad_model(seed: int, wide: bool = False, value_off: bool = False) -> tuple[bytes, list[np.ndarray]]:
    """x -> PAD/PADV2 -> CONV_2D or DEPTHWISE_CONV_2D (VALID) -> RELU; ``wide``: a padding as wide
    as the filter's extent (must not fuse); ``value_off``: PADV2 with a value other than the zero point."""
    from tflite_writer import ModelBuilder

    rng = np.random.default_rng(seed)
    mb = ModelBuilder(f"memory pad {seed}")
    dtype = "float32" if rng.random() < 0.3 else "int8"
    h, w, c = int(rng.integers(1, 12)), int(rng.integers(1, 12)), int(rng.integers(1, 7))
    depthwise = rng.random() < 0.5
    fh, fw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    sh, sw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    dh, dw = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if sh == sw == 1 else (1, 1)
    eh, ew = (fh - 1) * dh + 1, (fw - 1) * dw + 1
    pads = [int(rng.integers(0, eh)), int(rng.integers(0, eh)), int(rng.integers(0, ew)), int(rng.integers(0, ew))]
    if wide:   # one side as wide as the extent along its axis
        side = int(rng.integers(0, 4))
        pads[side] = eh if side < 2 else ew
    ph, pw = h + pads[0] + pads[1], w + pads[2] + pads[3]
    if ph < eh:
        pads[1] += eh - ph
        ph = eh
    if pw < ew:
        pads[3] += ew - pw
        pw = ew
    quant = dtype == "int8"
    zp = int(rng.integers(-20, 20)) if quant else 0
    q = {"scale": 0.05, "zero_point": zp} if quant else {}
    x = mb.tensor([1, h, w, c], dtype, **q)
    p = mb.tensor([1, ph, pw, c], dtype, **q)
    paddings = mb.tensor([4, 2], "int32", data=np.array([[0, 0], pads[:2], pads[2:], [0, 0]], np.int32))
    if value_off or rng.random() < 0.3:
        raw = (zp + 1 if value_off else zp) if quant else (0.5 if value_off else 0.0)
        cv = mb.tensor([], dtype, data=np.array(raw, np.int8 if quant else np.float32), **q)
        mb.operator("PADV2", [x, paddings, cv], [p])
    else:
        mb.operator("PAD", [x, paddings], [p])
    oc = c if depthwise else int(rng.integers(1, 7))
    shape = [1, fh, fw, oc] if depthwise else [oc, fh, fw, c]
    if quant:
        wt = rng.integers(-127, 128, shape).astype(np.int8)
        s_w = rng.uniform(0.002, 0.02, oc).astype(np.float32)
        tw = mb.tensor(shape, "int8", data=wt, scale=s_w, zero_point=[0] * oc,
                       quantized_dimension=3 if depthwise else 0)
        tb = mb.tensor([oc], "int32", data=rng.integers(-2000, 2000, oc), scale=(np.float32(0.05) * s_w),
                       zero_point=[0] * oc)
    else:
        tw = mb.tensor(shape, "float32", data=rng.standard_normal(shape).astype(np.float32))
        tb = mb.tensor([oc], "float32", data=rng.standard_normal(oc).astype(np.float32))
    oh, ow = (ph - eh) // sh + 1, (pw - ew) // sw + 1
    y = mb.tensor([1, oh, ow, oc], dtype, **({"scale": 0.1, "zero_point": 3} if quant else {}))
    opts = {"padding": "VALID", "stride_h": sh, "stride_w": sw, "dilation_h_factor": dh, "dilation_w_factor": dw,
            "fused_activation_function": str(rng.choice(["NONE", "RELU"]))}
    if depthwise:
        opts["depth_multiplier"] = 1
    mb.operator("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [p, tw, tb], [y], opts)
    model = mb.build([x], [y])
    data = rng.integers(-128, 128, [1, h, w, c]).astype(np.int8) if quant else \
        rng.standard_normal([1, h, w, c]).astype(np.float32)
    return model, [data]


def _only_pads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiler, "choose_patches", lambda g, mode, *a, **k: PatchReport(mode))
    monkeypatch.setattr(compiler, "choose_order", lambda *a, **k: None)
    monkeypatch.setattr(order, "choose_order", lambda *a, **k: None)   # the slices judged in the file's order


def _cases(seeds: list[int], fast: bool = True) -> list[Case]:
    cases = []
    for seed in seeds:
        model, inputs = pad_model(seed)
        if fast:
            cases.append(Case(model, inputs, f"seed {seed} fast", CompileOptions()))
        for io in ("caller", "workspace"):
            opts = CompileOptions(memory="min", io=io)
            meta = compile_bytes(model, "m", opts).metadata
            assert len(meta["memory_transforms"]["fused_pads"]) == 1, seed
            cases.append(Case(model, inputs, f"seed {seed} min io {io}", opts))
    return cases


def test_fused_alone_matches_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    _only_pads(monkeypatch)
    check_against_oracle(_cases(SEEDS))


def test_with_every_rewrite_matches_the_reference() -> None:
    check_against_oracle(_cases(SEEDS[:4], fast=False))


def test_pads_that_must_stay() -> None:
    """A padding as wide as the filter's extent, or a PADV2 value other than the zero point, keeps
    the PAD; an AVERAGE_POOL_2D never takes it."""
    cases = []
    for seed in SEEDS[:4]:
        for kw in ({"wide": True}, {"value_off": True}):
            model, inputs = pad_model(seed, **kw)
            g = lower(model)
            assert fuse_pad.fuse_pads(g) == [] and g.operators[0].op in ("PAD", "PADV2"), (seed, kw)
            cases.append(Case(model, inputs, f"seed {seed} {kw}", CompileOptions(memory="min", io="workspace")))
    check_against_oracle(cases)
    from tflite_writer import ModelBuilder

    mb = ModelBuilder("pad pool")
    x = mb.tensor([1, 4, 4, 2], "int8", scale=0.1, zero_point=0)
    p = mb.tensor([1, 6, 6, 2], "int8", scale=0.1, zero_point=0)
    mb.operator("PAD", [x, mb.tensor([4, 2], "int32", data=np.array([[0, 0], [1, 1], [1, 1], [0, 0]]))], [p])
    y = mb.tensor([1, 4, 4, 2], "int8", scale=0.1, zero_point=0)
    mb.operator("AVERAGE_POOL_2D", [p], [y], {"padding": "VALID", "stride_h": 1, "stride_w": 1, "filter_height": 3,
                                              "filter_width": 3, "fused_activation_function": "NONE"})
    assert fuse_pad.fuse_pads(lower(mb.build([x], [y]))) == []


def test_fusion_saves_the_padded_copy() -> None:
    saved = 0
    for seed in SEEDS:
        model, _ = pad_model(seed)
        fast = compile_bytes(model, "m", CompileOptions(io="workspace")).metadata
        low = compile_bytes(model, "m", CompileOptions(memory="min", io="workspace"))
        assert {op.op for op in low.graph.operators} & {"PAD", "PADV2"} == set()
        assert low.metadata["workspace_bytes"] <= fast["workspace_bytes"], seed
        saved += low.metadata["workspace_bytes"] < fast["workspace_bytes"]
    assert saved >= len(SEEDS) // 2


def check_on_m4(tmp_path: Path, models: dict[str, bytes], core: str = "m4") -> dict[str, dict]:
    """Build ``models`` for Cortex-M4 (``core``: benchmarks.runner.CORES) with --memory min --io
    workspace and run them on QEMU against the generic --memory fast build on the host, the host
    against the reference; int8 byte for byte, float32 within the tolerance (another compiler, FMA
    contraction). Returns each model's metadata.json of the Cortex-M build."""
    need("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "cc")
    from test_kernels_arm_dsp import _qemu

    from benchmarks import reference
    from benchmarks.compare import outputs_match
    from benchmarks.models import BenchModel
    from benchmarks.runner import CORES, build, model_metadata, parse_program_output

    bench = []
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, model in models.items():
        path = tmp_path / f"{name}.tflite"
        path.write_bytes(model)
        bench.append(BenchModel(name, path, "test"))
    build(bench, None, "O2", tmp_path / "host", target="generic")
    cpu = CORES[core]
    build(bench, cpu, "Os", tmp_path / "m4", io="workspace", target=cpu.cpu, codegen_args="--memory min")
    metas = {}
    for m in bench:
        meta = metas[m.name] = model_metadata(tmp_path / "m4", m)
        host = parse_program_output(subprocess.run([str(tmp_path / "host" / f"bench_{m.name}")],
                                                   capture_output=True, text=True, timeout=300).stdout)
        assert reference.check(m, model_metadata(tmp_path / "host", m), host.outputs).startswith("identical")
        rc, out = _qemu(tmp_path / "m4" / f"bench_{m.name}.elf", tmp_path, machine=cpu.machine)
        target = parse_program_output(out)
        assert rc == 0 and target.rc == 0, out[-2000:]
        dtypes = [t["dtype"] for t in meta["outputs"]]
        ok, how = outputs_match(target.outputs, host.outputs, dtypes)
        assert ok and (how == "identical" or set(dtypes) == {"float32"}), f"{m.name}: {how}"
    return metas


def test_on_cortex_m4(tmp_path: Path) -> None:
    """--target cortex-m4 --memory min: the DSP kernels with the PAD's asymmetric padding."""
    models = {f"pad{seed}": pad_model(seed)[0] for seed in (SEEDS if FULL else SEEDS[:3])}
    for core in ("m4", "m55") if FULL else ("m4",):   # m55: the Helium kernels, in the full run
        metas = check_on_m4(tmp_path / core, models, core)
        assert all(meta["memory_transforms"]["fused_pads"] for meta in metas.values())
