"""The one in-memory expiring map: the state cache's LRU and the in-memory versioned store.

Each entry has an expiry time. Entries are *evictable* (least recently used dropped beyond
``max_entries``: cache entries, tickets, leases) or *pinned* (never evicted by other writes, gone
only when they expire or are deleted: a table). Expired entries disappear on access and in a
sweep of the whole map at most every ``sweep_every`` seconds (checked on writes), so an entry
that is never read again does not outlive its expiry by more than that.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class ExpiringMap(Generic[V]):
    def __init__(
        self,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
        *,
        sweep_every: float = 60.0,
    ) -> None:
        self.max_entries = max_entries
        self.sweep_every = sweep_every
        self._clock = clock
        self._evictable: OrderedDict[str, tuple[float, V]] = OrderedDict()
        self._pinned: dict[str, tuple[float, V]] = {}
        self._next_sweep = clock() + sweep_every

    def get(self, key: str) -> V | None:
        """The value, or None when absent or expired; a hit is now the most recently used."""
        entry = self._pinned.get(key)
        pinned = entry is not None
        if entry is None:
            entry = self._evictable.get(key)
            if entry is None:
                return None
        expires, value = entry
        if expires <= self._clock():
            self.pop(key)
            return None
        if not pinned:
            self._evictable.move_to_end(key)
        return value

    def set(self, key: str, value: V, ttl: float, *, pinned: bool = False) -> None:
        now = self._clock()
        if now >= self._next_sweep:
            self.sweep()
        entry = (now + ttl, value)
        if pinned:
            self._evictable.pop(key, None)
            self._pinned[key] = entry
            return
        self._pinned.pop(key, None)
        self._evictable[key] = entry
        self._evictable.move_to_end(key)
        while len(self._evictable) > self.max_entries:
            self._evictable.popitem(last=False)

    def expire(self, key: str, ttl: float) -> None:
        """A new expiry for a live entry (absent or expired: nothing happens)."""
        entry = self._pinned.get(key)
        pinned = entry is not None
        value = self.get(key)
        if value is not None:
            self.set(key, value, ttl, pinned=pinned)

    def pop(self, key: str) -> V | None:
        """Removes ``key``; its value when it was live."""
        entry = self._pinned.pop(key, None) or self._evictable.pop(key, None)
        if entry is None or entry[0] <= self._clock():
            return None
        return entry[1]

    def sweep(self) -> int:
        """Drops every expired entry; how many."""
        now = self._clock()
        self._next_sweep = now + self.sweep_every
        dropped = 0
        for entries in (self._pinned, self._evictable):
            expired = [key for key, (expires, _) in entries.items() if expires <= now]
            for key in expired:
                del entries[key]
            dropped += len(expired)
        return dropped

    def clear(self) -> None:
        self._pinned.clear()
        self._evictable.clear()

    def __len__(self) -> int:
        return len(self._pinned) + len(self._evictable)


__all__ = ["ExpiringMap"]
