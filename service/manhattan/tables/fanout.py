"""A change's public push written straight to the spectators' connections.

The usual way a push reaches a stream is the stream's own task: rung, it wakes, looks at the
table, takes the pushes the hub built and writes each frame through the ASGI ``send`` chain.
For one stream that is cheap; for a crowd on one public table it was some 20 µs a spectator
and a move, most of it waking tasks and passing messages down the chain, not writing.

Here the hub writes a change made in this process (the table is at hand, no read) to every
spectator that is up to date, in batches: the frame is built once, each write is one call on
the connection (``sink``, made by the transport: ``api/rest/sse.py``). Everything else takes
the usual way, rung: a seat (its view is its own), a spectator that is behind, busy writing,
or whose connection is not taking data now (``sink`` answers False), and any change this
process did not make.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .projection import SPECTATOR

if TYPE_CHECKING:
    from .hub import Hub, Listener

#: Spectators written to in one go; the rest in later turns of the event loop, so that a
#: crowd's fan-out does not hold up other requests for long.
BATCH = 200


def write_direct(hub: Hub, table_id: str, version: int, group: set[Listener]) -> list[Listener]:
    """Write version ``version`` of ``table_id`` to the up-to-date public spectators of
    ``group``: the listeners left to ring (all of them when the change is not at hand)."""
    ready = [
        listener
        for listener in group
        if listener.sink is not None and listener.public and listener.sent == version - 1
    ]
    if not ready:
        return list(group)
    recent = hub.tables.recent(table_id, version)
    if recent is None or recent[1] != version:
        return list(group)
    table = recent[0]
    entry = table.log[-1] if table.log else None
    if entry is None or entry["v"] != version or not table.public:
        return list(group)
    (push,) = hub.pushes(table, [entry], SPECTATOR)
    chosen = set(ready)
    rest = [listener for listener in group if listener not in chosen]
    rest.extend(_write(hub, push.frame, version, ready[:BATCH]))
    if len(ready) > BATCH:
        asyncio.get_running_loop().call_soon(_later, hub, push.frame, version, ready[BATCH:])
    return rest


def _later(hub: Hub, frame: bytes, version: int, listeners: list[Listener]) -> None:
    """The next batch, in a later turn of the loop (a stream may have moved on meanwhile)."""
    for listener in _write(hub, frame, version, listeners[:BATCH]):
        listener.ring(version)
    if len(listeners) > BATCH:
        asyncio.get_running_loop().call_soon(_later, hub, frame, version, listeners[BATCH:])


def _write(hub: Hub, frame: bytes, version: int, listeners: Iterable[Listener]) -> list[Listener]:
    """Write ``frame`` to each listener that can take it now: those that could not."""
    missed = []
    for listener in listeners:
        sink = listener.sink
        if (
            sink is not None
            and listener.sent == version - 1
            and not listener.delivering
            and not listener.gone
            and sink(frame)
        ):
            listener.sent = version
            listener.next_beat()
            hub.direct_writes += 1
        elif listener.sent < version:
            missed.append(listener)
    return missed
