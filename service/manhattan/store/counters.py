"""Fixed-window counters: how many times a key was counted in the current window.

What the quotas for anonymous callers count (``server/quotas.py``). With Redis for tables the
counters are Redis keys (``INCR`` and ``EXPIRE`` in one script), so every replica counts against
one quota; the embedded store is one process, so its counters live in that process (bounded:
the least recently counted keys are dropped first, which can only forgive).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Protocol

from manhattan.store.cas import VersionedStore
from manhattan.store.redis_cas import RedisVersionedStore

_INCR = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class Counters(Protocol):
    name: str

    async def count(self, key: str, window: float) -> tuple[int, float]:
        """Counts one for ``key`` in the current window of ``window`` seconds: the count so
        far (this one included) and the seconds until the window ends."""
        ...


def _window(window: float, now: float) -> tuple[int, float]:
    index = int(now // window)
    return index, (index + 1) * window - now


class MemoryCounters:
    """Counters of one process (the embedded store, memory)."""

    name = "process"

    def __init__(self, max_keys: int = 100_000, clock: Callable[[], float] = time.time) -> None:
        self.max_keys = max_keys
        self._clock = clock
        self._counts: OrderedDict[str, tuple[int, int]] = OrderedDict()

    async def count(self, key: str, window: float) -> tuple[int, float]:
        index, left = _window(window, self._clock())
        seen, count = self._counts.get(key, (index, 0))
        count = count + 1 if seen == index else 1
        self._counts[key] = (index, count)
        self._counts.move_to_end(key)
        while len(self._counts) > self.max_keys:
            self._counts.popitem(last=False)
        return count, left


class RedisCounters:
    """Counters on the tables' Redis, shared by every replica."""

    name = "redis"

    def __init__(self, store: RedisVersionedStore, prefix: str) -> None:
        self.store = store
        self.prefix = prefix
        self._client: Any = store._client
        self._incr = self._client.register_script(_INCR)

    async def count(self, key: str, window: float) -> tuple[int, float]:
        index, left = _window(window, time.time())
        full = f"{self.prefix}:{key}:{index}"
        ttl_ms = int(window * 1000) + 1000
        # Not retried: a second INCR could count one request twice.
        found = await self.store._call(lambda: self._incr(keys=[full], args=[ttl_ms]), retry=False)
        return int(found), left


def make_counters(store: VersionedStore, prefix: str) -> Counters:
    """Redis counters when ``store`` is Redis, else this process's."""
    if isinstance(store, RedisVersionedStore):
        return RedisCounters(store, prefix)
    return MemoryCounters()


__all__ = ["Counters", "MemoryCounters", "RedisCounters", "make_counters"]
