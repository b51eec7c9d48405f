"""The spectator relay: a process of its own holding public table streams handed over by the
service, so that a crowd's memory leaves with the process once the crowd has gone
(docs/architecture.md, "A crowd's memory after it leaves").

The service writes a spectator's headers and first frame itself, then hands the connection's
socket over (``HANDOFF``, the descriptor by ``SCM_RIGHTS``) and forgets it. From then on it sends
each public frame of the table here once (``FRAME``), and this process writes it, as one
HTTP/1.1 chunk built once, to every connection of that table. A connection handed over at
version v gets only the frames after v, in order; a snapshot (``SNAPSHOT``, sent after a gap)
resets it.
``END`` ends a table's streams with the chunked terminator. A connection that goes (its client
hung up, or it fell more than ``PENDING_CAP`` bytes behind) is closed and reported (``CLOSED``).
When the channel ends (the service closed it, exited or died), every stream ends with the
terminator and the process exits.

Only the standard library is imported here, so that the process stays small: the service runs
this file by its path (``python -I -S relay_process.py FD``), not through the package; ``python
-m manhattan.live.relay_process FD`` works as well. The channel is an ``AF_UNIX``
``SOCK_SEQPACKET`` socket: one message per ``sendmsg``, never split or merged. The messages'
format is declared once, here (``encode_*``/``decode``), and the service imports it.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import struct
import sys
import time

# -- the channel's messages: a kind byte, then its fields --------------------------------------
HANDOFF, FRAME, SNAPSHOT, HEARTBEAT, END, CLOSED = b"H", b"F", b"S", b"B", b"E", b"C"
#: handle, version, the table id's length (then the table id, then the client's address)
_HANDOFF = struct.Struct(">QqB")
#: version, the table id's length (then the table id, then the frame): FRAME and SNAPSHOT
_FRAME = struct.Struct(">qB")
_HANDLE = struct.Struct(">Q")
#: The largest message the channel carries (a snapshot frame is some tens of KB).
MAX_MESSAGE = 1 << 20
#: Unsent bytes a connection may hold before it is dropped as too slow.
PENDING_CAP = 256 * 1024
#: Seconds the streams' last bytes (their terminators) have to go out when the process exits.
EXIT_FLUSH_SECONDS = 1.0
TERMINATOR = b"0\r\n\r\n"


class Message:
    """A decoded channel message; the fields its kind does not carry are empty. (A plain
    class: ``dataclasses`` imports ``inspect``, ``ast`` and ``re``, some 2 MiB of this small
    process.)"""

    __slots__ = ("client", "frame", "handle", "kind", "table_id", "version")

    def __init__(
        self,
        kind: bytes,
        table_id: str = "",
        version: int = 0,
        handle: int = 0,
        client: str = "",
        frame: bytes = b"",
    ) -> None:
        self.kind, self.table_id, self.version = kind, table_id, version
        self.handle, self.client, self.frame = handle, client, frame


def encode_handoff(table_id: str, version: int, client: str, handle: int) -> bytes:
    tid = table_id.encode()
    return HANDOFF + _HANDOFF.pack(handle, version, len(tid)) + tid + client.encode()


def encode_frame(table_id: str, version: int, frame: bytes, *, snapshot: bool = False) -> bytes:
    """A table's frame of ``version``; a ``snapshot`` resets every stream that has it."""
    tid = table_id.encode()
    return (SNAPSHOT if snapshot else FRAME) + _FRAME.pack(version, len(tid)) + tid + frame


def encode_heartbeat(table_id: str, frame: bytes) -> bytes:
    tid = table_id.encode()
    return HEARTBEAT + bytes([len(tid)]) + tid + frame


def encode_end(table_id: str) -> bytes:
    return END + table_id.encode()


def encode_closed(handle: int) -> bytes:
    return CLOSED + _HANDLE.pack(handle)


def decode(message: bytes) -> Message:
    """A channel message; ValueError (struct.error is one) for one that is not."""
    kind, body = message[:1], message[1:]
    if kind == HANDOFF:
        handle, version, size = _HANDOFF.unpack_from(body)
        at = _HANDOFF.size
        tid, client = body[at : at + size].decode(), body[at + size :].decode()
        return Message(kind, tid, version, handle, client)
    if kind in (FRAME, SNAPSHOT):
        version, size = _FRAME.unpack_from(body)
        at = _FRAME.size
        return Message(kind, body[at : at + size].decode(), version, frame=body[at + size :])
    if kind == HEARTBEAT and body:
        size = body[0]
        return Message(kind, body[1 : 1 + size].decode(), frame=body[1 + size :])
    if kind == END:
        return Message(kind, body.decode())
    if kind == CLOSED:
        return Message(kind, handle=_HANDLE.unpack(body)[0])
    raise ValueError(f"not a relay message: {message[:16]!r}")


def chunk(frame: bytes) -> bytes:
    """``frame`` as one HTTP/1.1 chunk (the service's streams use chunked encoding)."""
    return b"%x\r\n%s\r\n" % (len(frame), frame)


# -- the process ---------------------------------------------------------------------------------
class Connection:
    """A handed-over stream: its socket, its table, the newest version written to it."""

    __slots__ = ("closing", "handle", "pending", "sock", "table_id", "version")

    def __init__(self, sock: socket.socket, table_id: str, version: int, handle: int) -> None:
        self.sock, self.table_id, self.version, self.handle = sock, table_id, version, handle
        self.pending = bytearray()
        self.closing = False  # its terminator is written: closed once it is out


