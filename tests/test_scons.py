"""SCons integration: the `utvm` tool (utvm_build/scons/utvm.py) and the two examples (docs/scons.md).

Runs SCons (`python -m SCons`, from the test extras), gcc, arm-none-eabi-gcc and qemu-system-arm in
temporary copies of the examples. Nothing is skipped: a missing tool fails with what to install.

The examples are built with the bundled digits model when this utvm-build supports all its
operators, otherwise with hello_world_int8 (same program, meaningless labels). Set
UTVM_SCONS_TEST_MODEL=/path/to.tflite to force a model.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from system_tools import need

import utvm_build
from utvm_build.compiler import compile_bytes
from utvm_build.errors import UtvmError

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TOOLPATH = REPO / "utvm_build" / "scons"
DIGITS = REPO / "examples" / "models" / "digits" / "digits_int8.tflite"
# Bundled models only: these tests run on a clone without ../shared too.
DIGITS_FLOAT = REPO / "examples" / "models" / "digits" / "digits_float.tflite"


def scons_cmd(python: str = PYTHON) -> list[str]:
    try:
        import SCons  # noqa: F401
    except ImportError:
        pytest.fail("SCons is not installed; pip install scons (it is in the `test` extras)", pytrace=False)
    return [python, "-m", "SCons"]


def run(cmd: list, cwd: Path | None = None, ok: bool = True, timeout: float = 300,
        env: dict | None = None) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if ok and p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def scons(cwd: Path, *args: str, ok: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
    return run([*scons_cmd(), "-Q", *args], cwd=cwd, ok=ok, env=env)


_MODEL: list[Path] = []


def example_model() -> Path:
    """digits once this utvm-build supports all its operators, hello_world_int8 until then."""
    if not _MODEL:
        forced = os.environ.get("UTVM_SCONS_TEST_MODEL")
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
    lines = [ln.strip() for ln in text.splitlines() if re.match(r"^sample \d", ln.strip())]
    assert len(lines) == 4, text
    if example_model() == DIGITS:
        for ln in lines:
            m = re.match(r"sample \d: label (\d) \(expected (\d)\) scores( -?\d+){10}$", ln)
            assert m and m.group(1) == m.group(2), ln
    return lines


def copy_examples(dst: Path) -> Path:
    """The examples tree (the SCons examples reuse C sources of cmake_host/ and cortex_m/)."""
    shutil.copytree(REPO / "examples", dst / "examples",
                    ignore=shutil.ignore_patterns("build", ".sconsign.dblite", "*.npy", "__pycache__"))
    return dst / "examples"


# ---- the examples --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def host_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    need("gcc")
    ex = copy_examples(tmp_path_factory.mktemp("scons_host"))
    out = scons(ex / "scons_host", "-j4", f"MODEL={example_model()}").stdout
    assert "-m utvm_build compile" in out
    return sample_lines(run([ex / "scons_host" / "build" / "digits_host"]).stdout)


def test_host_example(host_output: list[str]) -> None:
    """Builds and runs: the four samples, correct labels once digits is supported."""
    assert len(host_output) == 4


def test_cortex_m_example(tmp_path: Path, host_output: list[str]) -> None:
    """The same firmware cross compiled for Cortex-M4 runs under QEMU and prints the host's lines."""
    need("arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")
    d = copy_examples(tmp_path) / "scons_cortex_m"
    out = scons(d, "-j4", f"MODEL={example_model()}").stdout
    assert "arm-none-eabi-gcc" in out and "-mcpu=cortex-m4" in out
    elf = d / "build" / "digits_firmware.elf"
    qemu = run(["qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting", "-kernel", elf], timeout=60)
    assert sample_lines(qemu.stdout + qemu.stderr) == host_output
    symbols = run(["arm-none-eabi-nm", elf]).stdout
    assert "tvmgen_digits_run" in symbols
    assert not re.search(r"TVMFunc|TVMMod|TVMBackend|Registry|TVMInitializeRuntime", symbols)  # "c": no CRT
    headers = run(["arm-none-eabi-objdump", "-h", elf]).stdout
    assert re.search(r"\.rodata\.tvm\s", headers) and re.search(r"\.bss\.noinit\.tvm\s", headers)
    # `scons run` runs it too.
    p = scons(d, "run", f"MODEL={example_model()}")
    assert sample_lines(p.stdout + p.stderr) == host_output


