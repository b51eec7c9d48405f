"""One pushed event, shared by every receiver of its audience: projected once, and encoded once
(the SSE frame, with msgspec) the first time a stream writes it."""

from __future__ import annotations

from typing import Any

import msgspec

#: An SSE comment: keeps idle connections (and proxies) open.
HEARTBEAT_FRAME = b": heartbeat\r\n\r\n"

_encode = msgspec.json.Encoder().encode


class Push:
    """A table event ``(id=version, event, data)``. ``data`` is shared: never modify it."""

    __slots__ = ("_frame", "data", "event", "id")

    def __init__(self, id: int, event: str, data: dict[str, Any]) -> None:
        self.id = id
        self.event = event
        self.data = data
        self._frame: bytes | None = None

    @property
    def frame(self) -> bytes:
        """The event as a Server-Sent Events frame, encoded on first use."""
        if self._frame is None:
            self._frame = b"event: %s\r\ndata: %s\r\nid: %d\r\n\r\n" % (
                self.event.encode(),
                _encode(self.data),
                self.id,
            )
        return self._frame

    def __repr__(self) -> str:
        return f"Push({self.id}, {self.event!r})"
