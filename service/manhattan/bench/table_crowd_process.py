"""The spectators of ``manhattan bench tables --spectators`` in a process of their own.

Read in the bench's own process, 2,000 streams took its event loop some 40 ms a move (a read
and a split per stream): the watched table's people, the cheap requests' timer and the
spectators' own reads all waited behind it, and the figures measured the bench. In a child
process the crowd only reads, and the bench's loop stays free to time the service.

The child opens the streams, says how many failed, notes when each move event arrives
(``time.perf_counter``: the system's monotonic clock, the same in both processes) and, told to
stop, closes them and sends the arrivals back: version -> arrival times.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from .table_people import STREAM_IDLE_TIMEOUT, STREAM_OPEN_CONCURRENCY, Endpoint, bounded


class Spectator(asyncio.Protocol):
    """One spectator's stream, read by a bare protocol (no reader task, no chunk decoding): the
    arrival of each move event. Frames are only split, never parsed as JSON: the SSE frames
    end in a blank line, which JSON text cannot hold, so a chunk's size line between two frames
    is all that stands around them."""

    def __init__(self, endpoint: Endpoint, table_id: str, arrivals: dict[int, list[float]]):
        self.endpoint, self.table_id, self.arrivals = endpoint, table_id, arrivals
        self.opened = asyncio.Event()
        self.error: str | None = None
        self._transport: asyncio.Transport | None = None
        self._pending = b""
        self._head = True
        self._closing = False

    async def run(self) -> None:
        """Connect and send the request; the rest happens in the protocol's callbacks."""
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(
                loop.create_connection(lambda: self, self.endpoint.host, self.endpoint.port),
                STREAM_IDLE_TIMEOUT,
            )
        except (OSError, TimeoutError) as exc:
            self._fail(f"spectator: {exc!r}")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        path = f"/v1/tables/{self.table_id}/events"
        transport.write(
            f"GET {path} HTTP/1.1\r\nHost: {self.endpoint.host}:{self.endpoint.port}\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        arrived = time.perf_counter()
        *frames, self._pending = (self._pending + data).split(b"\r\n\r\n")
        for frame in frames:
            if self._head:  # the answer's head
                self._head = False
                status = frame.split(b" ", 2)[1] if frame.startswith(b"HTTP/1.1 ") else b"?"
                if status != b"200":
                    self._fail(f"spectator: HTTP {status.decode(errors='replace')}")
                    return
            else:
                self._seen(frame, arrived)

    def _seen(self, frame: bytes, arrived: float) -> None:
        kind = frame.find(b"event: ", 0, 32)  # after the chunk's size line
        if kind < 0:
            return  # a heartbeat, or the end of a chunk
        if frame.startswith(b"event: snapshot", kind):
            self.opened.set()
        elif frame.startswith(b"event: move", kind):
            at = frame.rfind(b"\r\nid: ")
            if at >= 0:
                self.arrivals.setdefault(int(frame[at + 6 :]), []).append(arrived)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._closing:
            self._fail(f"spectator: the stream ended ({exc!r})")

    def _fail(self, error: str) -> None:
        self.error = self.error or error
        self.opened.set()
        self.close()

    def close(self) -> None:
        self._closing = True
        if self._transport is not None:
            self._transport.close()


class Crowd:
    """The parent's handle on the child process: ``open``, then ``close`` for the arrivals."""

    def __init__(self, endpoint: Endpoint, table_id: str, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child_end = context.Pipe()
        self._process = context.Process(
            target=crowd_main,
            args=(endpoint.host, endpoint.port, table_id, count, child_end),
            name="bench-spectators",
            daemon=True,
        )
        self.errors: list[str] = []

    async def open(self) -> None:
        """Start the child and wait until every stream is open (or failed)."""
        self._process.start()
        self.errors = await asyncio.to_thread(self._pipe.recv)

    async def close(self) -> dict[int, list[float]]:
        """Every stream closed; the arrivals of each version's move event."""
        if not self._process.is_alive():
            return {}
        self._pipe.send("stop")
        arrivals, errors = await asyncio.to_thread(self._pipe.recv)
        self.errors += errors
        await asyncio.to_thread(self._process.join, 30)
        return arrivals  # type: ignore[no-any-return]

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()


def crowd_main(host: str, port: int, table_id: str, count: int, pipe: Connection) -> None:
    """The child process: ``count`` spectators of ``table_id`` until told to stop."""
    asyncio.run(_crowd(Endpoint(host, port), table_id, count, pipe))


async def _crowd(endpoint: Endpoint, table_id: str, count: int, pipe: Connection) -> None:
    arrivals: dict[int, list[float]] = {}
    crowd = [Spectator(endpoint, table_id, arrivals) for _ in range(count)]

    async def join(spectator: Spectator) -> None:
        await spectator.run()
        await spectator.opened.wait()

    await bounded(STREAM_OPEN_CONCURRENCY, [partial(join, s) for s in crowd])
    pipe.send([s.error for s in crowd if s.error])
    await asyncio.to_thread(pipe.recv)  # "stop"
    for spectator in crowd:
        spectator.close()
    await asyncio.sleep(0)  # (the transports close in the next turn of the loop)
    errors: list[Any] = [s.error for s in crowd if s.error]
    pipe.send((arrivals, errors))
