"""The side-by-side baseline: TFLM + CMSIS-NN built from a TFLM checkout, one Invoke() counted on
QEMU with our plugin, the figures written next to ours (benchmarks/results/tflm/).

    # 1. the third-party code TFLM's Makefile would download, from local git copies
    python -m benchmarks.tflm_baseline prepare --tflm TFLM_DIR --sources SRC_ROOT --downloads DL_DIR
    # 2. libtensorflow-microlite.a per core (TFLM's own Makefile), one app per model, QEMU
    python -m benchmarks.tflm_baseline run --tflm TFLM_DIR --downloads DL_DIR --work WORK_DIR

``SRC_ROOT`` holds one bare or normal git repository per dependency, as ``owner+name/repo`` (or
``owner+name``): ARM-software/CMSIS_6, ARM-software/Cortex_DFP, ARM-software/CMSIS-NN,
google/flatbuffers, google/gemmlowp, google/ruy, mborgerding/kissfft. ``prepare`` reads the
commits and tags from TFLM's own download scripts (third_party_downloads.inc and
ext_libs/*_download.sh), exports them into ``DL_DIR`` under the names the scripts use and applies
TFLM's patches; TFLM's scripts then skip every download because the directories exist. Nothing
here is committed but this script and the figures (benchmarks/README.md, "TFLM baseline").

The app is benchmarks/firmware/bench_main.c itself (the same xorshift32 inputs, markers and stack
painting as our firmware) with a C++ glue that runs TFLM's MicroInterpreter: setup() builds the
interpreter and allocates the tensors, run() is one Invoke(). It is linked with
examples/cortex_m's startup, semihosting and linker scripts (mps2-an386 for the M4, mps3-an547
for the M55), the arena set to the smallest size (16-byte steps) with which AllocateTensors
succeeds (a first link with a large arena searches it on the target and exits).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO / "benchmarks" / "results" / "tflm"
FIRMWARE_DIR = REPO / "benchmarks" / "firmware"
CORTEX_M_DIR = REPO / "examples" / "cortex_m"
MAKEFILE = "tensorflow/lite/micro/tools/make/Makefile"
MAKE_DIR = "tensorflow/lite/micro/tools/make"


class BaselineError(Exception):
    """A step failed; the message says which."""


# --------------------------------------------------------------------------------------------
# The download scripts: which repository, which commit, where, which patch


@dataclass(frozen=True)
class Dependency:
    repo: str  # owner/name on GitHub
    ref: str  # commit or tag
    dest: str  # directory under downloads/
    patch: str | None = None  # TFLM-relative patch path
    drop_build_files: bool = False


_ASSIGN = re.compile(r"^\s*(?:local\s+)?([A-Za-z_]\w*)\s*:?=\s*\"?([^\"\s]*)\"?\s*$")
_VAR = re.compile(r"\$\{(\w+)\}|\$\((\w+)\)")
_GITHUB_ARCHIVE = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/archive/(?:refs/tags/)?([\w.-]+?)\.zip")


def script_variables(text: str) -> list[tuple[str, str]]:
    """The assignments of a Makefile include or shell script, in order, with ${X}/$(X) expanded
    from the earlier ones (what a reader of the download scripts needs, not a shell)."""
    known: dict[str, str] = {}
    out = []
    for line in text.splitlines():
        m = _ASSIGN.match(line)
        if m is None:
            continue
        value = _VAR.sub(lambda v: known.get(v.group(1) or v.group(2), v.group(0)), m.group(2))
        known[m.group(1)] = value
        out.append((m.group(1), value))
    return out


def github_archives(text: str) -> list[tuple[str, str]]:
    """(owner/name, ref) of every GitHub archive URL assigned in a download script."""
    found = []
    for _, value in script_variables(text):
        m = _GITHUB_ARCHIVE.search(value)
        if m:
            found.append((f"{m.group(1)}/{m.group(2)}", m.group(3)))
    return found


#: download dir of each repository, as TFLM's scripts name it
_DESTS = {"google/gemmlowp": "gemmlowp", "google/ruy": "ruy", "google/flatbuffers": "flatbuffers",
          "mborgerding/kissfft": "kissfft", "ARM-software/CMSIS_6": "cmsis",
          "ARM-software/Cortex_DFP": "cmsis/Cortex_DFP", "ARM-software/CMSIS-NN": "cmsis_nn"}
_PATCH_VARS = {"google/flatbuffers": "FLATBUFFERS_PATCH_PATH", "mborgerding/kissfft": "KISSFFT_PATCH_PATH"}


def dependencies(tflm: Path) -> list[Dependency]:
    """The dependencies a cortex_m_generic + cmsis_nn build downloads, read from the checkout."""
    make_dir = tflm / MAKE_DIR
    inc = (make_dir / "third_party_downloads.inc").read_text()
    patches = dict(script_variables(inc))
    archives = github_archives(inc)
    for script in ("ext_libs/cmsis_download.sh", "ext_libs/cmsis_nn_download.sh"):
        archives += github_archives((make_dir / script).read_text())
    deps = []
    for repo, ref in archives:
        if repo not in _DESTS:
            continue  # other targets' libraries
        patch = patches.get(_PATCH_VARS.get(repo, ""))
        # The tag zips of flatbuffers and kissfft unpack as name-<version>; TFLM deletes BUILD files.
        deps.append(Dependency(repo, ref, _DESTS[repo], patch, drop_build_files=True))
    missing = set(_DESTS) - {d.repo for d in deps}
    if missing:
        raise BaselineError(f"{tflm}: no download URL found for {', '.join(sorted(missing))}")
    # cmsis before cmsis/Cortex_DFP
    return sorted(deps, key=lambda d: d.dest)


def _git_dir(sources: Path, repo: str) -> Path:
    for cand in (sources / repo.replace("/", "+") / "repo", sources / repo.replace("/", "+"),
                 sources / repo.split("/")[1]):
        if cand.is_dir():
            return cand
    raise BaselineError(f"no local git copy of {repo} under {sources} (owner+name/repo)")


def _run(cmd: list[str], cwd: Path | None = None, timeout: float = 3600, env: dict | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env)
    if proc.returncode != 0:
        raise BaselineError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                            f"{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return proc.stdout


def export(git_dir: Path, ref: str, dest: Path) -> None:
    """The tree of ref into dest (which must not exist), as TFLM's zip download would give it."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", f"--git-dir={_resolve_git_dir(git_dir)}", "archive", "--format=tar",
                              f"{ref}^{{tree}}"], capture_output=True, check=False)
    if archive.returncode != 0:
        raise BaselineError(f"git archive {ref} in {git_dir}: {archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def _resolve_git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def prepare(tflm: Path, sources: Path, downloads: Path) -> list[Dependency]:
    """Populates downloads/ from the local git copies; existing directories are left alone."""
    downloads.mkdir(parents=True, exist_ok=True)
    deps = dependencies(tflm)
    for dep in deps:
        dest = downloads / dep.dest
        if dest.exists():
            print(f"{dest} exists, kept", file=sys.stderr)
            continue
        export(_git_dir(sources, dep.repo), dep.ref, dest)
        if dep.drop_build_files:
            for p in dest.rglob("*BUILD*"):
                if p.is_file() and p.name in ("BUILD", "BUILD.bazel"):
                    p.unlink()
        if dep.patch:
            _run(["patch", "-p1", "-d", str(dest), "-i", str(tflm / dep.patch)])
        print(f"{dep.repo} {dep.ref} -> {dest}", file=sys.stderr)
    # third_party.inc always runs pigweed_download.sh (a git clone); microlite uses none of pigweed.
    (downloads / "pigweed").mkdir(exist_ok=True)
    (downloads / "PROVENANCE.json").write_text(json.dumps([d.__dict__ for d in deps], indent=1) + "\n")
    return deps


# --------------------------------------------------------------------------------------------
# Building: the library (TFLM's Makefile), the app (our startup, bench_main.c, a glue)


@dataclass(frozen=True)
class Core:
    name: str
    target_arch: str  # TFLM's TARGET_ARCH
    cflags: tuple[str, ...]  # the same as examples/cortex_m/arm-none-eabi.cmake
    machine: str
    linker_script: str


CORES = {
    "m4": Core("m4", "cortex-m4+fp", ("-mcpu=cortex-m4", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
               "mps2-an386", "mps2-an386.ld"),
    "m55": Core("m55", "cortex-m55", ("-mcpu=cortex-m55", "-mfloat-abi=hard"), "mps3-an547", "mps3-an547.ld"),
}


KERNELS_OS_GENDIR = "gen-kernels-Os"
_TEST_MAKEFILE_LISTS = ("MICRO_LITE_EXAMPLE_TESTS", "MICRO_LITE_INTEGRATION_TESTS",
                        "MICRO_LITE_GEN_MUTABLE_OP_RESOLVER_TEST", "MICRO_LITE_LAYER_BY_LAYER_OUTPUT",
                        "OLD_MICRO_LITE_BENCHMARKS", "MICRO_LITE_BENCHMARKS")


def make_args(core: Core, downloads: Path, toolchain_root: str, kernels_os: bool = False) -> list[str]:
    """The make command line; kernels_os: TFLM's kernels and CMSIS-NN at -Os too (TFLM builds them
    at -O2 and its core at -Os), in a gen directory of their own."""
    os_args = ["KERNEL_OPTIMIZATION_LEVEL=-Os", "THIRD_PARTY_KERNEL_OPTIMIZATION_LEVEL=-Os",
               f"BASE_GENDIR={KERNELS_OS_GENDIR}"] if kernels_os else []
    return [*os_args, "-f", MAKEFILE, "TARGET=cortex_m_generic", f"TARGET_ARCH={core.target_arch}",
            "OPTIMIZED_KERNEL_DIR=cmsis_nn", "BUILD_TYPE=release", "TOOLCHAIN=gcc",
            f"TARGET_TOOLCHAIN_ROOT={toolchain_root}", f"DOWNLOADS_DIR={downloads}",
            # The example, integration-test and benchmark Makefiles generate their test data at parse
            # time (with Pillow, numpy ...); none of them is part of the library.
            *(f"{v}=" for v in _TEST_MAKEFILE_LISTS)]


def build_library(tflm: Path, core: Core, downloads: Path, jobs: int, make_python: Path | None = None,
                  operators: tuple[str, ...] | None = None, kernels_os: bool = False) -> Path:
    """A libtensorflow-microlite.a of TFLM's Makefile for one core; returns its path.

    operators None: the Makefile's ``microlite`` target (every kernel). Otherwise the same
    Makefile's object rules (same flags) for the objects a model with those operators can pull in
    (library_objects), archived: the linked image is the same, since an archive member no symbol
    needs is never linked, and it is a quarter of the compilation on a shared 2-core machine.

    The Makefile runs ``python3`` at parse time to turn test models into C arrays (a unit test's
    rule, not the library), importing Pillow and numpy: make_python is a python3 that has them
    (its directory, e.g. a venv's bin/, goes first on make's PATH)."""
    toolchain_root = str(Path(shutil.which("arm-none-eabi-gcc") or "/usr/bin/x").parent) + "/"
    args = make_args(core, downloads, toolchain_root, kernels_os)
    # The Makefile's download rules name MAKEFILE_DIR/downloads whatever DOWNLOADS_DIR says.
    default = tflm / MAKE_DIR / "downloads"
    if not default.exists() and not default.is_symlink():
        default.symlink_to(downloads.resolve(), target_is_directory=True)
    elif default.resolve() != downloads.resolve():
        raise BaselineError(f"{default} exists and is not {downloads}")
    env = dict(os.environ)
    if make_python is not None:
        # its own directory (a venv's bin/ keeps the venv: a symlink elsewhere would not)
        if not (make_python.parent / "python3").exists():
            raise BaselineError(f"{make_python.parent} has no python3")
        env["PATH"] = f"{make_python.parent}{os.pathsep}{env.get('PATH', '')}"
    gendir = _make_var(tflm, args, env, "GENDIR")[0]
    if kernels_os:
        # The core's objects are built with the same flags either way: seeded from the default
        # build when it has them (make then rebuilds only the kernels and CMSIS-NN).
        default_core = tflm / _make_var(tflm, make_args(core, downloads, toolchain_root), env, "CORE_OBJDIR")[0]
        own_core = tflm / _make_var(tflm, args, env, "CORE_OBJDIR")[0]
        if default_core.is_dir() and not own_core.exists():
            shutil.copytree(default_core, own_core)
    if operators is None:
        _run(["make", *args, f"-j{jobs}", "microlite"], cwd=tflm, env=env)
        lib = tflm / gendir / "lib" / "libtensorflow-microlite.a"
    else:
        objs = []
        for var in ("MICROLITE_LIB_OBJS", "MICROLITE_KERNEL_OBJS", "MICROLITE_THIRD_PARTY_OBJS",
                    "MICROLITE_THIRD_PARTY_KERNEL_OBJS"):
            objs += _make_var(tflm, args, env, var)
        kernels = {Path(o).stem for o in library_objects(objs, operators, set())}
        kernel_dir = (tflm / MAKE_DIR).parents[1] / "kernels" / "cmsis_nn"
        kernel_texts = [p.read_text(errors="replace") for p in kernel_dir.glob("*.cc") if p.stem in kernels]
        cmsis = {p.stem: p.read_text(errors="replace") for p in (downloads / "cmsis_nn" / "Source").rglob("*.c")}
        objs = library_objects(objs, operators, cmsis_nn_closure(kernel_texts, cmsis))
        _run(["make", *args, f"-j{jobs}", *objs], cwd=tflm, env=env)
        lib = tflm / gendir / "lib" / f"libtflm-{'-'.join(sorted(o.lower() for o in operators))[:80]}.a"
        lib.parent.mkdir(parents=True, exist_ok=True)
        if lib.exists():
            lib.unlink()
        _run(["arm-none-eabi-ar", "rcs", str(lib), *objs], cwd=tflm)
    if not lib.is_file():
        raise BaselineError(f"{lib}: not built")
    return lib


def _make_var(tflm: Path, args: list[str], env: dict, var: str) -> list[str]:
    """The words of a Makefile variable (``make print-VAR``)."""
    out = _run(["make", "-s", *args, f"print-{var}"], cwd=tflm, env=env)
    for line in out.splitlines():
        if line.startswith(f"{var}="):
            return line[len(var) + 1:].split()
    raise BaselineError(f"make print-{var} printed no value")


#: operator -> kernel source stems (TFLM's file names; *_common added), where not the operator's name
_KERNEL_STEMS = {"AVERAGE_POOL_2D": ("pooling",), "MAX_POOL_2D": ("pooling",), "MEAN": ("reduce",),
                 "RELU": ("activations",), "RELU6": ("activations",), "DEPTHWISE_CONV_2D": ("depthwise_conv",),
                 "CONV_2D": ("conv",), "LOGISTIC": ("logistic",), "BATCH_MATMUL": ("batch_matmul",)}
#: object stems every interpreter needs from the kernels directory
_KERNEL_ALWAYS = ("kernel_util", "micro_tensor_utils")
#: core objects no app links (tests' helpers, the recording allocator, the signal library)
_CORE_SKIP = re.compile(r"(^|/)(test_helpers|test_helper_custom_ops|mock_micro_graph|fake_micro_context|"
                        r"recording_[a-z_]+)\.o$|/signal/")


_CALL = re.compile(r"\b(arm_\w+)\s*\(")
#: a function definition's first line: return type words, the name, "(" and no ";" after it
_DEFINITION = re.compile(r"^(?:[A-Za-z_]\w*\s+)+\**\s*(arm_\w+)\s*\([^;]*$", re.M)


def cmsis_nn_closure(calling_texts: list[str], cmsis_sources: dict[str, str]) -> set[str]:
    """The CMSIS-NN files (stems) that code calling ``arm_*`` functions can reach, following the
    calls inside CMSIS-NN; a function is found in the file that defines it (most files define the
    function they are named after, some several, e.g. the *_get_buffer_size ones)."""
    defined_in = {name: stem for stem, text in cmsis_sources.items() for name in _DEFINITION.findall(text)}
    defined_in |= {stem: stem for stem in cmsis_sources}
    todo = [n for text in calling_texts for n in _CALL.findall(text)]
    seen: set[str] = set()
    while todo:
        stem = defined_in.get(todo.pop())
        if stem is not None and stem not in seen:
            seen.add(stem)
            todo += _CALL.findall(cmsis_sources[stem])
    return seen


def library_objects(objects: list[str], operators: tuple[str, ...], cmsis_nn: set[str] | None = None) -> list[str]:
    """The objects of the Makefile's lists that an interpreter with these operators can need: the
    core (no test helpers or signal library), tensorflow/lite/kernels, the kernels of the operators,
    and the CMSIS-NN objects named in cmsis_nn (stems; None: all) and all of its support functions."""
    stems = set(_KERNEL_ALWAYS)
    for op in operators:
        for stem in _KERNEL_STEMS.get(op, (op.lower(),)):
            stems |= {stem, f"{stem}_common"}
    keep = []
    for o in objects:
        if "/obj/kernels/" in o and "/micro/kernels/" in o:
            if Path(o).stem in stems and "/signal/" not in o:
                keep.append(o)
        elif "/obj/kernels/" in o:
            if "/signal/" not in o:
                keep.append(o)  # tensorflow/lite/kernels: shared helpers
        elif "/cmsis_nn/Source/" in o:
            if cmsis_nn is None or Path(o).stem in cmsis_nn or "/NNSupportFunctions/" in o:
                keep.append(o)
        elif not _CORE_SKIP.search(o):
            keep.append(o)
    return keep


#: builtin operator -> MicroMutableOpResolver method
RESOLVER = {
    "ADD": "AddAdd", "AVERAGE_POOL_2D": "AddAveragePool2D", "CONCATENATION": "AddConcatenation",
    "CONV_2D": "AddConv2D", "DEPTHWISE_CONV_2D": "AddDepthwiseConv2D", "DEQUANTIZE": "AddDequantize",
    "FULLY_CONNECTED": "AddFullyConnected", "LOGISTIC": "AddLogistic", "MAX_POOL_2D": "AddMaxPool2D",
    "MEAN": "AddMean", "MUL": "AddMul", "PAD": "AddPad", "QUANTIZE": "AddQuantize", "RELU": "AddRelu",
    "RELU6": "AddRelu6", "RESHAPE": "AddReshape", "SOFTMAX": "AddSoftmax", "SUB": "AddSub",
    "TANH": "AddTanh", "BATCH_MATMUL": "AddBatchMatMul", "TRANSPOSE": "AddTranspose",
    "STRIDED_SLICE": "AddStridedSlice", "SHAPE": "AddShape", "PACK": "AddPack", "SQUEEZE": "AddSqueeze",
}


@dataclass(frozen=True)
class ModelInfo:
    operators: tuple[str, ...]  # builtin names, sorted, unique
    inputs: tuple[tuple[int, bool], ...]  # (bytes, float32) per input
    outputs: tuple[int, ...]  # bytes per output


def model_info(data: bytes) -> ModelInfo:
    """Operators and I/O sizes of a .tflite file (through the TFLite schema package)."""
    from tflite.BuiltinOperator import BuiltinOperator
    from tflite.Model import Model
    from tflite.TensorType import TensorType

    names = {v: k for k, v in BuiltinOperator.__dict__.items() if not k.startswith("_")}
    sizes = {TensorType.FLOAT32: 4, TensorType.INT8: 1, TensorType.UINT8: 1, TensorType.INT16: 2,
             TensorType.INT32: 4}
    model = Model.GetRootAsModel(data, 0)
    ops = set()
    for i in range(model.OperatorCodesLength()):
        code = model.OperatorCodes(i)
        ops.add(names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())])
    sg = model.Subgraphs(0)

    def nbytes(t) -> int:
        n = 1
        for d in t.ShapeAsNumpy():
            n *= int(d)
        return n * sizes[t.Type()]

    inputs = tuple((nbytes(sg.Tensors(sg.Inputs(i))), sg.Tensors(sg.Inputs(i)).Type() == TensorType.FLOAT32)
                   for i in range(sg.InputsLength()))
    outputs = tuple(nbytes(sg.Tensors(sg.Outputs(i))) for i in range(sg.OutputsLength()))
    return ModelInfo(tuple(sorted(ops)), inputs, outputs)


