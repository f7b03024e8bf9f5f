"""A light client of TVM's RPC protocol (no TVM needed): drive a device running the CRT's RPC server.

    from utvm_build import rpc
    with rpc.popen("./rpc_server") as sess:                # or rpc.connect("127.0.0.1", port)
        run = sess.system_lib().get_function("tvmgen_digits_run")
        x = sess.tensor(image)                             # upload
        y = sess.empty((1, 10), "int8")
        run(x, y)
        print(y.numpy())                                   # download
        print(sess.time_evaluator("tvmgen_digits_run", number=10, repeat=3)(x, y))

A device error comes back as :class:`RPCError` with the device's message; a device that does not
answer within the timeout raises :class:`RPCTimeoutError` (never a hang), and one that went away
:class:`RPCConnectionError`. After a timeout or a lost connection the session is closed.
"""

from __future__ import annotations

import os
import select
import socket
import struct
import subprocess
import time
from collections.abc import Sequence

import numpy as np

from . import protocol as P
from .errors import RPCConnectionError, RPCError, RPCTimeoutError

#: Most bytes of a reply accepted (a reply is a Return, an Exception or a CopyAck of one chunk).
MAX_REPLY_BYTES = 1 << 26


# ---- transports -----------------------------------------------------------------------------

class _FdTransport:
    def __init__(self, rfd: int, wfd: int, proc: subprocess.Popen | None = None, sock: socket.socket | None = None):
        self.rfd, self.wfd, self.proc, self.sock = rfd, wfd, proc, sock

    def send(self, data: bytes, timeout: float) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        while view:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([], [self.wfd], [], left)[1]:
                raise RPCTimeoutError(f"the device did not take data within {timeout:g} s")
            try:
                n = os.write(self.wfd, view)
            except OSError as e:
                raise RPCConnectionError(f"the device closed the connection ({e.strerror}){self._exit()}") from None
            view = view[n:]

    def recv_some(self, n: int, timeout: float) -> bytes:
        """1..n bytes, as soon as any arrive."""
        if not select.select([self.rfd], [], [], max(timeout, 0))[0]:
            raise RPCTimeoutError(f"no answer from the device within {timeout:g} s")
        try:
            b = os.read(self.rfd, n)
        except OSError as e:
            raise RPCConnectionError(f"reading from the device failed ({e.strerror}){self._exit()}") from None
        if not b:
            raise RPCConnectionError(f"the device closed the connection{self._exit()}")
        return b

    def recv(self, n: int, timeout: float) -> bytes:
        chunks, got = [], 0
        deadline = time.monotonic() + timeout
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                raise RPCTimeoutError(f"no answer from the device within {timeout:g} s")
            try:
                b = os.read(self.rfd, n - got)
            except OSError as e:
                raise RPCConnectionError(f"reading from the device failed ({e.strerror}){self._exit()}") from None
            if not b:
                raise RPCConnectionError(f"the device closed the connection{self._exit()}")
            chunks.append(b)
            got += len(b)
        return b"".join(chunks)

    def _exit(self) -> str:
        if self.proc is None:
            return ""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        return f" (server process exited with status {code})"

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        else:
            for fd in {self.rfd, self.wfd}:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.proc is not None:
            try:   # a host server exits on Shutdown; an emulator (qemu-m4) does not
                self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _die_with_parent() -> None:
    """In the child (Linux): SIGKILL when the process that started it dies, so that a server or an
    emulator never outlives a client that was killed (prctl PR_SET_PDEATHSIG; kept across exec)."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))
    except (OSError, AttributeError):
        pass


def _spawn(command: Sequence[str]) -> _FdTransport:
    """Run ``command RFD WFD`` (as ``tvm.rpc.PopenSession`` does) and talk over the two pipes."""
    import sys

    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    try:
        proc = subprocess.Popen([*command, str(to_child_r), str(from_child_w)],
                                pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL,
                                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    except OSError as e:
        for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
            os.close(fd)
        raise RPCConnectionError(f"cannot start {command[0]}: {e.strerror}") from None
    os.close(to_child_r)
    os.close(from_child_w)
    return _FdTransport(from_child_r, to_child_w, proc=proc)


def _tcp(host: str, port: int, key: str, timeout: float) -> _FdTransport:
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as e:
        raise RPCConnectionError(f"cannot connect to {host}:{port}: {e.strerror or e}") from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setblocking(False)
    t = _FdTransport(sock.fileno(), sock.fileno(), sock=sock)
    k = ("client:" + key).encode()
    t.send(struct.pack("<ii", P.TCP_MAGIC, len(k)) + k, timeout)
    (magic,) = struct.unpack("<i", t.recv(4, timeout))
    if magic in (P.TCP_MAGIC + 1, P.TCP_MAGIC + 2):
        t.close()
        why = "the key is already in use" if magic == P.TCP_MAGIC + 1 else f"wrong key {key!r}"
        raise RPCConnectionError(f"{host}:{port} refused the session: {why}")
    if magic != P.TCP_MAGIC:
        t.close()
        raise RPCConnectionError(f"{host}:{port} is not a TVM RPC server (handshake answer 0x{magic:x})")
    (keylen,) = struct.unpack("<i", t.recv(4, timeout))
    t.recv(keylen, timeout)
    return t


# ---- remote objects ---------------------------------------------------------------------------

class Function:
    """A function on the device. Call it with ints, floats, bools, str, bytes, None, :class:`Tensor`,
    :class:`Module` or :class:`Function`; it returns what the device function returns."""

    def __init__(self, session: Session, handle: int, name: str) -> None:
        self.session, self.handle, self.name = session, handle, name

    def __call__(self, *args, timeout: float | None = None):
        return self.session._call(self.handle, args, timeout)

    def free(self) -> None:
        self.session._free_handle(self.handle)

    def __repr__(self) -> str:
        return f"<rpc.Function {self.name} 0x{self.handle:x}>"


class Module:
    """A module on the device (the system library)."""

    def __init__(self, session: Session, handle: int) -> None:
        self.session, self.handle = session, handle

    def get_function(self, name: str) -> Function:
        h = self.session._call(self.session._builtin("tvm.rpc.server.ModuleGetFunction"),
                               (P.Handle(P.T_MODULE, self.handle), name, True))
        if h is None:
            raise RPCError(f"the module on the device has no function {name!r}")
        return Function(self.session, h.handle, name)

    def time_evaluator(self, name: str, number: int = 1, repeat: int = 1) -> TimeEvaluator:
        return TimeEvaluator(self.session, P.Handle(P.T_MODULE, self.handle), name, number, repeat)


class TimeEvaluator:
    """Runs a device function ``repeat`` times ``number`` calls (after one warm-up call) between
    TVMPlatformTimerStart/Stop; calling it returns the mean seconds per call of each repeat."""

    def __init__(self, session: Session, module, name: str, number: int, repeat: int) -> None:
        self.session = session
        f = session._call(session._builtin("runtime.RPCTimeEvaluator"),
                          (module, name, P.KDL_CPU, 0, number, repeat, 0, 0, 0, 0, 0, ""))
        self.function = Function(session, f.handle, f"time_evaluator({name})")
        self.repeat = repeat

    def __call__(self, *args, timeout: float | None = None) -> list[float]:
        blob = self.function(*args, timeout=timeout)
        return list(struct.unpack(f"<{self.repeat}d", blob))

    def free(self) -> None:
        self.function.free()


class Tensor:
    """A tensor in the device's arena (``DevAllocData``); ``numpy()`` downloads, ``copyfrom`` uploads."""

    def __init__(self, session: Session, address: int, shape: tuple[int, ...], dtype) -> None:
        self.session, self.address = session, address
        self.shape, self.dtype = tuple(int(s) for s in shape), np.dtype(dtype)
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    def desc(self, byte_offset: int = 0) -> P.TensorDesc:
        return P.TensorDesc(self.address, P.dl_dtype(self.dtype), self.shape, byte_offset)

    def copyfrom(self, array) -> Tensor:
        a = np.ascontiguousarray(array, dtype=self.dtype)
        if a.size * a.itemsize != self.nbytes:
            raise ValueError(f"array of {a.size * a.itemsize} bytes for a tensor of {self.nbytes}")
        self.session._copy_to(self, a.tobytes())
        return self

    def numpy(self) -> np.ndarray:
        return np.frombuffer(self.session._copy_from(self), dtype=self.dtype).reshape(self.shape).copy()

    def free(self) -> None:
        if self.address:
            self.session._sys(P.DEV_FREE_DATA, ((P.KDL_CPU, 0), P.Handle(P.T_OPAQUE, self.address)))
            self.address = 0


