"""The platform integrations of docs/platforms/ that can run here (issue 23): the Arduino library
export, built as the Arduino builder does and run against the host build; the Zephyr module with
an emulated `zephyr_interface` target, cross compiled. What needs a vendor SDK (Zephyr itself,
ESP-IDF, STM32CubeMX, PlatformIO) is listed as untested on each page."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from system_tools import need

from utvm_build import CompileOptions
from utvm_build.host import STRICT_CFLAGS, run_on_host

REPO = Path(__file__).resolve().parents[1]
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
# A bare cross toolchain, as Zephyr's: no CPU flags in CMAKE_C_FLAGS (they are on zephyr_interface).
BARE_TOOLCHAIN = """set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
"""

SKETCH = r"""
// What a sketch does, minus setup()/loop(): C++ that includes the library's header.
#include <cstdio>
#include <tvmgen_digits.h>

int main(int argc, char** argv) {
  static int8_t x[TVMGEN_DIGITS_INPUT_0_SIZE];
  static int8_t y[TVMGEN_DIGITS_OUTPUT_0_SIZE];
  FILE* f = std::fopen(argv[argc - 1], "rb");
  if (f == nullptr || std::fread(x, 1, sizeof x, f) != sizeof x) return 3;
  std::fclose(f);
  struct tvmgen_digits_inputs in = {x};
  struct tvmgen_digits_outputs out = {y};
  if (tvmgen_digits_run(&in, &out) != 0) return 4;
  for (unsigned k = 0; k < sizeof y; ++k) std::printf("%d\n", y[k]);
  return 0;
}
"""


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "utvm_build", *args], capture_output=True, text=True)


def test_arduino_library_builds_like_the_arduino_builder_and_matches(tmp_path: Path) -> None:
    need("gcc", "arm-none-eabi-gcc")
    lib = tmp_path / "libraries" / "digits"
    p = _cli("export-arduino", str(DIGITS), "-o", str(lib), "--name", "digits")
    assert p.returncode == 0, p.stderr
    props = dict(ln.split("=", 1) for ln in (lib / "library.properties").read_text().splitlines())
    for key in ("name", "version", "author", "maintainer", "sentence", "paragraph", "category", "url",
                "architectures"):                       # the fields the 1.5 library format requires
        assert props.get(key), key
    assert props["includes"] == "tvmgen_digits.h"
    src = lib / "src"
    assert (src / "tvmgen_digits.h").is_file() and not (lib / "include").exists()
    assert not list(src.rglob("*.json")) and (lib / "extras" / "metadata.json").is_file()
    sources = sorted(src.rglob("*.c"))
    assert sources
    # No section attributes: the boards' linker scripts do not know ours (compile's default has them).
    texts = [f.read_text() for f in src.rglob("*") if f.is_file()]
    assert not any(".rodata.tvm" in t or ".bss.noinit.tvm" in t for t in texts)
    # The builder: every .c under src/ compiled with only src/ on the include path, the sketch as C++.
    objs = []
    for c in sources:
        obj = tmp_path / f"{c.stem}.o"
        r = subprocess.run(["gcc", *STRICT_CFLAGS, "-O1", f"-I{src}", "-c", str(c), "-o", str(obj)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        objs.append(str(obj))
        arm = subprocess.run(["arm-none-eabi-gcc", *STRICT_CFLAGS, "-Os", "-mthumb", "-mcpu=cortex-m4",
                              f"-I{src}", "-c", str(c), "-o", str(tmp_path / f"{c.stem}.arm.o")],
                             capture_output=True, text=True)
        assert arm.returncode == 0, arm.stderr
    sketch = tmp_path / "sketch.cpp"
    sketch.write_text(SKETCH)
    exe = tmp_path / "sketch"
    r = subprocess.run(["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror", f"-I{src}", str(sketch), *objs,
                        "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    x = np.load(DIGITS.parent / "sample_1.npy").astype(np.int8)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    run = subprocess.run([str(exe), str(tmp_path / "x.bin")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    ours = np.array([int(v) for v in run.stdout.split()], np.int8)
    ref = run_on_host(DIGITS, [x], CompileOptions(name="digits"))[0].reshape(-1)
    assert np.array_equal(ours, ref), (ours, ref)


def test_arduino_export_refuses_what_needs_the_runtime_and_foreign_directories(tmp_path: Path) -> None:
    p = _cli("export-arduino", str(DIGITS), "-o", str(tmp_path / "lib"), "--interface", "packed")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "C interface only" in p.stderr
    assert not (tmp_path / "lib").exists()
    mine = tmp_path / "sketchbook"
    mine.mkdir()
    (mine / "sketch.ino").write_text("void setup() {}\n")
    p = _cli("export-arduino", str(DIGITS), "-o", str(mine))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert sorted(x.name for x in mine.iterdir()) == ["sketch.ino"]
    # Exporting again over its own earlier export is fine.
    assert _cli("export-arduino", str(DIGITS), "-o", str(tmp_path / "lib")).returncode == 0
    assert _cli("export-arduino", str(DIGITS), "-o", str(tmp_path / "lib")).returncode == 0


ZEPHYR_APP = """cmake_minimum_required(VERSION 3.20)
project(zephyr_like C)
# What Zephyr provides by the time a module's CMakeLists.txt runs: the board's flags on the
# zephyr_interface target (never in CMAKE_C_FLAGS), the module directory, the Kconfig symbol.
add_library(zephyr_interface INTERFACE)
target_compile_options(zephyr_interface INTERFACE -mthumb -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16)
set(ZEPHYR_CURRENT_MODULE_DIR "{repo}")
set(CONFIG_UTVM_BUILD y)
add_subdirectory("{repo}/zephyr" modules/utvm_build)
# The application's part, as docs/platforms/zephyr.md prints it:
utvm_add_model(digits MODEL "{model}" NAME digits FLAGS_FROM zephyr_interface)
add_library(app STATIC main.c)
target_link_libraries(app PRIVATE zephyr_interface digits)
"""


def test_zephyr_module_with_zephyr_interface_flags(tmp_path: Path) -> None:
    import yaml

    need("cmake", "ninja", "arm-none-eabi-gcc")
    module = yaml.safe_load((REPO / "zephyr" / "module.yml").read_text())
    assert module["build"]["cmake"] == "zephyr" and (REPO / module["build"]["kconfig"]).is_file()
    app = tmp_path / "app"
    app.mkdir()
    (app / "CMakeLists.txt").write_text(ZEPHYR_APP.format(repo=REPO.as_posix(), model=DIGITS.as_posix()))
    (app / "main.c").write_text('#include "tvmgen_digits.h"\nstatic int8_t x[64], y[10];\n'
                                "int32_t app_run(void) {\n  struct tvmgen_digits_inputs in = {x};\n"
                                "  struct tvmgen_digits_outputs out = {y};\n"
                                "  return tvmgen_digits_run(&in, &out);\n}\n")
    b = tmp_path / "build"
    (tmp_path / "bare.cmake").write_text(BARE_TOOLCHAIN)
    cfg = subprocess.run(["cmake", "-S", app, "-B", b, "-G", "Ninja", f"--toolchain={tmp_path / 'bare.cmake'}",
                          f"-DPython3_EXECUTABLE={sys.executable}"], capture_output=True, text=True)
    assert cfg.returncode == 0, cfg.stdout + cfg.stderr
    bld = subprocess.run(["cmake", "--build", b, "-v"], capture_output=True, text=True)
    assert bld.returncode == 0, bld.stdout + bld.stderr
    # Every compile of the model had the board's flags, which only zephyr_interface carries.
    model_compiles = [ln for ln in bld.stdout.splitlines() if "tvmgen_digits" in ln and " -c " in ln]
    assert model_compiles and all("-mfloat-abi=hard" in ln and "-mcpu=cortex-m4" in ln for ln in model_compiles)
    attrs = subprocess.run(["arm-none-eabi-readelf", "-A", next(b.rglob("*digits*.a"))], capture_output=True,
                           text=True).stdout
    assert "Tag_ABI_VFP_args: VFP registers" in attrs, attrs


RISCV_MAIN = r"""
#include <stdio.h>
#include <string.h>
#include "tvmgen_m.h"