def glue_source(name: str, info: ModelInfo, arena_bytes: int) -> str:
    """The C++ glue: bench_model for bench_main.c, running TFLM's interpreter."""
    unknown = [op for op in info.operators if op not in RESOLVER]
    if unknown:
        raise BaselineError(f"{name}: no resolver entry for {', '.join(unknown)}")
    adds = "\n".join(f"  resolver.{RESOLVER[op]}();" for op in info.operators)
    ins = ",\n".join(f"    {{nullptr, {b}u, {'BENCH_FILL_FLOAT32' if f else 'BENCH_FILL_BYTES'}}}"
                     for b, f in info.inputs)
    outs = ",\n".join(f"    {{nullptr, {b}u, BENCH_FILL_BYTES}}" for b in info.outputs)
    return f"""// Generated by benchmarks/tflm_baseline.py: TFLM's interpreter behind bench_main.c.
#include <stdint.h>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/schema/schema_generated.h"

extern "C" {{
#include "bench.h"
#include "semihosting.h"
}}

extern const unsigned char g_model[];

namespace {{
constexpr int kArenaBytes = {arena_bytes};
alignas(16) uint8_t arena[kArenaBytes];
// Objects with constructors are built in setup(): the startup code runs no static constructors.
using Resolver = tflite::MicroMutableOpResolver<{len(info.operators)}>;
alignas(Resolver) uint8_t resolver_buf[sizeof(Resolver)];
alignas(tflite::MicroInterpreter) uint8_t interpreter_buf[sizeof(tflite::MicroInterpreter)];
tflite::MicroInterpreter* interpreter;

bench_buffer_t inputs[] = {{
{ins}
}};
bench_buffer_t outputs[] = {{
{outs}
}};

void put_uint(uint32_t u) {{
  char d[12];
  int n = 11;
  d[n] = '\\0';
  do {{
    d[--n] = (char)('0' + (int)(u % 10u));
    u /= 10u;
  }} while (u != 0u);
  semihosting_write0(&d[n]);
}}

bool allocate(Resolver& resolver, size_t bytes) {{
  interpreter = new (interpreter_buf) tflite::MicroInterpreter(tflite::GetModel(g_model), resolver, arena, bytes);
  return interpreter->AllocateTensors() == kTfLiteOk;
}}

void setup() {{
  Resolver& resolver = *new (resolver_buf) Resolver();
{adds}
#ifdef BENCH_ARENA_PROBE
  /* The first link only asks the arena's size: the smallest (16-byte steps) with which
   * AllocateTensors succeeds -- more than arena_used_bytes(), which leaves out the temporary
   * allocations made while allocating. */
  if (!allocate(resolver, kArenaBytes)) {{
    semihosting_write0("AllocateTensors failed\\n");
    semihosting_exit(4);
  }}
  size_t ok = kArenaBytes, bad = 0;
  while (ok - bad > 16u) {{
    size_t mid = (bad + (ok - bad) / 2u) & ~(size_t)15u;
    if (mid <= bad) mid = bad + 16u;
    if (allocate(resolver, mid)) ok = mid; else bad = mid;
  }}
  semihosting_write0("arena_used ");
  put_uint((uint32_t)ok);
  semihosting_write0("\\n");
  semihosting_exit(0);
#endif
  if (!allocate(resolver, kArenaBytes)) {{
    semihosting_write0("AllocateTensors failed\\n");
    semihosting_exit(4);
  }}
  for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; ++i) {{
    inputs[i].data = interpreter->input(i)->data.uint8;
  }}
  for (unsigned i = 0; i < sizeof outputs / sizeof outputs[0]; ++i) {{
    outputs[i].data = interpreter->output(i)->data.uint8;
  }}
}}

int32_t run() {{ return interpreter->Invoke() == kTfLiteOk ? 0 : 1; }}
}}  // namespace

extern "C" const bench_model_t bench_model = {{"{name}", {len(info.inputs)}u, inputs, {len(info.outputs)}u,
                                              outputs, setup, run}};
"""


