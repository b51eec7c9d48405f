"""Reading Server-Sent Events (HTML §9.2.6) on the client side of a table's stream: the line
parser that ``manhattan play --table`` and ``manhattan bench tables`` share.

The Python client (``manhattan_client._sse``) carries the same parser: it is a separate
distribution that depends on httpx alone, and a plain install of the service has neither, so
neither can import the other. ``tests/clients/test_python_client_sse.py`` feeds both the same
streams and holds them to the same events.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Event:
    event: str
    data: str
    id: str | None


class SSEParser:
    """Feed it lines without their line ending; a blank line dispatches the event. Comments
    (the service's heartbeats) dispatch nothing. An ``id:`` counts once its event is dispatched,
    so ``last_event_id`` is what a reconnect sends as ``Last-Event-ID``."""

    def __init__(self, last_event_id: str | None = None) -> None:
        self.last_event_id = last_event_id
        self._id: str | None = None
        self._event = ""
        self._data: list[str] = []
        self._first_line = True

    def feed(self, line: str) -> Event | None:
        if self._first_line:  # a byte order mark may open the stream (HTML §9.2.6)
            self._first_line = False
            line = line.removeprefix("\ufeff")
        if line == "":
            if self._id is not None:
                self.last_event_id = self._id
            event, data = self._event or "message", self._data
            self._event, self._data = "", []
            return Event(event, "\n".join(data), self.last_event_id) if data else None
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def reset(self) -> None:
        """Forget a half-received event (its connection broke); the last id stays."""
        self._event, self._data, self._id = "", [], None
        self._first_line = True
