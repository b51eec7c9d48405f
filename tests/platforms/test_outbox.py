"""The outbox on both stores (real SQLite files, a real Redis): the cursor enqueues a version
once, a table's deliveries are claimed head first, a failure keeps the head until its retry is
due, a dead worker's claim passes on when its lease runs out, a replica that died after reading
the Stream leaves its entries to ``XAUTOCLAIM``, and everything is there after a reopen."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from manhattan.platforms.outbox import Delivery, Outbox
from manhattan.platforms.outbox_redis import GROUP, RedisOutbox
from manhattan.platforms.outbox_sqlite import SqliteOutbox

pytestmark = pytest.mark.anyio

Opener = Callable[[], Outbox]


@pytest.fixture(params=["sqlite", "redis"])
async def opener(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Opener]:
    opened: list[Outbox] = []
    if request.param == "sqlite":

        def make() -> Outbox:
            opened.append(SqliteOutbox(tmp_path))
            return opened[-1]
    else:
        url = request.getfixturevalue("redis_url")
        prefix = f"test:{uuid.uuid4().hex}"

        def make() -> Outbox:
            opened.append(RedisOutbox(url, prefix=prefix, claim_idle_ms=200))
            return opened[-1]

    yield make
    for outbox in opened:
        await outbox.close()


def item(table: str, version: int) -> tuple[int, Delivery]:
    body = f'{{"v":{version}}}'.encode()
    return version, Delivery(f"msg_{table}_{version}", table, "http://x/", "whsec_AA==", body)


def now() -> int:
    return int(time.time() * 1000)


async def test_a_version_is_enqueued_once_and_claimed_in_order(opener: Opener) -> None:
    outbox = opener()
    await outbox.put_hook("t1", b"hook")
    assert await outbox.enqueue("t1", 3, [item("t1", 2), item("t1", 3)]) == 2
    assert await outbox.enqueue("t1", 3, [item("t1", 2), item("t1", 3)]) == 0  # heard twice
    assert await outbox.enqueue("t1", 4, [item("t1", 3), item("t1", 4)]) == 1
    assert await outbox.enqueue("nohook", 4, [item("nohook", 4)]) == 0
    assert await outbox.hook("t1") == (b"hook", 4)
    first = await outbox.claim(now(), 60_000, 10)
    assert [d.id for d in first] == ["msg_t1_2"]  # only the head of a table
    assert await outbox.claim(now(), 60_000, 10) == []  # claimed
    await outbox.retry(first[0], now() + 300)
    assert await outbox.claim(now(), 60_000, 10) == []  # not due yet
    time.sleep(0.35)
    again = await outbox.claim(now(), 60_000, 10)
    assert [d.id for d in again] == ["msg_t1_2"]
    await outbox.done(again[0], now())
    assert [d.id for d in await outbox.claim(now(), 60_000, 10)] == ["msg_t1_3"]
    assert await outbox.waiting() == 2


async def test_a_dead_workers_claim_passes_on_and_everything_survives_a_reopen(
    opener: Opener,
) -> None:
    outbox = opener()
    await outbox.put_hook("t2", b"hook")
    await outbox.enqueue("t2", 1, [item("t2", 1)])
    claimed = await outbox.claim(now(), 200, 10)  # this worker dies with it
    assert [d.id for d in claimed] == ["msg_t2_1"]
    await outbox.remind("t2:1:99", now() + 100)
    await outbox.close()
    reopened = opener()
    assert await reopened.claim(now(), 200, 10) == []  # the lease still holds
    time.sleep(0.3)
    taken = await reopened.claim(now(), 60_000, 10)
    assert [d.id for d in taken] == ["msg_t2_1"] and taken[0].body == b'{"v":1}'
    assert await reopened.take_reminders(now(), 10) == ["t2:1:99"]
    assert await reopened.take_reminders(now(), 10) == []
    assert await reopened.hooked() == ["t2"]
    await reopened.drop_hook("t2")
    assert await reopened.hook("t2") is None


@pytest.mark.redis
async def test_entries_read_by_a_dead_replica_are_autoclaimed(redis_url: str) -> None:
    prefix = f"test:{uuid.uuid4().hex}"
    dead = RedisOutbox(redis_url, prefix=prefix, claim_idle_ms=200)
    live = RedisOutbox(redis_url, prefix=prefix, claim_idle_ms=200)
    try:
        await dead.put_hook("t3", b"hook")
        await dead.enqueue("t3", 2, [item("t3", 1), item("t3", 2)])
        await dead._ensure_group()
        read = await dead.redis.xreadgroup(GROUP, dead.consumer, {dead.stream: ">"}, count=10)
        assert len(read[0][1]) == 2  # read, never moved to the queue: the replica died here
        assert await live.claim(now(), 60_000, 10) == []  # pending with the dead one
        time.sleep(0.3)
        taken = await live.claim(now(), 60_000, 10)
        assert [d.id for d in taken] == ["msg_t3_1"]
        await live.done(taken[0], now())
        assert [d.id for d in await live.claim(now(), 60_000, 10)] == ["msg_t3_2"]
        pending = await live.redis.xpending(live.stream, GROUP)
        assert pending["pending"] == 0
        assert await live.redis.xlen(live.stream) == 0  # moved entries are deleted
    finally:
        await dead.close()
        await live.close()


async def test_an_ended_hook_leaves_the_sweep_is_kept_for_a_rematch_and_purged(
    opener: Opener,
) -> None:
    outbox = opener()
    await outbox.put_hook("over", b"hook-over")
    await outbox.put_hook("live", b"hook-live")
    await outbox.end_hook("over", 1_000)
    await outbox.end_hook("never-hooked", 1_000)  # nothing to end: nothing kept
    assert await outbox.hooked() == ["live"] and await outbox.hook("over") is None
    assert await outbox.ended_hook("over") == b"hook-over"
    assert await outbox.ended_hook("never-hooked") is None
    again = opener()  # kept across a reopen, as the live hooks are
    await again.purge_ended(1_000)  # ended at 1,000: not before it
    assert await again.ended_hook("over") == b"hook-over"
    await again.purge_ended(1_001)
    assert await again.ended_hook("over") is None
    assert await again.hook("live") == (b"hook-live", 0)