def model_source(data: bytes) -> str:
    """The flatbuffer as a const array (in flash, like the weights of our builds)."""
    rows = [", ".join(str(b) for b in data[i:i + 24]) for i in range(0, len(data), 24)]
    body = ",\n".join(rows)
    return (f"// Generated by benchmarks/tflm_baseline.py\nalignas(16) extern const unsigned char g_model[] = {{\n"
            f"{body}\n}};\nextern const unsigned int g_model_len = {len(data)}u;\n")


#: C++ runtime stubs the bare-metal link needs (no heap, no exceptions)
STUBS = """// Generated by benchmarks/tflm_baseline.py: bare-metal C++ runtime pieces.
#include <stddef.h>
extern "C" void __cxa_pure_virtual() { for (;;) {} }
void operator delete(void*) noexcept {}
void operator delete(void*, size_t) noexcept {}
extern "C" int __cxa_atexit(void (*)(void*), void*, void*) { return 0; }
void* __dso_handle = nullptr;
"""


def _includes(tflm: Path, downloads: Path) -> list[str]:
    return [f"-I{tflm}", f"-I{downloads}", f"-I{downloads / 'gemmlowp'}", f"-I{downloads / 'flatbuffers' / 'include'}",
            f"-I{downloads / 'ruy'}", f"-I{downloads / 'kissfft'}", f"-I{FIRMWARE_DIR}", f"-I{CORTEX_M_DIR}"]


