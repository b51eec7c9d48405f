"""The versioned record store (``manhattan.store.cas``): the same behavior in memory, in a real
SQLite file and on a real Redis: compare-and-set swaps, leases, single-use values, and pub/sub
notices with gaps."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import GAP, MemoryVersionedStore, Record, VersionedStore
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.store.sqlite_cas import SqliteVersionedStore
from manhattan.store.versioned import make_versioned_store
from tests.conftest import RedisServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VersionedStore]:
    if request.param == "memory":
        made: VersionedStore = MemoryVersionedStore()
    elif request.param == "sqlite":
        made = SqliteVersionedStore(tmp_path / "data")
    else:
        request.applymarker(pytest.mark.redis)
        made = RedisVersionedStore(request.getfixturevalue("redis_url"))
    try:
        yield made
    finally:
        await made.close()


def fresh(kind: str = "t") -> str:
    return f"manhattan:test:{{{kind}:{uuid.uuid4().hex}}}"


async def test_swap_writes_only_over_the_expected_version(store: VersionedStore) -> None:
    key = fresh()
    assert await store.read(key) is None
    assert await store.swap(key, 1, b"x", ttl=60) == (False, None)  # absent is version 0
    assert await store.swap(key, 0, b"first", ttl=60) == (True, Record(1, b"first"))
    assert await store.swap(key, 0, b"again", ttl=60) == (False, Record(1, b"first"))
    assert await store.swap(key, 1, b"second\x00\xff", ttl=60) == (
        True,
        Record(2, b"second\x00\xff"),
    )
    assert await store.read(key) == Record(2, b"second\x00\xff")
    await store.delete(key)
    assert await store.read(key) is None


async def test_racing_swaps_lose_no_write_and_double_none(store: VersionedStore) -> None:
    """Many writers each append their name with read-then-swap retries: every name appears
    exactly once and the version counts every write."""
    key = fresh()
    await store.swap(key, 0, b"", ttl=60)

    async def writer(name: str) -> int:
        conflicts = 0
        while True:
            record = await store.read(key)
            assert record is not None
            await asyncio.sleep(0)  # let the others read the same version
            ok, _ = await store.swap(key, record.version, record.data + name.encode(), ttl=60)
            if ok:
                return conflicts
            conflicts += 1
            await asyncio.sleep(0)

    names = [chr(ord("a") + i) for i in range(20)]
    conflicts = await asyncio.gather(*(writer(name) for name in names))
    record = await store.read(key)
    assert record is not None
    assert sorted(record.data.decode()) == names
    assert record.version == 1 + len(names)
    assert sum(conflicts) > 0  # the race was real


async def test_claim_is_a_lease_and_take_is_single_use(store: VersionedStore) -> None:
    lease = fresh("lease")
    assert await store.claim(lease, "replica-a", 5_000)
    assert not await store.claim(lease, "replica-b", 5_000)
    ticket = fresh("ticket")
    await store.put(ticket, b"seat 2", ttl=60)
    assert await store.get(ticket) == b"seat 2"
    assert await store.take(ticket) == b"seat 2"
    assert await store.take(ticket) is None


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_records_expire_and_touch_extends_them(kind: str, tmp_path: Path) -> None:
    now = [0.0]
    store: VersionedStore = (
        MemoryVersionedStore(clock=lambda: now[0])
        if kind == "memory"
        else SqliteVersionedStore(tmp_path, clock=lambda: now[0])
    )
    await store.swap("a", 0, b"1", ttl=10)
    await store.claim("lease", "x", 500)
    now[0] = 5.0
    await store.touch("a", 10)
    assert await store.claim("lease", "y", 500)  # the first lease ran out
    now[0] = 14.0
    assert await store.read("a") == Record(1, b"1")
    now[0] = 16.0
    assert await store.read("a") is None
    assert await store.swap("a", 0, b"new", ttl=10) == (True, Record(1, b"new"))
    await store.close()


@pytest.mark.redis
async def test_redis_records_expire(redis_url: str) -> None:
    store = RedisVersionedStore(redis_url)
    try:
        key = fresh()
        await store.swap(key, 0, b"1", ttl=1)
        await asyncio.sleep(1.3)
        assert await store.read(key) is None
    finally:
        await store.close()


async def _next(messages: AsyncIterator[bytes]) -> bytes:
    return await asyncio.wait_for(messages.__anext__(), 5)


async def test_subscribers_hear_a_gap_first_then_every_notice(store: VersionedStore) -> None:
    channel = fresh("channel")
    first = store.subscribe(channel)
    second = store.subscribe(channel)
    other = store.subscribe(channel + "-other")
    try:
        assert await _next(first) == GAP  # subscribed: now re-read, nothing after is missed
        assert await _next(second) == GAP
        assert await _next(other) == GAP
        await store.publish(channel, b"v2")
        await store.publish(channel, b"v3")
        assert [await _next(first), await _next(first)] == [b"v2", b"v3"]
        assert [await _next(second), await _next(second)] == [b"v2", b"v3"]
        await store.publish(channel + "-other", b"o")
        assert await _next(other) == b"o"
    finally:
        for messages in (first, second, other):
            await messages.aclose()  # type: ignore[attr-defined]


async def test_a_subscriber_far_behind_gets_a_gap_not_a_backlog() -> None:
    store = MemoryVersionedStore()
    messages = store.subscribe("c")
    assert await _next(messages) == GAP
    for i in range(1000):
        await store.publish("c", str(i).encode())
    queued = []
    while not queued or queued[-1] != b"999":
        queued.append(await _next(messages))
    assert queued[0] == GAP  # the oldest notices were dropped: re-read, then carry on
    assert len(queued) <= 256
    await messages.aclose()  # type: ignore[attr-defined]


async def test_redis_down_is_store_unavailable_and_notices_resume(
    redis_server: RedisServer,
) -> None:
    store = RedisVersionedStore(redis_server.url)
    channel = fresh("channel")
    messages = store.subscribe(channel)
    try:
        assert await _next(messages) == GAP
        await store.swap("k", 0, b"1", ttl=60)
        redis_server.stop()
        with pytest.raises(StoreUnavailable):
            await store.read("k")
        with pytest.raises(StoreUnavailable):
            await store.swap("k", 1, b"2", ttl=60)
        assert await _next(messages) == GAP  # notices may have been lost
        redis_server.start()
        while (message := await _next(messages)) == GAP:
            await store.publish(channel, b"after")
        assert message == b"after"
        assert await store.read("k") is None  # a restarted Redis without persistence is empty
    finally:
        await messages.aclose()  # type: ignore[attr-defined]
        await store.close()


async def test_make_versioned_store_picks_the_backend(tmp_path: Path) -> None:
    assert isinstance(make_versioned_store(""), MemoryVersionedStore)
    on_disk = make_versioned_store("", data_dir=tmp_path)
    assert isinstance(on_disk, SqliteVersionedStore)
    await on_disk.close()
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    assert make_versioned_store(url).name == "redis"
    assert make_versioned_store("redis+cluster://127.0.0.1:7000").name == "redis-cluster"


@pytest.mark.redis
async def test_redis_swap_and_publish_is_one_script_that_publishes_on_success(
    redis_url: str,
) -> None:
    store = RedisVersionedStore(redis_url)
    key, channel = fresh(), fresh("channel")
    notices = store.subscribe(channel)
    try:
        assert await _next(notices) == GAP
        done, record, published = await store.swap_and_publish(
            key, 0, b"one", ttl=60, channel=channel, message=b"v1"
        )
        assert (done, record, published) == (True, Record(1, b"one"), True)
        assert await _next(notices) == b"v1"
        lost = await store.swap_and_publish(key, 0, b"two", ttl=60, channel=channel, message=b"x")
        assert lost == (False, Record(1, b"one"), False)  # the current record, and no notice
        done, record, published = await store.swap_and_publish(
            key, 1, b"two", ttl=60, channel=channel, message=b"v2"
        )
        assert (done, published) == (True, True)
        assert await _next(notices) == b"v2"  # not b"x": a lost swap published nothing
        assert await store.read(key) == Record(2, b"two")
    finally:
        await notices.aclose()  # type: ignore[attr-defined]
        await store.close()
