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
from collections.abc import Callable
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from manhattan.api.caller_limits import charge_socket_message, check_quota, socket_charge
from manhattan.api.errors import INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
from manhattan.api.rest.stream import opened_stream
from manhattan.api.rest.tables import runtime
from manhattan.live.connection import CONNECTION_KEY
from manhattan.live.listener import Hangup
from manhattan.live.push import Push
from manhattan.live.runtime import TableRuntime
from manhattan.live.websocket import SocketWriter, direct_sink, socket_message
from manhattan.tables import Bearer, TableError
from manhattan.wire.codes import CodedError

log = logging.getLogger("manhattan.api.socket")

_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode
#: Close codes: a normal end, a message too big (RFC 6455), and a refusal (4000 + status).
NORMAL, TOO_BIG, REFUSED = 1000, 1009, 4000


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
    writer = direct_sink(websocket.scope.get(CONNECTION_KEY))
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
    charge = socket_charge(websocket)
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
            answer = await _answer(websocket, rt, tid, who, raw, charge)
            if writer is None or not writer.text(answer):
                if writer is not None:
                    writer.flush()
                await websocket.send_text(answer.decode())
    except (WebSocketDisconnect, RuntimeError):  # gone mid-send, or closed by the writer
        return
    finally:
        hangup()


async def _answer(
    websocket: WebSocket,
    rt: TableRuntime,
    tid: str,
    who: Bearer | None,
    raw: bytes,
    charge: Callable[[], None] | None,
) -> bytes:
    asked: dict[str, Any] = {}
    kind: str | None = None
    try:
        if charge is not None:  # (``charge_socket_message``, looked up once a socket)
            charge()
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
