"""TVM RPC protocol "0.8.0" (the one apache-tvm 0.2x speaks): codes, type indices and the encoding
of argument sequences. Little-endian; every packet is ``u64 nbytes`` + body (docs/rpc.md)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

PROTOCOL_VERSION = b"0.8.0"
TCP_MAGIC = 0xFF271

# RPC codes
SHUTDOWN, INIT_SERVER, CALL_FUNC, RETURN, EXCEPTION = 1, 2, 3, 4, 5
COPY_FROM_REMOTE, COPY_TO_REMOTE, COPY_ACK = 6, 7, 8
GET_GLOBAL_FUNC, FREE_HANDLE, DEV_SET_DEVICE, DEV_GET_ATTR = 9, 10, 11, 12
DEV_ALLOC_DATA, DEV_FREE_DATA, DEV_STREAM_SYNC, COPY_AMONG_REMOTE, DEV_ALLOC_DATA_WITH_SCOPE = 13, 14, 15, 16, 17

# tvm-ffi type indices
T_NONE, T_INT, T_BOOL, T_FLOAT, T_OPAQUE, T_DTYPE, T_DEVICE, T_DLTENSOR, T_RAWSTR, T_BYTEARRAY = range(10)
T_STR, T_BYTES, T_FUNCTION, T_TENSOR, T_MODULE, T_RPC_OBJECT_REF = 65, 66, 68, 70, 73, 115

KDL_CPU = 1
#: DLDataTypeCode of NumPy kinds.
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


@dataclass(frozen=True)
class Handle:
    """A value the device handed out (u64 on the wire) with the type index it came with."""
    type_index: int
    value: int


@dataclass(frozen=True)
class TensorDesc:
    """A DLTensor on the wire: device address of the data, dtype (code, bits, lanes), shape."""
    data: int
    dtype: tuple[int, int, int]
    shape: tuple[int, ...]
    byte_offset: int = 0
    device: tuple[int, int] = (KDL_CPU, 0)


def dl_dtype(dtype) -> tuple[int, int, int]:
    import numpy as np

    dt = np.dtype(dtype)
    if dt.kind not in _DL_CODES:
        raise ValueError(f"dtype {dt} has no DLPack equivalent")
    return (_DL_CODES[dt.kind], 8 * dt.itemsize if dt.kind != "b" else 8, 1)


def encode_tensor(t: TensorDesc) -> bytes:
    code, bits, lanes = t.dtype
    return (struct.pack("<QiiiBBH", t.data, t.device[0], t.device[1], len(t.shape), code, bits, lanes)
            + struct.pack(f"<{len(t.shape)}q", *t.shape) + struct.pack("<Q", t.byte_offset))


def encode_args(args) -> bytes:
    """Argument sequence: i32 count, then per value i32 type index and its payload."""
    out = [struct.pack("<i", len(args))]
    for a in args:
        if a is None:
            out.append(struct.pack("<i", T_NONE))
        elif isinstance(a, bool):
            out.append(struct.pack("<iq", T_BOOL, int(a)))
        elif isinstance(a, int):
            out.append(struct.pack("<iq", T_INT, a))
        elif isinstance(a, float):
            out.append(struct.pack("<id", T_FLOAT, a))
        elif isinstance(a, str):
            b = a.encode()
            out.append(struct.pack("<iQ", T_RAWSTR, len(b)) + b)
        elif isinstance(a, (bytes, bytearray)):
            out.append(struct.pack("<iQ", T_BYTEARRAY, len(a)) + bytes(a))
        elif isinstance(a, TensorDesc):
            out.append(struct.pack("<i", T_DLTENSOR) + encode_tensor(a))
        elif isinstance(a, Handle):
            out.append(struct.pack("<iQ", a.type_index, a.value))
        elif hasattr(a, "bits") and hasattr(a, "lanes"):
            out.append(struct.pack("<iBBHi", T_DTYPE, a.code, a.bits, a.lanes, 0))
        elif isinstance(a, tuple) and len(a) == 2 and all(isinstance(x, int) for x in a):
            out.append(struct.pack("<iii", T_DEVICE, a[0], a[1]))   # (device_type, device_id)
        else:
            raise TypeError(f"cannot pass a {type(a).__name__} to the device")
    return b"".join(out)


def packet(code: int, body: bytes = b"") -> bytes:
    return struct.pack("<Qi", 4 + len(body), code) + body


class Reader:
    """Decodes one received packet body; running past its end raises ValueError."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ValueError("reply packet truncated")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def unpack(self, fmt: str):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))

    def values(self) -> list:
        (n,) = self.unpack("i")
        return [self.value() for _ in range(n)]

    def value(self):
        (t,) = self.unpack("i")
        if t == T_NONE:
            return None
        if t == T_INT:
            return self.unpack("q")[0]
        if t == T_BOOL:
            return bool(self.unpack("q")[0])
        if t == T_FLOAT:
            return self.unpack("d")[0]
        if t in (T_OPAQUE, T_FUNCTION, T_MODULE):
            return Handle(t, self.unpack("Q")[0])
        if t == T_DTYPE:
            code, bits, lanes, _ = self.unpack("BBHi")
            return (code, bits, lanes)
        if t == T_DEVICE:
            return self.unpack("ii")
        if t == T_DLTENSOR:
            data, dt, di, ndim, code, bits, lanes = self.unpack("QiiiBBH")
            shape = self.unpack(f"{ndim}q")
            (off,) = self.unpack("Q")
            return TensorDesc(data, (code, bits, lanes), tuple(shape), off, (dt, di))
        if t == T_RAWSTR:
            (n,) = self.unpack("Q")
            return self.take(n).decode(errors="replace")
        if t == T_BYTEARRAY:
            (n,) = self.unpack("Q")
            return self.take(n)
        if t >= 64:
            (inner,) = self.unpack("I")
            if inner in (T_STR, T_BYTES):
                (n,) = self.unpack("Q")
                b = self.take(n)
                return b.decode(errors="replace") if inner == T_STR else b
            return Handle(inner, self.unpack("Q")[0])
        raise ValueError(f"unknown type index {t} in a reply")
