"""Presence marks (``tables/presence.py``): the marks of a table asked for at once are one read
and one compare-and-set with every seat in it, not one each that race each other; a mark keeps
the seats marked before it; a waiter cancelled does not stop the write for the others; a failed
write is every waiter's error. And a seat's stream marks again a little early at random, so
streams opened together spread out (``live/stream._marked``)."""

from __future__ import annotations

import asyncio
import time

import pytest

from manhattan.live.listener import Listener
from manhattan.live.stream import MARK_SPREAD, _marked
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import MemoryVersionedStore, Record
from manhattan.tables.projection import Receiver
from manhattan.tables.records import TableRecords, TableSettings

pytestmark = pytest.mark.anyio

TABLE = "ab" * 16


class CountingStore(MemoryVersionedStore):
    """The in-process store, counting its reads and swaps (and failing them when told to)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = self.swaps = 0
        self.down = self._swapping = False

    async def read(self, key: str) -> Record | None:
        self.reads += not self._swapping  # (a swap reads too: not counted)
        if self.down:
            raise StoreUnavailable("down")
        return await super().read(key)

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        self.swaps += 1
        self._swapping = True
        try:
            return await super().swap(key, expected, data, ttl=ttl)
        finally:
            self._swapping = False


class NoChanges:
    def table_changed(self, table_id: str, version: int) -> None:
        pass

    async def table_over(self, table: object) -> None:
        pass


def records(store: CountingStore) -> TableRecords:
    return TableRecords(store, Sealer(SealingKey.generate()), TableSettings(), NoChanges())


async def test_the_seats_of_a_table_marked_at_once_are_one_read_and_one_swap() -> None:
    store = CountingStore()
    rec = records(store)
    await asyncio.gather(*(rec.mark_connected(TABLE, sid, 30) for sid in range(4)))
    assert (store.reads, store.swaps) == (1, 1)
    assert await rec.connected(TABLE) == {0, 1, 2, 3}


async def test_a_later_mark_keeps_the_seats_marked_before_it() -> None:
    store = CountingStore()
    rec = records(store)
    await asyncio.gather(rec.mark_connected(TABLE, 0, 30), rec.mark_connected(TABLE, 1, 30))
    await rec.mark_connected(TABLE, 2, 30)
    other = "cd" * 16
    await rec.mark_connected(other, 3, 30)
    assert await rec.connected(TABLE) == {0, 1, 2}
    assert await rec.connected(other) == {3}
    assert store.swaps == 3


async def test_a_mark_that_has_run_out_is_dropped_by_the_next_write() -> None:
    rec = records(CountingStore())
    await rec.mark_connected(TABLE, 0, 0.05)
    await asyncio.sleep(0.1)
    await rec.mark_connected(TABLE, 1, 30)
    assert await rec.connected(TABLE) == {1}


async def test_a_waiter_cancelled_does_not_stop_the_others_write() -> None:
    rec = records(CountingStore())
    first = asyncio.create_task(rec.mark_connected(TABLE, 0, 30))
    second = asyncio.create_task(rec.mark_connected(TABLE, 1, 30))
    await asyncio.sleep(0)  # both asked, in the same turn
    first.cancel()
    await second
    with pytest.raises(asyncio.CancelledError):
        await first
    assert await rec.connected(TABLE) == {0, 1}


async def test_a_failed_write_is_every_waiters_error() -> None:
    store = CountingStore()
    store.down = True
    rec = records(store)
    results = await asyncio.gather(
        *(rec.mark_connected(TABLE, sid, 30) for sid in range(3)), return_exceptions=True
    )
    assert all(isinstance(r, StoreUnavailable) for r in results)
    assert store.reads == 1
    store.down = False
    await rec.mark_connected(TABLE, 0, 30)  # and the next one writes
    assert await rec.connected(TABLE) == {0}


def test_a_seat_marks_again_within_a_heartbeat_and_at_most_the_spread_early() -> None:
    heartbeat = 10.0
    marks = []
    for _ in range(200):
        bell = Listener(heartbeat)
        before = time.monotonic()
        _marked(bell, Receiver(1), heartbeat)
        marks.append(bell.mark_by - before)
    assert all(heartbeat * (1 - MARK_SPREAD) - 0.01 <= m <= heartbeat + 0.01 for m in marks)
    # spread out, not all at one time: the crowd's marks cover most of the window
    assert max(marks) - min(marks) > heartbeat * MARK_SPREAD * 0.8


def test_a_spectator_stream_has_no_mark_to_make() -> None:
    bell = Listener(10.0)
    _marked(bell, Receiver(), 10.0)
    assert bell.mark_by == float("inf")
