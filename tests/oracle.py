"""Reference outputs for conformance tests, computed in subprocesses.

The oracle is tflite-runtime 2.14 with its reference kernels (``OpResolverType.BUILTIN_REF``).
tflite-runtime crashes when many models run in one process and aborts on some models, so every
run happens in a worker subprocess (``tests/_oracle_worker.py``): ``reference_outputs_many`` runs
a whole batch in one worker; when the worker dies, the case it died on is re-run alone (a crash
there too becomes an ``OracleError`` for that case) and the remaining cases are re-run in fresh
workers (one per case with ``isolate=True``).

``micro_reference_outputs`` uses TFLM's own interpreter from the PyPI ``tflite-micro`` pre-release
package (``pip install --pre tflite-micro``; it installs next to tflite-runtime and numpy<2), for
models that the reference resolver cannot run (keyword_scrambled_8bit.tflite).
"""

from __future__ import annotations

import importlib.util
import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import numpy as np
from tflite.Model import Model
from tflite.TensorType import TensorType

__all__ = [
    "OracleError",
    "micro_reference_outputs",
    "micro_reference_outputs_many",
    "model_io",
    "random_inputs",
    "reference_outputs",
    "reference_outputs_many",
]

ModelSource = Union[bytes, bytearray, "os.PathLike[str]", str]
Case = tuple[ModelSource, Sequence[np.ndarray]]

_WORKER = Path(__file__).with_name("_oracle_worker.py")
_TYPES: dict[int, np.dtype] = {
    TensorType.FLOAT32: np.dtype(np.float32),
    TensorType.INT8: np.dtype(np.int8),
    TensorType.UINT8: np.dtype(np.uint8),
    TensorType.INT16: np.dtype(np.int16),
    TensorType.INT32: np.dtype(np.int32),
    TensorType.INT64: np.dtype(np.int64),
    TensorType.BOOL: np.dtype(np.bool_),
    TensorType.UINT32: np.dtype(np.uint32),
    TensorType.UINT64: np.dtype(np.uint64),
}
_TRANSPOSE_CONV = 67
_RESHAPE = 22


class OracleError(Exception):
    """The oracle could not produce outputs for a case (bad model/inputs, crash, timeout)."""


# ------------------------------------------------------------------ model info
@dataclass(frozen=True)
class IOTensor:
    """A model input or output as the flatbuffer declares it."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    scale: tuple[float, ...]
    zero_point: tuple[int, ...]


@dataclass(frozen=True)
class ModelIO:
    inputs: list[IOTensor]
    outputs: list[IOTensor]
    #: model input position -> int32 value it must hold (shape operands, derived from the graph)
    shape_inputs: dict[int, np.ndarray]
    activation_bytes: int


def _read_model(model: ModelSource) -> bytes:
    if isinstance(model, (bytes, bytearray)):
        return bytes(model)
    return Path(model).read_bytes()


def model_io(model: ModelSource) -> ModelIO:
    """Inputs/outputs of subgraph 0, parsed from the flatbuffer (no interpreter involved)."""
    data = _read_model(model)
    try:
        m = Model.GetRootAsModel(data, 0)
        sg = m.Subgraphs(0)

        def info(t: int) -> IOTensor:
            ten = sg.Tensors(t)
            q = ten.Quantization()
            scale = tuple(float(s) for s in q.ScaleAsNumpy()) if q is not None and q.ScaleLength() else ()
            zp = tuple(int(z) for z in q.ZeroPointAsNumpy()) if q is not None and q.ZeroPointLength() else ()
            if ten.Type() not in _TYPES:
                raise OracleError(f"tensor {t}: unsupported type {ten.Type()}")
            name = ten.Name()
            return IOTensor(t, name.decode() if name else "", tuple(int(d) for d in ten.ShapeAsNumpy()),
                            _TYPES[ten.Type()], scale, zp)

        ins = [info(int(t)) for t in sg.InputsAsNumpy()]
        outs = [info(int(t)) for t in sg.OutputsAsNumpy()]
        pos = {t.index: k for k, t in enumerate(ins)}
        shape_inputs: dict[int, np.ndarray] = {}
        for i in range(sg.OperatorsLength()):
            op = sg.Operators(i)
            oc = m.OperatorCodes(op.OpcodeIndex())
            code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
            operand = {_TRANSPOSE_CONV: 0, _RESHAPE: 1}.get(code)
            if operand is None or op.InputsLength() <= operand or op.OutputsLength() < 1:
                continue
            t = int(op.Inputs(operand))
            if t in pos:
                out_shape = sg.Tensors(int(op.Outputs(0))).ShapeAsNumpy()
                shape_inputs[pos[t]] = np.asarray(out_shape, dtype=np.int32)
        act = 0
        for t in range(sg.TensorsLength()):
            ten = sg.Tensors(t)
            buf = m.Buffers(ten.Buffer())
            if buf is None or buf.DataLength() == 0:
                n = int(np.prod(ten.ShapeAsNumpy(), dtype=np.int64)) if ten.ShapeLength() else 1
                act += n * _TYPES.get(ten.Type(), np.dtype(np.float64)).itemsize
    except OracleError:
        raise
    except Exception as e:
        raise OracleError(f"cannot parse model: {type(e).__name__}: {e}") from e
    return ModelIO(ins, outs, shape_inputs, act)


def random_inputs(model: ModelSource, seed: int, fixed: Mapping[int, np.ndarray] | None = None) -> list[np.ndarray]:
    """Deterministic random inputs for ``model``'s inputs (shapes/dtypes from the flatbuffer).

    Integer inputs are uniform over the whole dtype range, float32 uniform in [-1, 1), bool 0/1.
    ``fixed`` (input position -> array) overrides inputs. Shape operands fed from a model input
    (TRANSPOSE_CONV's output_shape, RESHAPE's shape) are not random: they get the real output shape
    declared in the model, unless ``fixed`` gives them.
    """
    io = model_io(model)
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    for k, t in enumerate(io.inputs):
        x = _random_array(rng, t.shape, t.dtype)  # always drawn: keeps other inputs independent of ``fixed``
        if fixed is not None and k in fixed:
            x = np.asarray(fixed[k], dtype=t.dtype)
        elif k in io.shape_inputs:
            x = io.shape_inputs[k].astype(t.dtype).reshape(t.shape)
        out.append(x)
    return out


def _random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    if dtype == np.float32:
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape, dtype=np.int8).astype(np.bool_)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


# ------------------------------------------------------------------- running
def reference_outputs(model: ModelSource, inputs: Sequence[np.ndarray], *, timeout: float = 120.0) -> list[np.ndarray]:
    """Outputs of tflite-runtime's reference kernels for one model (raises OracleError)."""
    res = reference_outputs_many([(model, inputs)], timeout=timeout)[0]
    if isinstance(res, OracleError):
        raise res
    return res


