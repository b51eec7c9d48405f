"""The service's side of the spectator relay (``relay_process.py``): a process of its own that
holds public table streams handed over by the transport, so that a crowd's memory leaves with
that process once the crowd has gone (docs/architecture.md, "A crowd's memory after it leaves").

The process is started on the first handover and let go (its channel closed: it exits) once no
relayed stream has been open for ``idle`` seconds; the next handover starts another. Per table
with relayed streams there is one **feed**: a spectator stream of its own (``table_stream``)
whose frames are sent to the process once, for every relayed connection of the table. A
connection is handed over only at the feed's version, so that it gets every later frame once
and in order. A relayed stream keeps its place in the stream limits (``Hub.hold``) until the
process reports it closed. A process that dies ends its streams (their clients reconnect); its
places are given back and the next handover starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import sys
import time
from dataclasses import dataclass

from manhattan.live import relay_process
from manhattan.live.push import HEARTBEAT_FRAME
from manhattan.live.relay_process import (
    CLOSED,
    decode,
    encode_end,
    encode_frame,
    encode_handoff,
    encode_heartbeat,
)
from manhattan.live.stream import Watched, table_stream

log = logging.getLogger("manhattan.live.relay")

#: The process's program, run by its path: the package (and all it imports) is not loaded there.
RELAY_SCRIPT = relay_process.__file__
#: Seconds a handover waits for its table's feed to reach the connection's version.
CATCH_UP_SECONDS = 1.0
#: Seconds a process let go has to exit before it is killed.
EXIT_SECONDS = 2.0
#: Seconds after a process could not be started before the next handover tries again (the
#: streams meanwhile stay in the service, as with the relay off).
RETRY_SECONDS = 60.0
#: Bytes of messages the process has not taken yet that the service holds for it: past this,
#: a process that stopped reading its channel is let go (its streams end, their clients
#: reconnect) rather than let this process's memory grow with every frame of its tables.
OUTBOX_BYTES = 16 * 1024 * 1024


class Feed:
    """One relayed table's frames, sent to the process once: its task, and the newest version
    sent (what a connection handed over must have had)."""

    __slots__ = ("moved", "table_id", "task", "version")

    def __init__(self, table_id: str, version: int) -> None:
        self.table_id, self.version = table_id, version
        self.task: asyncio.Task[None] | None = None
        self.moved: list[asyncio.Future[None]] = []  # handovers waiting for a newer version

    def advance(self, version: int) -> None:
        self.version = version
        waiting, self.moved = self.moved, []
        for future in waiting:
            if not future.done():
                future.set_result(None)


class Relay:
    """The process, its channel, the relayed streams (by handle) and the feeds."""

    def __init__(self, watched: Watched, *, heartbeat: float = 15.0, idle: float = 5.0) -> None:
        #: What the feeds' streams are served from (the app's ``TableRuntime``).
        self.watched = watched
        #: The feeds' heartbeat, as the streams' (seconds).
        self.heartbeat = heartbeat
        #: Seconds without a relayed stream after which the process is let go.
        self.idle = idle
        self.closed = False
        self._process: asyncio.subprocess.Process | None = None
        self._channel: socket.socket | None = None
        self._starting: asyncio.Task[bool] | None = None
        self._outbox: list[tuple[bytes, int | None]] = []
        self._outbox_bytes = 0
        self._held: dict[int, tuple[str, str | None]] = {}  # handle -> (table, client)
        self._per_table: dict[str, int] = {}
        self._feeds: dict[str, Feed] = {}
        self._handles = itertools.count(1)
        self._idle_timer: asyncio.TimerHandle | None = None
        self._exits: set[asyncio.Task[None]] = set()
        self._retry_at = 0.0  # (monotonic: no start is tried before then)

    @property
    def relayed(self) -> int:
        """Streams held by the process now."""
        return len(self._held)

    @property
    def pid(self) -> int | None:
        """The process's id while it runs (with its channel open)."""
        return None if self._process is None or self._channel is None else self._process.pid

    # -- handing a connection over ------------------------------------------------------------
    async def ready(self, table_id: str, version: int) -> bool:
        """Whether a connection of ``table_id`` at ``version`` can be handed over (``take``)
        now: the process runs, and the table's feed is at that version or not yet made (one
        a little behind is waited for)."""
        if self.closed or self.watched.hub.closing or not await self._started():
            return False
        feed = self._feeds.get(table_id)
        if feed is not None and feed.version < version:
            moved = asyncio.get_running_loop().create_future()
            feed.moved.append(moved)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(moved, CATCH_UP_SECONDS)
        feed = self._feeds.get(table_id)
        return self._channel is not None and (feed is None or feed.version == version)

    def take(self, table_id: str, version: int, client: str | None, fd: int) -> bool:
        """Hand the connection ``fd`` (a stream of ``table_id`` that has had ``version``) over
        to the process: False, and nothing done, when it cannot be now. The caller then drops
        its own hold of the connection without writing (the process writes from now on)."""
        feed = self._feeds.get(table_id)
        if self._channel is None or self.closed or (feed is not None and feed.version != version):
            return False
        try:
            copy = os.dup(fd)
        except OSError:  # (out of descriptors: the stream stays here)
            return False
        if feed is None:
            feed = self._feeds[table_id] = Feed(table_id, version)
            feed.task = asyncio.get_running_loop().create_task(
                self._feed(feed), name="tables-relay-feed"
            )
        handle = next(self._handles)
        self._held[handle] = (table_id, client)
        self._per_table[table_id] = self._per_table.get(table_id, 0) + 1
        self.watched.hub.hold(table_id, client)
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        # (A channel lost while sending gives every hold back, this one too.)
        return self._send(encode_handoff(table_id, version, client or "", handle), copy)

    async def _feed(self, feed: Feed) -> None:
        """The table's public frames, sent once to the process; its streams ended when the
        table's stream ends (the table expired, the server shuts down)."""
        tid = feed.table_id
        source = table_stream(
            self.watched,
            tid,
            None,
            last_event_id=feed.version,
            heartbeat=self.heartbeat,
            client=None,
            counted=False,
        )
        opening = True  # (resumed at its version, the feed's first item is a heartbeat)
        try:
            async with contextlib.aclosing(source):
                async for item in source:
                    if item is not None:
                        snapshot = item.event == "snapshot"
                        self._send(encode_frame(tid, item.id, item.frame, snapshot=snapshot))
                        feed.advance(item.id)
                    elif not opening:
                        self._send(encode_heartbeat(tid, HEARTBEAT_FRAME))
                    opening = False
        except Exception as exc:  # the table's stream refused (it is gone): its streams end
            log.info("relayed table's stream ended", extra={"tableId": tid, "error": repr(exc)})
        finally:
            if self._feeds.get(tid) is feed:
                del self._feeds[tid]
                self._send(encode_end(tid))
            feed.advance(-1)  # a handover still waiting gives up

    # -- the channel --------------------------------------------------------------------------
    async def _started(self) -> bool:
        if self._channel is not None:
            return True
        if time.monotonic() < self._retry_at:
            return False
        if self._starting is None:
            self._starting = asyncio.get_running_loop().create_task(self._spawn())
        return await asyncio.shield(self._starting)

    async def _spawn(self) -> bool:
        try:
            try:
                ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            except (OSError, AttributeError) as exc:  # (no such sockets: not Linux)
                return self._not_started(exc)
            try:
                process = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-I",  # no environment, no user site: the standard library only
                    "-S",
                    RELAY_SCRIPT,
                    str(theirs.fileno()),
                    pass_fds=(theirs.fileno(),),
                    stdin=asyncio.subprocess.DEVNULL,
                )
            except OSError as exc:
                ours.close()
                return self._not_started(exc)
            finally:
                theirs.close()  # the process's copy is its own: its exit ends the channel here
        finally:
            self._starting = None
        if self.closed:
            ours.close()
            self._let_go(process)
            return False
        ours.setblocking(False)
        self._channel, self._process = ours, process
        asyncio.get_running_loop().add_reader(ours.fileno(), self._read)
        log.info("spectator relay started", extra={"pid": process.pid})
        return True

    def _not_started(self, exc: BaseException) -> bool:
        """One warning, and no other try for ``RETRY_SECONDS``: meanwhile spectators' streams
        stay in the service."""
        self._retry_at = time.monotonic() + RETRY_SECONDS
        log.warning(
            "spectator relay not started: spectators' streams stay in the service",
            extra={"error": repr(exc), "retryInSeconds": RETRY_SECONDS},
        )
        return False

    def _send(self, message: bytes, fd: int | None = None) -> bool:
        """Send ``message`` (with ``fd``, closed here once sent) in order: False when the
        channel is gone."""
        if self._channel is not None and not self._outbox:
            try:
                self._deliver(message, fd)
                return True
            except BlockingIOError:
                asyncio.get_running_loop().add_writer(self._channel.fileno(), self._flush)
            except OSError as exc:
                self._close_fd(fd)
                self._lost(exc)
                return False
        if self._channel is None:
            self._close_fd(fd)
            return False
        self._outbox.append((message, fd))
        self._outbox_bytes += len(message)
        if self._outbox_bytes > OUTBOX_BYTES:
            self._lost(RuntimeError(f"the relay took no message for {OUTBOX_BYTES} bytes"))
            return False
        return True

    def _deliver(self, message: bytes, fd: int | None) -> None:
        assert self._channel is not None
        if fd is None:
            self._channel.send(message)
        else:
            socket.send_fds(self._channel, [message], [fd])
            os.close(fd)

    def _flush(self) -> None:
        while self._outbox and self._channel is not None:
            message, fd = self._outbox[0]
            try:
                self._deliver(message, fd)
            except BlockingIOError:
                return
            except OSError as exc:
                self._lost(exc)
                return
            del self._outbox[0]
            self._outbox_bytes -= len(message)
        if self._channel is not None:
            asyncio.get_running_loop().remove_writer(self._channel.fileno())

    def _read(self) -> None:
        """The process's reports: streams closed; the channel's end is the process's."""
        while self._channel is not None:
            try:
                message = self._channel.recv(64)
            except BlockingIOError:
                return
            except OSError as exc:
                self._lost(exc)
                return
            if not message:
                self._lost(None)
                return
            try:
                report = decode(message)
            except ValueError:
                continue
            if report.kind == CLOSED:
                self._closed(report.handle)

    def _closed(self, handle: int) -> None:
        held = self._held.pop(handle, None)
        if held is None:
            return
        table_id, client = held
        self.watched.hub.release(table_id, client)
        left = self._per_table[table_id] - 1
        if left:
            self._per_table[table_id] = left
            return
        del self._per_table[table_id]
        feed = self._feeds.pop(table_id, None)  # (popped: its end sends no END)
        if feed is not None and feed.task is not None:
            feed.task.cancel()
        if not self._held and self._channel is not None and not self.closed:
            self._idle_timer = asyncio.get_running_loop().call_later(self.idle, self._idle_out)

    def _idle_out(self) -> None:
        self._idle_timer = None
        if not self._held:
            self._stop()

    def _lost(self, exc: Exception | None) -> None:
        """The channel failed or ended without being closed here: the process died."""
        if self._channel is None:
            return
        log.warning(
            "spectator relay lost: its streams ended",
            extra={"streams": len(self._held), "error": repr(exc)},
        )
        self._stop()

    def _stop(self) -> None:
        """Close the channel (the process ends its streams and exits), give every hold back,
        end the feeds, and see the process gone."""
        channel, process = self._channel, self._process
        self._channel = self._process = None
        if channel is not None:
            loop = asyncio.get_running_loop()
            loop.remove_reader(channel.fileno())
            loop.remove_writer(channel.fileno())
            channel.close()
        for _, fd in self._outbox:
            self._close_fd(fd)
        self._outbox.clear()
        self._outbox_bytes = 0
        for handle in list(self._held):
            self._closed(handle)
        for feed in self._feeds.values():
            if feed.task is not None:
                feed.task.cancel()
        self._feeds.clear()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if process is not None:
            self._let_go(process)

    def _let_go(self, process: asyncio.subprocess.Process) -> None:
        task = asyncio.get_running_loop().create_task(_reap(process), name="tables-relay-exit")
        self._exits.add(task)
        task.add_done_callback(self._exits.discard)

    async def close(self) -> None:
        """The server shuts down: the relayed streams end (with the chunked terminator) and
        the process exits."""
        self.closed = True
        if self._starting is not None:
            with contextlib.suppress(Exception):
                await self._starting
        self._stop()
        if self._exits:
            await asyncio.gather(*self._exits, return_exceptions=True)

    @staticmethod
    def _close_fd(fd: int | None) -> None:
        if fd is not None:
            os.close(fd)


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Wait for a process let go to exit (it does once its channel ends); kill a stuck one."""
    try:
        await asyncio.wait_for(process.wait(), EXIT_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()


@dataclass(frozen=True, slots=True)
class Handover:
    """A spectator's stream the transport may hand over to the relay once its first frame is
    written: ``version`` is the newest the stream has had (its snapshot's, or its resume's)."""

    relay: Relay
    table_id: str
    version: int
    client: str | None

    async def ready(self) -> bool:
        return await self.relay.ready(self.table_id, self.version)

    def take(self, fd: int) -> bool:
        return self.relay.take(self.table_id, self.version, self.client, fd)
