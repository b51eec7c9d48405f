"""A websocket connection of uvicorn's sans-I/O protocol, as ``live.connection.SocketLine``.

Part of the reach into uvicorn's internals (``uvicorn_seam.py`` decides when it is taken, and
makes these), in a module of its own so that it is compiled with the kernel: a table socket's
writer (``live/websocket.py``) asks it whether the connection takes frames before every push and
every write, which interpreted cost a Python frame a question.
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.protocol import Protocol as WebSocketConnection
from websockets.protocol import State

#: ``websockets``' open state, looked up once (an enum member's lookup on its class is slow).
_OPEN_STATE = State.OPEN


class UvicornSocketLine:
    """``live.connection.SocketLine`` over uvicorn's ``WebSocketsSansIOProtocol``: its
    ``conn``, ``transport``, ``close_sent`` and ``takes_frames``."""

    __slots__ = ("_protocol", "_writable", "conn", "transport")

    def __init__(
        self,
        protocol: Any,
        conn: WebSocketConnection,
        transport: asyncio.Transport,
        writable: asyncio.Event,
    ) -> None:
        self._protocol, self._writable = protocol, writable
        self.conn, self.transport = conn, transport

    def close_sent(self) -> bool:
        return bool(self._protocol.close_sent)

    def takes_frames(self) -> bool:
        """Taking frames now, all the writer's questions in one call (it asks before a turn's
        first push): neither side closing (``websockets`` refuses to frame for a closing
        connection), the transport not closing and not paused (uvicorn's ``writable``, cleared
        while the transport holds more than its high-water mark, 64 KiB, not yet sent)."""
        return not (
            self._protocol.close_sent
            or self.conn.state is not _OPEN_STATE
            or self.transport.is_closing()
            or not self._writable.is_set()
        )
