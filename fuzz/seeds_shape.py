"""Fuzz / signature-check seeds of the shape and data-movement operators: one small model per
(operator, type), taken from the conformance generators of tests/test_ops_movement.py (CUMSUM int8:
its own generator, TFLite Micro being its oracle)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path


def seeds() -> Iterator[tuple[str, bytes]]:
    tests = str(Path(__file__).resolve().parents[1] / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    import test_ops_movement as t

    for op, (gen, dtypes) in sorted(t.OPS.items()):
        for i, dt in enumerate(dtypes):
            yield f"{op.lower()}_{dt}", gen(dt, 1, 500 + i).model
    yield "cumsum_int8", t.g_cumsum_s8(1).model
