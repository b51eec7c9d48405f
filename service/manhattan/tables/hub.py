"""One pub/sub listener per process, fanning "table X is at version v" out to local streams and
to the driver; and one shared read per table change for all local streams of that table.

Pub/sub is at-most-once: a message can be lost (a Redis reconnect, a slow consumer). So a
message only says *look again*: streams compare versions and re-read, and every stream also
re-reads on its heartbeat, so a lost message delays a push by at most one heartbeat and a gap is
answered with a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator

import msgpack

from manhattan.store.cas import GAP, VersionedStore

from .model import Table
from .records import CHANNEL, ChangeListener
from .service import Tables

log = logging.getLogger("manhattan.tables.hub")


class Listener:
    """A local stream's doorbell: rung with the newest version heard of."""

    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()

    def ring(self, version: int) -> None:
        if version > self.version:
            self.version = version
        self._event.set()

    async def wait(self, timeout: float) -> bool:
        """True when rung, False after ``timeout`` seconds of quiet."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True


class Hub:
    def __init__(
        self,
        store: VersionedStore,
        tables: Tables,
        listener: ChangeListener | None = None,
    ) -> None:
        self.store = store
        self.tables = tables
        self.listener = listener
        self._listeners: dict[str, set[Listener]] = {}
        self._latest: dict[str, tuple[int, Table]] = {}
        self._reads: dict[str, asyncio.Future[tuple[Table, int]]] = {}
        self.closing = False

    @property
    def stream_count(self) -> int:
        return sum(len(group) for group in self._listeners.values())

    def notify(self, table_id: str, version: int) -> None:
        for listener in self._listeners.get(table_id, ()):
            listener.ring(version)
        if self.listener is not None:
            self.listener.table_changed(table_id, version)

    def ring_all(self) -> None:
        """After a reconnect (messages may have been lost): every stream looks again."""
        for group in self._listeners.values():
            for listener in group:
                listener.ring(0)

    @contextlib.contextmanager
    def listen(self, table_id: str) -> Iterator[Listener]:
        listener = Listener()
        self._listeners.setdefault(table_id, set()).add(listener)
        try:
            yield listener
        finally:
            group = self._listeners.get(table_id)
            if group is not None:
                group.discard(listener)
                if not group:
                    del self._listeners[table_id]
                    self._latest.pop(table_id, None)

    async def fresh(self, table_id: str, at_least: int = 0) -> tuple[Table, int]:
        """The table at version ``at_least`` or newer; concurrent callers share one read.
        Callers must not modify the table they get."""
        cached = self._latest.get(table_id)
        if cached is not None and cached[0] >= at_least > 0:
            return cached[1], cached[0]
        pending = self._reads.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(self.tables.load(table_id))
            self._reads[table_id] = pending
            pending.add_done_callback(lambda _: self._reads.pop(table_id, None))
        table, version = await asyncio.shield(pending)
        if version < at_least:
            # That read began before the change we were told of: read again, once.
            table, version = await self.tables.load(table_id)
        if table_id in self._listeners:
            self._latest[table_id] = (version, table)
        return table, version

    async def run(self) -> None:
        """The process's one subscription; reconnects after failures."""
        while not self.closing:
            try:
                async for message in self.store.subscribe(CHANNEL):
                    if message == GAP:  # (re)subscribed: notices may have been lost
                        self.ring_all()
                        continue
                    try:
                        table_id, version = msgpack.unpackb(message)
                    except (ValueError, msgpack.UnpackException):
                        continue
                    if isinstance(table_id, str) and isinstance(version, int):
                        self.notify(table_id, version)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("table updates: subscription lost", extra={"error": repr(exc)})
            await asyncio.sleep(1.0)
            self.ring_all()
