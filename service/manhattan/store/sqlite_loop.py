"""One SQLite connection used on the event loop, its checkpoints on a thread of its own.

Both embedded databases (the tables' ``store/sqlite_cas.py`` and the webhooks' outbox) run their
transactions on the event loop itself. Each is small (one table's record, one claim round), and
a commit in WAL mode with ``synchronous=NORMAL`` only appends to the log in the operating
system's cache, never waits for the disk. On a thread, every operation was a hand-over of the
GIL and back: with the loop busy, each waited for the loop to let go (up to the interpreter's
switch interval, 5 ms), and the hand-over itself cost more CPU than a table's swap (measured:
880-960 against 600-670 µs of CPU a table move in process, and a webhooks claim round of 0.3 to
1.3 s). What does wait for the disk, the checkpoint of the log into the database (``fsync``),
stays off the loop: automatic checkpoints are off on the loop's connection, and a thread with
its own connection checkpoints every ``checkpoint_every`` writes and at close. Work that may
read many rows (a scan at start-up, a count) goes to that thread too (``on_thread``): in WAL
mode a reader never blocks the writer.

A checkpoint is two steps. A passive one copies the log into the database while the loop goes
on writing; but the log starts again from its beginning only once a checkpoint has copied all
of it, which never happens while writes go on (measured: a 12 MB log after 900 writes). So a
second one (``RESTART``, the few pages written meanwhile) runs while the loop holds its writes
back: an operation that comes then waits for it (``ready``, a few milliseconds) without
blocking the loop, which serves everything else meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

log = logging.getLogger("manhattan.store.sqlite")

MEMORY = ":memory:"
#: Bytes the log file keeps once it starts again from its beginning.
LOG_SIZE_LIMIT = 32 * 1024 * 1024


class LoopDatabase:
    """``path``'s database (created if absent; ``":memory:"`` lives as long as this object)."""

    def __init__(
        self, path: str, *, checkpoint_every: int, thread_name: str, page_size: int | None = None
    ) -> None:
        self.path = path
        self.checkpoint_every = checkpoint_every
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        if page_size is not None:  # (a new file's; an existing one keeps the size it has)
            self.db.execute(f"PRAGMA page_size={int(page_size)}")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints go to the thread
        # The log file is reused from its beginning after a checkpoint, at the size it grew
        # to; a burst of writes (a start-up, a flood) leaves it no larger than this.
        self.db.execute(f"PRAGMA journal_size_limit={LOG_SIZE_LIMIT}")
        self._pool = ThreadPoolExecutor(1, thread_name_prefix=thread_name)
        self._thread_db: sqlite3.Connection | None = None
        self._writes = 0
        self._checkpointing: asyncio.Task[None] | None = None
        #: Set while the restarting checkpoint runs: operations wait for it (``ready``).
        self._held: asyncio.Future[None] | None = None

    async def transaction(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` in one ``BEGIN IMMEDIATE`` transaction, on the loop."""
        await self.ready()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            result = work(db)
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
        self.wrote()
        return result

    def wrote(self) -> None:
        """Counts a write; every ``checkpoint_every``, a checkpoint (unless one is running)."""
        self._writes += 1
        idle = self._checkpointing is None or self._checkpointing.done()
        if self._writes >= self.checkpoint_every and self.path != MEMORY and idle:
            self._writes = 0
            self._checkpointing = asyncio.get_running_loop().create_task(self._checkpoint())

    @property
    def held(self) -> asyncio.Future[None] | None:
        """While the restarting checkpoint runs, what its end sets."""
        return self._held

    async def ready(self) -> None:
        """Returns once the loop's connection may be used (at once, but while the restarting
        checkpoint runs)."""
        while self._held is not None:
            await asyncio.shield(self._held)

    async def _checkpoint(self) -> None:
        """The log into the database (passive, on the thread), then the rest of it with the
        writes held back, so that the log starts again from its beginning."""
        try:
            await self.on_thread(_checkpoint_passive)
            self._held = asyncio.get_running_loop().create_future()
            try:
                await self.on_thread(_checkpoint_restart)
            finally:
                self._held.set_result(None)
                self._held = None
        except sqlite3.Error as exc:
            log.warning("a checkpoint of %s failed: %r", self.path, exc)

    async def on_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` on the thread, with the thread's own connection (not for ``":memory:"``,
        whose data only the loop's connection sees)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, lambda: work(self._own()))

    def _own(self) -> sqlite3.Connection:
        if self._thread_db is None:
            self._thread_db = sqlite3.connect(self.path, isolation_level=None)
            self._thread_db.execute("PRAGMA busy_timeout=5000")
        return self._thread_db

    async def close(self) -> None:
        """A last checkpoint, then both connections closed and the thread stopped."""
        loop = asyncio.get_running_loop()
        if self._checkpointing is not None:
            await self._checkpointing
        if self.path != MEMORY:
            with contextlib.suppress(sqlite3.Error):
                await self.on_thread(_checkpoint_passive)

        def shut() -> None:
            if self._thread_db is not None:
                self._thread_db.close()

        await loop.run_in_executor(self._pool, shut)
        self._pool.shutdown(wait=True)
        self.db.close()


def _checkpoint_passive(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA wal_checkpoint(PASSIVE)")


def _checkpoint_restart(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA wal_checkpoint(RESTART)")


__all__ = ["MEMORY", "LoopDatabase"]
