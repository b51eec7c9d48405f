"""A table socket's frames and the writer the hub writes them through.

Each push goes out as one JSON text message ``{"event": "<name>", "id": <version>, "data":
{...}}`` built from the bytes the hub encoded once for the receiver's audience
(``socket_text``); on a connection without extensions the service frames it itself
(``text_frame``, RFC 6455 §5.2) and ``SocketWriter`` writes the frames of one turn of the event
loop together.
"""

from __future__ import annotations

import asyncio
from typing import Final

from manhattan.live.connection import Connection, SocketLine
from manhattan.live.push import Push


def socket_message(push: Push) -> str:
    """A push's JSON message (``socket_text``)."""
    return socket_text(push).decode()


def socket_text(push: Push) -> bytes:
    """A push (``tables.Push.parts``) as the socket's message."""
    return b"".join(_pieces(*push.parts()))


def text_frame(push: Push) -> bytes:
    """A push as the socket's message in one final, unmasked text frame (RFC 6455 §5.2), made
    in one copy of its data (``socket_text`` and ``websockets``' framing made five, some 3 KB
    each for a move's push). Only for a connection without extensions (no compression): every
    client that did not ask for one, the bench's among them; browsers ask
    (``permessage-deflate``) and get ``websockets``' framing."""
    event, data, ident = push.parts()
    head = _frame_head(_AROUND + len(event) + len(ident) + len(data))
    return b"".join((head, *_pieces(event, data, ident)))


def _pieces(
    event: bytes | memoryview, data: bytes | memoryview, ident: bytes | memoryview
) -> tuple[bytes | memoryview, ...]:
    """``{"event":"<event>","id":<id>,"data":<data>}`` in pieces, the push's own as they are:
    the one spelling of the message (``_AROUND`` is the length of the rest)."""
    return (_OPEN, event, _ID_AT, ident, _DATA_AT, data, _CLOSE)


def _frame_head(size: int) -> bytes:
    """The head of one final, unmasked text frame of ``size`` bytes."""
    if size < 126:
        return bytes((0x81, size))
    if size < 1 << 16:
        return b"\x81\x7e" + size.to_bytes(2, "big")
    return b"\x81\x7f" + size.to_bytes(8, "big")


#: A socket message's text around the push's event name, id and data (``socket_text``).
_OPEN: Final = b'{"event":"'
_ID_AT: Final = b'","id":'
_DATA_AT: Final = b',"data":'
_CLOSE: Final = b"}"
#: Its length (``text_frame``).
_AROUND: Final = len(_OPEN) + len(_ID_AT) + len(_DATA_AT) + len(_CLOSE)


def direct_sink(connection: Connection | None) -> SocketWriter | None:
    """Where the hub may write a push of this socket itself (``fanout.py``): a writer on the
    connection's line when the server offers one (``Connection.socket_line``), else None."""
    line = None if connection is None else connection.socket_line()
    return None if line is None else SocketWriter(line)


class SocketWriter:
    """A table socket's messages written by the service itself, and the hub's sink for it.

    Without extensions, the frames of one turn of the event loop go out together at its end,
    in one write: the mover's push and the ``ack`` of its move are one system call, not two
    (some 13 µs each with 200 tables playing flat out: a fifth of a move's CPU went to the
    sockets' writes). With compression (``websockets``' framing: its compressor's state follows
    the order it framed in), each frame is written at once. Anything else written to the socket
    (the stream's own pushes, a close) comes after ``flush``.
    """

    __slots__ = ("_conn", "_frames", "_line", "_loop", "_transport")

    def __init__(self, line: SocketLine) -> None:
        self._line, self._conn, self._transport = line, line.conn, line.transport
        self._frames: list[bytes] = []
        #: The loop the socket is served on, looked up once: ``asyncio.get_running_loop`` makes
        #: a ``getpid`` system call each time, and ``_add`` runs for every push.
        self._loop = asyncio.get_running_loop()

    def __call__(self, push: Push) -> bool:
        """A push (the hub's sink): False, writing nothing, when the socket is closing or not
        taking data now (the stream then writes the push itself)."""
        if not self._takes_frames():
            return False
        if self._framed_here():
            self._add(text_frame(push))
        else:  # compressed: websockets' framing, in order
            self.flush()
            self._conn.send_text(socket_text(push))
            self._transport.write(b"".join(self._conn.data_to_send()))
        return True

    def text(self, message: bytes) -> bool:
        """``message`` (JSON) after the frames waiting, at the turn's end; False when the
        socket must send it itself (after ``flush``)."""
        if not self._framed_here() or not self._takes_frames():
            return False
        self._add(_frame_head(len(message)) + message)
        return True

    def flush(self) -> None:
        if self._frames:
            data = b"".join(self._frames)
            self._frames.clear()
            if not self._line.close_sent() and not self._transport.is_closing():
                self._transport.write(data)

    def _add(self, frame: bytes) -> None:
        if not self._frames:
            _flushes.add(self, self._loop)
        self._frames.append(frame)

    def _takes_frames(self) -> bool:
        """The line takes frames: asked before a turn's first frame (the mover's push and the
        ack of its move are two; ``flush`` checks the line again before it writes)."""
        return bool(self._frames) or self._line.takes_frames()

    def _framed_here(self) -> bool:
        return not self._conn.extensions and not self._conn.expect_continuation_frame


class _Flushes:
    """The socket writers with frames waiting, flushed together at the end of the loop's turn:
    one callback a turn, not one a socket (a move's fan-out is five sockets, and each callback
    is a handle made, queued and run)."""

    __slots__ = ("_loop", "_waiting")

    def __init__(self) -> None:
        self._waiting: list[SocketWriter] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def add(self, writer: SocketWriter, loop: asyncio.AbstractEventLoop) -> None:
        """``writer``, on ``loop`` (the running one), to flush at the end of the turn."""
        if not self._waiting or self._loop is not loop:  # (another loop's are gone with it)
            self._waiting, self._loop = [], loop
            loop.call_soon(self._flush)
        self._waiting.append(writer)

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        for writer in waiting:
            writer.flush()


_flushes = _Flushes()
