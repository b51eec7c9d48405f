"""The service's websocket protocol (``server/ws_protocol.py``) under uvicorn, on a real socket: a
message the app is about to read does not stop the server reading the connection; messages
the app does not read stop it at ``QUEUED_MESSAGES`` waiting, and none is lost or reordered."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.types import Receive, Scope, Send

from manhattan.server.ws_protocol import QUEUED_MESSAGES, QueuedWebSocketProtocol
from tests.ports import bound_socket

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class App:
    """Echoes each message; with ``hold`` set, reads nothing until it is released."""

    def __init__(self) -> None:
        self.protocol: Any = None
        self.paused_with_one_waiting: list[bool] = []
        self.hold = False
        self.release = asyncio.Event()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            return
        self.protocol = send.__self__  # type: ignore[attr-defined]
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        if self.hold:
            await self.release.wait()
        while True:
            if not self.hold:
                while self.protocol.queue.qsize() == 0:
                    await asyncio.sleep(0.001)
                self.paused_with_one_waiting.append(self.protocol.read_paused)
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            await send({"type": "websocket.send", "text": message["text"]})


@contextlib.asynccontextmanager
async def serving(app: App) -> AsyncIterator[str]:
    sock = bound_socket()
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=QueuedWebSocketProtocol, log_config=None
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
            if task.done():
                task.result()
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        sock.close()


async def test_a_message_waiting_for_the_app_does_not_stop_reading() -> None:
    app = App()
    async with serving(app) as url, websockets.connect(url) as client:
        for n in range(10):
            await client.send(f"m{n}")
            assert await asyncio.wait_for(client.recv(), 5) == f"m{n}"
    assert app.paused_with_one_waiting[:10] == [False] * 10  # (then the close)


async def test_an_app_that_does_not_read_stops_the_reading_at_the_bound_and_loses_nothing() -> None:
    app = App()
    app.hold = True
    sent = [f"m{n}" for n in range(QUEUED_MESSAGES + 3)]
    async with serving(app) as url, websockets.connect(url) as client:
        for text in sent:  # one at a time, so that each arrives in a read of its own
            await client.send(text)
            await asyncio.sleep(0.05)
        assert app.protocol.read_paused
        assert app.protocol.queue.qsize() == QUEUED_MESSAGES  # the rest wait in the socket
        app.release.set()
        echoed = [await asyncio.wait_for(client.recv(), 5) for _ in sent]
    assert echoed == sent
