"""The platform integrations of docs/platforms/ that can run here (issue 23): the Arduino library
export, built as the Arduino builder does and run against the host build; the Zephyr module with
an emulated `zephyr_interface` target, cross compiled. What needs a vendor SDK (Zephyr itself,
ESP-IDF, STM32CubeMX, PlatformIO) is listed as untested on each page."""

from __future__ import annotations

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
