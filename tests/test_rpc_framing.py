"""The serial framing (docs/rpc.md) end to end: our client and the host RPC server exchange frames
through a link that corrupts, drops or duplicates bytes (seeded), and the digits model still gives
outputs byte-identical to run_on_host."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import time_bound

from utvm_build import rpc, run_on_host
from utvm_build.rpc import client as C
from utvm_build.rpc import framing as F

ROOT = Path(__file__).resolve().parents[1]
DIGITS = ROOT / "examples" / "models" / "digits"
MODEL = DIGITS / "digits_int8.tflite"
RUN = "tvmgen_digits_int8_run"

bounded = time_bound.fixture(180)


class Lossy:
    """A byte transport that flips a bit or drops a byte with probability ``p`` each way (``dup``:
    sends the byte twice instead)."""

    def __init__(self, raw, p: float, seed: int, dup: bool = False) -> None:
        self.raw, self.p, self.rng, self.dup = raw, p, random.Random(seed), dup
        self.proc = raw.proc
        self.damaged = 0

    def _mangle(self, data: bytes) -> bytes:
        out = bytearray()
        for b in data:
            r = self.rng.random()
            if self.dup and r < self.p:
                self.damaged += 1
                out += bytes([b, b])                                   # duplicated
            elif r < self.p / 2:
                self.damaged += 1                                      # dropped
            elif r < self.p:
                self.damaged += 1
                out.append(b ^ (1 << self.rng.randrange(8)))          # a flipped bit
            else:
                out.append(b)
        return bytes(out)

    def send(self, data: bytes, timeout: float) -> None:
        self.raw.send(self._mangle(data), timeout)

    def recv_some(self, n: int, timeout: float) -> bytes:
        return self._mangle(self.raw.recv_some(n, timeout))

    def close(self) -> None:
        self.raw.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Path:
    return rpc.build_host_server([MODEL], tmp_path_factory.mktemp("rpcf") / "rpc_server", sanitize=True)


def test_frame_format_matches_the_c_encoder():
    assert F.crc16(b"123456789") == 0x29B1
    frame = F.encode(0, bytes([0x7E, 0x7D]))
    assert frame[:1] == b"\x7e" and frame[3:7] == b"\x7d\x5e\x7d\x5d" and b"\x7e" not in frame[1:]
    d = F.Decoder()
    noise = b"\x00\x7d\x13" + frame[:5]             # noise and a frame cut short by the next one
    assert d.feed(noise + frame + F.encode(3)) == [(0, bytes([0x7E, 0x7D])), (3, b"")]
    bad = bytearray(frame)
    bad[-1] ^= 1
    assert d.feed(bytes(bad)) == []


@pytest.fixture(scope="module")
def cases() -> list[tuple[np.ndarray, bytes]]:
    samples = [np.load(f) for f in sorted(DIGITS.glob("sample_*.npy"))[:2]]
    return [(x, run_on_host(MODEL, [x])[0].tobytes()) for x in samples]


@pytest.mark.parametrize("p, dup", [(0.0, False), (0.003, False), (0.003, True)])
def test_lossy_link_digits_byte_identical(server, cases, p, dup):
    raw = C._spawn([str(server), "--framed", "--arena-bytes", "65536"])
    lossy = Lossy(raw, p, seed=1234, dup=dup)
    link = F.FramedTransport(lossy, ack_timeout=0.05)
    with C.Session(link, timeout=30) as s:
        run = s.system_lib().get_function(RUN)
        y = s.empty((1, 10), "int8")
        for x, ref in cases:
            run(s.tensor(x), y)
            assert y.numpy().tobytes() == ref
        big = np.arange(2000, dtype=np.float32)       # 8 KB: 63 frames each way
        assert np.array_equal(s.tensor(big).numpy(), big)
        with pytest.raises(rpc.RPCError, match="wrong number of arguments"):
            run(y)
    if p:
        assert lossy.damaged > 10 and link.resent > 0   # the link did lose data, and it was resent


def test_framed_client_option(server):
    with rpc.popen([str(server), "--framed"], framing=True) as s:
        assert s.max_packet_bytes == 4096


def test_qemu_m4_framed(tmp_path, cases):
    import shutil

    if not (shutil.which("arm-none-eabi-gcc") and shutil.which("qemu-system-arm")):
        pytest.skip("arm-none-eabi-gcc and qemu-system-arm are needed (scripts/setup.sh installs them)")
    from utvm_build.rpc.build import build_qemu_server

    exe = build_qemu_server([MODEL], tmp_path / "srv", framed=True)
    with rpc.popen(exe, timeout=20, framing=True) as s:
        y = s.empty((1, 10), "int8")
        x, ref = cases[0]
        s.system_lib().get_function(RUN)(s.tensor(x), y)
        assert y.numpy().tobytes() == ref
