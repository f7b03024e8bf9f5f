"""A systematic sweep (``python -m fuzz sweep``): every quantization scale, zero point and float
option of every seed set, one at a time, to each extreme value below; each mutant goes through
``check_compile``, and a sample of the accepted ones through the sanitized C build.

Random mutation reaches such values only by chance; the sweep tries each of them on every field
(it found the ELU lookup table of an infinite 1/output scale, issue 22).
"""

from __future__ import annotations

import signal
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .cbuild import build_and_run, compiler
from .check import check_compile
from .fields import find_fields

_FLT_MIN, _FLT_MAX, _DENORM = 1.17549435e-38, 3.4028235e38, 1.4e-45
SCALES = (_FLT_MIN, _DENORM, 1e-38, _FLT_MAX, 1e30, 1e-30, 2.0**-31, 2.0**31, 1e-20, 65536.0, 0.0, -1.0,
          float("inf"), float("nan"), 1e-10, 1e10)
ZERO_POINTS = (-(1 << 63), (1 << 63) - 1, -129, 128, -32769, 32768, 255, -128, 127)
FLOATS = (0.0, -0.0, _DENORM, 1e-38, _FLT_MAX, -_FLT_MAX, float("inf"), float("nan"), 1e30, -1e30)


@dataclass
class SweepStats:
    outcomes: Counter = field(default_factory=Counter)
    c_built: int = 0
    c_failures: int = 0
    findings: dict = field(default_factory=dict)   # signature -> detail


def _values(tag: str) -> list[bytes]:
    if tag == "scale":
        return [struct.pack("<f", v) for v in SCALES]
    if tag == "zero_point":
        return [struct.pack("<q", v) for v in ZERO_POINTS]
    if tag == "option_float":
        return [struct.pack("<f", v) for v in FLOATS]
    return []


def sweep(seeds: list[tuple[str, bytes]], c_sample: int = 200, out_dir: Path | None = None,
          per_input_timeout: int = 30) -> SweepStats:
    stats = SweepStats()
    accepted = []

    def alarm(_signum: int, _frame: object) -> None:
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        for name, data in seeds:
            for f in find_fields(data):
                for v in _values(f.tag):
                    mutant = bytearray(data)
                    mutant[f.pos:f.pos + len(v)] = v
                    signal.alarm(per_input_timeout)
                    try:
                        o = check_compile(bytes(mutant))
                        status, sig = o.status, o.signature
                    except TimeoutError:
                        status, sig, o = "bug", "hang", None
                    finally:
                        signal.alarm(0)
                    stats.outcomes[status] += 1
                    if status == "bug" and sig not in stats.findings:
                        stats.findings[sig] = f"{name} {f.tag}: {o.detail if o else 'no result'}"
                        if out_dir is not None:
                            out_dir.mkdir(parents=True, exist_ok=True)
                            (out_dir / f"sweep-{len(stats.findings)}.tflite").write_bytes(bytes(mutant))
                    elif status == "accepted":
                        accepted.append((name, f.tag, o.compiled))
    finally:
        signal.signal(signal.SIGALRM, old)
    if compiler() is not None and c_sample and accepted:
        step = max(1, len(accepted) // c_sample)
        for name, tag, compiled in accepted[::step]:
            res = build_and_run(compiled)
            stats.c_built += 1
            if not res.ok:
                stats.c_failures += 1
                stats.findings.setdefault(f"C {res.stage} {name}", f"{tag}: {res.detail}")
    return stats