static const unsigned char input[] = {%(input)s};
static unsigned char x[TVMGEN_M_INPUT_0_SIZE];
static unsigned char y[TVMGEN_M_OUTPUT_0_SIZE];

int main(void) {
  struct tvmgen_m_inputs in = {x};
  struct tvmgen_m_outputs out = {y};
  unsigned k;
  memcpy(x, input, sizeof x);
  if (tvmgen_m_run(&in, &out) != 0) return 4;
  for (k = 0; k < sizeof y; ++k) printf("%%02x", y[k]);   /* the output bytes, as hex */
  printf("\n");
  return 0;
}
"""
RISCV_FLAGS = ["-march=rv32imc", "-mabi=ilp32", "-Os", "--specs=picolibc.specs", "--oslib=semihost",
               "--crt0=semihost", "-Wl,--defsym=__flash=0x80000000", "-Wl,--defsym=__flash_size=0x400000",
               "-Wl,--defsym=__ram=0x80400000", "-Wl,--defsym=__ram_size=0x400000"]


def test_riscv_rv32imc_under_qemu_matches_the_host(tmp_path: Path) -> None:
    """docs/platforms/riscv.md: --target generic built with riscv64-unknown-elf-gcc for rv32imc
    (no FPU: the float model goes through the soft-float routines) and picolibc, run on QEMU's
    virt machine with semihosting: the int8 model's bytes equal the host build's, the float
    model's values too (same IEEE single operations; libm's functions within the float tolerance)."""
    need("riscv64-unknown-elf-gcc", "qemu-system-riscv32")
    from utvm_build.compiler import compile_model

    for model, dtype in (("digits_int8", np.int8), ("digits_float", np.float32)):
        path = DIGITS.parent / f"{model}.tflite"
        gen = tmp_path / model
        compile_model(path, gen, CompileOptions(name="m", target="generic"))
        x = np.load(DIGITS.parent / "sample_2.npy")      # int8, scale 1/255, zero point -128
        x = x if dtype == np.int8 else ((x.astype(np.float32) + 128) / 255).astype(np.float32)
        main = tmp_path / f"{model}_main.c"
        main.write_text(RISCV_MAIN % {"input": ", ".join(str(b) for b in x.tobytes())})
        elf = tmp_path / f"{model}.elf"
        sources = sorted(str(s) for s in (gen / "src").glob("*.c"))
        build = subprocess.run(["riscv64-unknown-elf-gcc", *STRICT_CFLAGS, *RISCV_FLAGS, f"-I{gen / 'include'}",
                                str(main), *sources, "-lm", "-o", str(elf)], capture_output=True, text=True)
        assert build.returncode == 0, build.stderr
        run = subprocess.run(["qemu-system-riscv32", "-M", "virt", "-nographic", "-bios", "none",
                              "-semihosting-config", "enable=on,target=native", "-kernel", str(elf)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = [ln for ln in (run.stdout + run.stderr).split() if re.fullmatch(r"[0-9a-f]+", ln)]  # QEMU: stderr
        assert len(lines) == 1, run.stdout + run.stderr
        ours = np.frombuffer(bytes.fromhex(lines[0]), dtype=dtype)
        ref = run_on_host(path, [x], CompileOptions(name="m"))[0].reshape(-1)
        if dtype == np.int8:
            assert np.array_equal(ours, ref), (ours, ref)
        else:
            np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)