# ---- dependency tracking on a small project ------------------------------------------------

MAIN = """\
#include <stdint.h>
#include <stdio.h>
#include "tvmgen_net.h"
static int32_t in[64], out[64];
int main(void) {
  struct tvmgen_net_inputs i = {in};
  struct tvmgen_net_outputs o = {out};
  int32_t status = tvmgen_net_run(&i, &o);
  printf("status %d workspace %d\\n", (int)status, (int)TVMGEN_NET_WORKSPACE_SIZE);
  return (int)status;
}
"""

SCONSTRUCT = f"""\
env = Environment(tools=['default', 'utvm'], toolpath=[{str(TOOLPATH)!r}])
net = env.UtvmModel('net', 'model.tflite', name='net', workspace_align=int(ARGUMENTS.get('ALIGN', 16)),
                    optimize=['-O1'])
env.Program('app', ['main.c'], **env.UtvmUsage(net))
"""


def project(root: Path, sconstruct: str = SCONSTRUCT, main: str = MAIN, model: Path = DIGITS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "SConstruct").write_text(sconstruct)
    (root / "main.c").write_text(main)
    shutil.copyfile(model, root / "model.tflite")
    return root


def files(d: Path) -> dict[str, int]:
    """Relative path -> mtime of every file except SCons' own database."""
    return {str(p.relative_to(d)): p.stat().st_mtime_ns for p in sorted(d.rglob("*"))
            if p.is_file() and p.name != ".sconsign.dblite"}


def test_up_to_date_regenerate_relink_and_clean(tmp_path: Path) -> None:
    need("gcc")
    d = project(tmp_path / "p")
    gen = d / "utvm" / "net"
    out = scons(d, "-j8", "--random").stdout
    assert "-m utvm_build compile model.tflite -o utvm/net --incremental --name=net" in out
    assert "-O1" in out
    assert run([d / "app"]).stdout.startswith("status 0")
    # Every generated file is a target (declared from the manifest): SCons knows how to remake
    # one that is missing, even one that nothing includes.
    generated = sorted(files(gen))
    assert "include/crt_config.h" in generated and "src/kernels/conv2d_s8.h" in generated
    (gen / "include" / "crt_config.h").unlink()
    assert scons(d, "-q", "utvm/net/include/crt_config.h", ok=False).returncode == 1
    scons(d, "utvm/net/include/crt_config.h")
    assert sorted(files(gen)) == generated
    # The model, the command line (options, UTVM_PYTHON) and the generator version are dependencies.
    tree = run([*scons_cmd(), "-Q", "--tree=prune", "app"], cwd=d).stdout
    assert "+-model.tflite" in tree and f"+-utvm_build {utvm_build.__version__}" in tree and f"+-{PYTHON}" in tree
    # Unchanged: up to date, nothing runs (not even the manifest: it is cached).
    before = files(d)
    assert scons(d, "-q", ok=False).returncode == 0
    assert scons(d).stdout.strip() == "scons: `.' is up to date."
    assert files(d) == before
    # Another model: regenerated (stale files removed), recompiled and relinked.
    shutil.copyfile(DIGITS_FLOAT, d / "model.tflite")
    assert scons(d, "-q", ok=False).returncode == 1
    out = scons(d, "-j8").stdout
    assert "-m utvm_build compile" in out and re.search(r"^gcc -o app ", out, re.M)
    assert any("f32" in k for k in files(gen)) and not any("s8" in k for k in files(gen))
    assert run([d / "app"]).stdout.startswith("status 0")
    assert scons(d, "-q", ok=False).returncode == 0
    # Another option: regenerated as well.
    out = scons(d, "ALIGN=64").stdout
    assert "--workspace-align=64" in out and re.search(r"^gcc -o app ", out, re.M)
    assert re.search(r"workspace 2560\b", run([d / "app"]).stdout)
    # scons -c removes everything it built, generated code included.
    scons(d, "-c", "ALIGN=64")
    left = set(files(d))
    assert left == {"SConstruct", "main.c", "model.tflite"}, left
    # The folders the build made go too, once empty (never one holding anything: os.rmdir).
    assert not (d / "utvm").exists(), sorted(str(p) for p in (d / "utvm").rglob("*"))


