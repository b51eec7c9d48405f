"""Which seats of a table have a stream open: one small record per table, ``{sid: until}``.

Every open seat stream marks its seat on each heartbeat, so streams opened together (a crowd
of tables started at once, a replica's streams reconnecting after a restart) mark together,
four seats of a table on the same key. Marked one by one, each mark would be a read and a
compare-and-set, the seats of one table would lose the race to each other and read again, and
every move of the replica would wait behind the crowd. ``PresenceMarks`` gathers the marks asked
for in one turn of the event loop by table and writes each table's once (one read, one
compare-and-set, all its seats); and a seat marks again a little early at random
(``live.stream._marked``), so a crowd spreads out over its next beats.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

#: Writes one table's marks (seat id -> epoch ms it counts as connected until).
WriteMarks = Callable[[str, dict[int, int]], Awaitable[None]]


class PresenceMarks:
    """Presence marks gathered per table within one turn of the loop, then written together."""

    __slots__ = ("_gathering", "_tasks", "_write")

    def __init__(self, write: WriteMarks) -> None:
        self._write = write
        #: table id -> (the marks gathered, the future their write answers)
        self._gathering: dict[str, tuple[dict[int, int], asyncio.Future[None]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def mark(self, table_id: str, sid: int, until: int) -> None:
        """Seat ``sid`` of ``table_id`` is connected until ``until`` (epoch ms), once written
        (with the other marks of the table asked for in this turn); the write's error if it
        failed. A caller cancelled while it waits leaves the write to go on for the others."""
        gathering = self._gathering.get(table_id)
        if gathering is None:
            loop = asyncio.get_running_loop()
            gathering = self._gathering[table_id] = ({}, loop.create_future())
            loop.call_soon(self._flush, table_id)
        seats, future = gathering
        seats[sid] = max(until, seats.get(sid, 0))
        await asyncio.shield(future)

    def _flush(self, table_id: str) -> None:
        seats, future = self._gathering.pop(table_id)
        task = asyncio.get_running_loop().create_task(self._written(table_id, seats, future))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _written(
        self, table_id: str, seats: dict[int, int], future: asyncio.Future[None]
    ) -> None:
        try:
            await self._write(table_id, seats)
        except asyncio.CancelledError:
            future.cancel()  # (the service is stopping: its waiters with it)
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # (retrieved here: nobody may be left waiting for it)
        else:
            future.set_result(None)
