"""One pub/sub listener per process, fanning "table X is at version v" out to local streams; one
shared read per table change for all local streams of that table; and each change projected and
encoded once per audience (the public, or one seat's player), not once per receiver.

Pub/sub is at-most-once: a message can be lost (a Redis reconnect, a slow consumer). The store
says so (``GAP``) whenever that may have happened, and then every local stream looks again: the
cached reads are dropped, so each table is read once more, shared by its streams. A stream that
hears nothing still re-reads on its heartbeat, from a read at most one heartbeat old.

Limits (settings ``table_streams_per_client``, ``table_spectators_per_table``) are counted here,
per process: a stream over them is refused with ``TOO_MANY_STREAMS`` before it opens.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from manhattan.live.fanout import write_direct
from manhattan.live.listener import Listener
from manhattan.live.push import Push
from manhattan.store.cas import GAP, VersionedStore
from manhattan.tables.errors import TableError
from manhattan.tables.model import Table
from manhattan.tables.projection import MovePayloads, Receiver, event_json, receiver_player
from manhattan.tables.records import CHANNEL
from manhattan.tables.service import Tables
from manhattan.tables.tokens import Bearer

log = logging.getLogger("manhattan.live.hub")

#: Streams opened or closed since the last give-back of freed memory that call for another.
GIVE_BACK_STREAMS = 256
#: Versions of a table whose encoded pushes are kept (for streams that are a little behind).
KEPT_VERSIONS = 16
#: Seconds before a notice of a change this process was writing is heard again (``heard``).
HELD_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class StreamLimits:
    #: Open streams and subscriptions per client address (per process).
    per_client: int = 64
    #: Spectators (streams without a seat) per table (per process).
    spectators_per_table: int = 5000


class Hub:
    """The live wing's ``TableChanges`` listener: a change made here rings the local streams
    (``notify``); ``exiting`` (the server shutting down: open streams then end) and
    ``give_back`` (memory freed in the process handed back to the system) are the server's."""

    def __init__(
        self,
        store: VersionedStore,
        tables: Tables,
        *,
        limits: StreamLimits | None = None,
        tick: float = 0.5,
        keep: float = 15.0,
        exiting: Callable[[], bool] | None = None,
        give_back: Callable[[], None] | None = None,
    ) -> None:
        self.store = store
        #: Seconds between the shared timer's looks at heartbeats due and at ``exiting``.
        self.tick = tick
        #: Seconds a shared read is kept (the streams' heartbeat: older ones serve none).
        self.keep = keep
        self.exiting = exiting
        self._ticker: asyncio.Task[None] | None = None
        self.give_back = give_back
        self._given_back = (0, 0.0)  # (open streams, monotonic time) at the last give-back
        self.tables = tables
        self.limits = limits or StreamLimits()
        self._listeners: dict[str, set[Listener]] = {}
        self._latest: dict[str, tuple[int, Table, float]] = {}
        self._reads: dict[str, asyncio.Future[tuple[Table, int]]] = {}
        self._pushes: dict[str, dict[tuple[int, int | None], Push]] = {}
        #: per table and audience, the version of the one kept push that carries a view
        self._viewed: dict[str, dict[int | None, int]] = {}
        self._rung: dict[str, int] = {}  # per table with local streams: the newest version rung
        self._connected: dict[str, tuple[float, set[int]]] = {}
        self._clients: dict[str, int] = {}
        self._spectators: dict[str, int] = {}
        self.closing = False
        #: The last move's ``MovePayloads``, with its table and entry (``_move_payloads``).
        self._last_move: tuple[Table, dict[str, Any], MovePayloads | None] | None = None
        #: Pushes written to streams by the hub itself (``fanout.py``), since start.
        self.direct_writes = 0

    @property
    def stream_count(self) -> int:
        return sum(len(group) for group in self._listeners.values())

    def table_changed(self, table_id: str, version: int) -> None:
        """``TableChanges``: a change made in this process."""
        self.notify(table_id, version)

    async def table_over(self, table: Table) -> None:
        """``TableChanges``: the ``over`` event that follows is a change like any other."""

    def notify(self, table_id: str, version: int) -> None:
        group = self._listeners.get(table_id)
        if group:
            # A change made here is rung at once; its notice coming back over pub/sub would
            # only make every stream read the table again for nothing.
            if version <= self._rung.get(table_id, 0):
                return
            self._rung[table_id] = version
            for listener in write_direct(self, table_id, version, group):
                listener.ring(version)

    def heard(self, table_id: str, version: int) -> None:
        """A change notice from the store's pub/sub. A change this process is still writing
        is left to the write, which announces it (``table_changed``) with the table at hand;
        rung now, every stream of the table would read it from the store first. Heard again
        shortly, in case the write never announces it (its reply lost, or another replica's
        write of that version won): then it rings, unless rung already."""
        if self.tables.writing(table_id) == version:
            asyncio.get_running_loop().call_later(HELD_SECONDS, self.heard, table_id, version)
            return
        self.notify(table_id, version)

    def ring_all(self) -> None:
        """After a reconnect (messages may have been lost): every stream looks again."""
        self._latest.clear()
        for group in self._listeners.values():
            for listener in group:
                listener.ring(0)

    def close(self) -> None:
        """Every open stream ends (at its next wake, which is now); the timer stops."""
        self.closing = True
        self.ring_all()
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    async def _tick(self) -> None:
        """The one timer of every local stream: heartbeats due, and the server's shutdown."""
        while not self.closing:
            await asyncio.sleep(self.tick)
            if self.exiting is not None and self.exiting():
                self.closing = True
                self.ring_all()
                return
            now = time.monotonic()
            for group in self._listeners.values():
                for listener in group:
                    if listener.beat_at <= now and not listener.due:
                        listener.beat()
            # A read older than a heartbeat serves no stream (a heartbeat reads again): an
            # idle table's streams keep nothing read.
            stale = [k for k, (_, _, at) in self._latest.items() if now - at > self.keep]
            for table_id in stale:
                del self._latest[table_id]
            self._give_back(now)

    def _give_back(self, now: float) -> None:
        """After many streams opened or closed (their set-up's garbage, or their own memory,
        is free now), at most every 5 s: the freed memory back to the system, so that the
        process's size follows its open streams."""
        if self.give_back is None:
            return
        count, at = self._given_back
        streams = self.stream_count
        if abs(streams - count) >= GIVE_BACK_STREAMS and now - at >= 5.0:
            self._given_back = (streams, now)
            self.give_back()

    def listen(
        self,
        table_id: str,
        *,
        client: str | None = None,
        spectator: bool = False,
        heartbeat: float = 15.0,
    ) -> Listener:
        """A doorbell for one stream of ``table_id`` (beating every ``heartbeat`` seconds),
        counted against the limits of ``client`` (its address; None: not counted) and, for a
        ``spectator``, of the table. ``forget`` it when the stream ends."""
        self._admit(table_id, client, spectator)
        if self._ticker is None and not self.closing:
            self._ticker = asyncio.get_running_loop().create_task(self._tick(), name="tables-beat")
        listener = Listener(heartbeat, table_id, client, spectator)
        self._listeners.setdefault(table_id, set()).add(listener)
        return listener

    def forget(self, listener: Listener) -> None:
        """The stream of ``listener`` ended: its counts are given back."""
        table_id = listener.table_id
        self._counted(table_id, listener.client, listener.spectator, -1)
        group = self._listeners.get(table_id)
        if group is not None and listener in group:
            group.discard(listener)
            if not group:
                del self._listeners[table_id]
                self._latest.pop(table_id, None)
                self._rung.pop(table_id, None)
                self._pushes.pop(table_id, None)
                self._viewed.pop(table_id, None)
                self._connected.pop(table_id, None)

    def hold(self, table_id: str, client: str | None) -> None:
        """A spectator's stream of ``table_id`` handed over to the relay (``relay.py``) keeps
        its place in the limits, as an open stream here would, until ``release``. Never
        refused: the stream was admitted when it opened."""
        self._counted(table_id, client, True, 1)

    def release(self, table_id: str, client: str | None) -> None:
        """The relayed stream held by ``hold`` closed: its counts are given back."""
        self._counted(table_id, client, True, -1)

    def _admit(self, table_id: str, client: str | None, spectator: bool) -> None:
        if client is not None and self._clients.get(client, 0) >= self.limits.per_client:
            raise TableError(
                "TOO_MANY_STREAMS",
                f"at most {self.limits.per_client} open streams and subscriptions per client",
            )
        if spectator and self._spectators.get(table_id, 0) >= self.limits.spectators_per_table:
            raise TableError(
                "TOO_MANY_STREAMS",
                f"at most {self.limits.spectators_per_table} spectators per table",
            )
        self._counted(table_id, client, spectator, 1)

    def _counted(self, table_id: str, client: str | None, spectator: bool, step: int) -> None:
        """A stream of ``client`` (and a spectator of ``table_id``) counted in or out."""
        _count(self._clients, client, step)
        _count(self._spectators, table_id if spectator else None, step)

    async def fresh(
        self, table_id: str, at_least: int = 0, *, max_age: float | None = None
    ) -> tuple[Table, int]:
        """The table at version ``at_least`` or newer (and, given ``max_age``, read at most that
        many seconds ago); concurrent callers share one read. Callers must not modify the
        table they get. Raises TableError (no such table) or the store's error."""
        cached = self._latest.get(table_id)
        if (
            cached is not None
            and cached[0] >= at_least > 0
            and (max_age is None or time.monotonic() - cached[2] <= max_age)
        ):
            return cached[1], cached[0]
        # A change this process wrote is pushed without a store read; a heartbeat's look
        # (``max_age``) still reads, so an outage is seen.
        recent = self.tables.recent(table_id, at_least) if max_age is None else None
        if recent is not None:
            if table_id in self._listeners:
                self._latest[table_id] = (recent[1], recent[0], time.monotonic())
            return recent
        table, version = await self._shared_read(table_id)
        if version < at_least:
            # That read began before the change we were told of: read again, once (shared too).
            table, version = await self._shared_read(table_id)
        if table_id in self._listeners:
            self._latest[table_id] = (version, table, time.monotonic())
        return table, version

    async def _shared_read(self, table_id: str) -> tuple[Table, int]:
        pending = self._reads.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(self.tables.load(table_id))
            self._reads[table_id] = pending
            pending.add_done_callback(lambda _: self._reads.pop(table_id, None))
        return await asyncio.shield(pending)

    def pushes(self, table: Table, entries: list[dict[str, Any]], receiver: Receiver) -> list[Push]:
        """The pushes of logged ``entries`` for ``receiver``: built (projected, then encoded on
        first use) once per version and audience, and the same objects for every receiver of
        that audience."""
        return [self.push_of(table, entry, receiver) for entry in entries]

    def recent(self, table_id: str, version: int) -> tuple[Table, int] | None:
        """The table as this process last wrote it, when that is at ``version`` or newer."""
        return self.tables.recent(table_id, version)

    def push_for(self, table: Table, entry: dict[str, Any], bearer: Bearer | None) -> Push | None:
        """The push of ``entry`` for ``bearer``'s audience (``fanout.py``); None when its stream
        must look itself: a seat token that no longer holds, a spectator of a table no longer
        public."""
        try:
            receiver = self.tables.check_bearer(table, bearer)
        except TableError:
            return None
        if bearer is None and not table.public:
            return None
        return self.push_of(table, entry, receiver)

    def wrote(self) -> None:
        """A push written straight to a stream's connection (``fanout.py``)."""
        self.direct_writes += 1

    def push_of(self, table: Table, entry: dict[str, Any], receiver: Receiver) -> Push:
        """The push of one logged entry for ``receiver`` (``pushes``)."""
        audience = receiver_player(table, receiver)
        kept = self._pushes.get(table.id)
        if kept is None:
            kept = self._pushes[table.id] = {}
        key = (entry["v"], audience)
        push = kept.get(key)
        if push is None:
            push = kept[key] = self._made(table, entry, receiver, audience, kept)
            # Now and then, not on every push: the pushes without a view (chat, joins, the
            # end) of the last 16 versions, at most some 4 x 16 versions' worth (a table of
            # 4 seats and spectators has 5 audiences), besides the newest view per audience.
            if len(kept) > 4 * 5 * KEPT_VERSIONS:
                oldest = entry["v"] - KEPT_VERSIONS
                for old in [k for k in kept if k[0] < oldest]:
                    del kept[old]
        return push

    def _made(
        self,
        table: Table,
        entry: dict[str, Any],
        receiver: Receiver,
        audience: int | None,
        kept: dict[tuple[int, int | None], Push],
    ) -> Push:
        payloads = self._move_payloads(table, entry)
        if payloads is not None:
            self._one_view_kept(table.id, kept, entry["v"], audience)
            return Push.encoded(entry["v"], "move", payloads.payload(audience))
        kind, data = event_json(table, entry, receiver)
        if "view" in data:
            self._one_view_kept(table.id, kept, entry["v"], audience)
        return Push(entry["v"], kind, data)

    def _move_payloads(self, table: Table, entry: dict[str, Any]) -> MovePayloads | None:
        """The audiences' data of the table's newest move (None for any other entry), made
        once for the receivers of one change (they come one after the other)."""
        last = self._last_move
        if last is None or last[0] is not table or last[1] is not entry:
            payloads = MovePayloads(table, entry) if MovePayloads.fits(table, entry) else None
            last = self._last_move = (table, entry, payloads)
        return last[2]

    def _one_view_kept(
        self,
        table_id: str,
        kept: dict[tuple[int, int | None], Push],
        version: int,
        audience: int | None,
    ) -> None:
        """A move's push carries the view after it (some 3 KB encoded) and, for the person to
        move, its legal moves: only the newest one per audience is kept. An older one goes: a
        stream that resumes before it has it made again from the table's log, which gives an
        entry that is no longer the newest without view or moves (``event_json``), and asks
        for the table, as after a gap. A stream that holds the older object writes it whole.
        (Kept, the older pushes' copies without view were most of a busy replica's pushes,
        some 100 KB per table, and a second encoding of every push.)"""
        viewed = self._viewed.setdefault(table_id, {})
        older = viewed.get(audience)
        if older is not None and older >= version:
            return  # (an older entry's push made again for a stream that resumes)
        viewed[audience] = version
        if older is not None:
            kept.pop((older, audience), None)

    async def connected(self, table_id: str, max_age: float = 1.0) -> set[int]:
        """The table's connected seats, read at most ``max_age`` seconds ago (snapshots of
        many streams at once share one read)."""
        cached = self._connected.get(table_id)
        if cached is not None and time.monotonic() - cached[0] <= max_age:
            return cached[1]
        found = await self.tables.connected(table_id)
        if table_id in self._listeners:
            self._connected[table_id] = (time.monotonic(), found)
        return found

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
                        self.heard(table_id, version)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("table updates: subscription lost", extra={"error": repr(exc)})
            await asyncio.sleep(1.0)
            self.ring_all()


def _count(counts: dict[str, int], key: str | None, step: int) -> None:
    if key is None:
        return
    left = counts.get(key, 0) + step
    if left > 0:
        counts[key] = left
    else:
        counts.pop(key, None)
