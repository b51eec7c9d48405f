"""The embedded default's versioned store: SQLite in a data directory, one process owning it.

Without Redis, everything a table needs (tables, seats, tickets, presence, leases, finished
records until their TTL) is one row of ``records(key, version, data, expires)``: ``version`` is
0 for a plain value (a ticket, a lease) and 1, 2, ... for a versioned record; ``expires`` is wall
clock (unix seconds), so a TTL runs on across restarts. Nothing is evicted to make room: a row
leaves when it expires (expired rows are invisible at once and deleted by a sweep at most every
``sweep_every`` seconds, piggybacked on writes) or is deleted.

Durability: WAL journal with ``synchronous=NORMAL``, so a commit is in the operating system's
hands before the call returns: a ``kill -9`` (or any crash of the process) loses nothing
committed; a power cut may lose the last commits but never corrupts the file. Each ``swap``
writes the next version only if the record is still at the expected one, inside a
``BEGIN IMMEDIATE`` transaction, and is answered only once that transaction commits. The swaps
asked for in one turn of the event loop share one transaction (``store/sqlite_batch.py``), each
compared and set on its own in the order asked. The common case (a live record at the expected
version) is one ``UPDATE ... WHERE version = ?`` statement, which leaves the record's expiry
(and the index on it) alone while it is more than a TTL away (``_moved_expiry``); anything else
(a new key, a lost race, an expired record) reads the version and decides.

Threading: each operation (one row: a swap, a read, a put) runs whole on the event loop, and
the checkpoints of the log, which wait for the disk, on a thread with its own connection
(``store/sqlite_loop.py`` says why: a hop to a thread per operation cost more CPU than the
swap). The loop is the one writer, so there is no ``SQLITE_BUSY`` in process. The scans (the
live keys at start-up, a count) run on that thread, as readers that never block the writer.

One process owns a data directory: it holds an exclusive ``flock`` on ``manhattan.lock`` there
while the store is open (the kernel releases it when the process dies, ``kill -9`` included), and
a second process is refused with ``DataDirectoryInUse``. The service opens the directory first
(``store/data_directory.py``: private, checked whole) and hands the held lock to the store. The
database and its log are made 0600 (the log takes the database's mode). Publish/subscribe is in
process, as in the memory store: only this process's streams can be listening.

Health (``health``, which ``/readyz`` reads): a database that said it is damaged is unhealthy
until the service restarts (and checks it); any other failure, until an operation succeeds again
or for ``FAILURE_SECONDS`` at most (a replica taken out of rotation gets no requests to prove
itself with).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import LocalChannels, Record
from manhattan.store.data_directory import (
    FILE_MODE,
    DataDirectoryError,
    DataDirectoryInUse,
    HeldDirectory,
    lock_directory,
)
from manhattan.store.expiring import ExpiringMap
from manhattan.store.sqlite_batch import SwapBatch
from manhattan.store.sqlite_loop import LoopDatabase

log = logging.getLogger("manhattan.store.sqlite")

T = TypeVar("T")

DATABASE_FILE = "tables.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data BLOB NOT NULL,
    expires REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS records_expires ON records (expires);
"""
_UPSERT = (
    "INSERT INTO records (key, version, data, expires) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (key) DO UPDATE SET "
    "version = excluded.version, data = excluded.data, expires = excluded.expires"
)
#: A compare-and-set that succeeds, as one statement: the common case.
_ADVANCE = (
    "UPDATE records SET version = ?, data = ?, expires = ? "
    "WHERE key = ? AND version = ? AND expires > ?"
)
#: The common case when the record's expiry is far enough ahead (``_swap``): the expiry, and
#: so the index on it, is not written (a third of a swap's statements' CPU went to moving the
#: record's entry in that index).
_ADVANCE_KEEPING_EXPIRY = (
    "UPDATE records SET version = ?, data = ? WHERE key = ? AND version = ? AND expires >= ?"
)
#: A swap that moves a record's expiry moves it this part of its TTL further (at most
#: ``EXPIRY_SLACK_SECONDS``), so that the swaps after it leave it until it is less than a TTL
#: away: a record lives at least its TTL after its last change, at most a hundredth (at most
#: a minute) longer.
EXPIRY_SLACK = 0.01
EXPIRY_SLACK_SECONDS = 60.0


