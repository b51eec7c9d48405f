"""Server-Sent Events, parsed line by line as the HTML standard says (§9.2.6).

The parser is pure (no I/O), so the sync and async streams share it and tests feed it lines.
Comment lines (``: ping``, the service's heartbeat) dispatch nothing; they only prove the
connection is alive, which is why ``feed`` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One dispatched event: ``event`` defaults to ``"message"``; ``id`` is the last id seen."""

    event: str
    data: str
    id: str | None
    retry: int | None = None


class SSEParser:
    """Feed it lines (without their line ending); it returns an event when a blank line ends one.

    ``last_event_id`` survives between events as the standard requires: it is what a reconnect
    sends as ``Last-Event-ID``. An ``id:`` line counts only once its event is dispatched, so an
    event cut off by a broken connection is asked for again.
    """

    def __init__(self) -> None:
        self.last_event_id: str | None = None
        self._id: str | None = None
        self.retry: int | None = None
        self._event = ""
        self._data: list[str] = []
        self._first_line = True

    def feed(self, line: str) -> ServerSentEvent | None:
        if self._first_line:
            self._first_line = False
            line = line.removeprefix("\ufeff")
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isdigit():
            self.retry = int(value)
        return None  # any other field is ignored

    def _dispatch(self) -> ServerSentEvent | None:
        if self._id is not None:
            self.last_event_id = self._id
        event, data = self._event or "message", self._data
        self._event, self._data = "", []
        if not data:
            return None  # the standard drops an event without data
        return ServerSentEvent(event, "\n".join(data), self.last_event_id, self.retry)

    def reset(self) -> None:
        """Forget a half-received event (the connection broke mid-event); keep the last id."""
        self._event, self._data, self._id = "", [], None
        self._first_line = True
