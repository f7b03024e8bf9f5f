"""One inference on a device through RPC: what `utvm-build run --device host|qemu-m4` needs."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import UtvmError

DEVICES = ("host", "qemu-m4")


def run_on_device(model: str | Path, inputs: Sequence[np.ndarray] | None = None, *, device: str = "host",
                  timeout: float = 30.0) -> list[np.ndarray]:
    """Compile ``model`` (a .tflite, or a directory generated with --interface packed), build the RPC
    server for ``device``, upload the inputs (model order; default zeros), run the packed entry
    point once and download the outputs (model order)."""
    from ..compiler import compile_model
    from ..options import CompileOptions
    from .build import build_host_server, build_qemu_server
    from .client import popen

    if device not in DEVICES:
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
        build = build_host_server if device == "host" else build_qemu_server
        server = build([gen], work / "rpc_server")
        with popen(server, timeout=timeout) as s:
            run = s.system_lib().get_function(f"tvmgen_{meta['name']}_run")
            args = [s.tensor(a) for a in arrays] + [s.empty(p["shape"], p["dtype"]) for p in outs]
            run(*args)
            return [t.numpy() for t in args[len(arrays):]]
