"""The versioned store the tables live in: ``manhattan.cas`` (Redis, or in process)."""

from __future__ import annotations

from ..cas import GAP, MemoryVersionedStore, Record, RedisVersionedStore, VersionedStore
from ..cas import make_versioned_store as _make
from ..settings import Settings


def make_store(settings: Settings) -> VersionedStore:
    """Redis when ``MANHATTAN_TABLES_REDIS_URL`` or ``REDIS_URL`` is set, else in process.
    Tables need a Redis that never evicts their keys (README "Tables": Redis requirements)."""
    url = settings.tables_redis_url or settings.redis_url
    return _make(url, timeout=max(settings.redis_timeout, 1.0), pool_size=settings.redis_pool_size)


__all__ = [
    "GAP",
    "MemoryVersionedStore",
    "Record",
    "RedisVersionedStore",
    "VersionedStore",
    "make_store",
]
