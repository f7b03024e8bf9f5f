"""Output comparison between a Cortex-M run and the host run of the same program."""

from __future__ import annotations

import numpy as np

#: float32 outputs may differ in the last bits: the Cortex-M FPU fuses multiply-adds (VFMA)
#: where x86-64 rounds twice. Same bound as the conformance tests.
FLOAT_RTOL = 1e-5


def outputs_match(target: list[str], host: list[str], dtypes: list[str]) -> tuple[bool, str]:
    """(match, how): byte-identical for integer outputs, within FLOAT_RTOL for float32."""
    if len(target) != len(host):
        return False, f"{len(target)} outputs vs {len(host)} on the host"
    exact = True
    for i, (t, h, dtype) in enumerate(zip(target, host, dtypes)):
        if t == h:
            continue
        exact = False
        if dtype != "float32" or len(t) != len(h):
            return False, f"output {i} differs from the host"
        a = np.frombuffer(bytes.fromhex(t), dtype="<f4")
        b = np.frombuffer(bytes.fromhex(h), dtype="<f4")
        bound = FLOAT_RTOL * max(float(np.max(np.abs(b))), 1e-30)
        if not float(np.max(np.abs(a - b))) <= bound:
            return False, f"output {i} (float32) differs from the host by more than {FLOAT_RTOL} x max|out|"
    return True, "identical" if exact else f"within {FLOAT_RTOL:g} x max|out| (float32)"
