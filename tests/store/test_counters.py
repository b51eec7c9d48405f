"""Fixed-window counters (the quotas' counts): per process, and on Redis shared by every
replica (two stores on one Redis count against one number)."""

from __future__ import annotations

import uuid

import pytest

from manhattan.store.cas import MemoryVersionedStore
from manhattan.store.counters import MemoryCounters, RedisCounters, make_counters
from manhattan.store.redis_cas import RedisVersionedStore

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_make_counters_follows_the_store() -> None:
    assert isinstance(make_counters(MemoryVersionedStore(), "p"), MemoryCounters)


async def test_the_oldest_keys_are_dropped_beyond_the_bound() -> None:
    counters = MemoryCounters(max_keys=2)
    for key in ("a", "b", "c"):
        await counters.count(key, 60)
    assert (await counters.count("a", 60))[0] == 1  # forgotten: it can only forgive


@pytest.mark.redis
async def test_redis_counters_are_shared_by_replicas(redis_url: str) -> None:
    one, two = RedisVersionedStore(redis_url), RedisVersionedStore(redis_url)
    try:
        prefix = f"manhattan:test:quota:{uuid.uuid4().hex}"
        first, second = make_counters(one, prefix), make_counters(two, prefix)
        assert isinstance(first, RedisCounters)
        counts = [(await c.count("creates:1.2.3.4", 60))[0] for c in (first, second, first)]
        assert counts == [1, 2, 3]
        assert (await second.count("creates:5.6.7.8", 60))[0] == 1
        count, left = await first.count("chat:1.2.3.4", 0.5)
        assert count == 1 and 0 < left <= 0.5
    finally:
        await one.close()
        await two.close()
