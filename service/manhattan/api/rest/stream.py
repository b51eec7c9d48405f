"""``GET /v1/tables/{id}/events``: Server-Sent Events of one table for one receiver.

``?ticket=`` (from ``POST .../ticket``; EventSource sends no headers) or a bearer header names a
seat; neither: a spectator of a public table. ``Last-Event-ID`` (or ``?lastEventId=``) resumes.
Heartbeats are SSE comments. Each event is written as the bytes the hub encoded once for every
receiver of its audience (no JSON work per receiver). Streams over the limits (per client
address, spectators per table) are refused with 429 ``TOO_MANY_STREAMS``. The response is the
lean one of ``sse.py``; the hub ends open streams when the server shuts down, so none holds up
a graceful shutdown.

A stream stays open for hours, and with it every frame of the call that serves it: so GETs of
this path are served by ``StreamShortcut``, just inside the service middleware, without the
router's and the exception middlewares' frames (the route stays for anything else).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from manhattan.api.errors import to_api_error
from manhattan.api.rest.sse import EventStreamResponse
from manhattan.api.rest.tables import bearer, runtime, table_id
from manhattan.tables import Bearer, Hangup, TableError, table_stream


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
        client=request.client.host if request.client else None,
        hangup=hangup,
    )
    first = await anext(source)  # refusals (no table, bad seat) are plain error answers
    return EventStreamResponse(first, source, hangup)


class StreamShortcut:
    """ASGI middleware: ``GET /v1/tables/{id}/events`` straight to ``get_events``; a refusal
    is answered by ``on_error`` (the app's handler of expected errors); everything else goes
    on to ``app``."""

    def __init__(
        self, app: ASGIApp, on_error: Callable[[Request, Exception], Awaitable[Response]]
    ) -> None:
        self.app = app
        self.on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if not (
            scope["type"] == "http"
            and scope.get("method") == "GET"
            and path.startswith("/v1/tables/")
            and path.endswith("/events")
            and path.count("/") == 4
        ):
            await self.app(scope, receive, send)
            return
        scope["path_params"] = {"id": path[len("/v1/tables/") : -len("/events")]}
        request = Request(scope, receive)
        try:
            response = await get_events(request)
        except Exception as exc:
            if to_api_error(exc) is None:
                raise
            response = await self.on_error(request, exc)
        del request
        await response(scope, receive, send)


def stream_routes() -> list[BaseRoute]:
    return [Route("/v1/tables/{id}/events", get_events, methods=["GET"])]
