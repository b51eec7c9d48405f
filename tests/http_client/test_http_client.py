"""``manhattan.http_client``: the tools' one HTTP client. Replies of every framing
from a real loopback server, keep-alive, failures as ``HttpError``, and the tools that use it
running on a plain install (``pip install -e .``, none of the test extras)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable

import pytest

from manhattan.http_client import Connection, HttpError, Origin, open_stream, request, stream
from tests.ports import refusing_port

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, bytes]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    length = 0
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return head.split("\r\n")[0], await reader.readexactly(length)


async def _with_server(handler: Handler, client: Callable[[str], Awaitable[None]]) -> None:
    """Run ``client`` against a loopback server answering with ``handler``; every server-side
    connection is closed before the loop ends."""
    writers: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(OSError, EOFError):
            await handler(reader, writer)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await client(f"http://127.0.0.1:{port}")
    finally:
        server.close()
        for writer in writers:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        await server.wait_closed()


def test_lengths_chunks_and_keep_alive_on_one_connection() -> None:
    """Two requests on one connection (keep-alive), a Content-Length reply, a chunked one,
    then a reply without a length read to the connection's end."""
    accepted = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        _, body = await _read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n")
        writer.write(b"content-length: %d\r\n\r\n%s" % (len(body), body))
        await _read_request(reader)
        writer.write(b"HTTP/1.1 201 Created\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(b"3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\n\r\n")
        await _read_request(reader)
        writer.write(b"HTTP/1.0 200 OK\r\n\r\nto the end")
        await writer.drain()
        writer.close()

    async def client(url: str) -> None:
        connection = Connection(url + "/prefix", timeout=5)
        first = await connection.request("POST", "/echo", b'{"a":1}', {"x-test": "1"})
        assert (first.status, first.json(), first.content_type) == (
            200,
            {"a": 1},
            "application/json",
        )
        second = await connection.request("GET", "/chunked")
        assert (second.status, second.body, second.ok) == (201, b"abcdefg", True)
        third = await connection.request("GET", "/eof")
        assert third.body == b"to the end"
        await connection.aclose()

    asyncio.run(_with_server(handler, client))
    assert accepted == 1


@pytest.mark.parametrize(
    "reply",
    [
        b"SSH-2.0-OpenSSH\r\n\r\n",  # not HTTP
        b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort",  # closed mid-body
        b"HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n",
        b"",  # closed at once
    ],
)
def test_a_bad_or_cut_reply_is_an_http_error(reply: bytes) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(reply)
        await writer.drain()
        writer.close()

    async def client(url: str) -> None:
        connection = Connection(url, timeout=5)
        with pytest.raises(HttpError):
            await connection.request("GET", "/")
        await connection.aclose()

    asyncio.run(_with_server(handler, client))


def test_a_silent_server_times_out_as_an_http_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # never answers; the client gives up first

    async def client(url: str) -> None:
        connection = Connection(url, timeout=0.2)
        with pytest.raises(HttpError):
            await connection.request("GET", "/")
        await connection.aclose()

    asyncio.run(_with_server(handler, client))


def test_refused_and_non_http_urls_are_http_errors() -> None:
    """The synchronous form (``ServiceTable``, ``bench service``; against the real service in
    tests/terminal/test_game.py) fails as an HttpError too."""
    with refusing_port() as port, pytest.raises(HttpError):
        request(f"http://127.0.0.1:{port}/readyz", timeout=2)
    for url in ("ftp://example.com", "http://", "localhost:80"):
        with pytest.raises(HttpError):
            Origin.parse(url)
    assert Origin.parse("https://Example.com/base/") == Origin("example.com", 443, True, "/base")


#: The test extras of pyproject.toml: a plain install has none of them.
TEST_EXTRAS = ("httpx", "pytest", "hypothesis", "schemathesis", "jsonschema", "yaml", "matplotlib")

PLAIN_INSTALL = f"""
import importlib.abc, sys
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {TEST_EXTRAS!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (a plain install)")
        return None
sys.meta_path.insert(0, NotInstalled())
from manhattan.cli import main
import manhattan.terminal.game, manhattan.bench.service
sys.exit(main(sys.argv[1:]))
"""


def test_bench_soak_runs_on_a_plain_install() -> None:
    """``manhattan bench soak`` runs without httpx: it needs no test extra."""
    argv = ["bench", "soak", "--seconds", "1", "--games", "2", "--max-requests", "30", "--json"]
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_INSTALL, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["requests"] == 30 and report["errors"] == 0


# -- bodies read as they arrive (open_stream, stream) -----------------------------------------
SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def _chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces)


