"""The service's HTTP protocol (``server/protocol.py``) under uvicorn, on a real socket: what its
lean parts (a list for uvicorn's pipeline queue, list-backed events for the write flow and the
request body) must keep working: pipelined requests in order, a writer paused by a slow reader
and resumed, a body that arrives in pieces."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from manhattan.server.protocol import bounded_protocol, connection_limits
from manhattan.settings import Settings
from tests.ports import bound_socket

BIG_BODY_BYTES = 4 * 1024 * 1024


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] != "http":
        return
    path = scope["path"]
    if path == "/echo":  # the body, read piece by piece as it arrives
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        await _answer(send, body)
    elif path == "/big":  # more than a connection may hold unsent: the writer has to wait
        headers = [(b"content-length", str(BIG_BODY_BYTES).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        chunk = b"x" * 65536
        for _ in range(BIG_BODY_BYTES // len(chunk)):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    else:
        await _answer(send, path.encode())


async def _answer(send: Send, body: bytes) -> None:
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    sock = bound_socket()
    free = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=free,
        http=bounded_protocol(connection_limits(Settings())),
        log_config=None,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield free
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _read_answers(sock: socket.socket, count: int) -> list[bytes]:
    """``count`` answers' bodies (each framed by content-length), in the order they came."""
    data, bodies = b"", []
    while len(bodies) < count:
        head_end = data.find(b"\r\n\r\n")
        if head_end >= 0:
            head = data[:head_end].lower()
            length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
            if len(data) >= head_end + 4 + length:
                bodies.append(data[head_end + 4 : head_end + 4 + length])
                data = data[head_end + 4 + length :]
                continue
        chunk = sock.recv(1 << 20)
        assert chunk, "the connection closed early"
        data += chunk
    return bodies


def test_pipelined_requests_are_answered_in_order(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"".join(b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n" % k for k in range(5)))
        assert _read_answers(sock, 5) == [b"/%d" % k for k in range(5)]


def test_a_writer_paused_by_a_slow_reader_resumes(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 14)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.5)  # the server fills the socket and its buffer, then waits
        (body,) = _read_answers(sock, 1)
        assert len(body) == BIG_BODY_BYTES
        sock.sendall(b"GET /after HTTP/1.1\r\nHost: x\r\n\r\n")  # the connection goes on
        assert _read_answers(sock, 1) == [b"/after"]


def test_a_body_in_pieces_is_read_whole(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc")
        for piece in (b"def", b"ghi"):
            time.sleep(0.1)  # the app waits for the next piece
            sock.sendall(piece)
        assert _read_answers(sock, 1) == [b"abcdefghi"]
