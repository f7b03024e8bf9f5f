"""CMake integration: the utvm_build config package and the two examples (docs/cmake.md).

Runs cmake, the native build tools, arm-none-eabi-gcc and qemu-system-arm in temporary
directories. Nothing is skipped: a missing tool fails with the package to install.

The examples are built with the bundled digits model when this utvm-build supports all its
operators, otherwise with hello_world_int8 (same program, meaningless labels). Set
UTVM_CMAKE_TEST_MODEL=/path/to.tflite to force a model.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from system_tools import need

from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
# Bundled models only: these tests run on a clone without ../shared too.
DIGITS_FLOAT = REPO / "examples" / "models" / "digits" / "digits_float.tflite"
CMAKE_DIR = REPO / "cmake"
TOOLCHAIN = REPO / "examples" / "cortex_m" / "arm-none-eabi.cmake"
BOARDS = {"cortex-m4": "mps2-an386", "cortex-m55": "mps3-an547"}
GENERATOR_TOOL = {"Ninja": "ninja", "Ninja Multi-Config": "ninja", "Unix Makefiles": "make"}


def run(cmd: list, cwd: Path | None = None, ok: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if ok and p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def configure(src: Path, build: Path, generator: str = "Ninja", *extra: str, ok: bool = True):
    need("cmake", GENERATOR_TOOL[generator])
    return run(["cmake", "-S", src, "-B", build, "-G", generator, f"-DPython3_EXECUTABLE={PYTHON}", *extra], ok=ok)


def build(build_dir: Path, config: str | None = None) -> str:
    cmd = ["cmake", "--build", build_dir] + (["--config", config] if config else [])
    p = run(cmd)
    return p.stdout + p.stderr


_MODEL: list[Path] = []


def example_model() -> Path:
    """digits once this utvm-build supports all its operators, hello_world_int8 until then."""
    if not _MODEL:
        forced = os.environ.get("UTVM_CMAKE_TEST_MODEL")
        if forced:
            _MODEL.append(Path(forced).resolve())
        else:
            try:
                compile_bytes(DIGITS.read_bytes(), "digits")
                _MODEL.append(DIGITS)
            except UtvmError:
                _MODEL.append(DIGITS)
    return _MODEL[0]


def sample_lines(text: str) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines() if re.match(r"^\s*(\d+: )?sample \d", ln)]
    lines = [re.sub(r"^\d+: ", "", ln) for ln in lines]  # ctest -V prefix
    assert len(lines) == 4, text
    if example_model() == DIGITS:
        for ln in lines:
            m = re.match(r"sample \d: label (\d) \(expected (\d)\) scores( -?\d+){10}$", ln)
            assert m and m.group(1) == m.group(2), ln
    return lines


@pytest.fixture(scope="module")
def host_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    b = tmp_path_factory.mktemp("host_ref")
    configure(REPO / "examples" / "cmake_host", b, "Ninja", f"-DUTVM_EXAMPLE_MODEL={example_model()}")
    build(b)
    return sample_lines(run([b / "digits_host"]).stdout)


# ---- the examples --------------------------------------------------------------------------

@pytest.mark.parametrize("generator", ["Ninja", "Unix Makefiles", "Ninja Multi-Config"])
def test_host_example(tmp_path: Path, generator: str, host_output: list[str]) -> None:
    configure(REPO / "examples" / "cmake_host", tmp_path, generator, f"-DUTVM_EXAMPLE_MODEL={example_model()}")
    config = "Release" if "Multi" in generator else None
    build(tmp_path, config)
    ctest = run(["ctest", "--test-dir", tmp_path, "-V"] + (["-C", config] if config else []))
    assert "100% tests passed" in ctest.stdout
    assert sample_lines(ctest.stdout) == host_output
    if example_model() == DIGITS:
        assert re.search(r"sample_1\.npy: label 3 scores", ctest.stdout)


@pytest.mark.parametrize("generator,cpu", [("Ninja", "cortex-m4"), ("Unix Makefiles", "cortex-m4"),
                                           ("Ninja", "cortex-m55")])
def test_cortex_m_example(tmp_path: Path, generator: str, cpu: str, host_output: list[str]) -> None:
    need("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
    configure(REPO / "examples" / "cortex_m", tmp_path, generator, f"--toolchain={TOOLCHAIN}",
              f"-DCORTEX_M_CPU={cpu}", f"-DUTVM_EXAMPLE_MODEL={example_model()}")
    build(tmp_path)
    elf = tmp_path / "digits_firmware.elf"
    qemu = run(["qemu-system-arm", "-M", BOARDS[cpu], "-nographic", "-semihosting", "-kernel", elf], timeout=60)
    # The same numbers as the host build (QEMU writes semihosting output to stderr).
    assert sample_lines(qemu.stdout + qemu.stderr) == host_output
    # The "c" interface pulls nothing from the CRT library into the firmware.
    symbols = run(["arm-none-eabi-nm", elf]).stdout
    assert "tvmgen_digits_run" in symbols
    assert not re.search(r"TVMFunc|TVMMod|TVMBackend|Registry|TVMInitializeRuntime", symbols)
    # The linker script placed the model's sections.
    headers = run(["arm-none-eabi-objdump", "-h", elf]).stdout
    assert re.search(r"\.rodata\.tvm\s", headers) and re.search(r"\.bss\.noinit\.tvm\s", headers)


# ---- the package on small projects -----------------------------------------------------------

MAIN_ONE = """\
#include <stdint.h>
#include "tvmgen_net.h"
static int32_t in[64], out[64];
int main(void) {
  struct tvmgen_net_inputs i = {in};
  struct tvmgen_net_outputs o = {out};
  return (int)tvmgen_net_run(&i, &o);
}
"""


def project(root: Path, body: str, main: str = MAIN_ONE, model: Path | None = None) -> Path:
    """A minimal CMake project using utvm_build the documented way; returns its source dir."""
    src = root / "src"
    src.mkdir(parents=True)
    (src / "main.c").write_text(main)
    if model is not None:
        shutil.copyfile(model, src / "model.tflite")
    (src / "CMakeLists.txt").write_text(f"""\
