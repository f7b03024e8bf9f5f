"""Instructions of one operator call through the packed API (TVMFuncCall with DLTensors: how a
graph executor calls every operator) against a direct typed call (how our AOT entry point calls
it), on QEMU Cortex-M4 with the counting plugin: ``python -m benchmarks.dispatch_cost``."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.qemu_plugin import count_instructions  # noqa: E402

CRT = ROOT / "crt"
FLAGS = ["-std=gnu99", "-mthumb", "-Os", "-ffunction-sections", "-fdata-sections", "-mcpu=cortex-m4",
         "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-fno-tree-loop-distribute-patterns"]
RUNTIME = ["crt_string", "error", "func_registry", "module", "crt_backend_api", "stack_allocator", "tensor_args"]


def measure() -> dict[str, int]:
    out = {}
    with tempfile.TemporaryDirectory(prefix="dispatch-") as tmp:
        for mode in ("direct", "packed"):
            elf = Path(tmp) / f"{mode}.elf"
            cmd = ["arm-none-eabi-gcc", *FLAGS, *(["-DPACKED"] if mode == "packed" else []),
                   f"-I{CRT / 'include'}", f"-I{CRT / 'config'}", f"-I{CRT / 'tests' / 'demo_model'}",
                   str(CRT / "tests" / "firmware" / "startup.c"),
                   str(ROOT / "benchmarks" / "firmware" / "dispatch" / "dispatch_main.c"),
                   str(CRT / "tests" / "demo_model" / "tvmgen_demo.c"),
                   str(CRT / "tests" / "demo_model" / "tvmgen_demo_packed.c"),
                   *(str(CRT / "src" / f"{n}.c") for n in RUNTIME),
                   "-nostartfiles", "-Wl,--gc-sections", f"-T{CRT / 'tests' / 'firmware' / 'cortexm.ld'}",
                   "--specs=nano.specs", "--specs=nosys.specs", "-o", str(elf)]
            subprocess.run(cmd, check=True)
            out[mode] = count_instructions(elf, "mps2-an386", timeout=120).insns
    return out


def main() -> int:
    r = measure()
    print(f"direct typed call {r['direct']} instructions, through TVMFuncCall {r['packed']}: "
          f"{r['packed'] - r['direct']} instructions of dispatch per operator call (3 tensors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
