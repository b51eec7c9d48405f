"""Tables (DESIGN §9): people playing one game together from separate devices.

``TableRuntime`` bundles what one process needs: the operations (``Tables``), the pub/sub fan-out
to local streams (``Hub``), bots and timers (``Driver``) and the bot process pool
(``BotRunner``); ``start``/``close`` run and stop their background tasks. Depends on the engine,
the bots, the store and the sealer; not on the API.
"""

from __future__ import annotations

import asyncio
import contextlib

from manhattan.store.cas import VersionedStore

from ..bot_pool import BotPool
from ..bots import BotChoice
from ..sealing import Sealer
from ..settings import Settings
from .bot_turns import BotRunner
from .driver import Driver
from .errors import TABLE_CODES, TableError
from .hub import Hub
from .records import TableSettings
from .service import Tables
from .storage import make_store
from .stream import Push, table_stream
from .tokens import Bearer


class TableRuntime:
    def __init__(
        self,
        store: VersionedStore,
        sealer: Sealer,
        settings: TableSettings | None = None,
        *,
        bots: BotRunner | None = None,
        heartbeat: float = 15.0,
    ) -> None:
        self.store = store
        self.settings = settings or TableSettings()
        self.heartbeat = heartbeat
        self.bots = bots or BotRunner()
        self.tables = Tables(store, sealer, self.settings, listener=self)
        self.driver = Driver(self.tables, self.bots, bot_seconds=self.settings.bot_seconds)
        self.hub = Hub(store, self.tables, listener=self.driver)
        self._tasks: list[asyncio.Task[None]] = []

    @classmethod
    def from_settings(
        cls, settings: Settings, sealer: Sealer, bot_pool: BotPool | None = None
    ) -> TableRuntime:
        table_settings = TableSettings(
            idle_seconds=settings.table_idle_seconds,
            stand_in_level=settings.table_stand_in_level,
            bot_seconds=settings.table_bot_seconds,
        )
        return cls(
            make_store(settings),
            sealer,
            table_settings,
            bots=BotRunner(bot_pool),
            heartbeat=settings.table_heartbeat_seconds,
        )

    def table_changed(self, table_id: str, version: int) -> None:
        # A change made here: this replica watches the table from now on, and its local
        # streams hear of it without waiting for the pub/sub round trip.
        self.driver.watch(table_id)
        self.hub.notify(table_id, version)

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self.hub.run(), name="tables-hub"),
            asyncio.create_task(self.driver.run(), name="tables-driver"),
        ]

    async def close(self) -> None:
        self.hub.closing = True
        self.hub.ring_all()
        await self.driver.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bots.close()
        close = getattr(self.store, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


__all__ = [
    "TABLE_CODES",
    "Bearer",
    "BotChoice",
    "BotRunner",
    "Push",
    "TableError",
    "TableRuntime",
    "TableSettings",
    "Tables",
    "table_stream",
]
