"""``GET /v1/tables/{id}/events``: Server-Sent Events of one table for one receiver.

``?ticket=`` (from ``POST .../ticket``; EventSource sends no headers) or a bearer header names a
seat; neither: a spectator of a public table. ``Last-Event-ID`` (or ``?lastEventId=``) resumes.
Heartbeats are SSE comments. Each event is written as the bytes the hub encoded once for every
receiver of its audience (no JSON work per receiver). Streams over the limits (per client
address, spectators per table) are refused with 429 ``TOO_MANY_STREAMS``. The response is the
lean one of ``sse.py``; the hub ends open streams when the server shuts down, so none holds up
a graceful shutdown.

A stream stays open for hours, and with it every frame of the call that serves it: so the app
(``app.ServiceApp``) serves GETs of this path by ``StreamEndpoint`` behind the service
middleware only, without Starlette's error middleware, exception middleware and router frames
(the route stays for anything else).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from manhattan.api.client_address import client_address
from manhattan.api.errors import to_api_error
from manhattan.api.rest.sse import EventStreamResponse
from manhattan.api.rest.tables import bearer, runtime, table_id
from manhattan.tables import Bearer, Hangup, TableError, table_stream

ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]


def _last_event_id(request: Request) -> int | None:
    text = request.headers.get("last-event-id") or request.query_params.get("lastEventId")
    if text is None or text == "":
        return None
    if not (text.isascii() and text.isdigit() and len(text) < 16):
        raise TableError("INVALID_REQUEST", "Last-Event-ID is a table version")
    return int(text)


async def get_events(request: Request) -> Response:
    tid = table_id(request)
    rt = runtime(request)
    ticket = request.query_params.get("ticket")
    who: Bearer | None = (
        await rt.tables.open_ticket(tid, ticket) if ticket is not None else bearer(request, tid)
    )
    hangup = Hangup()
    source = table_stream(
        rt,
        tid,
        who,
        last_event_id=_last_event_id(request),
        heartbeat=rt.heartbeat,
        client=client_address(request.scope),
        hangup=hangup,
    )
    first = await anext(source)  # refusals (no table, bad seat) are plain error answers
    return EventStreamResponse(first, source, hangup)


def is_stream_get(scope: Scope) -> bool:
    """Whether ``scope`` is a GET of a table's event stream."""
    path: str = scope.get("path", "")
    return (
        scope["type"] == "http"
        and scope.get("method") == "GET"
        and path.startswith("/v1/tables/")
        and path.endswith("/events")
        and path.count("/") == 4
    )


class StreamEndpoint:
    """ASGI app of ``GET /v1/tables/{id}/events`` alone (``is_stream_get``), served without
    the router's frames; a refusal is answered by ``on_error`` (the app's handler of expected
    errors), anything else that fails before the stream opens by ``on_crash``."""

    def __init__(self, on_error: ErrorHandler, on_crash: ErrorHandler) -> None:
        self.on_error = on_error
        self.on_crash = on_crash

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        scope["path_params"] = {"id": path[len("/v1/tables/") : -len("/events")]}
        request = Request(scope, receive)
        try:
            response = await get_events(request)
        except Exception as exc:
            handler = self.on_error if to_api_error(exc) is not None else self.on_crash
            response = await handler(request, exc)
        del request
        await response(scope, receive, send)


def stream_routes() -> list[BaseRoute]:
    return [Route("/v1/tables/{id}/events", get_events, methods=["GET"])]
