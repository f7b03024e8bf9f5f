"""The host side of the CRT's serial framing (crt/include/tvm/runtime/crt/rpc_framing.h): frames with
a start byte, escaping, length, CRC-16 and a sequence number, acknowledged one at a time (stop and
wait) and resent until acknowledged. Wraps a byte transport for a lossy link (a UART). A session
starts with a link reset (sequence numbers to 0, acknowledged with our nonce); a device that
announces a restart in the middle of a session ends it with RPCConnectionError."""

from __future__ import annotations

import os
import time

from .errors import RPCConnectionError, RPCTimeoutError

START, ESCAPE, ACK, RESET = 0x7E, 0x7D, 0x02, 0x04


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF)."""
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def encode(header: int, payload: bytes = b"") -> bytes:
    body = bytes([header, len(payload)]) + payload
    c = crc16(body)
    out = bytearray([START])
    for b in body + bytes([c & 0xFF, c >> 8]):
        out += bytes([ESCAPE, b ^ 0x20]) if b in (START, ESCAPE) else bytes([b])
    return bytes(out)


class Decoder:
    """Byte-at-a-time receiver: ``feed`` returns the good frames (header, payload) completed."""

    def __init__(self) -> None:
        self.buf, self.in_frame, self.escaped = bytearray(), False, False

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        frames = []
        for byte in data:
            if byte == START:
                self.buf, self.in_frame, self.escaped = bytearray(), True, False
            elif not self.in_frame:
                continue
            elif byte == ESCAPE:
                self.escaped = True
            else:
                self.buf.append(byte ^ 0x20 if self.escaped else byte)
                self.escaped = False
                b = self.buf
                if len(b) > 259:
                    self.in_frame = False
                elif len(b) >= 2 and len(b) == b[1] + 4:
                    self.in_frame = False
                    c = crc16(bytes(b[:-2]))
                    if b[-2] == c & 0xFF and b[-1] == c >> 8 and b[0] & 0xF8 == 0:
                        frames.append((b[0], bytes(b[2:-2])))
        return frames


class FramedTransport:
    """A transport (``send``/``recv``/``recv_some``/``close``) carried in acknowledged frames."""

    def __init__(self, raw, payload: int = 128, ack_timeout: float = 0.1, retries: int = 50,
                 sync_timeout: float = 10.0) -> None:
        self.raw, self.payload, self.ack_timeout, self.retries = raw, payload, ack_timeout, retries
        self.proc = getattr(raw, "proc", None)
        self.rfd = getattr(raw, "rfd", None)
        self.decoder = Decoder()
        self.rx = bytearray()
        self.rx_expected = 0
        self.tx_seq = 0
        self.resent = 0   # frames sent again (for tests and statistics)
        self.nonce: bytes | None = None
        self._reset_link(sync_timeout)

    def _reset_link(self, timeout: float) -> None:
        """Send RESET frames (with a fresh nonce) until the device answers with that nonce."""

        self.nonce = os.urandom(4)
        deadline = time.monotonic() + timeout
        while self.nonce is not None:
            if time.monotonic() >= deadline:
                raise RPCTimeoutError(f"no answer from the device within {timeout:g} s (serial link reset)")
            self.raw.send(encode(RESET, self.nonce), 1.0)
            end = min(deadline, time.monotonic() + self.ack_timeout * 2)
            while self.nonce is not None and time.monotonic() < end:
                self._pump(max(end - time.monotonic(), 0.001))
        self.rx.clear()
        self.rx_expected = self.tx_seq = 0

    def _pump(self, timeout: float, want_ack: int | None = None) -> bool:
        """Read what arrives within ``timeout``; True when the ACK of ``want_ack`` (or, when None,
        new data) came."""

        try:
            data = self.raw.recv_some(4096, timeout)
        except RPCTimeoutError:
            return False
        event = False
        for header, payload in self.decoder.feed(data):
            seq = header & 1
            if header & RESET:
                if header & ACK and self.nonce is not None:
                    if payload == self.nonce:
                        self.nonce = None           # our reset is done; earlier answers are ignored
                elif header & ACK and not payload:
                    raise RPCConnectionError("the device restarted (reset) during the session")
                continue
            if header & ACK:
                event |= want_ack is not None and seq == want_ack
            else:
                if seq == self.rx_expected:
                    self.rx += payload
                    self.rx_expected ^= 1
                    event |= want_ack is None
                self.raw.send(encode(ACK | seq), 1.0)   # new or a duplicate whose ACK was lost
        return event

    def send(self, data: bytes, timeout: float) -> None:
        for off in range(0, len(data), self.payload):
            chunk = data[off:off + self.payload]
            for attempt in range(self.retries + 1):
                if attempt:
                    self.resent += 1
                self.raw.send(encode(self.tx_seq, chunk), timeout)
                # back off on a slow device (a loaded machine, a busy board): up to 8 x ack_timeout
                deadline = time.monotonic() + self.ack_timeout * min(1 << min(attempt, 3), 8)
                acked = False
                while not acked and time.monotonic() < deadline:
                    acked = self._pump(max(deadline - time.monotonic(), 0.001), want_ack=self.tx_seq)
                if acked:
                    break
            else:
                raise RPCConnectionError(f"no acknowledgement from the device after {self.retries} retries")
            self.tx_seq ^= 1

    def recv(self, n: int, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while len(self.rx) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RPCTimeoutError(f"no answer from the device within {timeout:g} s")
            self._pump(left)
        out = bytes(self.rx[:n])
        del self.rx[:n]
        return out

    def recv_some(self, n: int, timeout: float) -> bytes:
        first = self.recv(1, timeout)
        out = first + bytes(self.rx[:n - 1])
        del self.rx[:len(out) - 1]
        return out

    def close(self) -> None:
        self.raw.close()