def test_broken_model_fails_clearly(tmp_path: Path) -> None:
    need("gcc")
    d = project(tmp_path / "p")
    scons(d)
    (d / "model.tflite").write_bytes(DIGITS.read_bytes()[:100])
    p = scons(d, ok=False)
    assert p.returncode != 0
    assert "utvm: UtvmModel('net'): code generation failed for" in p.stderr
    assert "utvm-build: error: truncated or corrupted model" in p.stderr
    assert re.search(r"called from .*SConstruct, line 2", p.stderr), p.stderr
    # `scons -c` still removes what the last good build made.
    scons(d, "-c")
    assert set(files(d)) == {"SConstruct", "main.c", "model.tflite"}
    # Missing model, unknown option: one clear line each.
    (d / "model.tflite").unlink()
    assert "model file not found" in scons(d, ok=False).stderr
    (d / "SConstruct").write_text(SCONSTRUCT.replace("optimize=", "optimise="))
    shutil.copyfile(DIGITS, d / "model.tflite")
    assert "unknown option(s) optimise" in scons(d, ok=False).stderr


def _empty_dirs(d: Path) -> list[str]:
    return sorted(str(p.relative_to(d)) for p in d.rglob("*") if p.is_dir() and not any(p.iterdir()))


def test_clean_deletes_only_relative_entries_of_forged_manifests(tmp_path: Path) -> None:
    """Issue 22: a generated directory's manifest or the manifest cache listing absolute paths,
    '..' or SCons' '#' (top-relative) entries: `scons -c` removes only the relative, in-directory
    entries, then the folders the build made once they are empty."""
    need("gcc")
    d = project(tmp_path / "p")
    scons(d)
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    (d / "notes.o").write_text("a user's object\n")
    (d / "notes.txt").write_text("mine\n")
    gen, cache = d / "utvm" / "net", d / "utvm" / "net.build" / "manifest.json"
    manifest = json.loads((gen / ".utvm-build-manifest.json").read_text())
    manifest["files"] += ["#SConstruct", "#notes.txt", str(outside), "../../SConstruct", "src/../../../main.c"]
    (gen / ".utvm-build-manifest.json").write_text(json.dumps(manifest))
    doc = json.loads(cache.read_text())
    doc["manifest"]["files"] += ["#SConstruct", str(outside)]
    doc["manifest"]["metadata"]["sources"] += ["#notes.c"]   # its object would be '#notes.o'
    cache.write_text(json.dumps(doc))
    # The model no longer compiles: `scons -c` works from the earlier manifest and the cache.
    (d / "model.tflite").write_bytes(DIGITS.read_bytes()[:100])
    scons(d, "-c")
    assert set(files(d)) == {"SConstruct", "main.c", "model.tflite", "notes.o", "notes.txt"}
    assert outside.read_text() == "mine\n" and (d / "notes.o").read_text() == "a user's object\n"
    assert not [p for p in gen.rglob("*") if p.is_file() and p.name != ".utvm-build-manifest.json"]
    # A forged cache is not trusted on a build either: regenerated from the model.
    shutil.copyfile(DIGITS, d / "model.tflite")
    scons(d)
    doc = json.loads(cache.read_text())
    doc["manifest"]["files"].append("#SConstruct")
    cache.write_text(json.dumps(doc))
    scons(d)
    assert "#SConstruct" not in cache.read_text()
    scons(d, "-c")
    assert set(files(d)) == {"SConstruct", "main.c", "model.tflite", "notes.o", "notes.txt"}
    assert _empty_dirs(d) == [] and not (d / "utvm").exists()


