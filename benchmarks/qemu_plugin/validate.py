"""Validates the insn_count QEMU plugin against firmware of exactly known instruction count.

    python -m benchmarks.qemu_plugin.validate [--n1 1000] [--n2 100000] [--perf 100000000]

For both boards (mps2-an386 / Cortex-M4, mps3-an547 / Cortex-M55) builds validate/validate.c with
loop lengths N1 and N2 and checks:
  count(N) == 3N + REGION_CONSTANT              (the loop, plus the start marker's `bx lr` and the
                                                 `bl bench_marker_end`)
  count(N2) - count(N1) == 3 (N2 - N1)
  the same count on a second run                (determinism)
  start_hits == end_hits == 1
  an empty region (markers called back to back) == REGION_CONSTANT
  3 pairs of the N1 region == 3 (3 N1 + REGION_CONSTANT), 3 hits each
--perf N additionally times a 3N-instruction run with and without the plugin. Standard library only.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: python benchmarks/qemu_plugin/validate.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.qemu_plugin import MACHINES, QEMU, CountResult, InsnCountError, build_plugin, count_instructions
else:
    from . import MACHINES, QEMU, CountResult, InsnCountError, build_plugin, count_instructions

VALIDATE_DIR = Path(__file__).resolve().parent / "validate"
CC = "arm-none-eabi-gcc"
# Instructions counted for an empty region, `bl bench_marker_start; bl bench_marker_end`: the start
# marker's `bx lr` and the `bl` (the end marker's body is not counted).
REGION_CONSTANT = 2
INSNS_PER_ITERATION = 3  # subs; nop; bne


def build_firmware(cpu: str, loop_n: int, out_dir: Path, pairs: int = 1) -> Path:
    """validate.c for `cpu` with LOOP_N=loop_n (0: empty region), PAIRS=pairs."""
    out_dir.mkdir(parents=True, exist_ok=True)
    elf = out_dir / f"validate-{cpu}-n{loop_n}-p{pairs}.elf"
    cmd = [CC, f"-mcpu={cpu}", "-mthumb", "-mfloat-abi=soft", "-O2", "-ffreestanding", "-nostdlib",
           "-Wall", "-Wextra", "-Werror", f"-DLOOP_N={loop_n}", f"-DPAIRS={pairs}",
           "-T", str(VALIDATE_DIR / "validate.ld"), str(VALIDATE_DIR / "validate.c"), "-o", str(elf)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise InsnCountError(f"{CC} not found (apt-get install gcc-arm-none-eabi)") from None
    if p.returncode != 0:
        raise InsnCountError(f"building the validation firmware failed: {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return elf


def expected(loop_n: int, pairs: int = 1) -> int:
    return pairs * (INSNS_PER_ITERATION * loop_n + REGION_CONSTANT)


def run_checks(build_dir: Path, n1: int = 1000, n2: int = 100_000, machines: list[str] | None = None,
               log=print) -> list[str]:
    """Builds and runs everything; returns the failed checks (empty: all passed)."""
    if not (0 < n1 < n2):
        raise ValueError("need 0 < n1 < n2")
    plugin = build_plugin(build_dir)
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        log(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    for machine in machines or list(MACHINES):
        cpu = MACHINES[machine]
        log(f"{machine} ({cpu})")
        out = Path(build_dir) / "validate" / machine

        def run(loop_n: int, pairs: int = 1, machine: str = machine, cpu: str = cpu, out: Path = out) -> CountResult:
            elf = build_firmware(cpu, loop_n, out, pairs)
            r = count_instructions(elf, machine, timeout=60, plugin=plugin, pairs=None)
            log(f"    N={loop_n:<8} pairs={pairs}: insn_count {r.insns} start_hits {r.start_hits} "
                f"end_hits {r.end_hits} pairs {r.pairs}")
            return r

        r1, r2, r2b = run(n1), run(n2), run(n2)
        empty, multi = run(0), run(n1, pairs=3)
        for n, r in ((n1, r1), (n2, r2)):
            check(r.insns == expected(n), f"{machine}: count({n}) = {r.insns}, expected 3*{n} + {REGION_CONSTANT}")
            check(r.start_hits == r.end_hits == r.pairs == 1, f"{machine}: N={n} hits {r.start_hits}/{r.end_hits} == 1")
            check("validate: done" in r.stdout, f"{machine}: N={n} firmware output captured")
        check(r2.insns - r1.insns == INSNS_PER_ITERATION * (n2 - n1),
              f"{machine}: count({n2}) - count({n1}) = {r2.insns - r1.insns}, expected {3 * (n2 - n1)}")
        check(r2b.insns == r2.insns and (r2b.start_hits, r2b.end_hits) == (r2.start_hits, r2.end_hits),
              f"{machine}: second run of N={n2} gives the same count ({r2b.insns})")
        check(empty.insns == REGION_CONSTANT and empty.start_hits == empty.end_hits == 1,
              f"{machine}: empty region = {empty.insns}, expected {REGION_CONSTANT}")
        check(multi.insns == expected(n1, 3) and multi.start_hits == multi.end_hits == multi.pairs == 3,
              f"{machine}: 3 pairs of N={n1} = {multi.insns} ({multi.pairs} pairs), expected {expected(n1, 3)}")
    return failures


def measure_speed(build_dir: Path, loop_n: int, machines: list[str] | None = None, log=print) -> None:
    """Times a run of 3*loop_n instructions with and without the plugin."""
    plugin = build_plugin(build_dir)
    for machine in machines or list(MACHINES):
        elf = build_firmware(MACHINES[machine], loop_n, Path(build_dir) / "validate" / machine)
        t0 = time.perf_counter()
        p = subprocess.run([QEMU, "-M", machine, "-nographic", "-semihosting", "-kernel", str(elf)],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=3600)
        plain = time.perf_counter() - t0
        if p.returncode != 0:
            raise InsnCountError(f"{machine}: QEMU exited with {p.returncode}\n{p.stderr}")
        t0 = time.perf_counter()
        r = count_instructions(elf, machine, timeout=3600, plugin=plugin)
        counted = time.perf_counter() - t0
        n = r.insns
        log(f"{machine}: {n} instructions; without plugin {plain:.2f} s ({n / plain / 1e6:.0f} M/s), "
            f"with plugin {counted:.2f} s ({n / counted / 1e6:.0f} M/s), slowdown {counted / plain:.2f}x")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n1", type=int, default=1000, help="short loop length (default 1000)")
    ap.add_argument("--n2", type=int, default=100_000, help="long loop length (default 100000)")
    ap.add_argument("--machine", action="append", choices=list(MACHINES), help="board (default: both)")
    ap.add_argument("--build-dir", type=Path, help="default: a temporary directory")
    ap.add_argument("--perf", type=int, metavar="N", help="also time a run of 3N instructions")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="insn_count_validate_") as tmp:
        build_dir = args.build_dir or Path(tmp)
        try:
            failures = run_checks(build_dir, args.n1, args.n2, args.machine)
            if args.perf:
                measure_speed(build_dir, args.perf, args.machine)
        except InsnCountError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