# ---- session ----------------------------------------------------------------------------------

class Session:
    """One RPC session with a device over a transport (see :func:`popen` and :func:`connect`)."""

    def __init__(self, transport: _FdTransport, timeout: float = 10.0) -> None:
        self._t, self.timeout = transport, timeout
        self._closed = False
        self._max_packet: int | None = None
        self._builtins: dict[str, int] = {}
        try:
            self._request(P.packet(P.INIT_SERVER, struct.pack("<Q", len(P.PROTOCOL_VERSION))
                                   + P.PROTOCOL_VERSION + P.encode_args(())))
        except BaseException:
            self.close(shutdown=False)
            raise

    # -- public API
    def get_function(self, name: str) -> Function:
        """A global function of the device (TVMFuncGetGlobal)."""
        h = self._sys(P.GET_GLOBAL_FUNC, (name,))
        if h is None:
            raise RPCError(f"the device has no global function {name!r}")
        return Function(self, h.value, name)

    def system_lib(self) -> Module:
        return self.get_function("runtime.SystemLib")()

    def empty(self, shape, dtype) -> Tensor:
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        h = self._sys(P.DEV_ALLOC_DATA, ((P.KDL_CPU, 0), nbytes, 16, _DType(dtype)))
        return Tensor(self, h.value, tuple(shape), dtype)

    def tensor(self, array) -> Tensor:
        a = np.ascontiguousarray(array)
        t = self.empty(a.shape, a.dtype)
        try:
            return t.copyfrom(a)
        except BaseException:
            if not self._closed:
                t.free()
            raise

    def time_evaluator(self, name: str, number: int = 1, repeat: int = 1) -> TimeEvaluator:
        """Time a function of the system library (see :class:`TimeEvaluator`)."""
        return self.system_lib().time_evaluator(name, number, repeat)

    @property
    def max_packet_bytes(self) -> int:
        if self._max_packet is None:
            self._max_packet = self._call(self._builtin("tvm.rpc.server.GetCRTMaxPacketSize"), ())
        return self._max_packet

    def close(self, shutdown: bool = True) -> None:
        if self._closed:
            return
        self._closed = True
        if shutdown:
            try:
                self._t.send(P.packet(P.SHUTDOWN), 1.0)
            except RPCError:
                pass
        self._t.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- protocol
    def _builtin(self, name: str) -> int:
        if name not in self._builtins:
            h = self._sys(P.GET_GLOBAL_FUNC, (name,))
            if h is None:
                raise RPCError(f"the device has no {name} (not a utvm-build/TVM RPC server?)")
            self._builtins[name] = h.value
        return self._builtins[name]

    def _request(self, data: bytes, timeout: float | None = None, expect=P.RETURN):
        if self._closed:
            raise RPCConnectionError("the RPC session is closed")
        timeout = self.timeout if timeout is None else timeout
        try:
            self._t.send(data, timeout)
            (n,) = struct.unpack("<Q", self._t.recv(8, timeout))
            if n < 4 or n > MAX_REPLY_BYTES:
                raise RPCConnectionError(f"malformed reply from the device (length {n})")
            body = self._t.recv(n, timeout)
        except (RPCTimeoutError, RPCConnectionError):
            self.close(shutdown=False)   # the stream is out of step now: nothing more can be read
            raise
        r = P.Reader(body)
        (code,) = r.unpack("i")
        if code == P.EXCEPTION:
            vals = r.values()
            raise RPCError(str(vals[0]) if vals else "device error")
        if code != expect:
            self.close(shutdown=False)
            raise RPCConnectionError(f"unexpected reply code {code} from the device (expected {expect})")
        if code == P.COPY_ACK:
            return r.data[r.pos:]
        return r.values()

    def _sys(self, code: int, args):
        vals = self._request(P.packet(code, P.encode_args(args)))
        return vals[0] if vals else None

    def _call(self, handle: int, args, timeout: float | None = None):
        wire = []
        for a in args:
            if isinstance(a, Tensor):
                wire.append(a.desc())
            elif isinstance(a, Module):
                wire.append(P.Handle(P.T_MODULE, a.handle))
            elif isinstance(a, Function):
                wire.append(P.Handle(P.T_FUNCTION, a.handle))
            elif isinstance(a, np.ndarray):
                raise TypeError("pass a device Tensor (session.tensor(array)), not a NumPy array")
            elif isinstance(a, np.generic):
                wire.append(a.item())
            else:
                wire.append(a)
        vals = self._request(P.packet(P.CALL_FUNC, struct.pack("<Q", handle) + P.encode_args(wire)), timeout)
        return self._wrap(vals)

    def _wrap(self, vals: list):
        if not vals:
            return None
        ti = vals[0]
        if ti == P.T_NONE or len(vals) < 2:
            return None
        v = vals[1]
        if ti == P.T_FUNCTION:
            return Function(self, v.value, "(returned)")
        if ti == P.T_MODULE:
            return Module(self, v.value)
        if ti == P.T_TENSOR and isinstance(v, P.TensorDesc):
            dtype = _np_dtype(v.dtype)
            return Tensor(self, v.data + v.byte_offset, v.shape, dtype)
        if isinstance(v, P.Handle):
            return _Opaque(v.value)
        return v

    def _free_handle(self, handle: int) -> None:
        self._sys(P.FREE_HANDLE, (P.Handle(P.T_OPAQUE, handle),))

    def _chunk(self, t: Tensor) -> int:
        overhead = 4 + 8 + 8 + 4 + 4 + 8 + 8 * len(t.shape) + 8
        return max(1, self.max_packet_bytes - overhead)

    def _copy_to(self, t: Tensor, data: bytes) -> None:
        step = self._chunk(t)
        for off in range(0, len(data), step):
            part = data[off:off + step]
            body = P.encode_tensor(t.desc(off)) + struct.pack("<Q", len(part)) + part
            self._request(P.packet(P.COPY_TO_REMOTE, body))

    def _copy_from(self, t: Tensor) -> bytes:
        step = self._chunk(t)
        out = []
        for off in range(0, t.nbytes, step):
            n = min(step, t.nbytes - off)
            body = P.encode_tensor(t.desc(off)) + struct.pack("<Q", n)
            part = self._request(P.packet(P.COPY_FROM_REMOTE, body), expect=P.COPY_ACK)
            if len(part) != n:
                raise RPCConnectionError(f"the device sent {len(part)} bytes instead of {n}")
            out.append(part)
        return b"".join(out)