cmake_minimum_required(VERSION 3.20)
project(t LANGUAGES C)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
execute_process(COMMAND "${{Python3_EXECUTABLE}}" -m utvm_build --cmake-dir
                OUTPUT_VARIABLE utvm_build_DIR OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
find_package(utvm_build CONFIG REQUIRED)
{body}
""")
    return src


def tree(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def mtimes(d: Path) -> dict[str, int]:
    return {p.relative_to(d).as_posix(): p.stat().st_mtime_ns for p in d.rglob("*") if p.is_file()}


def test_regeneration(tmp_path: Path) -> None:
    src = project(tmp_path, """\
set(ALIGN 16 CACHE STRING "")
utvm_add_model(net MODEL model.tflite NAME net WORKSPACE_ALIGN ${ALIGN} OPTIMIZE -O1)
add_executable(app main.c)
target_link_libraries(app PRIVATE utvm::net)
get_target_property(ws net UTVM_WORKSPACE_BYTES)
get_target_property(dir net UTVM_GENERATED_DIR)
message(STATUS "workspace=${ws} dir=${dir}")
""", model=DIGITS)
    b = tmp_path / "b"
    out = configure(src, b).stdout
    gen = b / "utvm" / "net"
    assert "utvm_build: generated net" in out and f"workspace=640 dir={gen}" in out
    first = build(b)
    assert "tvmgen_net_ops.c" in first
    assert re.search(r"FLAGS = .*-O1", (b / "build.ninja").read_text())  # OPTIMIZE, PRIVATE to net
    assert "ninja: no work to do" in build(b)
    before = mtimes(gen)

    # No-op reconfigure: no code generation, no file rewritten, nothing recompiled.
    out = run(["cmake", b]).stdout
    assert "utvm_build: generated" not in out
    assert "ninja: no work to do" in build(b)
    assert mtimes(gen) == before

    # Touching the model reruns CMake; same bytes: no code generation, nothing recompiled.
    time.sleep(1.1)
    os.utime(src / "model.tflite")
    out = build(b)
    assert "Re-running CMake" in out and "utvm_build: generated" not in out and "Building C" not in out
    assert mtimes(gen) == before

    # A new model version: regenerated, rebuilt; files it no longer needs are gone.
    time.sleep(1.1)
    shutil.copyfile(DIGITS_FLOAT, src / "model.tflite")
    out = build(b)
    assert "utvm_build: generated net" in out and "workspace=2560" in out
    assert "Building C object" in out and "Linking C executable app" in out
    assert (gen / "src" / "kernels" / "fully_connected_f32.h").is_file()
    assert not (gen / "src" / "kernels" / "conv2d_s8.h").exists()
    assert "ninja: no work to do" in build(b)

    # Changing an option regenerates too.
    out = run(["cmake", b, "-DALIGN=64"]).stdout
    assert "utvm_build: generated net" in out
    assert "WORKSPACE_ATTR(64)" in (gen / "src" / "tvmgen_net.c").read_text()
    build(b)
    run([b / "app"])


def test_two_models_one_crt(tmp_path: Path) -> None:
    # Model a: the typed "c" interface. Models b and c: packed, both in the build's one system
    # library, called through the one CRT; their outputs equal the typed interface's. Model b is profiled.
    main = """\
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include "crt_config.h"
#include "tvmgen_a.h"
#include "tvmgen_b.h"
#include "tvmgen_c.h"
static int8_t x[64], ya[10], yb[10];
static float xf[64], yc_typed[10], yc[10];
static int64_t in_shape[4] = {1, 8, 8, 1}, out_shape[2] = {1, 10};
static void set(DLTensor* t, void* data, uint8_t code, uint8_t bits, int64_t* shape, int ndim) {
  t->data = data; t->device.device_type = kDLCPU; t->device.device_id = 0; t->ndim = ndim;
  t->dtype.code = code; t->dtype.bits = bits; t->dtype.lanes = 1; t->shape = shape;
  t->strides = NULL; t->byte_offset = 0;
}
static int call(TVMModuleHandle mod, const char* name, void* in, void* out, uint8_t code, uint8_t bits) {
  TVMFunctionHandle f = NULL;
  TVMValue rv, args[2];
  int rc = 0, codes[2] = {kTVMDLTensorHandle, kTVMDLTensorHandle};
  DLTensor t[2];
  set(&t[0], in, code, bits, in_shape, 4); set(&t[1], out, code, bits, out_shape, 2);
  args[0].v_handle = &t[0]; args[1].v_handle = &t[1];
  if (TVMModGetFunction(mod, name, 0, &f) != 0 || f == NULL) return 1;
  return TVMFuncCall(f, args, codes, 2, &rv, &rc);
}
int main(void) {
  struct tvmgen_a_inputs ia = {x};
  struct tvmgen_a_outputs oa = {ya};
  struct tvmgen_c_inputs ic = {xf};
  struct tvmgen_c_outputs oc = {yc_typed};
  TVMFunctionHandle syslib = NULL, none = NULL;
  TVMValue rv;
  int rc = 0, k;
  for (k = 0; k < 64; ++k) {
    x[k] = (int8_t)(3 * k - 90);
    xf[k] = (float)k / 64.0f;
  }
  if (tvmgen_a_run(&ia, &oa) != 0 || tvmgen_c_run(&ic, &oc) != 0) return 1;
  if (TVMInitializeRuntime() != 0 || TVMFuncGetGlobal("runtime.SystemLib", &syslib) != 0 ||
      TVMFuncCall(syslib, NULL, NULL, 0, &rv, &rc) != 0 ||
      call(rv.v_handle, "tvmgen_b_run", x, yb, (uint8_t)kDLInt, 8) != 0 ||
      call(rv.v_handle, "tvmgen_c_run", xf, yc, (uint8_t)kDLFloat, 32) != 0) {
    printf("packed call failed: %s\\n", TVMGetLastError());
    return 2;
  }
  /* The "c" model is not in the system library. */
  if (TVMModGetFunction(rv.v_handle, "tvmgen_a_run", 0, &none) != 0 || none != NULL) return 3;
  /* Model b is profiled (PROFILE): its table, read through the system library, counts one call of
     each of its 7 operators. */
  {
    static double table[8][2];
    static int64_t table_shape[2] = {8, 2};
    TVMFunctionHandle read = NULL;
    TVMValue arg;
    DLTensor t;
    int code = kTVMDLTensorHandle;
    set(&t, table, (uint8_t)kDLFloat, 64, table_shape, 2);
    arg.v_handle = &t;
    if (TVMModGetFunction(rv.v_handle, "tvmgen_b_profile_read", 0, &read) != 0 || read == NULL ||
        TVMFuncCall(read, &arg, &code, 1, &rv, &rc) != 0) return 5;
    for (k = 0; k < 7; ++k) {
      if (table[k][1] != 1.0 || table[k][0] < 0.0) return 6;
    }
    if (table[7][0] != 0.0) return 7;
  }
  printf("a=%d b=%d c=%g args=%d\\n", ya[0], yb[0], (double)yc[0], TVM_CRT_MAX_ARGS);
  return memcmp(ya, yb, sizeof ya) == 0 && memcmp(yc, yc_typed, sizeof yc) == 0 ? 0 : 4;
}
"""
    src = project(tmp_path, f"""\
utvm_add_crt()
utvm_add_model(model_a MODEL "{DIGITS}" NAME a)
utvm_add_model(model_b MODEL "{DIGITS}" NAME b INTERFACE packed CONSTANTS_SECTION "" WORKSPACE_ALIGN 64 PROFILE)
utvm_add_model(model_c MODEL "{DIGITS_FLOAT}" NAME c INTERFACE packed)
add_executable(app main.c)
target_link_libraries(app PRIVATE utvm::a utvm::b utvm::c utvm::crt_host)
""", main=main)
    b = tmp_path / "b"
    configure(src, b)
    out = build(b, None)
    assert out.count("Linking C static library libutvm_crt.a") == 1
    r = run([b / "app"])
    assert re.match(r"a=-?\d+ b=-?\d+ c=[-+.e\d]+ args=\d+", r.stdout), r.stdout
    config = (b / "utvm_crt_config" / "crt_config.h").read_text()
    assert "models: a, b, c" in config and "#define TVM_CRT_MAX_ARGS" in config
    assert "section" not in (b / "utvm" / "model_b" / "src" / "tvmgen_b_constants.c").read_text()
    syslib = b / "utvm_system_lib" / "utvm_system_lib.c"
    registry = '"\\x03"\n    "tvmgen_b_run\\0"\n    "tvmgen_b_profile_read\\0"\n    "tvmgen_c_run\\0",'
    assert registry in syslib.read_text()
    assert (b / "utvm" / "model_b" / "include" / "tvmgen_b_profile.h").is_file()
    assert not (b / "utvm" / "model_a" / "include" / "tvmgen_a_profile.h").exists()
    # A no-op reconfigure rewrites nothing (the system library's stamp: no Python start) and
    # rebuilds nothing.
    before = syslib.stat().st_mtime_ns
    run(["cmake", b])
    assert syslib.stat().st_mtime_ns == before
    assert "ninja: no work to do" in build(b)


def test_broken_model_fails_configure(tmp_path: Path) -> None:
    src = project(tmp_path, 'utvm_add_model(net MODEL model.tflite NAME net)\nadd_executable(app main.c)\n'
                  'target_link_libraries(app PRIVATE net)\n', model=DIGITS)
    b = tmp_path / "b"
    configure(src, b)
    assert (b / "utvm" / "net" / "metadata.json").is_file()
    (src / "model.tflite").write_bytes(b"this is not a flatbuffer at all" * 4)
    p = run(["cmake", b], ok=False)
    assert p.returncode != 0
    assert "utvm_add_model(net): code generation failed for" in p.stderr
    assert "utvm-build: error:" in p.stderr  # the compiler's own message
    # The previous output stays whole (the generator replaces it only on success); the failed
    # configure means no build compiles it until the model is fixed.
    assert (b / "utvm" / "net" / "metadata.json").is_file()
    assert run(["cmake", b], ok=False).returncode != 0   # the stamp went: the generator runs again


def test_output_identical_across_build_dirs(tmp_path: Path) -> None:
    src = project(tmp_path, f'utvm_add_model(net MODEL "{example_model()}" NAME net)\n')
    trees = []
    for name in ("b1", "deeper/b2"):
        configure(src, tmp_path / name)
        trees.append(tree(tmp_path / name / "utvm" / "net"))
    assert trees[0] == trees[1] and "metadata.json" in trees[0]


def test_wrong_python_fails_clearly(tmp_path: Path) -> None:
    fake = tmp_path / "python-without-utvm"
    fake.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'utvm_build'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    old = tmp_path / "python-old-utvm"
    old.write_text("#!/bin/sh\nprintf '0.0.1\\n/elsewhere/utvm_build\\n/elsewhere/crt\\n'\n")
    old.chmod(0o755)
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(f"""\
cmake_minimum_required(VERSION 3.20)
project(t LANGUAGES NONE)
set(utvm_build_DIR "{CMAKE_DIR}")
find_package(utvm_build CONFIG REQUIRED)
""")
    p = configure(src, tmp_path / "b1", "Ninja", f"-DUTVM_BUILD_PYTHON={fake}", ok=False)
    assert p.returncode != 0 and "cannot import utvm_build" in p.stderr and "UTVM_BUILD_PYTHON" in p.stderr
    p = configure(src, tmp_path / "b2", "Ninja", f"-DUTVM_BUILD_PYTHON={old}", ok=False)
    assert p.returncode != 0 and "version mismatch" in p.stderr and "0.0.1" in p.stderr


# ---- the generator owns only its output directory (issue 12, docs/output.md) -----------------

def test_output_dir_never_destroys_user_files(tmp_path: Path) -> None:
    """OUTPUT_DIR pointing at the source directory, at the build directory itself or shared by two
    models: configure fails with one clear message and no file of the user's or CMake's changes."""
    cases = {
        "source dir": ('utvm_add_model(net MODEL model.tflite NAME net OUTPUT_DIR ${CMAKE_CURRENT_SOURCE_DIR})\n',
                       "did not write"),
        "build dir": ("utvm_add_model(net MODEL model.tflite NAME net OUTPUT_DIR .)\n", "did not write"),
        "shared": ("utvm_add_model(a MODEL model.tflite NAME a OUTPUT_DIR gen)\n"
                   "utvm_add_model(b MODEL model.tflite NAME b OUTPUT_DIR gen)\n",
                   "is already the generated directory of utvm_add_model(a)"),
    }
    for k, (body, needle) in enumerate(cases.values()):
        for model in (DIGITS, None):
            root = tmp_path / f"{k}{'v' if model else 'c'}"
            src = project(root, body, model=DIGITS)
            if model is None:   # a corrupt model must not delete anything either
                (src / "model.tflite").write_bytes(b"not a model" * 10)
            b = root / "b"
            before = tree(src)
            p = configure(src, b, ok=False)
            message = " ".join(p.stderr.split())   # CMake wraps long messages
            assert p.returncode != 0 and (needle if model else "code generation failed") in message, message
            assert tree(src) == before
            assert (b / "CMakeFiles").is_dir() and (b / "CMakeCache.txt").is_file()
            assert not [n for n in os.listdir(root) if n.startswith(".")]   # no staging leftovers


# ---- the CMake package from a source tree: add_subdirectory and FetchContent (issue 17) --------

def _python_with_numpy_only() -> str:
    """A Python that has NumPy but not utvm_build (the base interpreter of the test venv, where it
    has NumPy), so that the generator demonstrably runs from the source tree; else this one."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if base.exists():
        probe = subprocess.run([base, "-c", "import numpy"], capture_output=True, cwd="/")
        plain = subprocess.run([base, "-c", "import utvm_build"], capture_output=True, cwd="/")
        if probe.returncode == 0 and plain.returncode != 0:
            return str(base)
    return PYTHON


def _source_copy(dst: Path) -> Path:
    """This source tree as a firmware repository would vendor it (the files git knows of)."""
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    for name in filter(None, names):
        if (REPO / name).is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dst / name)
    return dst


