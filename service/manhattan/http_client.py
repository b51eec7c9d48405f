"""The one HTTP client of the project's own tools: ``manhattan bench soak``, ``manhattan bench
service``, ``manhattan bench tables``, ``manhattan play --url`` (``terminal.ServiceTable``) and
``manhattan play --table`` (``terminal_table``). HTTP/1.1 on asyncio streams, standard library
only, so a plain install (``pip install -e .``, no test extras) runs them all.

Why our own: httpx is a test extra (a plain install's soak crashed on importing it) and costs the
soak's client more CPU per request than the service spends answering (on a 2-core machine it was
the soak's bottleneck); urllib blocks and would be a second client to keep right. The tools need
little: one request at a time per connection, keep-alive, ``Content-Length``, chunked or
read-to-close bodies, http and https, and a body read as it arrives (a table's event stream:
``open_stream``, or ``stream`` from synchronous code). Every failure (refused, reset, timed out, a
reply that is not HTTP/1.x) is an ``HttpError``, an ``OSError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

#: The most a tool reads of one reply: the service's largest answers are a few hundred KiB.
MAX_BODY = 64 * 1024 * 1024
#: What one read of a streamed body asks for at most.
STREAM_READ = 65536
#: Line endings of a streamed text body: CRLF, LF or a lone CR (as HTML §9.2.6 reads SSE).
_LINE_END = re.compile(rb"\r\n|\r|\n")

T = TypeVar("T")
#: How a reply's body is delimited: none, chunks, a length, or the end of the connection.
Framing = Literal["none", "chunked", "close"] | int


class HttpError(OSError):
    """The request did not get a whole HTTP reply (transport failure, timeout or bad reply)."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where requests go: scheme, host and port of a URL (its path is the prefix of every
    request path)."""

    host: str
    port: int
    tls: bool
    prefix: str = ""

    @classmethod
    def parse(cls, url: str) -> Origin:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) URL: {url!r}")
        tls = parts.scheme == "https"
        try:
            port = parts.port or (443 if tls else 80)
        except ValueError as exc:
            raise HttpError(f"bad port in {url!r}") from exc
        return cls(parts.hostname, port, tls, parts.path.rstrip("/"))


class Connection:
    """One keep-alive HTTP/1.1 connection, one request at a time; it reconnects after any
    failure or a ``connection: close`` reply. ``timeout`` bounds each whole request."""

    def __init__(self, origin: Origin | str, timeout: float = 30.0) -> None:
        self.origin = Origin.parse(origin) if isinstance(origin, str) else origin
        self.timeout = timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        return await self._bounded(
            f"{method} {path}", self._exchange(method, path, body, headers or {})
        )

    async def _bounded(self, what: str, work: Awaitable[T]) -> T:
        """``work`` within ``timeout``; any failure closes the connection (a half-read reply
        would poison the next request) and is an ``HttpError``."""
        try:
            async with asyncio.timeout(self.timeout):
                return await work
        except HttpError:
            self.close()
            raise
        except (OSError, EOFError, ValueError, asyncio.LimitOverrunError) as exc:
            self.close()  # TimeoutError is an OSError
            raise HttpError(f"{what}: {exc.__class__.__name__}: {exc}") from exc
        except BaseException:
            self.close()
            raise

    async def _exchange(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> Reply:
        status, fields, framing = await self._head(method, path, body, headers)
        assert self._reader is not None
        closing = fields.get("connection", "").lower() == "close"
        if framing == "none":
            payload = b""
        elif framing == "chunked":
            payload = await self._read_chunked()
        elif framing == "close":  # HTTP/1.1 §6.3: no length, the body runs to the end
            payload = await self._reader.read(MAX_BODY)
            closing = True
        else:
            payload = await self._reader.readexactly(framing)
        if closing:
            self.close()
        return Reply(status, fields, payload)

    async def _head(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], Framing]:
        """Send the request; the reply's status, header fields (names in lower case) and how
        its body is delimited."""
        origin = self.origin
        if self._writer is None:
            context = ssl.create_default_context() if origin.tls else None
            self._reader, self._writer = await asyncio.open_connection(
                origin.host, origin.port, ssl=context
            )
        assert self._reader is not None
        host = f"[{origin.host}]" if ":" in origin.host else origin.host  # an IPv6 address
        lines = [f"{method} {origin.prefix}{path} HTTP/1.1", f"host: {host}:{origin.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        if body is not None or method in ("POST", "PUT", "PATCH"):
            lines.append(f"content-length: {len(body or b'')}")
        self._writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b""))
        await self._writer.drain()
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        version, _, rest = status_line.partition(" ")
        if not version.startswith("HTTP/1.") or not rest[:3].isdigit():
            raise HttpError(f"not an HTTP/1.x reply: {status_line[:80]!r}")
        status = int(rest[:3])
        fields: dict[str, str] = {}
        for line in header_lines:
            if line:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
        return status, fields, _framing(method, status, fields)

    async def _read_chunked(self) -> bytes:
        assert self._reader is not None
        return await _joined(_chunks(self._reader), "reply")

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def aclose(self) -> None:
        """``close`` and wait until the transport is gone (before an event loop ends)."""
        writer = self._writer
        self.close()
        if writer is not None:
            with contextlib.suppress(OSError, ssl.SSLError):  # the peer went first
                await writer.wait_closed()


def _framing(method: str, status: int, fields: dict[str, str]) -> Framing:
    """RFC 9112 §6.3: how the body of a reply to ``method`` with these fields is delimited."""
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return "none"
    if fields.get("transfer-encoding", "").lower() == "chunked":
        return "chunked"
    if "content-length" in fields:
        length = int(fields["content-length"])
        if not 0 <= length <= MAX_BODY:
            raise HttpError(f"reply of {length} bytes")
        return length
    return "close"


async def _joined(pieces: AsyncIterator[bytes], what: str) -> bytes:
    """A body's pieces as one, up to ``MAX_BODY`` (``what``: how the error names it)."""
    parts: list[bytes] = []
    total = 0
    async for piece in pieces:
        total += len(piece)
        if total > MAX_BODY:
            raise HttpError(f"{what} of more than {MAX_BODY} bytes")
        parts.append(piece)
    return b"".join(parts)


