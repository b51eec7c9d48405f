"""The outbox in the embedded store's data directory (``webhooks.sqlite3``), as ``outbox.py``
describes it: WAL with ``synchronous=NORMAL`` (a ``kill -9`` loses nothing committed), each
operation one ``BEGIN IMMEDIATE`` transaction. With ``":memory:"`` it lives as long as the
process (tests, and a service without a data directory).

As in ``store/sqlite_cas.py``, the transactions run on the event loop itself and the
checkpoints on a thread (``store/sqlite_loop.py`` says why; on a thread, one claim round took
0.3 to 1.3 s in the webhooks bench, README). Each is small: the deliverer batches, so a claim
round, a batch of outcomes and a batch of enqueues is one transaction each.

The file holds every hook's ``whsec_`` secret: it is made 0600 before SQLite opens it (its log
and shared memory take its mode). A file that cannot be opened as this outbox is a
``DataDirectoryError`` (``DATA_DIR_UNAVAILABLE`` at start), never a traceback."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from manhattan.platforms.outbox import Delivery, Enqueued, Outbox, Outcomes
from manhattan.store.data_directory import DIRECTORY_MODE, FILE_MODE, DataDirectoryError
from manhattan.store.sqlite_loop import MEMORY, LoopDatabase

T = TypeVar("T")

#: Commits between two checkpoints (off the loop) of the write-ahead log into the database.
CHECKPOINT_COMMITS = 500

DATABASE_FILE = "webhooks.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS hooks (
    table_id TEXT PRIMARY KEY,
    hook BLOB NOT NULL,
    cursor INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    data BLOB NOT NULL,
    next_at INTEGER NOT NULL,
    claimed_until INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS deliveries_table ON deliveries (table_id, seq);
CREATE TABLE IF NOT EXISTS ended_hooks (
    table_id TEXT PRIMARY KEY,
    hook BLOB NOT NULL,
    ended_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ended_hooks_at ON ended_hooks (ended_at);
CREATE TABLE IF NOT EXISTS reminders (member TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS reminders_at ON reminders (at);
"""
_HEADS = """
SELECT d.seq AS head, d.table_id, d.next_at FROM deliveries d
JOIN (SELECT MIN(seq) AS head FROM deliveries GROUP BY table_id) h ON d.seq = h.head
WHERE d.next_at <= ? AND d.claimed_until <= ? ORDER BY d.next_at LIMIT ?
"""
#: The claimed tables' runs in one statement: each due head with the deliveries behind it.
_RUNS = f"""
WITH heads AS ({_HEADS})
SELECT seq, table_id, data FROM (
    SELECT d.seq, d.table_id, d.data, h.next_at,
           ROW_NUMBER() OVER (PARTITION BY d.table_id ORDER BY d.seq) AS place
    FROM deliveries d JOIN heads h ON d.table_id = h.table_id
) WHERE place <= ? ORDER BY next_at, table_id, seq
"""


