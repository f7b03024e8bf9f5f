"""Seeds with state and control flow (issue 15): resource variables initialised by CALL_ONCE and
IF in a stateful model (tests/state_models.py), one per structure and dtype, and the
TF-converted models of tests/data/state/. No WHILE: its loop ends only when the model's
condition turns false (docs/state.md), so a mutant may legitimately never return, which the
fuzzer's C runs would report as a hang."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from .seeds import ROOT


def seeds() -> Iterator[tuple[str, bytes]]:
    tests = str(ROOT / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from state_models import DTYPES, KINDS, stateful_model

    for kind in [k for k in KINDS if k != "while"]:
        for dtype in DTYPES:
            model, _, _ = stateful_model(kind, dtype, 0)
            yield f"state_{kind}_{dtype}", model
    for path in sorted((ROOT / "tests" / "data" / "state").glob("*.tflite")):
        if "while" in path.stem:
            continue
        yield f"state_{path.stem}", path.read_bytes()