@pytest.mark.parametrize("how", ["add_subdirectory", "FetchContent SOURCE_DIR", "FetchContent GIT_REPOSITORY"])
def test_consume_from_source_tree(tmp_path: Path, how: str) -> None:
    need("cmake", "ninja", "gcc", "git")
    tree_dir = _source_copy(tmp_path / "vendor" / "utvm-build")
    if how == "add_subdirectory":
        use = f'add_subdirectory("{tree_dir}" utvm_build)'
    elif how == "FetchContent SOURCE_DIR":
        use = f'include(FetchContent)\nFetchContent_Declare(utvm_build SOURCE_DIR "{tree_dir}")\n' \
              "FetchContent_MakeAvailable(utvm_build)"
    else:
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tree_dir)]
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "vendored"]):
            run([*git, *cmd])
        use = f'include(FetchContent)\nFetchContent_Declare(utvm_build GIT_REPOSITORY "file://{tree_dir}" ' \
              "GIT_TAG main)\nFetchContent_MakeAvailable(utvm_build)"
    src = tmp_path / "fw"
    src.mkdir()
    (src / "main.c").write_text(MAIN_ONE)
    shutil.copyfile(DIGITS, src / "model.tflite")
    (src / "CMakeLists.txt").write_text(f"""\
cmake_minimum_required(VERSION 3.20)
project(fw LANGUAGES C)
{use}
utvm_add_model(net MODEL model.tflite NAME net)
add_executable(app main.c)
target_link_libraries(app PRIVATE net)
""")
    python = _python_with_numpy_only()
    b = tmp_path / "b"
    run(["cmake", "-S", src, "-B", b, "-G", "Ninja", f"-DPython3_EXECUTABLE={python}"])
    build(b)
    assert run([b / "app"]).returncode == 0
    meta = (b / "utvm" / "net" / "metadata.json").read_text()
    assert '"name": "net"' in meta
    # The generated code is the same as the installed package's.
    assert tree(b / "utvm" / "net") == tree(_generated_by_installed(tmp_path / "ref"))