#: Bytes a page of a new database: a table's record (some 2-11 KB) fits in one, where with
#: SQLite's 4 KiB pages it took a leaf and up to two overflow pages, each a frame of its own in
#: the log (two writes each) at every move.
PAGE_SIZE = 16384


def _moved_expiry(now: float, ttl: int) -> float:
    return now + ttl + min(ttl * EXPIRY_SLACK, EXPIRY_SLACK_SECONDS)


#: Seconds the memory copy remembers that a key holds no record.
ABSENT_SECONDS = 60.0
_ABSENT = Record(0, b"")
#: Rows one sweep deletes at most (a sweep runs on the loop: it must not hold it for long).
SWEEP_BATCH = 500
#: Writes between two checkpoints (on the thread) of the log into the database: some 20 MiB
#: of log with a table's record of some 9 KB (some 2.5 pages of the log a write). A checkpoint
#: copies each page once, its newest version: with 200 tables playing, a table's pages are
#: written some 10 times between two checkpoints at 2,000 writes, once at 200, where the
#: checkpoints took 4.7 % of the service's CPU (1 % at 2,000).
CHECKPOINT_WRITES = 2000
#: KiB of pages the loop's connection keeps in memory (SQLite's default, 2 MiB, is less than
#: 200 playing tables' pages: every swap read some back from the log).
CACHE_KIB = 16 * 1024


#: Seconds a failed operation keeps the store unhealthy when none succeeds after it.
FAILURE_SECONDS = 30.0
#: SQLite's result codes for a damaged database (SQLITE_CORRUPT, SQLITE_NOTADB).
DAMAGE_CODES = frozenset({11, 26})


