"""Cycle estimates from the instruction mix counted by the QEMU plugin (benchmarks/README.md,
"Cycles").

The plugin gives, for the measured region, the executed instructions per class
(qemu_plugin.CLASSES) and how many branch-like instructions were taken. A core model here gives
each class a cost in cycles; the estimate is the sum. It assumes zero wait-state memory and no
interrupts, and it cannot see operand-dependent timings (divides), register interlocks or, on
dual-issue cores, which pairs issued together: an estimate, documented with its limits.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CoreModel:
    name: str
    source: str
    #: cycles per instruction of each class (register counts: per register)
    cost: dict[str, float]
    #: extra cycles of a taken branch (pipeline refill P, or a predicted-taken redirect)
    taken: float


#: Cortex-M4 Technical Reference Manual (Arm 100166_0001_00, table 3-1 "Processor instruction
#: set summary"): data processing, MUL/MLA/MLS, the long multiplies and accumulates (SMULL,
#: UMULL, SMLAL, UMLAL) and every DSP instruction (SMLAD, SXTB16, SSAT ...) take 1 cycle; LDR/STR
#: 2, but "neighboring load and store single instructions can pipeline their address and data
#: phases", so a single load or store right after another in the same translation block is
#: counted 1 (class ld_st_next); LDRD/STRD 1 + 2; LDM/STM/PUSH/POP 1 + N registers; SDIV/UDIV
#: 2 to 12 depending on the operands (counted 7); branches 1 + P when taken, P = 1 to 3 pipeline
#: refill (counted 2), 1 when not taken; IT counted 1 (the core folds some).
CORTEX_M4 = CoreModel(
    name="cortex-m4",
    source="Cortex-M4 TRM table 3-1",
    cost={"alu": 1, "ld": 2, "ld_st_next": 1, "st": 2, "ldrd": 3, "strd": 3, "ldm": 1, "ldm_regs": 1,
          "stm": 1, "stm_regs": 1, "mul": 1, "mull": 1, "dsp_mac": 1, "dsp": 1, "div": 7, "branch": 1,
          "fp": 1, "other": 1},
    taken=2,
)

#: Cortex-M7: the TRM gives no per-instruction table, only the pipeline (dual issue, one MAC
#: pipe, one load/store pipe with 64-bit loads, a branch predictor). A coarse throughput model:
#: two simple ALU/DSP-non-MAC instructions per cycle, one load/store or multiply per cycle, LDRD/LDM
#: two registers per cycle, taken branches 1 extra cycle (predicted; mispredictions, about 8
#: cycles, are not visible here), divides 7. Good for comparing kernels, not for absolute cycles.
CORTEX_M7 = CoreModel(
    name="cortex-m7",
    source="coarse dual-issue throughput model (Cortex-M7 TRM pipeline description)",
    cost={"alu": 0.5, "ld": 1, "ld_st_next": 1, "st": 1, "ldrd": 1, "strd": 1, "ldm": 1, "ldm_regs": 0.5,
          "stm": 1, "stm_regs": 0.5, "mul": 1, "mull": 1, "dsp_mac": 1, "dsp": 0.5, "div": 7, "branch": 0.5,
          "fp": 1, "other": 1},
    taken=1,
)

#: Cortex-M55 (Helium): the scalar classes as the Cortex-M4 table (the M55's in-order scalar
#: pipeline; its 64-bit load path and store buffer make this pessimistic for LDRD/LDM). The class
#: "fp" holds every MVE (and FP) instruction on this core: a 128-bit MVE instruction is 4 beats,
#: 2 cycles on the dual-beat M55; consecutive MVE instructions of different kinds (a VLDR and a
#: VMLADAV, a VMUL and a VADD) overlap by one beat pair, so a loop alternating them issues one per
#: cycle. The mix does not show which neighbours overlap: counted 1.5 cycles, the midpoint of no
#: overlap (2) and full overlap (1) -- at most +-25 % on the MVE part (the MVE kernels' inner loops
#: alternate loads and multiply-accumulates, so the truth is nearer 1 there). VPST and tail
#: predication are counted as the instructions they are. No Cortex-M55 board figure is published
#: to check it against (../shared/docs/anchors.md); flash wait states ignored.
CORTEX_M55 = CoreModel(
    name="cortex-m55",
    source="Cortex-M4 TRM table 3-1 for scalar; MVE dual-beat, half the vector instructions overlapped",
    cost={**CORTEX_M4.cost, "fp": 1.5},
    taken=2,
)

MODELS = {m.name: m for m in (CORTEX_M4, CORTEX_M7, CORTEX_M55)}


def estimate(mix: dict[str, int], model: CoreModel = CORTEX_M4) -> int:
    """Estimated cycles of a region from its instruction mix."""
    cycles = sum(model.cost[k] * mix.get(k, 0) for k in model.cost)
    cycles += model.taken * mix.get("taken", 0)
    return int(round(cycles))


def summary(mix: dict[str, int]) -> dict[str, int]:
    """The mix in the groups of the results tables."""
    return {
        "loads": mix.get("ld", 0) + mix.get("ldrd", 0) + mix.get("ldm", 0),
        "stores": mix.get("st", 0) + mix.get("strd", 0) + mix.get("stm", 0),
        "ld_st_next": mix.get("ld_st_next", 0),
        "ld_st_multiple_regs": mix.get("ldm_regs", 0) + mix.get("stm_regs", 0),
        "mul_mac": mix.get("mul", 0) + mix.get("mull", 0),
        "dsp_mac": mix.get("dsp_mac", 0),
        "dsp_simd": mix.get("dsp", 0),
        "div": mix.get("div", 0),
        "branches": mix.get("branch", 0),
        "taken": mix.get("taken", 0),
        "not_taken": mix.get("not_taken", 0),
        "alu_other": mix.get("alu", 0) + mix.get("fp", 0) + mix.get("other", 0),
    }
