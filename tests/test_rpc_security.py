"""A hostile RPC client (issue 22, docs/rpc.md "Threat model"): every attack on the server's handles
and tensors is refused with an RPC error, the server (built under ASan/UBSan, which abort on any
out-of-bounds access) stays up and the legitimate call stays byte-identical; over pipes and TCP, for
the full and the --minimal server. TCP: a silent or half-open client delays the next one by at most
the read timeout, a wrong key is refused, and the unmodified TVM client still works."""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import time_bound

from utvm_build import rpc, run_on_host
from utvm_build.rpc import protocol as P
from utvm_build.rpc.build import MINIMAL

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"
RUN = "tvmgen_digits_int8_run"
ARENA = 64 * 1024
TIMEOUT_MS = 500
#: What a loaded 2-core CI machine adds to the read timeout before the next client is served.
SLACK_S = 2.5

bounded = time_bound.fixture(180)


_BUILT: dict[str, Path] = {}


def _build(kind: str, tmp_path_factory) -> Path:
    if kind not in _BUILT:
        defines = MINIMAL if kind == "minimal" else ()
        _BUILT[kind] = rpc.build_host_server([MODEL], tmp_path_factory.mktemp("sec") / "srv", sanitize=True,
                                             defines=defines)
    return _BUILT[kind]


