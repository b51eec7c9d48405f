"""The service's websocket protocol (``server/ws_protocol.py``) under uvicorn, on a real socket: a
message the app is about to read does not stop the server reading the connection; messages
the app does not read stop it at ``QUEUED_MESSAGES`` waiting, and none is lost or reordered;
whole text frames are read without ``websockets``' parser, everything else (a frame cut across
reads, a ping, bad UTF-8, compression) as ``websockets`` reads it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import pytest
import uvicorn
import websockets
from starlette.types import Receive, Scope, Send
from websockets.frames import Frame, Opcode

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


class CountingProtocol(QueuedWebSocketProtocol):
    """The protocol, telling which chunks it read itself (True) and which it left (False)."""

    chunks: ClassVar[list[bool]] = []

    def _whole_texts(self, data: bytes) -> list[str] | None:
        texts = super()._whole_texts(data)
        if self.handshake_complete:
            CountingProtocol.chunks.append(texts is not None)
        return texts


@contextlib.asynccontextmanager
async def serving(app: App, protocol: type = QueuedWebSocketProtocol) -> AsyncIterator[str]:
    sock = bound_socket()
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, ws=protocol, log_config=None)
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


def frame(text: str | bytes, opcode: Opcode = Opcode.TEXT) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return Frame(opcode, data).serialize(mask=True, extensions=[])


@contextlib.asynccontextmanager
async def raw_socket(url: str) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """A websocket opened by hand: its frames are written as the test cuts them."""
    host, port = url.removeprefix("ws://").rstrip("/").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101")
    try:
        yield reader, writer
    finally:
        writer.close()


async def read_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """The server's next frame (unmasked, short): its opcode and data."""
    first, second = await asyncio.wait_for(reader.readexactly(2), 5)
    size = second & 0x7F
    if size == 126:
        size = int.from_bytes(await reader.readexactly(2), "big")
    return first & 0x0F, await reader.readexactly(size)


async def test_whole_text_frames_are_read_without_the_parser_and_a_cut_one_with_it() -> None:
    CountingProtocol.chunks = []
    app = App()
    async with serving(app, CountingProtocol) as url, raw_socket(url) as (reader, writer):

        async def send(data: bytes) -> None:
            writer.write(data)
            await writer.drain()
            await asyncio.sleep(0.05)  # (each its own read on the server)

        await send(frame("one"))
        await send(frame("two") + frame("three"))
        cut = frame("four" * 40)
        for piece in (cut[:1], cut[1:5], cut[5:]):  # in the header, in the mask: the parser's
            await send(piece)
        await send(frame(b"", Opcode.PING))  # answered by websockets, in order
        await send(frame("five"))
        echoed = [await read_frame(reader) for _ in range(6)]
    assert [data.decode() for opcode, data in echoed if opcode == Opcode.TEXT.value] == [
        "one",
        "two",
        "three",
        "four" * 40,
        "five",
    ]
    assert (Opcode.PONG.value, b"") in echoed
    assert CountingProtocol.chunks == [True, True, False, False, False, False, True]


async def test_a_text_frame_that_is_not_utf8_closes_the_socket_as_websockets_does() -> None:
    app = App()
    async with serving(app) as url, raw_socket(url) as (reader, writer):
        writer.write(frame("fine"))
        assert await read_frame(reader) == (Opcode.TEXT.value, b"fine")
        writer.write(frame(b"\xff"))
        opcode, data = await read_frame(reader)
    assert (opcode, data[:2]) == (Opcode.CLOSE.value, (1007).to_bytes(2, "big"))


async def test_a_compressed_connection_is_read_by_websockets() -> None:
    CountingProtocol.chunks = []
    app = App()
    async with serving(app, CountingProtocol) as url, websockets.connect(url) as client:
        assert client.protocol.extensions  # permessage-deflate, as browsers ask
        for n in range(3):
            await client.send(f"m{n}" * 50)
            assert await asyncio.wait_for(client.recv(), 5) == f"m{n}" * 50
    assert CountingProtocol.chunks and not any(CountingProtocol.chunks)
