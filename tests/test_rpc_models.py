"""The bar of issue 16: our client runs the example models and the MLPerf Tiny re-creations through
the RPC server over pipes, TCP and QEMU Cortex-M4 / M55, and every output is byte-identical to
the direct host run: every model on every link (about 30 s on 2 cores)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import time_bound
from system_tools import need

from utvm_build import rpc, run_on_host
from utvm_build.compiler import compile_model
from utvm_build.host import fill_inputs
from utvm_build.options import CompileOptions

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # benchmarks/ is not an installed package
from benchmarks import mlperf_tiny  # noqa: E402

DIGITS = ROOT / "examples" / "models" / "digits"
MODELS = ("digits_int8", "digits_float", "kws_dscnn", "vww_mobilenet", "ic_resnet8", "ad_autoencoder")

bounded = time_bound.fixture(600)


def _model(name: str, tmp: Path) -> Path:
    if name.startswith("digits"):
        return DIGITS / f"{name}.tflite"
    path = tmp / f"{name}.tflite"
    path.write_bytes(mlperf_tiny.build_model(name))
    return path


def _infer(s: rpc.Session, meta: dict, inputs: list[np.ndarray]) -> list[np.ndarray]:
    run = s.system_lib().get_function(f"{meta['prefix']}_run")
    args = [s.tensor(x) for x in inputs] + [s.empty(p["shape"], p["dtype"]) for p in meta["outputs"]]
    run(*args)
    outs = [t.numpy() for t in args[len(inputs):]]
    for t in args:
        t.free()
    return outs


def _same(outs: list[np.ndarray], ref: list[np.ndarray], where: str) -> None:
    assert len(outs) == len(ref), where
    for o, r in zip(outs, ref):
        assert o.dtype == r.dtype and o.shape == r.shape, where
        assert o.tobytes() == r.tobytes(), f"{where}: output differs from the host run"


@pytest.mark.parametrize("name", MODELS)
def test_models_through_rpc_byte_identical(name, tmp_path):
    import json

    model = _model(name, tmp_path)
    gen = tmp_path / "gen"
    compile_model(model, gen, CompileOptions(interface="packed"))
    meta = json.loads((gen / "metadata.json").read_text())
    inputs = fill_inputs(meta["inputs"], "random:7")
    ref = run_on_host(model, inputs)
    assert any(np.unique(r).size > 1 for r in ref), "degenerate reference output"

    server = rpc.build_host_server([gen], tmp_path / "srv")
    with rpc.popen(server, timeout=60) as s:
        _same(_infer(s, meta, inputs), ref, f"{name} over pipes")
    proc = subprocess.Popen([str(server), "--tcp", "0", "--once"], stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline().rsplit(":", 1)[1])
        with rpc.connect("127.0.0.1", port, timeout=60) as s:
            _same(_infer(s, meta, inputs), ref, f"{name} over TCP")
    finally:
        proc.kill()
        proc.wait()

    need("arm-none-eabi-gcc", "qemu-system-arm")
    from utvm_build.rpc.build import build_qemu_server

    for board in ("qemu-m4", "qemu-m55"):
        fw = build_qemu_server([gen], tmp_path / f"fw_{board}", device=board)
        with rpc.popen(fw, timeout=120) as s:
            _same(_infer(s, meta, inputs), ref, f"{name} on {board}")
