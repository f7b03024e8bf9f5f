"""The packed interface, driven from Python through the CRT the way seed 003 describes:
TVMInitializeRuntime -> TVMFuncGetGlobal("runtime.SystemLib") -> TVMFuncCall -> TVMModGetFunction
-> TVMFuncCall(DLTensor arguments)."""

from __future__ import annotations

import ctypes
import json
import subprocess
from pathlib import Path

import numpy as np
from test_codegen import chain_model

from utvm_build import CompileOptions, compile_model
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
