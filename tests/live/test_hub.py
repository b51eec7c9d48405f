"""A change notice that comes back over pub/sub while this process is still writing that change
(``Hub.heard``): left to the write, which announces it with the table at hand, so the streams
do not read the table from the store; rung at the next tick when the write never announces it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

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


def touched(table: Table, version: int) -> None:
    """A change that writes the table as it is (a new version)."""


async def writing(rt: TableRuntime, store: HeldSwaps, tid: str) -> tuple[asyncio.Task[Any], int]:
    """A write of ``tid`` started and held at its swap: the task and the version it writes."""
    store.gate = asyncio.Event()
    task = asyncio.ensure_future(rt.tables.write(tid, touched))
    for _ in range(100):
        if rt.tables.writing(tid):
            return task, rt.tables.writing(tid)
        await asyncio.sleep(0)
    raise AssertionError("the write did not reach its swap")


async def test_a_notice_of_a_change_still_being_written_is_left_to_the_write() -> None:
    store = HeldSwaps()
    rt = TableRuntime(store, Sealer(SealingKey.generate()), heartbeat=0.2)
    tid, _ = await seated_table(rt)
    bell = rt.hub.listen(tid, client=None, spectator=True, heartbeat=15.0)
    try:
        task, version = await writing(rt, store, tid)
        rt.hub.heard(tid, version)  # the notice, before the swap's reply
        assert not bell.rung and bell.version < version
        assert store.gate is not None
        store.gate.set()
        await task
        assert rt.tables.writing(tid) == 0
        assert bell.rung and bell.version == version  # announced by the write itself
        bell.rung = False
        await asyncio.sleep(3 * rt.hub.tick)  # the held notice, looked at again: nothing new
        assert not bell.rung
    finally:
        rt.hub.forget(bell)
        rt.hub.close()


async def test_a_held_notice_is_rung_at_the_next_tick_when_the_write_fails() -> None:
    store = HeldSwaps()
    rt = TableRuntime(store, Sealer(SealingKey.generate()), heartbeat=0.2)
    tid, _ = await seated_table(rt)
    bell = rt.hub.listen(tid, client=None, spectator=True, heartbeat=15.0)
    try:
        task, version = await writing(rt, store, tid)
        rt.hub.heard(tid, version)
        assert not bell.rung
        store.fail = True
        assert store.gate is not None
        store.gate.set()
        with pytest.raises(ConnectionError):
            await task
        assert rt.tables.writing(tid) == 0 and not bell.rung
        for _ in range(20):
            if bell.rung:
                break
            await asyncio.sleep(rt.hub.tick)
        assert bell.rung and bell.version == version
    finally:
        rt.hub.forget(bell)
        rt.hub.close()


async def test_a_notice_of_another_replica_s_change_rings_at_once() -> None:
    store = HeldSwaps()
    rt = TableRuntime(store, Sealer(SealingKey.generate()), heartbeat=0.2)
    tid, _ = await seated_table(rt)
    bell = rt.hub.listen(tid, client=None, spectator=True, heartbeat=15.0)
    try:
        _, version = await rt.tables.load(tid)
        rt.hub.heard(tid, version + 1)
        assert bell.rung and bell.version == version + 1
    finally:
        rt.hub.forget(bell)
        rt.hub.close()
