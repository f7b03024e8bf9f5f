"""Compare the host build's outputs with TensorFlow Lite's reference kernels.

The benchmark program fills its inputs from a xorshift32 sequence (bench_main.c); the same
inputs are rebuilt here and run through the oracle of the test suite (tests/oracle.py:
tflite-runtime's BUILTIN_REF kernels, or TFLM's interpreter where the former cannot run the
model or ours follows TFLM: _TFLM_ONLY). A model with state is fed the same sequence of calls as
bench_main.c (its warm-up calls, then the measured one) through one interpreter and compared on the
last call; a detection model on the output slots the reference writes. Needs the test extras;
without them the check says so instead of failing.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.models import REPO, BenchModel, warmup

# tflite-runtime's reference SVDF aborts on keyword_scrambled_8bit; the converter-made int8 LSTM (gate
# intermediates unquantized) runs as TFLite Micro (TFLite's kernel gives meaningless results on it);
# the audio front end's Signal* custom operators exist only in TFLM; tflite-runtime refuses
# person_detect's rank-1 biases declared with quantized_dimension 3 (TFLM reads them per-tensor)
_TFLM_ONLY = {"keyword_scrambled_8bit", "keras_lstm_int8", "audio_preprocessor_int8", "person_detect"}
_DTYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32,
           "float32": np.float32}


def bench_inputs(meta: dict, steps: int | None = None) -> list:
    """The inputs bench_main.c feeds the model (same generator, same order); with ``steps``, one
    list per call of a model with state (the generator runs on from call to call)."""
    state = 0x2545F491

    def next_u32() -> int:
        nonlocal state
        x = state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        state = x
        return x

    def one_call() -> list[np.ndarray]:
        arrays = []
        for t in meta["inputs"]:
            if t["dtype"] == "float32":
                values = [((next_u32() % 2049) - 1024) / 1024.0 for _ in range(t["bytes"] // 4)]
                a = np.array(values, dtype=np.float32)
            else:
                a = np.frombuffer(bytes((next_u32() >> 24) for _ in range(t["bytes"])),
                                  dtype=_DTYPES[t["dtype"]]).copy()
            arrays.append(a.reshape(t["shape"]))
        return arrays

    return one_call() if steps is None else [one_call() for _ in range(steps)]


_SEQUENCE = """
import sys
import numpy as np
from tflite_runtime.interpreter import Interpreter, OpResolverType
it = Interpreter(model_path=sys.argv[1], experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
it.allocate_tensors()
feeds = np.load(sys.argv[2])
steps = int(sys.argv[3])
for t in range(steps):
    for k, d in enumerate(it.get_input_details()):
        it.set_tensor(d["index"], feeds[f"s{t}_{k}"])
    it.invoke()
np.savez(sys.argv[4], *[np.array(it.get_tensor(d["index"])) for d in it.get_output_details()])
"""

_SEQUENCE_TFLM = """
import sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime
it = runtime.Interpreter.from_bytes(open(sys.argv[1], "rb").read(), arena_size=1 << 22)
feeds = np.load(sys.argv[2])
steps = int(sys.argv[3])
n_in = sum(1 for k in feeds.files if k.startswith("s0_"))
for t in range(steps):
    for k in range(n_in):
        it.set_input(feeds[f"s{t}_{k}"], k)
    it.invoke()
np.savez(sys.argv[4], *[np.array(it.get_output(i), copy=True) for i in range(int(sys.argv[5]))])
"""


def reference_sequence(path: Path, steps: list[list[np.ndarray]], tflm_outputs: int = 0) -> list[np.ndarray]:
    """The outputs of the last call when one tflite-runtime interpreter (BUILTIN_REF), or with
    ``tflm_outputs`` (the model's number of outputs) one TFLM interpreter, is fed every call's inputs in
    turn (a model with state; a subprocess, as the test suite's oracle)."""
    with tempfile.TemporaryDirectory(prefix="bench-ref-") as tmp:
        feeds = Path(tmp) / "feeds.npz"
        np.savez(feeds, **{f"s{t}_{k}": a for t, arrays in enumerate(steps) for k, a in enumerate(arrays)})
        out = Path(tmp) / "out.npz"
        script, extra = (_SEQUENCE_TFLM, [str(tflm_outputs)]) if tflm_outputs else (_SEQUENCE, [])
        proc = subprocess.run([sys.executable, "-c", script, str(path), str(feeds), str(len(steps)), str(out), *extra],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"the reference failed: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
        z = np.load(out)
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def detection_slots(path: Path, meta: dict, ref: list[np.ndarray]) -> dict[int, np.ndarray] | None:
    """For a model ending in TFLite_Detection_PostProcess: output position -> the rows the
    reference writes (it leaves the others as its arena had them); None for other models."""
    if not any(o["op"] == "CUSTOM(TFLite_Detection_PostProcess)" for o in meta["operators"]):
        return None
    from utvm_build.frontend.tflite import read_tflite

    g = read_tflite(path.read_bytes())
    op = next(o for o in g.operators if o.op == "CUSTOM(TFLite_Detection_PostProcess)")
    boxes, classes, scores, num = (list(g.outputs).index(t) for t in op.outputs)
    max_cls = int(op.options["max_classes_per_detection"])
    slots = int(np.asarray(ref[classes]).size)
    n = int(np.asarray(ref[num]).ravel()[0])
    slot = np.arange(slots)
    rows = slot < n if op.options.get("use_regular_nms") else slot // max_cls < n
    return {boxes: rows, classes: rows, scores: rows}


def check(model: BenchModel, meta: dict, host_outputs: list[str]) -> str:
    """'identical', 'within ...', 'no reference (...)' or a description of the difference."""
    try:
        sys.path.insert(0, str(REPO / "tests"))
        import oracle  # noqa: PLC0415 (test-side module, only when wanted)
    except ImportError as e:
        return f"no reference ({e})"
    finally:
        sys.path.remove(str(REPO / "tests"))
    calls = warmup(meta) + 1
    tflm = model.name in _TFLM_ONLY
    if tflm and not oracle.tflm_available():
        return "no reference (tflite-micro not installed)"
    try:
        if calls > 1:
            ref = reference_sequence(model.path, bench_inputs(meta, calls), len(meta["outputs"]) if tflm else 0)
        elif tflm:
            ref = oracle.micro_reference_outputs(model.path, bench_inputs(meta))
        else:
            ref = oracle.reference_outputs(model.path, bench_inputs(meta))
    except (oracle.OracleError, RuntimeError) as e:
        return f"no reference (the oracle failed: {str(e).splitlines()[0]})"
    rows = detection_slots(model.path, meta, ref) or {}
    exact = True
    for i, (r, h, t) in enumerate(zip(ref, host_outputs, meta["outputs"])):
        ours = np.frombuffer(bytes.fromhex(h), dtype=_DTYPES[t["dtype"]])
        r = np.ascontiguousarray(r).reshape(-1)
        if i in rows and ours.size == r.size:   # only the detection slots the reference writes
            keep = np.repeat(rows[i], r.size // rows[i].size)
            ours, r = ours[keep], r[keep]
        if ours.tobytes() == r.tobytes():
            continue
        exact = False
        if t["dtype"] != "float32" or ours.shape != r.shape:
            return f"DIFFERS from the reference (output {i})"
        bound = 1e-5 * max(float(np.max(np.abs(r))), 1e-30)
        if not float(np.max(np.abs(ours - r))) <= bound:
            return f"DIFFERS from the reference (output {i}, float32 beyond 1e-5 x max|out|)"
    return "identical" if exact else "within 1e-5 x max|out| (float32)"
