"""One inference on a device through RPC: what `utvm-build run --device host|qemu-m4` needs."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import UtvmError

DEVICES = ("host", "qemu-m4", "qemu-m55", "serial:PORT")


def run_on_device(model: str | Path, inputs: Sequence[np.ndarray] | None = None, *, device: str = "host",
                  timeout: float = 30.0, sequence: bool = False) -> list[np.ndarray]:
    """Compile ``model`` (a .tflite, or a directory generated with --interface packed), build the RPC
    server for ``device``, upload the inputs (model order; default zeros), run the packed entry
    point once and download the outputs (model order). ``sequence``: the inputs' leading axis is
    time: the entry point runs once per step in one session (one model instance, state carried from
    its initial value) and the outputs have the same leading axis."""
    from ..compiler import compile_model
    from ..options import CompileOptions

    if device not in DEVICES[:-1] and not device.startswith("serial:"):
        raise UtvmError(f"unknown device {device!r} (one of {', '.join(DEVICES)})")
    with tempfile.TemporaryDirectory(prefix="utvm-run-") as tmp:
        work = Path(tmp)
        gen = Path(model)
        if not gen.is_dir():
            gen = work / "gen"
            compile_model(model, gen, CompileOptions(interface="packed"))
        meta = json.loads((gen / "metadata.json").read_text())
        ins = meta["inputs"]
        if inputs is None:
            inputs = [np.zeros(([1] if sequence else []) + list(p["shape"]), p["dtype"]) for p in ins]
        _check_inputs(meta, inputs, sequence)
        with _session(device, gen, work, timeout) as s:
            if sequence:
                reset_on_device(s, meta)   # a firmware on a serial port may have run before
                return run_steps(s, meta, inputs)
            return [o[0] for o in run_steps(s, meta, [np.asarray(v)[None] for v in inputs])]


def _check_inputs(meta: dict, inputs: Sequence[np.ndarray], sequence: bool) -> int:
    """The number of steps (1 without ``sequence``); one-line errors for a wrong count or size."""
    ins = meta["inputs"]
    if len(inputs) != len(ins):
        raise UtvmError(f"the model has {len(ins)} inputs, {len(inputs)} given")
    steps = {int(np.asarray(v).shape[0]) if np.asarray(v).ndim else -1 for v in inputs} if sequence else {1}
    if len(steps) != 1 or min(steps) < 1:
        raise UtvmError("--sequence: every input needs the same leading (time) axis of at least one step")
    n = steps.pop()
    for v, p in zip(inputs, ins):
        want = int(np.prod(p["shape"], dtype=np.int64)) * (n if sequence else 1)
        if np.asarray(v).size != want:
            steps_of = f"{n} steps of " if sequence else ""
            raise UtvmError(f"input {p['name']}: {np.asarray(v).size} values for {steps_of}shape {p['shape']}")
    return n


def run_steps(session, meta: dict, feeds: Sequence[np.ndarray]) -> list[np.ndarray]:
    """In an open session: the model of ``meta`` (its metadata.json) once per step of the feeds'
    leading axis (one instance: the state the device's model has carries over); the outputs, model
    order, with the same leading axis."""
    ins, outs = meta["inputs"], meta["outputs"]
    run = session.system_lib().get_function(f"{meta['prefix']}_run")
    steps = int(np.asarray(feeds[0]).shape[0])
    results: list[list[np.ndarray]] = [[] for _ in outs]
    # the device's allocations, reused; bool tensors travel as uint8 (the packed entry's dtype for them)
    args = [session.empty(p["shape"], _wire(p["dtype"])) for p in ins + outs]
    for t in range(steps):
        for a, f, p in zip(args, feeds, ins):
            a.copyfrom(np.ascontiguousarray(np.asarray(f)[t].astype(p["dtype"], copy=False).reshape(p["shape"])))
        for a, p in zip(args[len(ins):], outs):
            a.copyfrom(np.zeros(p["shape"], _wire(p["dtype"])))
        run(*args)
        for k, (o, p) in enumerate(zip(args[len(ins):], outs)):
            results[k].append(o.numpy().astype(p["dtype"], copy=False))
    for a in args:   # (after a failure the session is gone, and its allocations with it)
        a.free()
    return [np.stack(r) for r in results]


def _wire(dtype: str) -> str:
    return "uint8" if dtype == "bool" else dtype


def reset_on_device(session, meta: dict) -> None:
    """In an open session: ``<prefix>_reset()`` of a model with state (its packed function; a
    stateless model has none and nothing to reset)."""
    if meta.get("state_bytes", 0):
        session.system_lib().get_function(f"{meta['prefix']}_reset")()


def _session(device: str, gen: Path, work: Path, timeout: float):
    """A session with the RPC server on ``device`` serving the generated directory ``gen``: a host
    program or QEMU firmware built in ``work``, or a board on a serial port (already flashed with
    firmware serving that model, framed)."""
    from .build import build_host_server, build_qemu_server
    from .client import popen

    if device.startswith("serial:"):
        from .serial_link import open_serial

        return open_serial(device[len("serial:"):], timeout=timeout)
    if device == "host":
        return popen(build_host_server([gen], work / "rpc_server"), timeout=timeout)
    return popen(build_qemu_server([gen], work / "rpc_server", device=device), timeout=timeout)
