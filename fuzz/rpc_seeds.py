"""Seed corpus of the RPC packet-decoder fuzz target (crt/tests/fuzz/fuzz_rpc_server.c).

Each seed is the byte stream of one client session against the demo model's system library: an
opening (InitServer, the system library, ``tvmgen_demo_run``, four arena allocations) and then the
packets of one case. Together the seeds send every RPC code (0..21 and unknown ones) and every
argument type index the server decodes (0..12, 64.., Str, Bytes, Function, Tensor, Module,
RPCObjectRef), opaque and object handles included, legitimate and hostile (handles never handed
out, fake DLTensors in the arena, tensors outside or across allocations, the time evaluator).

Addresses are those of the target's arena, mapped at a fixed address (ARENA_BASE), and the handles
the CRT hands out are deterministic (module.h's encoding), so the seeds reach deep states.

    python -m fuzz rpc-seeds DIR
"""

from __future__ import annotations

import struct
from pathlib import Path

from utvm_build.rpc import protocol as P

ARENA_BASE = 0x10000000
ARENA_BYTES = 0x10000
SYSTEM_LIB_GETTER = 0x7FFF0000          # global function 0 (runtime.SystemLib)
MODULE = 0x8000                          # module 0 (the system library)
DEMO_RUN = 0x80000000                    # function 0 of module 0 (tvmgen_demo_run)
BUILTIN = 0x7E00000000000000             # tvm.rpc.server.* and runtime.RPCTimeEvaluator
EVALUATOR = 0x7D00000000000000           # time evaluator slot 0
A, B, OUT, FAKE = ARENA_BASE, ARENA_BASE + 16, ARENA_BASE + 32, ARENA_BASE + 48

INT8 = (0, 8, 1)
TA = P.TensorDesc(A, INT8, (1, 2, 2, 2))
TB = P.TensorDesc(B, INT8, (8,))
TOUT = P.TensorDesc(OUT, INT8, (1, 8))
CPU = (P.KDL_CPU, 0)


class _DType:
    def __init__(self, code: int, bits: int, lanes: int) -> None:
        self.code, self.bits, self.lanes = code, bits, lanes


def sys_call(code: int, *args) -> bytes:
    return P.packet(code, P.encode_args(args))


def call(handle: int, *args) -> bytes:
    return P.packet(P.CALL_FUNC, struct.pack("<Q", handle) + P.encode_args(args))


def copy_to(t: P.TensorDesc, data: bytes, offset: int = 0) -> bytes:
    d = P.TensorDesc(t.data, t.dtype, t.shape, offset, t.device)
    return P.packet(P.COPY_TO_REMOTE, P.encode_tensor(d) + struct.pack("<Q", len(data)) + data)


def copy_from(t: P.TensorDesc, nbytes: int, offset: int = 0) -> bytes:
    d = P.TensorDesc(t.data, t.dtype, t.shape, offset, t.device)
    return P.packet(P.COPY_FROM_REMOTE, P.encode_tensor(d) + struct.pack("<Q", nbytes))


def raw_arg(type_index: int, payload: bytes) -> bytes:
    """One argument sequence of a single raw-encoded argument."""
    return struct.pack("<ii", 1, type_index) + payload


def opening() -> bytes:
    init = P.packet(P.INIT_SERVER, struct.pack("<Q", 5) + b"0.8.0" + struct.pack("<i", 0))
    return b"".join([
        init,
        sys_call(P.GET_GLOBAL_FUNC, "runtime.SystemLib"),
        call(SYSTEM_LIB_GETTER),
        sys_call(P.GET_GLOBAL_FUNC, "tvm.rpc.server.ModuleGetFunction"),
        call(BUILTIN | 1, P.Handle(P.T_MODULE, MODULE), "tvmgen_demo_run", True),
        *[sys_call(P.DEV_ALLOC_DATA, CPU, n, 16, _DType(0, 8, 1)) for n in (8, 8, 8, 64)],
    ])


def _fake_dltensor() -> bytes:
    """A DLTensor (64-bit layout) whose data points before the arena, and its shape."""
    shape_at = FAKE + 48
    return (struct.pack("<QiiiBBHQQQ", ARENA_BASE - 256, P.KDL_CPU, 0, 2, 0, 8, 1, shape_at, 0, 0)
            + struct.pack("<qq", 1, 8))