def test_packed_models_crt_and_merged_config(tmp_path: Path) -> None:
    """Three models, one "c" and two "packed", one CRT built with the environment's compiler and a
    crt_config.h merged from the base (given) and the models' (maximum of each value). The packed
    models share the program's system library: both are called through TVMFuncCall and give the
    typed interface's outputs."""
    need("gcc")
    main = """\
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/runtime/c_runtime_api.h>
#include <tvm/runtime/crt/crt.h>
#include "tvmgen_a.h"
#include "tvmgen_b.h"
#include "tvmgen_c.h"
static int64_t in_shape[4] = {1, 8, 8, 1}, out_shape[2] = {1, 10};
static int call(TVMModuleHandle mod, const char* name, void* in, void* out, uint8_t code, uint8_t bits) {
  TVMFunctionHandle f = NULL;
  TVMValue rv, args[2];
  int rc = 0, codes[2] = {kTVMDLTensorHandle, kTVMDLTensorHandle};
  DLTensor t[2];
  int k;
  for (k = 0; k < 2; ++k) {
    t[k].data = k == 0 ? in : out; t[k].device.device_type = kDLCPU; t[k].device.device_id = 0;
    t[k].ndim = k == 0 ? 4 : 2; t[k].dtype.code = code; t[k].dtype.bits = bits; t[k].dtype.lanes = 1;
    t[k].shape = k == 0 ? in_shape : out_shape; t[k].strides = NULL; t[k].byte_offset = 0;
    args[k].v_handle = &t[k];
  }
  if (TVMModGetFunction(mod, name, 0, &f) != 0 || f == NULL) return 1;
  return TVMFuncCall(f, args, codes, 2, &rv, &rc);
}
int main(void) {
  static int8_t in[64], out[10], out_b[10];
  static float xf[64], yc_typed[10], yc[10];
  int k;
  struct tvmgen_a_inputs i = {in};
  struct tvmgen_a_outputs o = {out};
  struct tvmgen_c_inputs ic = {xf};
  struct tvmgen_c_outputs oc = {yc_typed};
  static uint8_t ws[TVMGEN_A_WORKSPACE_SIZE] __attribute__((aligned(16)));
  struct tvmgen_a_workspace_pools w = {ws};
  TVMFunctionHandle syslib;
  TVMValue rv;
  int rc = 0;
  for (k = 0; k < 64; ++k) {
    in[k] = (int8_t)(3 * k - 90);
    xf[k] = (float)k / 64.0f;
  }
  if (tvmgen_a_run(&i, &o, &w) != 0 || tvmgen_c_run(&ic, &oc) != 0) return 1;
  if (TVMInitializeRuntime() != 0) return 2;
  if (TVMFuncGetGlobal("runtime.SystemLib", &syslib) != 0 || TVMFuncCall(syslib, NULL, NULL, 0, &rv, &rc) != 0 ||
      call(rv.v_handle, "tvmgen_b_run", in, out_b, (uint8_t)kDLInt, 8) != 0 ||
      call(rv.v_handle, "tvmgen_c_run", xf, yc, (uint8_t)kDLFloat, 32) != 0) {
    printf("packed call failed: %s\\n", TVMGetLastError());
    return 3;
  }
  if (memcmp(out_b, out, sizeof out) != 0 || memcmp(yc, yc_typed, sizeof yc) != 0) return 4;
  { /* b is profiled: its table (7 operators and the timer errors) counts the one packed call */
    static double table[8][2];
    static int64_t shape[2] = {8, 2};
    TVMFunctionHandle read = NULL;
    TVMValue arg;
    DLTensor t;
    int code = kTVMDLTensorHandle;
    t.data = table; t.device.device_type = kDLCPU; t.device.device_id = 0; t.ndim = 2;
    t.dtype.code = (uint8_t)kDLFloat; t.dtype.bits = 64; t.dtype.lanes = 1; t.shape = shape; t.strides = NULL;
    t.byte_offset = 0;
    arg.v_handle = &t;
    if (TVMModGetFunction(rv.v_handle, "tvmgen_b_profile_read", 0, &read) != 0 || read == NULL ||
        TVMFuncCall(read, &arg, &code, 1, &rv, &rc) != 0) return 5;
    for (k = 0; k < 7; ++k) {
      if (table[k][1] != 1.0) return 6;
    }
  }
  printf("ok\\n");
  return 0;
}
"""
    sconstruct = f"""\
env = Environment(tools=['default', 'utvm'], toolpath=[{str(TOOLPATH)!r}])
crt = env.UtvmCrt(config_base='base_config.h')
a = env.UtvmModel('a', 'model.tflite', name='a', workspace='user', constants_section='')
b = env.UtvmModel('b', 'model.tflite', name='b', interface='packed', profile=True)
c = env.UtvmModel('c', {str(DIGITS_FLOAT)!r}, name='c', interface='packed')
env.Program('app', ['main.c'], **env.UtvmUsage(a, b, c, host_platform=True))
"""
    d = project(tmp_path / "p", sconstruct, main)
    (d / "base_config.h").write_text("#define TVM_CRT_MAX_ARGS 33\n#define TVM_CRT_LOG_LEVEL (1)\n")
    scons(d, "-j8")
    assert run([d / "app"]).stdout == "ok\n"
    merged = (d / "utvm" / "crt_config" / "crt_config.h").read_text()
    assert "#define TVM_CRT_MAX_ARGS 33\n" in merged and "#define TVM_CRT_LOG_LEVEL 1\n" in merged
    assert "#define TVM_CRT_MAX_NDIM 6\n" in merged  # from the models
    assert (d / "utvm" / "libutvm_crt.a").is_file() and (d / "utvm" / "libutvm_crt_host.a").is_file()
    (syslib,) = (d / "utvm").glob("utvm_system_lib_*.build/utvm_system_lib.c")
    registry = '"\\x03"\n    "tvmgen_b_run\\0"\n    "tvmgen_b_profile_read\\0"\n    "tvmgen_c_run\\0",'
    assert registry in syslib.read_text()
    assert scons(d, "-q", ok=False).returncode == 0
    # A second CRT in the same build is refused.
    (d / "SConstruct").write_text(sconstruct + "env.UtvmCrt()\n")
    assert "the C runtime of this build already exists" in scons(d, ok=False).stderr
    # scons -c removes the system library too.
    (d / "SConstruct").write_text(sconstruct)
    scons(d, "-c")
    assert set(files(d)) == {"SConstruct", "main.c", "model.tflite", "base_config.h"}, set(files(d))