def _generated_by_installed(out: Path) -> Path:
    out.mkdir()
    shutil.copyfile(DIGITS, out / "model.tflite")
    run([PYTHON, "-m", "utvm_build", "compile", out / "model.tflite", "-o", out / "gen", "--name", "net",
         "--incremental"], cwd=out)
    return out / "gen"


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    """A bad value of an utvm_add_model option: a configure error naming it and what is accepted."""
    cases = {"INTERFACE fast": "INTERFACE 'fast' is not one of: c, packed",
             "IO heap": "IO 'heap' is not one of: caller, workspace",
             "STATE heap": "STATE 'heap' is not one of: static, user",
             "WORKSPACE_ALIGN 3": "WORKSPACE_ALIGN '3' is not a power of two from 1 to 4096",
             "CONSTANTS_SECTION \"a b\"": "CONSTANTS_SECTION 'a b' is not a section name",
             "NAME Net": "NAME 'Net' is not a lowercase C identifier",
             "OPTIMISE -O2": "unknown arguments: OPTIMISE;-O2"}
    for k, (option, needle) in enumerate(cases.items()):
        src = project(tmp_path / f"p{k}", f"utvm_add_model(net MODEL model.tflite {option})\n", model=DIGITS)
        p = configure(src, tmp_path / f"p{k}" / "b", ok=False)
        message = " ".join(p.stderr.split())
        assert p.returncode != 0 and f"utvm_add_model(net): {needle}" in message, message
        assert "usage:" not in p.stderr


