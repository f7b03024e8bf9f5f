"""Host-driven firmware built with our CMake package (examples/cortex_m_rpc): the digits model
behind the RPC server on QEMU Cortex-M4 and M55, driven by our client and by TVM's, byte-identical
to the host run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import time_bound
from system_tools import need

from utvm_build import rpc, run_on_host

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
TOOLCHAIN = ROOT / "examples" / "cortex_m" / "arm-none-eabi.cmake"

bounded = time_bound.fixture(300)


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m55"])
def test_cmake_rpc_firmware(cpu, tmp_path):
    need("cmake", "ninja", "arm-none-eabi-gcc", "qemu-system-arm")
    build = tmp_path / "b"
    for cmd in (["cmake", "-S", ROOT / "examples" / "cortex_m_rpc", "-B", build, "-G", "Ninja",
                 f"--toolchain={TOOLCHAIN}", f"-DCORTEX_M_CPU={cpu}", f"-DPython3_EXECUTABLE={sys.executable}"],
                ["cmake", "--build", build]):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=240)
        assert p.returncode == 0, p.stdout + p.stderr
    launcher = build / "rpc_firmware"
    x = np.load(DIGITS / "sample_3.npy")
    ref = run_on_host(DIGITS / "digits_int8.tflite", [x])[0]
    with rpc.popen(launcher, timeout=30) as s:
        y = s.empty((1, 10), "int8")
        s.system_lib().get_function("tvmgen_digits_run")(s.tensor(x), y)
        assert y.numpy().tobytes() == ref.tobytes()
        assert len(s.time_evaluator("tvmgen_digits_run", number=2, repeat=2)(s.tensor(x), y)) == 2
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    remote = tvm_rpc.PopenSession(str(launcher))
    dev = remote.cpu()
    out = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    remote.get_function("runtime.SystemLib")().get_function("tvmgen_digits_run")(tvm.runtime.tensor(x, device=dev),
                                                                                  out)
    assert out.numpy().tobytes() == ref.tobytes()
    remote._sess.get_function("CloseRPCConnection")()
