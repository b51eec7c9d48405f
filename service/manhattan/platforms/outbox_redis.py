"""The outbox on Redis, as ``outbox.py`` describes it, shared by every replica.

New deliveries are appended to a Stream (``XADD``, in the same script that checks and moves the
table's cursor). A claim round is one script, one round trip (on a busy event loop each round
trip waits for the loop, and a table's next delivery waited for three of them): it reads the
new entries in the consumer group ``delivery`` (``XREADGROUP``), moves them into their tables'
queues (lists) and the due set (a sorted set of table ids by the time their head may go),
acknowledging (``XACK``) and deleting (``XDEL``) each as it moves it, so an entry is in the
stream's pending list or in a queue, never lost between them, and the stream stays small; then
it takes the due heads of many tables and moves each table's due time to the end of the lease,
so a dead replica's claim runs out and the head goes to another. A replica that died after
reading entries leaves them pending; the round's ``XAUTOCLAIM`` hands them to a live one after
``claim_idle_ms``. ``keep`` keeps many outcomes in one script. Every key shares the hash tag
``{webhooks}``: one slot, so the scripts are atomic on a cluster too.
"""

from __future__ import annotations

import uuid
from typing import Any

import redis.asyncio as redis
from redis.exceptions import ResponseError

from manhattan.platforms.outbox import Delivery, Enqueued, Outbox, Outcomes
from manhattan.store.cache import redis_client

GROUP = "delivery"
#: Stream entries read (``XREADGROUP COUNT``) and moved into the queues by one script, at most.
INTAKE_BATCH = 500

_ENQUEUE = """
local out = {}
local a = 1
while a <= #ARGV do
  local t, version, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local cur = tonumber(redis.call('HGET', KEYS[1], t) or '-1')
  local added = 0
  if cur >= 0 then
    for i = a + 3, a + 2 + 2 * n, 2 do
      if tonumber(ARGV[i]) > cur then
        redis.call('XADD', KEYS[2], '*', 't', t, 'd', ARGV[i + 1])
        added = added + 1
      end
    end
    if version > cur then redis.call('HSET', KEYS[1], t, version) end
  end
  table.insert(out, added)
  a = a + 3 + 2 * n
end
return out
"""
#: Outcomes (``Outbox.keep``) from ARGV[a] on: now, how many going on, done and later, then
#: (table, head) for each going on and done and (table, head, new bytes, due) for each later.
#: A head is changed only if it is still the queue's head (an outcome kept twice is harmless).
_KEEP_FUNCTION = """
local function keep(due, prefix, a)
  local now = ARGV[a]
  local going_on, done = tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local count = going_on + done + tonumber(ARGV[a + 3])
  a = a + 4
  for n = 1, count do
    local t, h = ARGV[a], ARGV[a + 1]
    local q = prefix .. t
    if n <= going_on + done then
      if redis.call('LINDEX', q, 0) == h then redis.call('LPOP', q) end
      if n <= going_on then
        -- the worker goes on with the table's next: its claim (the due time) stays
      elseif redis.call('LLEN', q) > 0 then
        redis.call('ZADD', due, now, t)
      else
        redis.call('ZREM', due, t)
      end
      a = a + 2
    else
      if redis.call('LINDEX', q, 0) == h then
        redis.call('LSET', q, 0, ARGV[a + 2])
        redis.call('ZADD', due, ARGV[a + 3], t)
      end
      a = a + 4
    end
  end
end
"""
_KEEP = _KEEP_FUNCTION + "keep(KEYS[1], ARGV[1], 2)\nreturn 1\n"
_ROUND = (
    _KEEP_FUNCTION
    + """
local stream, due, group, consumer = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local now, prefix = ARGV[3], ARGV[6]
local function read()
  return redis.pcall(
    'XREADGROUP', 'GROUP', group, consumer, 'COUNT', ARGV[8], 'STREAMS', stream, '>')
end
local function move(entries)
  for _, e in ipairs(entries) do
    local fields = e[2]
    if fields and #fields > 0 and redis.call('XACK', stream, group, e[1]) == 1 then
      local t, d
      for i = 1, #fields, 2 do
        if fields[i] == 't' then t = fields[i + 1] end
        if fields[i] == 'd' then d = fields[i + 1] end
      end
      redis.call('RPUSH', prefix .. t, d)
      redis.call('ZADD', due, 'NX', now, t)
      redis.call('XDEL', stream, e[1])
    end
  end
end
keep(due, prefix, 11)  -- the outcomes that came in first: their tables' next may go now
local found = read()
if type(found) == 'table' and found.err then  -- no group yet (a new or flushed stream)
  redis.call('XGROUP', 'CREATE', stream, group, '0', 'MKSTREAM')
  found = read()
end
if ARGV[9] == '1' then
  move(redis.call('XAUTOCLAIM', stream, group, consumer, ARGV[10], '0-0', 'COUNT', 100)[2])
end
if found then move(found[1][2]) end
local tables = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, ARGV[5])
local out = {}
for _, t in ipairs(tables) do
  local run = redis.call('LRANGE', prefix .. t, 0, tonumber(ARGV[7]) - 1)
  if #run > 0 then
    redis.call('ZADD', due, ARGV[4], t)
    table.insert(out, run)
  else
    redis.call('ZREM', due, t)
  end
end
return out
"""
)
_TAKE = """
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, m in ipairs(members) do redis.call('ZREM', KEYS[1], m) end
return members
"""


