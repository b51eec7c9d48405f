"""Which versioned store a process uses: Redis when configured, else SQLite in the data
directory, else (``:memory:``, tests) memory."""

from __future__ import annotations

from pathlib import Path

from manhattan.store.cas import MemoryVersionedStore, VersionedStore
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.store.sqlite_cas import SqliteVersionedStore


def make_versioned_store(
    redis_url: str,
    *,
    data_dir: Path | None = None,
    timeout: float = 2.0,
    pool_size: int = 64,
    pool_timeout: float = 5.0,
    max_entries: int = 100_000,
) -> VersionedStore:
    """Redis at ``redis_url`` (``redis+cluster://``: Redis Cluster); without one, SQLite in
    ``data_dir`` (raises ``DataDirectoryInUse`` when another process holds it); without either,
    memory (lost on exit)."""
    if redis_url:
        return RedisVersionedStore(
            redis_url, timeout=timeout, pool_size=pool_size, pool_timeout=pool_timeout
        )
    if data_dir is not None:
        return SqliteVersionedStore(data_dir)
    return MemoryVersionedStore(max_entries)


__all__ = ["make_versioned_store"]
