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

#: Cortex-M7 (TRM, Arm DDI 0489, "Features" and "Pipeline"; the TRM gives no per-instruction
#: table): a six-stage dual-issue pipeline with two integer ALU pipes, one MAC pipe, one
#: load/store pipe on a 64-bit path and a branch target address cache. Per class: data processing,
#: the DSP extension's non-multiply instructions (SXTB16, SSAT, QADD ...), IT and not-taken
#: branches (class branch) pair with a neighbour (0.5 cycle); the instructions of the single MAC pipe (MUL, MLA,
#: the long multiplies, SMLAD & co.) and of the single load/store pipe (LDR/STR, LDRD/STRD as one
#: 64-bit access) 1 cycle, LDM/STM 1 + 2 registers per cycle; FP 1; SDIV/UDIV 7 (2 to 12 by
#: operand); a taken branch 1 extra (predicted; mispredictions are not in the mix). That a MAC and
#: a load never pair in this table is the pessimistic side; a pure throughput bound (any two
#: independent instructions of different pipes in one cycle) was tried and put the M7 at 2.6x the
#: M4 per clock on the same code, against 1.6-1.7x in the published board figures
#: (benchmarks/README.md, "Cycles": the check), so the table stays. Flash wait states ignored.
CORTEX_M7 = CoreModel(
    name="cortex-m7",
    source="dual-issue per-class model (Cortex-M7 TRM pipeline description), checked against MLPerf Tiny M4/M7",
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


#: Cortex-M33: Arm publishes no per-instruction timings for it. Its pipeline is the M4's kind
#: (three stages, one instruction per cycle, the same DSP extension with single-cycle MACs, 32-bit
#: loads that pipeline back to back, no branch prediction), so the M4 table is used unchanged;
#: the published boards put the M33 10-20 % ahead of the M4 (benchmarks/README.md, "Cycles": the
#: check), which this model does not see.
CORTEX_M33 = CoreModel(
    name="cortex-m33",
    source="Cortex-M4 TRM table 3-1 (the M33's single-issue pipeline is of the same class)",
    cost=dict(CORTEX_M4.cost),
    taken=CORTEX_M4.taken,
)

#: Cortex-M85: the scalar side is a dual-issue core like the M7 (the M7 table). Helium: dual-beat
#: like the M55 (a 128-bit instruction is 4 beats, 2 cycles) with more overlap: consecutive vector
#: instructions of different kinds (VLDR then VMLADAV) overlap their beats, so an interleaved
#: vector loop retires one per cycle -- every MVE instruction counted 1 cycle (the M55: 1.5). The
#: plugin's mix puts MVE and scalar FP in one class ("fp"); the int8 kernels run no scalar FP. The
#: low-overhead loop end (LE) is a taken branch in the mix, counted 1 like the others (the M85
#: predicts it). Flash wait states ignored.
CORTEX_M85 = CoreModel(
    name="cortex-m85",
    source="Cortex-M7 table for scalar; MVE dual-beat, overlapped: 1 cycle per vector instruction",
    cost={**CORTEX_M7.cost, "fp": 1},
    taken=1,
)

MODELS.update({m.name: m for m in (CORTEX_M33, CORTEX_M85)})