def test_scons_under_another_python(tmp_path: Path) -> None:
    """SCons runs under a Python that cannot import utvm_build (no site-packages): the code
    generator still runs, with UTVM_PYTHON; a wrong UTVM_PYTHON fails with a clear message."""
    need("gcc")
    import SCons

    lib = tmp_path / "scons_only"
    shutil.copytree(Path(SCons.__file__).parent, lib / "SCons", ignore=shutil.ignore_patterns("__pycache__"))
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    assert base.exists(), base
    d = project(tmp_path / "p")
    env = {**os.environ, "PYTHONPATH": str(lib)}
    env.pop("UTVM_PYTHON", None)
    cmd = [base, "-S", "-m", "SCons", "-Q"]
    assert run([base, "-S", "-c", "import utvm_build"], cwd=d, ok=False, env=env).returncode != 0
    # The tool's exists() tells whether the code generator can run.
    (d / "probe.py").write_text(f"import SCons.Tool\ntool = SCons.Tool.Tool('utvm', toolpath=[{str(TOOLPATH)!r}])\n"
                                "env = Environment(tools=[], UTVM_PYTHON=ARGUMENTS['P'])\n"
                                "print('exists:', bool(tool.exists(env)))\n")
    assert "exists: True" in run([*cmd, "-f", "probe.py", f"P={PYTHON}"], cwd=d, env=env).stdout
    assert "exists: False" in run([*cmd, "-f", "probe.py", f"P={base}"], cwd=d, env=env).stdout
    # UTVM_PYTHON from the OS environment.
    run(cmd, cwd=d, env={**env, "UTVM_PYTHON": PYTHON})
    assert run([d / "app"]).stdout.startswith("status 0")
    # A Python without utvm_build.
    shutil.rmtree(d / "utvm")
    p = run(cmd, cwd=d, ok=False, env={**env, "UTVM_PYTHON": str(base)})
    assert p.returncode != 0
    assert f"UTVM_PYTHON '{base}' cannot import utvm_build" in p.stderr, p.stderr
    assert "set UTVM_PYTHON" in p.stderr


