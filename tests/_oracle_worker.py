"""Subprocess worker of tests/oracle.py: runs a batch of models in one process.

Usage: ``python _oracle_worker.py <workdir>``. ``<workdir>/manifest.json`` holds
``{"engine": "ref" | "tflm", "cases": [{"dir", "model", "inputs", "n_outputs", "arena_size"}]}``.
Cases run in order; for each one the worker writes ``out<k>.npy`` and then ``status.json``
(``{"ok": true, "n_outputs": n}`` or ``{"ok": false, "error": msg}``) into the case dir and
prints ``done <i>`` on stdout. A case that kills the process has no status.json.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from typing import Any

import numpy as np


def _check_inputs(inputs: list[np.ndarray], details: list[dict[str, Any]]) -> None:
    if len(inputs) != len(details):
        raise ValueError(f"model has {len(details)} inputs, got {len(inputs)}")
    for k, (x, d) in enumerate(zip(inputs, details)):
        if np.dtype(x.dtype) != np.dtype(d["dtype"]):
            raise ValueError(f"input {k}: model wants {np.dtype(d['dtype'])}, got {x.dtype}")


def _run_ref(case: dict[str, Any], inputs: list[np.ndarray], builtin: bool = False) -> list[np.ndarray]:
    from tflite_runtime.interpreter import Interpreter, OpResolverType

    it = Interpreter(
        model_path=case["model"],
        experimental_op_resolver_type=OpResolverType.BUILTIN if builtin else OpResolverType.BUILTIN_REF,
        num_threads=1,
    )
    details = it.get_input_details()
    _check_inputs(inputs, details)
    for x, d in zip(inputs, details):
        if tuple(x.shape) != tuple(d["shape"]):
            it.resize_tensor_input(d["index"], list(x.shape), strict=False)
    it.allocate_tensors()
    for x, d in zip(inputs, it.get_input_details()):
        it.set_tensor(d["index"], x)
    it.invoke()
    outs = [np.array(it.get_tensor(d["index"]), copy=True) for d in it.get_output_details()]
    del it
    gc.collect()  # free the interpreter now, so a heap error shows up within this case
    return outs


def _run_tflm(case: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
    from tflite_micro.python.tflite_micro import runtime

    with open(case["model"], "rb") as f:
        model = f.read()
    it = runtime.Interpreter.from_bytes(model, arena_size=case.get("arena_size"))
    details = [it.get_input_details(k) for k in range(len(inputs))]
    _check_inputs(inputs, details)
    for k, x in enumerate(inputs):
        it.set_input(x, k)
    it.invoke()
    outs = [np.array(it.get_output(k), copy=True) for k in range(case["n_outputs"])]
    del it
    gc.collect()
    return outs


def _write_status(case_dir: str, status: dict[str, Any]) -> None:
    tmp = os.path.join(case_dir, "status.json.tmp")
    with open(tmp, "w") as f:
        json.dump(status, f)
    os.replace(tmp, os.path.join(case_dir, "status.json"))


def main(workdir: str) -> int:
    with open(os.path.join(workdir, "manifest.json")) as f:
        manifest = json.load(f)
    engine = manifest["engine"]
    run = _run_tflm if engine == "tflm" else (lambda c, x: _run_ref(c, x, builtin=True)) if engine == "builtin" \
        else _run_ref
    for i, case in enumerate(manifest["cases"]):
        case_dir = case["dir"]
        try:
            inputs = [np.load(os.path.join(case_dir, name), allow_pickle=False) for name in case["inputs"]]
            outs = run(case, inputs)
            for k, out in enumerate(outs):
                np.save(os.path.join(case_dir, f"out{k}.npy"), out, allow_pickle=False)
            status: dict[str, Any] = {"ok": True, "n_outputs": len(outs)}
        except Exception as e:  # reported to the parent as OracleError
            status = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()}
        _write_status(case_dir, status)
        sys.stdout.write(f"done {i}\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
