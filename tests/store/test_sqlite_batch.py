"""Swaps asked for in one turn of the event loop commit as one transaction
(``manhattan.store.sqlite_batch``), each still compared and set on its own. Real SQLite files."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import Record
from manhattan.store.sqlite_cas import DATABASE_FILE, SqliteVersionedStore

pytestmark = pytest.mark.anyio


def committed(path: Path) -> dict[str, int]:
    """The versions another connection sees."""
    with sqlite3.connect(path / DATABASE_FILE) as db:
        return dict(db.execute("SELECT key, version FROM records WHERE version > 0"))


async def test_a_turns_swaps_share_one_transaction_and_each_is_its_own(tmp_path: Path) -> None:
    store = SqliteVersionedStore(tmp_path)
    try:
        before = store._batch.transactions
        made = await asyncio.gather(*(store.swap(f"k{n}", 0, b"v1", ttl=600) for n in range(10)))
        assert made == [(True, Record(1, b"v1"))] * 10
        assert store._batch.transactions == before + 1  # one commit for the ten
        assert committed(tmp_path) == {f"k{n}": 1 for n in range(10)}
        # Two swaps of one key from the same version in one turn: the first asked wins, the
        # second is told the record the first wrote, as one after the other.
        first, second = await asyncio.gather(
            store.swap("k0", 1, b"a", ttl=600), store.swap("k0", 1, b"b", ttl=600)
        )
        assert first == (True, Record(2, b"a")) and second == (False, Record(2, b"a"))
        assert await store.read("k0") == Record(2, b"a")
    finally:
        await store.close()


async def test_a_failed_transaction_fails_every_swap_in_it_and_applies_none(
    tmp_path: Path,
) -> None:
    store = SqliteVersionedStore(tmp_path)
    try:
        await store.swap("k", 0, b"v1", ttl=600)

        def broken() -> None:  # a statement SQLite refuses, in the same transaction
            store._db.execute("INSERT INTO no_such_table VALUES (1)")

        outcomes = await asyncio.gather(
            store.swap("k", 1, b"v2", ttl=600),
            store.swap("other", 0, b"v1", ttl=600),
            store._batch.run(broken),
            return_exceptions=True,
        )
        assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes)
        assert committed(tmp_path) == {"k": 1}
        assert await store.read("k") == Record(1, b"v1")
        assert await store.swap("k", 1, b"v2", ttl=600) == (True, Record(2, b"v2"))  # goes on
    finally:
        await store.close()


async def test_a_swap_cancelled_before_its_turn_is_left_out(tmp_path: Path) -> None:
    store = SqliteVersionedStore(tmp_path)
    try:
        cancelled = asyncio.ensure_future(store.swap("gone", 0, b"v1", ttl=600))
        kept = asyncio.ensure_future(store.swap("kept", 0, b"v1", ttl=600))
        await asyncio.sleep(0)  # both asked for, not committed yet
        cancelled.cancel()
        assert await kept == (True, Record(1, b"v1"))
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        assert committed(tmp_path) == {"kept": 1}
    finally:
        await store.close()


async def test_a_swap_cancelled_after_its_commit_keeps_its_result(tmp_path: Path) -> None:
    """Committed is committed: the caller goes on with the result (what follows the swap in
    the same step, a change's notice, still happens) and is cancelled at its next wait."""
    store = SqliteVersionedStore(tmp_path)
    after: list[object] = []

    async def swapper() -> None:
        after.append(await store.swap("k", 0, b"v1", ttl=600))
        await asyncio.sleep(1)
        after.append("not reached")

    try:
        task = asyncio.ensure_future(swapper())
        await asyncio.sleep(0)  # asked for
        await asyncio.sleep(0)  # committed, the task not yet resumed
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert after == [(True, Record(1, b"v1"))]
        assert committed(tmp_path) == {"k": 1}
    finally:
        await store.close()


async def test_swaps_waiting_when_the_store_closes_fail_and_none_hangs(tmp_path: Path) -> None:
    store = SqliteVersionedStore(tmp_path)
    waiting = asyncio.ensure_future(store.swap("k", 0, b"v1", ttl=600))
    await asyncio.sleep(0)  # asked for, its batch not yet run
    store._db.close()  # (the connection gone under it, as at a shutdown's end)
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(waiting, 5)
    await store.close()
