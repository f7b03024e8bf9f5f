"""--optimize speed|balanced|size (CLI, CMake OPTIMIZE_FOR, SCons optimize_for=): int16 pre-widened
weights for the DSP CONV_2D (kernels/arm_dsp/conv2d_s8_q15w.h; ops/conv.py widen, balanced_plan),
their flash cost in `info`, and tuning records tied to the mode. Code generation only (the kernels'
outputs on QEMU: tests/test_kernels_arm_dsp.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from utvm_build import CompileOptions, compile_model
from utvm_build.compiler import lower
from utvm_build.errors import UtvmError
from utvm_build.ops import conv
from utvm_build.tuning import KIND, VERSION, write_record

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"


def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def _conv_kernels(meta: dict) -> list[list[str]]:
    return [r["kernels"] for r in meta["operators"] if r["op"] == "CONV_2D"]


def test_modes_choose_the_weight_layout(tmp_path):
    got = {}
    for mode in ("speed", "balanced", "size"):
        res = compile_model(DIGITS, tmp_path / mode, CompileOptions(target="cortex-m4", optimize=mode))
        got[mode] = (_conv_kernels(res.metadata), res.metadata["constants_bytes"])
        assert res.metadata["options"].get("optimize", "balanced") == mode
    assert got["speed"][0] == [["conv2d_s8_q15w"]] * 2
    assert got["size"][0] == [["conv2d_s8_q15"]] * 2
    assert got["balanced"] == got["speed"]                  # a small model: within the allowance
    assert got["speed"][1] > got["size"][1]                 # the int16 lanes cost flash
    # the generic target has no such kernel: every mode gives the same C
    files = []
    for mode in ("speed", "size"):
        res = compile_model(DIGITS, tmp_path / f"g_{mode}", CompileOptions(optimize=mode))
        files.append(sorted(p.read_bytes() for p in (tmp_path / f"g_{mode}" / "src").glob("*.c")))
        assert _conv_kernels(res.metadata) == [["conv2d_s8"]] * 2
    assert files[0] == files[1]


def test_stripes_keep_their_layer_mode(tmp_path):
    """--memory min runs KWS's convolutions in stripes (passes/patches.py), each stripe an operator
    prepared again: it keeps its layer's --optimize choice (balanced widens every KWS layer)."""
    sys.path.append(str(ROOT))  # benchmarks/ is not an installed package
    from benchmarks import mlperf_tiny

    model = tmp_path / "kws.tflite"
    model.write_bytes(mlperf_tiny.MODELS["kws_dscnn"]())
    for mode, kernel in (("balanced", "conv2d_s8_q15w"), ("size", "conv2d_s8_q15")):
        res = compile_model(model, tmp_path / mode, CompileOptions(target="cortex-m4", memory="min", optimize=mode))
        stripes = [r["kernels"] for r in res.metadata["operators"] if r["op"] == "CONV_2D" and "patch" in r]
        assert len(stripes) >= 2, res.metadata["operators"]
        assert all(ks == [kernel] for ks in stripes), (mode, stripes)


def test_balanced_plan_spends_its_budget_on_the_most_pixels_first(monkeypatch):
    g = lower(DIGITS.read_bytes())
    cands = {op.index: conv.widen_candidate(g, op) for op in g.operators if conv.widen_candidate(g, op)}
    assert len(cands) == 2
    first, second = sorted(cands, key=lambda k: -cands[k][0])
    assert cands[first][0] > cands[second][0]
    assert conv.balanced_plan(g) == {first, second}
    monkeypatch.setattr(conv, "WIDEN_BUDGET", 0.0)
    monkeypatch.setattr(conv, "WIDEN_ALLOWANCE", cands[first][1])       # room for the first only
    assert conv.balanced_plan(g) == {first}
    monkeypatch.setattr(conv, "WIDEN_ALLOWANCE", cands[first][1] - 1)   # for none: in pixel order
    assert conv.balanced_plan(g) == set()
    monkeypatch.setattr(conv, "WIDEN_ALLOWANCE", 10**9)
    monkeypatch.setattr(conv, "WIDEN_MIN_PIXELS", cands[second][0] + 1)
    assert conv.balanced_plan(g) == {first}


