"""Code generation options (the command line, CMake and SCons expose the same set)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .errors import UtvmError
from .selection import OPTIMIZE_MODES
from .targets import TARGETS

INTERFACES = ("c", "packed")
WORKSPACES = ("static", "user")
IO_PLACEMENTS = ("caller", "workspace")
STATES = ("static", "user")
MEMORY_MODES = ("fast", "balanced", "min")


@dataclass(frozen=True)
class CompileOptions:
    #: C name of the model (``tvmgen_<name>_run``); default derived from the file name.
    name: str | None = None
    #: "c": typed entry point only; "packed": also a TVMBackendPackedCFunc in the system library.
    interface: str = "c"
    #: "static": the workspace is a static buffer; "user": the caller passes it (workspace_pools).
    workspace: str = "static"
    #: Linker section of constants ("" = compiler default).
    constants_section: str = ".rodata.tvm"
    #: Linker section of the static workspace ("" = compiler default).
    workspace_section: str = ".bss.noinit.tvm"
    #: Alignment in bytes of constant arrays of 64 bytes or more (smaller ones: natural alignment).
    constants_align: int = 16
    #: Alignment in bytes of the workspace and of every buffer inside it.
    workspace_align: int = 16
    #: "caller": inputs and outputs are the caller's buffers; "workspace": they are planned in the
    #: workspace too (less RAM; ``tvmgen_<name>_map_inputs/outputs`` give their addresses).
    io: str = "caller"
    #: The CPU whose kernels are used (utvm_build/targets.py); "generic": portable C99 everywhere.
    target: str = "generic"
    #: State that lives across calls (variable tensors, resource variables; docs/state.md):
    #: "static": one static region (one model instance); "user": the caller passes it to
    #: ``tvmgen_<name>_run`` and ``_reset`` (one region per instance).
    state: str = "static"
    #: Time every operator call with TVMPlatformTimerStart/Stop into ``<prefix>_profile[]``
    #: (emit/profile.py; needs the CRT's headers and a platform timer).
    profile: bool = False
    #: RAM against speed (passes/patches.py): "fast": layer by layer, as the model is; "balanced":
    #: patch-based execution where it costs at most 2% extra MACs; "min": at most 10%.
    memory: str = "fast"
    #: Largest workspace wanted, bytes (0: none): patch-based execution with the fewest extra MACs
    #: that meets it (within "min"'s budget); a model that cannot meet it is an error.
    ram_limit: int = 0
    #: Per-layer kernel variants measured by ``utvm-build tune`` (tuning.py): (layer signature key,
    #: variant) pairs, sorted; None: the fixed selection rules everywhere.
    tuning: tuple[tuple[str, str], ...] | None = None
    #: Flash against speed in the kernels' data (selection.OPTIMIZE_MODES): "speed": int16
    #: pre-widened weights for every DSP CONV_2D that takes them; "balanced": for the layers where
    #: each extra flash byte saves enough instructions (ops/conv.py ``widen``); "size": never.
    optimize: str = "balanced"

    def validate(self) -> None:
        for what, value, accepted in (("interface", self.interface, INTERFACES),
                                      ("workspace mode", self.workspace, WORKSPACES),
                                      ("io placement", self.io, IO_PLACEMENTS), ("state mode", self.state, STATES),
                                      ("memory mode", self.memory, MEMORY_MODES),
                                      ("optimize mode", self.optimize, OPTIMIZE_MODES),
                                      ("target", self.target, tuple(TARGETS))):
            if value not in accepted:
                raise UtvmError(f"unknown {what} '{value}'; choose one of {', '.join(accepted)}")
        if not 0 <= self.ram_limit < 2**31:
            raise UtvmError(f"RAM limit {self.ram_limit} is not a byte count between 0 and 2^31-1")
        if self.interface == "packed" and self.workspace == "user":
            raise UtvmError("the packed interface takes tensors only and has no workspace argument: "
                            "use --workspace static with --interface packed")
        if self.interface == "packed" and self.state == "user":
            raise UtvmError("the packed interface takes tensors only and has no state argument: "
                            "use --state static with --interface packed")
        for what, a in (("constants", self.constants_align), ("workspace", self.workspace_align)):
            if a < 1 or a > 4096 or a & (a - 1):
                raise UtvmError(f"{what} alignment {a} is not a power of two between 1 and 4096")
        for what, s in (("constants", self.constants_section), ("workspace", self.workspace_section)):
            if s and not all(c.isalnum() or c in "._$" for c in s):
                raise UtvmError(f"{what} section '{s}' is not a valid section name (letters, digits, . _ $)")

    def as_dict(self) -> dict:
        d = asdict(self)
        # --memory fast without a limit writes what it wrote before these options existed
        if self.memory == "fast" and not self.ram_limit:
            del d["memory"], d["ram_limit"]
        if self.optimize == "balanced":
            del d["optimize"]  # the default writes what it wrote before the option existed
        if self.tuning is None:
            del d["tuning"]    # without a record the metadata stays as before
        else:
            d["tuning"] = [list(p) for p in self.tuning]
        return d
