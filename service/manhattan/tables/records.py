"""Where a table is kept, and the one way it changes (DESIGN §9).

Every change is read -> decide -> one compare-and-set on the table's version; a lost race is read
again and decided again (a join then finds the seat taken and takes another, a move finds its
version stale), so no change is ever lost or applied twice, on one replica or many. ``write`` is
that loop, written once: every operation of ``Tables`` that changes a table goes through it.
Credentials are checked before any state is touched. Every successful change publishes
``[tableId, version]`` on one channel for the other replicas (a store of one process has none)
and tells this process's listeners through ``changes.TableChanges`` (the driver watches the
table, the live hub rings the local streams, the platforms pass it on to their webhooks).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgpack

from manhattan.sealing import Sealer
from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import LocalChannels, PublishesOnSwap, Record, VersionedStore
from manhattan.store.outage import OutageLog
from manhattan.tables.changes import TableChanges
from manhattan.tables.errors import TableError
from manhattan.tables.event_log import pack
from manhattan.tables.lobby_index import listed, make_lobby_index
from manhattan.tables.model import RECORD_FORMAT, Table
from manhattan.tables.presence import PresenceMarks
from manhattan.tables.projection import SPECTATOR, Receiver, lobby_json, table_json
from manhattan.tables.tokens import Bearer, read_bearer

log = logging.getLogger("manhattan.tables")

T = TypeVar("T")

PREFIX = "manhattan:1"
CHANNEL = f"{PREFIX}:tables:changed"
MAX_SWAP_TRIES = 64
#: Tables whose last write here is kept (``TableRecords.recent``): a write starts from it
#: instead of reading the store, and this process's streams push from it.
RECENT_TABLES = 1024
#: Credentials opened (``authenticate``) and kept, so that a seat's every request does not open
#: its token again (AES-GCM and msgpack, 3 % of a table move's CPU); all forgotten when full.
OPENED_TOKENS = 4096


def table_key(table_id: str) -> str:
    return f"{PREFIX}:{{table:{table_id}}}"


def presence_key(table_id: str) -> str:
    return f"{PREFIX}:{{table:{table_id}}}:presence"


def ticket_key(ticket: str) -> str:
    return f"{PREFIX}:tableticket:{ticket}"


def lease_key(table_id: str, version: int) -> str:
    return f"{PREFIX}:{{table:{table_id}}}:turn:{version}"


def now_ms() -> int:
    return int(time.time() * 1000)


def is_table_id(text: str) -> bool:
    """Table ids are 32 lowercase hex digits; anything else is no table, without a read."""
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)


def check_table_id(text: str) -> str:
    """``text``, a table id; anything else is the request's mistake (400 ``INVALID_REQUEST``,
    as a malformed state, game or player id is), where an id of the right form that names no
    table is 404 ``TABLE_NOT_FOUND``."""
    if not is_table_id(text):
        raise TableError("INVALID_REQUEST", "a table id is 32 lowercase hex characters")
    return text


@dataclass(frozen=True, slots=True)
class TableSettings:
    #: Seconds a table lives after its last change (every change renews it).
    idle_seconds: int = 6 * 3600
    #: Chat: messages per seat within ``chat_window`` seconds.
    chat_burst: int = 5
    chat_window: float = 10.0
    #: Level that plays the seats of people who left or ran out of time.
    stand_in_level: str = "greedy"
    #: Seconds a bot may think per move (capped again by a bot seat's own budget).
    bot_seconds: float = 2.0
    #: Longest turnSeconds a table may ask for.
    max_turn_seconds: int = 86_400
    #: Public waiting tables the GraphQL ``tables`` field lists at most (``lobby`` pages).
    max_listed: int = 100
    #: The record format written (``model.RECORD_FORMAT``; 1 for a rolling upgrade).
    record_format: int = RECORD_FORMAT


@dataclass(slots=True, init=False)
class Changed:
    """The outcome of one change: the table as stored and its new version."""

    table: Table
    version: int

    def __init__(self, table: Table, version: int) -> None:  # (compiled: see Table's)
        self.table = table
        self.version = version


class NoChange(Exception):
    """Raised by a change function that decided nothing needs writing; carries the answer."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer


Change = Callable[[Table, int], T]


