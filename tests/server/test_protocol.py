"""The service's HTTP protocol (``server/protocol.py``) under uvicorn, on a real socket: what its
lean parts (a list for uvicorn's pipeline queue, list-backed events for the write flow and the
request body) must keep working: pipelined requests in order, a writer paused by a slow reader
and resumed, a body that arrives in pieces; and its joined writes (a whole response in one
write) put on the wire the very bytes uvicorn's separate writes put there."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from manhattan.server import protocol as protocol_module
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
    elif path == "/chunked":  # no content-length: uvicorn frames it in chunks
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for piece in (b"one", b"two", b""):
            await send({"type": "http.response.body", "body": piece, "more_body": bool(piece)})
    elif path == "/pieces":  # a declared length, in two messages
        headers = [(b"content-length", b"6")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"abc", "more_body": True})
        await send({"type": "http.response.body", "body": b"def"})
    elif path == "/short":  # less than it declared: uvicorn refuses it and closes
        headers = [(b"content-length", b"10")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"abc"})
    elif path == "/crash":  # before its answer: uvicorn answers 500 and closes
        raise RuntimeError("a crash the test asks for")
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


class _CountedWrites:
    """A connection's transport, counting its writes (everything else is the transport's)."""

    def __init__(self, transport: asyncio.Transport, writes: list[int]) -> None:
        self._transport, self._writes = transport, writes

    def write(self, data: bytes) -> None:
        self._writes.append(len(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _counting_protocol(join_writes: bool, writes: list[int]) -> type[asyncio.Protocol]:
    base: Any = bounded_protocol(connection_limits(Settings()), join_writes=join_writes)

    class Counting(base):  # type: ignore[misc,valid-type]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(_CountedWrites(transport, writes))

    return Counting


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with _serving(bounded_protocol(connection_limits(Settings()))) as free:
        yield free


@contextlib.contextmanager
def _serving(protocol: type[asyncio.Protocol], keep_alive: float = 5) -> Iterator[int]:
    sock = bound_socket()
    free = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=free,
        http=protocol,
        log_config=None,
        lifespan="off",
        date_header=False,  # (answers compared byte for byte)
        timeout_keep_alive=keep_alive,
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


#: Requests on one connection, pipelined, whose answers take each way uvicorn writes one; the
#: last asks to close, so the answers end where the connection does.
EVERY_WAY = b"".join(
    [
        b"GET /plain HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
        b"HEAD /plain HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /pieces HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    ]
)


def _exchange(port: int, requests: bytes) -> bytes:
    """Every byte the server sends back to ``requests`` until it closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(requests)
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
        return data


@pytest.mark.parametrize(
    "requests",
    [
        EVERY_WAY,
        b"GET /short HTTP/1.1\r\nHost: x\r\n\r\n",
        b"GET /crash HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ids=["every-way", "shorter-than-declared", "crash"],
)
def test_joined_writes_put_the_same_bytes_on_the_wire(requests: bytes) -> None:
    answers = []
    for join_writes in (True, False):
        writes: list[int] = []
        with _serving(_counting_protocol(join_writes, writes)) as free:
            answers.append(_exchange(free, requests))
    assert answers[0] == answers[1]
    assert answers[0].startswith(b"HTTP/1.1 ")


def test_a_whole_answer_is_one_write_and_a_stream_is_written_as_it_comes() -> None:
    counts = []
    for join_writes in (True, False):
        writes: list[int] = []
        with _serving(_counting_protocol(join_writes, writes)) as free:
            _exchange(free, EVERY_WAY)
        counts.append(len(writes))
    # plain, echo and last: one write each joined, two apart; HEAD: its head alone either
    # way; chunked: head and three chunks; pieces: head and two pieces, either way.
    assert counts == [3 + 1 + 4 + 3, 6 + 1 + 4 + 3]


def test_an_idle_connection_is_closed_after_the_keep_alive_and_a_busy_one_is_not() -> None:
    """One keep-alive timer per idle connection, armed again for what is left when the
    connection was busy in between: closed after the keep-alive of idleness, never before."""
    protocol = bounded_protocol(connection_limits(Settings()))
    with _serving(protocol, keep_alive=1) as free:
        with socket.create_connection(("127.0.0.1", free), timeout=10) as busy:
            started = time.monotonic()
            for k in range(5):  # a request every 0.4 s: never idle for the keep-alive
                busy.sendall(b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n" % k)
                assert _read_answers(busy, 1) == [b"/%d" % k]
                time.sleep(0.4)
            last = time.monotonic()
            assert busy.recv(1 << 16) == b""  # then idle: closed
            closed = time.monotonic()
        assert last - started > 1.5  # busy for longer than the keep-alive, and still served
        assert 0.5 < closed - last < 3


def test_answers_written_at_the_end_of_a_turn_reach_their_own_connections(port: int) -> None:
    """Whole answers are written together at the end of the loop's turn: many connections
    asking at once each get their own answers, in order, and nothing of another's."""
    sockets = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(20)]
    try:
        for round_ in range(5):
            for k, sock in enumerate(sockets):  # all asked before any is read
                sock.sendall(
                    b"".join(
                        b"GET /%d-%d-%d HTTP/1.1\r\nHost: x\r\n\r\n" % (k, round_, i)
                        for i in range(3)
                    )
                )
            for k, sock in enumerate(sockets):
                assert _read_answers(sock, 3) == [b"/%d-%d-%d" % (k, round_, i) for i in range(3)]
    finally:
        for sock in sockets:
            sock.close()


class _Transport:
    """A transport that keeps what is written to it, in one list shared with others."""

    def __init__(self, name: str, written: list[tuple[str, bytes]]) -> None:
        self.name, self.written, self.closing = name, written, False

    def write(self, data: bytes) -> None:
        assert not self.closing, "written after it closed"
        self.written.append((self.name, data))

    def is_closing(self) -> bool:
        return self.closing


def test_a_turns_answers_are_written_at_its_end_in_order_and_not_to_a_lost_connection() -> None:
    async def turn() -> list[tuple[str, bytes]]:
        written: list[tuple[str, bytes]] = []
        a, b, lost = (_Transport(name, written) for name in ("a", "b", "lost"))
        writes = protocol_module._TurnWrites()
        for transport, data in ((a, b"1"), (lost, b"x"), (b, b"2"), (a, b"3")):
            writes.add(transport, data)  # type: ignore[arg-type]
        lost.closing = True  # (its connection went away before the turn ended)
        assert written == []  # nothing during the turn
        await asyncio.sleep(0)  # the turn ends
        assert written == [("a", b"1"), ("b", b"2"), ("a", b"3")]
        writes.add(b, b"4")  # type: ignore[arg-type]
        writes.flush()  # at once (a server closing its connections), before the turn ends
        assert written[-1] == ("b", b"4")
        await asyncio.sleep(0)  # the turn's own flush then finds nothing left
        return written

    assert asyncio.run(turn()).count(("b", b"4")) == 1