# ---- the generator owns only its output directory (issue 12, docs/output.md) -----------------

def test_output_dir_never_destroys_user_files(tmp_path: Path) -> None:
    """output_dir at the project root, or shared by two models: the build fails with one clear
    message, and neither the build nor `scons -c` deletes or changes a file of the user's."""
    need("gcc")
    root_dir = SCONSTRUCT.replace("name='net',", "name='net', output_dir='.',")
    shared = (f"env = Environment(tools=['default', 'utvm'], toolpath=[{str(TOOLPATH)!r}])\n"
              "a = env.UtvmModel('a', 'model.tflite', name='a', output_dir='gen')\n"
              "b = env.UtvmModel('b', 'model.tflite', name='b', output_dir='gen')\n")
    for k, (sconstruct, needle) in enumerate([(root_dir, "refusing to write into"),
                                              (shared, "is already the generated directory of UtvmModel('a')")]):
        d = project(tmp_path / f"p{k}", sconstruct, model=DIGITS)
        (d / "notes.txt").write_text("mine\n")
        before = {f: (d / f).read_bytes() for f in files(d)}
        p = scons(d, ok=False)
        assert p.returncode != 0 and needle in p.stderr, p.stderr
        assert _empty_dirs(d) == [], _empty_dirs(d)   # no folders made for a refused generation
        scons(d, "-c", ok=False)
        assert {f: (d / f).read_bytes() for f in files(d) if f in before} == before
        assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]
        assert _empty_dirs(d) == [] and sorted(os.listdir(tmp_path)) == [f"p{j}" for j in range(k + 1)]


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    """A bad keyword or value: one line naming it and what is accepted, no stack line, exit 2."""
    need("gcc")
    cases = {"interface='fast'": "interface='fast': expected one of 'c', 'packed'",
             "io='heap'": "io='heap': expected one of 'caller', 'workspace'",
             "state='heap'": "state='heap': expected one of 'static', 'user'",
             "constants_align=3": "constants_align=3: expected a power of two from 1 to 4096",
             "profile='yes'": "profile='yes': expected True or False",
             "optimise=['-O2']": "unknown option(s) optimise"}
    for k, (option, needle) in enumerate(cases.items()):
        d = project(tmp_path / f"p{k}", SCONSTRUCT.replace("name='net',", f"name='net', {option},"), model=DIGITS)
        p = scons(d, ok=False)
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert p.returncode == 2 and len(lines) == 1, p.stderr
        assert lines[0].startswith("scons: *** utvm: UtvmModel('net'): ") and needle in lines[0], lines[0]
        assert re.search(r"called from .*SConstruct, line 2", lines[0]), lines[0]


# ---- the kernels' CPU derived from -mcpu= (as CMake's _utvm_derive_target) -----------------------


