"""Properties of the generated code: deterministic, safe with hostile names, strict-clean, placed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from harness import Case, run_cases
from tflite_writer import ModelBuilder

from utvm_build import CompileOptions, compile_model
from utvm_build.compiler import compile_bytes
from utvm_build.host import STRICT_CFLAGS

HOSTILE_NAMES = [
    "*/ #error injected /*", "line\nbreak\r\n#define x", "int", "??/ trigraph ??=", "caf\u00e9/\u4e2d\u6587",
    "a" * 300, "", "0starts_with_digit", "dup", "DUP", "dup", "workspace", "global_workspace", "\\", "\"quoted\"",
]


def chain_model(names: list[str]) -> bytes:
    """FC layers in a chain, tensors named from ``names`` (hostile strings welcome)."""
    mb = ModelBuilder()
    rng = np.random.default_rng(5)
    it = iter(names)
    x = mb.tensor([1, 8], "int8", scale=0.05, zero_point=-3, name=next(it))
    first = x
    for _ in range(3):
        w = mb.tensor([8, 8], "int8", data=rng.integers(-127, 128, (8, 8)).astype(np.int8), scale=0.02,
                      zero_point=0, name=next(it))
        b = mb.tensor([8], "int32", data=rng.integers(-500, 500, 8).astype(np.int32), scale=0.001, zero_point=0,
                      name=next(it))
        y = mb.tensor([1, 8], "int8", scale=0.07, zero_point=2, name=next(it))
        mb.operator("FULLY_CONNECTED", [x, w, b], [y], {"fused_activation_function": "RELU"})
        x = y
    return mb.build([first], [x])


def compile_strict(gen: Path, cc: str, extra: list[str] | None = None) -> None:
    meta = json.loads((gen / "metadata.json").read_text())
    for src in meta["sources"]:
        cmd = [cc, *STRICT_CFLAGS, "-O2", "-I", str(gen / "include"), "-c", str(gen / src), "-o", "/dev/null",
               *(extra or [])]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{cc} {src}:\n{proc.stderr}"


def test_deterministic_output(tmp_path: Path) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(chain_model([f"t{i}" for i in range(20)]))
    a, b = tmp_path / "a", tmp_path / "b"
    compile_model(model, a)
    compile_model(model, b)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_metadata_contract(tmp_path: Path) -> None:
    model = tmp_path / "my model.tflite"
    model.write_bytes(chain_model([f"t{i}" for i in range(20)]))
    compiled = compile_model(model, tmp_path / "out")
    meta = json.loads((tmp_path / "out" / "metadata.json").read_text())
    for key in ("name", "prefix", "generator_version", "model_sha256", "options", "inputs", "outputs",
                "workspace_bytes", "constants_bytes", "operators", "macs", "sources", "include_dirs"):
        assert key in meta, key
    assert meta["name"] == "my_model" and meta["prefix"] == "tvmgen_my_model"
    assert meta["macs"] == 3 * 64
    assert str(tmp_path) not in json.dumps(meta)
    listed = set(meta["sources"])
    on_disk = {str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.c")}
    assert listed == on_disk
    assert compiled.metadata == meta


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_hostile_names_are_escaped(tmp_path: Path, cc: str) -> None:
    if shutil.which(cc) is None:
        pytest.fail(f"{cc} is not installed (scripts/setup.sh installs it)")
    names = (HOSTILE_NAMES * 2)[:13]
    compiled = compile_bytes(chain_model(names), "hostile")
    text = b"".join(v for k, v in compiled.files.items() if k.endswith((".c", ".h"))).decode()
    assert "#error injected" not in text.replace("* / #error injected / *", "")
    assert "\u00e9" not in text and "\r" not in text
    gen = tmp_path / "gen"
    from utvm_build.emit.output import write_directory

    write_directory(gen, compiled.files)
    compile_strict(gen, cc)


def test_hostile_names_still_compute_the_same() -> None:
    plain = chain_model([f"t{i}" for i in range(13)])
    hostile = chain_model((HOSTILE_NAMES * 2)[:13])
    x = [np.arange(-4, 4, dtype=np.int8).reshape(1, 8)]
    a, b = run_cases([Case(plain, x), Case(hostile, x)])
    assert np.array_equal(a[0], b[0])


def test_user_workspace_interface(tmp_path: Path) -> None:
    model = chain_model([f"t{i}" for i in range(13)])
    x = [np.arange(-4, 4, dtype=np.int8).reshape(1, 8)]
    a, b = run_cases([Case(model, x), Case(model, x, options=CompileOptions(workspace="user"))])
    assert np.array_equal(a[0], b[0])
    header = compile_bytes(model, "m", CompileOptions(workspace="user")).files["include/tvmgen_m.h"].decode()
    assert "struct tvmgen_m_workspace_pools" in header and "workspace_pools" in header


def test_sections_and_alignment(tmp_path: Path) -> None:
    model = tmp_path / "m.tflite"
    model.write_bytes(chain_model([f"t{i}" for i in range(13)]))
    gen = tmp_path / "gen"
    compile_model(model, gen, CompileOptions(constants_section=".rodata.nn_weights",
                                             workspace_section=".bss.nn_arena", workspace_align=32))
    for src, section in (("src/tvmgen_m.c", ".bss.nn_arena"), ("src/tvmgen_m_constants.c", ".rodata.nn_weights")):
        obj = tmp_path / "x.o"
        subprocess.run(["cc", *STRICT_CFLAGS, "-I", str(gen / "include"), "-c", str(gen / src), "-o", str(obj)],
                       check=True)
        headers = subprocess.run(["objdump", "-h", str(obj)], capture_output=True, text=True, check=True).stdout
        line = next(ln for ln in headers.splitlines() if section in ln)
        if section == ".bss.nn_arena":
            assert line.split()[-1] == "2**5", line   # 32-byte alignment


def test_workspace_align_raised_to_element_size() -> None:
    """--workspace-align 1 on a float model would make misaligned float views: raised to 4."""
    mb = ModelBuilder()
    x = mb.tensor([1, 3], "float32")
    h = mb.tensor([1, 3], "float32")
    y = mb.tensor([1, 3], "float32")
    mb.operator("RELU", [x], [h])
    mb.operator("RELU6", [h], [y])
    float_model = mb.build([x], [y])
    compiled = compile_bytes(float_model, "m", CompileOptions(workspace_align=1))
    assert compiled.metadata["options"]["workspace_align"] == 4
    assert "TVMGEN_M_WORKSPACE_ATTR(4)" in compiled.files["src/tvmgen_m.c"].decode()
    int8_model = chain_model([f"t{i}" for i in range(13)])
    assert compile_bytes(int8_model, "m", CompileOptions(workspace_align=1)).metadata["options"]["workspace_align"] == 1


def test_model_with_only_reshape_copies(tmp_path: Path) -> None:
    """Reshapes between intermediates are aliases: no code, no workspace."""
    mb = ModelBuilder()
    rng = np.random.default_rng(1)
    x = mb.tensor([1, 8], "int8", scale=0.05, zero_point=0)
    w = mb.tensor([8, 8], "int8", data=rng.integers(-127, 128, (8, 8)).astype(np.int8), scale=0.02, zero_point=0)
    y = mb.tensor([1, 8], "int8", scale=0.07, zero_point=0)
    mb.operator("FULLY_CONNECTED", [x, w, -1], [y])
    shape = mb.tensor([2], "int32", data=np.array([2, 4], np.int32))
    r = mb.tensor([2, 4], "int8", scale=0.07, zero_point=0)
    mb.operator("RESHAPE", [y, shape], [r], {"new_shape": [2, 4]})
    z = mb.tensor([1, 8], "int8", scale=0.07, zero_point=0)
    shape2 = mb.tensor([2], "int32", data=np.array([1, 8], np.int32))
    mb.operator("RESHAPE", [r, shape2], [z], {"new_shape": [1, 8]})
    out = mb.tensor([1, 8], "int8", scale=0.1, zero_point=0)
    mb.operator("FULLY_CONNECTED", [z, w, -1], [out])
    compiled = compile_bytes(mb.build([x], [out]), "m")
    assert [op.op for op in compiled.graph.operators] == ["FULLY_CONNECTED", "FULLY_CONNECTED"]
    assert compiled.plan.workspace_bytes == 16


def test_constant_declarations_state_their_alignment(tmp_path: Path) -> None:
    """clang at -O2 on x86-64 assumes 16 B for a large extern array and uses aligned vector loads:
    a declaration without the definition's (smaller) alignment made the state model crash there."""
    model = Path(__file__).parent / "data" / "state" / "streaming_kws_int8.tflite"
    internal = compile_bytes(model.read_bytes(), "kws").files["src/tvmgen_kws_internal.h"].decode()
    externs = [ln for ln in internal.splitlines() if ln.startswith("extern const")]
    assert externs and all("TVMGEN_KWS_CONST_ATTR(" in ln for ln in externs)
    outputs = []
    for cc in ("gcc", "clang"):
        proc = subprocess.run([sys.executable, "-m", "utvm_build", "run", str(model), "--input-fill", "random:1"],
                              capture_output=True, text=True, env={**os.environ, "CC": cc}, cwd=tmp_path)
        assert proc.returncode == 0, (cc, proc.returncode, proc.stderr[-300:])
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and "output 0" in outputs[0]
