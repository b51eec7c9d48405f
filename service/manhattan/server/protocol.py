"""uvicorn's httptools protocol with bounds on what a connection may send before the app runs.

uvicorn bounds nothing of a request's head on its httptools path (``h11_max_incomplete_event_size``
is for h11 only): one request with 17 MB of headers took the process from 59 to 340 MB, and a
client sending its headers one byte at a time held a connection forever (every byte cancels the
keep-alive timer, and nothing else is armed while a head is read). This subclass adds:

- a bound on the head's bytes (request line and headers; 431 when exceeded), counted as the
  bytes arrive, so a single huge header costs at most the bound plus one read (256 KiB);
- a bound on the number of header lines (431);
- a deadline for the whole head, from its first byte (408 and close), and a deadline for the
  whole body, from the end of the head (the connection is closed: the app sees a disconnect);
  a head or a body that arrives whole in one read, as most do, arms no timer.

The body's size is bounded by the ASGI middleware (``MANHATTAN_MAX_BODY_BYTES``), which reads it
before any route does.

And it writes a response whose body comes whole in one message (every API answer) with one
transport write, the head and the body together (``JoinedWritesCycle``): uvicorn writes them
apart, two system calls where one does. That write waits for the end of the event loop's turn
and goes out with the turn's other answers (``_TurnWrites``).
"""

from __future__ import annotations

import asyncio
import json
import threading
from asyncio import TimerHandle
from dataclasses import dataclass
from typing import Any

from uvicorn._types import ASGISendEvent
from uvicorn.protocols.http.httptools_impl import (
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)

from manhattan.settings import Settings


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """The bounds of a connection; their defaults are the settings' (``connection_limits``)."""

    max_head_bytes: int
    max_headers: int
    head_timeout: float
    body_timeout: float


def connection_limits(settings: Settings) -> ConnectionLimits:
    return ConnectionLimits(
        max_head_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        head_timeout=settings.header_timeout,
        body_timeout=settings.body_timeout,
    )