class SqliteOutbox(Outbox):
    name = "sqlite"

    def __init__(self, directory: Path | None) -> None:
        path = MEMORY if directory is None else str(directory / DATABASE_FILE)
        try:
            if directory is not None:
                directory.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
                os.chmod(path, FILE_MODE)
            self._database = LoopDatabase(
                path, checkpoint_every=CHECKPOINT_COMMITS, thread_name="webhooks-checkpoint"
            )
        except (sqlite3.Error, OSError) as exc:
            raise DataDirectoryError(f"the webhooks' outbox {path}: {exc}") from exc
        try:
            self._database.db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            self._database.db.close()
            raise DataDirectoryError(
                f"the webhooks' outbox {path} cannot be read ({exc}): restore it from a backup, "
                "or set MANHATTAN_DATA_RESET=1 once to set it aside and start afresh"
            ) from exc
        self._closed = False

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """One transaction, on the loop (see the module's doc)."""
        return await self._database.transaction(work)

    async def put_hook(self, table_id: str, hook: bytes) -> None:
        await self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO hooks (table_id, hook, cursor) VALUES (?, ?, 0)",
                (table_id, hook),
            )
        )

    async def hook(self, table_id: str) -> tuple[bytes, int] | None:
        def work(db: sqlite3.Connection) -> tuple[bytes, int] | None:
            row = db.execute(
                "SELECT hook, cursor FROM hooks WHERE table_id = ?", (table_id,)
            ).fetchone()
            return None if row is None else (bytes(row[0]), int(row[1]))

        return await self._run(work)

    async def hooked(self) -> list[str]:
        return await self._run(
            lambda db: [r[0] for r in db.execute("SELECT table_id FROM hooks").fetchall()]
        )

    async def drop_hook(self, table_id: str) -> None:
        await self._run(lambda db: db.execute("DELETE FROM hooks WHERE table_id = ?", (table_id,)))

    async def end_hook(self, table_id: str, at: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT OR REPLACE INTO ended_hooks (table_id, hook, ended_at) "
                "SELECT table_id, hook, ? FROM hooks WHERE table_id = ?",
                (at, table_id),
            )
            db.execute("DELETE FROM hooks WHERE table_id = ?", (table_id,))

        await self._run(work)

    async def ended_hook(self, table_id: str) -> bytes | None:
        def work(db: sqlite3.Connection) -> bytes | None:
            row = db.execute(
                "SELECT hook FROM ended_hooks WHERE table_id = ?", (table_id,)
            ).fetchone()
            return None if row is None else bytes(row[0])

        return await self._run(work)

    async def purge_ended(self, before: int) -> None:
        await self._run(
            lambda db: db.execute("DELETE FROM ended_hooks WHERE ended_at < ?", (before,))
        )

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        return (await self.enqueue_many([(table_id, version, items)]))[0]

    async def enqueue_many(self, batch: list[Enqueued]) -> list[int]:
        """``enqueue`` for many tables in one transaction: how many each added."""
        return await self._run(lambda db: [_enqueue(db, *one) for one in batch])

    async def add(self, delivery: Delivery) -> None:
        await self._run(lambda db: _insert(db, delivery, 0))

    async def claim_runs(
        self, now: int, lease_ms: int, limit: int, run: int, outcomes: Outcomes | None = None
    ) -> list[list[Delivery]]:
        """The due heads of up to ``limit`` tables, each with up to ``run - 1`` deliveries
        behind it, all leased until ``now + lease_ms``, in one transaction that first keeps
        ``outcomes``."""

        def work(db: sqlite3.Connection) -> list[list[Delivery]]:
            if outcomes is not None:
                _keep(db, outcomes)
            runs: list[list[Delivery]] = []
            table = None
            rows = db.execute(_RUNS, (now, now, limit, run)).fetchall()
            for seq, table_id, data in rows:
                if table_id != table:
                    runs.append([])
                    table = table_id
                runs[-1].append(Delivery.decode(bytes(data), seq))
            until = now + lease_ms
            db.executemany(
                "UPDATE deliveries SET claimed_until = ? WHERE seq = ?",
                [(until, seq) for seq, _, _ in rows],
            )
            return runs

        return await self._run(work)

    async def keep(self, outcomes: Outcomes) -> None:
        await self._run(lambda db: _keep(db, outcomes))

    async def remind(self, member: str, at: int) -> None:
        await self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO reminders (member, at) VALUES (?, ?)", (member, at)
            )
        )

    async def take_reminders(self, now: int, limit: int) -> list[str]:
        def work(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT member FROM reminders WHERE at <= ? ORDER BY at LIMIT ?", (now, limit)
            ).fetchall()
            db.executemany("DELETE FROM reminders WHERE member = ?", rows)
            return [r[0] for r in rows]

        return await self._run(work)

    async def waiting(self) -> int:
        return await self._run(
            lambda db: int(db.execute("SELECT COUNT(*) FROM deliveries").fetchone()[0])
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._database.close()


def _enqueue(
    db: sqlite3.Connection, table_id: str, version: int, items: list[tuple[int, Delivery]]
) -> int:
    row = db.execute("SELECT cursor FROM hooks WHERE table_id = ?", (table_id,)).fetchone()
    if row is None:
        return 0
    cursor, added = int(row[0]), 0
    for v, delivery in items:
        if v > cursor:
            added += _insert(db, delivery, 0)
    if version > cursor:
        db.execute("UPDATE hooks SET cursor = ? WHERE table_id = ?", (version, table_id))
    return added


def _insert(db: sqlite3.Connection, delivery: Delivery, next_at: int) -> int:
    cursor = db.execute(
        "INSERT OR IGNORE INTO deliveries (id, table_id, data, next_at) VALUES (?, ?, ?, ?)",
        (delivery.id, delivery.table_id, delivery.encode(), next_at),
    )
    return cursor.rowcount


def _keep(db: sqlite3.Connection, outcomes: Outcomes) -> None:
    """Many outcomes (``Outbox.keep``). ``done`` ones leave their queues and free their tables
    (the rest of a run claimed with them is unclaimed); ``later`` ones stay heads, unclaimed,
    due at their time, their tables freed too; ``going_on`` ones leave their queues while the
    worker keeps the table's claim (it sends the run's next)."""
    removed = [(d.handle,) for d in [*outcomes.done, *outcomes.going_on]]
    db.executemany("DELETE FROM deliveries WHERE seq = ?", removed)
    db.executemany(
        "UPDATE deliveries SET data = ?, next_at = ? WHERE seq = ?",
        [(d.encode(), at, d.handle) for d, at in outcomes.later],
    )
    freed = [(d.table_id,) for d in outcomes.done] + [(d.table_id,) for d, _ in outcomes.later]
    db.executemany(
        "UPDATE deliveries SET claimed_until = 0 WHERE table_id = ? AND claimed_until > 0", freed
    )
