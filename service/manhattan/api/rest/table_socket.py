"""``/v1/tables/{id}/socket``: one websocket for a table's events and a seat's moves.

The events are the table stream's (``GET .../events``), each one JSON text message
``{"event": "<name>", "id": <version>, "data": {...}}`` built from the bytes the hub encoded once
for the receiver's audience; the seat sends its moves and chat on the same socket, so a person
playing holds one connection and makes no HTTP request a turn (boardgame.io's shape):

- ``{"type": "move", "version": v, "move": {...}, "moveId": "..."}``: as ``POST .../moves``
  (the same compare-and-set, codes and idempotency by ``moveId``), answered
  ``{"event": "ack", "data": {"type": "move", "version": v, "moveId": ...}}``; the mover's view
  after it comes as everyone's does, in the ``move`` event (with the next mover's legal moves).
- ``{"type": "chat", "text": "..."}``: as ``POST .../chat``, answered with an ``ack``.
- Anything refused: ``{"event": "error", "data": {"code", "message", "type", "moveId", ...}}``
  (a ``STALE_VERSION`` carries the ``table`` as the seat sees it, as over HTTP); the socket
  stays open.

Who: ``?ticket=`` (``POST .../ticket``; a browser's websocket sends no header) or an
``Authorization: Bearer`` header names the seat; neither, a spectator of a public table (who
may send nothing). ``?lastEventId=`` resumes as on the stream. A socket the table refuses (no
such table, a bad seat, over the stream limits) is accepted, sent one ``error`` message and
closed with code 4000 + the HTTP status (4404, 4401, 4429, ...) and the code as the reason.
Each message counts against the client address's HTTP rate limit (``RATE_LIMITED``), chat
against the chat quota, and a message over ``MANHATTAN_MAX_BODY_BYTES`` closes the socket (1009).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from websockets.protocol import State

from manhattan.api.errors import INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
from manhattan.api.quotas import check_quota
from manhattan.api.rate_limit import charge_socket_message
from manhattan.api.rest.sse import DIRECT_WRITE_BACKLOG, SERVER_SEND_KEY
from manhattan.api.rest.stream import opened_stream
from manhattan.api.rest.tables import runtime
from manhattan.tables import (
    Bearer,
    Hangup,
    Push,
    TableError,
    TableRuntime,
)
from manhattan.wire.codes import CodedError

log = logging.getLogger("manhattan.api.socket")

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode
#: Close codes: a normal end, a message too big (RFC 6455), and a refusal (4000 + status).
NORMAL, TOO_BIG, REFUSED = 1000, 1009, 4000


def socket_message(push: Push) -> str:
    """A push's JSON message (``socket_text``)."""
    return socket_text(push).decode()


def socket_text(push: Push) -> bytes:
    """A push (``tables.Push.parts``) as the socket's message."""
    return b"".join(_message_parts(push))


def text_frame(push: Push) -> bytes:
    """A push as the socket's message in one final, unmasked text frame (RFC 6455 §5.2), made
    in one copy of its data (``socket_text`` and ``websockets``' framing made five, some 3 KB
    each for a move's push). Only for a connection without extensions (no compression): every
    client that did not ask for one, the bench's among them; browsers ask
    (``permessage-deflate``) and get ``websockets``' framing."""
    parts = _message_parts(push)
    return _text_frame(parts, sum(map(len, parts)))


def _message_parts(push: Push) -> tuple[bytes | memoryview, ...]:
    """``{"event":"<event>","id":<id>,"data":<data>}`` in pieces, the push's own as they are."""
    event, data, ident = push.parts()
    return (_OPEN, event, _ID_AT, ident, _DATA_AT, data, _CLOSE)


def _text_frame(parts: tuple[bytes | memoryview, ...], size: int) -> bytes:
    """One final, unmasked text frame of ``parts`` (``size`` bytes in all)."""
    if size < 126:
        head = bytes((0x81, size))
    elif size < 1 << 16:
        head = b"\x81\x7e" + size.to_bytes(2, "big")
    else:
        head = b"\x81\x7f" + size.to_bytes(8, "big")
    return b"".join((head, *parts))


#: A socket message's text around the push's event name, id and data (``socket_text``).
_OPEN, _ID_AT, _DATA_AT, _CLOSE = b'{"event":"', b'","id":', b',"data":', b"}"


