"""Guest instructions between two markers, counted by a QEMU TCG plugin (see README.md here).

    from benchmarks.qemu_plugin import count_instructions
    r = count_instructions(Path("fw.elf"), "mps2-an386", timeout=120)
    r.insns, r.stdout

The firmware defines ``void bench_marker_start(void)`` and ``void bench_marker_end(void)``
(``__attribute__((noinline, used))``, body ``__asm__ volatile("" ::: "memory")``) and calls them
around the code to measure. Standard library only.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_BUILD_DIR = REPO / "build" / "qemu_plugin"
PLUGIN_NAME = "libinsn_count.so"

START_MARKER = "bench_marker_start"
END_MARKER = "bench_marker_end"
QEMU = "qemu-system-arm"
NM = "arm-none-eabi-nm"
# QEMU machine -> CPU the firmware must be built for.
MACHINES = {"mps2-an386": "cortex-m4", "mps3-an547": "cortex-m55"}

_RESULT = re.compile(r"^insn_count (\d+) start_hits (\d+) end_hits (\d+)(?: pairs (\d+))?\s*$", re.M)


class InsnCountError(RuntimeError):
    """Building the plugin, resolving the markers, running QEMU or an invalid measurement."""


@dataclasses.dataclass(frozen=True)
class CountResult:
    insns: int  # instructions from the start marker's entry (included) to the end marker's (excluded)
    start_hits: int  # executions of bench_marker_start's first instruction
    end_hits: int  # executions of bench_marker_end's first instruction
    stdout: str  # the firmware's output: semihosting console, then UART (QEMU's stdout)
    pairs: int = 1  # start/end pairs summed in insns
    #: mix=True: instructions per class in the region (CLASSES; "taken"/"not_taken": outcomes of
    #: the branch-like instructions, also counted in their own class)
    mix: dict[str, int] | None = None
    #: marks given: (mark address or 0 for the start, instructions, mix), summed per mark
    segments: tuple[tuple[int, int, dict[str, int]], ...] = ()

    @property
    def valid(self) -> bool:
        """One start, one end: a single measurement."""
        return self.start_hits == self.end_hits == self.pairs == 1


def build_plugin(build_dir: Path | None = None, cc: str | None = None) -> Path:
    """Builds libinsn_count.so (host C compiler, make) into build_dir; returns its path.

    Up-to-date builds cost one `make` call; concurrent builds are safe (the library is renamed
    into place)."""
    build_dir = Path(build_dir or DEFAULT_BUILD_DIR).resolve()
    build_dir.mkdir(parents=True, exist_ok=True)
    out = build_dir / PLUGIN_NAME
    tmp = None
    if shutil.which("make"):
        cmd = ["make", "-s", "-C", str(HERE), f"BUILD_DIR={build_dir}"] + ([f"CC={cc}"] if cc else [])
    else:  # no make: the Makefile's command
        tmp = build_dir / f"{PLUGIN_NAME}.tmp{os.getpid()}"
        cmd = [cc or os.environ.get("CC", "cc"), "-O2", "-std=c11", "-Wall", "-Wextra", "-fPIC",
               "-fvisibility=hidden", "-shared", "-o", str(tmp), str(HERE / "insn_count.c")]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise InsnCountError(f"{cmd[0]} not found: a host C compiler is needed for the QEMU plugin") from None
    if p.returncode != 0:
        raise InsnCountError(f"building the QEMU plugin failed: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    if tmp is not None:
        os.replace(tmp, out)
    return out


def marker_addresses(elf: Path) -> tuple[int, int]:
    """Addresses of the first instructions of the two markers (Thumb bit cleared), via nm."""
    try:
        p = subprocess.run([NM, "--defined-only", str(elf)], capture_output=True, text=True)
    except FileNotFoundError:
        raise InsnCountError(f"{NM} not found (apt-get install binutils-arm-none-eabi)") from None
    if p.returncode != 0:
        raise InsnCountError(f"{NM} {elf} failed: {p.stderr.strip()}")
    found: dict[str, list[int]] = {START_MARKER: [], END_MARKER: []}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in found and parts[1] in "Tt":
            found[parts[2]].append(int(parts[0], 16) & ~1)
    for name, addrs in found.items():
        if len(addrs) != 1:
            raise InsnCountError(f"{elf}: expected one function symbol {name}, found {len(addrs)}")
    start, end = found[START_MARKER][0], found[END_MARKER][0]
    if start == end:
        raise InsnCountError(f"{elf}: {START_MARKER} and {END_MARKER} share the address {start:#x} "
                             "(identical code folding?)")
    return start, end


#: the instruction classes of the plugin's mix (insn_count.c, class_names)
CLASSES = ("alu", "ld", "ld_st_next", "st", "ldrd", "strd", "ldm", "ldm_regs", "stm", "stm_regs", "mul",
           "mull", "dsp_mac", "dsp", "div", "branch", "fp", "other", "taken", "not_taken")


def _pairs(words: list[str]) -> dict[str, int]:
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


def parse_result(text: str, stdout: str = "") -> CountResult:
    """Parses the plugin's result line (and the mix and segment lines, when there are any)."""
    m = _RESULT.search(text)
    if m is None:
        raise InsnCountError(f"no insn_count line in the plugin output: {text!r}")
    insns, start_hits, end_hits = (int(m.group(i)) for i in (1, 2, 3))
    pairs = int(m.group(4)) if m.group(4) is not None else min(start_hits, end_hits)
    mix = None
    segments = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["mix"]:
            mix = _pairs(words[1:])
        elif words[:1] == ["segment"]:
            segments.append((int(words[1], 16), int(words[5]), _pairs(words[6:])))
    return CountResult(insns, start_hits, end_hits, stdout, pairs, mix, tuple(segments))


