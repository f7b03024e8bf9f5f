"""A deterministic, feedback-driven fuzz loop (no instrumentation needed; atheris_target.py is the
coverage-guided one).

Mutants that reach something new (an error message template not seen before, or an accepted model
with a new operator/dtype signature) join the corpus, so the loop drifts towards deeper code.
A sample of accepted mutants is built with -Werror and run under ASan/UBSan with extreme inputs.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .cbuild import build_and_run, compiler
from .check import Outcome, check_compile, check_reader
from .fields import find_fields
from .mutate import mutate


@dataclass
class Stats:
    inputs: int = 0
    accepted: int = 0
    rejected: int = 0
    bugs: int = 0
    hangs: int = 0
    c_built: int = 0
    c_failures: int = 0
    c_not_run: int = 0   # built only (too big to run under the sanitizers)
    corpus: int = 0
    seconds: float = 0.0
    findings: Counter = field(default_factory=Counter)   # signature -> count
    examples: dict = field(default_factory=dict)         # signature -> first detail

    def as_dict(self) -> dict:
        return {"inputs": self.inputs, "accepted": self.accepted, "rejected": self.rejected, "bugs": self.bugs,
                "hangs": self.hangs, "c_built": self.c_built, "c_failures": self.c_failures,
                "c_not_run": self.c_not_run, "corpus": self.corpus, "seconds": round(self.seconds, 1),
                "findings": dict(self.findings)}


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: object) -> None:
    raise _Timeout()


def _template(message: str) -> str:
    return re.sub(r"'[^']*'|-?\d+(\.\d+)?(e-?\d+)?|\[[^\]]*\]", "#", message)[:160]


def _accept_key(o: Outcome) -> str:
    g = o.compiled.graph if o.compiled is not None else None
    if g is None:
        return ""
    # every subgraph's operators; some have no outputs (ASSIGN_VARIABLE, CALL_ONCE)
    return "|".join(sorted({f"{op.op}:{g.tensors[op.outputs[0]].dtype if op.outputs else '-'}:{len(op.inputs)}"
                            for op in g.all_operators()}))


def run(seeds: list[tuple[str, bytes]], iterations: int, seed: int = 0, target: str = "compile",
        c_every: int = 0, c_budget: int = 0, out_dir: Path | None = None, time_limit: float = 0.0,
        per_input_timeout: int = 20, log_every: int = 0, semantic: bool = False) -> Stats:
    """Fuzz ``iterations`` mutants of ``seeds``.

    ``c_every``: build and run the C of every n-th accepted mutant (0: never), at most ``c_budget``
    times (0: no limit). ``out_dir``: save each new finding there (model + description).
    ``semantic``: field patches only, no byte havoc (see ``mutate``).
    """
    rng = random.Random(seed)
    corpus = [d for _, d in seeds]
    fields_cache: dict[int, list] = {}
    seen: set[str] = set()
    stats = Stats()
    check = check_compile if target == "compile" else check_reader
    can_build = compiler() is not None
    old = signal.signal(signal.SIGALRM, _alarm)
    start = time.monotonic()
    try:
        for it in range(iterations):
            if time_limit and time.monotonic() - start > time_limit:
                break
            k = rng.randrange(len(corpus))
            if k not in fields_cache:
                fields_cache[k] = find_fields(corpus[k])
            data = mutate(corpus[k], rng, fields_cache[k], semantic=semantic)
            stats.inputs += 1
            signal.alarm(per_input_timeout)
            try:
                outcome = check(data)
            except _Timeout:
                outcome = Outcome("bug", f"no result after {per_input_timeout} s", "hang")
                stats.hangs += 1
            finally:
                signal.alarm(0)
            if outcome.status == "rejected":
                stats.rejected += 1
                key = "r:" + _template(outcome.detail)
            elif outcome.status == "accepted":
                stats.accepted += 1
                key = "a:" + _accept_key(outcome)
                if (can_build and c_every and outcome.compiled is not None and stats.accepted % c_every == 0
                        and (not c_budget or stats.c_built < c_budget)):
                    stats.c_built += 1
                    res = build_and_run(outcome.compiled)
                    stats.c_not_run += int(res.ok and not res.ran)
                    if not res.ok:
                        stats.c_failures += 1
                        outcome = Outcome("bug", res.detail, f"C {res.stage}: {_c_signature(res.detail)}")
            else:
                key = ""
            if outcome.status == "bug":
                stats.bugs += 1
                stats.findings[outcome.signature] += 1
                if outcome.signature not in stats.examples:
                    stats.examples[outcome.signature] = outcome.detail
                    if out_dir is not None:
                        _save(out_dir, data, outcome)
            elif key and key not in seen:
                seen.add(key)
                corpus.append(data)
            if log_every and (it + 1) % log_every == 0:
                stats.corpus = len(corpus)
                stats.seconds = time.monotonic() - start
                print(json.dumps(stats.as_dict()), flush=True)
    finally:
        signal.signal(signal.SIGALRM, old)
    stats.corpus = len(corpus)
    stats.seconds = time.monotonic() - start
    return stats


def _c_signature(detail: str) -> str:
    for line in detail.splitlines():
        m = re.search(r"(kernels/[\w.]+:\d+).*(runtime error: [^0-9]*)", line)
        if m:
            return f"{m.group(1)} {m.group(2).strip()}"
        m = re.search(r"(error: .*)", line)
        if m:
            return re.sub(r"\d+", "#", m.group(1))[:120]
        m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", line)
        if m:
            return m.group(1)
    return detail.splitlines()[0][:120] if detail else "?"


def _save(out_dir: Path, data: bytes, outcome: Outcome) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(data).hexdigest()[:16]
    (out_dir / f"{digest}.tflite").write_bytes(data)
    (out_dir / f"{digest}.txt").write_text(f"{outcome.signature}\n{outcome.detail}\n")
