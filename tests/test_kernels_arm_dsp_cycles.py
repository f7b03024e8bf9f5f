"""The instruction mix and cycle estimates of the benchmark harness (benchmarks/qemu_plugin mix=on,
marks=; benchmarks/cycles.py) on firmware whose every executed instruction is known, plus the Thumb
classifier on hand-assembled instructions of each class.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from system_tools import need

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks import cycles  # noqa: E402
from benchmarks.qemu_plugin import CLASSES, build_plugin, count_instructions, validate  # noqa: E402

# One instruction of each class between the markers, in a naked function (nothing else is executed).
MIX_ASM = r"""
    .syntax unified
    .thumb
    .global mix_region
    .type mix_region, %function
    .thumb_func
mix_region:
    push {r4, r5, r6, lr}          @ stm, 4 regs
    ldr r4, =buf                   @ ld (literal)
    ldr r5, [r4]                   @ ld_st_next
    movs r6, #3                    @ alu
    str r6, [r4, #4]               @ st
    add r6, r6, #1                 @ alu
    ldrd r0, r1, [r4]              @ ldrd
    strd r0, r1, [r4, #8]          @ strd
    mul r0, r1, r6                 @ mul
    smull r0, r1, r5, r6           @ mull
    smlad r0, r1, r5, r6           @ dsp_mac
    smlabb r0, r1, r5, r6          @ dsp_mac
    sxtb16 r0, r1                  @ dsp
    sxtab16 r0, r1, r5, ror #8     @ dsp
    ssat r0, #8, r1                @ dsp
    movs r1, #7
    sdiv r0, r1, r6                @ div
    cmp r6, #4                     @ alu
    beq 1f                         @ branch, taken (r6 == 4)
    nop
1:  cmp r6, #5
    bne 2f                         @ branch, taken
    nop
2:  cmp r6, #4
    bne 3f                         @ branch to the next instruction: counted as not taken
3:  cbz r6, 4f                     @ branch, not taken
    nop                            @ alu
4:  ldm r4, {r0, r1}               @ ldm, 2 regs
    pop {r4, r5, r6, pc}           @ ldm, 4 regs, taken
    .ltorg
    .bss
    .balign 8
buf: .space 32
"""

MIX_C = r"""
void bench_marker_start(void) __attribute__((noinline, used));
void bench_marker_end(void) __attribute__((noinline, used));
void bench_marker_start(void) { __asm__ volatile("" ::: "memory"); }
void bench_marker_end(void) { __asm__ volatile("" ::: "memory"); }
void mix_region(void);
int main(void) {
  bench_marker_start();
  mix_region();
  bench_marker_end();
  return 0;
}
"""
CORTEX_M = REPO / "examples" / "cortex_m"

#: what the region executes: the start marker's `bx lr`, then `bl mix_region` ... and `bl bench_marker_end`
EXPECTED = {"alu": 7, "ld": 1, "ld_st_next": 1, "st": 1, "ldrd": 1, "strd": 1, "ldm": 2, "ldm_regs": 6, "stm": 1,
            "stm_regs": 4, "mul": 1, "mull": 1, "dsp_mac": 2, "dsp": 3, "div": 1, "branch": 7, "fp": 0, "other": 0,
            "taken": 6, "not_taken": 2}


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory) -> Path:
    need("cc", "arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
    return tmp_path_factory.mktemp("mix")


def _firmware(build_dir: Path) -> Path:
    (build_dir / "mix.S").write_text(MIX_ASM)
    (build_dir / "main.c").write_text(MIX_C)
    elf = build_dir / "mix.elf"
    cmd = ["arm-none-eabi-gcc", "-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-O2",
           "-nostartfiles", "--specs=nano.specs", f"-I{CORTEX_M}", "main.c", "mix.S",
           str(CORTEX_M / "startup.c"), str(CORTEX_M / "semihosting.c"), f"-L{CORTEX_M}",
           f"-T{CORTEX_M / 'mps2-an386.ld'}", "-o", str(elf)]
    r = subprocess.run(cmd, cwd=build_dir, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(r.stderr)
    return elf


def test_mix_of_known_instructions(build_dir: Path) -> None:
    elf = _firmware(build_dir)
    r = count_instructions(elf, "mps2-an386", timeout=30, plugin=build_plugin(build_dir), mix=True)
    assert r.mix is not None and set(r.mix) == set(CLASSES)
    # bx lr of the start marker and bl mix_region, bl bench_marker_end: 3 more branches, all taken
    total = sum(v for k, v in r.mix.items() if k not in ("ldm_regs", "stm_regs", "taken", "not_taken"))
    assert total == r.insns
    got = dict(r.mix)
    assert got == EXPECTED, got
    c = cycles.estimate(got, cycles.CORTEX_M4)
    # 7 alu + ld 2 + next 1 + st 2 + ldrd 3 + strd 3 + ldm (2 + 6) + stm (1 + 4) + mul 1 + mull 1 + dsp 5
    # + div 7 + 7 branches + 6 taken x 2
    assert c == 7 + 2 + 1 + 2 + 3 + 3 + 8 + 5 + 1 + 1 + 5 + 7 + 7 + 12


def test_counts_unchanged_and_segments(build_dir: Path) -> None:
    """mix=on and marks= do not change the count; segments at the loop's marks sum to the region."""
    plugin = build_plugin(build_dir)
    elf = validate.build_firmware("cortex-m4", 1000, build_dir / "v")
    plain = count_instructions(elf, "mps2-an386", timeout=30, plugin=plugin)
    mixed = count_instructions(elf, "mps2-an386", timeout=30, plugin=plugin, mix=True)
    assert plain.insns == mixed.insns == validate.expected(1000)
    assert mixed.mix["alu"] == 2000 and mixed.mix["branch"] == 1002
    assert (mixed.mix["taken"], mixed.mix["not_taken"]) == (1001, 1)
    nm = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True).stdout
    marks = [int(ln.split()[0], 16) & ~1 for ln in nm.splitlines() if ln.endswith(" measured")]
    if marks:
        seg = count_instructions(elf, "mps2-an386", timeout=30, plugin=plugin, mix=True, marks=marks)
        assert sum(n for _, n, _ in seg.segments) == seg.insns == plain.insns
