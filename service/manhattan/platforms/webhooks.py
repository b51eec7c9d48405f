"""Webhooks (DESIGN §10): a key's table tells the platform of its turns and its result.

The hook (url, events, secret, owner key, reminder) is kept in the outbox, keyed by the table
id, before the table is stored. Tables know nothing of it: this process hears every change it
makes through the tables runtime's listeners, and the deliveries are computed from the table's
stored event log, by version, after the table's *cursor* (``outbox.py``). Whatever replica hears
a change first enqueues it, once; a change heard nowhere (a replica died right after its write)
is found by the sweep, which looks at every hooked table every ``sweep_seconds``. Payloads are
built from what the public view shows: no hand, no seed before the end, no private events.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import functools
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgpack
import orjson

from manhattan.engine.codec import state_from_msgpack
from manhattan.platforms.addresses import Network, check, parse_allow
from manhattan.platforms.delivery import Deliverer, DeliverySettings, now_ms
from manhattan.platforms.delivery_process import DeliveryProcess, OutboxAddress
from manhattan.platforms.errors import PlatformError
from manhattan.platforms.keys import ApiKeys
from manhattan.platforms.outbox import Delivery, Enqueued, Outbox
from manhattan.platforms.signing import new_secret
from manhattan.settings import Settings
from manhattan.tables import TableError, Tables
from manhattan.tables.model import Table, event_data
from manhattan.tables.projection import record_json
from manhattan.tables.tasks import stop_tasks
from manhattan.wire import MAX_KEYED_TURN_SECONDS, NewTable, WireError, read

log = logging.getLogger("manhattan.platforms.webhooks")

EVENTS = ("table.started", "table.turn", "table.timeout", "table.left", "table.over")
DEFAULT_EVENTS = ("table.turn", "table.over")
#: Tables known to have no hook (a hook is kept before its table exists), and hooks (they never
#: change), remembered at most.
NO_HOOK_MEMORY = 100_000
HOOK_MEMORY = 20_000

#: Tables caught up at once by the enqueue loop (their enqueues share a step of the outbox).
CATCH_UP_AT_ONCE = 64
#: Tables' enqueues in one step of the outbox, at most.
ENQUEUE_BATCH = 256

Read = Callable[[str, int], Awaitable[tuple[Table, int]]]


class Enqueuer:
    """The tables' enqueues of the moment in one step of the outbox (a transaction, one round
    trip) instead of one each: whoever asks while a step is on joins the next."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox
        self._waiting: list[tuple[Enqueued, asyncio.Future[int]]] = []
        self._task: asyncio.Task[None] | None = None

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.append(((table_id, version, items), future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._steps(), name="webhooks-enqueue-steps")
        return await future

    async def _steps(self) -> None:
        while self._waiting:
            await asyncio.sleep(0)  # the other tables of this round ask meanwhile
            batch = self._waiting[:ENQUEUE_BATCH]
            del self._waiting[:ENQUEUE_BATCH]
            try:
                added = await self.outbox.enqueue_many([one for one, _ in batch])
            except Exception as exc:  # each caller hears it (the sweep tries again)
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), count in zip(batch, added, strict=True):
                if not future.done():
                    future.set_result(count)

    async def close(self) -> None:
        if self._task is not None:
            await stop_tasks([self._task])


@dataclass(frozen=True, slots=True)
class Hook:
    url: str
    events: tuple[str, ...]
    secret: str
    key: str
    remind_before: int | None = None

    def encode(self) -> bytes:
        data: bytes = msgpack.packb(
            [1, self.url, list(self.events), self.secret, self.key, self.remind_before]
        )
        return data

    @classmethod
    def decode(cls, data: bytes) -> Hook:
        _, url, events, secret, key, remind_before = msgpack.unpackb(data, raw=False)
        return cls(url, tuple(events), secret, key, remind_before)


@dataclass(frozen=True, slots=True)
class Message:
    version: int
    type: str
    data: dict[str, Any]
    suffix: str = ""


def iso(ms: int) -> str:
    """``ms`` (epoch milliseconds) as ISO 8601 in UTC, to the millisecond."""
    return f"{_iso_second(ms // 1000)}.{ms % 1000:03d}Z"