async def _chunks(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """The pieces of a chunked body, as they arrive, until its last (empty) chunk."""
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size > MAX_BODY:
            raise HttpError(f"a chunk of {size} bytes")
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return
        yield chunk[:-2]


class Stream:
    """A reply whose body is read as it arrives (``open_stream``), on a connection of its own
    that no other request uses. The connection's ``timeout`` bounded the opening (connect,
    request, head) and bounds each read after it: a body silent for longer, like any other
    failure, is an ``HttpError``."""

    def __init__(
        self,
        connection: Connection,
        what: str,
        status: int,
        headers: dict[str, str],
        framing: Framing,
    ) -> None:
        self._connection, self._what, self._framing = connection, what, framing
        self.status = status
        self.headers = headers  # names in lower case

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body's bytes in the pieces they arrive in (de-chunked)."""
        async with contextlib.aclosing(self._pieces()) as pieces:
            while True:
                piece = await self._connection._bounded(self._what, anext(pieces, None))
                if piece is None:
                    return
                yield piece

    async def _pieces(self) -> AsyncGenerator[bytes, None]:
        reader = self._connection._reader
        if reader is None or self._framing == "none":
            return
        if self._framing == "chunked":
            async for piece in _chunks(reader):
                yield piece
        elif self._framing == "close":
            while data := await reader.read(STREAM_READ):
                yield data
        else:
            left = self._framing
            while left:
                data = await reader.read(min(left, STREAM_READ))
                if not data:
                    raise asyncio.IncompleteReadError(b"", left)
                left -= len(data)
                yield data

    async def lines(self) -> AsyncIterator[str]:
        """The body's lines as they arrive, UTF-8, without their endings (CRLF, LF or CR)."""
        pending = b""
        async for chunk in self.chunks():
            pending += chunk
            held = pending.endswith(b"\r")  # its LF may open the next piece
            *complete, pending = _LINE_END.split(pending[:-1] if held else pending)
            if held:
                pending += b"\r"
            if len(pending) > MAX_BODY:
                raise HttpError(f"{self._what}: a line of more than {MAX_BODY} bytes")
            for line in complete:
                yield line.decode("utf-8", "replace")
        if pending:  # the last line, ended by a CR or by the end of the body
            yield pending.removesuffix(b"\r").decode("utf-8", "replace")

    async def read(self) -> bytes:
        """The rest of the body at once (an error's answer, say), up to ``MAX_BODY``."""
        return await _joined(self.chunks(), f"{self._what}: reply")

    def close(self) -> None:
        self._connection.close()

    async def aclose(self) -> None:
        await self._connection.aclose()


async def open_stream(
    origin: Origin | str,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 30.0,
) -> Stream:
    """Send one request on a new connection and return as soon as the reply's head is in; its
    body is then read with ``Stream.chunks``, ``lines`` or ``read``. ``aclose`` it after use."""
    connection = Connection(origin, timeout)
    what = f"{method} {path}"
    try:
        status, fields, framing = await connection._bounded(
            what, connection._head(method, path, body, headers or {})
        )
    except BaseException:
        await connection.aclose()
        raise
    return Stream(connection, what, status, fields, framing)


class BlockingStream:
    """``Stream`` for synchronous code (``stream``): each read runs on an event loop of this
    object's own, so between two lines the caller may do anything, ``request`` included (not
    from inside a running event loop). A context manager; ``close`` it after use."""

    def __init__(
        self,
        url: str,
        method: str,
        body: bytes | None,
        headers: dict[str, str] | None,
        timeout: float,
    ) -> None:
        target, path = _target(url)
        self._loop = asyncio.new_event_loop()
        try:
            self._stream = self._loop.run_until_complete(
                open_stream(target, method, path, body, headers, timeout=timeout)
            )
        except BaseException:
            self._loop.close()
            raise
        self.status = self._stream.status
        self.headers = self._stream.headers

    @property
    def ok(self) -> bool:
        return self._stream.ok

    def lines(self) -> Iterator[str]:
        """As ``Stream.lines``: each line as soon as it has arrived."""
        lines = self._stream.lines()
        while (line := self._loop.run_until_complete(anext(lines, None))) is not None:
            yield line

    def read(self) -> bytes:
        return self._loop.run_until_complete(self._stream.read())

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            self._loop.run_until_complete(self._stream.aclose())
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        finally:
            self._loop.close()

    def __enter__(self) -> BlockingStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _target(url: str) -> tuple[Origin, str]:
    """Where a whole URL goes and the path (with its query) to send on the request line."""
    origin = Origin.parse(url)
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Origin(origin.host, origin.port, origin.tls), path


def request(
    url: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 30.0,
) -> Reply:
    """One request on its own connection, for the tools' synchronous code (not from inside a
    running event loop)."""
    target, path = _target(url)

    async def once() -> Reply:
        connection = Connection(target, timeout)
        try:
            return await connection.request(method, path, body, headers)
        finally:
            await connection.aclose()

    return asyncio.run(once())


def stream(
    url: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    *,
    timeout: float = 30.0,
) -> BlockingStream:
    """``open_stream`` for the tools' synchronous code: the reply's head is in when it returns;
    ``timeout`` bounds the opening and each read of the body after it."""
    return BlockingStream(url, method, body, headers, timeout)


__all__ = [
    "BlockingStream",
    "Connection",
    "HttpError",
    "Origin",
    "Reply",
    "Stream",
    "open_stream",
    "request",
    "stream",
]
