"""examples/streaming (issue 15, part 5): the streaming keyword model fed one feature slice per
call, two instances (two microphones, --state user) and a reset, built with CMake for the host
and for Cortex-M4 (run under QEMU). Every printed score equals tflite-runtime's reference kernels
run on the same slices, one interpreter instance per microphone; after the reset, a fresh
interpreter (the initial state)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from system_tools import need
from test_state import reference_sequences

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "streaming"
MODEL = REPO / "examples" / "models" / "streaming_kws" / "streaming_kws_int8.tflite"
TOOLCHAIN = REPO / "examples" / "cortex_m" / "arm-none-eabi.cmake"
STEPS, AFTER_RESET, FEATURES = 12, 4, 10


def slices(seed: int, steps: int) -> np.ndarray:
    """main.c's stand-in feature generator (an LCG per microphone)."""
    out = np.zeros((steps, 1, 1, FEATURES), np.int8)
    x = seed
    for t in range(steps):
        for k in range(FEATURES):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            out[t, 0, 0, k] = ((x >> 16) & 0xFF) - 128
    return out


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    model = MODEL.read_bytes()
    tmp = tmp_path_factory.mktemp("streaming_ref")
    mic0, mic1, fresh = reference_sequences(tmp, [(model, [slices(1, STEPS)]), (model, [slices(2, STEPS)]),
                                                  (model, [slices(1, AFTER_RESET)])])
    lines = []
    for t in range(STEPS):
        for mic, ref in ((0, mic0), (1, mic1)):
            lines.append(f"mic {mic} step {t}: " + " ".join(str(int(v)) for v in ref[0][t].ravel()))
    for t in range(AFTER_RESET):
        lines.append(f"mic 0 after reset step {t}: " + " ".join(str(int(v)) for v in fresh[0][t].ravel()))
    return lines


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if re.match(r"mic \d ", ln.strip())]


def _cmake(build: Path, *extra: str) -> None:
    need("cmake", "ninja")
    for cmd in (["cmake", "-S", EXAMPLE, "-B", build, "-G", "Ninja", f"-DPython3_EXECUTABLE={sys.executable}",
                 *extra], ["cmake", "--build", build]):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr


def test_streaming_example_host(tmp_path: Path, expected: list[str]) -> None:
    _cmake(tmp_path)
    p = subprocess.run([str(tmp_path / "streaming")], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert _lines(p.stdout) == expected
    assert len(expected) == 2 * STEPS + AFTER_RESET


def test_streaming_example_cortex_m4_qemu(tmp_path: Path, expected: list[str]) -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    _cmake(tmp_path, f"--toolchain={TOOLCHAIN}", "-DCORTEX_M_CPU=cortex-m4")
    p = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel",
                        str(tmp_path / "streaming.elf")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert _lines(p.stdout + p.stderr) == expected


def test_streaming_example_scons(tmp_path: Path, expected: list[str]) -> None:
    need("gcc")
    try:
        import SCons  # noqa: F401
    except ImportError:
        pytest.fail("SCons is not installed; pip install scons (it is in the `test` extras)", pytrace=False)
    import shutil

    ex = tmp_path / "examples"
    shutil.copytree(REPO / "examples", ex, ignore=shutil.ignore_patterns("build", ".sconsign.dblite", "__pycache__"))
    p = subprocess.run([sys.executable, "-m", "SCons", "-Q", f"PYTHON={sys.executable}"], cwd=ex / "streaming",
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    run = subprocess.run([str(ex / "streaming" / "build" / "streaming")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and _lines(run.stdout) == expected, run.stdout + run.stderr
