"""The packed interface, driven from Python through the CRT the way seed 003 describes:
TVMInitializeRuntime -> TVMFuncGetGlobal("runtime.SystemLib") -> TVMFuncCall -> TVMModGetFunction
-> TVMFuncCall(DLTensor arguments)."""

from __future__ import annotations

import ctypes
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_codegen import chain_model
from tflite_writer import ModelBuilder

from utvm_build import CompileOptions, compile_model
from utvm_build.cli import main as cli_main
from utvm_build.host import STRICT_CFLAGS, run_generated
from utvm_build.paths import crt_dir

K_DL_TENSOR = 7
K_MODULE = 9


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class TVMValue(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_float64", ctypes.c_double), ("v_handle", ctypes.c_void_p)]


def dltensor(arr: np.ndarray, keep: list) -> DLTensor:
    shape = (ctypes.c_int64 * arr.ndim)(*arr.shape)
    keep.append(shape)
    code = {"i": 0, "u": 1, "f": 2}[arr.dtype.kind]
    return DLTensor(arr.ctypes.data, 1, 0, arr.ndim, DLDataType(code, arr.dtype.itemsize * 8, 1), shape, None, 0)


def build(tmp: Path) -> tuple[ctypes.CDLL, dict, Path]:
    model = tmp / "net.tflite"
    model.write_bytes(chain_model([f"t{i}" for i in range(13)]))
    gen = tmp / "gen"
    compile_model(model, gen, CompileOptions(interface="packed"))
    meta = json.loads((gen / "metadata.json").read_text())
    crt = crt_dir()
    sources = [gen / s for s in meta["sources"]] + sorted((crt / "src").glob("*.c"))
    lib = tmp / "libnet.so"
    subprocess.run(["cc", *STRICT_CFLAGS, "-O1", "-fPIC", "-shared", f"-I{gen / 'include'}", f"-I{crt / 'include'}",
                    *map(str, sources), "-o", str(lib)], check=True)
    return ctypes.CDLL(str(lib)), meta, gen


def test_python_calls_model_through_tvmfunccall(tmp_path: Path) -> None:
    lib, meta, gen = build(tmp_path)
    lib.TVMGetLastError.restype = ctypes.c_char_p
    assert lib.TVMInitializeRuntime() == 0
    syslib = ctypes.c_void_p()
    assert lib.TVMFuncGetGlobal(b"runtime.SystemLib", ctypes.byref(syslib)) == 0 and syslib.value
    ret, ret_code = TVMValue(), ctypes.c_int()
    assert lib.TVMFuncCall(syslib, None, None, 0, ctypes.byref(ret), ctypes.byref(ret_code)) == 0
    assert ret_code.value == K_MODULE
    run = ctypes.c_void_p()
    assert lib.TVMModGetFunction(ctypes.c_void_p(ret.v_handle), b"tvmgen_net_run", 0, ctypes.byref(run)) == 0
    assert run.value

    x = np.arange(-4, 4, dtype=np.int8).reshape(1, 8)
    y = np.zeros((1, 8), np.int8)
    keep: list = []
    tensors = [dltensor(x, keep), dltensor(y, keep)]
    values = (TVMValue * 2)(*[TVMValue(v_handle=ctypes.cast(ctypes.pointer(t), ctypes.c_void_p)) for t in tensors])
    codes = (ctypes.c_int * 2)(K_DL_TENSOR, K_DL_TENSOR)
    status = lib.TVMFuncCall(run, values, codes, 2, ctypes.byref(ret), ctypes.byref(ret_code))
    assert status == 0, lib.TVMGetLastError()
    expected = run_generated(gen, [x])[0]
    assert np.array_equal(y, expected) and y.any()

    # Wrong argument count and wrong dtype are refused with a message, not a crash.
    assert lib.TVMFuncCall(run, values, codes, 1, ctypes.byref(ret), ctypes.byref(ret_code)) != 0
    assert b"argument" in lib.TVMGetLastError()
    bad = np.zeros((1, 8), np.int16)
    values[1] = TVMValue(v_handle=ctypes.cast(ctypes.pointer(dltensor(bad, keep)), ctypes.c_void_p))
    assert lib.TVMFuncCall(run, values, codes, 2, ctypes.byref(ret), ctypes.byref(ret_code)) != 0
    assert lib.TVMGetLastError()


def test_c_interface_needs_no_runtime(tmp_path: Path) -> None:
    """The "c" interface references no CRT symbol: a firmware links no runtime code for it."""
    model = tmp_path / "net.tflite"
    model.write_bytes(chain_model([f"t{i}" for i in range(13)]))
    gen = tmp_path / "gen"
    compile_model(model, gen)
    meta = json.loads((gen / "metadata.json").read_text())
    for src in meta["sources"]:
        obj = tmp_path / "x.o"
        subprocess.run(["cc", *STRICT_CFLAGS, f"-I{gen / 'include'}", "-c", str(gen / src), "-o", str(obj)], check=True)
        undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout
        assert "TVM" not in undefined, undefined


def fc_model(n_in: int, n_out: int, seed: int) -> bytes:
    """One FULLY_CONNECTED layer [1, n_in] -> [1, n_out] (int8), weights from ``seed``."""
    mb = ModelBuilder()
    rng = np.random.default_rng(seed)
    x = mb.tensor([1, n_in], "int8", scale=0.05, zero_point=1, name="x")
    w = mb.tensor([n_out, n_in], "int8", data=rng.integers(-127, 128, (n_out, n_in)).astype(np.int8), scale=0.02,
                  zero_point=0, name="w")
    b = mb.tensor([n_out], "int32", data=rng.integers(-500, 500, n_out).astype(np.int32), scale=0.001,
                  zero_point=0, name="b")
    y = mb.tensor([1, n_out], "int8", scale=0.07, zero_point=-2, name="y")
    mb.operator("FULLY_CONNECTED", [x, w, b], [y], {})
    return mb.build([x], [y])


def test_two_packed_models_share_one_system_library(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """`utvm-build syslib`: one registry with both models' functions and the one TVMSystemLibEntryPoint;
    each model is compiled with TVMGEN_<NAME>_NO_SYSTEM_LIB_ENTRY."""
    gens = {}
    for name, data in (("net", chain_model([f"t{i}" for i in range(13)])), ("small", fc_model(4, 3, 11))):
        model = tmp_path / f"{name}.tflite"
        model.write_bytes(data)
        gens[name] = tmp_path / name
        compile_model(model, gens[name], CompileOptions(interface="packed"))
    syslib = tmp_path / "syslib" / "utvm_system_lib.c"
    assert cli_main(["syslib", str(gens["small"]), str(gens["net"] / "metadata.json"), "-o", str(syslib)]) == 0
    text = syslib.read_text()
    assert '"\\x02"\n    "tvmgen_net_run\\0"\n    "tvmgen_small_run\\0",' in text  # sorted, one extra NUL
    mtime = syslib.stat().st_mtime_ns
    assert cli_main(["syslib", str(gens["net"]), str(gens["small"]), "-o", str(syslib)]) == 0
    assert syslib.stat().st_mtime_ns == mtime and "(unchanged)" in capsys.readouterr().out

    crt = crt_dir()
    sources = [syslib, *sorted((crt / "src").glob("*.c"))]
    flags = []
    for name, gen in gens.items():
        meta = json.loads((gen / "metadata.json").read_text())
        sources += [gen / s for s in meta["sources"]]
        flags += [f"-DTVMGEN_{name.upper()}_NO_SYSTEM_LIB_ENTRY", f"-I{gen / 'include'}"]
    lib_path = tmp_path / "libboth.so"
    subprocess.run(["cc", *STRICT_CFLAGS, "-O1", "-fPIC", "-shared", *flags, f"-I{crt / 'include'}",
                    *map(str, sources), "-o", str(lib_path)], check=True)
    lib = ctypes.CDLL(str(lib_path))
    lib.TVMGetLastError.restype = ctypes.c_char_p
    assert lib.TVMInitializeRuntime() == 0
    syslib_f = ctypes.c_void_p()
    assert lib.TVMFuncGetGlobal(b"runtime.SystemLib", ctypes.byref(syslib_f)) == 0
    ret, ret_code = TVMValue(), ctypes.c_int()
    assert lib.TVMFuncCall(syslib_f, None, None, 0, ctypes.byref(ret), ctypes.byref(ret_code)) == 0
    mod = ctypes.c_void_p(ret.v_handle)
    missing = ctypes.c_void_p()
    assert lib.TVMModGetFunction(mod, b"tvmgen_other_run", 0, ctypes.byref(missing)) == 0 and not missing.value
    codes = (ctypes.c_int * 2)(K_DL_TENSOR, K_DL_TENSOR)
    rng = np.random.default_rng(3)
    for name, n_in, n_out in (("net", 8, 8), ("small", 4, 3)):
        run = ctypes.c_void_p()
        assert lib.TVMModGetFunction(mod, f"tvmgen_{name}_run".encode(), 0, ctypes.byref(run)) == 0 and run.value
        x = rng.integers(-128, 128, (1, n_in)).astype(np.int8)
        y = np.zeros((1, n_out), np.int8)
        keep: list = []
        tensors = [dltensor(x, keep), dltensor(y, keep)]
        values = (TVMValue * 2)(*[TVMValue(v_handle=ctypes.cast(ctypes.pointer(t), ctypes.c_void_p))
                                  for t in tensors])
        status = lib.TVMFuncCall(run, values, codes, 2, ctypes.byref(ret), ctypes.byref(ret_code))
        assert status == 0, lib.TVMGetLastError()
        assert np.array_equal(y, run_generated(gens[name], [x])[0]) and y.any()

    # Only packed models, unique names.
    plain = tmp_path / "plain"
    compile_model(tmp_path / "small.tflite", plain)
    assert cli_main(["syslib", str(gens["net"]), str(plain), "-o", str(tmp_path / "x.c")]) == 2
    assert cli_main(["syslib", str(gens["net"]), str(gens["net"]), "-o", str(tmp_path / "x.c")]) == 2
    err = capsys.readouterr().err
    assert "--interface c" in err and "two models are named 'net'" in err
    assert not (tmp_path / "x.c").exists()
