"""The serial bridge: TVM's client speaks unframed RPC packets, a serial link needs the CRT's frames
(framing.py). The bridge relays between the two, both ways, byte for byte:

    python -m utvm_build.rpc.bridge (--serial PORT[,BAUD] | --command PROGRAM) RFD WFD
    python -m utvm_build.rpc.bridge (--serial PORT[,BAUD] | --command PROGRAM) --tcp PORT [--once]
        [--key KEY] [--timeout-ms N]

- ``RFD WFD``: the two pipe descriptors ``tvm.rpc.PopenSession`` hands to the program it starts
  (``utvm-build rpc-bridge ... -o PATH`` writes such a program: ``PopenSession(PATH)``);
- ``--tcp PORT``: sessions of ``tvm.rpc.connect("127.0.0.1", PORT)`` one after the other (PORT 0:
  a free port; the first line on stdout is ``listening 127.0.0.1:PORT``). The handshake must arrive
  within ``--timeout-ms`` (default 2000); with ``--key KEY`` a client with another key is refused
  (TVM's mismatch answer); a session whose client has had its answer and stayed silent for the
  timeout while another client waits is closed, so no client holds the bridge by saying nothing
  (docs/rpc.md, "Threat model").

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
#: Default of --timeout-ms: the handshake, a client that does not read, an idle session yielding.
DEFAULT_TIMEOUT_MS = 2000


def _write_all(fd: int, data: bytes, timeout: float | None = None) -> None:
    view = memoryview(data)
    while view:
        if not select.select([], [fd], [], timeout)[1]:
            raise OSError("the client does not read its replies")
        view = view[os.write(fd, view):]


def key_matches(sent: bytes, key: str) -> bool:
    """TVM's rule: the client's key is ``client:KEY`` and options after a space; compared whole."""
    import hmac

    return hmac.compare_digest(sent.split(b" ", 1)[0], b"client:" + key.encode())


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


def relay(up_r: int, up_w: int, link, should_yield=None, timeout: float = DEFAULT_TIMEOUT_MS / 1000) -> str:
    """Relay until the client closes its side (returns "closed") or the device goes (raises).
    ``should_yield()`` (TCP: another client waits): checked when the device spoke last (the client
    has its answer) and both sides have been silent for ``timeout``; True ends the session
    ("yielded")."""
    import time

    if link.rfd is None:
        raise UtvmError("the bridge needs a device link with a file descriptor (a POSIX serial port or a program)")
    last = time.monotonic()
    device_spoke_last = True
    while True:
        if link.rx:
            _write_all(up_w, bytes(link.rx), timeout if should_yield is not None else None)
            link.rx.clear()
            last, device_spoke_last = time.monotonic(), True
        ready = select.select([up_r, link.rfd], [], [], min(1.0, timeout))[0]
        if up_r in ready:
            try:
                data = os.read(up_r, 4096)
            except OSError:
                data = b""
            if not data:
                return "closed"
            link.send(data, 10.0)
            last, device_spoke_last = time.monotonic(), False
        if link.rfd in ready:
            link._pump(0.0)
        if (should_yield is not None and device_spoke_last and not link.rx
                and time.monotonic() - last >= timeout and should_yield()):
            print(f"rpc-bridge: session idle for {timeout:g} s while another client waits: closed", file=sys.stderr)
            return "yielded"


def _handshake(conn: socket.socket, key: str | None = None, timeout: float = DEFAULT_TIMEOUT_MS / 1000) -> bool:
    """The server side of tvm.rpc.connect's handshake: magic, key length, key, all within
    ``timeout``; with ``key``, another key gets TVM's mismatch answer (magic + 2) and is refused."""
    import time

    deadline = time.monotonic() + timeout

    def take(n: int) -> bytes:
        out = b""
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise OSError("handshake timed out")
            conn.settimeout(left)
            b = conn.recv(n - len(out))
            if not b:
                raise OSError("closed")
            out += b
        return out

    try:
        magic, keylen = struct.unpack("<ii", take(8))
        if magic != TCP_MAGIC or not 0 <= keylen <= 4096:
            return False
        sent = take(keylen)
        conn.settimeout(timeout)
        if key is not None and not key_matches(sent, key):
            conn.sendall(struct.pack("<i", TCP_MAGIC + 2))
            print("rpc-bridge: wrong key: connection refused", file=sys.stderr)
            return False
        conn.sendall(struct.pack("<ii", TCP_MAGIC, len(SERVER_KEY)) + SERVER_KEY)
    except OSError as e:
        print(f"rpc-bridge: no valid handshake within {timeout:g} s ({e}): connection dropped", file=sys.stderr)
        return False
    return True


