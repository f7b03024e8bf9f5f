"""The wheel carries everything the build integrations need (kernels, CMake package, C runtime)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contents(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("utvm_build-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("utvm_build/kernels/common.h", "utvm_build/cmake/utvm_buildConfig.cmake",
                   "utvm_build/crt/src/module.c", "utvm_build/crt/include/tvm/runtime/c_runtime_api.h",
                   "utvm_build/crt/config/crt_config.h", "utvm_build/crt/Makefile"):
        assert needed in names, needed
    assert not [n for n in names if n.endswith((".o", ".a"))]


def test_cli_metadata_flags_are_fast_and_numpy_free() -> None:
    code = "import sys, runpy; sys.argv=['utvm-build','--cmake-dir']; import utvm_build.cli as c; c.main(['--version'])"
    out = subprocess.run([sys.executable, "-c", code + "; print('numpy' in sys.modules)"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[-1] == "False"
