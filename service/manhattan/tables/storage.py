"""Where the tables live: ``manhattan.store``'s versioned store, on the tables' Redis, in the
data directory's SQLite database (the embedded default) or in memory."""

from __future__ import annotations

from manhattan.settings import Settings
from manhattan.store.cas import VersionedStore
from manhattan.store.versioned import make_versioned_store


def make_store(settings: Settings) -> VersionedStore:
    """Redis when ``MANHATTAN_TABLES_REDIS_URL`` or ``REDIS_URL`` is set, else SQLite in
    ``MANHATTAN_DATA_DIR`` (memory with ``:memory:``). Tables need a Redis that never evicts
    their keys (README "Tables": Redis requirements)."""
    return make_versioned_store(
        settings.tables_url, data_dir=settings.data_path, **settings.redis_options
    )