@pytest.fixture(scope="module", params=["full", "minimal"])
def server(request, tmp_path_factory) -> tuple[str, Path]:
    return request.param, _build(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def full_server(tmp_path_factory) -> Path:
    return _build("full", tmp_path_factory)


@pytest.fixture(scope="module")
def sample() -> tuple[np.ndarray, np.ndarray]:
    x = np.load(sorted(DIGITS.glob("sample_*.npy"))[0])
    return x, run_on_host(MODEL, [x])[0]


def _cmd(exe: Path, *extra: str) -> list[str]:
    return [str(exe), "--arena-bytes", str(ARENA), "--read-timeout-ms", str(TIMEOUT_MS), *extra]


class _Tcp:
    """The host server on TCP (PORT 0), killed at the end."""

    def __init__(self, exe: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(_cmd(exe, "--tcp", "0", *extra), stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("listening 127.0.0.1:"), line
        self.port = int(line.rsplit(":", 1)[1])

    def close(self) -> str:
        self.proc.kill()
        _, err = self.proc.communicate()
        return err


@pytest.fixture(params=["pipes", "tcp"])
def sess(request, server):
    kind, exe = server
    if request.param == "pipes":
        with rpc.popen(_cmd(exe), timeout=20) as s:
            yield kind, s
    else:
        srv = _Tcp(exe)
        try:
            with rpc.connect("127.0.0.1", srv.port, timeout=20) as s:
                yield kind, s
        finally:
            err = srv.close()
            assert "AddressSanitizer" not in err and "runtime error" not in err, err


def _refused(kind: str, fn, message: str) -> None:
    """fn() fails with the device's error (not a lost connection: ASan would have killed the server);
    the minimal server gives its own errors as codes."""
    with pytest.raises(rpc.RPCError) as e:
        fn()
    assert not isinstance(e.value, rpc.RPCConnectionError), e.value
    pattern = message if kind == "full" else f"({message})|(^rpc error \\d+$)"
    assert e.match(pattern), str(e.value)


def _legit(s: rpc.Session, run, sample) -> None:
    x, ref = sample
    y = s.empty(ref.shape, ref.dtype)
    xt = s.tensor(x)
    assert run(xt, y) is None
    assert y.numpy().tobytes() == ref.tobytes()
    xt.free()
    y.free()


def _fake_dltensor(data: int, shape_at: int, shape) -> bytes:
    """A DLTensor as a 64-bit host lays it out (data, device, ndim, dtype, shape*, strides*,
    byte_offset), followed by its shape."""
    return (struct.pack("<QiiiBBHQQQ", data, P.KDL_CPU, 0, len(shape), 0, 8, 1, shape_at, 0, 0)
            + struct.pack(f"<{len(shape)}q", *shape))


def test_hostile_tensors_refused(sess, sample):
    kind, s = sess
    x, ref = sample
    run = s.system_lib().get_function(RUN)
    xt, y = s.tensor(x), s.empty(ref.shape, ref.dtype)
    base = xt.address                       # the first allocation: the start of the arena
    y.copyfrom(np.full(ref.shape, 7, ref.dtype))
    # an opaque handle where a tensor is expected: addresses of the client's choice
    for value in (0x1000, base - 4096, base + ARENA + 64, 0xFFFFFFFFFFFFFFF0):
        _refused(kind, lambda v=value: run(P.Handle(P.T_OPAQUE, v), y), "opaque handle")
        _refused(kind, lambda v=value: run(xt, P.Handle(P.T_OPAQUE, v)), "opaque handle")
    # a fake DLTensor written into the arena with CopyToRemote, passed as a handle: its data points
    # before the arena (the server's heap) and elsewhere in the arena; never read as a tensor
    fake = s.empty((256,), "int8")
    for target in (base - 4096, base + ARENA - 8, fake.address + 128):
        blob = _fake_dltensor(target, fake.address + 48, ref.shape)
        fake.copyfrom(np.frombuffer(blob.ljust(256, b"\0"), np.int8))
        _refused(kind, lambda: run(xt, P.Handle(P.T_OPAQUE, fake.address)), "must be a DLTensor handle")
        _refused(kind, lambda: run(P.Handle(P.T_OPAQUE, fake.address), y), "must be a DLTensor handle")
    # object handles (RPCObjectRef) and function handles as tensors
    obj = struct.pack("<iIQ", P.T_RPC_OBJECT_REF, P.T_RPC_OBJECT_REF, y.address)   # i32 t, u32 t, u64 handle
    body = struct.pack("<Qi", run.handle, 2) + P.encode_args((xt.desc(),))[4:] + obj
    _refused(kind, lambda: s._request(P.packet(P.CALL_FUNC, body)), "object handles")
    _refused(kind, lambda: run(xt, P.Handle(P.T_FUNCTION, run.handle)), "wrong|DLTensor")
    # DLTensors outside every live allocation: out of the arena, straddling two, past one, freed
    other = s.empty((16,), "int8")
    out_desc = P.TensorDesc(0, P.dl_dtype(ref.dtype), ref.shape)
    for address in (base - 64, base + ARENA - 4, y.address + 8, other.address + 12):
        bad = P.TensorDesc(address, out_desc.dtype, out_desc.shape)
        _refused(kind, lambda b=bad: s._call(run.handle, (xt.desc(), b)), "not inside one arena allocation")
    _refused(kind, lambda: s._call(run.handle, (xt.desc(), y.desc(byte_offset=4))),
             "not inside one arena allocation|byte_offset")
    huge = P.TensorDesc(y.address, out_desc.dtype, (1 << 31, 1 << 31))
    _refused(kind, lambda: s._call(run.handle, (xt.desc(), huge)), "tensor")
    freed = s.empty(ref.shape, ref.dtype)
    freed_desc = freed.desc()
    freed.free()
    _refused(kind, lambda: s._call(run.handle, (xt.desc(), freed_desc)), "not inside one arena allocation")
    # nothing was written: the output still holds its 7s, and the legitimate call is byte-identical
    assert (y.numpy() == 7).all()
    _legit(s, run, sample)


def test_hostile_handles_refused(sess, sample):
    kind, s = sess
    lib = s.system_lib()
    run = lib.get_function(RUN)
    t = s.empty((64,), "int8")
    for bogus in (t.address, run.handle + 1, lib.handle, 0x7FFF0001, 0x80000000 | 0x12345):
        _refused(kind, lambda b=bogus: s._call(b, ()), "invalid function handle")
    for bogus in (t.address, run.handle, 0x8003):
        _refused(kind, lambda b=bogus: rpc.Module(s, b).get_function(RUN), "invalid module handle")
    _refused(kind, lambda: run(rpc.Module(s, t.address), t), "invalid module handle")
    # FreeHandle drops the server's record: the freed handle is refused, a new lookup works
    run.free()
    _refused(kind, lambda: run(t, t), "invalid function handle")
    _legit(s, lib.get_function(RUN), sample)


@pytest.mark.parametrize("link", ["pipes", "tcp"])
def test_hostile_time_evaluator(full_server, link, sample):
    """(The minimal server has no time evaluator: test_rpc.py's test_minimal_server checks that.)"""
    if link == "pipes":
        with rpc.popen(_cmd(full_server), timeout=20) as s:
            _hostile_time_evaluator(s, sample)
    else:
        srv = _Tcp(full_server)
        try:
            with rpc.connect("127.0.0.1", srv.port, timeout=20) as s:
                _hostile_time_evaluator(s, sample)
        finally:
            err = srv.close()
        assert "AddressSanitizer" not in err and "runtime error" not in err, err


def _hostile_time_evaluator(s: rpc.Session, sample) -> None:
    kind = "full"
    x, ref = sample
    lib = s.system_lib()
    t = s.empty((64,), "int8")
    _refused(kind, lambda: rpc.Module(s, t.address).time_evaluator(RUN, 1, 1), "invalid module handle")
    ev = lib.time_evaluator(RUN, number=1, repeat=2)
    xt, y = s.tensor(x), s.empty(ref.shape, ref.dtype)
    fake = s.empty((256,), "int8")
    fake.copyfrom(np.frombuffer(_fake_dltensor(xt.address - 4096, fake.address + 48, ref.shape).ljust(256, b"\0"),
                                np.int8))
    _refused(kind, lambda: ev(xt, P.Handle(P.T_OPAQUE, 0x1000)), "opaque handle")
    _refused(kind, lambda: ev(xt, P.Handle(P.T_OPAQUE, fake.address)), "must be a DLTensor handle")
    _refused(kind, lambda: ev(xt, P.TensorDesc(y.address + 8, P.dl_dtype(ref.dtype), ref.shape)),
             "not inside one arena allocation")
    _refused(kind, lambda: s._call(0x7D00000000000005, (xt.desc(), y.desc())), "evaluator")
    assert len(ev(xt, y)) == 2
    assert y.numpy().tobytes() == ref.tobytes()


# ---- TCP: timeouts and the key ----------------------------------------------------------------------

def _serve_second_client(port: int, key: str = "") -> float:
    t0 = time.monotonic()
    with rpc.connect("127.0.0.1", port, key=key, timeout=20) as s:
        assert s.get_function("runtime.SystemLib") is not None
    return time.monotonic() - t0


@pytest.mark.parametrize("first", ["silent", "half_open", "idle_session", "partial_packet"])
def test_silent_client_delays_the_next_by_at_most_the_timeout(full_server, first):
    srv = _Tcp(full_server)
    held = None
    try:
        if first == "idle_session" or first == "partial_packet":
            held = rpc.connect("127.0.0.1", srv.port, timeout=20)
            held.get_function("runtime.SystemLib")
            if first == "partial_packet":
                held._t.send(struct.pack("<Qi", 100, P.GET_GLOBAL_FUNC), 5)
        else:
            held = socket.create_connection(("127.0.0.1", srv.port))
            if first == "half_open":
                held.sendall(struct.pack("<i", P.TCP_MAGIC))   # the handshake stops after the magic
        time.sleep(0.05)
        elapsed = _serve_second_client(srv.port)
        print(f"{first}: second client served after {elapsed:.3f} s", file=sys.stderr)
        # silent, half-open, idle: one read timeout; stopped mid-packet: the packet's timeout, then idle
        bound = (2 if first == "partial_packet" else 1) * TIMEOUT_MS / 1000 + SLACK_S
        assert elapsed < bound, f"second client served after {elapsed:.2f} s"
    finally:
        if held is not None:
            held.close()
        err = srv.close()
    assert "AddressSanitizer" not in err, err


def test_idle_session_kept_while_nobody_waits(full_server, sample):
    srv = _Tcp(full_server)
    try:
        with rpc.connect("127.0.0.1", srv.port, timeout=20) as s:
            run = s.system_lib().get_function(RUN)
            time.sleep(3 * TIMEOUT_MS / 1000)   # idle longer than the timeout, no other client
            _legit(s, run, sample)
    finally:
        srv.close()


def test_wrong_key_refused(full_server, sample):
    srv = _Tcp(full_server, "--key", "s3cret")
    try:
        for key in ("", "wrong", "s3cre", "s3crett"):
            with pytest.raises(rpc.RPCConnectionError, match="wrong key"):
                rpc.connect("127.0.0.1", srv.port, key=key, timeout=10)
        with rpc.connect("127.0.0.1", srv.port, key="s3cret", timeout=20) as s:
            _legit(s, s.system_lib().get_function(RUN), sample)
    finally:
        err = srv.close()
    assert err.count("wrong key") == 4


def test_tvm_client_with_key_and_refused_key(full_server, sample):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    x, ref = sample
    srv = _Tcp(full_server, "--key", "s3cret")
    try:
        with pytest.raises(Exception, match="key"):
            tvm_rpc.connect("127.0.0.1", srv.port, key="other")
        remote = tvm_rpc.connect("127.0.0.1", srv.port, key="s3cret")
        dev = remote.cpu()
        y = tvm.runtime.tensor(np.zeros(ref.shape, ref.dtype), device=dev)
        remote.system_lib().get_function(RUN)(tvm.runtime.tensor(x, device=dev), y)
        assert y.numpy().tobytes() == ref.tobytes()
    finally:
        srv.close()


def test_bridge_handshake_timeout_and_key():
    """The Python bridge's handshake (utvm-build rpc-bridge --tcp): bounded, key checked."""
    from utvm_build.rpc.bridge import _handshake, key_matches

    assert key_matches(b"client:k -timeout=5", "k") and not key_matches(b"client:kk", "k")
    assert not key_matches(b"server:k", "k") and key_matches(b"client:", "")
    a, b = socket.socketpair()
    with a, b:
        t0 = time.monotonic()
        assert not _handshake(a, None, 0.3)                  # silent client
        assert time.monotonic() - t0 < 0.3 + SLACK_S
    a, b = socket.socketpair()
    with a, b:
        k = b"client:bad"
        b.sendall(struct.pack("<ii", P.TCP_MAGIC, len(k)) + k)
        assert not _handshake(a, "good", 1.0)
        assert struct.unpack("<i", b.recv(4)) == (P.TCP_MAGIC + 2,)
    a, b = socket.socketpair()
    with a, b:
        k = b"client:good"
        b.sendall(struct.pack("<ii", P.TCP_MAGIC, len(k)) + k)
        assert _handshake(a, "good", 1.0)
        assert struct.unpack("<i", b.recv(4)) == (P.TCP_MAGIC,)


def test_bridge_tcp_bounds_silent_clients_and_checks_the_key(full_server, sample):
    """utvm-build rpc-bridge --tcp in front of the host server speaking the serial frames."""
    import shlex

    device = shlex.join([str(full_server), "--framed", "--read-timeout-ms", str(TIMEOUT_MS)])
    proc = subprocess.Popen([sys.executable, "-m", "utvm_build.rpc.bridge", "--command", device, "--tcp", "0",
                             "--key", "k", "--timeout-ms", str(TIMEOUT_MS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening 127.0.0.1:"), line + proc.stderr.read()
        port = int(line.rsplit(":", 1)[1])
        with pytest.raises(rpc.RPCConnectionError, match="wrong key"):
            rpc.connect("127.0.0.1", port, key="other", timeout=10)
        with socket.create_connection(("127.0.0.1", port)):          # silent: no handshake
            time.sleep(0.05)
            elapsed = _serve_second_client(port, key="k")
            assert elapsed < TIMEOUT_MS / 1000 + SLACK_S, f"second client served after {elapsed:.2f} s"
        with rpc.connect("127.0.0.1", port, key="k", timeout=20) as idle:   # a session, then silence
            _legit(idle, idle.system_lib().get_function(RUN), sample)
            elapsed = _serve_second_client(port, key="k")
            assert elapsed < TIMEOUT_MS / 1000 + SLACK_S, f"second client served after {elapsed:.2f} s"
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert "wrong key" in err and "no valid handshake" in err and "idle" in err, err


def test_once_is_not_used_up_by_a_dropped_client(full_server):
    srv = _Tcp(full_server, "--once", "--key", "k")
    try:
        with socket.create_connection(("127.0.0.1", srv.port)):    # silent: dropped after the timeout
            time.sleep(0.05)
            with pytest.raises(rpc.RPCConnectionError, match="wrong key"):
                rpc.connect("127.0.0.1", srv.port, key="x", timeout=10)
            assert _serve_second_client(srv.port, key="k") < 2 * TIMEOUT_MS / 1000 + SLACK_S
        assert srv.proc.wait(timeout=10) == 0                        # --once: the served session ends it
    finally:
        srv.close()
