"""The state cache (DESIGN §6): Redis when configured, an in-process LRU otherwise.

Keys carry the rules version, ``manhattan:<version>:<kind>:<stateId>``, so a rules change never
serves a result computed under old rules. ``kind`` is ``state`` for a state's canonical msgpack
and a result name (``legal``, ``score``) for pure results.

Failure policy: a backend failure raises ``StoreUnavailable`` from ``load_state`` (a request that
only names an id cannot proceed) and is a plain miss everywhere else (a request that carried its
state never fails because of the cache). After a Redis failure the backend is skipped for
``retry_after`` seconds, so an outage costs one short timeout per interval rather than one per
request; the first call after that interval tries Redis again, which is how the service recovers
by itself when Redis returns.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

log = logging.getLogger("manhattan.store.cache")

#: Called with (kind, outcome) for every cache lookup: outcome is hit, miss or error.
CacheObserver = Callable[[str, str], None]


class StoreUnavailable(RuntimeError):
    """The cache backend could not answer; code ``STORE_UNAVAILABLE`` (HTTP 503)."""

    code = "STORE_UNAVAILABLE"

    def __init__(self, message: str = "the state store is unavailable; retry shortly") -> None:
        super().__init__(message)
        self.message = message


class Backend(Protocol):
    """A byte-valued key-value store with expiry."""

    name: str

    async def get(self, key: str) -> bytes | None: ...

    async def set(self, key: str, value: bytes, ttl: int) -> None: ...

    async def ping(self) -> bool: ...

    async def close(self) -> None: ...


class MemoryBackend:
    """An LRU of at most ``max_entries`` with per-entry expiry; one process, no I/O."""

    name = "memory"

    def __init__(self, max_entries: int = 10_000, clock: Callable[[], float] = time.monotonic):
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, bytes]] = OrderedDict()

    async def get(self, key: str) -> bytes | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if expires <= self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return value

    async def set(self, key: str, value: bytes, ttl: int) -> None:
        self._entries[key] = (self._clock() + ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


#: ``REDIS_URL`` schemes that select Redis Cluster (the rest of the URL is a seed node).
CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")


def redis_client(url: str, *, timeout: float, pool_size: int) -> redis.Redis | RedisCluster:
    """A client for ``url`` (``redis+cluster://`` selects Redis Cluster) with short timeouts, a
    bounded blocking pool and no client-side retries: a retry would multiply the latency of an
    outage. The state cache and the versioned store both connect through it."""
    if url.startswith(CLUSTER_SCHEMES):
        # Every operation touches one key, so one slot (tables add hash tags for their keys).
        return RedisCluster.from_url(
            url.replace("+cluster", "", 1),
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            max_connections=pool_size,
            retry=Retry(NoBackoff(), 0),
        )
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=pool_size,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        health_check_interval=0,
    )
    return redis.Redis.from_pool(pool)  # closing the client closes the pool


class RedisBackend:
    """Redis through a bounded, blocking pool with short timeouts and no client-side retries
    (a retry would multiply the latency of an outage; the cache is an optimization)."""

    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 0.25,
        pool_size: int = 32,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.retry_after = retry_after
        self._clock = clock
        self._down_until = 0.0
        self._down = False
        self._client = redis_client(url, timeout=timeout, pool_size=pool_size)
        if url.startswith(CLUSTER_SCHEMES):
            self.name = "redis-cluster"

    @property
    def is_down(self) -> bool:
        return self._down

    def _check_circuit(self) -> None:
        if self._down and self._clock() < self._down_until:
            raise StoreUnavailable("the state store (Redis) is unavailable; retry shortly")

    def _failed(self, exc: BaseException) -> StoreUnavailable:
        if not self._down:
            log.warning("redis unavailable, serving without it", extra={"error": repr(exc)})
        self._down = True
        self._down_until = self._clock() + self.retry_after
        return StoreUnavailable("the state store (Redis) is unavailable; retry shortly")

    def _succeeded(self) -> None:
        if self._down:
            log.warning("redis is back")
            self._down = False

    async def get(self, key: str) -> bytes | None:
        self._check_circuit()
        try:
            value = await self._client.get(key)
        except (TimeoutError, RedisError, OSError) as exc:
            raise self._failed(exc) from exc
        self._succeeded()
        return value if isinstance(value, bytes) else None

    async def set(self, key: str, value: bytes, ttl: int) -> None:
        self._check_circuit()
        try:
            await self._client.set(key, value, ex=ttl)
        except (TimeoutError, RedisError, OSError) as exc:
            raise self._failed(exc) from exc
        self._succeeded()

    async def ping(self) -> bool:
        """Readiness: always asks Redis (ignores the circuit), and closes it on success."""
        try:
            await self._client.ping()
        except (TimeoutError, RedisError, OSError) as exc:
            self._failed(exc)
            return False
        self._succeeded()
        return True

    async def close(self) -> None:
        await self._client.aclose()


class StateCache:
    """States and pure results by state id, under keys that include the rules version."""

    def __init__(
        self,
        backend: Backend,
        *,
        rules_version: int,
        ttl: int = 86_400,
        observer: CacheObserver | None = None,
    ) -> None:
        self.backend = backend
        self.rules_version = rules_version
        self.ttl = ttl
        self._observe = observer or (lambda kind, outcome: None)

    def key(self, kind: str, state_id: str) -> str:
        return f"manhattan:{self.rules_version}:{kind}:{state_id}"

    async def load_state(self, state_id: str) -> bytes | None:
        """A state's canonical msgpack, or None; raises StoreUnavailable on a backend failure."""
        try:
            value = await self.backend.get(self.key("state", state_id))
        except StoreUnavailable:
            self._observe("state", "error")
            raise
        self._observe("state", "miss" if value is None else "hit")
        return value

    async def save_state(self, state_id: str, data: bytes) -> bool:
        """Store a state; False (logged, counted) when the backend failed."""
        return await self._save("state", state_id, data)

    async def load_result(self, kind: str, state_id: str) -> bytes | None:
        """A cached pure result, or None; a backend failure is a miss."""
        try:
            value = await self.backend.get(self.key(kind, state_id))
        except StoreUnavailable:
            self._observe(kind, "error")
            return None
        self._observe(kind, "miss" if value is None else "hit")
        return value

    async def save_result(self, kind: str, state_id: str, data: bytes) -> bool:
        return await self._save(kind, state_id, data)

    async def _save(self, kind: str, state_id: str, data: bytes) -> bool:
        try:
            await self.backend.set(self.key(kind, state_id), data, self.ttl)
        except StoreUnavailable:
            self._observe(kind, "error")
            return False
        return True

    async def ping(self) -> bool:
        return await self.backend.ping()

    async def close(self) -> None:
        await self.backend.close()


def make_backend(
    redis_url: str,
    *,
    lru_size: int = 10_000,
    timeout: float = 0.25,
    pool_size: int = 32,
    retry_after: float = 1.0,
) -> Backend:
    """Redis when a URL is configured, else the in-process LRU (the embedded default)."""
    if redis_url:
        return RedisBackend(
            redis_url, timeout=timeout, pool_size=pool_size, retry_after=retry_after
        )
    return MemoryBackend(lru_size)


__all__ = [
    "Backend",
    "CacheObserver",
    "MemoryBackend",
    "RedisBackend",
    "StateCache",
    "StoreUnavailable",
    "make_backend",
    "redis_client",
]