def test_a_streamed_body_arrives_line_by_line_before_it_ends() -> None:
    """Lines come out while the server still holds the rest back; every line ending (CRLF cut
    between two chunks, LF, lone CR) ends a line once; the request carries its headers."""
    first_read = asyncio.Event()
    seen: list[str] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _ = await _read_request(reader)
        seen.append(line)
        writer.write(SSE_HEAD + _chunked(b": ping\r\n\r\nevent: a\r", b"\ndata: 1\n"))
        await writer.drain()
        await first_read.wait()  # nothing more until the client has the first lines
        writer.write(_chunked(b"\ndata: \xc3\xa9\rdata: 2\r\n", b"\r\n") + b"0\r\n\r\n")
        await writer.drain()

    async def client(url: str) -> None:
        reply = await open_stream(url, "GET", "/events?x=1", headers={"last-event-id": "7"})
        assert (reply.status, reply.ok, reply.headers["content-type"]) == (
            200,
            True,
            "text/event-stream",
        )
        lines = []
        async for line in reply.lines():
            lines.append(line)
            if line == "data: 1":
                first_read.set()
        await reply.aclose()
        assert lines == [": ping", "", "event: a", "data: 1", "", "data: é", "data: 2", ""]

    asyncio.run(_with_server(handler, client))
    assert seen == ["GET /events?x=1 HTTP/1.1"]


@pytest.mark.parametrize(
    ("reply", "body"),
    [
        (
            b'HTTP/1.1 404 Not Found\r\ncontent-length: 15\r\n\r\n{"code": "NO"}\n',
            b'{"code": "NO"}\n',
        ),
        (b"HTTP/1.1 200 OK\r\n\r\nto the end", b"to the end"),
        (b"HTTP/1.1 204 No Content\r\n\r\n", b""),
    ],
)
def test_a_streamed_body_of_any_framing_reads_whole(reply: bytes, body: bytes) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(reply)
        await writer.drain()
        writer.close()

    async def client(url: str) -> None:
        answer = await open_stream(url, "POST", "/", b"{}")
        assert await answer.read() == body
        await answer.aclose()

    asyncio.run(_with_server(handler, client))


@pytest.mark.parametrize(
    "rest",
    [
        b"",  # the body stops coming: each read is bounded by the timeout
        _chunked(b"data: 1\n") + b"20\r\nshort",  # cut inside a chunk
        b"zz\r\n",  # not a chunk size
    ],
)
def test_a_stream_that_stalls_or_breaks_is_an_http_error(rest: bytes) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(SSE_HEAD + rest)
        await writer.drain()
        if rest:
            writer.close()
        else:
            await reader.read()  # holds the connection open, silent

    async def client(url: str) -> None:
        reply = await open_stream(url, "GET", "/", timeout=0.3)
        with pytest.raises(HttpError):
            async for _ in reply.lines():
                pass
        await reply.aclose()

    asyncio.run(_with_server(handler, client))


def test_a_stream_that_never_answers_or_is_refused_is_an_http_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    async def client(url: str) -> None:
        with pytest.raises(HttpError):
            await open_stream(url, "GET", "/", timeout=0.2)

    asyncio.run(_with_server(handler, client))
    with refusing_port() as port, pytest.raises(HttpError):
        stream(f"http://127.0.0.1:{port}/events", timeout=2)


def test_the_blocking_stream_lets_the_caller_send_requests_between_lines() -> None:
    """``stream`` from synchronous code (``manhattan play --table``): a line, then a whole
    ``request`` to the same server while the stream is open, then the next line."""
    asked = threading.Event()
    loop_ready = threading.Event()
    address: list[int] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line, _ = await _read_request(reader)
        if line.startswith("POST"):
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()
            asked.set()
            return
        writer.write(SSE_HEAD + _chunked(b"data: 1\n\n"))
        await writer.drain()
        await asyncio.get_running_loop().run_in_executor(None, asked.wait, 5)
        writer.write(_chunked(b"data: 2\n\n") + b"0\r\n\r\n")
        await writer.drain()

    def serve() -> None:
        async def main() -> None:
            async def client(url: str) -> None:
                address.append(int(url.rsplit(":", 1)[1]))
                loop_ready.set()
                await asyncio.get_running_loop().run_in_executor(None, done.wait, 10)

            await _with_server(handler, client)

        asyncio.run(main())

    done = threading.Event()
    server = threading.Thread(target=serve)
    server.start()
    try:
        assert loop_ready.wait(5)
        url = f"http://127.0.0.1:{address[0]}"
        lines = []
        with stream(url + "/events", headers={"accept": "text/event-stream"}, timeout=5) as reply:
            assert reply.ok
            for line in reply.lines():
                lines.append(line)
                if line == "data: 1":
                    assert request(url + "/chat", "POST", b"{}", timeout=5).body == b"ok"
        assert lines == ["data: 1", "", "data: 2", ""]
    finally:
        done.set()
        server.join(10)
