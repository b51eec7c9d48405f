"""A versioned record store: one compare-and-set per change, on Redis or in process.

Tables (DESIGN §9) and strict mode's latest positions need what the state cache cannot give: a
record that several replicas update without losing a write. Each record is one key holding a
version and a blob; ``swap`` writes version ``expected + 1`` only if the stored version is still
``expected`` (0 means absent), and otherwise answers with the current record so the caller can
report the conflict with fresh data.

On Redis the swap is one Lua script on one key (``EVALSHA``, loaded by ``register_script``), so it
is atomic, holds no connection while the caller computes the next state, and works on Redis
Cluster: callers put a hash tag in the key (``manhattan:1:{table:abc}``). ``claim`` (SET NX PX)
gives leases, ``take`` (GETDEL) single-use tickets. Pub/sub carries "something changed" notices;
it is at-most-once, so a subscriber is told ``GAP`` whenever its connection was (re)made and
must re-read what it follows. Any Redis failure raises ``StoreUnavailable``: a write that could
not be confirmed is never reported as done.

The in-process store has the same interface and semantics for the embedded default (one
process), so the same tests run on both.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import redis.asyncio as redis
from redis.exceptions import RedisError

from manhattan.store.cache import CLUSTER_SCHEMES, StoreUnavailable, redis_client

log = logging.getLogger("manhattan.store.cas")

T = TypeVar("T")

#: What a subscription yields when notices may have been lost (first subscription included):
#: re-read everything the subscriber follows.
GAP = b""


@dataclass(frozen=True, slots=True)
class Record:
    """A stored blob and its version (1 for the first write, +1 on every swap)."""

    version: int
    data: bytes


class VersionedStore(Protocol):
    name: str

    async def read(self, key: str) -> Record | None: ...

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]: ...

    async def touch(self, key: str, ttl: int) -> None: ...

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool: ...

    async def take(self, key: str) -> bytes | None: ...

    async def put(self, key: str, data: bytes, ttl: int) -> None: ...

    async def get(self, key: str) -> bytes | None: ...

    async def delete(self, key: str) -> None: ...

    async def publish(self, channel: str, message: bytes) -> None: ...

    def subscribe(self, channel: str) -> AsyncIterator[bytes]: ...

    async def close(self) -> None: ...


class _Fanout:
    """Local subscribers of each channel; a message is queued to every subscriber of its channel.
    A subscriber that falls ``limit`` messages behind gets ``GAP`` instead of an unbounded queue."""

    def __init__(self, limit: int = 256) -> None:
        self.limit = limit
        self.queues: dict[str, set[asyncio.Queue[bytes]]] = {}

    def add(self, channel: str) -> asyncio.Queue[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue(self.limit)
        self.queues.setdefault(channel, set()).add(queue)
        return queue

    def remove(self, channel: str, queue: asyncio.Queue[bytes]) -> bool:
        """Drops a subscriber; True when its channel has none left."""
        queues = self.queues.get(channel)
        if queues is None:
            return True
        queues.discard(queue)
        if queues:
            return False
        del self.queues[channel]
        return True

    def deliver(self, channel: str, message: bytes) -> None:
        for queue in self.queues.get(channel, ()):
            _offer(queue, message)

    def deliver_gap(self) -> None:
        for queues in self.queues.values():
            for queue in queues:
                _offer(queue, GAP)


def _offer(queue: asyncio.Queue[bytes], message: bytes) -> None:
    if queue.full():
        # Too far behind: replace the backlog by one GAP, after which the subscriber re-reads.
        while not queue.empty():
            queue.get_nowait()
        message = GAP
    queue.put_nowait(message)


class MemoryVersionedStore:
    """Records in one process's memory, least recently written evicted beyond ``max_entries``."""

    name = "memory"

    def __init__(
        self, max_entries: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, tuple[float, object]] = OrderedDict()
        self._fanout = _Fanout()

    def _load(self, key: str) -> object | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, value = entry
        if expires <= self._clock():
            del self._entries[key]
            return None
        return value

    def _store(self, key: str, value: object, ttl_seconds: float) -> None:
        self._entries[key] = (self._clock() + ttl_seconds, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    async def read(self, key: str) -> Record | None:
        value = self._load(key)
        return value if isinstance(value, Record) else None

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        current = await self.read(key)
        version = current.version if current is not None else 0
        if version != expected:
            return False, current
        record = Record(version + 1, bytes(data))
        self._store(key, record, ttl)
        return True, record

    async def touch(self, key: str, ttl: int) -> None:
        value = self._load(key)
        if value is not None:
            self._store(key, value, ttl)

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        if self._load(key) is not None:
            return False
        self._store(key, token.encode(), ttl_ms / 1000)
        return True

    async def take(self, key: str) -> bytes | None:
        value = self._load(key)
        self._entries.pop(key, None)
        return value if isinstance(value, bytes) else None

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        self._store(key, bytes(data), ttl)

    async def get(self, key: str) -> bytes | None:
        value = self._load(key)
        return value if isinstance(value, bytes) else None

    async def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    async def publish(self, channel: str, message: bytes) -> None:
        self._fanout.deliver(channel, bytes(message))

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        queue = self._fanout.add(channel)
        try:
            yield GAP  # nothing was missed in process, but subscribers always start by reading
            while True:
                yield await queue.get()
        finally:
            self._fanout.remove(channel, queue)

    async def close(self) -> None:
        self._fanout.deliver_gap()

    def __len__(self) -> int:
        return len(self._entries)


# KEYS[1] = record key; ARGV = expected version, data, ttl seconds.
# Answers {1, new version} on success, {0, current version, current data} on a conflict
# ({0, 0} when the record is absent).
_SWAP = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then
  if v == 0 then return {0, 0} end
  return {0, v, redis.call('HGET', KEYS[1], 'd')}
end
redis.call('HSET', KEYS[1], 'v', v + 1, 'd', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, v + 1}
"""


class RedisVersionedStore:
    """Records as Redis hashes ``{v, d}``; swaps by one Lua script; pub/sub on a connection of
    its own (blocking reads must not share the short-timeout pool)."""

    name = "redis"

    def __init__(self, url: str, *, timeout: float = 0.5, pool_size: int = 32) -> None:
        self.url = url
        self._client = redis_client(url, timeout=timeout, pool_size=pool_size)
        plain_url = url
        if url.startswith(CLUSTER_SCHEMES):
            self.name = "redis-cluster"
            plain_url = url.replace("+cluster", "", 1)
        # Classic pub/sub is broadcast to every node of a cluster, so one plain connection to
        # the seed node both publishes and hears every channel.
        self._pubsub_client = redis.Redis.from_url(
            plain_url, socket_connect_timeout=timeout, socket_timeout=None
        )
        self._swap_script = self._client.register_script(_SWAP)
        self._fanout = _Fanout()
        self._listener: asyncio.Task[None] | None = None
        self._pubsub: Any = None
        self._confirmed: set[str] = set()

    async def _call(self, operation: Awaitable[T]) -> T:
        try:
            return await operation
        except (TimeoutError, RedisError, OSError) as exc:
            raise StoreUnavailable("the table store (Redis) is unavailable; retry shortly") from exc

    async def read(self, key: str) -> Record | None:
        fields = await self._call(self._client.hmget(key, ["v", "d"]))
        version, data = fields
        if version is None or not isinstance(data, bytes):
            return None
        return Record(int(version), data)

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        answer = await self._call(self._swap_script(keys=[key], args=[expected, data, ttl]))
        if int(answer[0]) == 1:
            return True, Record(int(answer[1]), bytes(data))
        if int(answer[1]) == 0:
            return False, None
        return False, Record(int(answer[1]), bytes(answer[2]))

    async def touch(self, key: str, ttl: int) -> None:
        await self._call(self._client.expire(key, ttl))

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        return bool(await self._call(self._client.set(key, token, nx=True, px=ttl_ms)))

    async def take(self, key: str) -> bytes | None:
        value = await self._call(self._client.getdel(key))
        return value if isinstance(value, bytes) else None

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        await self._call(self._client.set(key, data, ex=ttl))

    async def get(self, key: str) -> bytes | None:
        value = await self._call(self._client.get(key))
        return value if isinstance(value, bytes) else None

    async def delete(self, key: str) -> None:
        await self._call(self._client.delete(key))

    async def publish(self, channel: str, message: bytes) -> None:
        await self._call(self._pubsub_client.publish(channel, message))

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        """One Redis subscription per process and channel, shared by every local subscriber.
        The first item, ``GAP``, comes once Redis has confirmed the subscription, so nothing
        published after the subscriber's first re-read can be missed."""
        queue = self._fanout.add(channel)
        if channel in self._confirmed:
            _offer(queue, GAP)
        elif self._pubsub is not None:
            with contextlib.suppress(TimeoutError, RedisError, OSError):
                await self._pubsub.subscribe(channel)  # the listener sees the confirmation
        if self._listener is None or self._listener.done():
            self._listener = asyncio.create_task(self._listen(), name="manhattan-cas-pubsub")
        try:
            while True:
                yield await queue.get()
        finally:
            if self._fanout.remove(channel, queue):
                self._confirmed.discard(channel)
                if self._pubsub is not None:
                    with contextlib.suppress(TimeoutError, RedisError, OSError):
                        await self._pubsub.unsubscribe(channel)

    async def _listen(self) -> None:
        """Keeps one pub/sub connection subscribed to the channels local subscribers follow,
        reconnecting after failures; a confirmed (re)subscription tells its subscribers
        ``GAP``."""
        while self._fanout.queues:
            pubsub = self._pubsub_client.pubsub()
            try:
                await pubsub.subscribe(*self._fanout.queues)
                self._pubsub = pubsub
                while self._fanout.queues:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None:
                        self._dispatch(message)
            except (TimeoutError, RedisError, OSError) as exc:
                log.warning("table notices lost; reconnecting", extra={"error": repr(exc)})
                self._confirmed.clear()
                self._fanout.deliver_gap()
                await asyncio.sleep(0.2)
            finally:
                self._pubsub = None
                self._confirmed.clear()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        name = channel.decode() if isinstance(channel, bytes) else str(channel)
        kind = message.get("type")
        if kind == "message":
            data = message["data"]
            self._fanout.deliver(name, data if isinstance(data, bytes) else str(data).encode())
        elif kind == "subscribe":
            self._confirmed.add(name)
            self._fanout.deliver(name, GAP)
        elif kind == "unsubscribe":
            self._confirmed.discard(name)

    async def close(self) -> None:
        self._fanout.deliver_gap()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self._pubsub_client.aclose()
        await self._client.aclose()


def make_versioned_store(
    redis_url: str, *, timeout: float = 0.5, pool_size: int = 32, max_entries: int = 100_000
) -> VersionedStore:
    """Redis when a URL is configured, else the in-process store (the embedded default)."""
    if redis_url:
        return RedisVersionedStore(redis_url, timeout=timeout, pool_size=pool_size)
    return MemoryVersionedStore(max_entries)


__all__ = [
    "GAP",
    "MemoryVersionedStore",
    "Record",
    "RedisVersionedStore",
    "VersionedStore",
    "make_versioned_store",
]
