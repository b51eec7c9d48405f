"""``manhattan.http_client``: the tools' one HTTP client (issue 18). Replies of every framing
from a real loopback server, keep-alive, failures as ``HttpError``, and the tools that use it
running on a plain install (``pip install -e .``, none of the test extras)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable

import pytest

from manhattan.http_client import Connection, HttpError, Origin, request

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
    tests/clients/test_terminal.py) fails as an HttpError too."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(HttpError):
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
import manhattan.terminal, manhattan.api.bench
sys.exit(main(sys.argv[1:]))
"""


def test_bench_soak_runs_on_a_plain_install() -> None:
    """Issue 18: ``manhattan bench soak`` crashed without httpx; it needs no test extra now."""
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