class TableRecords:
    """Reading a table, checking a credential against it, and the one write path, which
    announces each change to ``changes``."""

    def __init__(
        self,
        store: VersionedStore,
        sealer: Sealer,
        settings: TableSettings,
        changes: TableChanges,
    ) -> None:
        self.store = store
        self.sealer = sealer
        self.settings = settings
        self.changes = changes
        self._publishing = OutageLog(log, "table notices (publish)")
        self._listing = OutageLog(log, "the lobby index")
        self.lobby_index = make_lobby_index(store)
        self._one_trip = isinstance(store, PublishesOnSwap)
        #: A store that is one process (memory, SQLite) delivers a notice only back to this
        #: process, which tells its listeners of its changes itself (``changes``): published,
        #: each change's notice was queued, woke the hub and rang nothing.
        self._notices = not isinstance(store, LocalChannels)
        #: table id -> (version, stored bytes, the table as stored) of this process's last write.
        self._recent: OrderedDict[str, tuple[int, bytes, Table]] = OrderedDict()
        #: table id -> the version this process is writing of it now (``writing``).
        self._writing: dict[str, int] = {}
        #: (table id, token) -> its bearer, for tokens that opened (keys do not change while the
        #: process runs; revocation is checked against the table, after this).
        self._opened: dict[tuple[str, str], Bearer] = {}
        self._presence = PresenceMarks(self._write_marks)

    # -- reading --------------------------------------------------------------------------
    async def load(self, table_id: str) -> tuple[Table, int]:
        record = await self.store.read(table_key(check_table_id(table_id)))
        if record is None:
            raise TableError("TABLE_NOT_FOUND", "no such table (it may have expired)")
        return Table.decode(record.data), record.version

    async def connected(self, table_id: str) -> set[int]:
        record = await self.store.read(presence_key(table_id))
        if record is None:
            return set()
        seen: dict[int, int] = msgpack.unpackb(record.data, strict_map_key=False)
        now = now_ms()
        return {sid for sid, until in seen.items() if until > now}

    async def mark_connected(self, table_id: str, sid: int, seconds: float) -> None:
        """A seat's stream is open for at least ``seconds`` more (refreshed by heartbeats);
        the marks of a table asked for at once are written together (``presence.py``)."""
        await self._presence.mark(table_id, sid, now_ms() + int(seconds * 1000))

    async def _write_marks(self, table_id: str, marks: dict[int, int]) -> None:
        key = presence_key(table_id)
        for _ in range(MAX_SWAP_TRIES):
            record = await self.store.read(key)
            seen: dict[int, int] = (
                {} if record is None else msgpack.unpackb(record.data, strict_map_key=False)
            )
            now = now_ms()
            seen = {s: until for s, until in seen.items() if until > now}
            for sid, until in marks.items():
                seen[sid] = max(until, seen.get(sid, 0))
            data = pack(seen)
            expected = 0 if record is None else record.version
            done, _ = await self.store.swap(key, expected, data, ttl=self.settings.idle_seconds)
            if done:
                return

    async def view_for(
        self, table: Table, version: int, receiver: Receiver, *, key: str | None = None
    ) -> dict[str, Any]:
        connected = await self.connected(table.id)
        return table_json(table, version, receiver, connected=connected, key=key)

    async def tell_over(self, table: Table) -> None:
        await self.changes.table_over(table)

    # -- credentials ----------------------------------------------------------------------
    def authenticate(self, table_id: str, bearer: str | None) -> Bearer | None:
        """The bearer's claim for this table, checked cryptographically (before any read)."""
        if bearer is None:
            return None
        key = (table_id, bearer)
        found = self._opened.get(key)
        if found is not None:
            return found
        check_table_id(table_id)
        found = read_bearer(self.sealer, table_id, bearer)
        if len(self._opened) >= OPENED_TOKENS:
            self._opened.clear()
        self._opened[key] = found
        return found

    @staticmethod
    def check_bearer(table: Table, bearer: Bearer | None) -> Receiver:
        """The receiver a (cryptographically valid) bearer is for this table now: a revoked
        seat token (the person left) or host token is ``BAD_SEAT``."""
        if bearer is None:
            return SPECTATOR
        if bearer.sid is None:
            if bearer.epoch != table.host_epoch:
                raise TableError("BAD_SEAT", "this host token was revoked")
            return SPECTATOR
        seat = table.seat(bearer.sid)
        if seat is None or seat.epoch != bearer.epoch or seat.kind != "human" or seat.left:
            raise TableError("BAD_SEAT", "this seat token was revoked (the seat was left)")
        return Receiver(bearer.sid)

    @staticmethod
    def seated(table: Table, bearer: Bearer | None) -> Receiver:
        receiver = TableRecords.check_bearer(table, bearer)
        if receiver.sid is None:
            raise TableError("NOT_SEATED", "this needs a seat token of this table")
        return receiver

    # -- writing --------------------------------------------------------------------------
    async def write(self, table_id: str, change: Change[T]) -> tuple[Changed, T]:
        """Apply ``change(table, new_version)`` and compare-and-set; again on a lost race.
        ``change`` raises TableError to refuse, or NoChange to answer without writing.

        The table comes from this process's last write of it when there is one (no read: one
        store round trip per change, the swap, which on Redis also publishes the notice); only
        a swap accepts that copy, so a refusal or a ``NoChange`` judged on it is judged again on
        a fresh read, and a lost race goes on from the record the swap answered with."""
        key = table_key(table_id)
        # (version, stored bytes) to go on from; a tuple, where a Record's constructor (a frozen
        # dataclass's) runs interpreted
        known = self._recent_record(table_id)
        for _ in range(MAX_SWAP_TRIES):
            if known is None:
                table, version = await self.load(table_id)
            else:
                table, version = self._recent_copy(table_id, known[1]), known[0]
            was_listed = listed(table)
            try:
                result = change(table, version + 1)
            except Exception:  # a refusal, NoChange, a stale version (play's Stale), ...
                if known is None:
                    raise
                known = None  # judged on this process's copy: judge again on the store's
                continue
            table.updated = now_ms()
            encoded = table.encode(self.settings.record_format)
            self._writing[table_id] = version + 1
            try:
                done, current = await self._swap(table_id, key, version, encoded, self.ttl(table))
                if done:
                    self._remember(table_id, version + 1, encoded, table)
                    if was_listed or listed(table):
                        await self.relist(table, version + 1)
                    self.changes.table_changed(table_id, version + 1)
                    return Changed(table, version + 1), result
            finally:
                if self._writing.get(table_id) == version + 1:
                    del self._writing[table_id]
            known = None if current is None else (current.version, current.data)
        raise TableError("STALE_VERSION", "the table changes too fast; retry")

    def ttl(self, table: Table) -> int:
        """A table lives ``idle_seconds`` after its last change, and longer than one turn: a
        correspondence table (turns of days) is not forgotten while a person thinks."""
        return self.settings.idle_seconds + (table.turn_seconds or 0)

    async def _swap(
        self, table_id: str, key: str, version: int, encoded: bytes, ttl: int
    ) -> tuple[bool, Record | None]:
        """The swap, and on success the change notice (in the same round trip where the store
        can: ``PublishesOnSwap``)."""
        if not self._notices:
            return await self.store.swap(key, version, encoded, ttl=ttl)
        message = pack((table_id, version + 1))
        if self._one_trip:
            assert isinstance(self.store, PublishesOnSwap)
            done, current, published = await self.store.swap_and_publish(
                key, version, encoded, ttl=ttl, channel=CHANNEL, message=message
            )
            if done and not published:
                await self._publish(message)
            return done, current
        done, current = await self.store.swap(key, version, encoded, ttl=ttl)
        if done:
            await self._publish(message)
        return done, current

    def _recent_copy(self, table_id: str, data: bytes) -> Table:
        """A table to change: a copy of this process's last write of it (its decoded game
        shared: a state is immutable), or decoded from the record the store answered with."""
        kept = self._recent.get(table_id)
        if kept is not None and kept[1] is data:
            return kept[2].copy()
        return Table.decode(data)

    def _recent_record(self, table_id: str) -> tuple[int, bytes] | None:
        """(version, stored bytes) of this process's last write of the table."""
        kept = self._recent.get(table_id)
        return None if kept is None else (kept[0], kept[1])

    def _remember(self, table_id: str, version: int, data: bytes, table: Table) -> None:
        self._recent[table_id] = (version, data, table)
        self._recent.move_to_end(table_id)
        while len(self._recent) > RECENT_TABLES:
            self._recent.popitem(last=False)

    def recent(self, table_id: str, at_least: int) -> tuple[Table, int] | None:
        """The table as this process last wrote it, if that is version ``at_least`` (> 0) or
        newer: what a push of that change needs, without a read. Not to be modified."""
        kept = self._recent.get(table_id)
        if kept is None or at_least <= 0 or kept[0] < at_least:
            return None
        return kept[2], kept[0]

    def writing(self, table_id: str) -> int:
        """The version of ``table_id`` this process is writing now (0: none). Its change notice
        can come back over pub/sub before the write returns (on Redis, the script's reply and
        the published notice travel on two connections); the write announces it itself."""
        return self._writing.get(table_id, 0)

    async def insert(self, table: Table) -> None:
        """A new table at version 1 (never over an existing one)."""
        table.updated = table.updated or table.created
        done, _ = await self.store.swap(
            table_key(table.id), 0, table.encode(self.settings.record_format), ttl=self.ttl(table)
        )
        if not done:  # 128 random bits collided: never, but never overwrite either
            raise TableError("STALE_VERSION", "table id collision; retry")
        if listed(table):
            await self.relist(table, 1)
        await self.changed(table.id, 1)

    async def relist(self, table: Table, version: int) -> None:
        """The lobby index after a change of a table it lists or listed: the
        table's summary at its activity time, or out once it started or turned private. A
        failure is logged, never the change's: the entry is rewritten by the next change and
        expires with the table."""
        try:
            if listed(table):
                entry = pack(lobby_json(table, version))
                activity = table.updated or table.created
                await self.lobby_index.put(table.id, activity, entry, self.settings.idle_seconds)
            else:
                await self.lobby_index.remove(table.id)
        except StoreUnavailable as exc:
            self._listing.failed(exc)
        else:
            self._listing.recovered()

    async def changed(self, table_id: str, version: int) -> None:
        """Tell every replica through the store's channel, and this process at once."""
        if self._notices:
            await self._publish(pack((table_id, version)))
        self.changes.table_changed(table_id, version)

    async def _publish(self, message: bytes) -> None:
        try:
            await self.store.publish(CHANNEL, message)
        except Exception as exc:  # streams re-read on their heartbeat; never fail a change
            self._publishing.failed(exc)  # one line per kind of failure, then counts
        else:
            self._publishing.recovered()