@functools.lru_cache(maxsize=64)
def _iso_second(seconds: int) -> str:
    # Every delivery of a busy second has the same second: formatted once.
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def turn_message(
    table: Table, version: int, to_move: int | None, deadline: int | None, *, reminder: bool = False
) -> Message | None:
    """``table.turn`` for a person to move (a bot's turns are not announced)."""
    if to_move is None or to_move >= len(table.seats) or table.seats[to_move].bot_plays:
        return None
    seat: dict[str, Any] = {"seat": to_move}
    if table.seats[to_move].player_id is not None:  # the platform's own id for its player
        seat["id"] = table.seats[to_move].player_id
    data: dict[str, Any] = {"toMove": seat, "deadline": deadline}
    if reminder:
        data["reminder"] = True
    return Message(version, "table.turn", data, "reminder" if reminder else "")


def messages_of(table: Table, cursor: int) -> list[Message]:
    """What the table's logged changes after version ``cursor`` announce, oldest first."""
    out: list[Message | None] = []
    start = len(table.log)  # the log is in version order: read back to the cursor, not all
    while start > 0 and int(table.log[start - 1]["v"]) > cursor:
        start -= 1
    for entry in table.log[start:]:
        v, kind = int(entry["v"]), entry["type"]
        data = event_data(entry)
        if kind == "started":
            seats = [
                {"seat": s["player"], "name": s["name"], "kind": s["kind"]} for s in data["seats"]
            ]
            out.append(Message(v, "table.started", {"seats": seats, "deadline": data["deadline"]}))
            to_move = state_from_msgpack(data["state"]).to_move
            out.append(turn_message(table, v, to_move, data["deadline"]))
        elif kind == "move" and data.get("toMove") is not None:
            out.append(turn_message(table, v, data["toMove"], data.get("deadline")))
        elif kind == "timeout":
            out.append(Message(v, "table.timeout", {"seat": data["player"]}))
        elif kind == "left":
            out.append(Message(v, "table.left", {"seat": data["player"], "name": data["name"]}))
        elif kind == "over" and table.status == "over":
            over = {"ranking": data["ranking"], "record": record_json(table)}
            out.append(Message(v, "table.over", over))
    if table.log and int(table.log[0]["v"]) > cursor + 1 and cursor > 0:
        log.warning(
            "webhook events older than the table's log were not enqueued",
            extra={"table": table.id, "cursor": cursor},
        )
    return [m for m in out if m is not None]


def delivery_of(table_id: str, hook: Hook, message: Message, at: int) -> Delivery:
    kind = message.type.removeprefix("table.")
    suffix = f"_{message.suffix}" if message.suffix else ""
    body = orjson.dumps(
        {
            "type": message.type,
            "timestamp": iso(at),
            "data": {"tableId": table_id, "version": message.version, **message.data},
        }
    )
    webhook_id = f"msg_{table_id}_{message.version}_{kind}{suffix}"
    return Delivery(webhook_id, table_id, hook.url, hook.secret, body, key=hook.key)


def _check_reminder(new: NewTable) -> None:
    """A ``remindBefore`` that could never fire is refused at its path: a reminder is a
    ``table.turn`` delivery sent that many seconds before a turn's deadline, so it needs a
    webhook that takes ``table.turn``, a clock (``turnSeconds``) and to come before the turn
    begins."""
    remind = new.remind_before
    if remind is None:
        return
    reason = None
    if new.webhook is None:
        reason = "remindBefore needs a webhook: a reminder is a table.turn delivery"
    elif "table.turn" not in (new.webhook.events or DEFAULT_EVENTS):
        reason = "remindBefore needs table.turn among the webhook's events"
    elif new.turn_seconds is None:
        reason = "remindBefore needs turnSeconds: without a clock a turn has no deadline"
    elif remind >= new.turn_seconds:
        reason = (
            f"remindBefore ({remind} s) must be below turnSeconds ({new.turn_seconds} s): a "
            "reminder comes that long before the deadline, after the turn began"
        )
    if reason is not None:
        raise WireError("INVALID_REQUEST", reason, path="$.remindBefore")


