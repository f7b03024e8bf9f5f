"""Round-trip latency of an empty RPC call and upload / download throughput, per link.

    python -m benchmarks.rpc_latency [--links pipes tcp qemu-m4 ...] [--calls N] [--kib K] [--json FILE]

Links: ``pipes`` and ``tcp`` (the host server), ``pty-framed`` (the host server with the serial
framing on a pty, as a serial port), ``qemu-m4`` / ``qemu-m55`` (the firmware's UART through
QEMU's chardev, unframed), ``qemu-m4-framed`` (the same UART with the framing). The empty call is
``tvm.rpc.server.GetCRTMaxPacketSize`` (answered by the server itself: one CallFunc packet and one
Return); latency is the median of ``calls`` calls. Throughput: ``kib`` KiB uploaded with
CopyToRemote (split to the 4 KiB packet size) and downloaded with CopyFromRemote, best of 3.
QEMU's UART model has no baud rate: its figures are the emulator's, not a real line's (a real
115200-baud UART moves at most 11.5 KB/s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from utvm_build import rpc  # noqa: E402
from utvm_build.rpc.build import build_host_server, build_qemu_server  # noqa: E402

MODEL = ROOT / "examples" / "models" / "digits" / "digits_int8.tflite"
LINKS = ("pipes", "tcp", "pty-framed", "qemu-m4", "qemu-m55", "qemu-m4-framed")


def measure(s: rpc.Session, calls: int, kib: int) -> dict:
    f = s.get_function("tvm.rpc.server.GetCRTMaxPacketSize")
    f()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    data = np.frombuffer(os.urandom(kib * 1024), np.uint8)
    t = s.empty(data.shape, "uint8")
    up, down = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        t.copyfrom(data)
        up.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        back = t.numpy()
        down.append(time.perf_counter() - t0)
        assert back.tobytes() == data.tobytes()
    t.free()
    return {"empty_call_us": statistics.median(times) * 1e6, "upload_kib_s": kib / min(up),
            "download_kib_s": kib / min(down)}


def _session(link: str, work: Path, cleanup: list):
    if link in ("pipes", "tcp", "pty-framed"):
        server = work / "host_server"
        if not server.exists():
            build_host_server([MODEL], server)
        if link == "pipes":
            return rpc.popen([str(server), "--arena-bytes", "262144"], timeout=60)
        if link == "tcp":
            p = subprocess.Popen([str(server), "--tcp", "0", "--once"], stdout=subprocess.PIPE, text=True)
            cleanup.append(p)
            port = int(p.stdout.readline().rsplit(":", 1)[1])
            return rpc.connect("127.0.0.1", port, timeout=60)
        from utvm_build.rpc.serial_link import open_serial

        master, slave = os.openpty()
        p = subprocess.Popen([str(server), "--framed", "--forever", "--arena-bytes", "262144", str(master),
                              str(master)], pass_fds=(master,))
        cleanup += [p, master, slave]
        return open_serial(os.ttyname(slave), timeout=60)
    device = link.replace("-framed", "")
    fw = build_qemu_server([MODEL], work / f"fw_{link}", device=device, framed=link.endswith("-framed"))
    return rpc.popen(fw, timeout=60, framing=link.endswith("-framed"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rpc_latency", description=__doc__.split("\n")[0])
    p.add_argument("--links", nargs="+", choices=LINKS, default=list(LINKS))
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--kib", type=int, default=32, help="KiB moved each way (at most 48: the QEMU arena is 64 KiB)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    a = p.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory(prefix="rpc-latency-") as tmp:
        for link in a.links:
            cleanup: list = []
            try:
                with _session(link, Path(tmp), cleanup) as s:
                    results[link] = measure(s, a.calls, a.kib)
            finally:
                for c in cleanup:
                    if isinstance(c, int):
                        os.close(c)
                    else:
                        c.kill()
                        c.wait()
            r = results[link]
            print(f"{link:<16} empty call {r['empty_call_us']:8.1f} us   upload {r['upload_kib_s']:9.1f} KiB/s   "
                  f"download {r['download_kib_s']:9.1f} KiB/s", flush=True)
    if a.json:
        a.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
