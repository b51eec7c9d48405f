"""The versioned record store the tables need, until the lead's ``manhattan.cas`` lands.

Same interface as BRIEF's ``manhattan.cas.VersionedStore`` (read, swap, touch, claim, take, put,
publish, subscribe), memory and Redis, so the table code does not change when it is swapped for
the shared module: ``tables.storage.make_store`` prefers ``manhattan.cas`` when it exists.

Redis: a record is a hash ``{v: version, d: data}`` under one key; ``swap`` is one Lua script on
that one key, so it is atomic and runs on Redis Cluster when the key carries a hash tag.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import redis.asyncio as redis
from redis.exceptions import RedisError

from ..store import StoreUnavailable


@dataclass(frozen=True, slots=True)
class Record:
    version: int
    data: bytes


class VersionedStore(Protocol):
    async def read(self, key: str) -> Record | None: ...

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]: ...

    async def touch(self, key: str, ttl: int) -> None: ...

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool: ...

    async def take(self, key: str) -> bytes | None: ...

    async def put(self, key: str, data: bytes, ttl: int) -> None: ...

    async def publish(self, channel: str, message: bytes) -> None: ...

    def subscribe(self, channel: str) -> AsyncIterator[bytes]: ...

    async def close(self) -> None: ...


class MemoryVersionedStore:
    """One process: a dict with expiry; pub/sub is an in-process fan-out."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._records: dict[str, tuple[float, Record]] = {}
        self._plain: dict[str, tuple[float, bytes]] = {}
        self._subscribers: dict[str, set[asyncio.Queue[bytes]]] = {}

    def _live(self, key: str) -> Record | None:
        entry = self._records.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            del self._records[key]
            return None
        return entry[1]

    async def read(self, key: str) -> Record | None:
        return self._live(key)

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        current = self._live(key)
        version = 0 if current is None else current.version
        if version != expected:
            return False, current
        record = Record(version + 1, data)
        self._records[key] = (self._clock() + ttl, record)
        return True, record

    async def touch(self, key: str, ttl: int) -> None:
        current = self._live(key)
        if current is not None:
            self._records[key] = (self._clock() + ttl, current)

    def _plain_live(self, key: str) -> bytes | None:
        entry = self._plain.get(key)
        if entry is None:
            return None
        if entry[0] <= self._clock():
            del self._plain[key]
            return None
        return entry[1]

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        if self._plain_live(key) is not None:
            return False
        self._plain[key] = (self._clock() + ttl_ms / 1000, token.encode())
        return True

    async def take(self, key: str) -> bytes | None:
        value = self._plain_live(key)
        self._plain.pop(key, None)
        return value

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        self._plain[key] = (self._clock() + ttl, data)

    async def publish(self, channel: str, message: bytes) -> None:
        for queue in list(self._subscribers.get(channel, ())):
            queue.put_nowait(message)

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._subscribers.setdefault(channel, set()).add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._subscribers[channel].discard(queue)

    async def close(self) -> None:
        self._subscribers.clear()


_SWAP = """
local cur = redis.call('HGET', KEYS[1], 'v')
local v = tonumber(cur or '0')
if v ~= tonumber(ARGV[1]) then
  if cur then return {0, v, redis.call('HGET', KEYS[1], 'd')} end
  return {0}
end
redis.call('HSET', KEYS[1], 'v', v + 1, 'd', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, v + 1}
"""


class RedisVersionedStore:
    """Redis: records are hashes, ``swap`` one Lua script; failures raise StoreUnavailable."""

    def __init__(self, url: str, *, timeout: float = 1.0, pool_size: int = 32) -> None:
        self.url = url
        self._client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            max_connections=pool_size,
        )
        self._swap: Any = self._client.register_script(_SWAP)

    async def _call(self, coro: Any) -> Any:
        try:
            return await coro
        except (TimeoutError, RedisError, OSError) as exc:
            raise StoreUnavailable("the table store (Redis) is unavailable; retry shortly") from exc

    async def read(self, key: str) -> Record | None:
        version, data = await self._call(self._client.hmget(key, ["v", "d"]))
        if version is None or data is None:
            return None
        return Record(int(version), bytes(data))

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        reply = await self._call(self._swap(keys=[key], args=[expected, data, ttl]))
        if int(reply[0]) == 1:
            return True, Record(int(reply[1]), data)
        if len(reply) == 1:
            return False, None
        return False, Record(int(reply[1]), bytes(reply[2]))

    async def touch(self, key: str, ttl: int) -> None:
        await self._call(self._client.expire(key, ttl))

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        return bool(await self._call(self._client.set(key, token, nx=True, px=ttl_ms)))

    async def take(self, key: str) -> bytes | None:
        value = await self._call(self._client.getdel(key))
        return None if value is None else bytes(value)

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        await self._call(self._client.set(key, data, ex=ttl))

    async def publish(self, channel: str, message: bytes) -> None:
        await self._call(self._client.publish(channel, message))

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        try:
            await self._call(pubsub.subscribe(channel))
            while True:
                message = await self._call(pubsub.get_message(timeout=1.0))
                if message is not None and message.get("type") == "message":
                    yield bytes(message["data"])
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        await self._client.aclose()