class Webhooks:
    """The process's part: hears changes, enqueues, reminds, sweeps, and has the deliveries
    made (by its worker process, or on this loop)."""

    def __init__(
        self,
        outbox: Outbox,
        tables: Tables,
        keys: ApiKeys,
        allow: tuple[Network, ...] = (),
        delivery: DeliverySettings | None = None,
        *,
        sweep_seconds: float = 30.0,
        keep_ended_seconds: float = 6 * 3600,
        worker: DeliveryProcess | None = None,
        read: Read | None = None,
    ) -> None:
        self.outbox, self.tables, self.keys, self.allow = outbox, tables, keys, allow
        #: Deliveries are made by ``worker``, a process of its own, when there is one (an
        #: outbox on disk or in Redis); else by ``deliverer`` on this loop.
        self.worker = worker
        self.deliverer = None if worker is not None else Deliverer(outbox, allow, delivery)
        self.sweep_seconds = sweep_seconds
        #: How long a finished table's hook is kept for a rematch: as long as the table is.
        self.keep_ended_ms = int(keep_ended_seconds * 1000)
        self._pending: dict[str, int] = {}
        self._wake = asyncio.Event()
        self._no_hook: OrderedDict[str, None] = OrderedDict()
        #: table id -> (hook, the newest version this process knows enqueued)
        self._hooks: OrderedDict[str, tuple[Hook, int]] = OrderedDict()
        #: How a table is read at (at least) a version: the hub's shared read when given.
        self.read: Read = self._load if read is None else read
        self._tasks: list[asyncio.Task[None]] = []
        self._enqueuer = Enqueuer(outbox)
        self.enqueued = 0

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        tables: Tables,
        worker_setup: Callable[[], None] | None = None,
        *,
        read: Read | None = None,
    ) -> Webhooks:
        """``worker_setup`` runs first in the delivery worker's process (its logging)."""
        delivery = DeliverySettings.from_settings(settings)
        address = OutboxAddress(settings.tables_url, settings.data_path, delivery.lease_ms)
        allow = parse_allow(settings.webhook_allow)
        worker = None
        if settings.webhook_worker and address.shared:
            worker = DeliveryProcess(address, allow, delivery, worker_setup)
        keys = ApiKeys.from_settings(settings)
        return cls(
            address.open(),
            tables,
            keys,
            allow,
            delivery,
            keep_ended_seconds=settings.table_idle_seconds,
            worker=worker,
            read=read,
        )

    def ring(self) -> None:
        """Deliveries are waiting: wake whoever makes them."""
        if self.worker is not None:
            self.worker.ring()
        elif self.deliverer is not None:
            self.deliverer.poke()

    # -- creation --------------------------------------------------------------------------
    async def create_table(self, key: str | None, body: object) -> dict[str, Any]:
        """``POST /v1/tables`` (and ``createTable``) for the caller ``key`` (a key's name or
        None), with what a key adds: a webhook, a reminder, turns up to 14 days. The answer
        adds ``webhookSecret``."""
        new = read(body, NewTable)
        if key is None and (new.webhook is not None or new.remind_before is not None):
            raise PlatformError(
                "BAD_KEY", "a webhook needs a platform key: send it in the Manhattan-Key header"
            )
        _check_reminder(new)
        most = MAX_KEYED_TURN_SECONDS if key is not None else None
        if new.webhook is None or key is None:
            return await self.tables.create(body, owner=key, max_turn_seconds=most)
        target = await check(new.webhook.url, self.allow)
        events = tuple(dict.fromkeys(new.webhook.events or DEFAULT_EVENTS))
        # The URL as it is sent (percent-encoded, the host in IDNA), kept for every delivery.
        hook = Hook(target.url, events, new_secret(), key, new.remind_before)

        async def keep(table: Table) -> None:
            await self.outbox.put_hook(table.id, hook.encode())

        created = await self.tables.create(body, owner=key, max_turn_seconds=most, prepare=keep)
        created["webhookSecret"] = hook.secret
        return created

    async def carry(self, old: Table, new: Table) -> None:
        """A rematch of ``old`` opens as ``new`` (before it is stored): the platform's webhook
        goes on to it, the same URL, events, reminder and secret (the platform verifies the
        rematch's deliveries as the first table's; the rematch's answer goes to a player, not
        to the platform). Once, whoever opens it: a rematch id names one table."""
        found = await self.outbox.hook(old.id)
        hook = found[0] if found is not None else await self.outbox.ended_hook(old.id)
        if hook is not None and await self.outbox.hook(new.id) is None:
            await self.outbox.put_hook(new.id, hook)

    # -- hearing changes ---------------------------------------------------------------------
    async def _load(self, table_id: str, version: int) -> tuple[Table, int]:
        return await self.tables.load(table_id)

    def table_changed(self, table_id: str, version: int) -> None:
        if table_id not in self._no_hook:
            self._pending[table_id] = max(version, self._pending.get(table_id, 0))
            self._wake.set()

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._enqueue_loop(), name="webhooks-enqueue"),
            asyncio.create_task(self._remind_loop(), name="webhooks-remind"),
            asyncio.create_task(self._sweep_loop(), name="webhooks-sweep"),
        ]
        if self.worker is not None:
            self.worker.start()
        elif self.deliverer is not None:
            self._tasks.append(asyncio.create_task(self.deliverer.run(), name="webhooks-deliver"))

    async def _enqueue_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = list(self._pending.items()), {}
            for start in range(0, len(batch), CATCH_UP_AT_ONCE):
                chunk = batch[start : start + CATCH_UP_AT_ONCE]
                results = await asyncio.gather(
                    *(self.catch_up(t, v) for t, v in chunk), return_exceptions=True
                )
                for (table_id, _), result in zip(chunk, results, strict=True):
                    if isinstance(result, Exception):  # the store is down: the sweep retries
                        log.warning(
                            "webhook enqueue failed",
                            extra={"table": table_id, "error": repr(result)},
                        )

    async def _hook(self, table_id: str) -> tuple[Hook, int] | None:
        """The table's hook and the newest version known enqueued (remembered: a hook never
        changes, and the outbox filters by its own cursor again)."""
        known = self._hooks.get(table_id)
        if known is not None:
            return known
        found = await self.outbox.hook(table_id)
        if found is None:
            self._no_hook[table_id] = None
            while len(self._no_hook) > NO_HOOK_MEMORY:
                self._no_hook.popitem(last=False)
            return None
        known = self._hooks[table_id] = (Hook.decode(found[0]), found[1])
        while len(self._hooks) > HOOK_MEMORY:
            self._hooks.popitem(last=False)
        return known

    async def catch_up(self, table_id: str, heard: int = 0) -> int:
        """Enqueue what the table announces after its cursor: how many deliveries."""
        known = await self._hook(table_id)
        if known is None:
            return 0
        hook, cursor = known
        if 0 < heard <= cursor:
            return 0
        try:
            table, version = await self.read(table_id, heard)
        except TableError:  # expired: nothing more will happen to it
            await self.outbox.drop_hook(table_id)
            self._forget(table_id)
            return 0
        if version <= cursor:
            return 0
        at = now_ms()
        messages = [m for m in messages_of(table, cursor) if m.type in hook.events]
        items = [(m.version, delivery_of(table_id, hook, m, at)) for m in messages]
        added = await self._enqueuer.enqueue(table_id, version, items)
        if table_id in self._hooks:
            self._hooks[table_id] = (hook, version)
        if added:
            self.enqueued += added
            self.ring()
        if hook.remind_before and table.status == "playing" and table.deadline is not None:
            remind_at = table.deadline - hook.remind_before * 1000
            if remind_at > at:
                await self.outbox.remind(f"{table_id}:{version}:{table.deadline}", remind_at)
        if table.status == "over" and table.has_event("over"):
            await self.outbox.end_hook(table_id, at)
            self._forget(table_id)
        return added

    def _forget(self, table_id: str) -> None:
        self._hooks.pop(table_id, None)
        self._no_hook[table_id] = None

    async def remind(self, member: str) -> bool:
        table_id, _, deadline = member.split(":")
        found = await self.outbox.hook(table_id)
        if found is None:
            return False
        try:
            table, version = await self.tables.load(table_id)
        except TableError:
            return False
        if table.status != "playing" or table.deadline != int(deadline):
            return False  # the turn was played (or timed out) since
        hook = Hook.decode(found[0])
        message = turn_message(table, version, table.game().to_move, table.deadline, reminder=True)
        if message is None or "table.turn" not in hook.events:
            return False
        await self.outbox.add(delivery_of(table_id, hook, message, now_ms()))
        self.ring()
        return True

    async def _remind_loop(self) -> None:
        while True:
            try:
                for member in await self.outbox.take_reminders(now_ms(), 100):
                    await self.remind(member)
            except Exception as exc:
                log.warning("webhook reminders failed", extra={"error": repr(exc)})
            await asyncio.sleep(0.5)

    async def _sweep_loop(self) -> None:
        while True:
            try:
                for table_id in await self.outbox.hooked():
                    self._hooks.pop(table_id, None)  # read its cursor again
                    self._pending.setdefault(table_id, 0)
                self._wake.set()
                await self.outbox.purge_ended(now_ms() - self.keep_ended_ms)
            except Exception as exc:
                log.warning("webhook sweep failed", extra={"error": repr(exc)})
            await asyncio.sleep(self.sweep_seconds)

    async def close(self) -> None:
        await stop_tasks(self._tasks)
        if self.worker is not None:
            await self.worker.close()
        if self.deliverer is not None:
            await self.deliverer.close()
        await self._enqueuer.close()
        with contextlib.suppress(Exception):
            await self.outbox.close()
