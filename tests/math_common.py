"""Shared helpers of the math operator conformance tests (test_ops_math_*.py).

``check`` runs cases through utvm-build (one sanitized executable) and an oracle: TFLite 2.14's
reference kernels (``engine="ref"``), or TFLite Micro's interpreter (``engine="tflm"``) for
operators and types that tflite-runtime 2.14's reference resolver lacks (CEIL, ROUND, ELU have no
BUILTIN_REF kernel; int8 ADD_N, int16 PRELU / SQUARED_DIFFERENCE exist only in TFLM). CI runs a
seeded sample of every (operator, type) sweep; ``UTVM_TEST_FULL=1`` runs all cases.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
from harness import Case, assert_matches, record, run_cases
from oracle import builtin_outputs_many, micro_reference_outputs_many, reference_outputs_many
from target_harness import check_on_targets

FULL = os.environ.get("UTVM_TEST_FULL") == "1"

#: (operator, type) -> [cases run, bit-exact]
COUNTS: dict[tuple[str, str], list[int]] = {}


def sample(cases: list, k: int, full_n: int | None = None) -> list:
    """Every case with UTVM_TEST_FULL=1, else ``k`` of them (a fixed, evenly spread subset)."""
    if FULL or len(cases) <= k:
        return cases
    step = len(cases) / k
    return [cases[int((i + 0.5) * step)] for i in range(k)]


def check(cases: Sequence[tuple[str, str, Case]], engine: str = "ref", float_rtol: float = 1e-5) -> dict:
    """cases: (operator, type, Case). Asserts every case matches; returns per-key counts."""
    items = [(c.model, c.inputs) for _, _, c in cases]
    refs = {"ref": reference_outputs_many, "builtin": builtin_outputs_many,
            "tflm": micro_reference_outputs_many}[engine](items)
    ours = run_cases([c for _, _, c in cases])
    failures = []
    exact_total = 0
    for (name, dtype, case), mine, ref in zip(cases, ours, refs):
        key = COUNTS.setdefault((name, dtype), [0, 0])
        if isinstance(ref, Exception):
            failures.append(f"{case.label}: the oracle ({engine}) failed: {ref}")
            continue
        try:
            for i, (o, r) in enumerate(zip(mine, ref)):
                assert_matches(o, np.asarray(r), f"{case.label} output {i}", float_rtol)
        except AssertionError as e:
            failures.append(str(e))
            continue
        exact = all(np.array_equal(o, np.asarray(r).reshape(o.shape)) for o, r in zip(mine, ref))
        key[0] += 1
        key[1] += int(exact)
        exact_total += int(exact)
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures[:20])
    record(len(cases), exact_total)
    check_on_targets([c for _, _, c in cases], refs, float_rtol)  # on QEMU Cortex-M4 / M55 (sampled)
    return {"cases": len(cases), "bit_exact": exact_total}


def report(prefix: str) -> str:
    return "; ".join(f"{op} {dt}: {n} cases, {e} bit-exact" for (op, dt), (n, e) in sorted(COUNTS.items())
                     if op.startswith(prefix) or not prefix)
