"""Build the benchmark firmware through our CMake integration, run it, and measure.

One *configuration* is a core (or the host) and an optimization flag; one CMake build directory
holds the programs of every model for it. On Cortex-M the program runs under QEMU with our
instruction-counting plugin; on the host it runs natively (outputs) and under callgrind
(instructions of tvmgen_<name>_run at -O2 on x86-64).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks import cycles, qemu_plugin
from benchmarks.models import REPO, BenchModel
from benchmarks.sizes import measure

FIRMWARE_DIR = REPO / "benchmarks" / "firmware"
TOOLCHAIN_FILE = REPO / "examples" / "cortex_m" / "arm-none-eabi.cmake"


@dataclass(frozen=True)
class Core:
    name: str  # short name used in file names and tables
    cpu: str  # -mcpu (the toolchain file's CORTEX_M_CPU)
    machine: str  # QEMU board


CORES = {
    "m4": Core("m4", "cortex-m4", "mps2-an386"),
    "m55": Core("m55", "cortex-m55", "mps3-an547"),
}
#: Armv6-M without DSP (QEMU microbit: 256 KB flash, 16 KB RAM): the portable kernels' check in the
#: tests (tests/test_kernels_arm_dsp.py), not a benchmark configuration (most models do not fit).
CORTEX_M0 = Core("m0", "cortex-m0", "microbit")
OPTS = ("Os", "O2")  # optimization levels: -Os and -O2


class BenchError(Exception):
    """A build or run failed; the message says which and shows the tool's output."""


def _run(cmd: list[str], cwd: Path | None = None, timeout: float = 900) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise BenchError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                         f"{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return proc.stdout


def build(models: list[BenchModel], core: Core | None, opt: str, build_dir: Path, io: str = "caller",
          target: str = "generic", codegen_args: str = "") -> None:
    """Configure and build every model's program for one core (None: the host) at -<opt>, with the
    models' inputs and outputs in the caller's buffers or in the workspace (``io``), the
    kernels of utvm-build's ``--target`` (``target``) and extra compile options (``codegen_args``,
    one string as on a command line: BENCH_CODEGEN_ARGS)."""
    cmd = ["cmake", "-S", str(FIRMWARE_DIR), "-B", str(build_dir),
           f"-DBENCH_MODELS={';'.join(f'{m.name}={m.path}' for m in models)}",
           f"-DBENCH_OPT=-{opt}", f"-DBENCH_IO={io}", f"-DBENCH_TARGET={target}",
           f"-DBENCH_CODEGEN_ARGS={codegen_args}", f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    if core is not None:
        cmd += [f"--toolchain={TOOLCHAIN_FILE}", f"-DCORTEX_M_CPU={core.cpu}"]
    _run(cmd)
    _run(["cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 2)])


@dataclass
class ProgramOutput:
    rc: int
    stack: int | None
    outputs: list[str]  # hex


def parse_program_output(text: str) -> ProgramOutput:
    rc, stack, outputs = None, None, []
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == "rc":
            rc = int(value)
        elif key == "stack":
            stack = int(value)
        elif key == "output":
            outputs.append(value.split(" ", 1)[1] if " " in value else "")
    if rc is None:
        raise BenchError(f"the program printed no result:\n{text[-2000:]}")
    return ProgramOutput(rc, stack, outputs)


def model_metadata(build_dir: Path, model: BenchModel) -> dict:
    """The generated metadata.json of one model in a build directory."""
    return json.loads((build_dir / "utvm" / f"model_{model.name}" / "metadata.json").read_text())


def measure_host(build_dir: Path, model: BenchModel) -> dict:
    exe = build_dir / f"bench_{model.name}"
    out = parse_program_output(_run([str(exe)], timeout=300))
    record: dict = {"outputs": out.outputs, "rc": out.rc}
    if shutil.which("valgrind"):
        cg_file = build_dir / f"callgrind.{model.name}.out"
        _run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg_file}",
              f"--toggle-collect=tvmgen_{model.name}_run", str(exe)], timeout=1800)
        for line in cg_file.read_text().splitlines():
            if line.startswith("summary:"):
                record["instructions"] = int(line.split()[1])
    return record


def operator_functions(elf: Path, model: str) -> dict[int, str]:
    """Entry address -> name (op<k>_<operator>) of the model's operator functions."""
    pattern = re.compile(rf"^tvmgen_{re.escape(model)}_(op\d+_\w+)$")
    text = _run([qemu_plugin.NM, "--defined-only", str(elf)])
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "Tt" and (m := pattern.match(parts[2])):
            found[int(parts[0], 16) & ~1] = m.group(1)
    return found


def per_operator(counted: qemu_plugin.CountResult, ops: dict[int, str]) -> list[dict]:
    """The region's segments as operators: instructions (from the operator function's entry to
    the next one's, so the call and return in tvmgen_<name>_run are included), mix and cycles."""
    rows = []
    for addr, insns, mix in counted.segments:
        name = ops.get(addr, "entry")
        index = int(name[2:].split("_", 1)[0]) if name != "entry" else -1
        rows.append({"op": name, "index": index, "instructions": insns, "mix": cycles.summary(mix),
                     "cycles": {m.name: cycles.estimate(mix, m) for m in cycles.MODELS.values()}})
    return sorted(rows, key=lambda r: r["index"])


def measure_target(build_dir: Path, model: BenchModel, core: Core, timeout: float) -> dict:
    elf = build_dir / f"bench_{model.name}.elf"
    ops = operator_functions(elf, model.name)
    counted = qemu_plugin.count_instructions(elf, core.machine, timeout=timeout, mix=True, marks=sorted(ops))
    if counted.start_hits != 1 or counted.end_hits != 1:
        raise BenchError(f"{elf}: markers hit {counted.start_hits}/{counted.end_hits} times, not once")
    out = parse_program_output(counted.stdout)
    sizes = measure(elf, build_dir / f"bench_{model.name}.map", f"libmodel_{model.name}.a")
    mix = counted.mix or {}
    return {
        "rc": out.rc,
        "outputs": out.outputs,
        "instructions": counted.insns,
        "mix": cycles.summary(mix),
        "mix_classes": mix,
        "cycles": {m.name: cycles.estimate(mix, m) for m in cycles.MODELS.values()},
        "per_operator": per_operator(counted, ops),
        "stack_bytes": out.stack,
        "flash_bytes": sizes.flash,
        "flash_split": sizes.flash_by_origin,
        "constants_section_bytes": sizes.constants,
        "data_bss_bytes": sizes.data_bss,
        "workspace_section_bytes": sizes.workspace_section,
        "ram_bytes": sizes.data_bss + sizes.workspace_section + (out.stack or 0),
        "sections": {k: v for k, v in sizes.sections.items()
                     if not k.startswith((".debug", ".comment", ".ARM.attributes"))},
    }
