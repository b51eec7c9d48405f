"""A table's event stream for one receiver, shared by SSE and the GraphQL subscription.

The stream yields ``Push(id=version, event, data)`` items, every one built by the projection for
its receiver, and ``None`` as a heartbeat. It starts with a snapshot, or with the logged events
after ``last_event_id`` when the log still holds every one of them; any gap (an older id, a lost
pub/sub message that the log no longer covers) is answered with a snapshot. A seat whose token
is revoked (it left) gets a last snapshot as a spectator and the stream ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from .errors import TableError
from .model import Table
from .projection import Receiver, event_json, table_json
from .tokens import Bearer


@dataclass(frozen=True, slots=True)
class Push:
    id: int
    event: str
    data: dict[str, Any]


def _since(table: Table, version: int, after: int) -> list[dict[str, Any]] | None:
    """The logged events after version ``after`` up to ``version``, or None on a gap."""
    entries = [e for e in table.log if e["v"] > after]
    if [e["v"] for e in entries] != list(range(after + 1, version + 1)):
        return None
    return entries


async def table_stream(
    runtime: Any,
    table_id: str,
    bearer: Bearer | None,
    *,
    last_event_id: int | None = None,
    heartbeat: float = 15.0,
) -> AsyncGenerator[Push | None, None]:
    """Events of ``table_id`` for ``bearer`` (None: a spectator of a public table).
    ``runtime`` is the app's ``TableRuntime``. Raises TableError before the first item when
    the table or the bearer is refused."""
    tables, hub, driver = runtime.tables, runtime.hub, runtime.driver
    with hub.listen(table_id) as listener:
        table, version = await hub.fresh(table_id)
        receiver = tables.check_bearer(table, bearer)
        if bearer is None and not table.public:
            raise TableError("NOT_SEATED", "a private table's stream needs a ticket")
        driver.seen(table_id)
        if receiver.sid is not None:
            await tables.mark_connected(table_id, receiver.sid, heartbeat * 3)
        sent = -1
        entries = None
        if last_event_id is not None and 0 <= last_event_id <= version:
            entries = _since(table, version, last_event_id)
        if entries is None:
            yield await _snapshot(tables, table, version, receiver)
        elif not entries:
            yield None  # resumed at the newest version: nothing to replay yet
        else:
            for entry in entries:
                kind, data = event_json(table, entry, receiver)
                yield Push(entry["v"], kind, data)
        sent = version
        while not hub.closing:
            rung = await listener.wait(heartbeat)
            if not rung:
                yield None
                if receiver.sid is not None:
                    await tables.mark_connected(table_id, receiver.sid, heartbeat * 3)
            try:
                table, version = await hub.fresh(table_id, max(listener.version, sent + 1))
            except TableError:
                return  # expired, or lost with the store: nothing more will come
            if version <= sent:
                continue
            try:
                tables.check_bearer(table, bearer)
            except TableError:
                yield await _snapshot(tables, table, version, Receiver())
                return
            entries = _since(table, version, sent)
            if entries is None:
                yield await _snapshot(tables, table, version, receiver)
            else:
                for entry in entries:
                    kind, data = event_json(table, entry, receiver)
                    yield Push(entry["v"], kind, data)
            sent = version


async def _snapshot(tables: Any, table: Table, version: int, receiver: Receiver) -> Push:
    connected = await tables.connected(table.id)
    return Push(version, "snapshot", table_json(table, version, receiver, connected=connected))
