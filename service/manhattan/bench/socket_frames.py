"""A table's socket (``/v1/tables/{id}/socket``) as the bench's people hold it: a bare asyncio
protocol speaking just enough RFC 6455 (the upgrade, unfragmented or fragmented text frames,
ping, close) to hand each message to a callback with the time it arrived, and to send one.

As with ``sse_frames.py``, a general client (an async iterator per message, a task per
connection) cost the bench more CPU per move than the service spent on it. Frames the bench
sends are masked, as a client's must be, with a zero key: the service unmasks them all the same
(a browser's key is random so that a proxy cannot be confused by what a page sends; no proxy
stands between the bench and the service).
"""

from __future__ import annotations

import base64
import os
import struct
import time
from collections.abc import Callable

from manhattan.bench.sse_frames import FRAME_END, Connected

#: ``(message, arrived)``: a text message's bytes and ``time.perf_counter()`` at its arrival.
OnMessage = Callable[[bytes, float], None]

TEXT, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x8, 0x9, 0xA, 0x0
_ZERO_MASK = b"\x00\x00\x00\x00"


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame, masked with the zero key."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    return head + _ZERO_MASK + payload


class SocketStream(Connected):
    """One open table socket, handing each text message to ``on_message`` (``OnMessage``)."""

    OPEN_STATUS = 101

    def __init__(self, request: bytes, on_item: Callable[..., None]) -> None:
        super().__init__(request, on_item)
        self._parts: list[bytes] = []  # a fragmented message's frames so far

    @staticmethod
    def head(host: str, port: int, path: str, auth: str) -> str:
        key = base64.b64encode(os.urandom(16)).decode()
        return (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{auth}\r\n"
        )

    def send(self, text: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(client_frame(TEXT, text))

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        pending = self._pending + data
        if not self.status.done():
            end = pending.find(FRAME_END)
            if end < 0:
                self._pending = pending
                return
            self._answered(pending[:end])
            pending = pending[end + len(FRAME_END) :]
        self._pending = self._frames(pending, arrived)

    def _frames(self, pending: bytes, arrived: float) -> bytes:
        """Take every whole frame off ``pending``: what is left of it."""
        at = 0
        while len(pending) - at >= 2:
            first, second = pending[at], pending[at + 1]
            size, start = second & 0x7F, at + 2
            if size == 126:
                if len(pending) - at < 4:
                    break
                (size,) = struct.unpack_from("!H", pending, at + 2)
                start = at + 4
            elif size == 127:
                if len(pending) - at < 10:
                    break
                (size,) = struct.unpack_from("!Q", pending, at + 2)
                start = at + 10
            if len(pending) < start + size:
                break
            self._frame(first, pending[start : start + size], arrived)
            at = start + size
        return pending[at:]

    def _frame(self, first: int, payload: bytes, arrived: float) -> None:
        opcode = first & 0x0F
        if opcode in (TEXT, CONTINUATION):
            self._parts.append(payload)
            if first & 0x80:  # the message's last frame
                message = b"".join(self._parts)
                self._parts = []
                self._on_item(message, arrived)
        elif opcode == PING and self._transport is not None:
            self._transport.write(client_frame(PONG, payload))
        elif opcode == CLOSE:
            if self._transport is not None:
                self._transport.write(client_frame(CLOSE, payload[:2]))
            self.close()
