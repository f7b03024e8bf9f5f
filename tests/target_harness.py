"""The conformance cases on the targets: built with the target's kernels, run on QEMU, compared with
the reference outputs the host run used (docs/testing.md, "The conformance suites on Cortex-M").

``harness.check_against_oracle`` hands every batch of cases it has checked on the host, with the
reference outputs, to ``check_on_targets``: the selected cases (all with ``UTVM_TEST_FULL=1``, a
seeded sample otherwise) are compiled ``--target cortex-m4`` (kernels/arm_dsp/) and ``--target
cortex-m55`` (kernels/arm_mve/, then arm_dsp/), many models linked into one firmware image per QEMU
run (mps2-an386, mps3-an547): a generated ``main`` reads every model's inputs from one file through
semihosting, runs the models one after the other and writes their outputs to another file, which
is compared here with the reference byte for byte (float32 within the host's tolerance).

The sample: a case is a pure function of its position and label (a hash), never of the run, so a
CI failure reproduces. Cases with an operator that has a target kernel (conv, depthwise, fully
connected, batch matmul, add/sub/mul, pooling, softmax) are picked at ``FAMILY_RATE``, the others at
``OTHER_RATE``, and every test file gets at least ``MIN_PER_FILE`` (its first cases when the hash
picked fewer). ``UTVM_CONFORMANCE_TARGETS`` chooses the cores (default ``m4,m55``; ``none``: off).
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from system_tools import APT

from utvm_build.compiler import compile_bytes
from utvm_build.emit.output import write_directory
from utvm_build.host import STRICT_CFLAGS

REPO = Path(__file__).resolve().parents[1]
CORTEX_M = REPO / "examples" / "cortex_m"
FULL = os.environ.get("UTVM_TEST_FULL") == "1"
#: Every case of the run on the targets without the host's full sweeps (UTVM_TEST_FULL=1 does both).
ALL = FULL or os.environ.get("UTVM_CONFORMANCE_ALL") == "1"

#: Sample rates (1 in N) of the CI run, and the least number of cases per test file and target.
FAMILY_RATE = 12
OTHER_RATE = 60
MIN_PER_FILE = 2
#: TFLite builtin operator codes whose int8 kernels have an arm_dsp or arm_mve version.
TARGET_FAMILIES = {
    0: "ADD", 1: "AVERAGE_POOL_2D", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D", 9: "FULLY_CONNECTED",
    17: "MAX_POOL_2D", 18: "MUL", 25: "SOFTMAX", 41: "SUB", 126: "BATCH_MATMUL",
}

#: Conformance on the targets for the session summary: core -> [cases, bit-exact cases, seconds].
TARGET_TALLY: dict[str, list[float]] = {}
#: Cases sampled so far per test file and core (``--dist loadfile`` keeps a file in one worker).
_PER_FILE: dict[tuple[str, str], int] = {}
_JOBS = max(2, os.cpu_count() or 2)
TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm")


@dataclass(frozen=True)
class Core:
    name: str
    target: str  # --target
    machine: str  # QEMU board
    cflags: tuple[str, ...]
    #: Largest sum of constants and of workspaces of one image's models (the board's memory).
    max_constants: int
    max_workspace: int
    #: Most models in one image (their code must fit the code region).
    max_models: int


CORES = {
    "m4": Core("m4", "cortex-m4", "mps2-an386",
               ("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
               2_500_000, 3_500_000, 120),
    "m55": Core("m55", "cortex-m55", "mps3-an547", ("-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"),
                1_800_000, 12_000_000, 60),
}

# QEMU mps3-an547: code in the 512 KB ITCM, the models' constants in the 2 MB SRAM, data and stack in
# the DTCM, the workspaces and the I/O arena in the DDR at 0x60000000 (examples/cortex_m's script puts
# them in the DTCM, too small for many models at once).
M55_LD = """MEMORY
{
  ITCM (rx)  : ORIGIN = 0x00000000, LENGTH = 512K
  SRAM (rwx) : ORIGIN = 0x01000000, LENGTH = 2M
  DTCM (rwx) : ORIGIN = 0x20000000, LENGTH = 512K
  DDR  (rwx) : ORIGIN = 0x60000000, LENGTH = 16M
}
REGION_ALIAS("FLASH", ITCM);
REGION_ALIAS("RAM", DTCM);
REGION_ALIAS("TVM_CONSTANTS", SRAM);
REGION_ALIAS("TVM_WORKSPACE", DDR);
INCLUDE cortex_m_sections.ld
"""


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


def skip_reason() -> str | None:
    """One line for the session summary when the cross tools are absent, else None."""
    missing = missing_tools()
    if not missing or not selected_cores():
        return None
    packages = dict.fromkeys(" ".join(APT[t] for t in missing).split())
    return (f"conformance on QEMU skipped: {', '.join(missing)} not found (apt-get install -y "
            f"{' '.join(packages)})")


def selected_cores() -> list[Core]:
    names = os.environ.get("UTVM_CONFORMANCE_TARGETS", "m4,m55").replace(" ", "")
    if names in ("", "none"):
        return []
    unknown = [n for n in names.split(",") if n not in CORES]
    assert not unknown, f"UTVM_CONFORMANCE_TARGETS: unknown core(s) {unknown}; choose from {sorted(CORES)}"
    return [CORES[n] for n in names.split(",")]


def _test_file() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split("::")[0]


def _op_codes(model: bytes) -> set[int]:
    from tflite.Model import Model

    try:
        m = Model.GetRootAsModel(model, 0)
        return {max(m.OperatorCodes(i).BuiltinCode(), m.OperatorCodes(i).DeprecatedBuiltinCode())
                for i in range(m.OperatorCodesLength())}
    except Exception:  # a hostile test model: its own tests say what is wrong with it
        return set()


def _runnable(case) -> bool:  # noqa: ANN001
    """The generated main drives the C interface with the caller's I/O buffers and a static state."""
    o = case.options
    return o.io == "caller" and o.state == "static"


