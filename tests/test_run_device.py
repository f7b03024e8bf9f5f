"""`utvm-build run --device host`: one inference through the RPC server (issue 16) gives the
outputs of the direct host run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
from system_tools import need

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"


def test_run_device_host_equals_direct_run(tmp_path: Path) -> None:
    need("gcc")
    for where, extra in (("direct", []), ("rpc", ["--device", "host"])):
        p = subprocess.run([sys.executable, "-m", "utvm_build", "run", DIGITS, "--input-fill", "random:4",
                            "--output-dir", tmp_path / where, *extra], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
    rpc, direct = (np.load(tmp_path / where / "output_0.npy") for where in ("rpc", "direct"))
    np.testing.assert_array_equal(rpc, direct)
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", DIGITS, "--device", "host", "--sanitize"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 2 and p.stderr.count("\n") == 1