def cases() -> dict[str, bytes]:
    c: dict[str, bytes] = {}
    run_ok = copy_to(TA, bytes(range(1, 9))) + copy_to(TB, b"\x0a" * 8) + call(DEMO_RUN, TA, TB, TOUT)
    c["run"] = run_ok + copy_from(TOUT, 8) + P.packet(P.SHUTDOWN)
    # every RPC code, each with an empty and a short argument sequence
    for code in range(0, 23):
        c[f"code_{code}"] = P.packet(code) + P.packet(code, struct.pack("<i", 0)) + P.packet(code, b"\x01\x02")
    c["code_unknown"] = P.packet(99, struct.pack("<i", 0)) + P.packet(-1)
    c["syscalls"] = b"".join([
        sys_call(P.DEV_SET_DEVICE, CPU), sys_call(P.DEV_GET_ATTR, CPU, 0), sys_call(P.DEV_GET_ATTR, CPU, 1),
        sys_call(P.DEV_STREAM_SYNC, CPU, None), sys_call(18, CPU), sys_call(19, CPU, None), sys_call(20, CPU, None),
        sys_call(21, CPU), sys_call(P.DEV_ALLOC_DATA_WITH_SCOPE, TB, "global"),
        sys_call(P.DEV_ALLOC_DATA_WITH_SCOPE, TB, None), sys_call(P.DEV_ALLOC_DATA_WITH_SCOPE, TB, "texture"),
        sys_call(P.COPY_AMONG_REMOTE, TB, P.TensorDesc(OUT, INT8, (8,)), None),
        sys_call(P.DEV_FREE_DATA, CPU, P.Handle(P.T_OPAQUE, B)),
        sys_call(P.DEV_FREE_DATA, CPU, P.Handle(P.T_OPAQUE, B)),
        sys_call(P.FREE_HANDLE, P.Handle(P.T_OPAQUE, DEMO_RUN)), call(DEMO_RUN, TA, TB, TOUT),
        sys_call(P.GET_GLOBAL_FUNC, "tvm.rpc.server.GetCRTMaxPacketSize"), call(BUILTIN | 0),
        sys_call(P.GET_GLOBAL_FUNC, "ffi.SystemLib"), sys_call(P.GET_GLOBAL_FUNC, "no.such"),
    ])
    # every argument type index, as an argument of GetGlobalFunc (a syscall) and of a CRT call
    payloads = {
        P.T_NONE: b"", P.T_INT: struct.pack("<q", 7), P.T_BOOL: struct.pack("<q", 1),
        P.T_FLOAT: struct.pack("<d", 1.5), P.T_OPAQUE: struct.pack("<Q", A),
        P.T_DTYPE: struct.pack("<BBHi", 0, 8, 1, 0), P.T_DEVICE: struct.pack("<ii", 1, 0),
        P.T_DLTENSOR: P.encode_tensor(TB), P.T_RAWSTR: struct.pack("<Q", 3) + b"abc",
        P.T_BYTEARRAY: struct.pack("<Q", 3) + b"a\x00c", 10: b"", 11: struct.pack("<IQ", P.T_STR, 2) + b"hi",
        12: struct.pack("<IQ", P.T_BYTES, 2) + b"h\x00", 64: struct.pack("<IQ", P.T_RPC_OBJECT_REF, A),
        P.T_STR: struct.pack("<IQ", P.T_STR, 2) + b"hi", P.T_BYTES: struct.pack("<IQ", P.T_BYTES, 1) + b"\x00",
        P.T_FUNCTION: struct.pack("<Q", DEMO_RUN), P.T_TENSOR: struct.pack("<IQ", P.T_RPC_OBJECT_REF, A),
        P.T_MODULE: struct.pack("<Q", MODULE), P.T_RPC_OBJECT_REF: struct.pack("<IQ", P.T_RPC_OBJECT_REF, A),
        200: struct.pack("<IQ", 999, 0), -5: b"",
    }
    for t, payload in payloads.items():
        arg = raw_arg(t, payload)
        c[f"type_{t}"] = (P.packet(P.GET_GLOBAL_FUNC, arg) + P.packet(P.CALL_FUNC, struct.pack("<Q", DEMO_RUN) + arg)
                          + P.packet(P.CALL_FUNC, struct.pack("<Q", DEMO_RUN) + struct.pack("<i", 3)
                                     + arg[4:] + P.encode_args((TB, TOUT))[4:]))
    # hostile: opaque and object handles where tensors are expected, a fake DLTensor in the arena
    fake = _fake_dltensor()
    hostile = [copy_to(P.TensorDesc(FAKE, INT8, (64,)), fake)]
    for k in range(3):
        for value in (FAKE, 0x1000, ARENA_BASE - 64, ARENA_BASE + ARENA_BYTES):
            args = [TA, TB, TOUT]
            args[k] = P.Handle(P.T_OPAQUE, value)
            hostile.append(call(DEMO_RUN, *args))
        args = [TA, TB, TOUT]
        args[k] = P.Handle(P.T_FUNCTION, DEMO_RUN)
        hostile.append(call(DEMO_RUN, *args))
    c["hostile_opaque"] = b"".join(hostile)
    c["hostile_ranges"] = b"".join([
        call(DEMO_RUN, P.TensorDesc(ARENA_BASE - 64, INT8, (1, 2, 2, 2)), TB, TOUT),
        call(DEMO_RUN, TA, TB, P.TensorDesc(A + 4, INT8, (1, 8))),
        call(DEMO_RUN, TA, TB, P.TensorDesc(FAKE + 60, INT8, (1, 8))),
        call(DEMO_RUN, TA, TB, P.TensorDesc(ARENA_BASE + ARENA_BYTES - 4, INT8, (1, 8))),
        call(DEMO_RUN, TA, TB, P.TensorDesc(OUT, INT8, (1, 8), 4)),
        call(DEMO_RUN, P.TensorDesc(A, INT8, (1 << 30, 1 << 30, 4, 1)), TB, TOUT),
        call(DEMO_RUN, P.TensorDesc(A, (0, 8, 0xFFFF), (8,)), TB, TOUT),
        call(DEMO_RUN, P.TensorDesc(A, INT8, (-1,)), TB, TOUT),
        call(DEMO_RUN, P.TensorDesc(A, INT8, (8,), 0, (2, 0)), TB, TOUT),
        sys_call(P.DEV_FREE_DATA, CPU, P.Handle(P.T_OPAQUE, OUT)), call(DEMO_RUN, TA, TB, TOUT),
        copy_to(P.TensorDesc(FAKE, INT8, (64,)), b"\x01" * 8, 60), copy_from(P.TensorDesc(FAKE, INT8, (64,)), 8, 60),
        copy_from(P.TensorDesc(FAKE, INT8, (64,)), 8, (1 << 64) - 4),
    ])
    c["hostile_handles"] = b"".join([
        call(ARENA_BASE), call(DEMO_RUN + 1), call(MODULE), call(SYSTEM_LIB_GETTER + 1), call(BUILTIN | 9),
        call(EVALUATOR | 1), call(BUILTIN | 1, P.Handle(P.T_MODULE, A), "tvmgen_demo_run", True),
        call(BUILTIN | 1, P.Handle(P.T_MODULE, DEMO_RUN), "tvmgen_demo_run", True),
        sys_call(P.FREE_HANDLE, P.Handle(P.T_OPAQUE, DEMO_RUN)),
        sys_call(P.FREE_HANDLE, P.Handle(P.T_OPAQUE, DEMO_RUN)),
        call(DEMO_RUN, TA, TB, TOUT),
    ])
    evaluator_args = ("tvmgen_demo_run", P.KDL_CPU, 0, 2, 2, 0, 0, 0, 0, 0, "")
    c["time_evaluator"] = b"".join([
        sys_call(P.GET_GLOBAL_FUNC, "runtime.RPCTimeEvaluator"),
        call(BUILTIN | 2, P.Handle(P.T_MODULE, MODULE), *evaluator_args),
        call(EVALUATOR, TA, TB, TOUT),
        call(EVALUATOR, P.Handle(P.T_OPAQUE, FAKE), TB, TOUT),
        call(EVALUATOR, TA, TB, P.TensorDesc(A + 4, INT8, (1, 8))),
        call(BUILTIN | 2, P.Handle(P.T_MODULE, A), *evaluator_args),
        call(BUILTIN | 2, None, *evaluator_args),
        sys_call(P.FREE_HANDLE, P.Handle(P.T_OPAQUE, EVALUATOR)), call(EVALUATOR, TA, TB, TOUT),
    ])
    return {name: opening() + data for name, data in c.items()}


def codes_and_types(stream: bytes) -> tuple[set[int], set[int]]:
    """The RPC codes of a seed's packets and the argument type indices of their argument sequences
    (as far as the server's decoder reads them: for the test that the corpus reaches them all)."""
    codes: set[int] = set()
    types: set[int] = set()
    pos = 0
    while pos + 12 <= len(stream):
        (n,) = struct.unpack_from("<Q", stream, pos)
        body = stream[pos + 8:pos + 8 + n]
        pos += 8 + n
        if len(body) < 4:
            continue
        (code,) = struct.unpack_from("<i", body, 0)
        codes.add(code)
        start = 12 if code == P.CALL_FUNC else (4 if code >= P.GET_GLOBAL_FUNC else 0)
        if start and len(body) >= start + 8 and struct.unpack_from("<i", body, start)[0] > 0:
            types.add(struct.unpack_from("<i", body, start + 4)[0])   # the first argument's type index
    return codes, types


def write(out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    seeds = cases()
    for name, data in seeds.items():
        (out / f"{name}.bin").write_bytes(data)
    return len(seeds)