def sample(cases: Sequence, core: Core) -> list[int]:
    """Positions of the cases to run on ``core``: all with UTVM_TEST_FULL=1, else the seeded sample."""
    runnable = [k for k, c in enumerate(cases) if _runnable(c)]
    if ALL:
        return runnable
    key = _test_file()
    picked = []
    for k in runnable:
        c = cases[k]
        rate = FAMILY_RATE if _op_codes(c.model) & TARGET_FAMILIES.keys() else OTHER_RATE
        h = hashlib.sha256(f"{core.name}|{key}|{k}|{c.label}".encode()).digest()
        if int.from_bytes(h[:4], "little") % rate == 0:
            picked.append(k)
    done = _PER_FILE.get((key, core.name), 0)
    for k in runnable:  # at least MIN_PER_FILE per file
        if done + len(picked) >= MIN_PER_FILE:
            break
        if k not in picked:
            picked.append(k)
    _PER_FILE[(key, core.name)] = done + len(picked)
    return sorted(picked)


# ---------------------------------------------------------------------------- the firmware
SEMIHOSTING_IO = r"""
/* Semihosting file I/O (SYS_OPEN/WRITE/READ/CLOSE): the inputs and outputs of every model. */
static uint32_t sh_call(uint32_t op, const void* arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}
static int32_t sh_open(const char* path, uint32_t mode) {
  uint32_t block[3];
  block[0] = (uint32_t)(uintptr_t)path;
  block[1] = mode;
  block[2] = (uint32_t)strlen(path);
  return (int32_t)sh_call(0x01u, block);
}
/* SYS_READ (0x06) / SYS_WRITE (0x05): 0 when all n bytes moved. */
static uint32_t sh_rw(uint32_t op, int32_t fd, const void* p, uint32_t n) {
  uint32_t block[3];
  block[0] = (uint32_t)fd;
  block[1] = (uint32_t)(uintptr_t)p;
  block[2] = n;
  return sh_call(op, block);
}
static int32_t in_fd, out_fd;
static int failed;
static void get(void* p, uint32_t n) { if (n != 0u && sh_rw(0x06u, in_fd, p, n) != 0u) failed = 1; }
static void put(const void* p, uint32_t n) { if (n != 0u && sh_rw(0x05u, out_fd, p, n) != 0u) failed = 1; }
"""


