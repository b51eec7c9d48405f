"""A lean, pipelined Redis client for the versioned store's hot calls (the swap scripts).

redis-py spends about 130 us of CPU on each script call (a pooled connection checked out and
back, its command packer, parser layers, timeout and retry wrappers). ``RedisPipe`` keeps one
connection and pipelines on it: any number of callers have commands in flight at once, the
commands of one event-loop turn go out in one write, and the replies, parsed by ``hiredis``,
answer the callers in the order they sent (Redis answers a connection's commands in order).

Failures are redis-py's, so ``RedisVersionedStore._call`` treats them as it always has:

- a lost connection fails every command in flight on it with ``ConnectionError``;
- a reply that does not come within ``timeout`` fails every command in flight with
  ``TimeoutError`` and closes the connection (its later replies would answer nobody);
- the next call connects afresh (``SELECT`` and ``AUTH`` on connect, TLS for ``rediss://``,
  every option of the URL read by redis-py's own ``parse_url``), within ``connect_timeout``;
- an error reply is a ``ResponseError`` (``NoScriptError`` for NOSCRIPT, which ``PipedScript``
  answers by sending the script itself with EVAL, which also loads it).

No await waits longer than twice its timeout: one timer per connection watches the oldest command
in flight, and a timer that fires late (this process could not run: a long callback, a paused
machine) gives that command as long again once, so the timeout measures Redis, not this
process. A caller that is cancelled leaves its reply to be read and dropped; the connection
stays in step. Plain Redis only (``redis://``, ``rediss://``): a cluster routes by slot, which
this client does not. ``RedisPipe.subscription`` opens a connection of the same kind for pub/sub
(``Subscription``), whose pushes go to a callback as they are read.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
from redis.asyncio.connection import RedisSSLContext, SSLConnection, parse_url
from redis.exceptions import AuthenticationError, BusyLoadingError, NoScriptError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: URL schemes this client serves.
PIPE_SCHEMES = ("redis://", "rediss://")

#: Error replies with a class of their own, by their first word (as redis-py maps them).
_ERRORS: dict[str, type[ResponseError | RedisConnectionError]] = {
    "NOSCRIPT": NoScriptError,
    "NOAUTH": AuthenticationError,
    "WRONGPASS": AuthenticationError,
    "LOADING": BusyLoadingError,
}

#: A command's words: bytes (and other buffers) as they are, text as UTF-8, numbers in decimal.
Word = bytes | bytearray | memoryview | str | int | float


def encode_command(words: Sequence[Word]) -> bytes:
    """``words`` as one RESP array of bulk strings (the large ones copied once, by the join)."""
    out = [b"*%d\r\n" % len(words)]
    append = out.append
    for word in words:
        data: bytes
        if isinstance(word, bytes):
            data = word
        elif isinstance(word, str):
            data = word.encode()
        elif isinstance(word, int):
            data = b"%d" % word
        elif isinstance(word, float):
            data = repr(word).encode()
        else:
            data = bytes(word)
        append(b"$%d\r\n" % len(data))
        append(data)
        append(b"\r\n")
    return b"".join(out)


def reply_error(message: str) -> ResponseError | RedisConnectionError:
    """The exception an error reply stands for (hiredis makes one per error reply)."""
    code = message.split(" ", 1)[0]
    return _ERRORS.get(code, ResponseError)(message)


class _Connection(asyncio.Protocol):
    """One connection: commands go out in one write per loop turn, and each reply resolves the
    oldest future waiting. ``failed`` once it is closed: every later ``send`` fails at once."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.failed: BaseException | None = None
        self.lost = self.loop.create_future()  # done when the transport is closed
        self._reader = hiredis.Reader(replyError=reply_error)
        #: Commands in flight, oldest first: each one's future and deadline.
        self._waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self._out: list[bytes] = []
        self._watch: asyncio.TimerHandle | None = None
        self._graced: asyncio.Future[Any] | None = None  # the command given more time once

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, command: bytes) -> asyncio.Future[Any]:
        """``command`` queued; the future answers with its reply or fails."""
        future: asyncio.Future[Any] = self.loop.create_future()
        if self.failed is not None:
            future.set_exception(_again(self.failed))
            return future
        deadline = self.loop.time() + self.timeout
        self._waiting.append((future, deadline))
        if not self._out:
            self.loop.call_soon(self._flush)
        self._out.append(command)
        if self._watch is None:
            self._watch = self.loop.call_at(deadline, self._check_deadline)
        return future

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self.failed is None and self.transport is not None and out:
            self.transport.write(b"".join(out))

    def data_received(self, data: bytes) -> None:
        reader = self._reader
        reader.feed(data)
        try:
            while (reply := reader.gets()) is not False:
                self._reply(reply)
        except Exception as exc:  # a protocol error: nothing after it can be trusted
            self.fail(RedisConnectionError(f"Protocol error: {exc}"))

    def _reply(self, reply: Any) -> None:
        """The oldest command in flight answered with ``reply`` (an error reply fails it)."""
        if not self._waiting:
            raise RedisConnectionError(f"a reply came that no command asked for: {reply!r:.200}")
        future = self._waiting.popleft()[0]
        if future.done():
            return  # its caller was cancelled
        if isinstance(reply, ResponseError | RedisConnectionError):
            future.set_exception(reply)
        else:
            future.set_result(reply)

    def _check_deadline(self) -> None:
        """The oldest command in flight is past its deadline: the connection is stuck, unless
        this timer fired late, which says this process (or the machine) stalled; its reply may
        be unread or still in Redis's hands, so it gets as long as the stall (up to ``timeout``)
        once more."""
        watch, self._watch = self._watch, None
        if not self._waiting or self.failed is not None:
            return
        now = self.loop.time()
        oldest, deadline = self._waiting[0]
        if deadline - now > 0.001:
            self._watch = self.loop.call_at(deadline, self._check_deadline)
            return
        late = now - watch.when() if watch is not None else 0.0
        if late > self.timeout / 10 and oldest is not self._graced:
            self._graced = oldest
            deadline = now + min(late, self.timeout)
            self._waiting[0] = (oldest, deadline)
            self._watch = self.loop.call_at(deadline, self._check_deadline)
            return
        self.fail(RedisTimeoutError("Timeout reading from Redis"))

    def connection_lost(self, exc: Exception | None) -> None:
        reason = f": {exc}" if exc is not None else ""
        self.fail(RedisConnectionError(f"Connection closed by server{reason}"))
        if not self.lost.done():
            self.lost.set_result(None)

    def fail(self, exc: BaseException) -> None:
        """Every command in flight fails with (a copy of) ``exc``; the connection is closed."""
        if self.failed is None:
            self.failed = exc
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        self._out.clear()
        waiting, self._waiting = self._waiting, collections.deque()
        for future, _ in waiting:
            if not future.done():
                future.set_exception(_again(exc))
        if self.transport is not None:
            self.transport.abort()


