"""When each table next needs the driver: a due-time index, so no pass ever scans every table.

An entry is a table id and a due time in epoch milliseconds (a deadline, a bot turn to retry
once a lease has expired). ``put`` sets a table's due time (replacing an earlier one), ``take``
claims the entries due now, and ``done`` removes a claimed entry unless it was moved since.

- Embedded (one process): a heap keyed by due time, shared by every runtime on one store object.
- Redis: a sorted set of table ids scored by due time (``ZADD``), read with ``ZRANGEBYSCORE``
  and each entry claimed under a lease (``SET NX PX``), so any replica drives a due table and a
  replica that dies while driving one leaves it to the others once the lease expires.

Every operation costs O(log n) in the number of scheduled tables, never O(n).
"""

from __future__ import annotations

import heapq
import weakref
from typing import Any, Protocol

from manhattan.store.cas import VersionedStore
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.tables.records import PREFIX

#: The sorted set of every replica's due tables (one hash slot on a cluster).
DUE_KEY = f"{PREFIX}:{{tables}}:due"

# Removes a member only while its score is still the claimed one or earlier: a replica that
# finished with an entry must not remove a later due time another replica has set meanwhile.
_DONE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) <= tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""


def due_lease_key(table_id: str) -> str:
    return f"{PREFIX}:{{table:{table_id}}}:due"


class DueIndex(Protocol):
    async def put(self, table_id: str, due_ms: int) -> None: ...

    async def take(self, now_ms: int, limit: int) -> list[tuple[str, int]]: ...

    async def done(self, table_id: str, due_ms: int) -> None: ...

    def next_ms(self) -> int | None:
        """The earliest due time this process knows of (others may know earlier ones)."""
        ...

    def __len__(self) -> int: ...


class HeapDue:
    """The embedded index: a heap of ``(due, table id)`` with the current due time per table;
    heap entries whose due time was replaced are skipped when they surface."""

    def __init__(self) -> None:
        self._due: dict[str, int] = {}
        self._heap: list[tuple[int, str]] = []

    async def put(self, table_id: str, due_ms: int) -> None:
        if self._due.get(table_id) == due_ms:
            return
        self._due[table_id] = due_ms
        heapq.heappush(self._heap, (due_ms, table_id))
        if len(self._heap) > 2 * len(self._due) + 64:  # many replaced entries: compact
            self._heap = [(due, tid) for tid, due in self._due.items()]
            heapq.heapify(self._heap)

    async def take(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        taken: list[tuple[str, int]] = []
        while self._heap and self._heap[0][0] <= now_ms and len(taken) < limit:
            due, table_id = heapq.heappop(self._heap)
            if self._due.get(table_id) == due:
                del self._due[table_id]  # claimed: one process, so taking is claiming
                taken.append((table_id, due))
        return taken

    async def done(self, table_id: str, due_ms: int) -> None:
        if self._due.get(table_id, due_ms + 1) <= due_ms:
            del self._due[table_id]  # its heap entry is skipped when it surfaces

    def next_ms(self) -> int | None:
        while self._heap and self._due.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._due)


class RedisDue:
    """The shared index on the tables' Redis: a sorted set, entries claimed under a lease."""

    def __init__(self, store: RedisVersionedStore, lease_ms: int) -> None:
        self.store = store
        self.lease_ms = lease_ms
        self._client: Any = store._client
        self._done = self._client.register_script(_DONE)
        self._wakes: list[int] = []  # due times this process set: when to look again

    async def put(self, table_id: str, due_ms: int) -> None:
        await self.store._call(lambda: self._client.zadd(DUE_KEY, {table_id: due_ms}))
        heapq.heappush(self._wakes, due_ms)

    async def take(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        while self._wakes and self._wakes[0] <= now_ms:
            heapq.heappop(self._wakes)
        found = await self.store._call(
            lambda: self._client.zrangebyscore(
                DUE_KEY, "-inf", now_ms, start=0, num=limit, withscores=True
            )
        )
        taken: list[tuple[str, int]] = []
        for member, score in found:
            table_id = member.decode() if isinstance(member, bytes) else str(member)
            if await self.store.claim(due_lease_key(table_id), "due", self.lease_ms):
                taken.append((table_id, int(score)))
        return taken

    async def done(self, table_id: str, due_ms: int) -> None:
        await self.store._call(lambda: self._done(keys=[DUE_KEY], args=[table_id, due_ms]))

    def next_ms(self) -> int | None:
        return self._wakes[0] if self._wakes else None

    def __len__(self) -> int:
        return len(self._wakes)


_shared: weakref.WeakKeyDictionary[Any, HeapDue] = weakref.WeakKeyDictionary()


def make_due(store: VersionedStore, lease_ms: int) -> HeapDue | RedisDue:
    """The index that goes with ``store``: Redis's sorted set, or one heap per store object (so
    runtimes sharing an in-process store share its schedule, as replicas share Redis)."""
    if isinstance(store, RedisVersionedStore):
        return RedisDue(store, lease_ms)
    found = _shared.get(store)
    if found is None:
        found = _shared[store] = HeapDue()
    return found


__all__ = ["DUE_KEY", "DueIndex", "HeapDue", "RedisDue", "make_due"]
