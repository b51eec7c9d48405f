"""``GET /v1/tables/{id}/events``: Server-Sent Events of one table for one receiver.

``?ticket=`` (from ``POST .../ticket``; EventSource sends no headers) or a bearer header names a
seat; neither: a spectator of a public table. ``Last-Event-ID`` (or ``?lastEventId=``) resumes.
Heartbeats are SSE comments. Each event is written as the bytes the hub encoded once for every
receiver of its audience (no JSON work per receiver). Streams over the limits (per client
address, spectators per table) are refused with 429 ``TOO_MANY_STREAMS``. The response is the
lean one of ``sse.py``; the hub ends open streams when the server shuts down, so none holds up
a graceful shutdown.

A stream stays open for hours, and with it every frame of the call that serves it: so the app
(``app.ServiceApp``) serves GETs of this path by a ``Shortcut`` (``shortcut.py``) behind the
service middleware only, without Starlette's error middleware, exception middleware and router
frames (the route stays for anything else).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from manhattan.api.client_address import client_address
from manhattan.api.rest.shortcut import ErrorHandler, Shortcut
from manhattan.api.rest.tables import bearer, runtime, table_id
from manhattan.live.listener import Hangup
from manhattan.live.push import Push
from manhattan.live.relay import Handover
from manhattan.live.sse import EventStreamResponse
from manhattan.live.stream import table_stream
from manhattan.tables import Bearer, TableError
from manhattan.wire.numbers import ascii_decimal


def last_event_id(request: HTTPConnection) -> int | None:
    text = request.headers.get("last-event-id") or request.query_params.get("lastEventId")
    if text is None or text == "":
        return None
    version = ascii_decimal(text, digits=15)
    if version is None:
        raise TableError("INVALID_REQUEST", "Last-Event-ID is a table version")
    return version


async def opened_stream(
    request: HTTPConnection, hangup: Hangup
) -> tuple[Bearer | None, Push | None, AsyncGenerator[Push | None, None]]:
    """The request's table stream (``table_stream``), opened: whom it is for (``?ticket=``, a
    bearer header, or neither), its first item and the rest. Raises what refuses it."""
    tid = table_id(request)
    rt = runtime(request)
    ticket = request.query_params.get("ticket")
    who: Bearer | None = (
        await rt.tables.open_ticket(tid, ticket) if ticket is not None else bearer(request, tid)
    )
    source = table_stream(
        rt,
        tid,
        who,
        last_event_id=last_event_id(request),
        heartbeat=rt.heartbeat,
        client=client_address(request.scope),
        hangup=hangup,
    )
    return who, await anext(source), source


async def get_events(request: Request) -> Response:
    hangup = Hangup()
    # Refusals (no table, bad seat) are plain error answers.
    who, first, source = await opened_stream(request, hangup)
    return EventStreamResponse(first, source, hangup, handover=handover(request, who, first))


def handover(request: HTTPConnection, who: Bearer | None, first: Push | None) -> Handover | None:
    """What hands a public spectator's stream over to the spectator relay once its first item
    is written (None: kept here: a seat's, or the relay is off). The stream has then had the
    first item's version, or the one it resumed at when that item is a heartbeat."""
    relay = runtime(request).relay
    version = first.id if first is not None else last_event_id(request)
    if who is not None or relay is None or version is None:
        return None
    return Handover(relay, table_id(request), version, client_address(request.scope))


def stream_shortcut(on_error: ErrorHandler, on_crash: ErrorHandler) -> Shortcut:
    """The stream's route served without the router's frames (``shortcut.py``)."""
    return Shortcut({("GET", "events"): get_events}, on_error, on_crash)


def stream_routes() -> list[BaseRoute]:
    return [Route("/v1/tables/{id}/events", get_events, methods=["GET"])]
