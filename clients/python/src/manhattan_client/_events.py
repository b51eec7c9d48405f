"""A table's live events (``GET /v1/tables/{id}/events``) as an iterator that reconnects.

Each connection asks for a fresh single-use ticket when the stream is a seat's (DESIGN §9: a
ticket is good once), sends the last event id it saw as ``Last-Event-ID`` so the service resumes
where it broke off (or answers the gap with a ``snapshot``), and reads the service's heartbeat
comments only as proof the connection lives: a stream silent for longer than ``idle_timeout`` is
taken for dead and reconnected. Consecutive failed connections back off as the client's
``RetryPolicy`` says and end in ``TransportError``; an error answer (``TABLE_NOT_FOUND``,
``BAD_SEAT``...) is raised at once. The iterator ends after the game's ``over`` event (or a
snapshot of a finished table) unless asked to keep going.

``SyncTableEvents`` and ``AsyncTableEvents`` share ``_Stream``, which holds everything but I/O.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator
from typing import Any

import httpx

from manhattan_client._base_errors import TransportError, UnexpectedResponseError
from manhattan_client._exceptions import error_from_response
from manhattan_client._retry import RetryPolicy
from manhattan_client._sse import SSEParser
from manhattan_client._table_calls import table_path
from manhattan_client._tables import Snapshot, TableEvent

#: Longer than the service's heartbeat interval (15 s) by a safe margin.
DEFAULT_IDLE_TIMEOUT = 45.0


def ends_game(event: TableEvent) -> bool:
    """The game's ``over`` event, or a snapshot of a finished table (nothing more will come)."""
    return event.kind == "over" or (isinstance(event, Snapshot) and event.table.over)


class _Stream:
    """The I/O-free part: request headers, line parsing, when to stop, how long to wait."""

    def __init__(
        self,
        table_id: str,
        *,
        last_event_id: str | None,
        retry: RetryPolicy,
        until_over: bool,
        rng: random.Random | None = None,
    ) -> None:
        self.path = table_path(table_id, "/events")
        self.parser = SSEParser()
        self.parser.last_event_id = last_event_id
        self.retry = retry
        self.until_over = until_over
        self._finished = False
        self.failures = 0
        self._rng = rng or random.Random()

    def headers(self) -> dict[str, str]:
        headers = {"accept": "text/event-stream", "cache-control": "no-cache"}
        if self.parser.last_event_id is not None:
            headers["last-event-id"] = self.parser.last_event_id
        return headers

    def opened(self, response: httpx.Response) -> None:
        kind = response.headers.get("content-type", "")
        if not kind.startswith("text/event-stream"):
            raise UnexpectedResponseError(
                f"the events answer is {kind or 'untyped'}, not text/event-stream",
                status=response.status_code,
            )
        self.parser.reset()

    def line(self, line: str) -> TableEvent | None:
        sse = self.parser.feed(line)
        if sse is None:
            return None
        self.failures = 0  # the connection delivered: the next break starts a fresh backoff
        event = TableEvent.from_sse(sse)
        if self.until_over and ends_game(event):
            self._finished = True
        return event

    def next_delay(self, cause: Exception | None) -> float:
        """The pause before reconnecting; raises when the retries are spent."""
        self.failures += 1
        delays = list(self.retry.delays(self._rng))
        if self.failures > len(delays):
            detail = f": {cause}" if cause is not None else " (the service closed it)"
            raise TransportError(f"the table's event stream broke{detail}") from cause
        return delays[self.failures - 1]

    def finished(self) -> bool:
        """The game is over (and the caller asked to stop there)."""
        return self._finished

    @property
    def last_event_id(self) -> str | None:
        return self.parser.last_event_id


def _error(response: httpx.Response) -> Exception:
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_from_response(response.status_code, body, dict(response.headers))


class SyncTableEvents:
    """``for event in client.table_events(...)``: a reconnecting iterator of ``TableEvent``.

    Use it as a context manager (or call ``close``) to drop the connection early;
    ``last_event_id`` is where a later stream may resume.
    """

    def __init__(
        self,
        http: httpx.Client,
        stream: _Stream,
        ticket: Callable[[], str] | None,
        idle_timeout: float,
        sleep: Callable[[float], None],
    ) -> None:
        self._http = http
        self._stream = stream
        self._ticket = ticket
        self._timeout = httpx.Timeout(idle_timeout, connect=min(idle_timeout, 10.0))
        self._sleep = sleep
        self._events = self._run()

    @property
    def last_event_id(self) -> str | None:
        return self._stream.last_event_id

    def __iter__(self) -> Iterator[TableEvent]:
        return self

    def __next__(self) -> TableEvent:
        return next(self._events)

    def __enter__(self) -> SyncTableEvents:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._events.close()

    def _run(self) -> Generator[TableEvent, None, None]:
        stream = self._stream
        while not stream.finished():
            cause: Exception | None = None
            params = {"ticket": self._ticket()} if self._ticket is not None else None
            try:
                with self._http.stream(
                    "GET",
                    stream.path,
                    params=params,
                    headers=stream.headers(),
                    timeout=self._timeout,
                ) as response:
                    if response.status_code >= 400:
                        response.read()
                        raise _error(response)
                    stream.opened(response)
                    for line in response.iter_lines():
                        event = stream.line(line)
                        if event is not None:
                            yield event
                            if stream.finished():
                                return
            except httpx.TransportError as exc:
                cause = exc
            self._sleep(stream.next_delay(cause))


class AsyncTableEvents:
    """``async for event in client.table_events(...)``: the async twin of ``SyncTableEvents``."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        stream: _Stream,
        ticket: Callable[[], Awaitable[str]] | None,
        idle_timeout: float,
        sleep: Callable[[float], Awaitable[None]],
    ) -> None:
        self._http = http
        self._stream = stream
        self._ticket = ticket
        self._timeout = httpx.Timeout(idle_timeout, connect=min(idle_timeout, 10.0))
        self._sleep = sleep
        self._events = self._run()

    @property
    def last_event_id(self) -> str | None:
        return self._stream.last_event_id

    def __aiter__(self) -> AsyncIterator[TableEvent]:
        return self

    async def __anext__(self) -> TableEvent:
        return await self._events.__anext__()

    async def __aenter__(self) -> AsyncTableEvents:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._events.aclose()

    async def _run(self) -> AsyncGenerator[TableEvent, None]:
        stream = self._stream
        while not stream.finished():
            cause: Exception | None = None
            params: dict[str, Any] | None = None
            if self._ticket is not None:
                params = {"ticket": await self._ticket()}
            try:
                async with self._http.stream(
                    "GET",
                    stream.path,
                    params=params,
                    headers=stream.headers(),
                    timeout=self._timeout,
                ) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        raise _error(response)
                    stream.opened(response)
                    async for line in response.aiter_lines():
                        event = stream.line(line)
                        if event is not None:
                            yield event
                            if stream.finished():
                                return
            except httpx.TransportError as exc:
                cause = exc
            await self._sleep(stream.next_delay(cause))
