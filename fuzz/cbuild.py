"""Build generated C with strict warnings, then run it under ASan/UBSan with extreme inputs.

Independent of utvm_build.host: the fuzzer needs its own sanitizer build (every UB check fatal,
float-to-int overflow included) and a runner that feeds each input pattern in turn.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from utvm_build.compiler import Compiled
from utvm_build.emit.output import write_directory

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
SANITIZE = ["-fsanitize=address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer"]

#: Input patterns, one run each: zeros, all minimum, all maximum, alternating, random, special floats.
PATTERNS = ("zeros", "min", "max", "alternate", "random", "special")

_FILL = {
    "int8_t": ("INT8_MIN", "INT8_MAX"), "uint8_t": ("0", "UINT8_MAX"), "int16_t": ("INT16_MIN", "INT16_MAX"),
    "int32_t": ("INT32_MIN", "INT32_MAX"), "int64_t": ("INT64_MIN", "INT64_MAX"),
    "uint32_t": ("0", "UINT32_MAX"), "uint64_t": ("0", "UINT64_MAX"), "float": ("(-FLT_MAX)", "FLT_MAX"),
}
_CTYPE = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
          "uint32": "uint32_t", "uint64": "uint64_t", "float32": "float", "bool": "uint8_t"}


def compiler() -> list[str] | None:
    cc = shlex.split(os.environ.get("CC", "")) or ["gcc"]
    return cc if shutil.which(cc[0]) else None


#: Models too big to run many times under the sanitizers are only built (their loops are the same).
MAX_RUN_BYTES = 64 << 20
MAX_RUN_MACS = 50_000_000


@dataclass
class CResult:
    ok: bool
    stage: str = ""      # "warnings", "build", "run", "timeout"
    detail: str = ""
    ran: bool = True


def _fill(ctype: str, var: str, n: int) -> list[str]:
    lo, hi = _FILL[ctype]
    rand = ("(float)((int32_t)(seed >> 8) % 2000001 - 1000000) / 1000.0f" if ctype == "float"
            else f"({ctype})(seed >> 7)")
    special = ("((i % 4u) == 0u ? INFINITY : ((i % 4u) == 1u ? -INFINITY : ((i % 4u) == 2u ? NAN : 1e30f)))"
               if ctype == "float" else lo)
    return [
        f"  for (i = 0; i < {n}u; ++i) {{",
        "    seed = seed * 1103515245u + 12345u;",
        f"    {var}[i] = pattern == 0 ? ({ctype})0 : pattern == 1 ? {lo} : pattern == 2 ? {hi} :",
        f"        pattern == 3 ? ((i & 1u) ? {hi} : {lo}) : pattern == 4 ? {rand} : {special};",
        "  }",
    ]


def runner_source(meta: dict) -> str:
    prefix = meta["prefix"]
    lines = ["#include <float.h>", "#include <math.h>", "#include <stdint.h>", "#include <stdio.h>",
             "#include <stdlib.h>", f'#include "{prefix}.h"', "",
             "int main(void) {", "  uint32_t seed = 12345u, i; int pattern; int rc = 0;",
             f"  struct {prefix}_inputs in; struct {prefix}_outputs out;"]
    for p in meta["inputs"]:
        ct, n = _CTYPE[p["dtype"]], p["bytes"] // max(1, _size(p["dtype"]))
        lines.append(f"  {ct}* {p['c_name']} = ({ct}*)malloc({p['bytes']}u);")
        lines.append(f"  in.{p['c_name']} = {p['c_name']};")
    for p in meta["outputs"]:
        lines.append(f"  out.{p['c_name']} = malloc({p['bytes']}u);")
    user = meta["options"]["workspace"] == "user"
    if user:
        lines += [f"  struct {prefix}_workspace_pools ws;",
                  f"  void* raw = malloc({meta['workspace_bytes']}u + 64u);",
                  "  ws.global_workspace = (void*)(((uintptr_t)raw + 63u) & ~(uintptr_t)63u);"]
    lines.append(f"  for (pattern = 0; pattern < {len(PATTERNS)}; ++pattern) {{")
    for p in meta["inputs"]:
        ct, n = _CTYPE[p["dtype"]], p["bytes"] // max(1, _size(p["dtype"]))
        lines += ["  " + x for x in _fill(ct, p["c_name"], n)]
    call = f"{prefix}_run(&in, &out{', &ws' if user else ''})"
    lines += [f"    if ({call} != 0) {{ rc = 1; }}", "  }"]
    lines += ["  printf(\"ran %d\\n\", rc);", "  return rc;", "}", ""]
    return "\n".join(lines)


def _size(dtype: str) -> int:
    return {"int8": 1, "uint8": 1, "bool": 1, "int16": 2, "int32": 4, "uint32": 4, "float32": 4, "int64": 8,
            "uint64": 8}[dtype]


def build_and_run(compiled: Compiled, timeout: float = 60.0, opt: str = "-O2") -> CResult:
    """-Werror build of every generated file (at ``opt``), then a sanitized build run on every pattern."""
    cc = compiler()
    if cc is None:
        return CResult(False, "build", "no C compiler")
    meta = compiled.metadata
    with tempfile.TemporaryDirectory(prefix="utvm-fuzz-") as tmp_s:
        tmp = Path(tmp_s)
        gen = tmp / "gen"
        write_directory(gen, compiled.files)
        inc = [f"-I{gen / d}" for d in meta["include_dirs"]]
        sources = [str(gen / s) for s in meta["sources"]]
        for src in sources:   # warnings at the optimisation level users build with
            r = subprocess.run(cc + STRICT + [opt, *inc, "-c", src, "-o", os.devnull],
                               capture_output=True, text=True, timeout=timeout)
            if r.returncode != 0:
                return CResult(False, "warnings", _tail(r.stderr))
        (tmp / "main.c").write_text(runner_source(meta))
        exe = tmp / "run"
        r = subprocess.run(cc + STRICT + ["-O1", "-g", *SANITIZE, *inc, *sources, str(tmp / "main.c"),
                                          "-o", str(exe), "-lm"], capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            return CResult(False, "build", _tail(r.stderr))
        io_bytes = sum(p["bytes"] for p in meta["inputs"] + meta["outputs"])
        if meta["workspace_bytes"] + io_bytes > MAX_RUN_BYTES or meta["macs"] > MAX_RUN_MACS:
            return CResult(True, ran=False)
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
        try:
            r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return CResult(False, "timeout", f"no result after {timeout} s")
        if r.returncode != 0 or "runtime error" in r.stderr or "Sanitizer" in r.stderr:
            return CResult(False, "run", _tail(r.stderr or r.stdout))
    return CResult(True)


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[:lines])
