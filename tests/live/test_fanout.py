"""A public change written straight to the spectators' connections (``live/fanout.py``):
every spectator still gets every change once and in order, one whose connection is not taking
data is left to its own stream (which waits for it) and catches up; a seat gets its own view."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import pytest

from manhattan.live.fanout import BATCH, write_direct
from manhattan.live.listener import Listener
from manhattan.live.runtime import TableRuntime
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cas import MemoryVersionedStore
from tests.tables.conftest import LiveServer, new_table, seated_table, sse

pytestmark = pytest.mark.anyio


class RawSpectator:
    """A spectator's stream on a raw connection, so that the test decides when it reads."""

    def __init__(self, live: LiveServer, tid: str) -> None:
        self.live, self.tid = live, tid
        self.ids: list[int] = []
        self.events: list[str] = []
        self._pending = b""

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.live.port)
        self.writer.write(
            f"GET /v1/tables/{self.tid}/events HTTP/1.1\r\nhost: t\r\n"
            "accept: text/event-stream\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200") and b"chunked" in head
        await self.read_until(lambda: bool(self.ids))

    async def read_until(self, done: Any, timeout: float = 10.0) -> None:
        async def reading() -> None:
            while not done():
                chunk = await self.reader.read(65536)
                assert chunk, "the stream ended"
                self._take(chunk)

        await asyncio.wait_for(reading(), timeout)

    def _take(self, chunk: bytes) -> None:
        # Chunked framing around SSE frames: the frames' own lines are found in between.
        self._pending += chunk
        *frames, self._pending = self._pending.split(b"\r\n\r\n")
        for frame in frames:
            fields = dict(
                line.split(": ", 1)
                for line in frame.decode().split("\r\n")
                if line.startswith(("event: ", "id: ", "data: "))
            )
            if "id" in fields:
                self.ids.append(int(fields["id"]))
                self.events.append(fields["event"])
                json.loads(fields["data"])  # whole

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


def runtime(live: LiveServer) -> TableRuntime:
    found: TableRuntime = live.app.state.tables
    return found


async def play(seated: list[Any], moves: int) -> int:
    """``moves`` moves by whoever is to move: the version after them."""
    version = 0
    for _ in range(moves):
        table = await seated[0].table()
        mover = seated[table["toMove"]]
        mine = await mover.table()
        answer = await mover.move(mine["moves"][0], mine["version"])
        version = answer.json()["version"]
    return version


async def test_a_crowd_of_spectators_gets_every_change_once_and_in_order(
    live: LiveServer,
) -> None:
    tid, _, seated = await new_table(live, 2)
    crowd = [RawSpectator(live, tid) for _ in range(30)]
    for spectator in crowd:
        await spectator.open()
    first = crowd[0].ids[0]
    listeners = runtime(live).hub._listeners[tid]
    assert all(listener.sink is not None and listener.direct for listener in listeners)
    last = await play(seated, 8)
    for spectator in crowd:
        await spectator.read_until(lambda s=spectator: s.ids[-1] >= last)
        assert spectator.ids == list(range(first, last + 1)), spectator.ids
        assert spectator.events[0] == "snapshot" and set(spectator.events[1:]) == {"move"}
        await spectator.close()
    # The hub wrote them, not each spectator's own stream.
    assert runtime(live).hub.direct_writes == 30 * (last - first)


async def test_a_spectator_whose_connection_refuses_catches_up_on_its_own_stream(
    live: LiveServer,
) -> None:
    tid, _, seated = await new_table(live, 2)
    crowd = [RawSpectator(live, tid), RawSpectator(live, tid)]
    for spectator in crowd:
        await spectator.open()
    first = crowd[0].ids[0]
    hub = runtime(live).hub
    # One connection is not taking data now (its sink says so, as when its buffers are full):
    # the hub leaves that spectator to its own stream, which writes the changes itself.
    busy = next(iter(hub._listeners[tid]))
    taking = busy.sink
    busy.sink = lambda frame: False
    middle = await play(seated, 4)
    for spectator in crowd:
        await spectator.read_until(lambda s=spectator: s.ids[-1] >= middle)
    assert hub.direct_writes == middle - first  # the other spectator's only
    busy.sink = taking
    last = await play(seated, 3)
    for spectator in crowd:
        await spectator.read_until(lambda s=spectator: s.ids[-1] >= last)
        assert spectator.ids == list(range(first, last + 1))
        await spectator.close()
    assert hub.direct_writes == (middle - first) + 2 * (last - middle)


async def test_a_seat_gets_its_own_view_beside_a_crowd(live: LiveServer) -> None:
    tid, _, seated = await new_table(live, 2)
    crowd = [RawSpectator(live, tid) for _ in range(5)]
    for spectator in crowd:
        await spectator.open()
    ticket = (await seated[1].client.post(f"/v1/tables/{tid}/ticket")).json()["ticket"]
    async with live.client() as c, sse(c, f"/v1/tables/{tid}/events?ticket={ticket}") as own:
        snapshot = await own.next()
        last = await play(seated, 4)
        pushed = [await own.next() for _ in range(last - snapshot["id"])]
    assert [p["id"] for p in pushed] == list(range(snapshot["id"] + 1, last + 1))
    views = [p["data"]["view"] for p in pushed if "view" in p["data"]]
    assert views and all(view["hand"] for view in views)  # the seat's own view, its hand
    # The hub wrote every change to all six streams, the seat's in its own audience's frame.
    assert runtime(live).hub.direct_writes == 6 * (last - snapshot["id"])
    for spectator in crowd:
        await spectator.read_until(lambda s=spectator: s.ids[-1] >= last)
        assert spectator.ids == list(range(spectator.ids[0], last + 1))
        await spectator.close()


async def test_the_tables_people_are_written_before_its_spectators() -> None:
    """A change reaches the people at the table in the first batch of its fan-out, before a
    crowd of spectators larger than a batch: they play on from it; spectators only watch."""
    rt = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tid, bearers = await seated_table(rt)
    table = await rt.tables.get(tid, bearers[0])
    mover = bearers[table["toMove"]]
    mine = await rt.tables.get(tid, mover)
    order: list[str] = []

    def listener(name: str, bearer: Any, version: int) -> Listener:
        made = Listener(60.0, tid, spectator=bearer is None)
        made.direct, made.bearer, made.sent = True, bearer, version - 1

        def sink(frame: bytes) -> bool:
            order.append(name)
            return True

        made.sink = sink
        return made

    answer = await rt.tables.move_request(
        tid, mover, {"move": mine["moves"][0], "version": mine["version"]}
    )
    version = answer["version"]
    crowd = [listener(f"spectator {n}", None, version) for n in range(3 * BATCH)]
    seats = [listener(f"seat {n}", bearer, version) for n, bearer in enumerate(bearers)]
    left = write_direct(rt.hub, tid, version, {*crowd, *seats})
    assert left == []
    assert sorted(order[:2]) == ["seat 0", "seat 1"] and len(order) == BATCH
    for _ in range(4):  # the other batches, in later turns of the loop
        await asyncio.sleep(0)
    assert len(order) == len(crowd) + len(seats)
