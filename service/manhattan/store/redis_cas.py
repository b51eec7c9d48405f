"""The versioned store on Redis (or Redis Cluster): records as hashes, swaps by one Lua script.

See ``manhattan.store.cas`` for the contract. A record is a hash ``{v, d}`` under a key that
callers hash-tag (``manhattan:1:{table:abc}``), so the swap script touches one slot and runs on
Redis Cluster too. ``claim`` is SET NX PX, ``take`` GETDEL. Any Redis failure raises
``StoreUnavailable``: a write that could not be confirmed is never reported as done.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from manhattan.store.cache import (
    CLUSTER_SCHEMES,
    ConnectionGate,
    StoreUnavailable,
    drop_idle_connections,
    is_pool_exhausted,
    redis_client,
)
from manhattan.store.cas import Record
from manhattan.store.outage import OutageLog
from manhattan.store.redis_notices import RedisNotices
from manhattan.store.redis_pipe import PIPE_SCHEMES, RedisPipe

log = logging.getLogger("manhattan.store.redis")

T = TypeVar("T")

_FAILURES = (TimeoutError, RedisError, OSError)


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


# The same, and on success the change notice in the same round trip: ARGV[4] is SPUBLISH (or
# PUBLISH, Redis < 7), ARGV[5] the channel, ARGV[6] the message.
_SWAP_PUBLISH = _SWAP.replace(
    "return {1, v + 1}", "redis.call(ARGV[4], ARGV[5], ARGV[6])\nreturn {1, v + 1}"
)


class RedisVersionedStore:
    """Records as Redis hashes ``{v, d}``; swaps by one Lua script; notices by sharded pub/sub
    (``RedisNotices``) on a listening connection of its own (blocking reads must not share the
    pool). On plain Redis the swaps, one per move, go over one pipelined connection
    (``RedisPipe``: a third of redis-py's CPU a call); on a cluster, like everything else, over
    redis-py. After Redis comes back, a call that failed on a dead connection is made once more
    on a fresh one where that is safe (see ``_call``)."""

    name = "redis"

    def __init__(
        self, url: str, *, timeout: float = 2.0, pool_size: int = 64, pool_timeout: float = 5.0
    ) -> None:
        self.url = url
        self._client = redis_client(
            url, timeout=timeout, pool_size=pool_size, pool_timeout=pool_timeout
        )
        plain_url = url
        if url.startswith(CLUSTER_SCHEMES):
            self.name = "redis-cluster"
            plain_url = url.replace("+cluster", "", 1)
        listener = redis.Redis.from_url(
            plain_url, socket_connect_timeout=timeout, socket_timeout=None
        )
        self._listener_client = listener
        self._gate = ConnectionGate(pool_size, pool_timeout)
        # The swaps, one per move, go over one pipelined connection (far less CPU a call than
        # redis-py's), and the notices are heard on a lean connection of the same kind; a
        # cluster routes by slot, so it keeps redis-py.
        self._pipe: RedisPipe | None = None
        scripts: RedisPipe | redis.Redis | RedisCluster = self._client
        if url.startswith(PIPE_SCHEMES):
            scripts = self._pipe = RedisPipe(url, timeout=timeout)
        self.notices = RedisNotices(self._client, listener, pipe=self._pipe)
        self._swap_script = scripts.register_script(_SWAP)
        self._swap_publish_script = scripts.register_script(_SWAP_PUBLISH)
        self._outage = OutageLog(log, "table store (Redis)")

    async def _call(
        self, make: Callable[[], Awaitable[T]], *, retry: bool = True, piped: bool = False
    ) -> T:
        """``make()``'s answer; any failure is ``StoreUnavailable``. A connection error (a
        pooled connection Redis closed, as after a restart; not a timeout, not a busy pool) is
        retried once on a fresh connection when ``retry``: the calls that would do no harm if
        the first attempt had reached Redis after all. A ``piped`` call (on ``RedisPipe``'s one
        connection, which bounds its own waits) takes no slot of the pool's gate."""
        gated = self._gate.call
        try:
            result = await (make() if piped else gated(make))
        except RedisConnectionError as exc:
            await drop_idle_connections(self._client)  # the others are likely dead too
            if not retry or is_pool_exhausted(exc):
                raise self._unavailable(exc) from exc
            try:
                result = await (make() if piped else gated(make))
            except _FAILURES as again:
                raise self._unavailable(again) from again
        except _FAILURES as exc:
            raise self._unavailable(exc) from exc
        if self._outage.active:
            self._outage.recovered()
        return result

    def _unavailable(self, exc: BaseException) -> StoreUnavailable:
        self._outage.failed(exc, "PoolExhausted" if is_pool_exhausted(exc) else None)
        return StoreUnavailable("the table store (Redis) is unavailable; retry shortly")

    async def read(self, key: str) -> Record | None:
        """On the pipelined connection where there is one (a table's streams and presence
        marks read often, and redis-py costs several times the CPU a call)."""
        pipe = self._pipe
        if pipe is not None:
            fields = await self._call(lambda: pipe.execute("HMGET", key, "v", "d"), piped=True)
        else:
            fields = await self._call(lambda: self._client.hmget(key, ["v", "d"]))
        version, data = fields
        if version is None or not isinstance(data, bytes):
            return None
        return Record(int(version), data)

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        """Retried once on a dead connection: if the first attempt did write, the second finds
        its own write (version ``expected + 1`` holding ``data``), which is a success."""
        return await self._swap(self._swap_script, key, expected, data, [ttl])

    async def swap_and_publish(
        self, key: str, expected: int, data: bytes, *, ttl: int, channel: str, message: bytes
    ) -> tuple[bool, Record | None, bool]:
        """``swap``, and on success ``message`` published on ``channel`` by the same script: one
        round trip per change. On a cluster the script may not publish to a channel in another
        slot, so it only swaps (``published`` False: the caller publishes)."""
        if self.name == "redis-cluster":
            done, record = await self.swap(key, expected, data, ttl=ttl)
            return done, record, False
        try:
            sharded = await self.notices.is_sharded()
        except _FAILURES as exc:
            raise self._unavailable(exc) from exc
        command = "SPUBLISH" if sharded else "PUBLISH"
        extra = [ttl, command, channel, message]
        done, record = await self._swap(self._swap_publish_script, key, expected, data, extra)
        return done, record, done

    async def _swap(
        self,
        script: Callable[..., Awaitable[list[object]]],
        key: str,
        expected: int,
        data: bytes,
        extra: list[object],
    ) -> tuple[bool, Record | None]:
        attempts = 0

        def attempt() -> Awaitable[list[object]]:
            nonlocal attempts
            attempts += 1
            return script(keys=[key], args=[expected, data, *extra])

        answer = await self._call(attempt, piped=self._pipe is not None)
        if int(str(answer[0])) == 1:
            return True, Record(int(str(answer[1])), bytes(data))
        if int(str(answer[1])) == 0:
            return False, None
        current = Record(int(str(answer[1])), bytes(answer[2]))  # type: ignore[call-overload]
        if attempts > 1 and current.version == expected + 1 and current.data == data:
            return True, current  # the first attempt wrote before its connection died
        return False, current

    async def touch(self, key: str, ttl: int) -> None:
        await self._call(lambda: self._client.expire(key, ttl))

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        # Not retried: a first attempt that did set the lease would read as lost.
        return bool(
            await self._call(lambda: self._client.set(key, token, nx=True, px=ttl_ms), retry=False)
        )

    async def take(self, key: str) -> bytes | None:
        # Not retried: a first attempt that did take the value would read as absent.
        value = await self._call(lambda: self._client.getdel(key), retry=False)
        return value if isinstance(value, bytes) else None

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        await self._call(lambda: self._client.set(key, data, ex=ttl))

    async def get(self, key: str) -> bytes | None:
        value = await self._call(lambda: self._client.get(key))
        return value if isinstance(value, bytes) else None

    async def delete(self, key: str) -> None:
        await self._call(lambda: self._client.delete(key))

    async def publish(self, channel: str, message: bytes) -> None:
        await self._call(lambda: self.notices.publish(channel, message))

    def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        return self.notices.subscribe(channel)

    async def close(self) -> None:
        if self._pipe is not None:
            await self._pipe.close()
        await self.notices.close()
        await self._listener_client.aclose()
        await self._client.aclose()


__all__ = ["RedisVersionedStore"]
