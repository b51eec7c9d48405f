"""Everything that leans on uvicorn's internals, behind one switch and one version gate.

On the uvicorn series it was tested with (``TESTED_UVICORN``) and unless
``MANHATTAN_UVICORN_FAST_PATH=0``, the service runs its own protocols (``protocol.py``: bounds
on request heads; ``ws_protocol.py``: a websocket that reads on while the app keeps up) and
leaves a ``Connection`` (``live/connection.py``) in each table stream's and socket's scope,
through which the live wing writes frames to the transport itself and hands spectators'
connections to the relay; the hub learns of a shutdown from the server's SIGTERM handler.
Otherwise (the fast path off, with one log line saying why) the service runs on plain ASGI:
uvicorn's own protocols (h11, with its bound on a request head), every frame through
``send``, open streams ended by the server at its graceful-shutdown timeout.
"""

from __future__ import annotations

import asyncio
import ctypes
import inspect
import logging
import signal
import weakref
from collections.abc import Callable
from importlib import metadata
from typing import Any, cast

from starlette.types import Send
from websockets.protocol import Protocol as WebSocketConnection

from manhattan.live.connection import DIRECT_WRITE_BACKLOG, Connection, chunk
from manhattan.live.push import Push
from manhattan.server.protocol import (
    BoundedHttpToolsProtocol,
    bounded_protocol,
    connection_limits,
)
from manhattan.server.uvicorn_line import UvicornSocketLine
from manhattan.server.ws_protocol import QueuedWebSocketProtocol
from manhattan.settings import Settings

log = logging.getLogger("manhattan.server")

#: The uvicorn series this module was tested with (``pyproject.toml`` pins the same).
TESTED_UVICORN = "0.54"


def unsupported(installed: str | None = None) -> str | None:
    """Why the fast path cannot run with the installed uvicorn, or None if it can."""
    try:
        version = installed or metadata.version("uvicorn")
    except metadata.PackageNotFoundError:
        return "uvicorn is not installed as a distribution"
    if ".".join(version.split(".")[:2]) != TESTED_UVICORN:
        return f"uvicorn {version} is installed; the fast path is tested on {TESTED_UVICORN}.x"
    return None


class UvicornSeam:
    """The service's one way into uvicorn: ``fast`` or plain ASGI."""

    def __init__(self, fast: bool) -> None:
        self.fast = fast

    @classmethod
    def from_settings(cls, settings: Settings) -> UvicornSeam:
        if not settings.uvicorn_fast_path:
            log.info("uvicorn fast path off (MANHATTAN_UVICORN_FAST_PATH): plain ASGI")
            return cls(False)
        reason = unsupported()
        if reason is not None:
            log.warning("uvicorn fast path off: %s; plain ASGI", reason, extra={"reason": reason})
            return cls(False)
        return cls(True)

    def connection(self, send: Send) -> Connection | None:
        """The ``Connection`` of a table stream or socket served under ``send`` (None: plain
        ASGI). Holds ``send`` weakly: the scope holding it would be a reference cycle (the send
        is bound to the server's request, which holds the scope)."""
        if not self.fast or not inspect.ismethod(send):
            return None
        return UvicornConnection(weakref.WeakMethod(send))

    def exiting(self) -> Callable[[], bool] | None:
        """How the hub learns the server is shutting down, when it can."""
        return server_exiting if self.fast else None

    def server_options(self, settings: Settings) -> dict[str, Any]:
        """The protocols ``uvicorn.run`` (or a ``uvicorn.Config``) is given."""
        if self.fast:
            return {
                "http": bounded_protocol(connection_limits(settings)),
                "ws": QueuedWebSocketProtocol,
            }
        return {
            "http": "h11",
            "h11_max_incomplete_event_size": settings.max_header_bytes,
            "ws": "websockets-sansio",
        }


class UvicornConnection:
    """``live.connection.Connection`` over uvicorn's request cycle or websocket protocol (the
    object its ``send`` is bound to)."""

    __slots__ = ("_send",)

    def __init__(self, send: weakref.WeakMethod[Send]) -> None:
        self._send = send

    def _owner(self) -> Any:
        send = self._send()
        return getattr(send, "__self__", None)

    def stream_sink(self) -> Callable[[Push], bool] | None:
        """Leans on uvicorn's HTTP/1.1 ``RequestResponseCycle``: ``transport``, ``flow``,
        ``chunked_encoding``, ``disconnected``, ``response_complete``."""
        cycle = self._owner()
        transport = getattr(cycle, "transport", None)
        flow = getattr(cycle, "flow", None)
        if (
            cycle is None
            or transport is None
            or flow is None
            or getattr(cycle, "chunked_encoding", None) is not True
            or not hasattr(cycle, "disconnected")
            or not hasattr(cycle, "response_complete")
        ):
            return None

        def write(push: Push) -> bool:
            if (
                cycle.disconnected
                or cycle.response_complete  # the stream ended: its last chunk is written
                or flow.write_paused
                or transport.get_write_buffer_size() > DIRECT_WRITE_BACKLOG
            ):
                return False
            transport.write(chunk(push.frame))
            return True

        return write

    def relayable(self) -> asyncio.Transport | None:
        """Only under the service's own HTTP/1.1 protocol (``BoundedHttpToolsProtocol``), whose
        pipeline and cycle this reads."""
        cycle = self._owner()
        transport: Any = getattr(cycle, "transport", None)
        if transport is None or transport.is_closing():
            return None
        protocol = transport.get_protocol()
        if (
            not isinstance(protocol, BoundedHttpToolsProtocol)
            or protocol.cycle is not cycle
            or protocol.pipeline
            or cycle.chunked_encoding is not True
            or cycle.disconnected
            or cycle.response_complete
            or transport.get_extra_info("sslcontext") is not None
            or transport.get_extra_info("socket") is None
            or transport.get_write_buffer_size() != 0
        ):
            return None
        return cast(asyncio.Transport, transport)

    def socket_line(self) -> UvicornSocketLine | None:
        """Leans on uvicorn's ``WebSocketsSansIOProtocol``: ``conn``, ``transport``,
        ``writable``, ``close_sent``."""
        protocol = self._owner()
        conn = getattr(protocol, "conn", None)
        transport = getattr(protocol, "transport", None)
        writable = getattr(protocol, "writable", None)
        if conn is None or transport is None or not isinstance(writable, asyncio.Event):
            return None
        if not hasattr(protocol, "close_sent") or not isinstance(conn, WebSocketConnection):
            return None
        return UvicornSocketLine(protocol, conn, transport, writable)


def server_exiting() -> bool:
    """True once the uvicorn server running this process is shutting down: uvicorn installs
    its ``handle_exit`` as the SIGTERM handler while it serves, and sets ``should_exit``."""
    server = getattr(signal.getsignal(signal.SIGTERM), "__self__", None)
    return bool(getattr(server, "should_exit", False))


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


_TRIM = _malloc_trim()


def give_back_memory() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``): after a
    crowd of streams closes, the process shrinks instead of keeping their memory for later.
    Nothing where the C library is not glibc."""
    if _TRIM is not None:
        _TRIM(0)
