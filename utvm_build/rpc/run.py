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
                  timeout: float = 30.0) -> list[np.ndarray]:
    """Compile ``model`` (a .tflite, or a directory generated with --interface packed), build the RPC
    server for ``device``, upload the inputs (model order; default zeros), run the packed entry
    point once and download the outputs (model order)."""
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
        ins, outs = meta["inputs"], meta["outputs"]
        values = list(inputs) if inputs is not None else [np.zeros(p["shape"], p["dtype"]) for p in ins]
        if len(values) != len(ins):
            raise UtvmError(f"the model has {len(ins)} inputs, {len(values)} given")
        arrays = []
        for v, p in zip(values, ins):
            a = np.asarray(v)
            if a.size != int(np.prod(p["shape"], dtype=np.int64)):
                raise UtvmError(f"input {p['name']}: {a.size} values for shape {p['shape']}")
            arrays.append(np.ascontiguousarray(a.astype(p["dtype"], copy=False).reshape(p["shape"])))
        with _session(device, gen, work, timeout) as s:
            run = s.system_lib().get_function(f"tvmgen_{meta['name']}_run")
            args = [s.tensor(a) for a in arrays] + [s.empty(p["shape"], p["dtype"]) for p in outs]
            run(*args)
            return [t.numpy() for t in args[len(arrays):]]


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
