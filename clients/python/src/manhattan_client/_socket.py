"""A table's socket (``/v1/tables/{id}/socket``, DESIGN §9): the table's events and a seat's
moves and chat on one WebSocket, so a program plays with no HTTP request a turn.

Each event is a text message ``{"event": "move", "id": 12, "data": {...}}`` (the stream's
events, typed by ``TableEvent.of`` as ``table_events`` types them); the seat sends
``{"type": "move", ...}`` and ``{"type": "chat", ...}``, each answered in the order sent by an
``ack`` or an ``error`` (the socket stays open). One reader task takes every message: answers
resolve the oldest waiting ``move``/``chat`` call, events go to a queue that ``events()``
reads, so the events that come while a move waits for its ack keep their order. A refused
socket gets one ``error`` message and a close with code 4000 + the HTTP status.

The ``websockets`` library is an optional dependency (``manhattan-client[socket]``), imported
when a socket opens.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import httpx

from manhattan_client._base_errors import (
    ManhattanClientError,
    TransportError,
    UnexpectedResponseError,
)
from manhattan_client._calls import MoveLike, move_wire
from manhattan_client._events import ends_game
from manhattan_client._exceptions import error_from_response
from manhattan_client._platforms import KEY_HEADER
from manhattan_client._table_calls import new_move_id, table_path
from manhattan_client._tables import TableEvent

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

#: The largest message taken from the service (a snapshot carries the whole view).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
#: A refusal's close code is this plus the HTTP status (4404, 4401, 4429...).
REFUSED = 4000
#: ``ServiceError.status`` of an error answered on an open socket, which carries no HTTP status.
NO_STATUS = 0


@dataclass(slots=True)
class _Waiting:
    """A sent message waiting for its answer."""

    kind: str
    move_id: str | None
    answer: asyncio.Future[dict[str, Any]]


class _End:
    """The queue's last item: why the events ended (None: closed by this side)."""

    def __init__(self, error: ManhattanClientError | None) -> None:
        self.error = error


def _connect_function() -> Any:
    try:
        from websockets.asyncio.client import connect
    except ImportError as exc:
        raise ImportError(
            "a table socket needs the websockets library (>= 13): "
            "pip install 'manhattan-client[socket]'"
        ) from exc
    return connect


