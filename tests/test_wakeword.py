"""A streaming wake-word model built like microWakeWord's (tests/wakeword_models.py: int8 streaming
convolutions over resource variables, CALL_ONCE, a final QUANTIZE int8 -> uint8), run step by step.

Oracle: TFLite Micro's interpreter (PyPI tflite-micro), which is what runs microWakeWord on ESP32
boards: ONE interpreter instance over STEPS = 20 consecutive calls. Every step's uint8 output is
byte-identical; after ``tvmgen_<name>_reset`` the same sequence again gives the same bytes; two
instances (``--state user``) interleaved call by call each match their own interpreter. The same
model runs on Cortex-M4 (QEMU mps2-an386) through the RPC server, byte-identical.
CI: 2 seeds; UTVM_TEST_FULL=1: 8.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from system_tools import need
from test_state import Instance, reference_sequences
from wakeword_models import wakeword_feeds, wakeword_model

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_output
from utvm_build.options import CompileOptions

STEPS = 20
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
SEEDS = range(8) if FULL else range(2)


def test_model_is_built_like_microwakeword() -> None:
    """The operators and types the issue names: resource variables, CALL_ONCE, streaming
    convolutions, uint8 output through QUANTIZE; the ring buffers are the model's state."""
    meta = compile_bytes(wakeword_model(0), "ww").metadata
    assert meta["outputs"][0]["dtype"] == "uint8" and meta["inputs"][0]["dtype"] == "int8"
    kinds = sorted((e["kind"], e["name"], e["bytes"]) for e in meta["state"])
    assert kinds == [("once", "CALL_ONCE #0", 1), ("variable", "stream_conv", 2 * 40),
                     ("variable", "stream_depthwise", 4 * 24), ("variable", "stream_window", 9 * 16)], kinds
    ops = [o["op"] for o in meta["operators"] if o["subgraph"] == 0]
    assert ops[0] == "CALL_ONCE" and ops.count("QUANTIZE") == 1, ops
    for op, n in (("VAR_HANDLE", 3), ("READ_VARIABLE", 3), ("ASSIGN_VARIABLE", 3), ("CONCATENATION", 3),
                  ("STRIDED_SLICE", 3), ("CONV_2D", 2), ("DEPTHWISE_CONV_2D", 1), ("LOGISTIC", 1)):
        assert ops.count(op) == n, (op, ops)


@pytest.mark.parametrize("seed", SEEDS)
def test_streaming_wakeword_step_by_step_against_tflm(seed: int, tmp_path: Path) -> None:
    need("gcc")
    model = wakeword_model(seed)
    feeds_a, feeds_b = wakeword_feeds(100 + seed, STEPS), wakeword_feeds(200 + seed, STEPS)
    ref_a, ref_b = reference_sequences(tmp_path, [(model, feeds_a), (model, feeds_b)], tflm=True)
    assert len(set(ref_a[0].ravel().tolist())) > 3, "the reference output hardly varies: a weak test"
    inst = Instance(tmp_path, model, f"ww{seed}")
    first = inst.run(feeds_a)
    inst.reset()
    again = inst.run(feeds_a)
    assert first[0].dtype == np.uint8
    np.testing.assert_array_equal(first[0].reshape(ref_a[0].shape), ref_a[0], err_msg="step by step")
    np.testing.assert_array_equal(again[0].reshape(ref_a[0].shape), ref_a[0], err_msg="after reset")
    user = Instance(tmp_path, model, f"ww{seed}", state="user")
    mic_a, mic_b = user.new_state(), user.new_state()
    got_a, got_b = [], []
    for t in range(STEPS):   # two instances (two microphones), interleaved call by call
        got_a.append(user.run([f[t:t + 1] for f in feeds_a], mic_a)[0])
        got_b.append(user.run([f[t:t + 1] for f in feeds_b], mic_b)[0])
    np.testing.assert_array_equal(np.concatenate(got_a).reshape(ref_a[0].shape), ref_a[0], err_msg="instance A")
    np.testing.assert_array_equal(np.concatenate(got_b).reshape(ref_b[0].shape), ref_b[0], err_msg="instance B")


def test_streaming_wakeword_on_cortex_m4_qemu(tmp_path: Path) -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    from utvm_build.rpc.build import build_qemu_server
    from utvm_build.rpc.client import popen
    from utvm_build.rpc.run import reset_on_device, run_steps

    model = wakeword_model(5)
    feeds = wakeword_feeds(7, STEPS)
    compiled = compile_bytes(model, "ww", CompileOptions(interface="packed"))
    write_output(tmp_path / "ww", compiled.files)
    (ref,) = reference_sequences(tmp_path, [(model, feeds)], tflm=True)
    server = build_qemu_server([tmp_path / "ww"], tmp_path / "rpc_server", device="qemu-m4")
    with popen(server, timeout=60) as s:
        first = run_steps(s, compiled.metadata, feeds)
        reset_on_device(s, compiled.metadata)
        again = run_steps(s, compiled.metadata, [f[:4] for f in feeds])
    np.testing.assert_array_equal(first[0].reshape(ref[0].shape), ref[0], err_msg="Cortex-M4")
    np.testing.assert_array_equal(again[0].reshape(ref[0][:4].shape), ref[0][:4], err_msg="Cortex-M4 after reset")
