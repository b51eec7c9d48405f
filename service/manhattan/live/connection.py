"""What the live wing may ask of a connection beyond plain ASGI, and the bytes it writes there.

A server that can (``manhattan.server.uvicorn_seam``, on the uvicorn versions it was tested
with) leaves a ``Connection`` in a table stream's or socket's ASGI scope under
``CONNECTION_KEY``. Through it the hub writes a change straight to an up-to-date connection
(``fanout.py``), a table socket writes a turn's frames in one write (``websocket.py``), and a
public spectator's connection is handed over to the spectator relay (``relay.py``). Without
one (another server, or the fast path off) every frame goes through the ASGI ``send``: the
same bytes reach the client, only slower.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from websockets.protocol import Protocol as WebSocketConnection

from manhattan.live.push import Push

#: The scope key of a stream's or socket's ``Connection``.
CONNECTION_KEY = "manhattan.connection"

#: Bytes a connection may have waiting to go out and still be written to directly.
DIRECT_WRITE_BACKLOG = 64 * 1024


def chunk(frame: bytes) -> bytes:
    """``frame`` as one HTTP/1.1 chunk of a chunked response (RFC 9112 §7.1)."""
    return b"%x\r\n%s\r\n" % (len(frame), frame)


class SocketLine(Protocol):
    """An open websocket connection the service may frame for itself."""

    @property
    def conn(self) -> WebSocketConnection:
        """``websockets``' sans-I/O connection (its state, extensions and framing)."""
        ...

    @property
    def transport(self) -> asyncio.Transport: ...

    def close_sent(self) -> bool:
        """The server has begun closing the connection: nothing more is written."""
        ...

    def takes_frames(self) -> bool:
        """Frames may be written now: neither side closing, the transport open and not paused
        by flow control (so holding about ``DIRECT_WRITE_BACKLOG`` bytes not yet sent, at
        most)."""
        ...


class Connection(Protocol):
    """One table stream's or socket's connection, under the server's ``send``."""

    def stream_sink(self) -> Callable[[Push], bool] | None:
        """Where the hub may write an SSE push of this stream itself (as one chunk): a sink
        that answers False, writing nothing, when the connection is gone or not taking data
        now; None when the connection is not a chunked HTTP/1.1 response the service can
        write to."""
        ...

    def relayable(self) -> asyncio.Transport | None:
        """The transport of this stream's connection when it can be handed over to the
        spectator relay now (plain TCP, chunked, nothing waiting to go out, nothing pipelined
        behind it); None otherwise."""
        ...

    def socket_line(self) -> SocketLine | None:
        """This websocket's connection, for frames written by the service; None when the
        server's websocket protocol is not one the service can write to."""
        ...
