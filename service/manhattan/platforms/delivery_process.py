"""Deliveries made by a process of their own (DESIGN §10; docs/architecture.md says why).

On the service's event loop, every step of a delivery (a claim, the POST, its answer, the
outcome) waited its turn behind the moves and pushes of every table: flat out at 200 tables a
delivery arrived 1.4-2.4 s after its event (p99, README), and the loop spent on deliveries what
it did not spend on moves. Here the ``Deliverer`` runs the same way in a child process with a
loop of its own, which is idle but for deliveries; the service process only enqueues (right
after a change's write, as before) and rings the worker's *doorbell*, one byte on a pipe (a
full pipe is a bell already rung).

The worker claims from the same outbox as every replica's deliverer does (the SQLite file in
the data directory, or Redis), under the same leases: a worker that dies only delays what it
had claimed until the lease runs out, and the service starts another one (at once, or after a
pause that grows while workers keep dying young). The pipe is also how the worker learns the
service is gone: at its end of file (a graceful stop, or a ``kill -9`` of the service) it keeps
the outcomes it has, closes, and exits.

An outbox that lives in the service's memory (``:memory:``) cannot be shared: there the
deliverer stays on the service's loop (``Webhooks`` decides).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from manhattan.platforms.addresses import Network
from manhattan.platforms.delivery import Deliverer, DeliverySettings
from manhattan.platforms.outbox import Outbox
from manhattan.platforms.outbox_redis import PREFIX, RedisOutbox
from manhattan.platforms.outbox_sqlite import SqliteOutbox

log = logging.getLogger("manhattan.platforms.webhooks")

#: Seconds between looks at whether the worker is alive (and a restart after it died).
WATCH_SECONDS = 1.0
#: Seconds between restarts of a worker that keeps dying young, at most.
MAX_RESTART_SECONDS = 60.0
#: Seconds a closing worker gets to keep its outcomes and exit before it is killed.
CLOSE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class OutboxAddress:
    """Where an outbox lives, in a form a new process can open: Redis, or a data directory."""

    redis_url: str = ""
    data_path: Path | None = None
    claim_idle_ms: int = 30_000
    #: The outbox's key prefix in Redis.
    redis_prefix: str = PREFIX

    @property
    def shared(self) -> bool:
        """Whether another process can open the same outbox (not one in memory)."""
        return bool(self.redis_url) or self.data_path is not None

    def open(self) -> Outbox:
        if self.redis_url:
            return RedisOutbox(
                self.redis_url, prefix=self.redis_prefix, claim_idle_ms=self.claim_idle_ms
            )
        return SqliteOutbox(self.data_path)


class DeliveryProcess:
    """The service's handle on its delivery worker: start, ring, watch (and restart), close."""

    def __init__(
        self,
        address: OutboxAddress,
        allow: tuple[Network, ...],
        settings: DeliverySettings,
        setup: Callable[[], None] | None = None,
    ) -> None:
        self.address, self.allow, self.settings, self.setup = address, allow, settings, setup
        self._process: BaseProcess | None = None
        #: The service's end of the worker's doorbell pipe.
        self._bell: Connection | None = None
        self._ringing = False
        self._watch: asyncio.Task[None] | None = None
        #: Workers started, the first included (a restart is one more).
        self.started = 0
        self._started_at = 0.0

    def start(self) -> None:
        """Start the worker, and watch it. (Rings before it listens wait in the pipe.)"""
        self._spawn()
        self._watch = asyncio.create_task(self._watch_worker(), name="webhooks-worker-watch")

    def _spawn(self) -> None:
        context = multiprocessing.get_context("spawn")  # not a fork of a running loop
        bell_in, bell_out = context.Pipe(duplex=False)
        process = context.Process(
            target=work,
            args=(self.address, self.allow, self.settings, self.setup, bell_in),
            name="manhattan-webhooks",
            daemon=True,
        )
        process.start()
        bell_in.close()
        self._process, self._bell = process, bell_out
        os.set_blocking(bell_out.fileno(), False)
        self.started += 1
        self._started_at = time.monotonic()
        self.ring()  # its first look at the outbox

    def ring(self) -> None:
        """Tell the worker deliveries are waiting: once for all the rings of a turn of the
        event loop (the tables caught up together), never blocking (a full pipe is rung)."""
        if self._ringing:
            return
        try:
            asyncio.get_running_loop().call_soon(self._ring_now)
        except RuntimeError:  # no loop running (closing): at once
            self._ring_now()
            return
        self._ringing = True

    def _ring_now(self) -> None:
        self._ringing = False
        if self._bell is not None:
            with contextlib.suppress(BlockingIOError, BrokenPipeError):
                os.write(self._bell.fileno(), b"\x01")

    async def _watch_worker(self) -> None:
        """Start another worker when this one died: at once after one that lived a while,
        else after a pause doubling up to ``MAX_RESTART_SECONDS`` (a worker that cannot open
        its outbox neither spins nor floods the log)."""
        pause = 0.0
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            process = self._process
            if process is None or process.is_alive():
                continue
            self._close_bell()
            lived = time.monotonic() - self._started_at
            pause = 0.0 if lived > MAX_RESTART_SECONDS else min(MAX_RESTART_SECONDS, pause * 2 or 1)
            log.warning(
                "webhook worker exited; starting another",
                extra={"pid": process.pid, "exitCode": process.exitcode, "inSeconds": pause},
            )
            await asyncio.sleep(pause)
            try:
                self._spawn()
            except Exception as exc:  # (out of processes, say): try again next round
                log.warning("webhook worker did not start", extra={"error": repr(exc)})

    def _close_bell(self) -> None:
        if self._bell is not None:
            self._bell.close()
            self._bell = None

    async def close(self) -> None:
        """Stop watching, and let the worker finish: its bell's end of file, and SIGTERM (which
        ends a worker still starting at once, and a delivering one as its end of file does:
        it keeps its outcomes first)."""
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
        self._close_bell()
        process = self._process
        if process is None:
            return
        if process.is_alive():
            process.terminate()
        await asyncio.to_thread(process.join, CLOSE_SECONDS)
        if process.is_alive():
            log.warning("webhook worker did not stop; killed", extra={"pid": process.pid})
            process.kill()
            await asyncio.to_thread(process.join, CLOSE_SECONDS)
        self._process = None