def count_instructions(elf: Path, machine: str, timeout: float = 300.0, *, plugin: Path | None = None,
                       pairs: int | None = 1, exit_code: int | None = 0,
                       qemu_args: Sequence[str] = (), mix: bool = False,
                       marks: Sequence[int] = ()) -> CountResult:
    """Runs `elf` under `qemu-system-arm -M machine` with the plugin; returns the count.

    The firmware's semihosting output is captured (CountResult.stdout). Raises InsnCountError if
    QEMU cannot run, times out, exits with a status other than exit_code (the firmware's
    semihosting exit status; None: any), or if pairs is not None and the markers were not hit
    exactly `pairs` times each. plugin: a built libinsn_count.so (default: build_plugin())."""
    elf = Path(elf).resolve()
    if not elf.is_file():
        raise InsnCountError(f"{elf}: no such file")
    if shutil.which(QEMU) is None:
        raise InsnCountError(f"{QEMU} not found (apt-get install qemu-system-arm)")
    plugin = Path(plugin).resolve() if plugin else build_plugin()
    start, end = marker_addresses(elf)
    with tempfile.TemporaryDirectory(prefix="insn_count_") as tmp:
        result_file = Path(tmp) / "result.txt"
        console_file = Path(tmp) / "semihosting.txt"
        marks_file = Path(tmp) / "marks.txt"
        options = f"{plugin},start={start:#x},end={end:#x},out={result_file}"
        if mix:
            options += ",mix=on"
        if marks:
            marks_file.write_text("".join(f"{a:#x}\n" for a in marks))
            options += f",marks={marks_file}"
        for path in (plugin, result_file, console_file):
            if "," in str(path):
                raise InsnCountError(f"QEMU option values cannot contain ',': {path}")
        cmd = [QEMU, "-M", machine, "-nographic",
               "-chardev", f"file,id=semihosting,path={console_file}",
               "-semihosting-config", "enable=on,target=native,chardev=semihosting",
               "-kernel", str(elf),
               "-plugin", options, *qemu_args]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise InsnCountError(f"{elf.name} on {machine}: QEMU timed out after {timeout} s") from None
        # Semihosting console, then whatever reached QEMU's own stdout (the -nographic UART).
        stdout = (console_file.read_text(errors="replace") if console_file.exists() else "") + p.stdout
        if exit_code is not None and p.returncode != exit_code:
            raise InsnCountError(f"{elf.name} on {machine}: QEMU exited with {p.returncode} (expected {exit_code})\n"
                                 f"command: {' '.join(cmd)}\nfirmware output:\n{stdout}\nQEMU:\n{p.stdout}{p.stderr}")
        if not result_file.exists():
            raise InsnCountError(f"{elf.name} on {machine}: the plugin wrote no result\n{p.stdout}{p.stderr}")
        result = parse_result(result_file.read_text(), stdout)
    if pairs is not None and not (result.start_hits == result.end_hits == result.pairs == pairs):
        raise InsnCountError(f"{elf.name} on {machine}: markers hit start {result.start_hits}, end "
                             f"{result.end_hits} times ({result.pairs} pairs), expected {pairs} each")
    return result


__all__ = ["CLASSES", "CountResult", "InsnCountError", "build_plugin", "count_instructions", "marker_addresses",
           "parse_result", "MACHINES", "START_MARKER", "END_MARKER"]