def _session(up_r: int, up_w: int, serial: str | None, command: str | None, should_yield=None,
             timeout: float = DEFAULT_TIMEOUT_MS / 1000) -> None:
    from .client import RPCError

    link = None
    try:
        link = _open_device(serial, command)
        relay(up_r, up_w, link, should_yield, timeout)
    except (RPCError, OSError) as e:
        print(f"rpc-bridge: {e}", file=sys.stderr)
    finally:
        if link is not None:
            link.close()


def serve_tcp(port: int, once: bool, serial: str | None, command: str | None, key: str | None = None,
              timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
    """Serve tvm.rpc.connect sessions on 127.0.0.1 only, one at a time (see the module's text)."""
    timeout = timeout_ms / 1000
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(4)
    print(f"listening 127.0.0.1:{listener.getsockname()[1]}", flush=True)

    def client_waiting() -> bool:
        return bool(select.select([listener], [], [], 0)[0])

    try:
        while True:
            conn, _ = listener.accept()
            with conn:
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                served = _handshake(conn, key, timeout)
                if served:
                    conn.setblocking(False)
                    _session(conn.fileno(), conn.fileno(), serial, command, client_waiting, timeout)
            if once and served:   # a dropped or refused connection does not use up --once
                break
    finally:
        listener.close()


def add_arguments(p: argparse.ArgumentParser) -> None:
    dev = p.add_mutually_exclusive_group(required=True)
    dev.add_argument("--serial", metavar="PORT[,BAUD]", help="a board on this serial port (default 115200 baud)")
    dev.add_argument("--command", dest="program", metavar="PROGRAM",
                     help="a program started as 'PROGRAM RFD WFD' for each session, its descriptors carrying "
                          "frames (the launcher of rpc-server --device qemu-m4|qemu-m55 --framed)")


def add_tcp_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--key", help="with --tcp: accept only clients connecting with this key "
                                 "(tvm.rpc.connect(..., key=KEY))")
    p.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS, metavar="N",
                   help="with --tcp: the handshake's time limit, and how long a silent session holds the bridge "
                        f"while another client waits (default {DEFAULT_TIMEOUT_MS})")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m utvm_build.rpc.bridge",
                                description="relay TVM RPC packets to a framed serial link")
    add_arguments(p)
    p.add_argument("--tcp", type=int, metavar="PORT", help="serve tvm.rpc.connect sessions on 127.0.0.1:PORT")
    p.add_argument("--once", action="store_true", help="with --tcp: one session, then exit")
    add_tcp_arguments(p)
    p.add_argument("fds", nargs="*", type=int, metavar="RFD WFD")
    a = p.parse_args(argv)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # clean up the device side (finally) on kill
    if (a.tcp is None) == (len(a.fds) != 2) or len(a.fds) not in (0, 2):
        p.error("give RFD WFD or --tcp PORT")
    if not 1 <= a.timeout_ms <= 3_600_000:
        p.error("--timeout-ms: 1 .. 3600000")
    try:
        if a.tcp is not None:
            serve_tcp(a.tcp, a.once, a.serial, a.program, a.key, a.timeout_ms)
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