def _tool_module() -> ModuleType:
    """The SCons tool module itself (utvm_build/scons/utvm.py), for its pure helpers."""
    need("gcc")
    scons_cmd()
    sys.path.insert(0, str(TOOLPATH))
    try:
        import utvm as tool
    finally:
        sys.path.remove(str(TOOLPATH))
    return tool


def test_cpu_derived_from_mcpu(tmp_path: Path) -> None:
    """Without `cpu`, an unambiguous -mcpu= in the model's compile flags picks the kernels
    (M55/M85/M52: Helium; +nomve: the Armv8-M DSP kernels; +nodsp or two CPUs: generic)."""
    tool = _tool_module()
    cases = {("-mthumb", "-mcpu=cortex-m55"): "cortex-m55", ("-mcpu=cortex-m85",): "cortex-m85",
             ("-mcpu=cortex-m52+nofp",): "cortex-m52", ("-mcpu=cortex-m55+nomve",): "cortex-m33",
             ("-mcpu=cortex-m4",): "cortex-m4", ("-mcpu=cortex-m33+nodsp",): None,
             ("-mcpu=cortex-m4", "-mcpu=cortex-m55"): None, ("-mcpu=cortex-a53",): None, ("-O2",): None}
    for flags, cpu in cases.items():
        assert tool._derive_cpu(list(flags)) == cpu, flags
    # Through SCons: the environment's CCFLAGS, an override's CFLAGS, and `cpu` given wins.
    sconstruct = f"""\
env = Environment(tools=['default', 'utvm'], toolpath=[{str(TOOLPATH)!r}], CCFLAGS=['-mcpu=cortex-m55'])
env.UtvmModel('a', 'model.tflite', name='a')
env.UtvmModel('b', 'model.tflite', name='b', cpu='generic')
env.UtvmModel('c', 'model.tflite', name='c', CCFLAGS=[], CFLAGS=['-mcpu=cortex-m85'])
"""
    d = project(tmp_path / "p", sconstruct, model=DIGITS)
    scons(d, "utvm/a/metadata.json", "utvm/b/metadata.json", "utvm/c/metadata.json")
    targets = {n: json.loads((d / "utvm" / n / "metadata.json").read_text())["options"]["target"] for n in "abc"}
    assert targets == {"a": "cortex-m55", "b": "generic", "c": "cortex-m85"}, targets


def test_frame_pointer_kept_defines_utvm_frame_pointer(tmp_path: Path) -> None:
    """A model compiled with the frame pointer kept (the last of -fno-omit-frame-pointer /
    -fomit-frame-pointer) gets UTVM_FRAME_POINTER, so that the Helium block that needs r7 takes
    its C form; the others do not."""
    tool = _tool_module()
    cases = {("-O2", "-fno-omit-frame-pointer"): True, ("-fno-omit-frame-pointer", "-fomit-frame-pointer"): False,
             ("-fomit-frame-pointer", "-fno-omit-frame-pointer"): True, ("-O0",): False}
    for flags, kept in cases.items():
        assert tool._keeps_frame_pointer(list(flags)) is kept, flags
    sconstruct = f"""\
env = Environment(tools=['default', 'utvm'], toolpath=[{str(TOOLPATH)!r}], CCFLAGS=['-O2', '-fno-omit-frame-pointer'])
env.UtvmModel('a', 'model.tflite', name='a')
env.UtvmModel('b', 'model.tflite', name='b', optimize=['-fomit-frame-pointer'])
"""
    d = project(tmp_path / "p", sconstruct, model=DIGITS)
    out = scons(d, "-n").stdout
    compiles = [ln for ln in out.splitlines() if " -c " in ln and "tvmgen_" in ln]
    a = [ln for ln in compiles if "/a/" in ln or "tvmgen_a" in ln]
    b = [ln for ln in compiles if "/b/" in ln or "tvmgen_b" in ln]
    assert a and b, out
    assert all("-DUTVM_FRAME_POINTER" in ln for ln in a), a
    assert not any("UTVM_FRAME_POINTER" in ln for ln in b), b
