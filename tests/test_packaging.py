"""The wheel carries everything the build integrations need (kernels, CMake package, C runtime)."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
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


def test_sdist_wheel_install_compile_and_link(tmp_path: Path) -> None:
    """`python -m build` (the sdist, then the wheel from the sdist), installed into a fresh venv:
    the command compiles a model with the packed interface and links it with the C runtime that
    the wheel carries; the CMake package comes from the wheel too."""
    dist = tmp_path / "dist"
    p = subprocess.run([sys.executable, "-m", "build", "-o", str(dist), str(ROOT)], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    sdist = next(dist.glob("utvm_build-*.tar.gz"))
    wheel = next(dist.glob("utvm_build-*.whl"))
    with tarfile.open(sdist) as t:
        in_sdist = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for needed in ("LICENSE", "crt/src/module.c", "cmake/utvm_buildConfig.cmake", "utvm_build/kernels/common.h",
                   "utvm_build/scons/utvm.py", "CMakeLists.txt"):
        assert needed in in_sdist, needed
    names = set(zipfile.ZipFile(wheel).namelist())
    assert any(n.endswith("licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "License-Expression: Apache-2.0" in meta

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # only what the wheel installs
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    p = subprocess.run([py, "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    tool = venv / "bin" / "utvm-build"
    where = {flag: subprocess.run([tool, flag], capture_output=True, text=True, check=True, env=env).stdout.strip()
             for flag in ("--crt-dir", "--cmake-dir")}
    for path in where.values():
        assert path.startswith(str(venv)), where
    model = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"
    for extra in ([], ["--sanitize"]):   # a shared library via ctypes, an executable with ASan/UBSan
        p = subprocess.run([tool, "run", model, "--interface", "packed", "--input-fill", "random:3", *extra],
                           capture_output=True, text=True, cwd=tmp_path, env=env)
        assert p.returncode == 0 and p.stdout.startswith("output 0 int8 [1, 10]"), p.stderr
