"""A lean Server-Sent Events response for the table streams: the bytes the hub encoded, written
as they come, and nothing per stream that a shared part can do.

Per open stream there is the request's own task (which writes the frames) and one small task
that waits for the client to hang up; no task group, no queue, no timer: heartbeats are rung by
the hub's one shared timer, and the server's shutdown is noticed there too (``server_exiting``),
so an open stream never holds up a graceful shutdown.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncGenerator

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from manhattan.tables import HEARTBEAT_FRAME, Hangup, Push

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


class EventStreamResponse(Response):
    """The items of an opened table stream (``first``, then the rest of ``source``) as SSE
    frames; ``hangup`` is the one given to ``table_stream``."""

    media_type = "text/event-stream"

    def __init__(
        self,
        first: Push | None,
        source: AsyncGenerator[Push | None, None],
        hangup: Hangup,
    ) -> None:
        self.status_code = 200
        self.background = None
        self._first: Push | None = first
        self._source = source
        self._hangup = hangup

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        watcher = asyncio.get_running_loop().create_task(_watch(receive, self._hangup))
        source, item = self._source, self._first
        self._first = None
        try:
            while not self._hangup.gone:
                frame = HEARTBEAT_FRAME if item is None else item.frame
                item = None  # an idle stream holds no event (a snapshot is one receiver's)
                await send({"type": "http.response.body", "body": frame, "more_body": True})
                del frame
                item = await anext(source)
        except StopAsyncIteration:
            pass
        finally:
            watcher.cancel()
            await source.aclose()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _watch(receive: Receive, hangup: Hangup) -> None:
    """Hang up when the client does (the request's body, if any, is read and dropped)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            hangup()
            return


def server_exiting() -> bool:
    """True once the uvicorn server running this process is shutting down: uvicorn installs
    its ``handle_exit`` as the SIGTERM handler while it serves, and sets ``should_exit``."""
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))
