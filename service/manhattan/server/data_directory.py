"""The data directory at start: opened and checked before the tables' store, the token key and
the webhooks' outbox are (``store/data_directory.py`` says what is checked and why).

The composition root is the one place that knows every file the directory holds: the tables'
database (``store``), the webhooks' outbox (``platforms``) and the token key (``sealing``), kept
there unless ``MANHATTAN_TOKEN_KEY`` configures it. The store is opened first and takes the
directory's lock over, so the key is made (on a first start) only after its database exists.
"""

from __future__ import annotations

from manhattan.platforms.outbox_sqlite import DATABASE_FILE as WEBHOOKS_FILE
from manhattan.sealing import KEY_FILE
from manhattan.settings import Settings
from manhattan.store.cas import VersionedStore
from manhattan.store.data_directory import Contents, open_data_directory
from manhattan.store.sqlite_cas import DATABASE_FILE as TABLES_FILE
from manhattan.store.sqlite_cas import SqliteVersionedStore
from manhattan.tables.storage import make_store


def open_table_store(settings: Settings) -> VersionedStore:
    """The tables' store. In a data directory: held, made private and checked first (a
    ``DataDirectoryError`` says what is wrong and what to do), then opened with its lock."""
    path = settings.data_path
    if path is None:
        return make_store(settings)
    contents = Contents(
        tables=TABLES_FILE,
        others=(WEBHOOKS_FILE,),
        key=KEY_FILE,
        key_kept=not settings.token_key,
    )
    held = open_data_directory(path, contents, reset=settings.data_reset)
    try:
        return SqliteVersionedStore(path, held=held)
    except BaseException:
        held.release()
        raise


__all__ = ["open_table_store"]
