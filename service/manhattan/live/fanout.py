"""A change written straight to the up-to-date streams' connections.

The usual way a push reaches a stream is the stream's own task: rung, it wakes, looks at the
table, takes the pushes the hub built and writes each frame through the ASGI ``send`` chain.
For one stream that is cheap; for a crowd on one public table it was some 20 µs a spectator
and a move, most of it waking tasks and passing messages down the chain, not writing.

Here the hub writes a change made in this process (the table is at hand, no read) to every
stream that is up to date, in batches: each audience's push is built once (``Hub.pushes``),
each write is one call on the connection (``sink``, made by the transport:
``live/sse.py``), and a seat's token is checked against the table as its stream would.
Everything else takes the usual way, rung: a stream that is behind, busy writing, whose token
no longer holds (it gets its last snapshot there), whose connection is not taking data now
(``sink`` answers False), and any change this process did not make.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol

from manhattan.live.listener import Listener
from manhattan.live.push import Push
from manhattan.tables.model import Table
from manhattan.tables.tokens import Bearer

#: Streams written to in one go; the rest in later turns of the event loop, so that a crowd's
#: fan-out does not hold up other requests for long: a request is several turns of the loop
#: (read, handle, write), each waiting for one batch. 200 (some 4 ms of writes) put /healthz
#: at p50 8 ms while 2,000 spectators watched a table at 12 moves/s (0.7 ms without them).
BATCH = 32


class Audiences(Protocol):
    """What a change is written from (the hub): the table as this process wrote it, and each
    audience's push, built once."""

    def recent(self, table_id: str, version: int) -> tuple[Table, int] | None: ...

    def push_for(
        self, table: Table, entry: dict[str, Any], bearer: Bearer | None
    ) -> Push | None: ...

    def wrote(self) -> None: ...


def write_direct(
    audiences: Audiences, table_id: str, version: int, group: set[Listener]
) -> list[Listener]:
    """Write version ``version`` of ``table_id`` to the up-to-date streams of ``group``: the
    listeners left to ring (all of them when the change is not at hand)."""
    ready = [
        listener
        for listener in group
        if listener.sink is not None and listener.direct and listener.sent == version - 1
    ]
    if not ready:
        return list(group)
    recent = audiences.recent(table_id, version)
    if recent is None or recent[1] != version:
        return list(group)
    table = recent[0]
    entry = table.log[-1] if table.log else None
    if entry is None or entry["v"] != version:
        return list(group)
    chosen = set(ready)
    rest = [listener for listener in group if listener not in chosen]
    # The table's people first: they play on from this push; spectators only watch.
    ready.sort(key=_spectator)
    change = Change(audiences, table, entry)
    rest.extend(change.write(ready[:BATCH]))
    if len(ready) > BATCH:
        asyncio.get_running_loop().call_soon(change.later, ready[BATCH:])
    return rest


def _spectator(listener: Listener) -> bool:
    return listener.bearer is None


class Change:
    """One change's frames, per audience, written to listeners."""

    __slots__ = ("audiences", "entry", "table", "version")

    def __init__(self, audiences: Audiences, table: Table, entry: dict[str, Any]) -> None:
        self.audiences, self.table, self.entry = audiences, table, entry
        self.version: int = entry["v"]

    def later(self, listeners: list[Listener]) -> None:
        """The next batch, in a later turn of the loop (a stream may have moved on)."""
        for listener in self.write(listeners[:BATCH]):
            listener.ring(self.version)
        if len(listeners) > BATCH:
            asyncio.get_running_loop().call_soon(self.later, listeners[BATCH:])

    def write(self, listeners: Iterable[Listener]) -> list[Listener]:
        """Write the change to each listener that can take it now: those that could not."""
        version, missed = self.version, []
        audiences, table, entry = self.audiences, self.table, self.entry
        for listener in listeners:
            sink = listener.sink
            if (
                sink is not None
                and listener.sent == version - 1
                and not listener.delivering
                and not listener.gone
                and (push := audiences.push_for(table, entry, listener.bearer)) is not None
                and sink(push)
            ):
                listener.sent = version
                listener.next_beat()
                audiences.wrote()
            elif listener.sent < version:
                missed.append(listener)
        return missed
