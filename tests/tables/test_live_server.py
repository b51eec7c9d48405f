"""The in-process test server answers as ``manhattan serve`` does: its connections send at once
(Nagle's algorithm off), so a test of many requests measures the service, not 40 ms waits."""

from __future__ import annotations

import asyncio
import socket

import pytest

from tests.ports import bound_socket

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_connections_accepted_on_the_bound_socket_send_at_once() -> None:
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def opened(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    listening = bound_socket()
    server = await asyncio.start_server(opened, sock=listening)
    try:
        _, writer = await asyncio.open_connection(*listening.getsockname())
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
