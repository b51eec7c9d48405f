"""A lean Server-Sent Events response for the table streams: the bytes the hub encoded, written
as they come, and nothing per stream that a shared part can do.

Per open stream there is the request's own task (which writes the frames), and a hang-up
watch with no task of its own (``HangupWatch``); no task group, no queue, no timer: heartbeats
are rung by the hub's one shared timer, and the server's shutdown is noticed there too
(``Hub.exiting``), so an open stream never holds up a graceful shutdown. A public
spectator's stream is handed over to the spectator relay (``live/relay.py``) once its first
frame is written, and then costs this process nothing (``Connection.relayable``). What it asks
of the connection beyond ASGI goes through the ``Connection`` the server may leave in the scope
(``connection.py``); without one, every frame goes through ``send``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Coroutine
from typing import Any, cast

from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from manhattan.live.connection import CONNECTION_KEY, Connection
from manhattan.live.listener import Hangup
from manhattan.live.push import HEARTBEAT_FRAME, Push
from manhattan.live.relay import Handover

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


class EventStreamResponse(Response):
    """The items of an opened table stream (``first``, then the rest of ``source``) as SSE
    frames; ``hangup`` is the one given to ``table_stream``. Given a ``handover`` (a public
    spectator's stream), the connection goes to the spectator relay once the first frame is
    written, when it can (``relayable``): the stream here then ends as on a hang-up."""

    media_type = "text/event-stream"
    # No instance dict (the base class has one, made only when an attribute goes in it).
    __slots__ = ("_first", "_handover", "_hangup", "_source", "background", "status_code")

    def __init__(
        self,
        first: Push | None,
        source: AsyncGenerator[Push | None, None],
        hangup: Hangup,
        *,
        handover: Handover | None = None,
    ) -> None:
        self.status_code = 200
        self.background = None
        self._first: Push | None = first
        self._source = source
        self._hangup = hangup
        self._handover = handover

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
        connection: Connection | None = scope.get(CONNECTION_KEY)
        if self._hangup.listener is not None and connection is not None:
            self._hangup.listener.sink = connection.stream_sink()
        watcher = HangupWatch(receive, self._hangup)
        watcher.start()
        source, item = self._source, self._first
        self._first = None
        try:
            while not self._hangup.gone:
                frame = HEARTBEAT_FRAME if item is None else item.frame
                item = None  # an idle stream holds no event (a snapshot is one receiver's)
                await send({"type": "http.response.body", "body": frame, "more_body": True})
                del frame
                if self._handover is not None and await self._hand_over(connection):
                    continue  # (ended: the relay writes to the connection from now on)
                item = await anext(source)
        except StopAsyncIteration:
            pass
        finally:
            watcher.close()
            await source.aclose()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _hand_over(self, connection: Connection | None) -> bool:
        """The connection handed over to the relay (True), or kept here."""
        handover, self._handover = self._handover, None
        transport = None if connection is None else connection.relayable()
        if handover is None or transport is None or not await handover.ready():
            return False
        if connection is None or connection.relayable() is not transport:
            return False  # (it changed while the relay started: it hung up, or was written to)
        if not handover.take(transport.get_extra_info("socket").fileno()):
            return False
        # The process holds a copy of the socket: dropping the server's, without a write or a
        # shutdown, leaves the connection open; the server sees it lost and forgets the request.
        transport.abort()
        self._hangup()
        return True


class HangupWatch:
    """Calls ``hangup`` once ``receive`` says the client is gone, without a task of its own.

    ``receive()`` is stepped the way a task steps a coroutine: up to the future it waits on,
    then again from that future's done-callback. An open stream so has one task (its request's,
    which writes), not two. Messages other than ``http.disconnect`` (a body) are dropped."""

    __slots__ = ("_closed", "_hangup", "_receive", "_waiting")

    def __init__(self, receive: Receive, hangup: Hangup) -> None:
        self._receive, self._hangup = receive, hangup
        self._waiting: Coroutine[Any, Any, Message] | None = None
        self._closed = False

    def start(self) -> None:
        self._step(None)

    def _step(self, _: object) -> None:
        while not (self._hangup.gone or self._closed):
            waiting = self._waiting
            if waiting is None:  # (an ASGI server's receive is a coroutine function)
                waiting = self._waiting = cast(Coroutine[Any, Any, Message], self._receive())
            try:
                awaited = waiting.send(None)
            except StopIteration as done:
                self._waiting = None
                if done.value["type"] == "http.disconnect":
                    self._hangup()
                continue
            except Exception:  # the server's receive failed: the connection is as good as gone
                self._waiting = None
                self._hangup()
                return
            if isinstance(awaited, asyncio.Future):
                awaited._asyncio_future_blocking = False  # what a task does with it
                awaited.add_done_callback(self._step)
            else:  # a bare yield (sleep(0)): step again soon
                asyncio.get_running_loop().call_soon(self._step, None)
            return

    def close(self) -> None:
        """The stream ended: stop watching (a future it waited on may still complete)."""
        self._closed = True
        if self._waiting is not None:
            self._waiting.close()
            self._waiting = None
