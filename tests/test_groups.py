"""Several models in one firmware (issue 23, item 3): `utvm-build compile-group`, utvm_add_models()
and UtvmModels, and examples/two_models (a wake word model, then a command model).

* Outputs: the example's printed scores equal tflite-runtime's reference kernels (the wake word model
  over its stream of slices, the command model on each sample it is run on), whether the models
  are built as a group or each alone; on the host (CLI, CMake, SCons) and on Cortex-M4 under QEMU.
* RAM: models declared exclusive share one pool: the group's workspace is the larger workspace
  (aligned) and the states are added, not the sum of the workspaces (macros, metadata and the
  linked array's size); models that may overlap get disjoint pools.
* Code: a kernel function both models call is compiled once (the arm-none-eabi link map lists
  its code once, from the group's kernel file, and never from a model's operator file).
* The debug guard: a run whose pool is busy returns -3 (compiled out with NDEBUG).
* Many models sharing kernels (the one-operator models of ../shared; a sample in CI, all with
  UTVM_TEST_FULL=1): the grouped build's outputs equal each model built alone, byte for byte.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED_MODELS
from system_tools import need
from test_state import reference_sequences

from utvm_build.cli import main as cli

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "two_models"
MODELS = REPO / "examples" / "models"
WAKE = MODELS / "streaming_kws" / "streaming_kws_int8.tflite"
CMD = MODELS / "digits" / "digits_int8.tflite"
TOOLCHAIN = REPO / "examples" / "cortex_m" / "arm-none-eabi.cmake"
STEPS, FEATURES, WAKE_CLASS = 24, 10, 1
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
WAKE_MAIN_C_STATE = 7   # main.c's generator seed


def _slices() -> np.ndarray:
    """main.c's stand-in feature generator (an LCG)."""
    out = np.zeros((STEPS, 1, 1, FEATURES), np.int8)
    x = WAKE_MAIN_C_STATE
    for t in range(STEPS):
        for k in range(FEATURES):
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            out[t, 0, 0, k] = ((x >> 16) & 0xFF) - 128
    return out


def _samples() -> np.ndarray:
    """The four digits of examples/models/digits/samples.h."""
    text = (MODELS / "digits" / "samples.h").read_text()
    body = text[text.index("utvm_digit_samples[4][64]"):]
    body = body[body.index("{") + 1:body.index("};")]
    values = [int(v) for v in re.findall(r"-?\d+", re.sub(r"/\*.*?\*/", "", body, flags=re.S))]
    assert len(values) == 4 * 64
    return np.array(values, np.int8).reshape(4, 1, 8, 8, 1)


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The example's output lines, from the reference: every wake step's scores; after each step
    whose top score is the wake class, the command model's scores on the next sample."""
    tmp = tmp_path_factory.mktemp("two_models_ref")
    (wake,), (cmd,) = reference_sequences(tmp, [(WAKE.read_bytes(), [_slices()]), (CMD.read_bytes(), [_samples()])])
    lines, commands = [], 0
    for t in range(STEPS):
        scores = wake[t].ravel()
        lines.append(f"wake {t}: " + " ".join(str(int(v)) for v in scores))
        if int(np.argmax(scores)) == WAKE_CLASS:   # first maximum, as main.c's argmax
            c = cmd[commands % 4].ravel()
            lines.append(f"command after {t}: " + " ".join(str(int(v)) for v in c) + f" -> {int(np.argmax(c))}")
            commands += 1
    assert commands > 0
    return lines


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if re.match(r"(wake|command after) \d+:", ln.strip())]


def _group(out: Path, *extra: str) -> dict:
    rc = cli(["compile-group", f"wake={WAKE}", f"cmd={CMD}", "-o", str(out), "--group", "voice", *extra])
    assert rc == 0
    return json.loads((out / "metadata.json").read_text())


