"""Call a model's packed entry point in a host shared library the way a host-driven runtime does:
TVMInitializeRuntime -> TVMFuncGetGlobal("runtime.SystemLib") -> TVMFuncCall -> TVMModGetFunction
-> TVMFuncCall with one DLTensor per input and output (type code kTVMDLTensorHandle). `utvm-build
run --interface packed` goes through here, so the run exercises the C runtime, not the typed entry."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from .errors import UtvmError

K_DL_CPU = 1
K_TVM_OPAQUE_HANDLE, K_TVM_MODULE_HANDLE, K_TVM_DLTENSOR_HANDLE = 3, 9, 7
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class TVMValue(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_float64", ctypes.c_double), ("v_handle", ctypes.c_void_p)]


class PackedRunner:
    """The packed function ``name`` of the system library in the shared library ``lib``."""

    def __init__(self, lib: ctypes.CDLL, name: str) -> None:
        self.lib = lib
        lib.TVMGetLastError.restype = ctypes.c_char_p
        self._check(lib.TVMInitializeRuntime(), "TVMInitializeRuntime")
        syslib = ctypes.c_void_p()
        self._check(lib.TVMFuncGetGlobal(b"runtime.SystemLib", ctypes.byref(syslib)), "TVMFuncGetGlobal")
        ret, code = TVMValue(), ctypes.c_int()
        self._check(lib.TVMFuncCall(syslib, None, None, 0, ctypes.byref(ret), ctypes.byref(code)),
                    "runtime.SystemLib")
        if code.value != K_TVM_MODULE_HANDLE:
            raise UtvmError(f"runtime.SystemLib returned type code {code.value}, not a module")
        self.func = ctypes.c_void_p()
        self._check(lib.TVMModGetFunction(ctypes.c_void_p(ret.v_handle), name.encode(), 0,
                                          ctypes.byref(self.func)), f"TVMModGetFunction({name})")
        self.name = name

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            msg = self.lib.TVMGetLastError()
            raise UtvmError(f"{what} failed: {msg.decode(errors='replace') if msg else status}")

    def __call__(self, arrays: Sequence[np.ndarray]) -> None:
        """One call with a DLTensor for each (C-contiguous) array, in order."""
        keep: list = []
        tensors = []
        for a in arrays:
            if not a.flags.c_contiguous:
                raise ValueError("packed call: arrays must be C-contiguous")
            shape = (ctypes.c_int64 * a.ndim)(*a.shape)
            keep.append(shape)
            dtype = DLDataType(_DL_CODES[a.dtype.kind], 8 * a.dtype.itemsize, 1)
            tensors.append(DLTensor(a.ctypes.data, K_DL_CPU, 0, a.ndim, dtype, shape, None, 0))
        n = len(tensors)
        values = (TVMValue * n)(*[TVMValue(v_handle=ctypes.cast(ctypes.pointer(t), ctypes.c_void_p))
                                  for t in tensors])
        codes = (ctypes.c_int * n)(*([K_TVM_DLTENSOR_HANDLE] * n))
        ret, code = TVMValue(), ctypes.c_int()
        self._check(self.lib.TVMFuncCall(self.func, values, codes, n, ctypes.byref(ret), ctypes.byref(code)),
                    f"TVMFuncCall({self.name})")
