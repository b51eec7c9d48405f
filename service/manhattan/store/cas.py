"""The versioned record store: one compare-and-set per change (the contract, and in memory).

Tables (DESIGN §9) and strict mode's latest positions need what the state cache cannot give: a
record that several writers update without losing a write. Each record is one key holding a
version and a blob; ``swap`` writes version ``expected + 1`` only if the stored version is still
``expected`` (0 means absent), and otherwise answers with the current record so the caller can
report the conflict with fresh data. ``claim`` gives leases, ``take`` single-use values (tickets),
``put``/``get`` plain expiring values. Publish/subscribe carries "something changed" notices; it
is at-most-once, so a subscriber is told ``GAP`` whenever notices may have been lost (its first
item included) and must re-read what it follows.

Three stores keep the contract (the same tests run on each): Redis or Redis Cluster
(``manhattan.store.redis_cas``, shared by replicas), SQLite in a data directory
(``manhattan.store.sqlite_cas``, the embedded default, one process) and memory (here: tests and
``MANHATTAN_DATA_DIR=:memory:``); ``manhattan.store.versioned`` picks one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from manhattan.store.expiring import ExpiringMap

#: What a subscription yields when notices may have been lost (first subscription included):
#: re-read everything the subscriber follows.
GAP = b""


@dataclass(frozen=True, slots=True)
class Record:
    """A stored blob and its version (1 for the first write, +1 on every swap)."""

    version: int
    data: bytes


@runtime_checkable
class ListsKeys(Protocol):
    """A store that can list its live keys (the embedded SQLite store): what a restarted
    process reads to pick up the tables it holds."""

    async def live_keys(self, glob: str) -> list[str]: ...


@runtime_checkable
class ReportsHealth(Protocol):
    """A store that can say whether it answers (the embedded SQLite store): ``/readyz``."""

    async def health(self) -> str | None:
        """None while the store answers; else what is wrong, in a sentence."""
        ...


@runtime_checkable
class PublishesOnSwap(Protocol):
    """A store that can publish a change notice in the same round trip as the swap (Redis: the
    Lua script publishes). ``published`` is False when it could not (a cluster, whose script may
    not publish to a channel of another slot): the caller then publishes itself."""

    async def swap_and_publish(
        self, key: str, expected: int, data: bytes, *, ttl: int, channel: str, message: bytes
    ) -> tuple[bool, Record | None, bool]: ...


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


class Fanout:
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
            offer(queue, message)

    def deliver_gap(self) -> None:
        for queues in self.queues.values():
            for queue in queues:
                offer(queue, GAP)

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        """A subscription in process: ``GAP`` first (nothing was missed, but subscribers always
        start by reading), then every message published to ``channel``."""
        queue = self.add(channel)
        try:
            yield GAP
            while True:
                yield await queue.get()
        finally:
            self.remove(channel, queue)


def offer(queue: asyncio.Queue[bytes], message: bytes) -> None:
    if queue.full():
        # Too far behind: replace the backlog by one GAP, after which the subscriber re-reads.
        while not queue.empty():
            queue.get_nowait()
        message = GAP
    queue.put_nowait(message)


class LocalChannels:
    """``publish`` and ``subscribe`` of a store that is one process (memory, SQLite): its
    messages go to this process's subscribers only, through one ``Fanout``."""

    def __init__(self) -> None:
        self._fanout = Fanout()

    async def publish(self, channel: str, message: bytes) -> None:
        self._fanout.deliver(channel, bytes(message))

    def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        return self._fanout.subscribe(channel)


class MemoryVersionedStore(LocalChannels):
    """Records in one process's memory (tests, ``MANHATTAN_DATA_DIR=:memory:``). Versioned
    records are never evicted by other writes (only expiry or ``delete`` removes them); plain
    values (tickets, leases) are, least recently used first, beyond ``max_entries``."""

    name = "memory"

    def __init__(
        self, max_entries: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.max_entries = max_entries
        self._entries: ExpiringMap[Record | bytes] = ExpiringMap(max_entries, clock)

    async def read(self, key: str) -> Record | None:
        value = self._entries.get(key)
        return value if isinstance(value, Record) else None

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        current = await self.read(key)
        version = current.version if current is not None else 0
        if version != expected:
            return False, current
        record = Record(version + 1, bytes(data))
        self._entries.set(key, record, ttl, pinned=True)
        return True, record

    async def touch(self, key: str, ttl: int) -> None:
        self._entries.expire(key, ttl)

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        if self._entries.get(key) is not None:
            return False
        self._entries.set(key, token.encode(), ttl_ms / 1000)
        return True

    async def take(self, key: str) -> bytes | None:
        value = self._entries.pop(key)
        return value if isinstance(value, bytes) else None

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        self._entries.set(key, bytes(data), ttl)

    async def get(self, key: str) -> bytes | None:
        value = self._entries.get(key)
        return value if isinstance(value, bytes) else None

    async def delete(self, key: str) -> None:
        self._entries.pop(key)

    async def close(self) -> None:
        self._fanout.deliver_gap()

    def __len__(self) -> int:
        return len(self._entries)


__all__ = [
    "GAP",
    "Fanout",
    "LocalChannels",
    "MemoryVersionedStore",
    "Record",
    "VersionedStore",
    "offer",
]