class TableSocket:
    """``async with client.table_socket(table_id, token=...) as socket:`` one table's socket.

    - ``async for event in socket.events()``: typed events (``Snapshot``, ``MovePlayed``, ...)
      as ``table_events`` yields them, ending after the game's ``over`` unless
      ``until_over=False``; a socket the service closes or that breaks ends them with
      ``TransportError`` (open another with ``last_event_id=socket.last_event_id``).
    - ``await socket.move(move, version=v)``: the table's version after it (the ``ack``); a
      refusal raises the class of its code as ``table_move`` does (``StaleVersionError.table``),
      with ``status`` 0, since the socket carries no HTTP status.
    - ``await socket.chat(text)``: the chat's version.

    Opening waits for the first event, so a refused socket raises its coded exception there
    (``BadSeatError``, ``TableNotFoundError``...); with ``last_event_id`` nothing may come
    until the table changes, so a refusal is raised by ``events()``, ``move`` or ``chat``.
    Events are queued until read: a program that never reads them keeps them all.
    """

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str],
        *,
        last_event_id: str | None,
        open_timeout: float,
    ) -> None:
        self.url = url
        self._headers = {k: v for k, v in headers.items() if k.lower() != "user-agent"}
        self._user_agent = next((v for k, v in headers.items() if k.lower() == "user-agent"), None)
        self._open_timeout = open_timeout
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._events: asyncio.Queue[TableEvent | _End] = asyncio.Queue()
        self._waiting: collections.deque[_Waiting] = collections.deque()
        self._sending = asyncio.Lock()
        self._first: asyncio.Future[None] | None = None
        self._refusal: dict[str, Any] | None = None
        self._ended: ManhattanClientError | None = None
        self._closing = False
        #: The version of the last event read (where another socket may resume).
        self.last_event_id = last_event_id

    async def __aenter__(self) -> TableSocket:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Connect and (unless resuming) wait for the first event, ``open_timeout`` seconds at
        most for each: raises the refusal."""
        connect = _connect_function()
        if self.last_event_id is None:
            self._first = asyncio.get_running_loop().create_future()
        try:
            self._ws = await connect(
                self.url,
                additional_headers=self._headers,
                user_agent_header=self._user_agent,
                open_timeout=self._open_timeout,
                max_size=MAX_MESSAGE_BYTES,
            )
        except Exception as exc:  # OSError, a refused handshake, a timeout
            raise TransportError(f"cannot open the table's socket {self.url}: {exc}") from exc
        self._reader = asyncio.create_task(self._read(self._ws))
        if self._first is not None:
            try:
                await asyncio.wait_for(self._first, self._open_timeout)
            except TimeoutError:
                await self.close()
                waited = f"{self._open_timeout} s"
                raise TransportError(f"no first event on {self.url} in {waited}") from None
            except BaseException:
                await self.close()
                raise

    async def close(self) -> None:
        """Close the socket; calls still waiting for an answer raise ``TransportError``."""
        self._closing = True
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await self._reader

    async def events(self, *, until_over: bool = True) -> AsyncIterator[TableEvent]:
        """The table's events in the order sent, as they come."""
        while True:
            item = await self._events.get()
            if isinstance(item, _End):
                self._events.put_nowait(item)  # every later read ends the same way
                if item.error is not None:
                    raise item.error
                return
            if item.version is not None:
                self.last_event_id = str(item.version)
            yield item
            if until_over and ends_game(item):
                return

    async def move(self, move: MoveLike, *, version: int, move_id: str | None = None) -> int:
        """Play ``move`` against table ``version``; the new version (the ack's)."""
        move_id = move_id or new_move_id()
        message = {"type": "move", "version": version, "move": move_wire(move), "moveId": move_id}
        return _version(await self._ask(message, move_id))

    async def chat(self, text: str) -> int:
        """Say ``text`` at the table; the chat event's version."""
        return _version(await self._ask({"type": "chat", "text": text}, None))

    async def _ask(self, message: dict[str, Any], move_id: str | None) -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed

        if self._ws is None:
            raise RuntimeError("the table socket is not open (use it with 'async with')")
        text = json.dumps(message)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        async with self._sending:  # answers come in the order sent: queue and send as one
            if self._ended is not None or self._closing:
                raise self._ended or TransportError("the table socket is closed")
            self._waiting.append(_Waiting(message["type"], move_id, answer))
            # (a closed connection: the reader sees it too, and fails every waiting call)
            with contextlib.suppress(ConnectionClosed):
                await self._ws.send(text)
        return await answer

    async def _read(self, ws: ClientConnection) -> None:
        """Every message of the socket, until it closes; then everything waiting ends."""
        from websockets.exceptions import ConnectionClosed

        error: ManhattanClientError | None = None
        try:
            async for text in ws:
                self._take(_message(text))
        except ConnectionClosed:
            pass  # how it closed is read below
        except Exception as exc:  # a message not as documented: end here, loudly
            error = (
                exc
                if isinstance(exc, ManhattanClientError)
                else UnexpectedResponseError(f"a table socket message that fails to read: {exc!r}")
            )
            await ws.close()
        if error is None:
            error = self._closed_error(ws)
        self._end(error)

    def _take(self, message: dict[str, Any]) -> None:
        kind, data = message["event"], message["data"]
        if kind == "ack" or (kind == "error" and "type" in data):
            self._answer(kind, data)
        elif kind == "error":
            self._refusal = data  # the socket closes next, with the status in its code
        else:
            version = message.get("id")
            event = TableEvent.of(kind, version if isinstance(version, int) else None, data)
            self._events.put_nowait(event)
            if self._first is not None and not self._first.done():
                self._first.set_result(None)

    def _answer(self, kind: str, data: dict[str, Any]) -> None:
        if not self._waiting:
            raise UnexpectedResponseError(f"an {kind} on the table socket that answers nothing")
        waiting = self._waiting.popleft()
        if data.get("type") not in (waiting.kind, None) or data.get("moveId") != waiting.move_id:
            wrong = UnexpectedResponseError(
                f"the table socket answered {data!r} to a {waiting.kind} ({waiting.move_id})"
            )
            if not waiting.answer.done():
                waiting.answer.set_exception(wrong)
            raise wrong
        if waiting.answer.done():  # its caller was cancelled
            return
        if kind == "ack":
            waiting.answer.set_result(data)
        else:
            waiting.answer.set_exception(error_from_response(NO_STATUS, data))

    def _closed_error(self, ws: ClientConnection) -> ManhattanClientError | None:
        code, reason = ws.close_code, ws.close_reason
        if self._refusal is not None and code is not None and REFUSED <= code < REFUSED + 1000:
            return error_from_response(code - REFUSED, self._refusal)
        if self._closing and self._refusal is None:
            return None
        return TransportError(f"the table socket closed (code {code}, {reason or 'no reason'})")

    def _end(self, error: ManhattanClientError | None) -> None:
        self._ended = error or TransportError("the table socket is closed")
        while self._waiting:
            waiting = self._waiting.popleft()
            if not waiting.answer.done():
                waiting.answer.set_exception(self._ended)
        if self._first is not None and not self._first.done():
            self._first.set_exception(self._ended)
        self._events.put_nowait(_End(error))


def socket_url(base_url: httpx.URL, table_id: str, last_event_id: str | None) -> str:
    """The socket's ``ws://`` (``wss://``) address under the client's base URL."""
    path = base_url.raw_path.decode().split("?")[0].rstrip("/") + table_path(table_id, "/socket")
    query = "" if last_event_id is None else "?" + urlencode({"lastEventId": last_event_id})
    scheme = {"http": "ws", "https": "wss"}.get(base_url.scheme, base_url.scheme)
    return str(base_url.copy_with(scheme=scheme, raw_path=(path + query).encode()))


def socket_headers(client_headers: Mapping[str, str], token: str | None) -> dict[str, str]:
    """The opening request's headers: the seat's bearer, the client's user agent and a
    platform's key (the client's other headers are for HTTP requests)."""
    kept = ("user-agent", KEY_HEADER.lower())
    headers = {k: v for k, v in client_headers.items() if k.lower() in kept}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return headers


def _message(text: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(text)
    except ValueError:
        raise UnexpectedResponseError("a table socket message that is not JSON") from None
    if not (
        isinstance(message, dict)
        and isinstance(message.get("event"), str)
        and isinstance(message.get("data"), dict)
    ):
        raise UnexpectedResponseError(f"a table socket message without its event: {text!r:.200}")
    return message


def _version(answer: dict[str, Any]) -> int:
    version = answer.get("version")
    if not isinstance(version, int):
        raise UnexpectedResponseError(f"an ack without the table's version: {answer!r}")
    return version