class Subscription(_Connection):
    """A connection of its own for pub/sub: a push (a list: ``[b"smessage", channel, data]``,
    ``[b"ssubscribe", channel, count]``...) goes to ``on_push`` as it comes, in the loop turn
    that read it, with no task and no await per message (redis-py's ``get_message`` costs some
    50 us of CPU more a message); other replies (the handshake's) answer commands as on any
    connection. ``lost`` is done once the connection is closed, ``failed`` says why."""

    def __init__(self, timeout: float, on_push: Callable[[list[Any]], None]) -> None:
        super().__init__(timeout)
        self._on_push = on_push

    def _reply(self, reply: Any) -> None:
        if isinstance(reply, list):
            self._on_push(reply)
        else:
            super()._reply(reply)

    def command(self, *words: Word) -> None:
        """``words`` sent with no reply awaited: a (un)subscription is answered by a push."""
        if self.failed is not None:
            raise _again(self.failed)
        if self.transport is not None:
            self.transport.write(encode_command(words))

    def close(self) -> None:
        self.fail(RedisConnectionError("Connection closed by the client"))


def _again(exc: BaseException) -> BaseException:
    """A fresh exception like ``exc``: one raised in many tasks would gather their tracebacks."""
    return type(exc)(*exc.args)


class RedisPipe:
    """Commands to one Redis over one pipelined connection (see the module's docstring)."""

    def __init__(self, url: str, *, timeout: float, connect_timeout: float | None = None) -> None:
        if not url.startswith(PIPE_SCHEMES):
            raise ValueError(f"RedisPipe serves {' and '.join(PIPE_SCHEMES)} URLs, not {url!r}")
        options: dict[str, Any] = dict(parse_url(url))
        self.host: str = options.get("host", "localhost")
        self.port: int = options.get("port", 6379)
        self.db: int = options.get("db", 0)
        self.username: str | None = options.get("username")
        self.password: str | None = options.get("password")
        # Options in the URL win over the arguments, as they do in redis-py's from_url.
        self.timeout = float(options.get("socket_timeout", timeout))
        self.connect_timeout = float(
            options.get("socket_connect_timeout", connect_timeout or timeout)
        )
        self._tls: RedisSSLContext | None = None
        if url.startswith("rediss://"):
            # redis-py's own TLS defaults (certificate and host name checked) and URL options.
            tls = {name: value for name, value in options.items() if name.startswith("ssl_")}
            self._tls = SSLConnection(**tls).ssl_context
        self._connection: _Connection | None = None
        self._connecting: asyncio.Future[_Connection] | None = None

    async def execute(self, *words: Word) -> Any:
        """The reply to one command; raises as the module's docstring says."""
        connection = self._connection
        if connection is None or connection.failed is not None:
            connection = await self._connect()
        return await connection.send(encode_command(words))

    def register_script(self, source: str) -> PipedScript:
        return PipedScript(self, source)

    async def subscription(self, on_push: Callable[[list[Any]], None]) -> Subscription:
        """A new connection for pub/sub, authenticated and on its database like the pipe's,
        its pushes to ``on_push`` (``Subscription``)."""
        connection = await self._greeted(lambda: Subscription(self.timeout, on_push))
        assert isinstance(connection, Subscription)
        return connection

    async def _connect(self) -> _Connection:
        """The connection, made once for every caller waiting for it."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._open())
        return await asyncio.shield(self._connecting)

    async def _open(self) -> _Connection:
        try:
            connection = await self._greeted()
            self._connection = connection
            return connection
        finally:
            self._connecting = None

    async def _greeted(self, protocol: Callable[[], _Connection] | None = None) -> _Connection:
        """A new connection, past AUTH and SELECT (closed if they fail)."""
        connection = await self._dial(protocol)
        try:
            await self._handshake(connection)
        except BaseException:
            connection.fail(RedisConnectionError("Connection closed on connect"))
            raise
        return connection

    async def _dial(self, protocol: Callable[[], _Connection] | None = None) -> _Connection:
        loop = asyncio.get_running_loop()
        tls = self._tls.get() if self._tls is not None else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, connection = await loop.create_connection(
                    protocol or (lambda: _Connection(self.timeout)),
                    self.host,
                    self.port,
                    ssl=tls,
                    server_hostname=self.host if tls is not None else None,
                )
        except TimeoutError:
            raise RedisTimeoutError("Timeout connecting to server") from None
        except OSError as exc:
            where = f"{self.host}:{self.port}"
            raise RedisConnectionError(f"Error connecting to {where}: {exc}") from exc
        return connection

    async def _handshake(self, connection: _Connection) -> None:
        """AUTH and SELECT, as redis-py sends them on connect, in one round trip."""
        sent: list[tuple[asyncio.Future[Any], type[RedisConnectionError]]] = []
        if self.password is not None:
            words = (self.username, self.password) if self.username else (self.password,)
            sent.append((connection.send(encode_command(("AUTH", *words))), AuthenticationError))
        if self.db:
            sent.append(
                (connection.send(encode_command(("SELECT", self.db))), RedisConnectionError)
            )
        replies = await asyncio.gather(*(future for future, _ in sent), return_exceptions=True)
        for reply, (_, refusal) in zip(replies, sent, strict=True):
            if isinstance(reply, ResponseError):
                raise refusal(f"Refused on connect: {reply}") from reply
            if isinstance(reply, BaseException):
                raise reply

    async def close(self) -> None:
        """Closes the connection (once one being made is made); commands in flight fail with
        ``ConnectionError``. A call after this connects again."""
        if self._connecting is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._connecting)
        connection, self._connection = self._connection, None
        if connection is None:
            return
        connection.fail(RedisConnectionError("Connection closed by the client"))
        if connection.transport is not None:
            async with asyncio.timeout(self.timeout):
                await connection.lost


class PipedScript:
    """A Lua script sent by its SHA1 (EVALSHA); when Redis does not have it (NOSCRIPT: after a
    restart or SCRIPT FLUSH), sent whole (EVAL), which loads it for the calls after."""

    def __init__(self, pipe: RedisPipe, source: str) -> None:
        self.pipe = pipe
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def __call__(self, *, keys: Sequence[Word], args: Sequence[Word]) -> Any:
        try:
            return await self.pipe.execute("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            return await self.pipe.execute("EVAL", self.source, len(keys), *keys, *args)


__all__ = ["PIPE_SCHEMES", "PipedScript", "RedisPipe", "encode_command", "reply_error"]