def _host_build(exe: Path, dirs: list[Path], group: Path | None = None, defines: tuple[str, ...] = (),
                main: Path = EXAMPLE / "main.c") -> None:
    need("gcc")
    srcs = [str(d / s) for d in dirs for s in json.loads((d / "metadata.json").read_text())["sources"]]
    incs = [f"-I{d / 'include'}" for d in dirs] + [f"-I{MODELS / 'digits'}"]
    if group is not None:
        srcs += [str(group / s) for s in json.loads((group / "metadata.json").read_text())["sources"]]
        incs.append(f"-I{group / 'include'}")
        defines = (*defines, "TWO_MODELS_GROUP")
    cmd = ["gcc", *CFLAGS, *[f"-D{d}" for d in defines], *incs, str(main), *srcs, "-o", str(exe), "-lm"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def _run(exe: Path) -> str:
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_group_cli_host_same_outputs_less_ram(tmp_path: Path, expected: list[str]) -> None:
    meta = _group(tmp_path / "g", "--exclusive", "wake,cmd")
    # Each model alone (compile), as a reference for sizes and outputs.
    alone = {}
    for name, model in (("wake", WAKE), ("cmd", CMD)):
        assert cli(["compile", str(model), "--name", name, "-o", str(tmp_path / name)]) == 0
        alone[name] = json.loads((tmp_path / name / "metadata.json").read_text())
    ws = {n: m["workspace_bytes"] for n, m in alone.items()}
    states = sum(m["state_bytes"] for m in alone.values())
    assert states > 0 and min(ws.values()) > 0
    align = meta["workspace_alignment"]
    larger = -(-max(ws.values()) // align) * align
    # RAM = the larger workspace + both states, not the sum of the workspaces.
    assert meta["workspace_bytes"] == larger < sum(ws.values())
    assert meta["ram_bytes"] == larger + states
    assert meta["separate_workspace_bytes"] == sum(ws.values())
    assert [p["models"] for p in meta["pools"]] == [["wake", "cmd"]]
    header = (tmp_path / "g" / "include" / "tvmgen_voice.h").read_text()
    assert f"#define TVMGEN_VOICE_RAM_SIZE {larger + states}" in header
    assert "#define TVMGEN_VOICE_WAKE_POOL 0" in header and "#define TVMGEN_VOICE_CMD_POOL 0" in header
    # The shared kernel: compiled once, in the group; the models call it there.
    assert meta["shared_kernel_functions"] == ["utvm_softmax_s8"]
    kernels = (tmp_path / "g" / "src" / "tvmgen_voice_kernels.c").read_text()
    assert "void tvmgen_voice_utvm_softmax_s8(" in kernels
    for name in ("wake", "cmd"):
        ops = (tmp_path / "g" / "models" / name / "src" / f"tvmgen_{name}_ops.c").read_text()
        assert "tvmgen_voice_utvm_softmax_s8(&" in ops and re.search(r"^\s+utvm_softmax_s8\(", ops, re.M) is None
        member = json.loads((tmp_path / "g" / "models" / name / "metadata.json").read_text())
        assert member["group"]["name"] == "voice" and member["group"]["pool"] == 0

    members = [tmp_path / "g" / "models" / n for n in ("wake", "cmd")]
    _host_build(tmp_path / "grouped", members, group=tmp_path / "g")
    _host_build(tmp_path / "separate", [tmp_path / "wake", tmp_path / "cmd"])
    grouped, separate = _run(tmp_path / "grouped"), _run(tmp_path / "separate")
    assert _lines(grouped) == _lines(separate) == expected
    assert f"RAM {larger + states} B" in grouped
    # The linked program: one workspace array of the larger size, no per-model workspace.
    nm = subprocess.run(["nm", "-S", str(tmp_path / "grouped")], capture_output=True, text=True, check=True).stdout
    sizes = {f[-1]: int(f[1], 16) for f in (ln.split() for ln in nm.splitlines()) if len(f) == 4}
    assert sizes["tvmgen_voice_workspace"] == larger
    assert not [s for s in sizes if re.fullmatch(r"tvmgen_(wake|cmd)_workspace(\.\d+)?", s)]


def test_group_overlapping_models_get_disjoint_pools(tmp_path: Path) -> None:
    meta = _group(tmp_path / "g")   # no --exclusive: the models may run at the same time
    pools = meta["pools"]
    assert [p["models"] for p in pools] == [["wake"], ["cmd"]]
    a, b = pools
    assert a["offset"] + a["bytes"] <= b["offset"]
    assert meta["workspace_bytes"] == a["bytes"] + b["bytes"] >= meta["separate_workspace_bytes"]
    header = (tmp_path / "g" / "include" / "tvmgen_voice.h").read_text()
    assert "#define TVMGEN_VOICE_WAKE_POOL 0" in header and "#define TVMGEN_VOICE_CMD_POOL 1" in header
    (tmp_path / "t.c").write_text('#include "tvmgen_voice.h"\n#if !TVMGEN_VOICE_MAY_RUN_TOGETHER(WAKE, CMD)\n'
                                  '#error "different pools: they may run together"\n#endif\nint x;\n')
    need("gcc")
    p = subprocess.run(["gcc", *CFLAGS, f"-I{tmp_path / 'g' / 'include'}", "-c", str(tmp_path / "t.c"), "-o",
                        str(tmp_path / "t.o")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    entry = (tmp_path / "g" / "models" / "cmd" / "src" / "tvmgen_cmd.c").read_text()
    assert f"&tvmgen_voice_workspace[{b['offset']}]" in entry


def test_group_io_workspace_same_outputs(tmp_path: Path, expected: list[str]) -> None:
    """--io workspace: each model's inputs and outputs in its pool; the copy path gives the same scores."""
    _group(tmp_path / "g", "--exclusive", "wake,cmd", "--io", "workspace")
    members = [tmp_path / "g" / "models" / n for n in ("wake", "cmd")]
    entry = (members[0] / "src" / "tvmgen_wake.c").read_text()
    assert "void tvmgen_wake_map_inputs(" in entry and "&tvmgen_voice_workspace[0]" in entry
    _host_build(tmp_path / "app", members, group=tmp_path / "g")
    assert _lines(_run(tmp_path / "app")) == expected


@pytest.mark.parametrize("compiler, extra", [
    ("gcc", ["--state", "user", "--interface", "c"]),
    ("clang", ["--profile", "--interface", "packed"]),
    ("arm-none-eabi-gcc", ["--target", "cortex-m4"]),
])
def test_group_options_compile_strict(tmp_path: Path, compiler: str, extra: list[str]) -> None:
    """Every source of a group compiles with -Werror -pedantic (and the stricter warnings of the CRT's
    own build) under other options and compilers."""
    need(compiler)
    from utvm_build.paths import crt_dir

    _group(tmp_path / "g", "--exclusive", "wake,cmd", *extra)
    g = tmp_path / "g"
    dirs = [g, g / "models" / "wake", g / "models" / "cmd"]
    incs = [f"-I{d / 'include'}" for d in dirs] + [f"-I{crt_dir() / 'include'}"]
    cpu = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"] if compiler.startswith("arm") else []
    for d in dirs:
        for src in json.loads((d / "metadata.json").read_text())["sources"]:
            p = subprocess.run([compiler, *cpu, *CFLAGS, "-Wshadow", "-Wstrict-prototypes", "-Wmissing-prototypes",
                                *incs, "-c", str(d / src), "-o", str(tmp_path / "x.o")],
                               capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stderr


GUARD_MAIN = r"""
#include <stdio.h>
#include <stdint.h>
#include "tvmgen_cmd.h"
#include "tvmgen_voice.h"
extern volatile uint8_t tvmgen_voice_pool_busy[];
int main(void) {
  int8_t in[TVMGEN_CMD_INPUT_0_SIZE] = {0}, out[TVMGEN_CMD_OUTPUT_0_SIZE];
  struct tvmgen_cmd_inputs i = {in};
  struct tvmgen_cmd_outputs o = {out};
#if TVMGEN_VOICE_MAY_RUN_TOGETHER(WAKE, CMD)
#error "wake and cmd share a pool: they may not run together"
#endif
  int32_t free_run = tvmgen_cmd_run(&i, &o);
  tvmgen_voice_pool_busy[TVMGEN_VOICE_CMD_POOL] = 1u;   /* as if the wake word model were running */
  int32_t busy_run = tvmgen_cmd_run(&i, &o);
  printf("%d %d\n", (int)free_run, (int)busy_run);
  return 0;
}
"""


def test_group_debug_guard(tmp_path: Path) -> None:
    _group(tmp_path / "g", "--exclusive", "wake,cmd")
    (tmp_path / "guard.c").write_text(GUARD_MAIN)
    members = [tmp_path / "g" / "models" / n for n in ("wake", "cmd")]
    _host_build(tmp_path / "debug", members, group=tmp_path / "g", main=tmp_path / "guard.c")
    assert _run(tmp_path / "debug").split() == ["0", "-3"]
    _host_build(tmp_path / "release", members, group=tmp_path / "g", main=tmp_path / "guard.c", defines=("NDEBUG",))
    assert _run(tmp_path / "release").split() == ["0", "0"]


@pytest.mark.parametrize("args, message", [
    (["--exclusive", "wake,nobody"], "'nobody', which is not a model of the group"),
    (["--workspace", "user"], "use --workspace static"),
    (["--name", "x"], "NAME=model.tflite"),
])
def test_group_errors_one_line(tmp_path: Path, capsys: pytest.CaptureFixture, args: list[str], message: str) -> None:
    rc = cli(["compile-group", f"wake={WAKE}", f"cmd={CMD}", "-o", str(tmp_path / "g"), "--group", "voice", *args])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and err.count("\n") == 1, err
    assert not (tmp_path / "g").exists()


def test_group_same_name_twice(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rc = cli(["compile-group", f"a={WAKE}", f"a={CMD}", "-o", str(tmp_path / "g"), "--group", "voice"])
    assert rc == 2 and "named 'a'" in capsys.readouterr().err


def test_group_info_report_manifest(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    meta = _group(tmp_path / "g", "--exclusive", "wake,cmd")
    capsys.readouterr()
    assert cli(["info", str(tmp_path / "g")]) == 0
    text = capsys.readouterr().out
    assert "model group voice" in text and "pool 0: 640 B at byte 0: wake, cmd" in text
    assert "RAM: workspace 640 B (each model alone: 784 B) + states 75 B = 715 B" in text
    assert "compiled once for the group: utvm_softmax_s8" in text
    assert cli(["report", str(tmp_path / "g"), "-o", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert '<td id="group-workspace">640</td>' in page and '<td id="group-separate">784</td>' in page
    assert re.search(r'class="pool"[^>]*data-pool="0" data-offset="0" data-bytes="640"', page)
    assert len(re.findall(r'class="buffer"[^>]*data-model="(wake|cmd)"', page)) == 2
    # --manifest: the files compile-group writes, and the metadata, writing nothing.
    capsys.readouterr()
    assert cli(["compile-group", f"wake={WAKE}", f"cmd={CMD}", "-o", str(tmp_path / "none"), "--group", "voice",
                "--exclusive", "wake,cmd", "--manifest"]) == 0
    doc = json.loads(capsys.readouterr().out)
    written = sorted(str(f.relative_to(tmp_path / "g")) for f in (tmp_path / "g").rglob("*") if f.is_file())
    assert doc["files"] == written and doc["metadata"] == meta and set(doc["members"]) == {"wake", "cmd"}
    assert not (tmp_path / "none").exists()


def _cmake(build: Path, *extra: str) -> None:
    need("cmake", "ninja")
    for cmd in (["cmake", "-S", EXAMPLE, "-B", build, "-G", "Ninja", f"-DPython3_EXECUTABLE={sys.executable}",
                 *extra], ["cmake", "--build", build]):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr


def test_two_models_example_cmake_host(tmp_path: Path, expected: list[str]) -> None:
    _cmake(tmp_path / "group")
    out = _run(tmp_path / "group" / "two_models")
    assert _lines(out) == expected
    assert re.search(r"group voice: workspace 640 B \(each model alone: 784 B\), state 75 B, RAM 715 B", out), out


PACKED_MAIN = r"""
#include <stdio.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include "tvmgen_voice.h"
int main(void) {
  TVMFunctionHandle syslib, f;
  TVMValue ret;
  int code;
  if (TVMInitializeRuntime() != 0 || TVMFuncGetGlobal("runtime.SystemLib", &syslib) != 0 ||
      TVMFuncCall(syslib, NULL, NULL, 0, &ret, &code) != 0) {
    return 1;
  }
  printf("wake %d cmd %d ram %d\n", TVMModGetFunction(ret.v_handle, "tvmgen_wake_run", 0, &f),
         TVMModGetFunction(ret.v_handle, "tvmgen_cmd_run", 0, &f), TVMGEN_VOICE_RAM_SIZE);
  return 0;
}
"""


def _group_cmake_lists(project: str, options: str, tail: str = "") -> str:
    """A CMake project with utvm_add_models(voice MODELS wake=... cmd=... <options>), then <tail>."""
    return f"""cmake_minimum_required(VERSION 3.20)
project({project} C)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(COMMAND "${{Python3_EXECUTABLE}}" -m utvm_build --cmake-dir
                OUTPUT_VARIABLE utvm_build_DIR OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
find_package(utvm_build CONFIG REQUIRED)
utvm_add_models(voice MODELS "wake={WAKE}" "cmd={CMD}" {options})
{tail}"""


def test_group_cmake_packed_one_system_library(tmp_path: Path) -> None:
    """utvm_add_models with INTERFACE packed: both models in the build's one system library."""
    (tmp_path / "main.c").write_text(PACKED_MAIN)
    (tmp_path / "CMakeLists.txt").write_text(_group_cmake_lists(
        "packed_group", "EXCLUSIVE wake,cmd INTERFACE packed",
        "add_executable(app main.c)\ntarget_link_libraries(app PRIVATE voice utvm::crt_host)\n"))
    need("cmake", "ninja")
    configure = ["cmake", "-S", tmp_path, "-B", tmp_path / "b", "-G", "Ninja", f"-DPython3_EXECUTABLE={sys.executable}"]
    for cmd in (configure, ["cmake", "--build", tmp_path / "b"]):
        p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
    assert _run(tmp_path / "b" / "app").split() == ["wake", "0", "cmd", "0", "ram", "715"]


def _map_text_sections(map_file: Path) -> list[tuple[str, int, str]]:
    """(input section, size, object file) of every .text.* input section the link kept."""
    text = map_file.read_text()
    text = text[text.index("Linker script and memory map"):]
    return [(m.group(1), int(m.group(2), 16), m.group(3)) for m in
            re.finditer(r"^ (\.text\.\S+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)\s+(\S+)", text, re.M)]


def test_two_models_example_cortex_m4_qemu(tmp_path: Path, expected: list[str]) -> None:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    results, bss = {}, {}
    for kind, extra in (("group", []), ("separate", ["-DTWO_MODELS_SEPARATE=ON"])):
        build = tmp_path / kind
        _cmake(build, f"--toolchain={TOOLCHAIN}", "-DCORTEX_M_CPU=cortex-m4", *extra)
        p = subprocess.run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel",
                            str(build / "two_models.elf")], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        assert _lines(p.stdout + p.stderr) == expected
        results[kind] = _map_text_sections(build / "two_models.map")
        sizes = subprocess.run(["arm-none-eabi-size", "-A", str(build / "two_models.elf")], capture_output=True,
                               text=True, check=True).stdout
        bss[kind] = sum(int(f[1]) for f in (ln.split() for ln in sizes.splitlines()) if f and f[0].startswith(".bss"))
    # RAM: the group's workspace is the larger one, not the sum: .bss shrinks by the smaller
    # workspace (144 B), less the pool's busy flag and its padding.
    assert 144 - 16 <= bss["separate"] - bss["group"] <= 144, bss
    # The shared kernel's code: once, from the group's kernel file; the models' softmax operator
    # functions only call it. Built alone, each model's softmax operator carries its own copy.
    group = results["group"]
    kernel = [(s, o) for s, _n, o in group if "utvm_softmax" in s]
    assert ".text.tvmgen_voice_utvm_softmax_s8" in [s for s, _ in kernel], kernel
    assert all("tvmgen_voice_kernels.c" in o for _, o in kernel), kernel
    assert len({s for s, _ in kernel}) == len(kernel), kernel   # each section once
    ops = {s: n for s, n, _o in group if re.fullmatch(r"\.text\.tvmgen_(wake|cmd)_op\d+_softmax", s)}
    alone = {s: n for s, n, _o in results["separate"] if re.fullmatch(r"\.text\.tvmgen_(wake|cmd)_op\d+_softmax", s)}
    assert len(ops) == len(alone) == 2, (ops, alone)
    assert all(n <= 64 for n in ops.values()) and all(n >= 256 for n in alone.values()), (ops, alone)


def test_group_scons(tmp_path: Path, expected: list[str]) -> None:
    need("gcc")
    try:
        import SCons  # noqa: F401
    except ImportError:
        pytest.fail("SCons is not installed; pip install scons (it is in the `test` extras)", pytrace=False)
    ex = tmp_path / "examples"
    shutil.copytree(REPO / "examples", ex, ignore=shutil.ignore_patterns("build", ".sconsign.dblite", "__pycache__"))
    # The code generator SCons runs is this checkout's (SCons passes no PYTHONPATH to its commands).
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}${{PYTHONPATH:+:$PYTHONPATH}}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    p = subprocess.run([sys.executable, "-m", "SCons", "-Q", f"PYTHON={python}"], cwd=ex / "two_models",
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    out = _run(ex / "two_models" / "build" / "two_models")
    assert _lines(out) == expected and "RAM 715 B" in out


# ---- many models sharing kernels: grouped == alone, byte for byte --------------------------------

FULL = os.environ.get("UTVM_TEST_FULL") == "1"
#: One-operator models of ../shared (TFLM's integration tests): models of one folder call the same
#: kernel functions. CI: the first two of four folders (8 models, 4 kernels shared); full: all.
OP_FOLDERS = ("conv", "add", "pad", "leaky_relu", "strided_slice", "sub", "transpose_conv", "quantize")
_CTYPES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int32_t", "float32": "float"}


def _op_models() -> list[Path]:
    picked = []
    for folder in OP_FOLDERS if FULL else OP_FOLDERS[:4]:
        files = sorted((SHARED_MODELS / "ops" / folder).glob("*.tflite"), key=lambda f: (len(f.name), f.name))
        picked += files if FULL else files[:2]
    return picked


def _runner(metas: list[dict]) -> str:
    """Runs every model twice on inputs from one LCG (state carried) and prints its outputs as hex."""
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>"]
    lines += [f'#include "tvmgen_{m["name"]}.h"' for m in metas]
    lines += ["static uint32_t seed = 1u;",
              "static uint32_t next(void) { seed = seed * 1103515245u + 12345u; return (seed >> 16) & 0xffffu; }",
              "static void dump(const char* what, const void* p, size_t n) {",
              "  const uint8_t* b = (const uint8_t*)p;", "  printf(\"%s\", what);",
              "  for (size_t i = 0; i < n; ++i) { printf(\"%02x\", b[i]); }", "  printf(\"\\n\");", "}",
              "int main(void) {", "  int failed = 0;"]
    for m in metas:
        name = m["name"]
        lines.append("  for (int run = 0; run < 2; ++run) {")
        for k, port in enumerate(m["inputs"]):
            ctype, n = _CTYPES[port["dtype"]], int(np.prod(port["shape"]))
            lines.append(f"    static {ctype} in{k}[{max(1, n)}];")
            value = "((float)((int)(next() & 0xffu) - 128) / 32.0f)" if ctype == "float" else f"({ctype})next()"
            lines.append(f"    for (int i = 0; i < {n}; ++i) {{ in{k}[i] = {value}; }}")
        for k, port in enumerate(m["outputs"]):
            lines.append(f"    static {_CTYPES[port['dtype']]} out{k}[{max(1, int(np.prod(port['shape'])))}];")
        ins = ", ".join(f"in{k}" for k in range(len(m["inputs"])))
        outs = ", ".join(f"out{k}" for k in range(len(m["outputs"])))
        lines += [f"    struct tvmgen_{name}_inputs i = {{{ins}}};",
                  f"    struct tvmgen_{name}_outputs o = {{{outs}}};",
                  f"    failed |= tvmgen_{name}_run(&i, &o) != 0;"]
        lines += [f'    dump("{name} {k}: ", out{k}, sizeof out{k});' for k in range(len(m["outputs"]))]
        lines.append("  }")
    lines += ["  return failed;", "}", ""]
    return "\n".join(lines)


@pytest.mark.skipif(not (SHARED_MODELS / "ops").is_dir(), reason="needs ../shared/models (the shared reference models)")
def test_group_of_op_models_equals_each_alone(tmp_path: Path) -> None:
    models = _op_models()
    names = [f"m{k}" for k in range(len(models))]
    assert cli(["compile-group", *[f"{n}={m}" for n, m in zip(names, models)], "-o", str(tmp_path / "g"),
                "--group", "ops", "--exclusive", ",".join(names)]) == 0
    group = json.loads((tmp_path / "g" / "metadata.json").read_text())
    assert len(group["shared_kernel_functions"]) >= 3, group["shared_kernel_functions"]
    for n, m in zip(names, models):
        assert cli(["compile", str(m), "--name", n, "-o", str(tmp_path / n)]) == 0
    metas = [json.loads((tmp_path / n / "metadata.json").read_text()) for n in names]
    assert all(p["dtype"] in _CTYPES for m in metas for p in m["inputs"] + m["outputs"])
    (tmp_path / "main.c").write_text(_runner(metas))
    outs = {}
    for kind, dirs, grp in (("grouped", [tmp_path / "g" / "models" / n for n in names], tmp_path / "g"),
                            ("alone", [tmp_path / n for n in names], None)):
        _host_build(tmp_path / kind, dirs, group=grp, main=tmp_path / "main.c")
        outs[kind] = _run(tmp_path / kind)
    assert outs["grouped"].count("\n") == 2 * sum(len(m["outputs"]) for m in metas)
    assert outs["grouped"] == outs["alone"]
    # One pool for all: the group's workspace is the largest model's (aligned), not the sum.
    align = group["workspace_alignment"]
    assert group["workspace_bytes"] == -(-max(m["workspace_bytes"] for m in metas) // align) * align


def test_group_cmake_memory_and_optimize_options(tmp_path: Path) -> None:
    """utvm_add_models passes MEMORY, RAM_LIMIT and OPTIMIZE_FOR to every model of the group, and a
    wrong value is one line naming the option."""
    def project(options: str) -> list[str]:
        (tmp_path / "CMakeLists.txt").write_text(_group_cmake_lists("group_options", f"TARGET cortex-m4 {options}"))
        return ["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b"), f"-DPython3_EXECUTABLE={sys.executable}"]

    need("cmake")
    p = subprocess.run(project("MEMORY min RAM_LIMIT 65536 OPTIMIZE_FOR size"), capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    for name in ("wake", "cmd"):
        meta = tmp_path / "b" / "utvm" / "voice" / "models" / name / "metadata.json"
        options = json.loads(meta.read_text())["options"]
        assert (options["memory"], options["ram_limit"], options["optimize"]) == ("min", 65536, "size")
    p = subprocess.run(project("OPTIMIZE_FOR fastest"), capture_output=True, text=True, timeout=600)
    assert p.returncode != 0
    assert "OPTIMIZE_FOR 'fastest' is not one of: speed, balanced, size" in " ".join(p.stderr.split())
