"""One pushed event, shared by every receiver of its audience: projected once and encoded at
once (the SSE frame, with msgspec), then kept as bytes only.

Kept as bytes on purpose: a busy replica keeps some 16 versions' pushes per table and
audience, and a move's push carries the view after it. Kept as objects (dicts and lists) they
were most of the objects the cyclic garbage collector walked on every collection, a third of
a table move's CPU with 200 tables playing; bytes are not walked at all.
"""

from __future__ import annotations

from typing import Any

import msgspec

#: An SSE comment: keeps idle connections (and proxies) open.
HEARTBEAT_FRAME = b": heartbeat\r\n\r\n"

#: What a move's push sheds once a newer one is kept (the view after it, its legal moves).
HEAVY_KEYS = ("view", "moves")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode


class Push:
    """A table event ``(id=version, event, data)`` as its SSE frame."""

    __slots__ = ("_lean", "event", "frame", "id")

    def __init__(self, id: int, event: str, data: dict[str, Any], *, kept: bool = False) -> None:
        self.id = id
        self.event = event
        self.frame: bytes = _frame(id, event, _encode(data))
        #: For a push the hub keeps (``kept``), the frame without the heavy keys, when it has
        #: any (``lean``); a snapshot, one receiver's, is never made lean.
        self._lean: bytes | None = None
        if kept and any(key in data for key in HEAVY_KEYS):
            light = {k: v for k, v in data.items() if k not in HEAVY_KEYS}
            self._lean = _frame(id, event, _encode(light))

    @property
    def data(self) -> Any:
        """The event's data, decoded from the frame (a new object each time: GraphQL's
        subscribers need objects, the SSE streams only the frame)."""
        start = len(b"event: \r\ndata: ") + len(self.event)
        end = len(self.frame) - len(b"\r\nid: %d\r\n\r\n" % self.id)
        return _decode(self.frame[start:end])

    def lean(self) -> Push:
        """This push without the heavy keys (itself when it has none)."""
        if self._lean is None:
            return self
        push = Push.__new__(Push)
        push.id, push.event, push.frame, push._lean = self.id, self.event, self._lean, None
        return push

    def __repr__(self) -> str:
        return f"Push({self.id}, {self.event!r})"


def _frame(id: int, event: str, payload: bytes) -> bytes:
    return b"event: %s\r\ndata: %s\r\nid: %d\r\n\r\n" % (event.encode(), payload, id)
