"""Bots and timers, on any replica, with no replica in charge, at a cost independent of the
number of tables.

A table needs the driver right after a change (a bot may be to move, the game may be over) and
at its due time (a person's deadline, a bot turn whose lease holder may have died). The replica
that made a change checks the table at once (the runtime tells it, ``table_changed``); anything
due later goes into the due-time index (``due.py``: a heap, or a Redis sorted set shared by every
replica), which each replica's loop reads for the entries due now. Nothing is watched per
request, and an id that names no table never reaches the driver.

A check is a read and, when something is due, one compare-and-set: the ``over`` event after the
last move, a ``timeout`` when the person to move ran out of ``turnSeconds``, or a bot's move for
a bot seat, a stand-in (the person left) or a timed-out turn. Bot moves are computed under a
lease on (table, version) so one replica thinks per turn; if two do anyway (a lease expired),
the compare-and-set keeps the first and drops the other. Before thinking, the thinker puts the
table in the index at the lease's end, so when it dies another replica takes the turn over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from manhattan import State
from manhattan.bots import BotChoice
from manhattan.tables.bot_turns import BotRunner
from manhattan.tables.due import DueIndex
from manhattan.tables.errors import TableError
from manhattan.tables.model import Table
from manhattan.tables.records import lease_key, now_ms
from manhattan.tables.service import Tables
from manhattan.tables.tasks import stop_tasks

#: How a table is read at (at least) a version.
Read = Callable[[str, int], Awaitable[tuple[Table, int]]]

log = logging.getLogger("manhattan.tables.driver")

#: Longest sleep between looks at the index (another replica's due entries, missed wake-ups).
TICK_SECONDS = 1.0
#: Due entries claimed per look.
TAKE_LIMIT = 64
#: Milliseconds before a failed check is tried again.
RETRY_MS = 1000
#: Tables this process remembers having checked (so a stream opening on one is not a check).
KNOWN_SIZE = 50_000


class Driver:
    def __init__(
        self,
        tables: Tables,
        bots: BotRunner,
        due: DueIndex,
        *,
        bot_seconds: float = 2.0,
        read: Read | None = None,
    ) -> None:
        self.tables = tables
        self.bots = bots
        self.due = due
        self.bot_seconds = bot_seconds
        self.replica = secrets.token_hex(8)
        self._now: dict[str, int] = {}  # tables to check at once (the version heard of)
        self._busy: set[str] = set()
        self._again: set[str] = set()  # changed while being checked: check once more
        self._placed: dict[str, int] = {}  # due times this process put in the index
        self._known: OrderedDict[str, None] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._failures = 0
        self.closing = False
        #: How a check reads a table (at least at a version): the runtime gives the hub's shared
        #: read, so a change's check and its streams read the table once.
        self.read: Read = self._load if read is None else read

    async def table_over(self, table: Table) -> None:
        """``TableChanges``: an end needs nothing of the driver (its ``over`` event is a change)."""

    def table_changed(self, table_id: str, version: int) -> None:
        """A change made by this process: look at the table at once, unless the table as the
        change left it (this process's copy) shows there is nothing to look at: most moves of
        people without a clock, where a check would read the table and do nothing."""
        recent = self.tables.recent(table_id, version)
        if recent is not None and recent[1] == version and self._nothing_due(table_id, recent[0]):
            self._remember(table_id)
            return
        self.poke(table_id, version)

    def _nothing_due(self, table_id: str, table: Table) -> bool:
        """Whether a check of ``table`` now would do nothing: no clock, no bot to move, not
        over, and nothing of it in the index, waiting or being checked by this process."""
        if table_id in self._busy or table_id in self._placed or table_id in self._now:
            return False
        if table.deadline is not None or table.bot_turn or table.status == "over":
            return False
        if table.status != "playing" or table.state is None:
            return True
        to_move = table.game().to_move
        return to_move is None or not table.seats[to_move].bot_plays

    def seen(self, table_id: str) -> None:
        """A table known to exist (a stream opened on it): checked once if this process has
        not checked it yet, so a process that restarts picks up the clocks of open tables."""
        if table_id not in self._known:
            self.poke(table_id)

    def poke(self, table_id: str, version: int = 0) -> None:
        if table_id in self._busy:
            self._again.add(table_id)
        else:
            self._now[table_id] = max(version, self._now.get(table_id, 0))
        self._wake.set()

    def poke_due(self) -> None:
        """Entries were added to the due-time index from outside: look at it now."""
        self._wake.set()

    async def _load(self, table_id: str, version: int) -> tuple[Table, int]:
        return await self.tables.load(table_id)

    @property
    def lease_ms(self) -> int:
        return int(self.bot_seconds * 1000) + 3000

    @property
    def scheduled(self) -> int:
        return len(self.due)

    async def run(self) -> None:
        while not self.closing:
            self._wake.clear()
            now = self._now
            self._now = {}
            for table_id, version in now.items():
                self._start(table_id, None, version)
            await self._take_due()
            sleep = TICK_SECONDS
            upcoming = self.due.next_ms()
            if upcoming is not None:
                sleep = min(sleep, max(0.0, (upcoming - now_ms()) / 1000))
            if self._now:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(sleep, 0.005))

    async def _take_due(self) -> None:
        try:
            taken = await self.due.take(now_ms(), TAKE_LIMIT)
        except Exception as exc:  # the store is down: the entries wait there
            self._failed(exc)
            return
        for table_id, due in taken:
            self._start(table_id, due)
        if len(taken) == TAKE_LIMIT:
            self._wake.set()  # more may be due

    def _start(self, table_id: str, due: int | None, version: int = 0) -> None:
        if table_id in self._busy:
            self._again.add(table_id)
            return
        self._busy.add(table_id)
        task = asyncio.create_task(self._check(table_id, due, version))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check(self, table_id: str, due: int | None, version: int) -> None:
        try:
            upcoming = await self.check(table_id, version)
            await self._schedule(table_id, upcoming, due)
            self._recovered()
        except TableError:
            # Gone (expired, or the store lost it): nothing more to do for it.
            self._placed.pop(table_id, None)
            if due is not None:
                with contextlib.suppress(Exception):
                    await self.due.done(table_id, due)
        except Exception as exc:  # the store is down: try again shortly
            self._failed(exc)
            with contextlib.suppress(Exception):
                await self.due.put(table_id, now_ms() + RETRY_MS)
        finally:
            self._busy.discard(table_id)
            if table_id in self._again:
                self._again.discard(table_id)
                self.poke(table_id)

    async def _schedule(self, table_id: str, upcoming: int | None, due: int | None) -> None:
        self._remember(table_id)
        if upcoming is not None:
            if self._placed.get(table_id) != upcoming:
                await self.due.put(table_id, upcoming)
                self._placed[table_id] = upcoming
            return
        placed = self._placed.pop(table_id, None)
        if due is not None or placed is not None:
            await self.due.done(table_id, max(due or 0, placed or 0))

    def _remember(self, table_id: str) -> None:
        self._known[table_id] = None
        self._known.move_to_end(table_id)
        if len(self._known) > KNOWN_SIZE:
            self._known.popitem(last=False)

    def _failed(self, exc: Exception) -> None:
        """One warning per outage, not one per table or per pass."""
        self._failures += 1
        if self._failures == 1:
            log.warning("table checks failing; retrying", extra={"error": repr(exc)})

    def _recovered(self) -> None:
        if self._failures:
            log.warning("table checks back", extra={"failures": self._failures})
            self._failures = 0

    async def check(self, table_id: str, heard: int = 0) -> int | None:
        """Do what is due on the table now (version ``heard`` or newer); the epoch milliseconds
        of its next due time."""
        table, version = await self.read(table_id, heard)
        if table.status == "over":
            if not table.has_event("over") and table.rematch is None:
                await self.tables.finish(table_id)
            return None
        if table.status != "playing" or table.state is None:
            return None
        state = table.game()
        if state.to_move is None:
            return None
        seat = table.seats[state.to_move]
        if seat.bot_plays or table.bot_turn:
            return await self._bot_turn(table_id, version, state, seat.bot)
        if table.deadline is None:
            return None
        if table.deadline > now_ms():
            return table.deadline
        await self.tables.time_out(table_id, version)
        return None

    async def _bot_turn(
        self, table_id: str, version: int, state: State, bot: dict[str, object] | None
    ) -> int | None:
        """The bot's move, or (the lease is another replica's) when to look again."""
        retry = now_ms() + self.lease_ms
        if not await self.tables.store.claim(
            lease_key(table_id, version), self.replica, self.lease_ms
        ):
            return retry  # in case the holder dies
        await self.due.put(table_id, retry)  # the same, in case this replica dies thinking
        self._placed[table_id] = retry
        choice = (
            BotChoice.from_json(bot)
            if bot is not None
            else BotChoice.of(self.tables.settings.stand_in_level)
        )
        assert state.to_move is not None
        move = await self.bots.bot_move(
            state, state.to_move, choice, deadline=time.monotonic() + self.bot_seconds
        )
        await self.tables.bot_turn(table_id, version, move)
        return retry

    async def close(self) -> None:
        self.closing = True
        self._wake.set()
        await stop_tasks(list(self._tasks))
