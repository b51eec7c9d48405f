"""The state cache (DESIGN §6): the embedded LRU and a real Redis; a Redis failure is a miss."""

from __future__ import annotations

import time

import pytest

from manhattan.store.cache import (
    MemoryBackend,
    RedisBackend,
    StateCache,
    StoreUnavailable,
    make_backend,
)
from tests.conftest import RedisServer

pytestmark = pytest.mark.anyio


class Outcomes:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def __call__(self, kind: str, outcome: str) -> None:
        self.seen.append((kind, outcome))


async def test_keys_carry_the_rules_version() -> None:
    cache = StateCache(MemoryBackend(), rules_version=7)
    assert cache.key("state", "ab" * 16) == f"manhattan:7:state:{'ab' * 16}"
    assert cache.key("legal", "x") == "manhattan:7:legal:x"


async def test_memory_backend_is_a_bounded_lru_with_expiry() -> None:
    now = [0.0]
    backend = MemoryBackend(max_entries=2, clock=lambda: now[0])
    await backend.set("a", b"1", ttl=10)
    await backend.set("b", b"2", ttl=10)
    assert await backend.get("a") == b"1"  # a is now the most recent
    await backend.set("c", b"3", ttl=10)
    assert await backend.get("b") is None
    assert await backend.get("a") == b"1"
    now[0] = 11.0
    assert await backend.get("a") is None
    assert len(backend) == 1


def test_no_redis_url_means_the_embedded_lru() -> None:
    assert make_backend("").name == "memory"
    assert make_backend("redis://127.0.0.1:1/0").name == "redis"


@pytest.mark.redis
async def test_redis_stores_states_and_results_with_a_ttl(redis_url: str) -> None:
    seen = Outcomes()
    backend = RedisBackend(redis_url)
    cache = StateCache(backend, rules_version=1, ttl=30, observer=seen)
    state_id = f"{time.time_ns():032x}"[-32:]
    try:
        assert await cache.load_state(state_id) is None
        assert await cache.save_state(state_id, b"\x01\x02")
        assert await cache.load_state(state_id) == b"\x01\x02"
        assert await cache.save_result("legal", state_id, b"[]")
        assert await cache.load_result("legal", state_id) == b"[]"
        ttl = await backend._client.ttl(cache.key("state", state_id))
        assert 0 < ttl <= 30
        assert await cache.ping()
    finally:
        await cache.close()
    assert seen.seen == [("state", "miss"), ("state", "hit"), ("legal", "hit")]


@pytest.mark.redis
async def test_redis_down_is_a_miss_for_results_and_unavailable_for_states(
    redis_server: RedisServer,
) -> None:
    seen = Outcomes()
    backend = RedisBackend(redis_server.url, timeout=0.2, retry_after=0.2)
    cache = StateCache(backend, rules_version=1, observer=seen)
    try:
        assert await cache.save_state("a" * 32, b"s")
        redis_server.stop()
        started = time.perf_counter()
        assert await cache.load_result("legal", "a" * 32) is None  # a miss, not an error
        assert await cache.save_result("legal", "a" * 32, b"x") is False
        with pytest.raises(StoreUnavailable):
            await cache.load_state("a" * 32)
        assert not await cache.ping()
        assert time.perf_counter() - started < 2.0, "an outage must cost short timeouts only"
        assert ("legal", "error") in seen.seen and ("state", "error") in seen.seen

        redis_server.start()  # same port, empty (no persistence)
        deadline = time.monotonic() + 5
        while not await cache.ping():
            assert time.monotonic() < deadline, "the cache did not recover by itself"
            time.sleep(0.05)
        assert await cache.load_state("a" * 32) is None
        assert await cache.save_state("a" * 32, b"s")
        assert await cache.load_state("a" * 32) == b"s"
    finally:
        await cache.close()


@pytest.mark.redis
async def test_after_a_failure_redis_is_skipped_then_retried(redis_server: RedisServer) -> None:
    now = [100.0]
    backend = RedisBackend(redis_server.url, timeout=0.2, retry_after=1.0, clock=lambda: now[0])
    try:
        redis_server.stop()
        with pytest.raises(StoreUnavailable):
            await backend.get("k")
        redis_server.start()
        with pytest.raises(StoreUnavailable):
            await backend.get("k")  # still inside the retry interval: not even tried
        now[0] += 1.5
        assert await backend.get("k") is None  # tried again, and Redis is back
        assert not backend.is_down
    finally:
        await backend.close()
