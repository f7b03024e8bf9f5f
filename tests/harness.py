"""Compile many generated models into one sanitized test executable and compare with the oracle.

Building one executable per batch (instead of one per model) keeps the conformance suite fast:
the generated directories are compiled in parallel into objects, linked once with
AddressSanitizer/UndefinedBehaviorSanitizer, and run once over all cases.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_directory
from utvm_build.host import STRICT_CFLAGS, host_cc
from utvm_build.options import CompileOptions

#: Conformance tally for the session summary: test file -> [cases, bit-exact cases].
TALLY: dict[str, list[int]] = {}


def record(cases: int, exact: int) -> None:
    key = os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[0]
    entry = TALLY.setdefault(key, [0, 0])
    entry[0] += cases
    entry[1] += exact


SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
_JOBS = max(2, os.cpu_count() or 2)


@dataclass
class Case:
    """One model and its inputs; ``label`` names the case in failure messages."""

    model: bytes
    inputs: list[np.ndarray]
    label: str = ""
    options: CompileOptions = field(default_factory=CompileOptions)


def _runner_source(names: list[str], metas: list[dict]) -> str:
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "#include <stdint.h>"]
    for n in names:
        lines.append(f'#include "tvmgen_{n}.h"')
    lines += [
        "static void* load(const char* path, size_t n) {",
        "  void* p = malloc(n ? n : 1); FILE* f = fopen(path, \"rb\");",
        "  if (!p || !f || fread(p, 1, n, f) != n) { fprintf(stderr, \"cannot read %s\\n\", path); exit(3); }",
        "  fclose(f); return p;",
        "}",
        "static void save(const char* path, const void* p, size_t n) {",
        "  FILE* f = fopen(path, \"wb\");",
        "  if (!f || fwrite(p, 1, n, f) != n) { fprintf(stderr, \"cannot write %s\\n\", path); exit(3); }",
        "  fclose(f);",
        "}",
        "int main(int argc, char** argv) {",
        "  /* argv[1]: directory with case<k>_in<i>.bin; outputs go to case<k>_out<i>.bin */",
        "  char path[4096]; int rc = 0;",
        "  if (argc != 2) { return 2; }",
    ]
    for k, (n, m) in enumerate(zip(names, metas)):
        lines.append("  {")
        lines.append(f"    struct tvmgen_{n}_inputs in; struct tvmgen_{n}_outputs out;")
        for i, p in enumerate(m["inputs"]):
            lines.append(f'    snprintf(path, sizeof path, "%s/case{k}_in{i}.bin", argv[1]);')
            lines.append(f"    in.{p['c_name']} = load(path, {p['bytes']});")
        for p in m["outputs"]:
            lines.append(f"    out.{p['c_name']} = calloc(1, {p['bytes']});")
        if m["options"]["workspace"] == "user":
            align = m["options"]["workspace_align"]
            lines.append(f"    struct tvmgen_{n}_workspace_pools ws;")
            lines.append(f"    void* raw = malloc({m['workspace_bytes']} + {align});")
            lines.append(f"    ws.global_workspace = (void*)(((uintptr_t)raw + {align - 1}u)"
                         f" & ~(uintptr_t){align - 1}u);")
            lines.append(f"    if (tvmgen_{n}_run(&in, &out, &ws) != 0) {{ rc = 1; }}")
            lines.append("    free(raw);")
        else:
            lines.append(f"    if (tvmgen_{n}_run(&in, &out) != 0) {{ rc = 1; }}")
        for i, p in enumerate(m["outputs"]):
            lines.append(f'    snprintf(path, sizeof path, "%s/case{k}_out{i}.bin", argv[1]);')
            lines.append(f"    save(path, out.{p['c_name']}, {p['bytes']}); free(out.{p['c_name']});")
        for p in m["inputs"]:
            lines.append(f"    free(in.{p['c_name']});")
        lines.append("  }")
    lines += ["  return rc;", "}", ""]
    return "\n".join(lines)


def run_cases(cases: Sequence[Case], cflags: Sequence[str] = ("-O1", "-g"), sanitize: bool = True,
              cc: Sequence[str] | None = None) -> list[list[np.ndarray]]:
    """Generate, build (strict warnings, sanitizers) and run every case; return outputs per case."""
    cc = list(cc) if cc else host_cc()
    flags = STRICT_CFLAGS + list(cflags) + (SANITIZE if sanitize else [])
    with tempfile.TemporaryDirectory(prefix="utvm-cases-") as tmp_s:
        tmp = Path(tmp_s)
        names, metas, compile_jobs = [], [], []
        for k, case in enumerate(cases):
            name = f"case{k}"
            compiled = compile_bytes(case.model, name, case.options)
            write_directory(tmp / name, compiled.files)
            meta = compiled.metadata
            names.append(name)
            metas.append(meta)
            inc = [f"-I{tmp / name / d}" for d in meta["include_dirs"]]
            for src in meta["sources"]:
                obj = tmp / "obj" / f"{name}_{Path(src).stem}.o"
                compile_jobs.append(cc + flags + inc + ["-c", str(tmp / name / src), "-o", str(obj)])
            for i, (x, p) in enumerate(zip(case.inputs, meta["inputs"])):
                arr = np.ascontiguousarray(np.asarray(x, dtype=p["dtype"]))
                assert arr.nbytes == p["bytes"], (case.label, i, arr.shape, p["shape"])
                (tmp / f"case{k}_in{i}.bin").write_bytes(arr.tobytes())
        (tmp / "obj").mkdir()
        runner = tmp / "runner.c"
        runner.write_text(_runner_source(names, metas))
        all_inc = [f"-I{tmp / n / 'include'}" for n in names]
        compile_jobs.append(cc + flags + ["-Wno-unused-result"] + all_inc + ["-c", str(runner), "-o",
                                                                              str(tmp / "obj" / "runner.o")])
        with ThreadPoolExecutor(_JOBS) as pool:
            results = list(pool.map(lambda c: subprocess.run(c, capture_output=True, text=True), compile_jobs))
        for cmd, r in zip(compile_jobs, results):
            if r.returncode != 0:
                raise AssertionError(f"compile failed: {' '.join(cmd)}\n{r.stderr}")
        exe = tmp / "runner"
        objs = sorted(str(p) for p in (tmp / "obj").glob("*.o"))
        link = subprocess.run(cc + flags + objs + ["-o", str(exe), "-lm"], capture_output=True, text=True)
        assert link.returncode == 0, link.stderr
        run = subprocess.run([str(exe), str(tmp)], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"runner failed ({run.returncode}):\n{run.stderr[-4000:]}"
        outs = []
        for k, meta in enumerate(metas):
            outs.append([np.frombuffer((tmp / f"case{k}_out{i}.bin").read_bytes(), dtype=p["dtype"])
                         .reshape(p["shape"]) for i, p in enumerate(meta["outputs"])])
        return outs


def assert_matches(ours: np.ndarray, ref: np.ndarray, label: str, float_rtol: float = 1e-5) -> None:
    """int types: byte-identical. float32: max abs error <= float_rtol * max|ref|."""
    assert ours.shape == tuple(ref.shape) or ours.size == ref.size, f"{label}: shape {ours.shape} vs {ref.shape}"
    ref = np.asarray(ref).reshape(ours.shape)
    if ours.dtype.kind == "f":
        scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-30)
        err = float(np.max(np.abs(ours.astype(np.float64) - ref.astype(np.float64)))) if ref.size else 0.0
        assert err <= float_rtol * scale, f"{label}: max abs error {err:.3g} > {float_rtol} x {scale:.3g}"
    else:
        if not np.array_equal(ours, ref):
            diff = np.argwhere(ours != ref)
            i = tuple(diff[0])
            raise AssertionError(f"{label}: {len(diff)} of {ours.size} values differ; first at {list(i)}: "
                                 f"ours {ours[i]} reference {ref[i]}")


def check_against_oracle(cases: Sequence[Case], float_rtol: float = 1e-5, builtin: bool = False) -> dict:
    """Run cases through utvm-build and the TFLite reference kernels; assert they agree.

    ``builtin``: tflite-runtime's default resolver instead of BUILTIN_REF (for operators the
    reference resolver does not register; the test says which). Returns counts:
    {"cases": n, "bit_exact": n_exact}.
    """
    from oracle import builtin_outputs_many, reference_outputs_many

    refs = (builtin_outputs_many if builtin else reference_outputs_many)([(c.model, c.inputs) for c in cases])
    ours = run_cases(cases)
    exact = 0
    failures = []
    for case, mine, ref in zip(cases, ours, refs):
        if isinstance(ref, Exception):
            failures.append(f"{case.label}: the reference interpreter failed: {ref}")
            continue
        try:
            for i, (o, r) in enumerate(zip(mine, ref)):
                assert_matches(o, np.asarray(r), f"{case.label} output {i}", float_rtol)
            exact += all(np.array_equal(o, np.asarray(r).reshape(o.shape)) for o, r in zip(mine, ref))
        except AssertionError as e:
            failures.append(str(e))
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures[:20])
    record(len(cases), exact)
    # the same cases built with the Cortex-M4 / M55 kernels, on QEMU (sampled; all with UTVM_TEST_FULL=1)
    from target_harness import check_on_targets

    check_on_targets(cases, refs, float_rtol)
    return {"cases": len(cases), "bit_exact": exact}


KERNELS = Path(__file__).resolve().parents[1] / "utvm_build" / "kernels"


def run_kernel_check(tmp_path: Path, source: str, opt: str = "-O1", timeout: float = 600) -> str:
    """Build a C program that includes kernel headers directly (with UBSan/ASan) and run it; it must
    exit 0 and print a line starting with "ok". Returns its output."""
    src = tmp_path / "check.c"
    src.write_text(source)
    exe = tmp_path / "check"
    flags = [f for f in STRICT_CFLAGS if f != "-Werror"] + [opt] + SANITIZE
    build = subprocess.run(host_cc() + flags + ["-I", str(KERNELS), str(src), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout)
    assert run.returncode == 0 and run.stdout.startswith("ok"), run.stdout + run.stderr
    return run.stdout