#: The outbox's keys start with this (tests give their own).
PREFIX = "manhattan:1"


class RedisOutbox(Outbox):
    name = "redis"

    def __init__(
        self,
        url: str,
        *,
        prefix: str = PREFIX,
        claim_idle_ms: int = 10_000,
        client: redis.Redis | None = None,
    ) -> None:
        # The store's own client: ``redis+cluster://`` selects Redis Cluster, where every key
        # here shares the ``{webhooks}`` hash tag, so one slot serves the outbox.
        self.redis = client or redis_client(url, timeout=2.0, pool_size=16)
        base = f"{prefix}:{{webhooks}}"
        self.hooks_key, self.cursors_key = f"{base}:hooks", f"{base}:cursors"
        self.ended_key, self.ended_at_key = f"{base}:ended", f"{base}:ended-at"
        self.stream, self.due_key = f"{base}:outbox", f"{base}:due"
        self.queue_prefix, self.remind_key = f"{base}:q:", f"{base}:remind"
        self.consumer = uuid.uuid4().hex
        self.claim_idle_ms = claim_idle_ms
        self._autoclaimed_at = 0
        self._group_ready = False
        self._enqueue = self.redis.register_script(_ENQUEUE)
        self._round = self.redis.register_script(_ROUND)
        self._keep = self.redis.register_script(_KEEP)
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

    async def end_hook(self, table_id: str, at: int) -> None:
        hook = await self.redis.hget(self.hooks_key, table_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            if hook is not None:  # a hook never changes: what was read is what is moved
                pipe.hset(self.ended_key, table_id, hook)
                pipe.zadd(self.ended_at_key, {table_id: at})
            pipe.hdel(self.hooks_key, table_id)
            pipe.hdel(self.cursors_key, table_id)
            await pipe.execute()

    async def ended_hook(self, table_id: str) -> bytes | None:
        hook: Any = await self.redis.hget(self.ended_key, table_id)
        return None if hook is None else bytes(hook)

    async def purge_ended(self, before: int) -> None:
        gone: list[Any] = await self.redis.zrangebyscore(
            self.ended_at_key, "-inf", f"({before}", start=0, num=1000
        )
        if gone:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.hdel(self.ended_key, *gone)
                pipe.zrem(self.ended_at_key, *gone)
                await pipe.execute()

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        return (await self.enqueue_many([(table_id, version, items)]))[0]

    async def enqueue_many(self, batch: list[Enqueued]) -> list[int]:
        """``enqueue`` for many tables in one script: how many each added."""
        args: list[Any] = []
        for table_id, version, items in batch:
            args += [table_id, version, len(items)]
            for v, delivery in items:
                args += [v, delivery.encode()]
        added = await self._enqueue(keys=[self.cursors_key, self.stream], args=args)
        return [int(n) for n in added]

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

    async def claim_runs(
        self, now: int, lease_ms: int, limit: int, run: int, outcomes: Outcomes | None = None
    ) -> list[list[Delivery]]:
        """The due heads of up to ``limit`` tables, each with up to ``run - 1`` deliveries
        behind it; each table due again at ``now + lease_ms`` (its claim). One script, one
        round trip: it first keeps ``outcomes``, then moves the new stream entries (and, at
        most every ``claim_idle_ms / 2`` up to a second, a dead replica's pending ones) into
        the queues."""
        autoclaim = now - self._autoclaimed_at >= min(1000, self.claim_idle_ms // 2)
        if autoclaim:
            self._autoclaimed_at = now
        args: list[Any] = [GROUP, self.consumer, now, now + lease_ms, limit, self.queue_prefix]
        args += [run, INTAKE_BATCH, int(autoclaim), self.claim_idle_ms]
        args += _outcome_args(outcomes or Outcomes(now=now))
        runs = await self._round(keys=[self.stream, self.due_key], args=args)
        return [[Delivery.decode(bytes(h), bytes(h)) for h in found] for found in runs]

    async def keep(self, outcomes: Outcomes) -> None:
        """Many outcomes in one script: a ``done`` head leaves its queue (the table is due
        again now if more wait); a ``going_on`` one too, its table still claimed (the worker
        sends the run's next); a ``later`` one is replaced by its new bytes, due at its
        time."""
        if outcomes.done or outcomes.later or outcomes.going_on:
            args = [self.queue_prefix, *_outcome_args(outcomes)]
            await self._keep(keys=[self.due_key], args=args)

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


def _outcome_args(outcomes: Outcomes) -> list[Any]:
    """The arguments of ``_KEEP_FUNCTION``. A table's outcomes in one batch are some going on,
    then at most one that ends its run: kept in that order (a done first would free the table
    while its run's earlier deliveries are still queued, and its own head check would miss)."""
    going_on, done, later = outcomes.going_on, outcomes.done, outcomes.later
    args: list[Any] = [outcomes.now, len(going_on), len(done), len(later)]
    for delivery in [*going_on, *done]:
        args += [delivery.table_id, delivery.handle]
    for delivery, next_at in later:
        args += [delivery.table_id, delivery.handle, delivery.encode(), next_at]
    return args
