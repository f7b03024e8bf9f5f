"""Per-operator timing: `compile --profile` (the entry point times each operator call with the
platform timer into tvmgen_<name>_profile[]) and `utvm-build profile --device host|qemu-*`
(the table read over RPC; on QEMU also instructions per operator from the counting plugin)."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import time_bound
from system_tools import need

from utvm_build import CompileOptions, compile_model, run_on_host
from utvm_build.host import build_shared_library

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"

bounded = time_bound.fixture(300)


class Entry(ctypes.Structure):
    _fields_ = [("op", ctypes.c_char_p), ("function", ctypes.c_char_p), ("op_index", ctypes.c_uint32),
                ("calls", ctypes.c_uint32), ("seconds", ctypes.c_double), ("last_seconds", ctypes.c_double)]


def test_standalone_profile_table(tmp_path):
    x = np.load(DIGITS / "sample_2.npy")
    assert run_on_host(MODEL, [x], CompileOptions(profile=True))[0].tobytes() == run_on_host(MODEL, [x])[0].tobytes()
    gen = tmp_path / "gen"
    compile_model(MODEL, gen, CompileOptions(profile=True))
    meta = json.loads((gen / "metadata.json").read_text())
    header = (gen / "include" / "tvmgen_digits_int8_profile.h").read_text()
    assert f"#define TVMGEN_DIGITS_INT8_PROFILE_OPS {len(meta['operators'])}" in header
    entry = (gen / "src" / "tvmgen_digits_int8.c").read_text()
    assert entry.count("tvmgen_digits_int8_profile_begin();") == len(meta["operators"])
    lib = ctypes.CDLL(str(build_shared_library(gen, tmp_path / "libp.so")))
    n = len(meta["operators"])
    table = (Entry * n).in_dll(lib, "tvmgen_digits_int8_profile")
    run = lib.tvmgen_digits_int8_run
    y = np.zeros((1, 10), np.int8)
    ins, outs = (ctypes.c_void_p * 1)(x.ctypes.data), (ctypes.c_void_p * 1)(y.ctypes.data)
    for _ in range(3):
        assert run(ctypes.byref(ins), ctypes.byref(outs)) == 0
    assert [e.op.decode() for e in table] == [r["op"] for r in meta["operators"]]
    assert [e.function.decode() for e in table] == [r["function"] for r in meta["operators"]]
    assert [e.op_index for e in table] == [r["index"] for r in meta["operators"]]
    assert all(e.calls == 3 and e.seconds >= e.last_seconds >= 0 for e in table)
    assert sum(e.seconds for e in table) > 0
    assert ctypes.c_uint32.in_dll(lib, "tvmgen_digits_int8_profile_timer_errors").value == 0
    lib.tvmgen_digits_int8_profile_reset()
    assert all(e.calls == 0 and e.seconds == 0 for e in table)


def _profile(device: str, runs: int) -> dict:
    p = subprocess.run([sys.executable, "-m", "utvm_build", "profile", str(MODEL), "--device", device, "--json",
                        "--runs", str(runs), "--input-fill", "random:3"], capture_output=True, text=True, timeout=280)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_profile_command_host():
    doc = _profile("host", 5)
    names = [r["op"] for r in doc["operators"]]
    assert names == ["CONV_2D", "MAX_POOL_2D", "CONV_2D", "AVERAGE_POOL_2D", "FULLY_CONNECTED", "FULLY_CONNECTED",
                     "SOFTMAX"]
    assert doc["runs"] == 5 and doc["total_seconds"] > 0
    assert abs(sum(r["share"] for r in doc["operators"]) - 1) < 1e-9
    assert "total_instructions" not in doc
    text = subprocess.run([sys.executable, "-m", "utvm_build", "profile", str(MODEL), "--runs", "1"],
                          capture_output=True, text=True, timeout=280).stdout
    assert "tvmgen_digits_int8_op0_conv_2d" in text and "total" in text


def test_profile_command_qemu_instructions_are_exact():
    need("arm-none-eabi-gcc", "qemu-system-arm", "make")
    one, three = _profile("qemu-m55", 1), _profile("qemu-m55", 3)
    per_op = [r["instructions"] for r in one["operators"]]
    assert all(n > 0 for n in per_op)
    # per call, the same up to the SysTick interrupts (1 kHz, a few instructions each) that fall inside
    for a, b in zip(per_op, [r["instructions"] for r in three["operators"]]):
        assert abs(a - b) <= 20 + a // 200, (a, b)
    assert one["total_instructions"] == sum(per_op)
    # the cycle estimate of the M55's model (benchmarks/cycles.py) from each operator's mix: at least one
    # cycle per instruction, and the total is the operators' sum
    cycles = [r["cycles"] for r in one["operators"]]
    assert all(c >= n for c, n in zip(cycles, per_op)) and one["total_cycles"] == sum(cycles)
    assert one["cycle_model"].startswith("cortex-m55: ")
    convs = [r["instructions"] for r in one["operators"] if r["op"] == "CONV_2D"]
    assert min(convs) > max(r["instructions"] for r in one["operators"] if r["op"] == "MAX_POOL_2D")
