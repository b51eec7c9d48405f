"""A change notice that comes back over pub/sub while this process is still writing that change
(``Hub.heard``): left to the write, which announces it with the table at hand, so the streams
do not read the table from the store; rung shortly after when the write never announces it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from manhattan.live.hub import HELD_SECONDS
from manhattan.live.listener import Listener
from manhattan.live.runtime import TableRuntime
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cas import MemoryVersionedStore, Record
from manhattan.tables.model import Table
from tests.tables.conftest import seated_table

pytestmark = pytest.mark.anyio


class HeldSwaps(MemoryVersionedStore):
    """The memory store, whose next swap waits until the test lets it go (or fails it)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate: asyncio.Event | None = None
        self.fail = False

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        if self.gate is not None:
            await self.gate.wait()
            self.gate = None
            if self.fail:
                raise ConnectionError("the reply was lost")
        return await super().swap(key, expected, data, ttl=ttl)


@dataclass
class Watched:
    """A table with one stream's doorbell, on a store whose swaps the test holds."""

    rt: TableRuntime
    store: HeldSwaps
    tid: str
    bell: Listener

    async def writing(self) -> tuple[asyncio.Task[Any], int]:
        """A write of the table started and held at its swap: the task, the version it
        writes."""
        self.store.gate = asyncio.Event()
        task = asyncio.ensure_future(self.rt.tables.write(self.tid, touched))
        for _ in range(100):
            if self.rt.tables.writing(self.tid):
                return task, self.rt.tables.writing(self.tid)
            await asyncio.sleep(0)
        raise AssertionError("the write did not reach its swap")

    def let_go(self, *, fail: bool = False) -> None:
        assert self.store.gate is not None
        self.store.fail = fail
        self.store.gate.set()


def touched(table: Table, version: int) -> None:
    """A change that writes the table as it is (a new version)."""


@asynccontextmanager
async def watched() -> AsyncIterator[Watched]:
    store = HeldSwaps()
    rt = TableRuntime(store, Sealer(SealingKey.generate()))
    tid, _ = await seated_table(rt)
    bell = rt.hub.listen(tid, client=None, spectator=True, heartbeat=15.0)
    try:
        yield Watched(rt, store, tid, bell)
    finally:
        rt.hub.forget(bell)
        rt.hub.close()


async def test_a_notice_of_a_change_still_being_written_is_left_to_the_write() -> None:
    async with watched() as w:
        task, version = await w.writing()
        w.rt.hub.heard(w.tid, version)  # the notice, before the swap's reply
        assert not w.bell.rung and w.bell.version < version
        w.let_go()
        await task
        assert w.rt.tables.writing(w.tid) == 0
        assert w.bell.rung and w.bell.version == version  # announced by the write itself
        w.bell.rung = False
        await asyncio.sleep(3 * HELD_SECONDS)  # the held notice, heard again: nothing new
        assert not w.bell.rung


async def test_a_held_notice_rings_shortly_after_the_write_fails() -> None:
    async with watched() as w:
        task, version = await w.writing()
        w.rt.hub.heard(w.tid, version)
        assert not w.bell.rung
        w.let_go(fail=True)
        with pytest.raises(ConnectionError):
            await task
        assert w.rt.tables.writing(w.tid) == 0 and not w.bell.rung
        await asyncio.sleep(3 * HELD_SECONDS)
        assert w.bell.rung and w.bell.version == version


async def test_a_notice_of_another_replica_s_change_rings_at_once() -> None:
    async with watched() as w:
        _, version = await w.rt.tables.load(w.tid)
        w.rt.hub.heard(w.tid, version + 1)
        assert w.bell.rung and w.bell.version == version + 1