class _Terminated:
    """SIGTERM's handler for the worker's whole life, so that SIGTERM always ends it with exit
    code 0. Before its loop runs, it ends the process at once; while the loop runs, it asks
    the loop to finish (the outcomes kept first); after, SIGTERM is ignored: the process is on
    its way out. (The loop's own ``add_signal_handler`` gave SIGTERM back to its default, a
    death by signal, when the loop closed; and the interpreter's finalization gives any Python
    handler back to the default too, but leaves an ignored signal ignored: a SIGTERM in either
    window killed a worker that had already finished.)"""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended: asyncio.Event | None = None
        self._over = False

    def running(self, loop: asyncio.AbstractEventLoop, ended: asyncio.Event) -> None:
        self._loop, self._ended = loop, ended

    def over(self) -> None:
        """The work is done (main thread): a late SIGTERM is ignored from here to the exit."""
        self._over = True
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def __call__(self, signum: int, frame: object) -> None:
        if self._over:
            return
        if self._loop is None or self._ended is None:
            raise SystemExit(0)
        with contextlib.suppress(RuntimeError):  # (the loop closed just now: ending anyway)
            self._loop.call_soon_threadsafe(self._ended.set)


def work(
    address: OutboxAddress,
    allow: tuple[Network, ...],
    settings: DeliverySettings,
    setup: Callable[[], None] | None,
    bell: Connection,
) -> None:
    """The worker process: deliver until the bell's end of file (or SIGTERM)."""
    terminated = _Terminated()
    signal.signal(signal.SIGTERM, terminated)
    # Ctrl-C in a terminal reaches the whole process group: the service stops us itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if setup is not None:
        setup()
    try:
        asyncio.run(_deliver(address, allow, settings, bell, terminated))
    finally:
        terminated.over()


async def _deliver(
    address: OutboxAddress,
    allow: tuple[Network, ...],
    settings: DeliverySettings,
    bell: Connection,
    terminated: _Terminated,
) -> None:
    loop = asyncio.get_running_loop()
    outbox = address.open()
    deliverer = Deliverer(outbox, allow, settings)
    ended = asyncio.Event()
    fd = bell.fileno()
    os.set_blocking(fd, False)

    def rung() -> None:
        try:
            heard = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            heard = b""
        if heard:
            deliverer.poke()
        else:  # the service closed its end, or died
            loop.remove_reader(fd)
            ended.set()

    loop.add_reader(fd, rung)
    terminated.running(loop, ended)
    running = asyncio.create_task(deliverer.run(), name="webhooks-deliver")
    try:
        await ended.wait()
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        await deliverer.close()
        await outbox.close()