def reference_outputs_many(
    cases: Sequence[Case],
    *,
    batch_size: int = 500,
    timeout: float = 120.0,
    isolate: bool = False,
) -> list[list[np.ndarray] | OracleError]:
    """Reference outputs for many (model, inputs) cases, in order; failures become OracleError items.

    Runs up to ``batch_size`` cases per worker process. ``timeout`` is per case (a worker making
    no progress for that long is killed and its current case counts as crashed).
    """
    return _run_many(cases, "ref", batch_size=batch_size, timeout=timeout, isolate=isolate)


def builtin_outputs_many(cases: Sequence[Case], *, batch_size: int = 500, timeout: float = 120.0,
                         isolate: bool = False) -> list[list[np.ndarray] | OracleError]:
    """Like ``reference_outputs_many`` with tflite-runtime's default resolver (``BUILTIN``), for the
    operators 2.14's reference resolver does not register (BROADCAST_TO, CUMSUM, ...)."""
    return _run_many(cases, "builtin", batch_size=batch_size, timeout=timeout, isolate=isolate)


def micro_reference_outputs(model: ModelSource, inputs: Sequence[np.ndarray], *,
                            timeout: float = 120.0) -> list[np.ndarray]:
    """Outputs of TFLM's interpreter (PyPI ``tflite-micro``) for one model (raises OracleError)."""
    res = micro_reference_outputs_many([(model, inputs)], timeout=timeout)[0]
    if isinstance(res, OracleError):
        raise res
    return res


def micro_reference_outputs_many(cases: Sequence[Case], *, batch_size: int = 500, timeout: float = 120.0,
                                 isolate: bool = False) -> list[list[np.ndarray] | OracleError]:
    """Like ``reference_outputs_many`` but with TFLM's interpreter (one fresh interpreter per case)."""
    if not tflm_available():
        raise OracleError("tflite-micro is not installed: pip install --pre tflite-micro")
    return _run_many(cases, "tflm", batch_size=batch_size, timeout=timeout, isolate=isolate)


def tflm_available() -> bool:
    """True if the ``tflite-micro`` package is importable by this interpreter."""
    return importlib.util.find_spec("tflite_micro") is not None


def _run_many(cases: Sequence[Case], engine: str, *, batch_size: int, timeout: float,
              isolate: bool) -> list[list[np.ndarray] | OracleError]:
    results: list[list[np.ndarray] | OracleError | None] = [None] * len(cases)
    root = tempfile.mkdtemp(prefix="utvm-oracle-")
    try:
        prepared: list[dict | None] = []
        for i, (model, inputs) in enumerate(cases):
            try:
                prepared.append(_prepare_case(root, i, model, inputs))
            except OracleError as e:
                results[i] = e
                prepared.append(None)
            except Exception as e:
                results[i] = OracleError(f"case {i}: cannot prepare: {type(e).__name__}: {e}")
                prepared.append(None)
        pending = [i for i, p in enumerate(prepared) if p is not None]
        for start in range(0, len(pending), max(1, batch_size)):
            _run_batch(root, engine, pending[start:start + batch_size], prepared, results, timeout, isolate)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return [r if r is not None else OracleError("internal: case not run") for r in results]


