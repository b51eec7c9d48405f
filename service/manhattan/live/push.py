"""One pushed event, shared by every receiver of its audience: projected once and encoded at
once (its data's JSON, with msgspec), then kept as bytes only.

Kept as bytes on purpose: a busy replica keeps some versions' pushes per table and audience
(``Hub.pushes``), and a move's push carries the view after it. Kept as objects (dicts and
lists) they were most of the objects the cyclic garbage collector walked on every collection,
a third of a table move's CPU with 200 tables playing; bytes are not walked at all.

A push keeps its data's JSON until a stream asks for its SSE frame, and then the frame only:
a table socket's message is made from the data without a frame between (``parts``), and an
SSE stream's frame is made once however many streams write it.
"""

from __future__ import annotations

from typing import Any

import msgspec

#: An SSE comment: keeps idle connections (and proxies) open.
HEARTBEAT_FRAME = b": heartbeat\r\n\r\n"

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
#: A frame's parts (``_frame``): ``event: E``, ``data: D``, ``id: N``, each line ended by CRLF.
_EVENT, _DATA, _ID, _END = b"event: ", b"\r\ndata: ", b"\r\nid: ", b"\r\n\r\n"


class Push:
    """A table event ``(id=version, event, data)``: its data's JSON, or its SSE frame."""

    __slots__ = ("_frame", "_payload", "event", "id")

    def __init__(
        self, id: int, event: str, data: dict[str, Any] | None, payload: bytes | None = None
    ) -> None:
        self.id = id
        self.event = event
        self._payload: bytes | None = _encode(data) if payload is None else payload
        self._frame: bytes | None = None

    @staticmethod
    def encoded(id: int, event: str, payload: bytes) -> Push:
        """The push of data already encoded (``projection.MovePayloads``)."""
        return Push(id, event, None, payload)

    @property
    def frame(self) -> bytes:
        """The SSE frame, made on first use; the data's JSON is then not kept beside it."""
        frame = self._frame
        if frame is None:
            assert self._payload is not None
            frame = self._frame = _frame(self.id, self.event, self._payload)
            self._payload = None
        return frame

    def parts(self) -> tuple[bytes | memoryview, bytes | memoryview, bytes | memoryview]:
        """The event name, the data's JSON and the id (digits), copying nothing that is kept:
        what the table socket puts in a message of its own."""
        payload = self._payload
        if payload is None:
            return frame_views(self.frame)
        return self.event.encode(), payload, b"%d" % self.id

    @property
    def data(self) -> Any:
        """The event's data, decoded (a new object each time: GraphQL's subscribers need
        objects, the streams only bytes)."""
        return _decode(self.parts()[1])

    def __repr__(self) -> str:
        return f"Push({self.id}, {self.event!r})"


def _frame(id: int, event: str, payload: bytes) -> bytes:
    return b"%s%s%s%s%s%d%s" % (_EVENT, event.encode(), _DATA, payload, _ID, id, _END)


def frame_views(frame: bytes) -> tuple[memoryview, memoryview, memoryview]:
    """A push's SSE frame cut into its event, its data (JSON) and its id (digits), as views
    into the frame, copying nothing. (JSON holds no raw line break, an event name no ``data:``
    line.)"""
    data_at = frame.index(_DATA)
    id_at = frame.rindex(_ID)
    whole = memoryview(frame)
    return (
        whole[len(_EVENT) : data_at],
        whole[data_at + len(_DATA) : id_at],
        whole[id_at + len(_ID) : -len(_END)],
    )
