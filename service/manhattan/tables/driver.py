"""Bots and timers, on any replica, with no replica in charge.

Each replica drives the tables it *watches*: tables it served a request for, changed, or streams.
It re-checks a watched table when it hears of a change (its own, or any replica's through the
hub) and when the table's deadline passes. A check is a read and, when something is due, one
compare-and-set: the ``over`` event after the last move, a ``timeout`` when the person to move ran
out of ``turnSeconds``, or a bot's move for a bot seat, a stand-in (the person left) or a
timed-out turn. Bot moves are computed under a lease on (table, version) so one replica thinks
per turn; if two do anyway (a lease expired), the compare-and-set keeps the first and drops the
other. When the lease holder dies, the others re-check after the lease's lifetime.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time

from manhattan import State

from ..bots import BotChoice
from .bot_turns import BotRunner
from .errors import TableError
from .records import lease_key, now_ms
from .service import Tables

log = logging.getLogger("manhattan.tables.driver")

#: Seconds a replica keeps watching a table after its last request, stream or change.
WATCH_SECONDS = 900.0
#: Longest sleep between passes (watch expiry, missed wake-ups).
TICK_SECONDS = 1.0


class Driver:
    def __init__(self, tables: Tables, bots: BotRunner, *, bot_seconds: float = 2.0) -> None:
        self.tables = tables
        self.bots = bots
        self.bot_seconds = bot_seconds
        self.replica = secrets.token_hex(8)
        self._watched: dict[str, float] = {}
        self._due: dict[str, float] = {}
        self._busy: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self.closing = False

    def watch(self, table_id: str) -> None:
        self._watched[table_id] = time.monotonic() + WATCH_SECONDS
        self.poke(table_id)

    def table_changed(self, table_id: str, version: int) -> None:
        """A change heard of (from any replica): look at the table again now."""
        self.poke(table_id)

    def poke(self, table_id: str) -> None:
        if table_id in self._watched:
            self._due[table_id] = 0.0
            self._wake.set()

    @property
    def lease_ms(self) -> int:
        return int(self.bot_seconds * 1000) + 3000

    async def run(self) -> None:
        while not self.closing:
            now = time.monotonic()
            for table_id, until in list(self._watched.items()):
                if until < now:
                    del self._watched[table_id]
                    self._due.pop(table_id, None)
            for table_id, when in list(self._due.items()):
                if when <= now and table_id not in self._busy:
                    del self._due[table_id]
                    self._busy.add(table_id)
                    task = asyncio.create_task(self._check(table_id))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
            pending = [w for t, w in self._due.items() if t not in self._busy]
            sleep = min([TICK_SECONDS, *(max(0.0, w - now) for w in pending)])
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(sleep, 0.005))

    async def _check(self, table_id: str) -> None:
        try:
            await self.check(table_id)
        except TableError:
            self._watched.pop(table_id, None)  # gone (expired, or the store lost it)
        except Exception as exc:  # the store is down: try again shortly
            log.warning("table check failed", extra={"table": table_id, "error": repr(exc)})
            self._due[table_id] = time.monotonic() + 1.0
        finally:
            self._busy.discard(table_id)
            self._wake.set()

    def _later(self, table_id: str, seconds: float) -> None:
        when = time.monotonic() + seconds
        self._due[table_id] = min(self._due.get(table_id, when), when)

    async def check(self, table_id: str) -> None:
        """Do what is due on the table now, or schedule the next check."""
        table, version = await self.tables.load(table_id)
        if table.status == "over":
            if not table.has_event("over") and table.rematch is None:
                await self.tables.finish(table_id)
            return
        if table.status != "playing" or table.state is None:
            return
        state = table.game()
        if state.to_move is None:
            return
        seat = table.seats[state.to_move]
        if seat.bot_plays or table.bot_turn:
            await self._bot_turn(table_id, version, state, seat.bot)
            return
        if table.deadline is not None:
            left = table.deadline - now_ms()
            if left <= 0:
                await self.tables.time_out(table_id, version)
            else:
                self._later(table_id, left / 1000)

    async def _bot_turn(
        self, table_id: str, version: int, state: State, bot: dict[str, object] | None
    ) -> None:
        if not await self.tables.store.claim(
            lease_key(table_id, version), self.replica, self.lease_ms
        ):
            self._later(table_id, self.lease_ms / 1000)  # in case the holder dies
            return
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

    async def close(self) -> None:
        self.closing = True
        self._wake.set()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