# ---- CPU flags kept on an interface target (Zephyr style), not in CMAKE_C_FLAGS (issue 17) -----

BARE_TOOLCHAIN = """\
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
find_program(CMAKE_C_COMPILER arm-none-eabi-gcc REQUIRED)
set(CMAKE_C_FLAGS_INIT "-ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles --specs=nano.specs -Wl,--gc-sections")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
"""


@pytest.mark.parametrize("flags_from", [True, False], ids=["FLAGS_FROM", "without"])
def test_flags_from_interface_target(tmp_path: Path, flags_from: bool) -> None:
    """The CPU and float ABI live only on `cpu_flags` (an INTERFACE library): with FLAGS_FROM the
    model and the runtime are compiled with them and the firmware runs under QEMU; without, the
    link fails on the mixed float ABIs (the failure FLAGS_FROM exists for)."""
    need("arm-none-eabi-gcc", "qemu-system-arm", "ninja")
    ex = REPO / "examples" / "cortex_m"
    src = tmp_path / "fw"
    src.mkdir()
    for f in ("main.c", "startup.c", "semihosting.c", "semihosting.h", "mps2-an386.ld", "cortex_m_sections.ld"):
        shutil.copy2(ex / f, src / f)
    (src / "toolchain.cmake").write_text(BARE_TOOLCHAIN)
    (src / "CMakeLists.txt").write_text(f"""\
cmake_minimum_required(VERSION 3.20)
project(fw LANGUAGES C)
add_library(cpu_flags INTERFACE)
set(cpu -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16)
target_compile_options(cpu_flags INTERFACE ${{cpu}})
target_link_options(cpu_flags INTERFACE ${{cpu}})
set(utvm_build_DIR "{CMAKE_DIR}")
find_package(utvm_build CONFIG REQUIRED)
utvm_add_model(digits MODEL "{DIGITS}" NAME digits {"FLAGS_FROM cpu_flags" if flags_from else ""})
add_executable(fw main.c startup.c semihosting.c)
set_target_properties(fw PROPERTIES SUFFIX ".elf")
target_include_directories(fw PRIVATE "{DIGITS.parent}")
target_link_libraries(fw PRIVATE digits cpu_flags)
target_link_options(fw PRIVATE "-L${{CMAKE_CURRENT_SOURCE_DIR}}" "-T${{CMAKE_CURRENT_SOURCE_DIR}}/mps2-an386.ld")
""")
    b = tmp_path / "b"
    p = run(["cmake", "-S", src, "-B", b, "-G", "Ninja", "--toolchain", src / "toolchain.cmake",
             f"-DPython3_EXECUTABLE={PYTHON}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"])
    # The kernel target follows the -mcpu= it finds (here only on the FLAGS_FROM target).
    target = json.loads((b / "utvm" / "digits" / "metadata.json").read_text())["target"]
    if flags_from:
        assert target == "cortex-m4" and "TARGET cortex-m4 (from -mcpu=cortex-m4 in CMAKE_C_FLAGS, cpu_flags" \
            in p.stdout, p.stdout
    else:
        assert target == "generic"
    if not flags_from:
        p = run(["cmake", "--build", b], ok=False)
        assert p.returncode != 0 and "VFP register arguments" in p.stdout + p.stderr
        return
    build(b)
    run(["cmake", "--build", b, "--target", "utvm_crt"])   # the runtime gets the flags too
    commands = json.loads((b / "compile_commands.json").read_text())
    crt = [c for c in commands if "/crt/src/" in c["file"]]
    assert crt and all("-mcpu=cortex-m4" in c["command"] for c in crt)
    qemu = run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel", b / "fw.elf"],
               timeout=60)
    lines = [ln for ln in (qemu.stdout + qemu.stderr).splitlines() if ln.startswith("sample ")]
    assert len(lines) == 4 and all(re.match(r"sample \d: label (\d) \(expected \1\)", ln) for ln in lines), qemu.stdout


