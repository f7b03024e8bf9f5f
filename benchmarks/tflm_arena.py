"""TensorFlow Lite Micro's arena for a model, measured with its Python interpreter on the host.

TFLM cannot be built for Cortex-M here, so the figure is that of the `tflite_micro` package's
interpreter (x86-64, 64-bit pointers: its structures in the arena are larger than on a 32-bit
Cortex-M, so the figure is an upper bound of what the model needs there): the smallest
``arena_size`` with which ``Interpreter.from_file`` allocates and the same sequence of calls as
the benchmark program gives the outputs of a generously sized arena, found by bisection (16-byte
steps; each trial in its own process: the interpreter may crash on a too-small arena), and the
RecordingMicroAllocator's report (``print_allocations``) at that size: total, head (the
non-persistent, planned tensors), tail (persistent: tensor structures, operator data, variables)
and its per-kind lines.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

_TRIAL = """
import sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime
path, arena, feeds, steps, out, report = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], \\
    sys.argv[6] == "1"
z = np.load(feeds)
it = runtime.Interpreter.from_file(path, arena_size=arena)
n_in = len([k for k in z.files if k.startswith("s0_")])
for t in range(steps):
    for k in range(n_in):
        it.set_input(z[f"s{t}_{k}"], k)
    it.invoke()
n_out = 0
while True:
    try:
        it.get_output_details(n_out)
    except Exception:
        break
    n_out += 1
np.savez(out, *[np.array(it.get_output(k)) for k in range(n_out)])
if report:
    it.print_allocations()
"""

_LARGE = 1 << 22


def _trial(path: Path, arena: int, feeds: Path, steps: int, work: Path, report: bool = False
           ) -> tuple[list[np.ndarray] | None, str]:
    out = work / f"out_{arena}.npz"
    try:
        proc = subprocess.run([sys.executable, "-c", _TRIAL, str(path), str(arena), str(feeds), str(steps), str(out),
                               "1" if report else "0"], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, ""
    if proc.returncode != 0 or not out.is_file():
        return None, proc.stderr
    z = np.load(out)
    return [z[f"arr_{i}"] for i in range(len(z.files))], proc.stderr


def smallest_arena(path: Path, calls: list[list[np.ndarray]], masks: dict[int, np.ndarray] | None = None) -> dict:
    """{"arena_bytes", "total", "head", "tail", "lines"} for ``path`` fed ``calls`` (one list of
    inputs per call); ``masks``: output position -> rows to compare (detection slots the
    interpreter writes), others compared whole. Raises RuntimeError when even a large arena fails."""
    with tempfile.TemporaryDirectory(prefix="bench-tflm-") as tmp:
        work = Path(tmp)
        feeds = work / "feeds.npz"
        np.savez(feeds, **{f"s{t}_{k}": a for t, arrays in enumerate(calls) for k, a in enumerate(arrays)})
        want, err = _trial(path, _LARGE, feeds, len(calls), work)
        if want is None:
            raise RuntimeError(f"TFLM's interpreter fails on {path.name}: "
                               f"{(err.strip().splitlines() or ['?'])[-1]}")

        def same(got: list[np.ndarray] | None) -> bool:
            if got is None or len(got) != len(want):
                return False
            for k, (a, b) in enumerate(zip(got, want)):
                a, b = np.asarray(a).reshape(-1), np.asarray(b).reshape(-1)
                if masks and k in masks and a.size == b.size:
                    keep = np.repeat(masks[k], a.size // masks[k].size)
                    a, b = a[keep], b[keep]
                if a.tobytes() != b.tobytes():
                    return False
            return True

        lo, hi = 0, _LARGE // 16        # in 16-byte units: lo fails (or is 0), hi works
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if same(_trial(path, mid * 16, feeds, len(calls), work)[0]):
                hi = mid
            else:
                lo = mid
        _, report = _trial(path, hi * 16, feeds, len(calls), work, report=True)
    figures = {"arena_bytes": hi * 16, "lines": [ln for ln in report.splitlines() if "RecordingMicroAllocator" in ln]}
    for key in ("total", "head", "tail"):
        m = re.search(rf"Arena allocation {key} (\d+) bytes", report)
        figures[key] = int(m.group(1)) if m else None
    return figures
