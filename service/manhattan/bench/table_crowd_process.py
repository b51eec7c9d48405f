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
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

from manhattan.bench.sse_frames import FrameStream, StreamRefused
from manhattan.bench.table_people import STREAM_OPEN_CONCURRENCY, Endpoint, bounded


class Spectator:
    """One spectator's stream (``sse_frames``): the arrival of each move event."""

    def __init__(self, endpoint: Endpoint, table_id: str, arrivals: dict[int, list[float]]):
        self.endpoint, self.table_id, self.arrivals = endpoint, table_id, arrivals
        self.opened = asyncio.Event()
        self.error: str | None = None
        self._stream: FrameStream | None = None

    async def run(self) -> None:
        """Open the stream; the rest happens as its frames arrive."""
        path = f"/v1/tables/{self.table_id}/events"
        try:
            self._stream = await FrameStream.open(
                self.endpoint.host, self.endpoint.port, path, self._seen
            )
        except StreamRefused as exc:
            self.error = f"spectator: {exc}"
            self.opened.set()
            return
        self._stream.ended.add_done_callback(self._ended)

    def _seen(self, kind: bytes, ident: int, data: bytes, arrived: float) -> None:
        if kind == b"move":
            self.arrivals.setdefault(ident, []).append(arrived)
        elif kind == b"snapshot":
            self.opened.set()

    def _ended(self, _: object) -> None:
        if self._stream is not None:  # not closed by us
            self.error = self.error or "spectator: the stream ended early"
            self.opened.set()

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()


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
