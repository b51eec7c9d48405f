"""How the table domain announces what it did: the one seam the live wing (streams) and the
platforms (webhooks, ratings, players' tables) hear it through.

``TableChanges`` is what every listener implements; ``Announcer`` is the one the tables are
built with, telling its listeners in the order they were given. A listener that acts on the
tables (the driver plays bots, a webhook reads the table) needs the tables, which need the
announcer: so the composition root builds the announcer first, the tables with it, then each
listener, and gives the listeners to the announcer (``hear``) before anything runs.
"""

from __future__ import annotations

import logging
from typing import Protocol

from manhattan.tables.model import Table

log = logging.getLogger("manhattan.tables")


class TableChanges(Protocol):
    def table_changed(self, table_id: str, version: int) -> None:
        """A change made in this process (version ``version`` of ``table_id`` is stored),
        told before the pub/sub round trip that tells every replica."""
        ...

    async def table_over(self, table: Table) -> None:
        """The table's game ended, told before the ``over`` event is written, so whoever sees
        that event finds what the listeners did. It may be told more than once (two replicas
        finishing the same table, a retry): a listener that must act once is idempotent."""
        ...


class Announcer:
    """The tables' ``TableChanges``: each announcement told to every listener, in order. A
    listener's failure to hear of an end is logged, never the move's failure."""

    __slots__ = ("_listeners", "_started")

    def __init__(self) -> None:
        self._listeners: tuple[TableChanges, ...] = ()
        self._started = False

    def hear(self, *listeners: TableChanges) -> None:
        """Listeners added while the parts are put together (not once a change was told)."""
        if self._started:
            raise RuntimeError("listeners are given before the tables announce anything")
        self._listeners += listeners

    @property
    def listeners(self) -> tuple[TableChanges, ...]:
        return self._listeners

    def table_changed(self, table_id: str, version: int) -> None:
        self._started = True
        for listener in self._listeners:
            listener.table_changed(table_id, version)

    async def table_over(self, table: Table) -> None:
        self._started = True
        for listener in self._listeners:
            try:
                await listener.table_over(table)
            except Exception as exc:  # a listener's trouble never fails the move that ended it
                log.warning(
                    "a listener of ends failed", extra={"table": table.id, "error": repr(exc)}
                )