class SqliteVersionedStore(LocalChannels):
    """Records in ``<directory>/tables.sqlite3`` (see the module docstring)."""

    name = "sqlite"

    def __init__(
        self,
        directory: Path,
        *,
        held: HeldDirectory | None = None,
        clock: Callable[[], float] = time.time,
        sweep_every: float = 60.0,
        memory_records: int = 10_000,
    ) -> None:
        """``held``: the directory as the service opened and checked it (its lock is taken
        over); without it, the store locks the directory itself."""
        super().__init__()
        self.directory = directory
        self.sweep_every = sweep_every
        self._clock = clock
        try:
            self._lock = held.take_lock() if held is not None else lock_directory(directory)
        except DataDirectoryError:
            raise
        except OSError as exc:
            raise DataDirectoryError(f"the data directory {directory}: {exc}") from exc
        try:
            self._database = _connect(directory / DATABASE_FILE)
        except (sqlite3.Error, OSError) as exc:
            self._lock.close()
            raise DataDirectoryError(f"the database in {directory}: {exc}") from exc
        self._db = self._database.db
        self._batch = SwapBatch(self._database, self._failed)
        self._records: ExpiringMap[Record] = ExpiringMap(memory_records, clock)
        self._next_sweep = 0.0
        self._closed = False
        #: The last failure (when, what) while no operation succeeded after it.
        self._failure: tuple[float, str] | None = None
        #: What the database said of its damage (it stays so until a restart checks it).
        self._damage: str | None = None

    def _failed(self, exc: sqlite3.Error) -> StoreUnavailable:
        """A failed operation: logged, remembered for ``health``, and what callers hear."""
        log.error("table store (SQLite) failed", extra={"error": repr(exc)})
        self._failure = (time.monotonic(), str(exc))
        if getattr(exc, "sqlite_errorcode", None) in DAMAGE_CODES:
            self._damage = str(exc)
        return StoreUnavailable("the table store (SQLite) failed; retry shortly")

    async def health(self) -> str | None:
        """None while the database answers (asked once more now); else what is wrong, for
        ``/readyz``."""
        if self._closed:
            return "the table store is closed"
        if self._damage is None:
            await self._database.ready()
            try:
                self._db.execute("SELECT version FROM records LIMIT 1").fetchall()
            except sqlite3.Error as exc:
                self._failed(exc)
        if self._damage is not None:
            return (
                f"the tables database is damaged ({self._damage}): restart the service to check "
                "it, and restore it from a backup if the check refuses it"
            )
        if self._failure is not None and time.monotonic() - self._failure[0] < FAILURE_SECONDS:
            return f"the tables database failed: {self._failure[1]}"
        return None

    async def _run(self, operation: Callable[..., T], *args: object) -> T:
        """``operation`` on the loop, counted towards the next checkpoint (most operations
        write; most reads are answered from memory without one)."""
        await self._usable()
        try:
            result = operation(*args)
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        self._failure = None
        self._database.wrote()
        return result

    async def _usable(self) -> None:
        """Returns once the loop's connection may be used (``LoopDatabase.ready``); raises
        once the store is closed."""
        if self._database.held is not None:  # (asked first: most swaps have nothing to wait for)
            await self._database.ready()
        if self._closed:
            raise StoreUnavailable("the table store is closed")

    async def _scan(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        """``operation`` with the thread's own connection (a reader: the loop writes on)."""
        if self._closed:
            raise StoreUnavailable("the table store is closed")
        try:
            return await self._database.on_thread(operation)
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc

    # -- the operations, each run whole on the loop ------------------------------------------

    def _read(self, key: str) -> tuple[Record, float] | None:
        """The live record at ``key`` and when it expires."""
        row = self._db.execute(
            "SELECT version, data, expires FROM records "
            "WHERE key = ? AND version > 0 AND expires > ?",
            (key, self._clock()),
        ).fetchone()
        return None if row is None else (Record(row[0], bytes(row[1])), row[2])

    def _swap(
        self, key: str, expected: int, data: bytes, ttl: int
    ) -> tuple[bool, tuple[Record, float] | None]:
        """The compare-and-set, inside the batch's transaction (``sqlite_batch.py``)."""
        self._maybe_sweep()
        now = self._clock()
        db = self._db
        if expected > 0:  # a live record at the expected version: one statement, no read
            advanced = db.execute(
                _ADVANCE_KEEPING_EXPIRY, (expected + 1, data, key, expected, now + ttl)
            )
            if advanced.rowcount == 1:  # (it expires a TTL from now or later: left so)
                return True, (Record(expected + 1, data), now + ttl)
            expires = _moved_expiry(now, ttl)
            advanced = db.execute(_ADVANCE, (expected + 1, data, expires, key, expected, now))
            if advanced.rowcount == 1:
                return True, (Record(expected + 1, data), expires)
        # Else (a new record, a lost race, an expired one): decide on what is there. The
        # version alone first: the record is read (some 10 KB for a table in play) only for a
        # lost race, which answers with it.
        row = db.execute(
            "SELECT version FROM records WHERE key = ? AND version > 0 AND expires > ?",
            (key, now),
        ).fetchone()
        version = 0 if row is None else row[0]
        if version != expected:
            return False, self._read(key)
        expires = _moved_expiry(now, ttl)
        db.execute(_UPSERT, (key, version + 1, data, expires))
        return True, (Record(version + 1, data), expires)

    def _touch(self, key: str, ttl: int) -> None:
        now = self._clock()
        self._db.execute(
            "UPDATE records SET expires = ? WHERE key = ? AND expires > ?", (now + ttl, key, now)
        )

    def _claim(self, key: str, token: str, ttl_ms: int) -> bool:
        self._maybe_sweep()
        now = self._clock()
        cursor = self._db.execute(
            _UPSERT + " WHERE records.expires <= ?",
            (key, 0, token.encode(), now + ttl_ms / 1000, now),
        )
        return cursor.rowcount == 1

    def _take(self, key: str) -> bytes | None:
        rows = self._db.execute(
            "DELETE FROM records WHERE key = ? RETURNING version, data, expires", (key,)
        ).fetchall()  # all: the statement (and its transaction) ends only when stepped through
        if not rows:
            return None
        row = rows[0]
        if row[0] != 0 or row[2] <= self._clock():
            return None
        return bytes(row[1])

    def _put(self, key: str, data: bytes, ttl: int) -> None:
        self._maybe_sweep()
        self._db.execute(_UPSERT, (key, 0, data, self._clock() + ttl))

    def _get(self, key: str) -> bytes | None:
        row = self._db.execute(
            "SELECT data FROM records WHERE key = ? AND version = 0 AND expires > ?",
            (key, self._clock()),
        ).fetchone()
        return None if row is None else bytes(row[0])

    def _delete(self, key: str) -> None:
        self._db.execute("DELETE FROM records WHERE key = ?", (key,))

    def _maybe_sweep(self) -> None:
        now = self._clock()
        if now >= self._next_sweep:
            self._next_sweep = now + self.sweep_every
            self.sweep_now()

    def sweep_now(self) -> int:
        """Deletes expired rows, at most ``SWEEP_BATCH`` (on the loop, like every operation);
        how many."""
        cursor = self._db.execute(
            "DELETE FROM records WHERE rowid IN "
            "(SELECT rowid FROM records WHERE expires <= ? LIMIT ?)",
            (self._clock(), SWEEP_BATCH),
        )
        return cursor.rowcount

    @staticmethod
    def _count(db: sqlite3.Connection) -> int:
        row = db.execute("SELECT count(*) FROM records").fetchone()
        return int(row[0])

    # -- the VersionedStore protocol -----------------------------------------------------------

    # Recently used records are also kept in memory (``_records``), so most reads need no
    # query. One process owns the database, so the copy cannot go stale behind its back; it is
    # updated right after each operation, on the loop that ran it. A swap still compares
    # versions in SQLite.

    def _remember(self, key: str, found: tuple[Record, float] | None) -> Record | None:
        if found is None:  # absent is remembered too (a table's presence often is)
            self._records.set(key, _ABSENT, ABSENT_SECONDS)
            return None
        record, expires = found
        self._records.set(key, record, expires - self._clock())
        return record

    async def read(self, key: str) -> Record | None:
        record = self._records.get(key)
        if record is not None:
            return None if record is _ABSENT else record
        return self._remember(key, await self._run(self._read, key))

    async def swap(
        self, key: str, expected: int, data: bytes, *, ttl: int
    ) -> tuple[bool, Record | None]:
        await self._usable()
        done, found = await self._batch.run(self._swap, key, expected, bytes(data), ttl)
        self._failure = None
        return done, self._remember(key, found)

    async def touch(self, key: str, ttl: int) -> None:
        await self._run(self._touch, key, ttl)
        self._records.expire(key, ttl)

    async def claim(self, key: str, token: str, ttl_ms: int) -> bool:
        claimed = await self._run(self._claim, key, token, ttl_ms)
        self._records.pop(key)
        return claimed

    async def take(self, key: str) -> bytes | None:
        value = await self._run(self._take, key)
        self._records.pop(key)
        return value

    async def put(self, key: str, data: bytes, ttl: int) -> None:
        await self._run(self._put, key, bytes(data), ttl)
        self._records.pop(key)

    async def get(self, key: str) -> bytes | None:
        return await self._run(self._get, key)

    async def delete(self, key: str) -> None:
        await self._run(self._delete, key)
        self._records.pop(key)

    async def count(self) -> int:
        """Rows in the database, expired ones not yet swept included."""
        return await self._scan(self._count)

    async def live_keys(self, glob: str) -> list[str]:
        """The keys of unexpired records that match a SQLite GLOB pattern (after a restart,
        the tables whose clocks and bot turns this process must pick up again)."""
        now = self._clock()

        def live_keys(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT key FROM records WHERE key GLOB ? AND expires > ?", (glob, now)
            )
            return [str(key) for (key,) in rows]

        return await self._scan(live_keys)

    async def close(self) -> None:
        """Closes the database and releases the data directory (idempotent)."""
        if self._closed:
            return
        self._fanout.deliver_gap()
        self._closed = True
        await self._database.close()
        self._lock.close()


def _connect(path: Path) -> LoopDatabase:
    """The database at ``path``, created if absent (0600, before SQLite opens it: its log and
    shared memory take its mode): WAL, synchronous=NORMAL, autocommit (each statement its own
    transaction unless inside an explicit ``BEGIN``)."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
    os.chmod(path, FILE_MODE)
    database = LoopDatabase(
        str(path),
        checkpoint_every=CHECKPOINT_WRITES,
        thread_name="manhattan-sqlite",
        page_size=PAGE_SIZE,
    )
    database.db.executescript(_SCHEMA)
    database.db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    return database


__all__ = [
    "CHECKPOINT_WRITES",
    "DATABASE_FILE",
    "DataDirectoryError",
    "DataDirectoryInUse",
    "SqliteVersionedStore",
    "lock_directory",
]