def _main_source(metas: list[dict], arena: int, in_path: str, out_path: str) -> str:
    lines = ["#include <stdint.h>", "#include <string.h>", '#include "semihosting.h"']
    lines += [f'#include "tvmgen_{m["name"]}.h"' for m in metas]
    lines += [SEMIHOSTING_IO,
              f"static uint8_t arena[{max(arena, 16)}] __attribute__((aligned(16), "
              'section(".bss.noinit.tvm.conformance")));',
              "int main(void) {",
              "  uint32_t bad = 0;",
              f'  in_fd = sh_open("{in_path}", 1u);   /* "rb" */',
              f'  out_fd = sh_open("{out_path}", 5u);  /* "wb" */',
              '  if (in_fd < 0 || out_fd < 0) { semihosting_write0("cannot open the I/O files\\n"); return 3; }']
    for m in metas:
        n = m["name"]
        lines.append("  {")
        lines.append(f"    struct tvmgen_{n}_inputs in; struct tvmgen_{n}_outputs out;")
        off = 0
        for p in m["inputs"]:
            lines.append(f"    in.{p['c_name']} = &arena[{off}]; get(&arena[{off}], {p['bytes']}u);")
            off += (p["bytes"] + 15) // 16 * 16
        outs = []
        for p in m["outputs"]:
            lines.append(f"    out.{p['c_name']} = &arena[{off}];")
            outs.append((off, p["bytes"]))
            off += (p["bytes"] + 15) // 16 * 16
        if m["options"]["workspace"] == "user":
            align = m["options"]["workspace_align"]
            off = (off + align - 1) // align * align
            lines.append(f"    struct tvmgen_{n}_workspace_pools ws; ws.global_workspace = &arena[{off}];")
            call = f"tvmgen_{n}_run(&in, &out, &ws)"
        else:
            call = f"tvmgen_{n}_run(&in, &out)"
        lines.append(f'    if ({call} != 0) {{ semihosting_write0("run failed: {n}\\n"); ++bad; }}')
        lines += [f"    put(&arena[{o}], {b}u);" for o, b in outs]
        lines.append("  }")
    lines += ['  if (failed) { semihosting_write0("semihosting I/O failed\\n"); return 3; }',
              '  semihosting_write0("done\\n");',
              "  return bad != 0u ? 1 : 0;", "}", ""]
    return "\n".join(lines)