def direct_sink(server_send: object) -> SocketWriter | None:
    """Where the hub may write a push of this socket itself (``tables/fanout.py``), as
    ``sse.direct_sink`` does for a stream. Leans on uvicorn's ``WebSocketsSansIOProtocol``
    (``conn``, ``transport``, ``writable``, ``close_sent``), which is why uvicorn is pinned below
    1.0; None under another server or protocol."""
    protocol: Any = getattr(server_send, "__self__", None)
    conn = getattr(protocol, "conn", None)
    transport = getattr(protocol, "transport", None)
    writable = getattr(protocol, "writable", None)
    if conn is None or transport is None or not isinstance(writable, asyncio.Event):
        return None
    if not hasattr(protocol, "close_sent") or not hasattr(conn, "data_to_send"):
        return None
    return SocketWriter(protocol)


class SocketWriter:
    """A table socket's messages written by the service itself, and the hub's sink for it.

    Without extensions, the frames of one turn of the event loop go out together at its end,
    in one write: the mover's push and the ``ack`` of its move are one system call, not two
    (some 13 µs each with 200 tables playing flat out: a fifth of a move's CPU went to the
    sockets' writes). With compression (``websockets``' framing: its compressor's state follows
    the order it framed in), each frame is written at once. Anything else written to the socket
    (the stream's own pushes, a close) comes after ``flush``.
    """

    __slots__ = ("_conn", "_frames", "_protocol", "_transport", "_writable")

    def __init__(self, protocol: Any) -> None:
        self._protocol, self._conn = protocol, protocol.conn
        self._transport, self._writable = protocol.transport, protocol.writable
        self._frames: list[bytes] = []

    def __call__(self, push: Push) -> bool:
        """A push (the hub's sink): False, writing nothing, when the socket is closing or not
        taking data now (the stream then writes the push itself)."""
        if not self._open() or self._transport.get_write_buffer_size() > DIRECT_WRITE_BACKLOG:
            return False
        if self._framed_here():
            self._add(text_frame(push))
        else:  # compressed: websockets' framing, in order
            self.flush()
            self._conn.send_text(socket_text(push))
            self._transport.write(b"".join(self._conn.data_to_send()))
        return True

    def text(self, message: bytes) -> bool:
        """``message`` (JSON) after the frames waiting, at the turn's end; False when the
        socket must send it itself (after ``flush``)."""
        if not self._open() or not self._framed_here():
            return False
        self._add(_text_frame((message,), len(message)))
        return True

    def flush(self) -> None:
        if self._frames:
            data = b"".join(self._frames)
            self._frames.clear()
            if not self._protocol.close_sent and not self._transport.is_closing():
                self._transport.write(data)

    def _add(self, frame: bytes) -> None:
        if not self._frames:
            _flushes.add(self)
        self._frames.append(frame)

    def _open(self) -> bool:
        """Taking messages now: neither side closing (``websockets`` refuses to frame for a
        closing connection), the transport writable."""
        return not (
            self._protocol.close_sent
            or self._conn.state is not State.OPEN
            or self._transport.is_closing()
            or not self._writable.is_set()
        )

    def _framed_here(self) -> bool:
        return not self._conn.extensions and not self._conn.expect_continuation_frame


class _Flushes:
    """The socket writers with frames waiting, flushed together at the end of the loop's turn:
    one callback a turn, not one a socket (a move's fan-out is five sockets, and each callback
    is a handle made, queued and run)."""

    __slots__ = ("_loop", "_waiting")

    def __init__(self) -> None:
        self._waiting: list[SocketWriter] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, writer: SocketWriter) -> None:
        loop = asyncio.get_running_loop()
        if not self._waiting or self._loop is not loop:  # (another loop's are gone with it)
            self._waiting, self._loop = [], loop
            loop.call_soon(self._flush)
        self._waiting.append(writer)

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        for writer in waiting:
            writer.flush()


_flushes = _Flushes()


