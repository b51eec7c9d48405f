"""The state cache (DESIGN §6): Redis when configured, an in-process LRU otherwise.

Keys carry the rules version, ``manhattan:<version>:<kind>:<stateId>``, so a rules change never
serves a result computed under old rules. ``kind`` is ``state`` for a state's canonical msgpack
and a result name (``legal``, ``score``) for pure results.

Failure policy: a backend failure raises ``StoreUnavailable`` from ``load_state`` (a request that
only names an id cannot proceed) and is a plain miss everywhere else (a request that carried its
state never fails because of the cache). Once Redis refused or dropped a connection (or timed
out three times in a row) the backend is skipped for ``retry_after`` seconds, so an outage costs
one timeout per interval rather than one per request; the first call after that interval tries
Redis again, which is how the service recovers by itself when Redis returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from manhattan.store.expiring import ExpiringMap
from manhattan.store.outage import OutageLog

log = logging.getLogger("manhattan.store.cache")

T = TypeVar("T")

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
        self._entries: ExpiringMap[bytes] = ExpiringMap(max_entries, clock)

    async def get(self, key: str) -> bytes | None:
        return self._entries.get(key)

    async def set(self, key: str, value: bytes, ttl: int) -> None:
        self._entries.set(key, value, ttl)

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


#: ``REDIS_URL`` schemes that select Redis Cluster (the rest of the URL is a seed node).
CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")


def redis_client(
    url: str, *, timeout: float, pool_size: int, pool_timeout: float = 5.0
) -> redis.Redis | RedisCluster:
    """A client for ``url`` (``redis+cluster://`` selects Redis Cluster) with ``timeout`` on
    connects and replies, a bounded pool that makes a call wait up to ``pool_timeout`` for a
    free connection, and no client-side retries (callers retry once where it is safe). The
    state cache and the versioned store both connect through it."""
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
        timeout=pool_timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
        health_check_interval=0,
    )
    return redis.Redis.from_pool(pool)  # closing the client closes the pool


class PoolExhausted(RedisError):
    """No pooled connection came free within the wait: the process is busy, Redis is not down."""


def is_pool_exhausted(exc: BaseException) -> bool:
    return isinstance(exc, PoolExhausted) or (
        isinstance(exc, RedisConnectionError) and "No connection available" in str(exc)
    )


class ConnectionGate:
    """At most ``size`` calls hold pooled connections at once; the others wait their turn in
    arrival order (redis-py's blocking pool wakes waiters in no fair order, so under load one
    call could wait past any timeout while later ones go ahead), up to ``timeout`` seconds."""

    def __init__(self, size: int, timeout: float) -> None:
        self.timeout = timeout
        self._slots = asyncio.Semaphore(size)

    async def call(self, make: Callable[[], Awaitable[T]]) -> T:
        slots = self._slots
        if slots.locked():
            try:
                async with asyncio.timeout(self.timeout):
                    await slots.acquire()
            except TimeoutError:
                raise PoolExhausted(f"no Redis connection free within {self.timeout} s") from None
        else:
            await slots.acquire()
        try:
            return await make()
        finally:
            slots.release()


async def drop_idle_connections(client: redis.Redis | RedisCluster) -> None:
    """Closes the pooled connections no call holds (after one proved dead, as after a Redis
    restart: the next calls connect afresh instead of each finding a dead one)."""
    if isinstance(client, redis.Redis):
        with contextlib.suppress(Exception):
            await client.connection_pool.disconnect(inuse_connections=False)


#: Timeouts in a row that open the cache's circuit (one slow reply does not).
TIMEOUTS_TO_OPEN = 3


class RedisBackend:
    """Redis through a bounded, blocking pool, with a circuit: after Redis refused or dropped a
    connection, or timed out ``TIMEOUTS_TO_OPEN`` times in a row, it is skipped for
    ``retry_after`` seconds (the cache is an optimization: a miss is cheaper than a wait). A
    busy pool or one slow reply fails that call only. A connection error is retried once on a
    fresh connection (every cache call is safe to repeat). Warnings: one line per kind of
    failure with a count (``OutageLog``)."""

    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 2.0,
        pool_size: int = 64,
        pool_timeout: float = 5.0,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.retry_after = retry_after
        self._clock = clock
        self._down_until = 0.0
        self._timeouts = 0
        self._outage = OutageLog(log, "state cache (Redis)", clock=clock)
        self._client = redis_client(
            url, timeout=timeout, pool_size=pool_size, pool_timeout=pool_timeout
        )
        self._gate = ConnectionGate(pool_size, pool_timeout)
        if url.startswith(CLUSTER_SCHEMES):
            self.name = "redis-cluster"

    @property
    def is_down(self) -> bool:
        return self._clock() < self._down_until

    def _failed(self, exc: BaseException) -> StoreUnavailable:
        if is_pool_exhausted(exc):
            self._outage.failed(exc, "PoolExhausted")
        else:
            self._outage.failed(exc)
            timed_out = isinstance(exc, (TimeoutError, RedisTimeoutError))
            self._timeouts = self._timeouts + 1 if timed_out else TIMEOUTS_TO_OPEN
            if self._timeouts >= TIMEOUTS_TO_OPEN:
                self._down_until = self._clock() + self.retry_after
        return StoreUnavailable("the state store (Redis) is unavailable; retry shortly")

    def _succeeded(self) -> None:
        self._timeouts = 0
        self._down_until = 0.0
        if self._outage.active:
            self._outage.recovered()

    async def _call(self, make: Callable[[], Awaitable[T]]) -> T:
        if self.is_down:
            raise StoreUnavailable("the state store (Redis) is unavailable; retry shortly")
        try:
            try:
                result = await self._gate.call(make)
            except RedisConnectionError as exc:
                if is_pool_exhausted(exc):
                    raise
                await drop_idle_connections(self._client)
                # A connection Redis closed: once more, on a fresh one.
                result = await self._gate.call(make)
        except (TimeoutError, RedisError, OSError) as exc:
            raise self._failed(exc) from exc
        self._succeeded()
        return result

    async def get(self, key: str) -> bytes | None:
        value = await self._call(lambda: self._client.get(key))
        return value if isinstance(value, bytes) else None

    async def set(self, key: str, value: bytes, ttl: int) -> None:
        await self._call(lambda: self._client.set(key, value, ex=ttl))

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
    timeout: float = 2.0,
    pool_size: int = 64,
    pool_timeout: float = 5.0,
    retry_after: float = 1.0,
) -> Backend:
    """Redis when a URL is configured, else the in-process LRU (the embedded default)."""
    if redis_url:
        return RedisBackend(
            redis_url,
            timeout=timeout,
            pool_size=pool_size,
            pool_timeout=pool_timeout,
            retry_after=retry_after,
        )
    return MemoryBackend(lru_size)


__all__ = [
    "Backend",
    "CacheObserver",
    "ConnectionGate",
    "MemoryBackend",
    "PoolExhausted",
    "RedisBackend",
    "StateCache",
    "StoreUnavailable",
    "drop_idle_connections",
    "is_pool_exhausted",
    "make_backend",
    "redis_client",
]
