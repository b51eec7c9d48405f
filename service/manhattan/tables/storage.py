"""Where the tables live: ``manhattan.store.cas``'s versioned store, on the tables' Redis or in
process."""

from __future__ import annotations

from manhattan.store.cas import VersionedStore, make_versioned_store

from ..settings import Settings


def make_store(settings: Settings) -> VersionedStore:
    """Redis when ``MANHATTAN_TABLES_REDIS_URL`` or ``REDIS_URL`` is set, else in process.
    Tables need a Redis that never evicts their keys (README "Tables": Redis requirements)."""
    url = settings.tables_redis_url or settings.redis_url
    return make_versioned_store(
        url, timeout=max(settings.redis_timeout, 1.0), pool_size=settings.redis_pool_size
    )
