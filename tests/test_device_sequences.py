"""Stateful, control-flow, LSTM and detection models step by step on Cortex-M4 under QEMU
(mps2-an386), through the RPC server (issue 15's bar: on the device, byte-identical to the oracle).

One firmware per model family (its system library holds every model of the family, packed
interface, --state static): streaming keyword models (int8, float; tf.Variable ring buffers and
CALL_ONCE), tf.cond / tf.while_loop models, the Keras LSTMs (float, int8), the converter-made SSD
detectors (float32 regular NMS and int8 fast NMS; all four with UTVM_TEST_FULL=1), TFLM's
audio_preprocessor front ends (int8, float; the signal library's custom operators: 12 steps, reset,
12 again; the float model's features came out bit-exact on the device too). Each model:
STEPS invocations of one instance (`run_steps`), `tvmgen_<name>_reset` over RPC, then AGAIN steps of
the same inputs. Oracle: tflite-runtime 2.14's reference kernels (the TFLM interpreter for the
converter-made int8 LSTM, which runs as TFLite Micro, and for the signal library), one interpreter over the sequence
(after the reset: the first steps of that run, i.e. a fresh interpreter). Integers byte-identical; float32 within
1e-5 x max|output| (the Cortex-M4 FPU fuses multiply-adds where x86-64 rounds twice); the
detection outputs are compared on the slots the reference writes (test_detection_models.compare).
The same sequences through `utvm-build run --sequence --device qemu-m4` are checked once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracle import random_inputs
from system_tools import need
from test_detection_models import compare
from test_detection_models import inputs as detection_inputs
from test_state import _tf_feeds, assert_close, reference_sequences

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_output
from utvm_build.options import CompileOptions
from utvm_build.rpc.client import popen
from utvm_build.rpc.run import reset_on_device, run_steps

DATA = Path(__file__).parent / "data"
#: TFLM's own models (the audio front ends), third-party data with their licence
TFLM_MODELS = Path(__file__).resolve().parent.parent / "third_party" / "tflite-micro"


def model_path(rel: str) -> Path:
    """tests/data/<rel>.tflite, or third_party/tflite-micro/<name>.tflite for 'signal/<name>'."""
    family, name = rel.split("/", 1)
    return TFLM_MODELS / f"{name}.tflite" if family == "signal" else DATA / f"{rel}.tflite"
STEPS, AGAIN = 12, 4
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
FAMILIES = {
    "state": ["state/streaming_kws_int8", "state/streaming_kws_float", "state/cond_float", "state/while_float"],
    "lstm": ["lstm/keras_lstm_float", "lstm/keras_lstm_int8"],
    # CI: float32 with regular NMS and int8 with fast NMS (a float32 step costs ~0.2 s of RPC transfer
    # over the emulated UART); UTVM_TEST_FULL=1: all four
    "detection": ["detection/ssd_float_regular", "detection/ssd_int8_fast"] + (
        ["detection/ssd_float_fast", "detection/ssd_int8_regular"] if FULL else []),
    "signal": ["signal/audio_preprocessor_int8", "signal/audio_preprocessor_float"],
}

TFLM_ORACLE = {"lstm/keras_lstm_int8", "signal/audio_preprocessor_int8", "signal/audio_preprocessor_float"}


def feeds(family: str, model: bytes, meta: dict) -> list[np.ndarray]:
    if family == "state":
        return _tf_feeds(meta, np.random.default_rng(15), STEPS)
    if family == "signal":   # 30 ms windows of structured audio (tones, noise, a silent and a clipped frame)
        from test_ops_signal import audio
        return [audio(int(meta["outputs"][0]["dtype"] == "float32"), STEPS)]
    if family == "lstm":
        return [np.stack([random_inputs(model, 100 + t)[0] for t in range(STEPS)])]
    return [np.stack([detection_inputs(model, 1 + t) for t in range(STEPS)])]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_family_on_cortex_m4_qemu(family: str, tmp_path: Path) -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    from utvm_build.rpc.build import build_qemu_server

    models, metas, gens, all_feeds = [], [], [], []
    for k, rel in enumerate(FAMILIES[family]):
        model = model_path(rel).read_bytes()
        compiled = compile_bytes(model, f"m{k}", CompileOptions(interface="packed"))
        write_output(tmp_path / f"m{k}", compiled.files)
        models.append(model)
        metas.append(compiled.metadata)
        gens.append(tmp_path / f"m{k}")
        all_feeds.append(feeds(family, model, compiled.metadata))
    # the converter-made int8 LSTM runs as TFLite Micro (its gate intermediates are unquantized, where
    # TensorFlow Lite's kernel gives meaningless results): its oracle is the TFLM interpreter
    tflm = [rel in TFLM_ORACLE for rel in FAMILIES[family]]
    pairs = list(zip(models, all_feeds))
    by_engine = {engine: reference_sequences(tmp_path, [p for p, t in zip(pairs, tflm) if t == engine], tflm=engine)
                 for engine in set(tflm)}
    refs = [by_engine[t].pop(0) for t in tflm]
    server = build_qemu_server(gens, tmp_path / "rpc_server", device="qemu-m4")
    with popen(server, timeout=60) as s:
        for rel, meta, f, ref in zip(FAMILIES[family], metas, all_feeds, refs):
            first = run_steps(s, meta, f)
            reset_on_device(s, meta)
            again_steps = STEPS if family == "signal" else AGAIN   # the front ends: all 12 again (cheap)
            again = run_steps(s, meta, [x[:again_steps] for x in f])
            # cond/while keep no state
            assert (meta["state_bytes"] > 0) == ("kws" in rel or family in ("lstm", "signal")), rel
            for label, ours, steps in ((f"{rel} on Cortex-M4", first, STEPS),
                                       (f"{rel} after reset", again, again_steps)):
                if family == "detection":
                    for t in range(steps):
                        errors, _ = compare(f"{rel} {'regular' if 'regular' in rel else 'fast'} step {t}",
                                            models[FAMILIES[family].index(rel)], [o[t] for o in ours],
                                            [r[t] for r in ref])
                        assert not errors, errors
                    continue
                for k, (o, r) in enumerate(zip(ours, ref)):
                    assert_close(o, r[:steps], f"{label} output {k}")


def test_run_sequence_device_qemu_m4_equals_host(tmp_path: Path) -> None:
    """`utvm-build run --sequence --device qemu-m4` (the RPC path, one session) writes what the host
    run writes (int8: byte-identical)."""
    need("gcc", "arm-none-eabi-gcc", "qemu-system-arm")
    model = DATA / "state" / "streaming_kws_int8.tflite"
    for where, extra in (("host", []), ("qemu", ["--device", "qemu-m4"])):
        p = subprocess.run([sys.executable, "-m", "utvm_build", "run", model, "--sequence", "--steps", "11",
                            "--input-fill", "random:3", "--output-dir", tmp_path / where, *extra],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
    host, qemu = (np.load(tmp_path / w / "output_0.npy") for w in ("host", "qemu"))
    assert host.shape == (11, 1, 4)
    np.testing.assert_array_equal(qemu, host)


def test_run_sequence_device_bad_steps_one_line(tmp_path: Path) -> None:
    """Inputs with different leading (time) axes: exit 2, one line, before anything is built."""
    model = DATA / "state" / "cond_float.tflite"
    meta = compile_bytes(model.read_bytes(), "cond").metadata
    files = []
    for k, p in enumerate(meta["inputs"]):
        f = tmp_path / f"in{k}.npy"
        np.save(f, np.zeros((3 + k, *p["shape"]), p["dtype"]))
        files += ["--input", f]
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", model, "--sequence", "--device", "host", *files],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "leading (time) axis" in p.stderr, p.stderr