def _arena_bytes(meta: dict) -> int:
    n = sum((p["bytes"] + 15) // 16 * 16 for p in meta["inputs"] + meta["outputs"])
    if meta["options"]["workspace"] == "user":
        n += meta["workspace_bytes"] + meta["options"]["workspace_align"]
    return n


def _batches(metas: list[dict], core: Core) -> list[list[int]]:
    """Consecutive runs of models that fit one image."""
    out: list[list[int]] = []
    cur: list[int] = []
    const = ws = 0
    for k, m in enumerate(metas):
        c, w = m["constants_bytes"], m["workspace_bytes"] + m["state_bytes"] + _arena_bytes(m)
        if cur and (len(cur) >= core.max_models or const + c > core.max_constants or ws + w > core.max_workspace):
            out.append(cur)
            cur, const, ws = [], 0, 0
        cur.append(k)
        const += c
        ws += w
    if cur:
        out.append(cur)
    return out


def _run(cmd: list[str], cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


_STARTUP: dict[str, list[str]] = {}


def _startup_objects(core: Core, cc: list[str], flags: list[str]) -> list[str]:
    """startup.c and semihosting.c compiled once per process and core (every image links them)."""
    if core.name not in _STARTUP:
        d = Path(tempfile.mkdtemp(prefix=f"utvm-conf-startup-{core.name}-"))
        atexit.register(shutil.rmtree, d, True)
        r = _run(cc + flags + [f"-I{CORTEX_M}", "-c", str(CORTEX_M / "startup.c"), str(CORTEX_M / "semihosting.c")],
                 cwd=d)
        assert r.returncode == 0, r.stderr
        _STARTUP[core.name] = [str(d / "startup.o"), str(d / "semihosting.o")]
    return _STARTUP[core.name]


def run_on_core(cases: Sequence, core: Core, tmp: Path) -> list[list[np.ndarray] | str]:
    """Build ``cases`` for ``core`` into as few images as fit, run them on QEMU; per case its outputs
    (or what went wrong, as text)."""
    cc = ["arm-none-eabi-gcc", *core.cflags]
    flags = [*STRICT_CFLAGS, "-Os", "-ffunction-sections", "-fdata-sections"]
    metas, dirs, jobs = [], [], []
    for k, case in enumerate(cases):
        name = f"case{k}"
        compiled = compile_bytes(case.model, name, dataclasses.replace(case.options, target=core.target))
        write_directory(tmp / name, compiled.files)
        meta = compiled.metadata
        metas.append(meta)
        dirs.append(tmp / name)
        inc = [f"-I{tmp / name / d}" for d in meta["include_dirs"]]
        (tmp / name / "obj").mkdir()
        jobs.append((cc + flags + inc + ["-c", *[str(tmp / name / s) for s in meta["sources"]]], tmp / name / "obj"))
    with ThreadPoolExecutor(_JOBS) as pool:
        built = list(pool.map(lambda j: _run(j[0], cwd=j[1]), jobs))
    results: list[list[np.ndarray] | str] = ["not run"] * len(cases)
    for k, r in enumerate(built):
        if r.returncode != 0:
            results[k] = f"arm-none-eabi-gcc failed:\n{r.stderr[-3000:]}"
    ok = [k for k in range(len(cases)) if results[k] == "not run"]
    ld = ["-T", str(CORTEX_M / "mps2-an386.ld")]
    if core.name == "m55":
        (tmp / "conformance_m55.ld").write_text(M55_LD)
        ld = ["-T", str(tmp / "conformance_m55.ld")]
    for b, batch in enumerate(_batches([metas[k] for k in ok], core)):
        batch = [ok[i] for i in batch]
        img = tmp / f"image{b}"
        img.mkdir()
        with open(img / "in.bin", "wb") as f:
            for k in batch:
                for x, p in zip(cases[k].inputs, metas[k]["inputs"]):
                    arr = np.ascontiguousarray(np.asarray(x, dtype=p["dtype"]))
                    assert arr.nbytes == p["bytes"], (cases[k].label, arr.shape, p["shape"])
                    f.write(arr.tobytes())
        arena = max(_arena_bytes(metas[k]) for k in batch)
        (img / "main.c").write_text(_main_source([metas[k] for k in batch], arena, str(img / "in.bin"),
                                                 str(img / "out.bin")))
        objs = [str(o) for k in batch for o in sorted((dirs[k] / "obj").glob("*.o"))]
        inc = [f"-I{dirs[k] / 'include'}" for k in batch]
        link = _run(cc + flags + inc + [f"-I{CORTEX_M}", str(img / "main.c"), *_startup_objects(core, cc, flags),
                                        *objs, "-nostartfiles",
                                        "--specs=nano.specs", "-Wl,--gc-sections", f"-L{CORTEX_M}", *ld,
                                        "-o", str(img / "image.elf"), "-lm"])
        if link.returncode != 0:
            for k in batch:
                results[k] = f"link failed:\n{link.stderr[-3000:]}"
            continue
        console = img / "console.txt"
        qemu = _run(["qemu-system-arm", "-M", core.machine, "-nographic", "-monitor", "none", "-serial", "none",
                     "-chardev", f"file,id=sh,path={console}",
                     "-semihosting-config", "enable=on,target=native,chardev=sh",
                     "-kernel", str(img / "image.elf")], timeout=1200)
        text = (console.read_text(errors="replace") if console.exists() else "") + qemu.stdout + qemu.stderr
        data = (img / "out.bin").read_bytes() if (img / "out.bin").exists() else b""
        pos = 0
        for k in batch:
            outs: list[np.ndarray] = []
            for p in metas[k]["outputs"]:
                if pos + p["bytes"] > len(data):
                    break
                outs.append(np.frombuffer(data[pos:pos + p["bytes"]], dtype=p["dtype"]).reshape(p["shape"]))
                pos += p["bytes"]
            if f"run failed: case{k}\n" in text:
                results[k] = "tvmgen_run returned an error"
            elif len(outs) < len(metas[k]["outputs"]):
                results[k] = f"no outputs (QEMU exit {qemu.returncode}; the image stopped here):\n{text[-1500:]}"
            else:
                results[k] = outs
    return results


def check_on_targets(cases: Sequence, refs: Sequence, float_rtol: float) -> None:
    """Run the selected cases on every selected core; assert they give the reference's outputs."""
    from harness import assert_matches

    cores = selected_cores()
    if not cores or missing_tools():  # the host check stands; the session summary says why not here
        return
    failures = []
    for core in cores:
        picked = [k for k in sample(cases, core) if not isinstance(refs[k], Exception)]
        if not picked:
            continue
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"utvm-conf-{core.name}-") as tmp_s:
            got = run_on_core([cases[k] for k in picked], core, Path(tmp_s))
        seconds = time.monotonic() - start
        exact = 0
        for k, mine in zip(picked, got):
            label = f"{core.target} on QEMU {core.machine}: {cases[k].label or f'case {k}'}"
            if isinstance(mine, str):
                failures.append(f"{label}: {mine}")
                continue
            try:
                for i, (o, r) in enumerate(zip(mine, refs[k])):
                    assert_matches(o, np.asarray(r), f"{label} output {i}", float_rtol)
                exact += all(np.array_equal(o, np.asarray(r).reshape(o.shape)) for o, r in zip(mine, refs[k]))
            except AssertionError as e:
                failures.append(str(e))
        entry = TARGET_TALLY.setdefault(core.name, [0, 0, 0.0])
        entry[0] += len(picked)
        entry[1] += exact
        entry[2] += seconds
    assert not failures, f"{len(failures)} target runs failed:\n" + "\n".join(failures[:20])
