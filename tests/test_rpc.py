"""Host-driven execution (docs/rpc.md): the C runtime's RPC server as a host process (built under
ASan/UBSan), driven by our client over pipes and TCP and by the unmodified TVM client."""

from __future__ import annotations

import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import time_bound
from system_tools import need

from utvm_build import rpc, run_on_host
from utvm_build.rpc import protocol as P

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"
RUN = "tvmgen_digits_int8_run"
ARENA = 64 * 1024

bounded = time_bound.fixture(180)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Path:
    return rpc.build_host_server([MODEL], tmp_path_factory.mktemp("rpc") / "rpc_server", sanitize=True)


@pytest.fixture(scope="module")
def samples() -> list[np.ndarray]:
    return [np.load(p) for p in sorted(DIGITS.glob("sample_*.npy"))]


@pytest.fixture(scope="module")
def expected(samples) -> list[np.ndarray]:
    return [run_on_host(MODEL, [x])[0] for x in samples]


def _cmd(server: Path, *extra: str) -> list[str]:
    return [str(server), "--arena-bytes", str(ARENA), "--read-timeout-ms", "300", *extra]


@pytest.fixture
def sess(server):
    with rpc.popen(_cmd(server), timeout=20) as s:
        yield s


@pytest.fixture
def tcp_server(server):
    proc = subprocess.Popen(_cmd(server, "--tcp", "0"), stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("listening 127.0.0.1:"), line
    yield int(line.rsplit(":", 1)[1])
    proc.kill()
    proc.wait()


def _run_digits(s: rpc.Session, samples, expected) -> None:
    run = s.system_lib().get_function(RUN)
    y = s.empty((1, 10), "int8")
    for x, ref in zip(samples, expected):
        xt = s.tensor(x)
        assert run(xt, y) is None
        out = y.numpy()
        assert out.dtype == ref.dtype and out.shape == ref.shape
        assert out.tobytes() == ref.tobytes()
        xt.free()


def test_pipes_digits_byte_identical_to_host(sess, samples, expected):
    _run_digits(sess, samples, expected)


def test_tcp_digits_byte_identical_to_host(tcp_server, samples, expected):
    for _ in range(2):   # one session after the other on the same server
        with rpc.connect("127.0.0.1", tcp_server, timeout=20) as s:
            _run_digits(s, samples, expected)


def test_global_lookup_falls_back_to_the_system_library(sess, samples, expected):
    """TVMFuncGetGlobal: a name the global registry lacks is looked up in the system library."""
    via_global = sess.get_function(RUN)
    via_lib = sess.system_lib().get_function(RUN)
    x = sess.tensor(samples[3])
    y1, y2 = sess.empty((1, 10), "int8"), sess.empty((1, 10), "int8")
    via_global(x, y1)
    via_lib(x, y2)
    assert y1.numpy().tobytes() == y2.numpy().tobytes() == expected[3].tobytes()
    with pytest.raises(rpc.RPCError, match="no global function 'tvmgen_digits_int8'"):
        sess.get_function("tvmgen_digits_int8")


def test_time_evaluator(sess, samples):
    x, y = sess.tensor(samples[0]), sess.empty((1, 10), "int8")
    times = sess.time_evaluator(RUN, number=3, repeat=4)(x, y)
    assert len(times) == 4 and all(0 < t < 1 for t in times)


def test_scalars_strings_and_large_copies(sess):
    assert sess.max_packet_bytes == 4096
    big = np.arange(12000, dtype=np.float32)          # 12 packets each way
    t = sess.tensor(big)
    assert np.array_equal(t.numpy(), big)
    t.free()
    lib = sess.system_lib()
    with pytest.raises(rpc.RPCError, match="no function 'nope'"):
        lib.get_function("nope")


def test_device_errors_are_exceptions_with_the_device_message(sess, samples):
    run = sess.system_lib().get_function(RUN)
    x = sess.tensor(samples[0])
    with pytest.raises(rpc.RPCError, match="wrong number of arguments: expected 2, got 1"):
        run(x)
    with pytest.raises(rpc.RPCError, match="tensor shape mismatch"):
        run(x, sess.empty((1, 11), "int8"))
    with pytest.raises(rpc.RPCError, match="no global function 'no.such'"):
        sess.get_function("no.such")
    # the session goes on after each error
    y = sess.empty((1, 10), "int8")
    run(x, y)


def test_out_of_range_copies_and_calls(sess, samples):
    t = sess.empty((16,), "int8")
    outside = rpc.Tensor(sess, t.address + ARENA, (16,), "int8")
    with pytest.raises(rpc.RPCError, match="out of range"):
        outside.copyfrom(np.zeros(16, np.int8))
    with pytest.raises(rpc.RPCError, match="out of range"):
        outside.numpy()
    too_long = rpc.Tensor(sess, t.address, (32,), "int8")   # past the end of its allocation
    with pytest.raises(rpc.RPCError, match="out of range"):
        too_long.numpy()
    run = sess.system_lib().get_function(RUN)
    with pytest.raises(rpc.RPCError, match="out of range"):
        run(rpc.Tensor(sess, t.address + ARENA, (1, 8, 8, 1), "int8"), t)
    with pytest.raises(rpc.RPCError, match="not an allocation"):
        rpc.Tensor(sess, t.address + 1, (1,), "int8").free()


def test_arena_exhausted(sess):
    a = sess.empty((ARENA // 2,), "int8")
    with pytest.raises(rpc.RPCError, match="arena exhausted"):
        sess.empty((ARENA // 2 + 1,), "int8")
    a.free()
    sess.empty((ARENA // 2 + 1,), "int8").free()   # the space is back


MALFORMED = {
    # code: (body after the code, expected message)
    P.SHUTDOWN: (b"xyz", "bytes after the last field"),
    P.INIT_SERVER: (struct.pack("<Q", 5) + b"0.9.9" + struct.pack("<i", 0), "version mismatch"),
    P.CALL_FUNC: (struct.pack("<Qi", 0x1234, 1) + struct.pack("<i", 42), "unknown argument type index 42"),
    P.RETURN: (b"", "unexpected RPC code 4"),
    P.EXCEPTION: (b"", "unexpected RPC code 5"),
    P.COPY_FROM_REMOTE: (struct.pack("<QiiiI", 0, 1, 0, 99, 0x10800), "ndim 99"),
    P.COPY_TO_REMOTE: (struct.pack("<Q", 7), "runs past the end"),
    P.COPY_ACK: (b"", "unexpected RPC code 8"),
    P.GET_GLOBAL_FUNC: (struct.pack("<i", 99), "argument count 99"),
    P.FREE_HANDLE: (struct.pack("<ii", 1, 8) + struct.pack("<Q", 1000), "TVM_CRT_RPC_STR_POOL_BYTES"),
    11: (struct.pack("<i", -1), "argument count"),
    12: (struct.pack("<ii", 1, 50), "unknown argument type index 50"),
    P.DEV_ALLOC_DATA: (P.encode_args([1, 2]), "DevAllocData: arguments"),
    P.DEV_FREE_DATA: (P.encode_args([(1, 0), "x"]), "DevFreeData: not a pointer"),
    P.DEV_STREAM_SYNC: (b"\x01", "runs past the end"),
    P.COPY_AMONG_REMOTE: (P.encode_args([1]), "CopyAmongRemote: arguments"),
    P.DEV_ALLOC_DATA_WITH_SCOPE: (P.encode_args([P.TensorDesc(0, (0, 8, 1), (4,)), "texture"]), "scope"),
    18: (b"", "runs past the end"),
    19: (b"\x00\x00", "runs past the end"),
    20: (P.encode_args([]) + b"!", "bytes after the last field"),
    21: (struct.pack("<i", 1), "runs past the end"),
    22: (b"", "unknown RPC code 22"),
    0: (b"", "unknown RPC code 0"),
    -7: (b"", "unknown RPC code"),
}


@pytest.mark.parametrize("code", sorted(MALFORMED))
def test_malformed_packet_of_every_code(sess, code):
    body, message = MALFORMED[code]
    with pytest.raises(rpc.RPCError, match=message):
        sess._request(P.packet(code, body))
    assert sess.max_packet_bytes == 4096                  # still in step
    assert sess.get_function("runtime.SystemLib") is not None


def test_malformed_lengths(sess):
    with pytest.raises(rpc.RPCError, match="outside 4"):
        sess._request(struct.pack("<Q", 2) + b"ab")
    t0 = time.monotonic()   # a packet that stops arriving: answered after --read-timeout-ms (300)
    with pytest.raises(rpc.RPCError, match="truncated"):
        sess._request(struct.pack("<Qi", 100, P.GET_GLOBAL_FUNC))
    assert time.monotonic() - t0 < 5
    assert sess.get_function("runtime.SystemLib") is not None


def test_dead_device_and_silent_device(server, tmp_path):
    s = rpc.popen(_cmd(server), timeout=5)
    s._t.proc.kill()
    with pytest.raises(rpc.RPCConnectionError, match="closed the connection"):
        s.get_function("runtime.SystemLib")
    with pytest.raises(rpc.RPCConnectionError, match="closed"):
        s.get_function("runtime.SystemLib")
    silent = tmp_path / "silent.py"
    silent.write_text("import time\ntime.sleep(60)\n")
    t0 = time.monotonic()
    with pytest.raises(rpc.RPCTimeoutError, match="no answer from the device within 1 s"):
        rpc.popen([sys.executable, str(silent)], timeout=1)
    assert time.monotonic() - t0 < 10


def test_command_line_rpc_server(tmp_path, samples, expected):
    from utvm_build.cli import main

    out = tmp_path / "srv"
    assert main(["rpc-server", str(MODEL), "--device", "host", "-o", str(out)]) == 0
    with rpc.popen(out) as s:
        _run_digits(s, samples[:1], expected[:1])


# ---- the unmodified TVM client ------------------------------------------------------------------

def _tvm_global_and_system_lib_agree(tvm, remote, samples, expected) -> None:
    """TVM's client finds the model's entry both as a global function (the CRT's TVMFuncGetGlobal
    falls back to the system library) and in system_lib(); the outputs are byte-identical."""
    dev = remote.cpu()
    via_global = remote.get_function(RUN)
    via_lib = remote.system_lib()[RUN]
    for x, ref in zip(samples, expected):
        outs = []
        for run in (via_global, via_lib):
            y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
            run(tvm.runtime.tensor(x, device=dev), y)
            outs.append(y.numpy().tobytes())
        assert outs[0] == outs[1] == ref.tobytes()


def test_tvm_popen_session(server, samples, expected):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    remote = tvm_rpc.PopenSession(str(server))
    dev = remote.cpu()
    run = remote.system_lib().get_function(RUN)
    y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    for x, ref in zip(samples, expected):
        run(tvm.runtime.tensor(x, device=dev), y)
        assert y.numpy().tobytes() == ref.tobytes()
    _tvm_global_and_system_lib_agree(tvm, remote, samples, expected)
    ev = remote.system_lib().time_evaluator(RUN, dev, number=2, repeat=3)
    assert len(ev(tvm.runtime.tensor(samples[0], device=dev), y).results) == 3
    with pytest.raises(Exception, match="wrong number of arguments"):
        run(y)
    assert remote.get_function("tvm.rpc.server.GetCRTMaxPacketSize")() == 4096
    remote._sess.get_function("CloseRPCConnection")()


def test_tvm_connect_tcp(tcp_server, samples, expected):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    remote = tvm_rpc.connect("127.0.0.1", tcp_server)
    dev = remote.cpu()
    y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    remote.system_lib().get_function(RUN)(tvm.runtime.tensor(samples[1], device=dev), y)
    assert y.numpy().tobytes() == expected[1].tobytes()


def test_minimal_server(tmp_path, samples, expected):
    """TVM_CRT_RPC_TIME_EVALUATOR, _COPY_AMONG_REMOTE and _ERROR_MESSAGES 0: models still run
    byte-identically, the server's errors are codes, the left-out parts say so."""
    from utvm_build.rpc.build import MINIMAL

    exe = rpc.build_host_server([MODEL], tmp_path / "min", sanitize=True, defines=MINIMAL)
    with rpc.popen(_cmd(exe), timeout=20) as s:
        _run_digits(s, samples[:2], expected[:2])
        with pytest.raises(rpc.RPCError, match="no runtime.RPCTimeEvaluator"):
            s.time_evaluator(RUN)
        t = s.empty((16,), "int8")
        with pytest.raises(rpc.RPCError, match=r"^rpc error \d+$"):   # out of range, as a code
            rpc.Tensor(s, t.address + ARENA, (16,), "int8").numpy()
        with pytest.raises(rpc.RPCError, match=r"^rpc error \d+$"):   # CopyAmongRemote is not there
            s._sys(P.COPY_AMONG_REMOTE, (t.desc(), t.desc(), None))
        with pytest.raises(rpc.RPCError, match="wrong number of arguments"):   # the CRT's messages stay
            s.system_lib().get_function(RUN)(t)


# ---- the same server as Cortex-M4 / M55 firmware on QEMU mps2-an386 / mps3-an547 ----------------------

@pytest.fixture(scope="module", params=["qemu-m4", "qemu-m55"])
def qemu_server(request, tmp_path_factory) -> Path:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    from utvm_build.rpc.build import build_qemu_server

    return build_qemu_server([MODEL], tmp_path_factory.mktemp("qemu") / "rpc_server", device=request.param)


def test_qemu_digits_byte_identical_to_host(qemu_server, samples, expected):
    with rpc.popen(qemu_server, timeout=20) as s:
        _run_digits(s, samples, expected)
        x, y = s.tensor(samples[0]), s.empty((1, 10), "int8")
        assert len(s.time_evaluator(RUN, number=2, repeat=2)(x, y)) == 2   # SysTick timer
        with pytest.raises(rpc.RPCError, match="wrong number of arguments"):
            s.system_lib().get_function(RUN)(x)
        with pytest.raises(rpc.RPCError, match="arena exhausted"):
            s.empty((1 << 20,), "int8")


def test_qemu_tvm_popen_session(qemu_server, samples, expected):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    remote = tvm_rpc.PopenSession(str(qemu_server))
    dev = remote.cpu()
    y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    remote.system_lib().get_function(RUN)(tvm.runtime.tensor(samples[2], device=dev), y)
    assert y.numpy().tobytes() == expected[2].tobytes()
    _tvm_global_and_system_lib_agree(tvm, remote, samples[:2], expected[:2])
    remote._sess.get_function("CloseRPCConnection")()   # Shutdown: the firmware leaves QEMU


@pytest.mark.parametrize("device", ["host", "qemu-m4", "qemu-m55"])
def test_run_on_device(device, samples, expected):
    if device != "host":
        need("arm-none-eabi-gcc", "qemu-system-arm")
    out = rpc.run_on_device(MODEL, [samples[3]], device=device)
    assert len(out) == 1 and out[0].tobytes() == expected[3].tobytes()
