"""A synchronous httpx transport that runs an ASGI app in-process (for the sync ``Client``).

httpx's ``ASGITransport`` is async-only; this one drives it on an event loop in a helper thread,
so the sync client talks to the real app without a server and without Starlette's TestClient.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx


class SyncASGITransport(httpx.BaseTransport):
    def __init__(self, app: Any) -> None:
        self._inner = httpx.ASGITransport(app=app)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def send() -> tuple[int, httpx.Headers, bytes]:
            body = request.read()
            forwarded = httpx.Request(
                request.method, request.url, headers=request.headers, content=body
            )
            response = await self._inner.handle_async_request(forwarded)
            content = b"".join([chunk async for chunk in response.stream])  # type: ignore[union-attr]
            return response.status_code, response.headers, content

        status, headers, content = asyncio.run_coroutine_threadsafe(send(), self._loop).result()
        return httpx.Response(status, headers=headers, content=content, request=request)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._loop.close()
