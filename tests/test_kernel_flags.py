"""The target kernels compile under every optimisation level a firmware build uses.

Four hot loops are GCC inline assembly with a C twin (docs/kernel-guide.md, "Inline assembly and
compiler flags"); which one a build gets depends on the compiler, the level and the frame pointer.
KWS (DS-CNN) built for Cortex-M4 carries the DSP conv step, the 1x1 channel pairs and the
FULLY_CONNECTED block loop, for Cortex-M55 the Helium conv block: its generated C is compiled with
arm-none-eabi-gcc and clang at
-O0 .. -O3, and with the frame pointer kept plus UTVM_NO_INLINE_ASM (the documented switch).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from system_tools import need

from utvm_build import compile_model
from utvm_build.host import STRICT_CFLAGS
from utvm_build.options import CompileOptions

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)  # benchmarks/ is not an installed package
from benchmarks import mlperf_tiny  # noqa: E402

CPUS = {
    "cortex-m4": ["-mthumb", "-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"],
    "cortex-m55": ["-mthumb", "-mcpu=cortex-m55", "-mfloat-abi=hard"],
}
LEVELS = [["-O0"], ["-Og"], ["-O1"], ["-Os"], ["-O2"], ["-O3"],
          ["-Os", "-fno-omit-frame-pointer", "-DUTVM_NO_INLINE_ASM"],
          # what the CMake and SCons integrations give a build that keeps the frame pointer
          ["-O2", "-fno-omit-frame-pointer", "-DUTVM_FRAME_POINTER"]]
NEWLIB = Path("/usr/lib/arm-none-eabi/include")  # Debian's newlib headers, for clang


def _compilers() -> list[list[str]]:
    need("arm-none-eabi-gcc", "clang")
    ccs = [["arm-none-eabi-gcc"]]
    if not NEWLIB.is_dir():
        pytest.fail(f"{NEWLIB} not found; install with: apt-get install -y libnewlib-arm-none-eabi", pytrace=False)
    ccs.append(["clang", "--target=arm-none-eabi", "-isystem", str(NEWLIB)])
    return ccs


@pytest.mark.parametrize("target", sorted(CPUS))
def test_kws_target_kernels_compile_at_every_level(target: str, tmp_path: Path) -> None:
    ccs = _compilers()
    model = tmp_path / "kws.tflite"
    model.write_bytes(mlperf_tiny.MODELS["kws_dscnn"]())
    gen = tmp_path / "gen"
    compile_model(model, gen, CompileOptions(target=target))
    kernels = {p.name for p in (gen / "src" / "kernels").iterdir()}
    asm = {"cortex-m4": {"conv2d_q15_window.h", "conv2d_q15_1x1.h", "fully_connected_s8_blk4.h"},
           "cortex-m55": {"conv2d_s8_mve.h"}}[target]
    assert asm <= kernels, f"KWS no longer carries {sorted(asm - kernels)}: pick a model that does"
    sources = json.loads((gen / "metadata.json").read_text())["sources"]
    failures = []
    for cc in ccs:
        for level in LEVELS:
            for src in sources:
                cmd = [*cc, *CPUS[target], *STRICT_CFLAGS, *level, "-I", str(gen / "include"),
                       "-c", str(gen / src), "-o", "/dev/null"]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                if proc.returncode != 0:
                    first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr[:200])
                    failures.append(f"{cc[0]} {' '.join(level)} {src}: {first}")
    assert not failures, "\n".join(failures)
