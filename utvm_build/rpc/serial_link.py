"""A serial port as an RPC link: raw bytes on a tty (POSIX termios, or pyserial when it is installed:
imported only here, only when a port is opened), carried in the CRT's frames (framing.py).

    from utvm_build.rpc.serial_link import open_serial
    with open_serial("/dev/ttyACM0,921600") as sess:     # PORT[,BAUD], default 115200 baud
        ...

The board runs firmware with the RPC server behind the framing (crt/ports/cmsdk_rpc_main.c with
UTVM_RPC_FRAMED=1 shows the calls; docs/rpc.md)."""

from __future__ import annotations

import os
import time

from ..errors import UtvmError
from .errors import RPCConnectionError, RPCTimeoutError

DEFAULT_BAUD = 115200


def parse_port(spec: str) -> tuple[str, int]:
    """``PORT[,BAUD]`` -> (port, baud)."""
    port, sep, baud = spec.rpartition(",")
    if not sep or not baud.isdigit():
        return spec, DEFAULT_BAUD
    if not port:
        raise UtvmError(f"serial port {spec!r}: no port before the baud rate")
    return port, int(baud)


class _PySerialTransport:
    """pyserial's port as a transport (send / recv_some / recv / close)."""

    proc = None

    def __init__(self, ser) -> None:
        self.ser = ser
        try:
            self.rfd = ser.fileno()   # POSIX: select() works on it
        except Exception:  # noqa: BLE001 - pyserial raises its own types on platforms without fds
            self.rfd = None

    def send(self, data: bytes, timeout: float) -> None:
        self.ser.write_timeout = timeout
        try:
            self.ser.write(data)
        except OSError as e:
            raise RPCConnectionError(f"writing to the serial port failed ({e})") from None
        except Exception as e:  # noqa: BLE001 - serial.SerialTimeoutException
            raise RPCTimeoutError(f"the serial port did not take data within {timeout:g} s ({e})") from None

    def recv_some(self, n: int, timeout: float) -> bytes:
        self.ser.timeout = max(timeout, 0)
        try:
            b = self.ser.read(1)
            if b:
                b += self.ser.read(min(self.ser.in_waiting, n - 1)) if n > 1 else b""
        except OSError as e:
            raise RPCConnectionError(f"reading from the serial port failed ({e})") from None
        if not b:
            raise RPCTimeoutError(f"no answer from the device within {timeout:g} s")
        return b

    def recv(self, n: int, timeout: float) -> bytes:
        out = bytearray()
        deadline = time.monotonic() + timeout
        while len(out) < n:
            out += self.recv_some(n - len(out), deadline - time.monotonic())
        return bytes(out)

    def close(self) -> None:
        self.ser.close()


def _termios_transport(port: str, baud: int):
    import termios
    import tty

    from .client import _FdTransport

    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as e:
        raise UtvmError(f"cannot open the serial port {port}: {e.strerror}") from None
    try:
        tty.setraw(fd)
        attrs = termios.tcgetattr(fd)
        speed = getattr(termios, f"B{baud}", None)
        if speed is None:
            raise UtvmError(f"serial port {port}: baud rate {baud} is not one termios knows (install pyserial)")
        attrs[4] = attrs[5] = speed
        attrs[2] = (attrs[2] | termios.CLOCAL | termios.CREAD) & ~termios.CRTSCTS
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        termios.tcflush(fd, termios.TCIOFLUSH)
    except (OSError, termios.error) as e:
        os.close(fd)
        raise UtvmError(f"serial port {port}: cannot configure it ({e})") from None
    except UtvmError:
        os.close(fd)
        raise
    return _FdTransport(fd, fd)


def open_raw(spec: str):
    """The raw byte transport of ``PORT[,BAUD]`` (no framing)."""
    port, baud = parse_port(spec)
    try:
        import serial  # pyserial, optional
    except ImportError:
        serial = None
    if serial is None:
        if os.name != "posix":
            raise UtvmError("a serial port needs pyserial on this system (pip install pyserial)")
        return _termios_transport(port, baud)
    try:
        return _PySerialTransport(serial.serial_for_url(port, baudrate=baud, timeout=0, exclusive=None))
    except (OSError, ValueError, serial.SerialException) as e:
        raise UtvmError(f"cannot open the serial port {port}: {e}") from None


def open_link(spec: str, ack_timeout: float = 0.1):
    """``PORT[,BAUD]`` in frames, the link reset done (raises RPCTimeoutError when nothing answers)."""
    from .framing import FramedTransport

    raw = open_raw(spec)
    try:
        return FramedTransport(raw, ack_timeout=ack_timeout)
    except BaseException:
        raw.close()
        raise


def open_serial(spec: str, timeout: float = 10.0):
    """A session with the RPC server of a board on the serial port ``PORT[,BAUD]``."""
    from .client import Session

    return Session(open_link(spec), timeout)
