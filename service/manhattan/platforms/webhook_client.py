"""The deliveries' HTTP client: one ``POST`` over HTTP/1.1 to an address already checked.

Small on purpose. A delivery needs little: connect to the checked address (never a second name
lookup; TLS names the host for SNI and the certificate check), send one request, read the status
and at most ``max_body`` bytes of the answer, follow no redirect, all within a timeout. httpx
did the same for about 3 ms of CPU a request on the event loop that also plays the moves (the
bench's move rate fell by half with webhooks on); this client costs a few tenths of that. Idle
connections are kept per target (keep-alive) and a reused one that the receiver had closed is
retried once on a fresh connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from manhattan.platforms.addresses import Target

Key = tuple[str, str, int, str]


@dataclass(slots=True)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class AnswerError(OSError):
    """The receiver's answer is not HTTP/1.x, or the connection broke."""


class WebhookClient:
    def __init__(self, timeout: float, *, max_body: int = 64 * 1024, idle_per_target: int = 8):
        self.timeout = timeout
        self.max_body = max_body
        self.idle_per_target = idle_per_target
        self._idle: dict[Key, list[_Connection]] = {}
        self._tls = ssl.create_default_context()

    async def post(self, target: Target, headers: dict[str, str], body: bytes) -> int:
        """The answer's status (raises OSError or TimeoutError)."""
        parts = urlsplit(target.url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [
            f"POST {path} HTTP/1.1",
            f"host: {parts.netloc}",
            f"content-length: {len(body)}",
            "user-agent: manhattan-webhooks",
            "connection: keep-alive",
        ]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        # ``asyncio.timeout``, not ``wait_for``: no task of its own for every delivery.
        async with asyncio.timeout(self.timeout):
            return await self._send(target, request)

    async def _send(self, target: Target, request: bytes) -> int:
        key = (target.scheme, target.address, target.port, target.host)
        idle = self._idle.get(key)
        if idle:
            connection = idle.pop()
            try:
                return await self._exchange(key, connection, request)
            except (OSError, asyncio.IncompleteReadError, AnswerError):
                pass  # the receiver closed it meanwhile: once more on a fresh connection
        return await self._exchange(key, await self._open(target), request)

    async def _open(self, target: Target) -> _Connection:
        tls = target.scheme == "https"
        reader, writer = await asyncio.open_connection(
            target.address,
            target.port,
            ssl=self._tls if tls else None,
            server_hostname=target.host if tls else None,
            limit=self.max_body,
        )
        return _Connection(reader, writer)

    async def _exchange(self, key: Key, connection: _Connection, request: bytes) -> int:
        keep = False
        try:
            connection.writer.write(request)
            await connection.writer.drain()
            status, keep = await self._answer(connection.reader)
            return status
        except (asyncio.LimitOverrunError, ValueError, IndexError) as exc:
            raise AnswerError(f"not an HTTP/1.x answer: {exc!r}") from None
        except asyncio.IncompleteReadError:
            raise AnswerError("the receiver closed the connection") from None
        finally:
            if keep and len(self._idle.setdefault(key, [])) < self.idle_per_target:
                self._idle[key].append(connection)
            else:
                connection.close()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, bool]:
        """(status, whether the connection may be kept), having read the body (capped)."""
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        version, code = head[0].split(" ", 2)[:2]
        if not version.startswith("HTTP/1."):
            raise ValueError(head[0][:40])
        status = int(code)
        fields: dict[str, str] = {}
        for line in head[1:]:
            name, sep, value = line.partition(":")
            if sep:
                fields[name.strip().lower()] = value.strip().lower()
        keep = fields.get("connection") != "close" and version == "HTTP/1.1"
        if status in (204, 304) or 100 <= status < 200:
            return status, keep
        if "content-length" in fields:
            length = int(fields["content-length"])
            if length > self.max_body:
                await reader.read(self.max_body)
                return status, False
            await reader.readexactly(length)
            return status, keep
        if fields.get("transfer-encoding") == "chunked":
            return status, keep and await self._chunks(reader)
        await reader.read(self.max_body)  # until closed, capped
        return status, False

    async def _chunks(self, reader: asyncio.StreamReader) -> bool:
        """Read a chunked body; False when it was longer than allowed (the rest unread)."""
        total = 0
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            total += size
            if total > self.max_body:
                return False
            await reader.readexactly(size + 2)
            if size == 0:
                return True

    def close(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()
