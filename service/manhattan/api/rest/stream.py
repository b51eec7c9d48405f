"""``GET /v1/tables/{id}/events``: Server-Sent Events of one table for one receiver.

``?ticket=`` (from ``POST .../ticket``; EventSource sends no headers) or a bearer header names a
seat; neither: a spectator of a public table. ``Last-Event-ID`` (or ``?lastEventId=``) resumes.
Heartbeats are SSE comments. sse-starlette ends the stream when the server shuts down, so an open
stream never holds up a graceful shutdown.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from manhattan.api.rest.tables import bearer, runtime, table_id
from manhattan.tables import Bearer, TableError, table_stream


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
    source = table_stream(
        rt, tid, who, last_event_id=_last_event_id(request), heartbeat=rt.heartbeat
    )
    first = await anext(source)  # refusals (no table, bad seat) are plain error answers

    async def events() -> AsyncIterator[Any]:
        item = first
        try:
            while True:
                if item is None:
                    yield ServerSentEvent(comment="heartbeat")
                else:
                    yield ServerSentEvent(
                        data=json.dumps(item.data, separators=(",", ":")),
                        event=item.event,
                        id=str(item.id),
                    )
                item = await anext(source)
        except StopAsyncIteration:
            return
        finally:
            await source.aclose()

    return EventSourceResponse(events(), ping=None, headers={"Cache-Control": "no-store"})
