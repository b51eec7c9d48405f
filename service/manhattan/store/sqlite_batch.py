"""The compare-and-sets asked for in one turn of the event loop, committed as one transaction.

With 200 tables playing flat out, some tens of moves come in each turn of the loop, and each
was a transaction of its own. A commit in WAL mode writes every page the transaction changed
(a table's record is some 2 pages, and the pages above it in the tree and the index on
``expires`` are shared) and a commit frame; in one transaction the shared pages are written once
(measured alone, 8 swaps a transaction: 24.5 -> 17 µs of CPU a swap).

Each swap still compares and sets on its own (``operation``, run inside the transaction in the
order asked), so the outcome of each is what it would have been alone, one after the other; the
only change is that the ones of a turn commit together, once the turn's other callbacks ran.
Nothing is answered before its commit: a crash loses only swaps nobody was told of. If the
transaction fails, every swap in it fails (none applied). A caller cancelled before the batch
runs is left out of it; one cancelled after gets its result all the same and its cancellation at
its next wait, so that what follows a swap in the same step (the change's notice) still happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from manhattan.store.sqlite_loop import LoopDatabase

T = TypeVar("T")


class SwapBatch:
    """Operations on ``database``'s connection, each in the next batch's transaction."""

    def __init__(self, database: LoopDatabase, failed: Callable[[sqlite3.Error], Exception]):
        self._database = database
        self._failed = failed
        self._pending: list[tuple[Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]] = []
        #: The loop of the batch waiting (``run``): looked up once a batch, not once a swap
        #: (``asyncio.get_running_loop`` makes a ``getpid`` system call each time).
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Transactions committed (how many swaps shared one: the tests ask).
        self.transactions = 0

    async def run(self, operation: Callable[..., T], *args: Any) -> T:
        """``operation(*args)`` inside the next batch's transaction: its result once committed."""
        loop = self._loop
        if not self._pending or loop is None:
            loop = self._loop = asyncio.get_running_loop()
            loop.call_soon(self._flush)
        future: asyncio.Future[T] = loop.create_future()
        self._pending.append((operation, args, future))
        try:
            return await future
        except asyncio.CancelledError:
            if future.cancelled():  # left out of the batch (``_flush`` skips it)
                raise
            task = asyncio.current_task()
            if task is not None:  # committed: the caller goes on with it, cancelled later
                task.cancel()
            return future.result()

    def _flush(self) -> None:
        held = self._database.held
        if held is not None:  # a checkpoint holds the writes back: after it
            held.add_done_callback(lambda _: self._flush())
            return
        pending = [item for item in self._pending if not item[2].cancelled()]
        self._pending = []
        if not pending:
            return
        db = self._database.db
        results = []
        try:
            db.execute("BEGIN IMMEDIATE")
            for operation, args, _ in pending:
                results.append(operation(*args))
            db.execute("COMMIT")
        except Exception as exc:  # (a closed database too: every caller hears, none hangs)
            with contextlib.suppress(sqlite3.Error):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            error = self._failed(exc) if isinstance(exc, sqlite3.Error) else exc
            for *_, future in pending:
                if not future.done():
                    future.set_exception(type(error)(*error.args))
            return
        self.transactions += 1
        for (*_, future), result in zip(pending, results, strict=True):
            self._database.wrote()
            if not future.done():
                future.set_result(result)