class _Refused(Exception):
    """Raised in a parser callback to stop parsing; the refusal is on the protocol."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` with ``limits`` (set on a subclass by ``bounded_protocol``)."""

    limits = connection_limits(Settings())
    #: Each response's head and whole body in one write (``JoinedWritesCycle``).
    join_writes = True
    # In slots, not in the instance's dict: six more keys there would make uvicorn's
    # key-sharing dict of each connection a dict of its own (about 1.5 KiB more a connection,
    # held by every open stream).
    __slots__ = (
        "_deadline",
        "_head_bytes",
        "_header_count",
        "_idle_since",
        "_in_head",
        "_read_bytes",
        "_refusal",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True  # between requests, and while a head is read
        self._read_bytes = 0  # bytes read while in the head (memory held by the parser)
        self._head_bytes = 0  # the head's parsed bytes: request target and header lines
        self._header_count = 0
        self._deadline: TimerHandle | None = None
        self._refusal: tuple[int, str] | None = None
        self._idle_since: float | None = None  # since the last answer, while nothing comes
        self.pipeline = _Pipeline()  # type: ignore[assignment]

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        writable = _LeanEvent()
        writable.set()  # (a new connection can be written to, as uvicorn's FlowControl starts)
        self.flow._is_writable_event = writable
        # What a slow reader's connection may hold of unsent bytes before its writer waits: an
        # SSE stream whose client does not read costs at most this (and a frame), not the
        # 64 KiB asyncio allows by default.
        transport.set_write_buffer_limits(high=WRITE_BUFFER_BYTES)

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            return
        if self._in_head:
            self._read_bytes += len(data)
        super().data_received(data)  # a refusal in a callback comes back as send_400_response
        if self._refusal is not None or self.transport.is_closing():
            return
        if not self._in_head:
            if self._deadline is None and self.cycle is not None and self.cycle.more_body:
                # A body that did not arrive whole with its head: its deadline runs from the
                # end of the head's read (a body read whole with it, as most are, costs no
                # timer).
                self._arm(self.limits.body_timeout, self._body_timed_out)
            return
        if self._read_bytes > self.limits.max_head_bytes:
            self._refuse(431, _HEAD_TOO_LARGE)
        elif self._read_bytes and self._deadline is None:
            # A head that did not arrive whole in this read: its deadline runs from now (a head
            # read whole, as most are, costs no timer).
            self._arm(self.limits.head_timeout, self._head_timed_out)

    def send_400_response(self, msg: str) -> None:
        if self._refusal is not None:
            self._refuse(*self._refusal)
        else:
            super().send_400_response(msg)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        self._header_count = 0

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        if self._header_count > self.limits.max_headers:
            self._stop(431, "too many header lines")
        self._count(len(name) + len(value) + 4)
        super().on_header(name, value)

    def _count(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > self.limits.max_head_bytes:
            self._stop(431, _HEAD_TOO_LARGE)

    def _stop(self, status: int, message: str) -> None:
        self._refusal = (status, message)
        raise _Refused

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._read_bytes = 0
        self._disarm()
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not None and self.cycle is not previous:  # (not for an upgrade)
            self.cycle.message_event = _LeanEvent()  # nothing waits on it or has set it yet
            if self.join_writes:  # (its task has not started: nothing has called send yet)
                self.cycle.__class__ = JoinedWritesCycle

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()
        self._in_head = True  # the next bytes are the next request's head

    def shutdown(self) -> None:
        """uvicorn's, after this turn's answers are written: it closes a connection whose
        answer is complete, which may still be waiting for the end of the turn."""
        _turn_writes.flush()
        super().shutdown()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
        if self.timeout_keep_alive_task is not None:  # (uvicorn keeps it when exc is set)
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None

    # uvicorn arms a keep-alive timer after every answer and cancels it when the next request
    # comes in: a timer made and dropped per request. Here one timer runs per idle connection
    # and is armed again, for what is left, only if the connection was busy in between.
    def _unset_keepalive_if_required(self) -> None:
        self._idle_since = None  # (the timer, if armed, finds the connection busy)

    def on_response_complete(self) -> None:
        """uvicorn's, with the keep-alive timer armed only if none is."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self._keep_alive_due
            )

    def _keep_alive_due(self) -> None:
        self.timeout_keep_alive_task = None
        if self._idle_since is None:
            return  # busy: its next answer arms the timer again
        left = self._idle_since + self.timeout_keep_alive - self.loop.time()
        if left > 0:
            self.timeout_keep_alive_task = self.loop.call_later(left, self._keep_alive_due)
        else:
            self.timeout_keep_alive_handler()

    def _arm(self, seconds: float, callback: Any) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, callback)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _head_timed_out(self) -> None:
        self._deadline = None
        if self._in_head and self._read_bytes and not self.transport.is_closing():
            self._refuse(408, "the request head was not received in time")

    def _body_timed_out(self) -> None:
        self._deadline = None
        if not self._in_head and not self.transport.is_closing():
            self.logger.info("closing a connection whose request body was not received in time")
            self.transport.close()  # the app's receive() answers http.disconnect

    def _refuse(self, status: int, message: str) -> None:
        """Answer ``status`` with a JSON error and close: what was read of the head is dropped."""
        self._disarm()
        self._refusal = (status, message)
        code = "HEADERS_TOO_LARGE" if status == 431 else "REQUEST_TIMEOUT"
        body = json.dumps({"code": code, "message": message}).encode()
        self.transport.write(
            b"".join(
                [
                    STATUS_LINE[status],
                    b"content-type: application/json\r\n",
                    b"content-length: " + str(len(body)).encode() + b"\r\n",
                    b"connection: close\r\n\r\n",
                    body,
                ]
            )
        )
        self.transport.close()


class JoinedWritesCycle(RequestResponseCycle):
    """uvicorn's request cycle, holding a response's head until its body: a body that comes
    whole in the next message (the Content-Length it declared) goes out with the head in one
    write. Anything else (a chunked stream, a body in several messages, a HEAD request, a
    writer paused by a slow reader) is written as uvicorn writes it, the head first."""

    _head: bytes | None = None  # the held head (a class default: no key in most cycles' dict)

    async def send(self, message: ASGISendEvent) -> None:
        head = self._head
        if head is not None:
            self._head = None
            if not self._write_joined(head, message):
                if not self.disconnected:
                    self.transport.write(head)
                await super().send(message)
            return
        if (
            self.response_started
            or message["type"] != "http.response.start"
            or self.scope["method"] == "HEAD"
            or self.flow.write_paused
        ):
            await super().send(message)
            return
        transport, held = self.transport, _HeldWrite()
        self.transport = held  # type: ignore[assignment]
        try:
            await super().send(message)  # (writes the head, and awaits nothing when not paused)
        finally:
            self.transport = transport
        if held.data is not None:
            if self.chunked_encoding is False:
                self._head = held.data
            else:
                transport.write(held.data)

    def _write_joined(self, head: bytes, message: ASGISendEvent) -> bool:
        """Writes ``head`` and ``message``'s body at once and completes the response, as
        uvicorn's ``send`` completes it, when the body is whole; else False, nothing done."""
        if (
            message["type"] != "http.response.body"
            or message.get("more_body", False)
            or self.disconnected
            or self.flow.write_paused
        ):
            return False
        body = message.get("body", b"")
        if len(body) != self.expected_content_length:
            return False  # (uvicorn's send refuses it, saying why)
        self.expected_content_length = 0
        if self.keep_alive:
            _turn_writes.add(self.transport, head + body)
        else:
            self.transport.write(head + body)
            self.transport.close()
        self.response_complete = True
        self.message_event.set()
        self.on_response()
        return True


class _TurnWrites(threading.local):
    """Whole answers waiting for the end of the loop's turn, then written one after another.

    Under load a turn answers many connections. Written as each is answered, every write wakes
    a client that has gone back to waiting (on one host, the service's CPU pays for each
    wake-up, as a cross-core interrupt); written together, the first wakes it and the others
    find it awake. A connection's answers keep their order (its next request starts after
    this turn's writes), and one that closes writes its answer at once, before it closes.
    Kept per thread: an event loop runs in one thread (tests run servers in several)."""

    def __init__(self) -> None:
        self._waiting: list[tuple[asyncio.Transport, bytes]] = []

    def add(self, transport: asyncio.Transport, data: bytes) -> None:
        if not self._waiting:
            asyncio.get_running_loop().call_soon(self.flush)
        self._waiting.append((transport, data))

    def flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        for transport, data in waiting:
            if not transport.is_closing():  # (a connection lost meanwhile: nobody to answer)
                transport.write(data)


#: The answers waiting for the end of the turn, of the event loop running in this thread.
_turn_writes = _TurnWrites()


class _HeldWrite:
    """Stands for the transport while uvicorn writes a response's head: keeps it."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: bytes | None = None

    def write(self, data: bytes) -> None:
        self.data = data


class _Pipeline(list[Any]):
    """uvicorn's queue of pipelined requests (it calls ``appendleft`` and ``pop``) as a list:
    an empty deque is some 740 bytes, held by every open connection; an empty list 56."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


class _LeanEvent(asyncio.Event):
    """``asyncio.Event`` with its waiters in a list, not a deque (some 740 bytes even when
    empty). Each open connection holds two (its write flow's and its request's), and at most
    one task ever waits on either."""

    def __init__(self) -> None:
        super().__init__()
        self._waiters: list[asyncio.Future[bool]] = []  # type: ignore[assignment]


#: A connection's high-water mark of unsent bytes (its low-water mark is a quarter of it).
WRITE_BUFFER_BYTES = 16_384

_HEAD_TOO_LARGE = "the request head (request line and headers) is too large"


def bounded_protocol(
    limits: ConnectionLimits, *, join_writes: bool = True
) -> type[asyncio.Protocol]:
    """The protocol class for uvicorn's ``http=`` with these limits (``join_writes``: each
    whole response in one write)."""
    attributes = {"limits": limits, "join_writes": join_writes}
    return type("BoundedHttpToolsProtocol", (BoundedHttpToolsProtocol,), attributes)
