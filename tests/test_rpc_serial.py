"""Serial links (docs/rpc.md): a pty pair stands in for a serial port between our client (termios,
or pyserial when installed) and the host RPC server with the framing; the bridge lets TVM's client
(which speaks unframed packets) use such a link and framed QEMU firmware, through PopenSession and
tvm.rpc.connect; a device reset in the middle of a call is reported and a new session recovers.
Every test has a hard time limit."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import time_bound
from system_tools import need

from utvm_build import rpc, run_on_host
from utvm_build.rpc.serial_link import open_serial, parse_port

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"
RUN = "tvmgen_digits_int8_run"

bounded = time_bound.fixture(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Path:
    return rpc.build_host_server([MODEL], tmp_path_factory.mktemp("rpcs") / "rpc_server", sanitize=True)


@pytest.fixture(scope="module")
def cases() -> list[tuple[np.ndarray, bytes]]:
    samples = [np.load(f) for f in sorted(DIGITS.glob("sample_*.npy"))[:3]]
    return [(x, run_on_host(MODEL, [x])[0].tobytes()) for x in samples]


class PtyDevice:
    """The host server with the framing on the master side of a pty; the slave's path is the
    "serial port". The master stays open here, so the server can be killed and restarted (a
    device reset) while the port stays."""

    def __init__(self, server: Path) -> None:
        self.server = server
        self.master, self.slave = os.openpty()   # the slave stays open: a master read fails without one
        self.port = os.ttyname(self.slave)
        self.proc: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        m = str(self.master)
        self.proc = subprocess.Popen([str(self.server), "--framed", "--forever", "--arena-bytes", "65536", m, m],
                                     pass_fds=(self.master,), stdin=subprocess.DEVNULL)

    def reset(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.start()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def pty_device(server):
    dev = PtyDevice(server)
    yield dev
    dev.close()


def _digits(s, cases) -> None:
    run = s.system_lib().get_function(RUN)
    y = s.empty((1, 10), "int8")
    for x, ref in cases:
        run(s.tensor(x), y)
        assert y.numpy().tobytes() == ref


def test_port_spec():
    assert parse_port("/dev/ttyACM0") == ("/dev/ttyACM0", 115200)
    assert parse_port("/dev/ttyUSB1,921600") == ("/dev/ttyUSB1", 921600)
    assert parse_port("COM3,9600") == ("COM3", 9600)


def test_our_client_over_a_serial_port(pty_device, cases):
    with open_serial(pty_device.port, timeout=20) as s:
        _digits(s, cases)
    with open_serial(pty_device.port + ",115200", timeout=20) as s:   # a second session on the same link
        _digits(s, cases[:1])


def test_device_reset_between_calls(pty_device, cases):
    s = open_serial(pty_device.port, timeout=20)
    x, y = s.tensor(cases[0][0]), s.empty((1, 10), "int8")
    ev = s.time_evaluator(RUN, number=10 ** 7, repeat=1)        # runs for minutes unless interrupted
    t0 = time.monotonic()
    pty_device.reset()                                         # the session's state on the device is gone
    with pytest.raises(rpc.RPCConnectionError, match="restarted"):
        ev(x, y)
    assert time.monotonic() - t0 < 15
    with pytest.raises(rpc.RPCConnectionError, match="closed"):   # that session says it is gone
        s.get_function("runtime.SystemLib")
    with open_serial(pty_device.port, timeout=20) as s2:           # a new one works
        _digits(s2, cases[:1])


def test_reset_while_the_device_computes(pty_device, cases):
    """The reset arrives while the device is busy (not reading): the announce after the restart
    still ends the waiting call with a clear error, within the time limit."""
    s = open_serial(pty_device.port, timeout=30)
    x, y = s.tensor(cases[0][0]), s.empty((1, 10), "int8")
    ev = s.time_evaluator(RUN, number=10 ** 7, repeat=1)
    import threading

    timer = threading.Timer(1.0, pty_device.reset)
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(rpc.RPCConnectionError, match="restarted"):
        ev(x, y)
    timer.join()
    assert 0.9 < time.monotonic() - t0 < 15


def test_silent_serial_port_times_out(tmp_path):
    from utvm_build.rpc.framing import FramedTransport
    from utvm_build.rpc.serial_link import open_raw

    master, slave = os.openpty()   # nothing answers on the other side
    t0 = time.monotonic()
    try:
        with pytest.raises(rpc.RPCTimeoutError, match="serial link reset"):
            FramedTransport(open_raw(os.ttyname(slave)), sync_timeout=1.0)
    finally:
        os.close(master)
        os.close(slave)
    assert time.monotonic() - t0 < 5


def test_run_device_serial(pty_device, cases, tmp_path):
    """`utvm-build run --device serial:PORT`: the board (here the pty device) already serves the
    model; the outputs equal the direct host run."""
    x, ref = cases[1]
    np.save(tmp_path / "x.npy", x)
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", str(MODEL), "--device",
                        f"serial:{pty_device.port},115200", "--input", str(tmp_path / "x.npy"),
                        "--output-dir", str(tmp_path / "out")], capture_output=True, text=True, timeout=110)
    assert p.returncode == 0, p.stderr
    assert np.load(tmp_path / "out" / "output_0.npy").tobytes() == ref


def test_missing_port_is_one_line_error(tmp_path):
    p = subprocess.run([sys.executable, "-m", "utvm_build", "run", str(MODEL), "--device",
                        f"serial:{tmp_path / 'nope'}"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "cannot open the serial port" in p.stderr


# ---- the bridge: TVM's client on a framed link -------------------------------------------------------

def test_tvm_popen_session_through_the_bridge_to_a_serial_port(pty_device, cases, tmp_path):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    from utvm_build.cli import main

    bridge = tmp_path / "bridge"
    assert main(["rpc-bridge", "--serial", pty_device.port, "-o", str(bridge)]) == 0
    remote = tvm_rpc.PopenSession(str(bridge))
    dev = remote.cpu()
    y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    run = remote.system_lib().get_function(RUN)
    for x, ref in cases:
        run(tvm.runtime.tensor(x, device=dev), y)
        assert y.numpy().tobytes() == ref
    remote._sess.get_function("CloseRPCConnection")()


@pytest.fixture(scope="module")
def qemu_bridge(tmp_path_factory) -> Path:
    need("arm-none-eabi-gcc", "qemu-system-arm")
    from utvm_build.cli import main

    out = tmp_path_factory.mktemp("qb") / "bridge"
    assert main(["rpc-server", str(MODEL), "--device", "qemu-m4", "--bridge", "-o", str(out)]) == 0
    return out


def test_tvm_popen_session_through_the_bridge_to_framed_qemu(qemu_bridge, cases):
    tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
    from tvm import rpc as tvm_rpc

    remote = tvm_rpc.PopenSession(str(qemu_bridge))
    dev = remote.cpu()
    y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    x, ref = cases[1]
    remote.system_lib().get_function(RUN)(tvm.runtime.tensor(x, device=dev), y)
    assert y.numpy().tobytes() == ref
    # the model's entry as a global function too (TVMFuncGetGlobal falls back to the system library)
    y2 = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
    remote.get_function(RUN)(tvm.runtime.tensor(x, device=dev), y2)
    assert y2.numpy().tobytes() == ref
    remote._sess.get_function("CloseRPCConnection")()


def test_tcp_bridge_to_framed_qemu(qemu_bridge, cases):
    proc = subprocess.Popen([sys.executable, "-m", "utvm_build", "rpc-bridge", "--command",
                             str(qemu_bridge.with_name("bridge.qemu")), "--tcp", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening 127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1])
        with rpc.connect("127.0.0.1", port, timeout=20) as s:          # our client, unframed, via TCP
            _digits(s, cases)
        tvm = pytest.importorskip("tvm", reason="apache-tvm (pinned in the test extras) is not installed")
        from tvm import rpc as tvm_rpc

        remote = tvm_rpc.connect("127.0.0.1", port)                  # a second session: QEMU started anew
        dev = remote.cpu()
        y = tvm.runtime.tensor(np.zeros((1, 10), np.int8), device=dev)
        x, ref = cases[2]
        remote.system_lib().get_function(RUN)(tvm.runtime.tensor(x, device=dev), y)
        assert y.numpy().tobytes() == ref
    finally:
        proc.kill()
        proc.wait()