class _Opaque(int):
    """An opaque handle (pointer) returned by the device."""


class _DType:
    """A DataType argument (DevAllocData's type hint)."""

    def __init__(self, dtype) -> None:
        self.code, self.bits, self.lanes = P.dl_dtype(dtype)


def _np_dtype(dl: tuple[int, int, int]) -> np.dtype:
    code, bits, _ = dl
    kind = {0: "i", 1: "u", 2: "f", 6: "b"}.get(code)
    if kind is None:
        raise RPCError(f"the device returned a tensor of DLPack type code {code}")
    return np.dtype("bool") if kind == "b" else np.dtype(f"{kind}{bits // 8}")


def popen(command: str | os.PathLike | Sequence[str], timeout: float = 10.0, framing: bool = False) -> Session:
    """Start an RPC server program (``command RFD WFD``, like ``tvm.rpc.PopenSession``) and open a
    session on its pipes; ``framing``: the link carries the CRT's serial frames (a server started
    with ``--framed``, or firmware built with the framing layer)."""
    cmd = [os.fspath(command)] if isinstance(command, (str, os.PathLike)) else [os.fspath(c) for c in command]
    t = _spawn(cmd)
    if framing:
        from .framing import FramedTransport

        t = FramedTransport(t)
    return Session(t, timeout)


def connect(host: str, port: int, key: str = "", timeout: float = 10.0) -> Session:
    """Open a session with an RPC server on TCP (the handshake of ``tvm.rpc.connect``)."""
    return Session(_tcp(host, port, key, timeout), timeout)
