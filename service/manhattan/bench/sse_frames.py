"""A table's event stream as the bench's readers take it: a bare asyncio protocol that splits
the answer into SSE frames and hands each to a callback, with the time it arrived.

No reader task, no chunk decoding, no line splitting: read through the tools' HTTP client (an
async generator per layer, a timeout per piece), a stream cost the bench more CPU per move
than the service spent on it, and the flat-out phases measured the bench. The service writes
each frame as one chunk (``event``, one ``data`` line, ``id``, a blank line), and a blank line
cannot occur inside JSON, so splitting at blank lines leaves each frame whole with at most a
chunk's size line before it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Self

#: ``(event, id, data, arrived)``: the event's type, its id (-1 without one), its data and
#: ``time.perf_counter()`` when the bytes holding its end arrived.
OnFrame = Callable[[bytes, int, bytes, float], None]

#: The end of an HTTP head, and of an SSE frame.
FRAME_END = b"\r\n\r\n"


class StreamRefused(Exception):
    """The stream did not open: an error answer, or no connection."""


class Connected(asyncio.Protocol):
    """A bench connection that sends its request once connected and is open once the answer's
    head says ``OPEN_STATUS``; ``ended`` resolves when the connection is gone."""

    OPEN_STATUS = 200

    def __init__(self, request: bytes, on_item: Callable[..., None]) -> None:
        loop = asyncio.get_running_loop()
        self._request, self._on_item = request, on_item
        self.status: asyncio.Future[int] = loop.create_future()
        self.ended: asyncio.Future[None] = loop.create_future()
        self._transport: asyncio.Transport | None = None
        self._pending = b""

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        path: str,
        on_item: Callable[..., None],
        *,
        token: str | None = None,
        timeout: float = 30.0,
    ) -> Self:
        """Connected to ``path`` (its answer ``OPEN_STATUS``); else ``StreamRefused``."""
        auth = f"Authorization: Bearer {token}\r\n" if token is not None else ""
        opened = cls(cls.head(host, port, path, auth).encode(), on_item)
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.create_connection(lambda: opened, host, port), timeout)
            status = await asyncio.wait_for(asyncio.shield(opened.status), timeout)
        except (OSError, TimeoutError) as exc:
            opened.close()
            raise StreamRefused(f"{path}: {exc!r}") from exc
        if status != cls.OPEN_STATUS:
            opened.close()
            raise StreamRefused(f"{path}: HTTP {status}" if status else f"{path}: no answer")
        return opened

    @staticmethod
    def head(host: str, port: int, path: str, auth: str) -> str:
        """The request's head (``auth``: the authorization header line, or nothing)."""
        raise NotImplementedError

    def _answered(self, head: bytes) -> None:
        """The answer's head came: its status (0: not HTTP)."""
        parts = head.split(b" ", 2)
        ok = head.startswith(b"HTTP/1.1 ") and len(parts) > 1 and parts[1].isdigit()
        self.status.set_result(int(parts[1]) if ok else 0)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        transport.write(self._request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.status.done():  # closed before an answer (a result: no one may ask)
            self.status.set_result(0)
        if not self.ended.done():
            self.ended.set_result(None)

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


class FrameStream(Connected):
    """One open stream, handing each SSE frame to ``on_frame`` (``OnFrame``)."""

    @staticmethod
    def head(host: str, port: int, path: str, auth: str) -> str:
        accept = "Accept: text/event-stream\r\n"
        return f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n{accept}{auth}\r\n"

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        *frames, self._pending = (self._pending + data).split(FRAME_END)
        for frame in frames:
            if not self.status.done():
                self._answered(frame)
                continue
            at = frame.find(b"event: ", 0, 32)  # after the chunk's size line
            if at < 0:
                continue  # a heartbeat (a comment)
            kind_end = frame.find(b"\r\n", at)
            data_at = frame.find(b"data: ", kind_end)
            id_at = frame.rfind(b"\r\nid: ")
            ident = int(frame[id_at + 6 :]) if id_at > data_at else -1
            body = frame[data_at + 6 : id_at if id_at > data_at else len(frame)]
            self._on_item(frame[at + 7 : kind_end], ident, body, arrived)
