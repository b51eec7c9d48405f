"""The one HTTP client of the project's own tools: ``manhattan bench soak``, ``manhattan bench
service`` and ``manhattan play --url`` (``terminal.ServiceTable``). HTTP/1.1 on asyncio streams,
standard library only, so a plain install (``pip install -e .``, no test extras) runs them all.

Why our own: httpx is a test extra (a plain install's soak crashed on importing it) and costs the
soak's client more CPU per request than the service spends answering (on a 2-core machine it was
the soak's bottleneck); urllib blocks and would be a second client to keep right. The tools need
little: one request at a time per connection, keep-alive, ``Content-Length``, chunked or
read-to-close bodies, http and https. Every failure (refused, reset, timed out, a reply that is not
HTTP/1.x) is an ``HttpError``, an ``OSError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

#: The most a tool reads of one reply: the service's largest answers are a few hundred KiB.
MAX_BODY = 64 * 1024 * 1024


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
        try:
            return await asyncio.wait_for(
                self._exchange(method, path, body, headers or {}), self.timeout
            )
        except HttpError:
            self.close()
            raise
        except (OSError, EOFError, ValueError, asyncio.LimitOverrunError) as exc:
            self.close()  # a half-read reply would poison the next request
            raise HttpError(f"{method} {path}: {exc.__class__.__name__}: {exc}") from exc
        except BaseException:
            self.close()
            raise

    async def _exchange(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> Reply:
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
        closing = fields.get("connection", "").lower() == "close"
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            payload = b""
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            payload = await self._read_chunked()
        elif "content-length" in fields:
            length = int(fields["content-length"])
            if not 0 <= length <= MAX_BODY:
                raise HttpError(f"reply of {length} bytes")
            payload = await self._reader.readexactly(length)
        else:  # HTTP/1.1 §6.3: no length, the body runs to the end of the connection
            payload = await self._reader.read(MAX_BODY)
            closing = True
        if closing:
            self.close()
        return Reply(status, fields, payload)

    async def _read_chunked(self) -> bytes:
        assert self._reader is not None
        parts: list[bytes] = []
        total = 0
        while True:
            size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
            total += size
            if total > MAX_BODY:
                raise HttpError(f"reply of more than {MAX_BODY} bytes")
            chunk = await self._reader.readexactly(size + 2)
            if size == 0:
                return b"".join(parts)
            parts.append(chunk[:-2])

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
    origin = Origin.parse(url)
    target = Origin(origin.host, origin.port, origin.tls)  # the whole path goes on the line
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    async def once() -> Reply:
        connection = Connection(target, timeout)
        try:
            return await connection.request(method, path, body, headers)
        finally:
            await connection.aclose()

    return asyncio.run(once())


__all__ = ["Connection", "HttpError", "Origin", "Reply", "request"]