async def table_socket(websocket: WebSocket) -> None:
    tid: str = websocket.path_params["id"]
    rt = runtime(websocket)
    hangup = Hangup()
    try:
        charge_socket_message(websocket)
        who, first, source = await opened_stream(websocket, hangup)
    except Exception as exc:
        await websocket.accept()
        await _refuse(websocket, exc)
        return
    await websocket.accept()
    server_send = websocket.scope.get(SERVER_SEND_KEY)
    writer = None if server_send is None else direct_sink(server_send())
    if hangup.listener is not None:
        hangup.listener.sink = writer
    reading = asyncio.create_task(_read(websocket, rt, tid, who, hangup, writer))
    try:
        item: Push | None = first
        del first
        while not hangup.gone:
            if item is not None:  # (heartbeats: the server's websocket pings keep it open)
                if writer is not None:
                    writer.flush()
                await websocket.send_text(socket_message(item))
            item = None  # (an idle socket holds no push while it waits for the next)
            item = await anext(source)
    except (StopAsyncIteration, WebSocketDisconnect, RuntimeError):  # (RuntimeError: sent
        pass  # after the reader closed the socket, for a message over the limit)
    finally:
        await source.aclose()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        if websocket.application_state == WebSocketState.CONNECTED:
            if writer is not None:
                writer.flush()
            with contextlib.suppress(Exception):
                await websocket.close(NORMAL)


async def _read(
    websocket: WebSocket,
    rt: TableRuntime,
    tid: str,
    who: Bearer | None,
    hangup: Hangup,
    writer: SocketWriter | None,
) -> None:
    """The client's messages, one after the other, each answered; the socket's end hangs up."""
    limit: int = websocket.app.state.settings.max_body_bytes
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            raw = text.encode() if text is not None else message.get("bytes") or b""
            if len(raw) > limit:
                if writer is not None:
                    writer.flush()
                await websocket.close(TOO_BIG, "PAYLOAD_TOO_LARGE")
                return
            answer = await _answer(websocket, rt, tid, who, raw)
            if writer is None or not writer.text(answer):
                if writer is not None:
                    writer.flush()
                await websocket.send_text(answer.decode())
    except (WebSocketDisconnect, RuntimeError):  # gone mid-send, or closed by the writer
        return
    finally:
        hangup()


async def _answer(
    websocket: WebSocket, rt: TableRuntime, tid: str, who: Bearer | None, raw: bytes
) -> bytes:
    asked: dict[str, Any] = {}
    kind: str | None = None
    try:
        charge_socket_message(websocket)
        asked = _request(raw)
        kind = asked.pop("type")
        if kind == "move":
            made = await rt.tables.move_request(tid, who, asked, whole=False)
            done = {"type": "move", "version": made["version"], "moveId": asked.get("moveId")}
        else:
            await check_quota(websocket, "chat")
            said = await rt.tables.chat_request(tid, who, asked)
            done = {"type": "chat", "version": said.get("version")}
        return _encode({"event": "ack", "data": done})
    except Exception as exc:
        error = _coded(exc, tid)
        data = {**error.to_json(), "type": kind, "moveId": asked.get("moveId")}
        return _encode({"event": "error", "data": data})


def _request(raw: bytes) -> dict[str, Any]:
    try:
        asked = _decode(raw)
    except msgspec.DecodeError:
        raise TableError("INVALID_REQUEST", "a message is one JSON object") from None
    if not isinstance(asked, dict) or asked.get("type") not in ("move", "chat"):
        raise TableError(
            "INVALID_REQUEST", 'a message is {"type": "move", ...} or {"type": "chat", ...}'
        )
    return asked


def _coded(exc: Exception, tid: str) -> CodedError:
    error = to_api_error(exc)
    if error is None:
        log.exception("table socket failed", extra={"table": tid})
        return ApiError("INTERNAL_ERROR", INTERNAL_ERROR_MESSAGE)
    return error


async def _refuse(websocket: WebSocket, exc: Exception) -> None:
    error = _coded(exc, websocket.path_params["id"])
    with contextlib.suppress(Exception):
        await websocket.send_text(_encode({"event": "error", "data": error.to_json()}).decode())
        await websocket.close(REFUSED + error.status, error.code)


def socket_table_id(path: str) -> str | None:
    """The table id of a ``/v1/tables/{id}/socket`` path, None for any other path (the app
    serves these sockets without the router: ``app.ServiceApp``)."""
    parts = path.split("/")
    if len(parts) != 5 or parts[4] != "socket" or parts[:3] != ["", "v1", "tables"]:
        return None
    return parts[3] or None
