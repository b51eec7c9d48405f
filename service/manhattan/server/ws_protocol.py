"""uvicorn's sans-I/O websockets protocol, reading on while the app keeps up, and reading a
client's plain text frames itself.

uvicorn's ``WebSocketsSansIOProtocol`` stops reading the connection after every message it
hands to the app and starts again when the app takes it: two ``epoll_ctl`` calls a message,
some 4 % of the service's time with 200 tables played over their sockets (a move is a message).
This subclass stops reading only once ``QUEUED_MESSAGES`` messages wait for the app (as the
older ``websockets`` protocol did with its queue), so a client that sends faster than the app
reads still holds at most that many messages (each at most ``ws_max_size``) in the server.

A chunk of data that is nothing but whole text frames, arriving while ``websockets``' parser
waits at a frame's start on an open connection without extensions, is read by
``ws_frames.client_texts`` and its messages queued for the app as uvicorn queues them; any
other chunk goes through ``websockets`` as before. The parser is known to wait at a frame's
start when it is suspended in its stream's ``at_eof`` (between frames, nothing buffered):
asked of the generator, not assumed, so a ``websockets`` that parses otherwise only loses the
shortcut.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State
from websockets.streams import StreamReader

from manhattan.server.ws_frames import client_texts

#: Messages a connection may have waiting for the app before the server stops reading it.
QUEUED_MESSAGES = 4

#: Where ``websockets``' parser waits between frames (``Protocol.parse``).
_BETWEEN_FRAMES = StreamReader.at_eof.__code__
#: An attribute this ``websockets`` does not have (an older one names it otherwise).
_MISSING = object()


class QueuedWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` that pauses reading at ``QUEUED_MESSAGES`` waiting, and
    reads whole text frames itself when ``websockets``' parser is between frames."""

    def data_received(self, data: bytes) -> None:
        texts = self._whole_texts(data)
        if texts is None:
            super().data_received(data)
            return
        for text in texts:
            if self.close_sent:  # (uvicorn's rule: past the app's close, messages are dropped)
                return
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
            self._pause_when_full(self.read_paused)

    def _whole_texts(self, data: bytes) -> list[str] | None:
        """``data``'s texts when ``ws_frames`` may read it (see the module's docstring)."""
        conn = self.conn
        if (
            not self.handshake_complete
            or self.close_sent
            or conn.state is not State.OPEN
            or conn.extensions
            or getattr(conn, "current_size", _MISSING) is not None  # (a fragment under way)
            or conn.parser_exc is not None
        ):
            return None
        if _innermost(conn.parser) is not _BETWEEN_FRAMES:
            return None
        limit = getattr(conn, "max_message_size", _MISSING)
        if limit is _MISSING or getattr(conn, "max_fragment_size", None) is not None:
            return None
        return client_texts(data, limit)  # type: ignore[arg-type]

    def send_receive_event_to_app(self) -> None:
        paused = self.read_paused
        self.read_paused = True  # (the base class pauses unless it is paused already)
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        self._pause_when_full(paused)

    def _pause_when_full(self, paused: bool) -> None:
        if not paused and self.queue.qsize() >= QUEUED_MESSAGES:
            self.read_paused = True
            self.transport.pause_reading()


def _innermost(generator: Any) -> Any:
    """The code of the generator ``generator`` waits in, through its ``yield from``s (the
    server's handshake parser, then the frames' parser, then what that reads with)."""
    for _ in range(8):
        inner = getattr(generator, "gi_yieldfrom", None)
        if inner is None:
            return getattr(generator, "gi_code", None)
        generator = inner
    return None
