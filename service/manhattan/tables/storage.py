"""The versioned store the tables live in. Until the shared ``manhattan.cas`` lands this is the
interim implementation of the same interface (``interim_cas``); switching is this one file."""

from __future__ import annotations

from ..settings import Settings
from .interim_cas import (
    MemoryVersionedStore,
    Record,
    RedisVersionedStore,
    VersionedStore,
)


def make_store(settings: Settings) -> VersionedStore:
    """Redis when ``MANHATTAN_TABLES_REDIS_URL`` or ``REDIS_URL`` is set, else in-process."""
    url = settings.tables_redis_url or settings.redis_url
    if url:
        return RedisVersionedStore(url, timeout=max(settings.redis_timeout, 1.0))
    return MemoryVersionedStore()


__all__ = ["MemoryVersionedStore", "Record", "RedisVersionedStore", "VersionedStore", "make_store"]
