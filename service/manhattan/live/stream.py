"""A table's event stream for one receiver, shared by SSE and the GraphQL subscription.

The stream yields ``Push`` items (``push.py``), each built once per version and audience by the
hub and shared by every receiver of that audience, and ``None`` as a heartbeat. It starts with a
snapshot, or with the logged events after ``last_event_id`` when the log still holds every one
of them; any gap (an older id, a lost pub/sub message that the log no longer covers) is answered
with a snapshot. A seat whose token is revoked (it left) gets a last snapshot as a spectator and
the stream ends.

A store outage never ends a stream: heartbeats go on, and once a read succeeds again the stream
sends a snapshot (changes may have been missed meanwhile).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import AsyncGenerator
from typing import Any, Protocol

from manhattan.live.hub import Hub
from manhattan.live.listener import Hangup, Listener
from manhattan.live.push import Push
from manhattan.tables.driver import Driver
from manhattan.tables.errors import TableError
from manhattan.tables.model import Table
from manhattan.tables.projection import Receiver, table_json
from manhattan.tables.service import Tables
from manhattan.tables.tokens import Bearer

log = logging.getLogger("manhattan.live.stream")

#: The share of a heartbeat by which a seat's next mark may come early (``_marked``).
MARK_SPREAD = 0.2


class Watched(Protocol):
    """What a stream is served from (the app's ``TableRuntime``): the tables, the hub, and the
    driver that learns a table is watched."""

    @property
    def tables(self) -> Tables: ...

    @property
    def hub(self) -> Hub: ...

    @property
    def driver(self) -> Driver: ...


def _since(table: Table, version: int, after: int) -> list[dict[str, Any]] | None:
    """The logged events after version ``after`` up to ``version``, or None on a gap."""
    entries = table.log.since(after)
    if [e["v"] for e in entries] != list(range(after + 1, version + 1)):
        return None
    return entries


async def table_stream(
    runtime: Watched,
    table_id: str,
    bearer: Bearer | None,
    *,
    last_event_id: int | None = None,
    heartbeat: float = 15.0,
    client: str | None = None,
    hangup: Hangup | None = None,
    counted: bool = True,
) -> AsyncGenerator[Push | None, None]:
    """Events of ``table_id`` for ``bearer`` (None: a spectator of a public table), counted
    against the stream limits of ``client`` (its address) unless not ``counted`` (the spectator
    relay's feed: each stream it serves is counted there, ``relay.py``). ``runtime`` is the app's
    ``TableRuntime`` (``Watched``); a ``hangup`` the transport calls when its client is gone ends
    the stream at once. Raises TableError (or the store's error) before the first item when the
    table, the bearer or the limits refuse it.

    Between changes the stream only waits on its hub doorbell: its heartbeats come from the
    hub's one shared timer, and what it sends is the hub's (the read, the encoded pushes)."""
    tables, hub = runtime.tables, runtime.hub
    spectator = counted and (bearer is None or bearer.sid is None)
    bell = hub.listen(table_id, client=client, spectator=spectator, heartbeat=heartbeat)
    try:
        if hangup is not None:
            hangup.listener = bell
            bell.gone = hangup.gone
        table, version, receiver = await _admitted(runtime, table_id, bearer, heartbeat)
        for first in await _opening(hub, table, version, receiver, last_event_id):
            yield first
            del first  # (an idle stream keeps nothing of its own: not the snapshot it sent)
        del table  # the hub holds it
        # What this stream has written is ``bell.sent``: the hub may write a change itself
        # (``fanout.py``) while the stream waits, never while it writes.
        bell.sent, bell.bearer, bell.direct, lost = version, bearer, True, False
        _marked(bell, receiver, heartbeat)
        bell.next_beat()
        while not hub.closing:
            bell.delivering = False
            await bell.wait()
            if bell.gone or hub.closing:
                return
            bell.delivering = True
            rung, bell.rung = bell.rung, False
            sent = bell.sent
            if bell.due:  # due even while rung (doorbells ring in an outage)
                _marked(bell, receiver, heartbeat)
                bell.next_beat()
                yield None
                await _mark(tables, table_id, receiver, heartbeat)
            elif not rung or (bell.version <= sent and not lost):
                continue  # (rung for a change the hub has written here already)
            try:
                if rung:
                    table, version = await hub.fresh(table_id, max(bell.version, sent + 1))
                else:
                    table, version = await hub.fresh(table_id, sent, max_age=heartbeat)
            except TableError:
                return  # expired, or lost with the store: nothing more will come
            except Exception:  # the store is down: keep the stream, look again later
                lost = True
                continue
            if version <= sent and not lost:
                continue
            try:
                tables.check_bearer(table, bearer)
            except TableError:
                yield await _snapshot(hub, table, version, Receiver())
                return
            entries = None if lost else _since(table, version, sent)
            if entries is None:
                yield await _snapshot(hub, table, version, receiver)
            else:
                for push in hub.pushes(table, entries, receiver):
                    yield push
            del table, entries
            bell.sent, lost = version, False
            bell.next_beat()
    finally:
        hub.forget(bell)


async def _admitted(
    runtime: Watched, table_id: str, bearer: Bearer | None, heartbeat: float
) -> tuple[Table, int, Receiver]:
    """The table as it is, and whom the stream is for: refused (``TableError``) for a bearer
    the table no longer holds, or without one, a table that is not public."""
    table, version = await runtime.hub.fresh(table_id)
    receiver = runtime.tables.check_bearer(table, bearer)
    if bearer is None and not table.public:
        raise TableError("NOT_SEATED", "a private table's stream needs a ticket")
    runtime.driver.seen(table_id)
    await _mark(runtime.tables, table_id, receiver, heartbeat)
    return table, version, receiver


async def _opening(
    hub: Hub, table: Table, version: int, receiver: Receiver, last_event_id: int | None
) -> list[Push | None]:
    """A stream's first items: the logged events after ``last_event_id`` when the log holds
    every one of them (None: resumed at the newest version), else a snapshot."""
    entries = None
    if last_event_id is not None and 0 <= last_event_id <= version:
        entries = _since(table, version, last_event_id)
    if entries is None:
        return [await _snapshot(hub, table, version, receiver)]
    if not entries:
        return [None]  # resumed at the newest version: nothing to replay yet
    return list(hub.pushes(table, entries, receiver))


async def _mark(tables: Tables, table_id: str, receiver: Receiver, heartbeat: float) -> None:
    """A seat's presence, refreshed; an outage only delays it."""
    if receiver.sid is None:
        return
    try:
        await tables.mark_connected(table_id, receiver.sid, heartbeat * 3)
    except Exception as exc:
        log.debug("presence not refreshed", extra={"error": repr(exc)})


def _marked(bell: Listener, receiver: Receiver, heartbeat: float) -> None:
    """A seat's presence is marked now (it lasts three heartbeats): its next heartbeat, which
    marks it again, comes within one however busy the stream is (``Listener.mark_by``), and
    up to ``MARK_SPREAD`` of one early at random: the seats of streams opened together mark
    apart after their first beats instead of all at once for as long as they stay open."""
    if receiver.sid is not None:
        bell.mark_by = time.monotonic() + heartbeat * (1.0 - MARK_SPREAD * random.random())


async def _snapshot(hub: Hub, table: Table, version: int, receiver: Receiver) -> Push:
    try:
        connected = await hub.connected(table.id)
    except Exception:  # the store is down: the seats' presence is unknown for now
        connected = set()
    return Push(version, "snapshot", table_json(table, version, receiver, connected=connected))
