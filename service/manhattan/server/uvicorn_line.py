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


class UvicornSocketLine:
    """``live.connection.SocketLine`` over uvicorn's ``WebSocketsSansIOProtocol``: its
    ``conn``, ``transport``, ``writable`` and ``close_sent``."""

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

    def writable(self) -> bool:
        return self._writable.is_set()
