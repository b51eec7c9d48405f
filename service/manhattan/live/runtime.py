"""The tables' runtime: what one process needs to run tables and their live wing.

``TableRuntime`` bundles the operations (``Tables``), the pub/sub fan-out to local streams
(``Hub``), bots and timers (``Driver``) and the bot process pool (``BotRunner``), and the
spectator relay (``Relay``) when it is on; ``start``/``close`` run and stop their background
tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from manhattan.bot_pool import BotPool
from manhattan.live.hub import Hub, StreamLimits
from manhattan.live.relay import Relay
from manhattan.sealing import Sealer
from manhattan.settings import Settings
from manhattan.store.cas import ListsKeys, VersionedStore
from manhattan.tables.bot_turns import BotRunner
from manhattan.tables.changes import Announcer
from manhattan.tables.driver import Driver
from manhattan.tables.due import make_due
from manhattan.tables.records import TableSettings, is_table_id, now_ms, table_key
from manhattan.tables.service import Tables
from manhattan.tables.storage import make_store
from manhattan.tables.tasks import stop_tasks

log = logging.getLogger("manhattan.tables")


class TableRuntime:
    def __init__(
        self,
        store: VersionedStore,
        sealer: Sealer,
        settings: TableSettings | None = None,
        *,
        bots: BotRunner | None = None,
        heartbeat: float = 15.0,
        limits: StreamLimits | None = None,
        relay_idle: float | None = None,
        exiting: Callable[[], bool] | None = None,
        give_back: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or TableSettings()
        self.heartbeat = heartbeat
        self.bots = bots or BotRunner()
        #: The tables' one announcer: the driver, then the hub, hear of each change first;
        #: the platforms are given to it where the app is put together.
        self.changes = Announcer()
        self.tables = Tables(store, sealer, self.settings, self.changes)
        self.hub = Hub(
            store,
            self.tables,
            limits=limits,
            tick=min(0.5, heartbeat / 4),
            keep=heartbeat,
            exiting=exiting,
            give_back=give_back,
        )
        lease_ms = int(self.settings.bot_seconds * 1000) + 3000
        self.driver = Driver(
            self.tables,
            self.bots,
            make_due(store, lease_ms),
            bot_seconds=self.settings.bot_seconds,
            read=self.hub.fresh,
        )
        # A change made here: this replica's driver looks at the table (other replicas leave
        # it to this one, and to the due-time index), and its local streams hear of it without
        # waiting for the pub/sub round trip.
        self.changes.hear(self.driver, self.hub)
        #: The spectator relay (``relay.py``), with the seconds it outlives its last stream;
        #: None: spectators' streams stay in this process.
        self.relay = (
            None if relay_idle is None else Relay(self, heartbeat=heartbeat, idle=relay_idle)
        )
        self._tasks: list[asyncio.Task[None]] = []

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        sealer: Sealer,
        bot_pool: BotPool | None = None,
        *,
        exiting: Callable[[], bool] | None = None,
        give_back: Callable[[], None] | None = None,
        store: VersionedStore | None = None,
    ) -> TableRuntime:
        """``exiting`` and ``give_back`` are the server's (``Hub``). ``store``: the tables'
        store, opened already (the server opens the data directory first); else made from the
        settings."""
        table_settings = TableSettings(
            idle_seconds=settings.table_idle_seconds,
            stand_in_level=settings.table_stand_in_level,
            bot_seconds=settings.table_bot_seconds,
            record_format=settings.table_record_format,
        )
        return cls(
            make_store(settings) if store is None else store,
            sealer,
            table_settings,
            bots=BotRunner(bot_pool),
            heartbeat=settings.table_heartbeat_seconds,
            limits=StreamLimits(
                per_client=settings.table_streams_per_client,
                spectators_per_table=settings.table_spectators_per_table,
            ),
            relay_idle=settings.spectator_relay_idle if settings.spectator_relay else None,
            exiting=exiting,
            give_back=give_back,
        )

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self.hub.run(), name="tables-hub"),
            asyncio.create_task(self.driver.run(), name="tables-driver"),
            asyncio.create_task(self.resume(), name="tables-resume"),
        ]

    async def resume(self) -> None:
        """After a restart on the embedded store: every table kept there is due now, so the
        driver picks up the clocks and bot turns that were running (Redis keeps its due-time
        index itself). The driver takes them a bounded batch at a time."""
        if not isinstance(self.store, ListsKeys):
            return
        try:
            keys = await self.store.live_keys(table_key("*"))
        except Exception as exc:  # a store that cannot list: tables resume as streams open
            log.warning("tables not resumed after the start", extra={"error": repr(exc)})
            return
        now = now_ms()
        for key in keys:
            table_id = key.removeprefix(table_key("")[:-1]).removesuffix("}")
            if is_table_id(table_id):
                await self.driver.due.put(table_id, now)
        self.driver.poke_due()

    async def close(self) -> None:
        self.hub.close()
        if self.relay is not None:
            await self.relay.close()
        await self.driver.close()
        await stop_tasks(self._tasks)
        await self.bots.close()
        close = getattr(self.store, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()