def link_app(tflm: Path, downloads: Path, core: Core, lib: Path, name: str, data: bytes, info: ModelInfo,
             arena_bytes: int, out_dir: Path, probe: bool = False) -> Path:
    """Compiles and links one model's app; returns the ELF (a .map beside it)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "glue.cc").write_text(glue_source(name, info, arena_bytes))
    (out_dir / "model.cc").write_text(model_source(data))
    (out_dir / "stubs.cc").write_text(STUBS)
    common = ["-mthumb", *core.cflags, "-Os", "-ffunction-sections", "-fdata-sections"]
    cxx = ["arm-none-eabi-g++", *common, "-std=c++17", "-fno-rtti", "-fno-exceptions", "-fno-threadsafe-statics",
           "-fno-unwind-tables", "-fno-asynchronous-unwind-tables", "-DTF_LITE_STATIC_MEMORY",
           "-DTF_LITE_STRIP_ERROR_STRINGS", "-DNDEBUG", *(["-DBENCH_ARENA_PROBE"] if probe else []),
           *_includes(tflm, downloads)]
    cc = ["arm-none-eabi-gcc", *common, "-std=c99", f"-I{FIRMWARE_DIR}", f"-I{CORTEX_M_DIR}"]
    objs = []
    for src, tool in ((out_dir / "glue.cc", cxx), (out_dir / "model.cc", cxx), (out_dir / "stubs.cc", cxx),
                      (FIRMWARE_DIR / "bench_main.c", cc), (CORTEX_M_DIR / "startup.c", cc),
                      (CORTEX_M_DIR / "semihosting.c", cc)):
        obj = out_dir / (src.stem + ".o")
        _run([*tool, "-c", str(src), "-o", str(obj)])
        objs.append(str(obj))
    elf = out_dir / f"tflm_{name}.elf"
    _run(["arm-none-eabi-g++", *common, "-nostartfiles", "--specs=nano.specs", "-Wl,--gc-sections",
          f"-L{CORTEX_M_DIR}", f"-T{CORTEX_M_DIR / core.linker_script}", f"-Wl,-Map={out_dir / (elf.stem + '.map')}",
          "-o", str(elf), *objs, str(lib), "-lm", "-lc", "-lnosys"])
    return elf


# --------------------------------------------------------------------------------------------
# Measuring and writing the figures

#: the benchmark models measured against TFLM: name -> where the .tflite comes from
#: ("ours": benchmarks.models; "tflm": a path inside the TFLM checkout)
BASELINE_MODELS = {
    "kws_dscnn": ("ours", ""), "vww_mobilenet": ("ours", ""), "ic_resnet8": ("ours", ""),
    "ad_autoencoder": ("ours", ""), "micro_speech": ("ours", ""),
    "person_detect": ("tflm", "tensorflow/lite/micro/models/person_detect.tflite"),
}
ARENA_PROBE_BYTES = 300 * 1024  # first link: enough for every benchmark model
_ARENA_LINE = re.compile(r"^arena_used (\d+)$", re.M)


def model_bytes(name: str, tflm: Path, work: Path) -> bytes:
    kind, path = BASELINE_MODELS[name]
    if kind == "tflm":
        return (tflm / path).read_bytes()
    from benchmarks.models import get_models

    return get_models([name], work)[0].path.read_bytes()


def arena_used(stdout: str) -> int:
    """The arena TFLM reported it used (the glue prints it after AllocateTensors)."""
    m = _ARENA_LINE.search(stdout)
    if m is None:
        raise BaselineError(f"the app printed no arena_used line:\n{stdout[-2000:]}")
    return int(m.group(1))


def measure_model(tflm: Path, downloads: Path, core: Core, lib: Path, name: str, data: bytes,
                  work: Path, timeout: float, config: str = "") -> dict:
    """Two links (the arena probed, then exact) and one counted run of the second."""
    from benchmarks import cycles, qemu_plugin
    from benchmarks.runner import parse_program_output
    from benchmarks.sizes import FLASH_SECTIONS, section_sizes

    info = model_info(data)
    config = config or f"tflm-{core.name}"
    out_dir = work / config / name
    probe = link_app(tflm, downloads, core, lib, name, data, info, ARENA_PROBE_BYTES, out_dir / "probe", probe=True)
    used = arena_used(qemu_plugin.count_instructions(probe, core.machine, timeout=timeout, pairs=None).stdout)
    # The probe searched the smallest arena (16-byte steps) with which AllocateTensors succeeds.
    elf = link_app(tflm, downloads, core, lib, name, data, info, used, out_dir / "exact")
    counted = qemu_plugin.count_instructions(elf, core.machine, timeout=timeout, mix=True)
    out = parse_program_output(counted.stdout)
    if out.rc != 0:
        raise BaselineError(f"{name} on {core.name}: Invoke() failed")
    sections = section_sizes(elf)
    mix = counted.mix or {}
    flash = sum(sections.get(s, 0) for s in FLASH_SECTIONS)
    data_bss = sections.get(".data", 0) + sections.get(".bss", 0)
    return {
        "model": name, "config": config, "core": core.target_arch, "machine": core.machine,
        "instructions": counted.insns, "mix_classes": mix, "mix": cycles.summary(mix),
        "cycles": {m.name: cycles.estimate(mix, m) for m in cycles.MODELS.values()},
        "operators": list(info.operators), "outputs": out.outputs, "stack_bytes": out.stack,
        "flash_bytes": flash, "flatbuffer_bytes": len(data), "code_bytes": flash - len(data),
        "arena_bytes": used, "data_bss_bytes": data_bss, "ram_bytes": data_bss + (out.stack or 0),
        "sections": {k: v for k, v in sections.items() if not k.startswith((".debug", ".comment", ".ARM.attr"))},
    }


def tflm_commit(tflm: Path) -> str:
    """The checkout's commit: git, or a TFLM_COMMIT file (an exported tree has no .git)."""
    p = subprocess.run(["git", "-C", str(tflm), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    if p.returncode == 0 and p.stdout.strip():
        return p.stdout.strip()
    f = tflm / "TFLM_COMMIT"
    return f.read_text().strip() if f.is_file() else "unknown"


def write_record(results: Path, rec: dict) -> Path:
    results.mkdir(parents=True, exist_ok=True)
    path = results / f"{rec['model']}--{rec['config']}.json"
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(rec, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, path)
    return path


def load_records(results: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(results.glob("*--tflm-*.json"))]


#: the TFLM + CMSIS-NN instructions of ../shared/docs/anchors.md (same TFLM commit, compiler, boards)
ANCHOR_INSTRUCTIONS = {
    "m4": {"kws_dscnn": 9.23e6, "vww_mobilenet": 28.56e6, "ic_resnet8": 41.07e6, "ad_autoencoder": 0.84e6,
           "micro_speech": 2.39e6},
    "m55": {"kws_dscnn": 2.46e6, "vww_mobilenet": 8.50e6, "ic_resnet8": 5.30e6, "ad_autoencoder": 0.243e6,
            "micro_speech": 1.28e6, "person_detect": 8.45e6},
}


def _n(v: int | None) -> str:
    return "-" if v is None else f"{v:,}".replace(",", " ")


def _ratio(a: int | None, b: int | None) -> str:
    return "-" if not a or not b else f"{a / b:.2f}x"


def render_section(tflm_records: list[dict], ours: list[dict] | None = None) -> str:
    """The results README's TFLM section: per core, TFLM + CMSIS-NN's figures and ours (--target of
    the core, -Os) beside them. Cycles are recomputed from the stored mix with every core model."""
    from benchmarks import cycles

    if not tflm_records:
        return ""
    ours_by = {(r["model"], r["config"]): r for r in (ours or [])}
    commit = tflm_records[0].get("tflm_commit", "unknown")
    lines = ["## TFLM + CMSIS-NN, built and counted the same way", "",
             f"Produced by `python -m benchmarks.tflm_baseline run` (see [../README.md](../README.md#tflm-baseline)): "
             f"TFLM `{commit[:12]}` with `OPTIMIZED_KERNEL_DIR=cmsis_nn BUILD_TYPE=release` (TFLM's Makefile: its core "
             "at -Os; its kernels and CMSIS-NN at -O2 as TFLM ships them, configurations `tflm-<core>`, or at -Os "
             "too, `tflm-<core>-Os`), the app at -Os, the same arm-none-eabi-gcc, "
             "QEMU board and plugin as ours; one Invoke() on bench_main.c's xorshift32 inputs. Flash = code + "
             "flatbuffer (+ .data's load image); RAM = arena + the rest of .data/.bss + the painted stack of "
             "Invoke(). Ours: --target of the core, -Os. Cycles: estimates from the instruction mix "
             "(benchmarks/cycles.py).", ""]
    by_config: dict[str, list[dict]] = {}
    for r in tflm_records:
        by_config.setdefault(r["config"], []).append(r)
    for config, recs in sorted(by_config.items()):
        core = config.split("-")[1]
        models = [m for m in cycles.MODELS.values() if m.name in core_models_for(core)]
        ours_cfg = f"{core}-Os-cortex-{core}"
        head = ["model", "instructions", "anchors.md", *[f"{m.name[7:].upper()} cycles (est.)" for m in models],
                "flash",
                "of which flatbuffer", "RAM", "of which arena", "stack", "ours: instructions", "ours / TFLM",
                "ours: flash", "ours: RAM", "outputs vs ours"]
        kernels = recs[0].get("kernel_opt", "-O2 (TFLM's default)")
        lines += [f"### {config}: {core}, TFLM kernels and CMSIS-NN at {kernels} (QEMU {recs[0]['machine']}, "
                  f"TARGET_ARCH={recs[0]['core']})", "",
                  "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 2) + "---|"]
        for r in sorted(recs, key=lambda r: list(BASELINE_MODELS).index(r["model"])
                        if r["model"] in BASELINE_MODELS else 99):
            o = ours_by.get((r["model"], ours_cfg), {})
            same = "-" if not o else ("identical" if o.get("outputs") == r["outputs"] else "differ")
            cyc = [_n(cycles.estimate(r["mix_classes"], m)) for m in models]
            anchor = ANCHOR_INSTRUCTIONS.get(core, {}).get(r["model"])
            anchor_txt = ("-" if anchor is None
                          else f"{anchor / 1e6:.2f} M ({(r['instructions'] / anchor - 1) * 100:+.1f} %)")
            lines.append("| " + " | ".join([
                r["model"], _n(r["instructions"]), anchor_txt, *cyc, _n(r["flash_bytes"]), _n(r["flatbuffer_bytes"]),
                _n(r["ram_bytes"]), _n(r["arena_bytes"]), _n(r["stack_bytes"]), _n(o.get("instructions")),
                _ratio(o.get("instructions"), r["instructions"]), _n(o.get("flash_bytes")),
                _n(o.get("ram_bytes")), same]) + " |")
        lines.append("")
    check = render_cycle_check(tflm_records)
    return "\n".join(lines) + ("\n" + check if check else "")


#: MLPerf Tiny v1.2-v1.3 closed division, CPU only, board cycles = latency x clock
#: (../shared/docs/anchors.md): core -> (board, software, {model: cycles})
PUBLISHED_CYCLES = {
    "cortex-m4": ("STM32L4R5 @120 MHz", "X-CUBE-AI 9.0 (AD: Plumerai)",
                  {"kws_dscnn": 5.18e6, "vww_mobilenet": 10.67e6, "ic_resnet8": 19.82e6, "ad_autoencoder": 0.486e6}),
    "cortex-m33": ("STM32U575 @160 MHz", "X-CUBE-AI 10.2, Plumerai, Bosch",
                   {"kws_dscnn": 4.64e6, "vww_mobilenet": 9.48e6, "ic_resnet8": 16.7e6, "ad_autoencoder": 0.495e6}),
    "cortex-m7": ("STM32H7A3 @280 MHz", "X-CUBE-AI 9.0, Bosch",
                  {"kws_dscnn": 3.17e6, "vww_mobilenet": 6.67e6, "ic_resnet8": 11.44e6, "ad_autoencoder": 0.303e6}),
    "cortex-m85": ("RA8D1 @480 MHz", "TFLM + CMSIS-NN",
                   {"kws_dscnn": 1.66e6, "vww_mobilenet": 6.43e6, "ic_resnet8": 4.07e6, "ad_autoencoder": 0.255e6}),
}


def render_cycle_check(tflm_records: list[dict]) -> str:
    """The cycle models against the published board figures: absolute where the software is the
    same (Cortex-M85: TFLM + CMSIS-NN, against our TFLM + CMSIS-NN Helium build's mix), and as
    ratios between cores where it is not (the M4:M7 and M4:M33 board ratios of one vendor's code
    against the models' ratios on the TFLM Cortex-M4 build's mix)."""
    from benchmarks import cycles

    by = {(r["model"], r["config"]): r for r in tflm_records}
    models = [m for m in PUBLISHED_CYCLES["cortex-m4"][2] if any(k[0] == m for k in by)]
    if not models:
        return ""
    lines = ["### Cycle models against published board figures", "",
             "Board cycles = MLPerf Tiny latency x clock (../shared/docs/anchors.md): flash wait states and "
             "cache misses are in them, not in the models. The board models are MLPerf Tiny's trained networks; "
             "ours are the same architectures with synthetic weights (the same layer shapes, so the same work).", ""]
    rows = []
    for m, suffix in ((m, suffix) for suffix in ("", "-Os") for m in models):
        r = by.get((m, f"tflm-m55{suffix}"))
        if r is None:
            continue
        pub = PUBLISHED_CYCLES["cortex-m85"][2][m]
        est = {n: cycles.estimate(r["mix_classes"], cycles.MODELS[n]) for n in ("cortex-m85", "cortex-m55")
               if n in cycles.MODELS}
        rows.append(f"| {m} | tflm-m55{suffix} | {_n(r['instructions'])} | {_n(int(pub))} | {_n(est['cortex-m85'])} | "
                    f"{(est['cortex-m85'] / pub - 1) * 100:+.0f} % | "
                    + (f"{_n(est['cortex-m55'])} |" if "cortex-m55" in est else "- |"))
    if rows:
        lines += ["Absolute, the same software: TFLM + CMSIS-NN (Helium) on the RA8D1's Cortex-M85 against the "
                  "Cortex-M85 model on our TFLM + CMSIS-NN build's instruction mix (the M85 runs the M55's "
                  "Armv8.1-M code).", "",
                  "| model | our TFLM build | its instructions | RA8D1 board cycles | M85 model | error | "
                  "M55 model (same mix) |", "|---|---|---:|---:|---:|---:|---:|", *rows, ""]
    rows = []
    for m, suffix in ((m, suffix) for suffix in ("", "-Os") for m in models):
        r = by.get((m, f"tflm-m4{suffix}"))
        if r is None:
            continue
        est = {n: cycles.estimate(r["mix_classes"], cycles.MODELS[n]) for n in ("cortex-m4", "cortex-m7", "cortex-m33")}
        pub = {n: PUBLISHED_CYCLES[n][2][m] for n in ("cortex-m4", "cortex-m7", "cortex-m33")}
        r7, p7 = est["cortex-m4"] / est["cortex-m7"], pub["cortex-m4"] / pub["cortex-m7"]
        r33, p33 = est["cortex-m4"] / est["cortex-m33"], pub["cortex-m4"] / pub["cortex-m33"]
        rows.append(f"| {m} | tflm-m4{suffix} | {_n(est['cortex-m4'])} | {r7:.2f} | {p7:.2f} | "
                    f"{(r7 / p7 - 1) * 100:+.0f} % | "
                    f"{r33:.2f} | {p33:.2f} | {(r33 / p33 - 1) * 100:+.0f} % |")
    if rows:
        lines += ["Relative, M4 : M7 and M4 : M33 cycles per inference: the models on one binary's mix (the TFLM "
                  "Cortex-M4 build; the M7 and M33 run v7E-M code) against the boards' ratio with one vendor's "
                  "code on each (X-CUBE-AI 9.0 on M4 and M7; the M33's and the autoencoder's are other "
                  "vendors', so those ratios are weaker evidence).", "",
                  "| model | our TFLM build | M4 model cycles | M4/M7, model | M4/M7, boards | error | M4/M33, model | "
                  "M4/M33, boards | error |", "|---|---|---:|---:|---:|---:|---:|---:|---:|", *rows, ""]
    return "\n".join(lines)


def core_models_for(core: str) -> tuple[str, ...]:
    """The cycle models shown for a measured core: an M4 build runs on M4/M33/M7 alike (v7E-M
    code), an M55 build on M55/M85."""
    return ("cortex-m4", "cortex-m33", "cortex-m7") if core == "m4" else ("cortex-m55", "cortex-m85")


def run(tflm: Path, downloads: Path, work: Path, results: Path, cores: list[str], models: list[str],
        jobs: int, timeout: float, make_python: Path | None = None, full_library: bool = False,
        kernels_os: bool = False) -> list[dict]:
    from benchmarks import qemu_plugin

    qemu_plugin.build_plugin()
    commit = tflm_commit(tflm)
    gcc = _run(["arm-none-eabi-gcc", "-dumpversion"]).strip()
    data = {name: model_bytes(name, tflm, work) for name in models}
    operators = tuple(sorted({op for d in data.values() for op in model_info(d).operators}))
    records = []
    for c in cores:
        core = CORES[c]
        print(f"== TFLM for {core.target_arch} (TFLM's Makefile; operators {', '.join(operators)})", flush=True)
        lib = build_library(tflm, core, downloads, jobs, make_python, None if full_library else operators,
                            kernels_os)
        config = f"tflm-{core.name}" + ("-Os" if kernels_os else "")
        for name in models:
            rec = measure_model(tflm, downloads, core, lib, name, data[name], work, timeout, config)
            rec["kernel_opt"] = "-Os" if kernels_os else "-O2 (TFLM's default)"
            rec |= {"tflm_commit": commit, "arm-none-eabi-gcc": gcc}
            write_record(results, rec)
            records.append(rec)
            print(f"   {name} {c}: {rec['instructions']} instructions, flash {rec['flash_bytes']}, "
                  f"RAM {rec['ram_bytes']} (arena {rec['arena_bytes']}, stack {rec['stack_bytes']})", flush=True)
    return records


def update_readme(readme: Path, tflm_dir: Path, runs: Path) -> None:
    """Replaces (or appends) the TFLM section of the results README."""
    ours = [json.loads(p.read_text()) for p in sorted(runs.glob("*--*.json"))] if runs.is_dir() else []
    section = render_section(load_records(tflm_dir), ours)
    text = readme.read_text() if readme.is_file() else ""
    text = splice_section(text, section)
    tmp = readme.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, readme)


def _render_all(results: Path) -> None:
    """The harness's README (python -m benchmarks) from its stored records, without measuring."""
    from benchmarks.__main__ import environment, merged_records
    from benchmarks.cycles_report import render_cycles
    from benchmarks.report import render

    merged = merged_records(results / "runs", [])
    text = "\n".join([render(merged, environment()), *render_cycles(merged)]) + "\n"
    tmp = results / f"README.md.tmp{os.getpid()}"
    tmp.write_text(text)
    os.replace(tmp, results / "README.md")


SECTION_BEGIN, SECTION_END = "<!-- tflm-baseline -->", "<!-- /tflm-baseline -->"


def splice_section(text: str, section: str) -> str:
    """text with its TFLM section (between the markers) replaced by section, or section appended."""
    block = f"{SECTION_BEGIN}\n{section.rstrip()}\n{SECTION_END}\n" if section else ""
    start, end = text.find(SECTION_BEGIN), text.find(SECTION_END)
    if start >= 0 and end > start:
        return text[:start] + block + text[end + len(SECTION_END):].lstrip("\n")
    return text.rstrip("\n") + ("\n\n" + block if block else "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.tflm_baseline", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="populate the downloads directory from local git copies")
    p.add_argument("--tflm", type=Path, required=True, help="TFLM checkout (its download scripts are read)")
    p.add_argument("--sources", type=Path, required=True, help="directory of owner+name/repo git copies")
    p.add_argument("--downloads", type=Path, required=True)
    r = sub.add_parser("run", help="build TFLM per core, measure every model, write the results")
    r.add_argument("--tflm", type=Path, required=True)
    r.add_argument("--downloads", type=Path, required=True)
    r.add_argument("--work", type=Path, default=REPO / "build" / "tflm_baseline")
    r.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    r.add_argument("--cores", nargs="*", default=list(CORES), choices=list(CORES))
    r.add_argument("--models", nargs="*", default=list(BASELINE_MODELS), choices=list(BASELINE_MODELS))
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r.add_argument("--timeout", type=float, default=1800.0, help="seconds per QEMU run")
    r.add_argument("--make-python", type=Path, help="a python3 with Pillow and numpy for TFLM's Makefile "
                   "(it converts test data at parse time), e.g. a venv's bin/python3")
    r.add_argument("--kernels-os", action="store_true",
                   help="TFLM's kernels and CMSIS-NN at -Os too (configuration tflm-<core>-Os); TFLM's "
                        "default builds them at -O2")
    r.add_argument("--full-library", action="store_true",
                   help="build the whole microlite target (default: the objects the models' operators can use)")
    s = sub.add_parser("readme", help="re-render the results README's TFLM section")
    s.add_argument("--results", type=Path, default=REPO / "benchmarks" / "results")
    s.add_argument("--all", action="store_true", help="the whole README from the stored records (runs/ and "
                   "tflm/), no measurement: e.g. after a merge of two branches' results")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "prepare":
            prepare(args.tflm.resolve(), args.sources.resolve(), args.downloads.resolve())
        elif args.cmd == "run":
            run(args.tflm.resolve(), args.downloads.resolve(), args.work.resolve(), args.results / "tflm",
                args.cores, args.models, args.jobs, args.timeout, args.make_python, args.full_library,
                args.kernels_os)
            update_readme(args.results / "README.md", args.results / "tflm", args.results / "runs")
        else:
            if args.all:
                _render_all(args.results)
            update_readme(args.results / "README.md", args.results / "tflm", args.results / "runs")
    except (BaselineError, OSError, subprocess.SubprocessError, RuntimeError) as e:  # RuntimeError: QEMU, plugin
        print(f"tflm_baseline: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
