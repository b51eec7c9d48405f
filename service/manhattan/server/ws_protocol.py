"""uvicorn's sans-I/O websockets protocol, reading on while the app keeps up.

uvicorn's ``WebSocketsSansIOProtocol`` stops reading the connection after every message it
hands to the app and starts again when the app takes it: two ``epoll_ctl`` calls a message,
some 4 % of the service's time with 200 tables played over their sockets (a move is a message).
This subclass stops reading only once ``QUEUED_MESSAGES`` messages wait for the app (as the
older ``websockets`` protocol did with its queue), so a client that sends faster than the app
reads still holds at most that many messages (each at most ``ws_max_size``) in the server.
"""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: Messages a connection may have waiting for the app before the server stops reading it.
QUEUED_MESSAGES = 4


class QueuedWebSocketProtocol(WebSocketsSansIOProtocol):
    """``WebSocketsSansIOProtocol`` that pauses reading at ``QUEUED_MESSAGES`` waiting."""

    def send_receive_event_to_app(self) -> None:
        paused = self.read_paused
        self.read_paused = True  # (the base class pauses unless it is paused already)
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= QUEUED_MESSAGES:
            self.read_paused = True
            self.transport.pause_reading()