class Relay:
    """The selector loop over the channel and the handed-over connections."""

    def __init__(self, channel: socket.socket) -> None:
        self.channel = channel
        channel.setblocking(False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(channel, selectors.EVENT_READ, None)
        self.tables: dict[str, set[Connection]] = {}
        self.outbox: list[bytes] = []  # CLOSED reports the channel did not take yet
        self.running = True

    def run(self) -> None:
        while self.running:
            for key, events in self.selector.select():
                if key.data is None:
                    if events & selectors.EVENT_READ:
                        self._read_channel()
                    if events & selectors.EVENT_WRITE and self.running:
                        self._flush_outbox()
                else:
                    self._serve(key.data, events)
        self._end_all()

    def _read_channel(self) -> None:
        while self.running:
            try:
                message, fds, _, _ = socket.recv_fds(self.channel, MAX_MESSAGE, 1)
            except BlockingIOError:
                return
            except OSError:
                message, fds = b"", []
            if not message and not fds:  # the service closed its end, exited or died
                self.running = False
                return
            try:
                self._handle(decode(message), fds)
            except (ValueError, UnicodeDecodeError) as exc:
                print(f"relay: a bad message dropped: {exc}", file=sys.stderr)
                for fd in fds:
                    socket.socket(fileno=fd).close()

    def _handle(self, message: Message, fds: list[int]) -> None:
        kind = message.kind
        if kind == HANDOFF and fds:
            self._adopt(message, fds[0])
        elif kind in (FRAME, SNAPSHOT):
            self._broadcast(message)
        elif kind == HEARTBEAT:
            data = chunk(message.frame)
            for conn in list(self.tables.get(message.table_id, ())):
                self._write(conn, data)
        elif kind == END:
            for conn in list(self.tables.get(message.table_id, ())):
                self._finish(conn)

    def _adopt(self, message: Message, fd: int) -> None:
        try:
            sock = socket.socket(fileno=fd)
        except OSError:  # (not a socket: the service is told it closed)
            os.close(fd)
            self._report(encode_closed(message.handle))
            return
        sock.setblocking(False)
        conn = Connection(sock, message.table_id, message.version, message.handle)
        self.tables.setdefault(conn.table_id, set()).add(conn)
        self.selector.register(sock, selectors.EVENT_READ, conn)

    def _broadcast(self, message: Message) -> None:
        """One frame to every connection of its table that has not had it (any for a
        snapshot: it resets what a connection has seen)."""
        version, data = message.version, chunk(message.frame)
        snapshot = message.kind == SNAPSHOT
        for conn in list(self.tables.get(message.table_id, ())):
            if snapshot or version > conn.version:
                conn.version = version
                self._write(conn, data)

    def _write(self, conn: Connection, data: bytes) -> None:
        if conn.closing:
            return
        if conn.pending:
            if len(conn.pending) + len(data) > PENDING_CAP:
                self._drop(conn)  # too slow: its client reconnects and resumes
                return
            conn.pending += data
            return
        try:
            sent = conn.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self._drop(conn)
            return
        if sent < len(data):
            conn.pending += data[sent:]
            self.selector.modify(conn.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, conn)

    def _serve(self, conn: Connection, events: int) -> None:
        if events & selectors.EVENT_READ:
            try:
                if not conn.sock.recv(4096):  # the client hung up
                    self._drop(conn)
                    return
            except BlockingIOError:
                pass
            except OSError:
                self._drop(conn)
                return
        if events & selectors.EVENT_WRITE:
            self._send_pending(conn)

    def _send_pending(self, conn: Connection) -> None:
        try:
            sent = conn.sock.send(conn.pending)
        except BlockingIOError:
            return
        except OSError:
            self._drop(conn)
            return
        del conn.pending[:sent]
        if not conn.pending:
            if conn.closing:
                self._drop(conn)
            else:
                self.selector.modify(conn.sock, selectors.EVENT_READ, conn)

    def _finish(self, conn: Connection) -> None:
        """The stream's end: its terminator, then the connection closes once that is out."""
        self._write(conn, TERMINATOR)
        conn.closing = True
        if not conn.pending:
            self._drop(conn)

    def _drop(self, conn: Connection) -> None:
        """Close ``conn`` and report it closed to the service."""
        group = self.tables.get(conn.table_id)
        if group is None or conn not in group:
            return
        group.discard(conn)
        if not group:
            del self.tables[conn.table_id]
        self.selector.unregister(conn.sock)
        conn.sock.close()
        self._report(encode_closed(conn.handle))

    def _report(self, message: bytes) -> None:
        if not self.running:
            return
        if not self.outbox:
            try:
                self.channel.send(message)
                return
            except BlockingIOError:
                self.selector.modify(self.channel, selectors.EVENT_READ | selectors.EVENT_WRITE)
            except OSError:
                self.running = False
                return
        self.outbox.append(message)

    def _flush_outbox(self) -> None:
        while self.outbox:
            try:
                self.channel.send(self.outbox[0])
            except BlockingIOError:
                return
            except OSError:
                self.running = False
                return
            del self.outbox[0]
        self.selector.modify(self.channel, selectors.EVENT_READ)

    def _end_all(self) -> None:
        """The channel ended: every stream ends with its terminator, given a moment to go."""
        conns = [conn for group in self.tables.values() for conn in group]
        for conn in conns:
            self._finish(conn)
        deadline = time.monotonic() + EXIT_FLUSH_SECONDS
        while self.tables and time.monotonic() < deadline:
            for key, events in self.selector.select(deadline - time.monotonic()):
                if key.data is not None:
                    self._serve(key.data, events)
        for conn in [conn for group in self.tables.values() for conn in group]:
            conn.sock.close()
        self.channel.close()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: relay_process.py CHANNEL_FD", file=sys.stderr)
        return 2
    # The service ends this process (by closing the channel): a Ctrl-C at the terminal, which
    # reaches the whole process group, is the service's to handle, not a crash here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    Relay(socket.socket(fileno=int(argv[1]))).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
