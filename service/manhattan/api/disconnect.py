"""Work that stops when its client goes away: a bot search nobody will read is cancelled, and
the cancellation reaches the bot pool's worker (``manhattan.bot_pool``)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from starlette.requests import Request

from manhattan.api.errors import ApiError

T = TypeVar("T")


async def unless_disconnected(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """``work``'s result, or ``CLIENT_CLOSED_REQUEST`` (499, which no one reads) once the client
    has disconnected: ``work`` is cancelled then. Call it after the body has been read, since
    it listens for the ASGI ``http.disconnect`` message."""
    task = asyncio.ensure_future(work)
    gone = False

    async def watch() -> None:
        nonlocal gone
        while True:
            message = await request.receive()
            if message["type"] == "http.disconnect":
                gone = True
                task.cancel()
                return

    watcher = asyncio.ensure_future(watch())
    try:
        return await task
    except asyncio.CancelledError:
        if not gone:
            raise
        raise ApiError("CLIENT_CLOSED_REQUEST", "the client disconnected") from None
    finally:
        watcher.cancel()