def _prepare_case(root: str, i: int, model: ModelSource, inputs: Sequence[np.ndarray]) -> dict:
    case_dir = os.path.join(root, f"c{i}")
    os.mkdir(case_dir)
    if isinstance(model, (bytes, bytearray)):
        path = os.path.join(case_dir, "model.tflite")
        with open(path, "wb") as f:
            f.write(model)
        data = bytes(model)
    else:
        path = os.fspath(Path(model).resolve())
        data = Path(path).read_bytes()
    io = model_io(data)
    names = []
    for k, x in enumerate(inputs):
        name = f"in{k}.npy"
        # np.ascontiguousarray makes a 0-d array 1-d: keep scalars (FILL's value) scalar
        np.save(os.path.join(case_dir, name), np.ascontiguousarray(x).reshape(np.shape(x)), allow_pickle=False)
        names.append(name)
    arena = max(len(data) * 10, 4 * io.activation_bytes + (1 << 20))
    return {"dir": case_dir, "model": path, "inputs": names, "n_outputs": len(io.outputs), "arena_size": arena}


def _run_batch(root: str, engine: str, batch: list[int], prepared: list[dict | None],
               results: list, timeout: float, isolate: bool) -> None:
    """Run ``batch`` in one worker; on a crash, isolate the crashing case and resume."""
    todo = list(batch)
    while todo:
        done, err = _spawn(root, engine, [prepared[i] for i in todo], timeout)  # type: ignore[misc]
        for i in todo[:done]:
            results[i] = _collect(prepared[i])  # type: ignore[arg-type]
        if done == len(todo):
            return
        crashed, rest = todo[done], todo[done + 1:]
        if len(todo) > 1:  # confirm alone: a crash can be a side effect of earlier cases
            alone_done, alone_err = _spawn(root, engine, [prepared[crashed]], timeout)  # type: ignore[list-item]
            results[crashed] = _collect(prepared[crashed]) if alone_done else OracleError(  # type: ignore[arg-type]
                f"case {crashed}: oracle worker died: {alone_err}")
        else:
            results[crashed] = OracleError(f"case {crashed}: oracle worker died: {err}")
        if isolate:
            for i in rest:
                _run_batch(root, engine, [i], prepared, results, timeout, isolate=False)
            return
        todo = rest


def _spawn(root: str, engine: str, cases: list[dict], timeout: float) -> tuple[int, str]:
    """Run cases in one worker; returns (number of cases finished, failure description)."""
    for c in cases:  # a re-run must not see stale status from an earlier worker
        for name in os.listdir(c["dir"]):
            if name.startswith(("out", "status")):
                os.unlink(os.path.join(c["dir"], name))
    wdir = tempfile.mkdtemp(dir=root, prefix="w")
    with open(os.path.join(wdir, "manifest.json"), "w") as f:
        json.dump({"engine": engine, "cases": cases}, f)
    err_path = os.path.join(wdir, "stderr.txt")
    with open(err_path, "wb") as err_file:
        proc = subprocess.Popen([sys.executable, str(_WORKER), wdir], stdout=subprocess.PIPE, stderr=err_file,
                                stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    done = 0
    why = ""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buf = b""
    deadline = time.monotonic() + timeout + 5.0  # + worker start-up
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                why = f"no progress for {timeout:.0f} s (timeout)"
                break
            if not sel.select(timeout=left):
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.startswith(b"done "):
                    done += 1
                    deadline = time.monotonic() + timeout
    finally:
        sel.close()
        rc = proc.wait()
        proc.stdout.close()
    if done < len(cases) and not why:
        why = f"exit status {rc}" if rc >= 0 else f"killed by signal {-rc}"
    if done < len(cases):
        tail = Path(err_path).read_text(errors="replace").strip().splitlines()[-5:]
        if tail:
            why += ": " + " | ".join(tail)
    return done, why


def _collect(case: dict) -> list[np.ndarray] | OracleError:
    status_path = os.path.join(case["dir"], "status.json")
    try:
        with open(status_path) as f:
            status = json.load(f)
    except OSError as e:
        return OracleError(f"missing worker status: {e}")
    if not status["ok"]:
        return OracleError(status["error"])
    return [np.load(os.path.join(case["dir"], f"out{k}.npy"), allow_pickle=False)
            for k in range(status["n_outputs"])]
