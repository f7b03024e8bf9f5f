"""Compare the host build's outputs with TensorFlow Lite's reference kernels.

The benchmark program fills its inputs from a xorshift32 sequence (bench_main.c); the same
inputs are rebuilt here and run through the oracle of the test suite (tests/oracle.py:
tflite-runtime's BUILTIN_REF kernels, or TFLM's interpreter where the former cannot run the
model). Needs the test extras; without them the check says so instead of failing.
"""

from __future__ import annotations

import sys

import numpy as np

from benchmarks.models import REPO, BenchModel

_TFLM_ONLY = {"keyword_scrambled_8bit"}  # tflite-runtime's reference SVDF aborts on it
_DTYPES = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "int32": np.int32,
           "float32": np.float32}


def bench_inputs(meta: dict) -> list[np.ndarray]:
    """The inputs bench_main.c feeds the model (same generator, same order)."""
    state = 0x2545F491

    def next_u32() -> int:
        nonlocal state
        x = state
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        state = x
        return x

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


def check(model: BenchModel, meta: dict, host_outputs: list[str]) -> str:
    """'identical', 'within ...', 'no reference (...)' or a description of the difference."""
    try:
        sys.path.insert(0, str(REPO / "tests"))
        import oracle  # noqa: PLC0415 (test-side module, only when wanted)
    except ImportError as e:
        return f"no reference ({e})"
    finally:
        sys.path.remove(str(REPO / "tests"))
    inputs = bench_inputs(meta)
    try:
        if model.name in _TFLM_ONLY:
            if not oracle.tflm_available():
                return "no reference (tflite-micro not installed)"
            ref = oracle.micro_reference_outputs(model.path, inputs)
        else:
            ref = oracle.reference_outputs(model.path, inputs)
    except oracle.OracleError as e:
        return f"no reference (the oracle failed: {str(e).splitlines()[0]})"
    exact = True
    for i, (r, h, t) in enumerate(zip(ref, host_outputs, meta["outputs"])):
        ours = np.frombuffer(bytes.fromhex(h), dtype=_DTYPES[t["dtype"]])
        r = np.ascontiguousarray(r).reshape(-1)
        if ours.tobytes() == r.tobytes():
            continue
        exact = False
        if t["dtype"] != "float32" or ours.shape != r.shape:
            return f"DIFFERS from the reference (output {i})"
        bound = 1e-5 * max(float(np.max(np.abs(r))), 1e-30)
        if not float(np.max(np.abs(ours - r))) <= bound:
            return f"DIFFERS from the reference (output {i}, float32 beyond 1e-5 x max|out|)"
    return "identical" if exact else "within 1e-5 x max|out| (float32)"
