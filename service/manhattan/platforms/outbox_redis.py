"""The outbox on Redis, as ``outbox.py`` describes it, shared by every replica.

New deliveries are appended to a Stream (``XADD``, in the same script that checks and moves the
table's cursor). Each replica reads it in the consumer group ``delivery`` (``XREADGROUP``) and
moves each entry into its table's queue (a list) and the due set (a sorted set of table ids by
the time their head may go), acknowledging the entry (``XACK``) in the same script: an entry is
in the stream's pending list or in a queue, never lost between them. A replica that died after
reading entries leaves them pending; ``XAUTOCLAIM`` hands them to a live one after
``claim_idle_ms``. A moved entry is deleted (``XDEL``), so the stream stays small. A claim
moves the table's due time to the end of the lease, so a dead replica's claim runs out and
the head goes to another. Every key shares the hash tag
``{webhooks}``: one slot, so the scripts are atomic on a cluster too.
"""

from __future__ import annotations

import uuid
from typing import Any

import redis.asyncio as redis
from redis.exceptions import ResponseError

from ..store.cache import redis_client
from .outbox import Delivery

GROUP = "delivery"

_ENQUEUE = """
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if cur < 0 then return 0 end
local added = 0
for i = 3, #ARGV, 2 do
  if tonumber(ARGV[i]) > cur then
    redis.call('XADD', KEYS[2], '*', 't', ARGV[1], 'd', ARGV[i + 1])
    added = added + 1
  end
end
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return added
"""
_SCHEDULE = """
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('RPUSH', KEYS[3], ARGV[4])
  redis.call('ZADD', KEYS[2], 'NX', ARGV[5], ARGV[3])
  redis.call('XDEL', KEYS[1], ARGV[2])
end
return 1
"""
_CLAIM = """
local tables = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, t in ipairs(tables) do
  local head = redis.call('LINDEX', ARGV[4] .. t, 0)
  if head then
    redis.call('ZADD', KEYS[1], ARGV[2], t)
    table.insert(out, head)
  else
    redis.call('ZREM', KEYS[1], t)
  end
end
return out
"""
_DONE = """
if redis.call('LINDEX', KEYS[2], 0) == ARGV[2] then redis.call('LPOP', KEYS[2]) end
if redis.call('LLEN', KEYS[2]) > 0 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
"""
_RETRY = """
if redis.call('LINDEX', KEYS[2], 0) == ARGV[2] then
  redis.call('LSET', KEYS[2], 0, ARGV[3])
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
end
return 1
"""
_TAKE = """
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, m in ipairs(members) do redis.call('ZREM', KEYS[1], m) end
return members
"""


class RedisOutbox:
    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "manhattan:1",
        claim_idle_ms: int = 10_000,
        client: redis.Redis | None = None,
    ) -> None:
        # The store's own client: ``redis+cluster://`` selects Redis Cluster, where every key
        # here shares the ``{webhooks}`` hash tag, so one slot serves the outbox.
        self.redis = client or redis_client(url, timeout=2.0, pool_size=16)
        base = f"{prefix}:{{webhooks}}"
        self.hooks_key, self.cursors_key = f"{base}:hooks", f"{base}:cursors"
        self.stream, self.due_key = f"{base}:outbox", f"{base}:due"
        self.queue_prefix, self.remind_key = f"{base}:q:", f"{base}:remind"
        self.consumer = uuid.uuid4().hex
        self.claim_idle_ms = claim_idle_ms
        self._group_ready = False
        self._enqueue = self.redis.register_script(_ENQUEUE)
        self._schedule = self.redis.register_script(_SCHEDULE)
        self._claim = self.redis.register_script(_CLAIM)
        self._done = self.redis.register_script(_DONE)
        self._retry = self.redis.register_script(_RETRY)
        self._take = self.redis.register_script(_TAKE)

    def queue(self, table_id: str) -> str:
        return self.queue_prefix + table_id

    async def put_hook(self, table_id: str, hook: bytes) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.hooks_key, table_id, hook)
            pipe.hset(self.cursors_key, table_id, 0)
            await pipe.execute()

    async def hook(self, table_id: str) -> tuple[bytes, int] | None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(self.hooks_key, table_id)
            pipe.hget(self.cursors_key, table_id)
            hook, cursor = await pipe.execute()
        return None if hook is None else (bytes(hook), int(cursor or 0))

    async def hooked(self) -> list[str]:
        keys: list[Any] = await self.redis.hkeys(self.hooks_key)
        return [bytes(k).decode() for k in keys]

    async def drop_hook(self, table_id: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(self.hooks_key, table_id)
            pipe.hdel(self.cursors_key, table_id)
            await pipe.execute()

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        args: list[Any] = [table_id, version]
        for v, delivery in items:
            args += [v, delivery.encode()]
        return int(await self._enqueue(keys=[self.cursors_key, self.stream], args=args))

    async def add(self, delivery: Delivery) -> None:
        await self.redis.xadd(self.stream, {"t": delivery.table_id, "d": delivery.encode()})

    async def _ensure_group(self) -> None:
        if self._group_ready:
            return
        try:
            await self.redis.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_ready = True

    async def intake(self, now: int, block_ms: int | None = None) -> int:
        """Move new stream entries (and a dead replica's pending ones) into the queues."""
        await self._ensure_group()
        entries: list[tuple[bytes, dict[bytes, bytes]]] = []
        claimed: Any = await self.redis.xautoclaim(
            self.stream, GROUP, self.consumer, self.claim_idle_ms, "0-0", count=100
        )
        entries += [e for e in claimed[1] if e[1]]
        read: Any = await self.redis.xreadgroup(
            GROUP, self.consumer, {self.stream: ">"}, count=200, block=block_ms
        )
        for _, found in read or ():
            entries += found
        for entry_id, fields in entries:
            table_id = fields[b"t"].decode()
            await self._schedule(
                keys=[self.stream, self.due_key, self.queue(table_id)],
                args=[GROUP, entry_id, table_id, fields[b"d"], now],
            )
        return len(entries)

    async def claim(self, now: int, lease_ms: int, limit: int) -> list[Delivery]:
        await self.intake(now)
        heads = await self._claim(
            keys=[self.due_key], args=[now, now + lease_ms, limit, self.queue_prefix]
        )
        return [Delivery.decode(bytes(h), bytes(h)) for h in heads]

    async def done(self, delivery: Delivery, now: int) -> None:
        await self._done(
            keys=[self.due_key, self.queue(delivery.table_id)],
            args=[delivery.table_id, delivery.handle, now],
        )

    async def retry(self, delivery: Delivery, next_at: int) -> None:
        await self._retry(
            keys=[self.due_key, self.queue(delivery.table_id)],
            args=[delivery.table_id, delivery.handle, delivery.encode(), next_at],
        )

    async def remind(self, member: str, at: int) -> None:
        await self.redis.zadd(self.remind_key, {member: at})

    async def take_reminders(self, now: int, limit: int) -> list[str]:
        members = await self._take(keys=[self.remind_key], args=[now, limit])
        return [bytes(m).decode() for m in members]

    async def waiting(self) -> int:
        tables: list[Any] = await self.redis.zrange(self.due_key, 0, -1)
        total = 0
        for t in tables:
            total += int(await self.redis.llen(self.queue(bytes(t).decode())))
        await self._ensure_group()
        groups = await self.redis.xinfo_groups(self.stream)
        for group in groups:
            if group["name"] in (GROUP, GROUP.encode()):
                total += int(group.get("lag") or 0) + int(group["pending"])
        return total

    async def close(self) -> None:
        await self.redis.aclose()