def test_frame_pointer_kept_defines_utvm_frame_pointer(tmp_path: Path) -> None:
    """A model compiled with the frame pointer kept (the last of -fno-omit-frame-pointer /
    -fomit-frame-pointer in CMAKE_C_FLAGS, FLAGS_FROM and OPTIMIZE) gets UTVM_FRAME_POINTER, so that
    the Helium block that needs r7 takes its C form; the other model does not."""
    src = project(tmp_path, "add_library(fp INTERFACE)\ntarget_compile_options(fp INTERFACE -fno-omit-frame-pointer)\n"
                            "utvm_add_model(a MODEL model.tflite NAME a FLAGS_FROM fp)\n"
                            "utvm_add_model(b MODEL model.tflite NAME b FLAGS_FROM fp OPTIMIZE -fomit-frame-pointer)\n",
                  model=DIGITS)
    b = tmp_path / "b"
    configure(src, b, "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
    commands = json.loads((b / "compile_commands.json").read_text())
    by_model = {m: [c["command"] for c in commands if f"tvmgen_{m}" in c["file"]] for m in "ab"}
    assert by_model["a"] and by_model["b"], commands
    assert all("-DUTVM_FRAME_POINTER" in c for c in by_model["a"]), by_model["a"]
    assert not any("UTVM_FRAME_POINTER" in c for c in by_model["b"]), by_model["b"]


def test_retrained_model_rebuilds_no_user_source(tmp_path: Path) -> None:
    """Other weights, same interface: Ninja recompiles the model's sources, never main.c (the public
    header does not change); a touched identical model recompiles nothing (issue 17)."""
    from test_make_example import retrain

    src = project(tmp_path, "utvm_add_model(net MODEL model.tflite NAME net)\nadd_executable(app main.c)\n"
                            "target_link_libraries(app PRIVATE net)\n", model=DIGITS)
    b = tmp_path / "b"
    configure(src, b, "Ninja")
    build(b)
    header = (b / "utvm" / "net" / "include" / "tvmgen_net.h").stat().st_mtime_ns
    retrain(src / "model.tflite")
    out = build(b)
    compiled = re.findall(r"Building C object (\S+)", out)
    assert compiled and not [c for c in compiled if "main.c" in c], out
    assert any("constants.c" in c for c in compiled), out
    assert (b / "utvm" / "net" / "include" / "tvmgen_net.h").stat().st_mtime_ns == header
    (src / "model.tflite").touch()
    assert "Building C object" not in build(b)
