"""The serial bridge: TVM's client speaks unframed RPC packets, a serial link needs the CRT's frames
(framing.py). The bridge relays between the two, both ways, byte for byte:

    python -m utvm_build.rpc.bridge (--serial PORT[,BAUD] | --command PROGRAM) RFD WFD
    python -m utvm_build.rpc.bridge (--serial PORT[,BAUD] | --command PROGRAM) --tcp PORT [--once]

- ``RFD WFD``: the two pipe descriptors ``tvm.rpc.PopenSession`` hands to the program it starts
  (``utvm-build rpc-bridge ... -o PATH`` writes such a program: ``PopenSession(PATH)``);
- ``--tcp PORT``: sessions of ``tvm.rpc.connect("127.0.0.1", PORT)`` one after the other (PORT 0:
  a free port; the first line on stdout is ``listening 127.0.0.1:PORT``).

The device side is a serial port (a board running the framed RPC firmware) or ``PROGRAM RFD WFD``
whose descriptors carry frames (the launcher of framed QEMU firmware, ``utvm-build rpc-server
--device qemu-m4 --framed``), started for each session. Every session begins with a link reset;
when the device restarts in the middle of one, or stops answering, the bridge ends the session
(the client sees the connection close) and says why on stderr."""

from __future__ import annotations

import argparse
import os
import select
import shlex
import socket
import struct
import sys
from collections.abc import Sequence

from ..errors import UtvmError
from .protocol import TCP_MAGIC

SERVER_KEY = b"server:utvm-build-bridge"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        select.select([], [fd], [])
        view = view[os.write(fd, view):]


def _open_device(serial: str | None, command: str | None):
    """The framed link to the device, reset and ready."""
    from .client import _spawn
    from .framing import FramedTransport
    from .serial_link import open_link

    if serial is not None:
        return open_link(serial)
    raw = _spawn(shlex.split(command or ""))
    try:
        return FramedTransport(raw)
    except BaseException:
        raw.close()
        raise


def relay(up_r: int, up_w: int, link) -> str:
    """Relay until the client closes its side (returns "closed") or the device goes (raises)."""
    if link.rfd is None:
        raise UtvmError("the bridge needs a device link with a file descriptor (a POSIX serial port or a program)")
    while True:
        if link.rx:
            _write_all(up_w, bytes(link.rx))
            link.rx.clear()
        ready = select.select([up_r, link.rfd], [], [], 1.0)[0]
        if up_r in ready:
            try:
                data = os.read(up_r, 4096)
            except OSError:
                data = b""
            if not data:
                return "closed"
            link.send(data, 10.0)
        if link.rfd in ready:
            link._pump(0.0)


def _handshake(conn: socket.socket) -> bool:
    """The server side of tvm.rpc.connect's handshake: magic, key length, key."""
    def take(n: int) -> bytes:
        out = b""
        while len(out) < n:
            b = conn.recv(n - len(out))
            if not b:
                raise OSError("closed")
            out += b
        return out

    try:
        magic, keylen = struct.unpack("<ii", take(8))
        if magic != TCP_MAGIC or not 0 <= keylen <= 4096:
            return False
        take(keylen)
        conn.sendall(struct.pack("<ii", TCP_MAGIC, len(SERVER_KEY)) + SERVER_KEY)
    except OSError:
        return False
    return True


def _session(up_r: int, up_w: int, serial: str | None, command: str | None) -> None:
    from .client import RPCError

    link = None
    try:
        link = _open_device(serial, command)
        relay(up_r, up_w, link)
    except RPCError as e:
        print(f"rpc-bridge: {e}", file=sys.stderr)
    finally:
        if link is not None:
            link.close()


def serve_tcp(port: int, once: bool, serial: str | None, command: str | None) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(1)
    print(f"listening 127.0.0.1:{listener.getsockname()[1]}", flush=True)
    try:
        while True:
            conn, _ = listener.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if _handshake(conn):
                    _session(conn.fileno(), conn.fileno(), serial, command)
            if once:
                break
    finally:
        listener.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    dev = p.add_mutually_exclusive_group(required=True)
    dev.add_argument("--serial", metavar="PORT[,BAUD]", help="a board on this serial port (default 115200 baud)")
    dev.add_argument("--command", dest="program", metavar="PROGRAM",
                     help="a program started as 'PROGRAM RFD WFD' for each session, its descriptors carrying "
                          "frames (the launcher of rpc-server --device qemu-m4|qemu-m55 --framed)")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m utvm_build.rpc.bridge",
                                description="relay TVM RPC packets to a framed serial link")
    add_arguments(p)
    p.add_argument("--tcp", type=int, metavar="PORT", help="serve tvm.rpc.connect sessions on 127.0.0.1:PORT")
    p.add_argument("--once", action="store_true", help="with --tcp: one session, then exit")
    p.add_argument("fds", nargs="*", type=int, metavar="RFD WFD")
    a = p.parse_args(argv)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # clean up the device side (finally) on kill
    if (a.tcp is None) == (len(a.fds) != 2) or len(a.fds) not in (0, 2):
        p.error("give RFD WFD or --tcp PORT")
    try:
        if a.tcp is not None:
            serve_tcp(a.tcp, a.once, a.serial, a.program)
        else:
            _session(a.fds[0], a.fds[1], a.serial, a.program)
    except UtvmError as e:
        print(f"rpc-bridge: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


def write_launcher(output: str | os.PathLike, serial: str | None, command: str | None) -> None:
    """A program ``tvm.rpc.PopenSession`` can start: ``output RFD WFD`` runs the bridge."""
    from pathlib import Path

    dev = f"--serial {shlex.quote(serial)}" if serial is not None else f"--command {shlex.quote(str(command))}"
    from .build import install_program

    text = ("#!/bin/sh\n"
            "# The RPC bridge (utvm-build rpc-bridge): TVM's unframed packets on RFD WFD <-> framed device.\n"
            f"exec {shlex.quote(sys.executable)} -m utvm_build.rpc.bridge {dev} \"$@\"\n")
    install_program(Path(output), text.encode(), launcher=True)


if __name__ == "__main__":
    sys.exit(main())