def test_info_reports_the_flash_cost():
    r = _cli("info", DIGITS, "--target", "cortex-m4", "--optimize", "speed", "--json")
    assert r.returncode == 0, r.stderr
    o = json.loads(r.stdout)["optimize"]
    assert o["mode"] == "speed" and len(o["widened_operators"]) == 2 and o["extra_flash_bytes"] > 0
    r = _cli("info", DIGITS, "--target", "cortex-m4", "--optimize", "size")
    assert r.returncode == 0 and "optimize: size: int16 pre-widened weights for 0 convolutions, 0 bytes" in r.stdout


def test_unknown_mode_is_one_line_exit_2(tmp_path):
    r = _cli("compile", DIGITS, "-o", tmp_path / "gen", "--optimize", "fast")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--optimize" in r.stderr, r.stderr
    assert not (tmp_path / "gen").exists()
    with pytest.raises(UtvmError, match="optimize mode"):
        CompileOptions(optimize="fast").validate()


def test_tuning_record_applies_with_its_mode_only(tmp_path):
    record = tmp_path / "t.json"
    doc = {"kind": KIND, "version": VERSION, "target": "cortex-m4", "optimize": "speed",
           "toolchain": {"compiler": "arm-none-eabi-gcc", "version": "12.2.1", "flags": []},
           "device": "qemu-m4", "metric": "instructions", "layers": []}
    write_record(record, doc)
    r = _cli("compile", DIGITS, "-o", tmp_path / "a", "--target", "cortex-m4", "--tuning", record)
    assert r.returncode == 0 and "--optimize speed, not balanced: ignored" in r.stderr, r.stderr
    r = _cli("compile", DIGITS, "-o", tmp_path / "b", "--target", "cortex-m4", "--optimize", "speed",
             "--tuning", record)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    write_record(record, {**doc, "optimize": "fastest"})
    r = _cli("compile", DIGITS, "-o", tmp_path / "c", "--target", "cortex-m4", "--tuning", record)
    assert r.returncode == 2 and '"optimize" must be one of' in r.stderr, r.stderr


def test_cmake_and_scons_options(tmp_path):
    import shutil as sh

    import test_cmake as cm
    import test_scons as sc

    src = cm.project(tmp_path / "cm", "utvm_add_model(net MODEL model.tflite NAME net TARGET cortex-m4 "
                                      "OPTIMIZE_FOR size)\n", model=DIGITS)
    cm.configure(src, tmp_path / "cm" / "b")
    meta = json.loads((tmp_path / "cm" / "b" / "utvm" / "net" / "metadata.json").read_text())
    assert _conv_kernels(meta) == [["conv2d_s8_q15"]] * 2 and meta["options"]["optimize"] == "size"
    cc = sh.which("gcc") or "gcc"
    sconstruct = ("import os\n"
                  f"env = Environment(tools=['default', 'utvm'], toolpath=[{str(sc.TOOLPATH)!r}], CC={cc!r}, "
                  "ENV={k: os.environ[k] for k in ('PATH', 'PYTHONPATH') if k in os.environ})\n"
                  "env.UtvmModel('net', 'model.tflite', name='net', cpu='cortex-m4', output_dir='gen', "
                  "optimize_for='size')\n")
    d = sc.project(tmp_path / "sc", sconstruct, model=DIGITS)
    sc.scons(d, "gen")
    meta = json.loads((d / "gen" / "metadata.json").read_text())
    assert _conv_kernels(meta) == [["conv2d_s8_q15"]] * 2 and meta["options"]["optimize"] == "size"
    (d / "SConstruct").write_text(sconstruct.replace("optimize_for='size'", "optimize_for='fast'"))
    p = sc.scons(d, "gen", ok=False)
    assert p.returncode == 2 and "optimize_for" in p.stderr, p.stderr
