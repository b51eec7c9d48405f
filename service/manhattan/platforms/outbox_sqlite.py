"""The outbox in the embedded store's data directory (``webhooks.sqlite3``), as ``outbox.py``
describes it. The same discipline as ``store/sqlite_cas.py``: WAL with ``synchronous=NORMAL``
(a ``kill -9`` loses nothing committed), each operation one ``BEGIN IMMEDIATE`` transaction on
one thread of the outbox's own, never on the event loop. With ``":memory:"`` it lives as long as
the process (tests, and a service without a data directory)."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from .outbox import Delivery

T = TypeVar("T")

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
CREATE TABLE IF NOT EXISTS reminders (member TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS reminders_at ON reminders (at);
"""
_HEADS = """
SELECT d.seq, d.data FROM deliveries d
JOIN (SELECT MIN(seq) AS head FROM deliveries GROUP BY table_id) h ON d.seq = h.head
WHERE d.next_at <= ? AND d.claimed_until <= ? ORDER BY d.next_at LIMIT ?
"""


class SqliteOutbox:
    name = "sqlite"

    def __init__(self, directory: Path | None) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="webhooks-outbox")
        path = ":memory:" if directory is None else str(directory / DATABASE_FILE)
        if directory is not None:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.executescript(_SCHEMA)
        self._closed = False

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def transaction() -> T:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return result

        return await asyncio.get_running_loop().run_in_executor(self._pool, transaction)

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

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        def work(db: sqlite3.Connection) -> int:
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

        return await self._run(work)

    async def add(self, delivery: Delivery) -> None:
        await self._run(lambda db: _insert(db, delivery, 0))

    async def claim(self, now: int, lease_ms: int, limit: int) -> list[Delivery]:
        def work(db: sqlite3.Connection) -> list[Delivery]:
            rows = db.execute(_HEADS, (now, now, limit)).fetchall()
            db.executemany(
                "UPDATE deliveries SET claimed_until = ? WHERE seq = ?",
                [(now + lease_ms, seq) for seq, _ in rows],
            )
            return [Delivery.decode(bytes(data), seq) for seq, data in rows]

        return await self._run(work)

    async def done(self, delivery: Delivery, now: int) -> None:
        await self._run(
            lambda db: db.execute("DELETE FROM deliveries WHERE seq = ?", (delivery.handle,))
        )

    async def retry(self, delivery: Delivery, next_at: int) -> None:
        await self._run(
            lambda db: db.execute(
                "UPDATE deliveries SET data = ?, next_at = ?, claimed_until = 0 WHERE seq = ?",
                (delivery.encode(), next_at, delivery.handle),
            )
        )

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

        def shut() -> None:
            self._db.close()

        await asyncio.get_running_loop().run_in_executor(self._pool, shut)
        self._pool.shutdown(wait=True)


def _insert(db: sqlite3.Connection, delivery: Delivery, next_at: int) -> int:
    cursor = db.execute(
        "INSERT OR IGNORE INTO deliveries (id, table_id, data, next_at) VALUES (?, ?, ?, ?)",
        (delivery.id, delivery.table_id, delivery.encode(), next_at),
    )
    return cursor.rowcount
