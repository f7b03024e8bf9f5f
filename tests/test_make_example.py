"""examples/make: a plain Makefile with exact dependencies (issue 17). Counted by the commands
make runs: a no-op rebuild runs nothing, a touched model runs only the generator, a retrained
model (other weights, same interface) recompiles the model's sources and never main.c."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from system_tools import need

from utvm_build.frontend.tflite import read_tflite

ROOT = Path(__file__).resolve().parents[1]


def retrain(model: Path) -> None:
    """Other weights, same interface: the largest constant tensor's bytes, each one changed."""
    data = bytearray(model.read_bytes())
    g = read_tflite(bytes(data))
    weights = max((t for t in g.tensors if t.is_const and t.dtype == "int8"), key=lambda t: t.nbytes)
    raw = np.ascontiguousarray(weights.data).tobytes()
    at = data.find(raw)
    assert at > 0 and data.find(raw, at + 1) < 0
    data[at:at + len(raw)] = bytes((b + 1) % 256 if b != 127 else 126 for b in raw)
    model.write_bytes(bytes(data))


def test_make_example(tmp_path: Path) -> None:
    need("make", "gcc")
    shutil.copytree(ROOT / "examples" / "make", tmp_path / "examples" / "make",
                    ignore=shutil.ignore_patterns("build"))
    shutil.copytree(ROOT / "examples" / "models" / "digits", tmp_path / "examples" / "models" / "digits")
    shutil.copytree(ROOT / "examples" / "cmake_host", tmp_path / "examples" / "cmake_host",
                    ignore=shutil.ignore_patterns("build"))
    d = tmp_path / "examples" / "make"
    model = tmp_path / "examples" / "models" / "digits" / "digits_int8.tflite"

    def make() -> list[str]:
        p = subprocess.run(["make", f"PYTHON={sys.executable}"], cwd=d, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        return [ln for ln in p.stdout.splitlines() if not ln.startswith(("make", "build/gen:"))]

    first = make()
    assert any("utvm_build compile" in ln for ln in first) and any("main.c" in ln for ln in first)
    run = subprocess.run([d / "build" / "digits"], capture_output=True, text=True, check=True).stdout
    assert run.count("(expected") == 4 and all("label" in ln for ln in run.splitlines())
    assert make() == []                                   # no-op: nothing runs
    model.touch()
    assert [ln for ln in make() if "utvm_build compile" not in ln] == []   # generator only, no compile
    retrain(model)
    after = make()
    compiled = [ln for ln in after if " -c " in ln]
    assert compiled and not [ln for ln in compiled if "main.c" in ln], after
    assert any("constants.c" in ln for ln in compiled)
    assert make() == []
    subprocess.run([d / "build" / "digits"], capture_output=True, check=True)
