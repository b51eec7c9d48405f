"""A bounded pool of bot worker processes: every bot move the service plays runs here.

Bots are CPU-bound Python: on the event loop or in a thread they hold the GIL and every other
request waits. The pool keeps ``workers`` processes (``bots/worker.py``), each running one task
at a time, and a bounded queue of requests waiting for one; a full queue (or a wait that
outlives the request's deadline) raises ``BotsBusy`` with a ``retry_after`` (503 ``BOTS_BUSY``).

Every call has a wall-clock deadline (``time.monotonic()`` seconds), capped at
``deadline_seconds`` from the call whatever the bot's budget says. The worker's search stops
there (``stats.stoppedBy == "deadline"``); a worker that has not answered ``grace_seconds``
after it is stuck, and is killed and replaced (``BotFailed``). A cancelled call (the client went
away) writes a cancel to the worker, whose search looks for input between iterations: it stops
within one iteration, its answer is drained and it serves the next request. Tables and the API
call the same ``suggest(state, player, choice, deadline=...)``.

Workers are fresh interpreters (``python -m manhattan.bots.worker``, talking over their stdin and
stdout), never forks of the service, whose threads, sockets and keys a fork would copy. The pool
belongs to one event loop at a time; it starts workers on first use, or all at once with
``start()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import subprocess
import sys
import time
import weakref
from collections import deque
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

import msgspec

from manhattan.bots import BOTS, LEVELS, BotChoice, BotError, Suggestion
from manhattan.bots.worker import CANCEL, READY, Task
from manhattan.engine import IllegalMoveError, State, check_move
from manhattan.settings import Settings, SettingsError, variable

log = logging.getLogger("manhattan.bots")

DEFAULT_QUEUE = 16
DEFAULT_DEADLINE_SECONDS = 5.0
GRACE_SECONDS = 1.0
#: How long a new worker may take to import the bots (a loaded machine is slow to start one).
STARTUP_SECONDS = 60.0


def default_workers() -> int:
    """One worker per core but one, left to the event loop (at least 1, at most 4)."""
    return max(1, min(4, usable_cpus() - 1))


def usable_cpus(cpu_max: str = "/sys/fs/cgroup/cpu.max") -> int:
    """The cores this process may use: its CPU affinity, lowered by a cgroup v2 CPU quota (a
    container's CPU limit, which the affinity does not show)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        cpus = os.cpu_count() or 1
    try:
        with open(cpu_max) as limit:
            quota, _, period = limit.read().partition(" ")
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return cpus


class BotsBusy(Exception):
    """No worker could take the request in time: 503 ``BOTS_BUSY`` with ``Retry-After``."""

    code = "BOTS_BUSY"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class BotFailed(Exception):
    """A bug: a bot raised, returned an illegal move, or its worker died or hung (a 500)."""


class PoolLoad(msgspec.Struct, frozen=True, rename="camel"):
    """What the pool is doing now (``/readyz``, cost budgets); ``to_json`` is its fields in
    order, camelCased."""

    workers: int  # the configured number of worker processes
    running: int  # worker processes alive now
    busy: int  # of which working on a request (or draining a cancelled one)
    queued: int  # requests waiting for a worker
    queue_limit: int
    deadline_ms: int

    @property
    def free(self) -> int:
        """Requests the pool could take now without queueing."""
        return self.workers - self.busy

    def to_json(self) -> dict[str, Any]:
        answer: dict[str, Any] = msgspec.to_builtins(self)
        return answer


class _Worker:
    __slots__ = ("answers", "deadline", "process", "tasks")

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "manhattan.bots.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.tasks = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.answers = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()
        self.deadline = 0.0  # when its current task's search must stop

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        self.tasks.close()
        self.answers.close()

    def kill(self) -> None:
        self.close()
        if self.alive:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(1.0)


def _stop_processes(workers: list[_Worker]) -> None:
    """Ask every worker to exit, then kill what is left (also run when a pool is collected)."""
    for worker in workers:
        with contextlib.suppress(OSError, ValueError):
            worker.tasks.send(None)
        worker.close()
    deadline = time.monotonic() + 1.0
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.process.wait(max(0.01, deadline - time.monotonic()))
        worker.kill()
    workers.clear()


_POOLS: weakref.WeakSet[BotPool] = weakref.WeakSet()


def shutdown_all() -> None:
    """Stop the workers of every pool in this process (a test run's teardown)."""
    for pool in list(_POOLS):
        pool.shutdown()


class BotPool:
    """``workers`` bot processes and a queue of at most ``queue`` waiting requests."""

    def __init__(
        self,
        *,
        workers: int | None = None,
        queue: int = DEFAULT_QUEUE,
        deadline_seconds: float = DEFAULT_DEADLINE_SECONDS,
        grace_seconds: float = GRACE_SECONDS,
    ) -> None:
        size = default_workers() if workers is None else workers
        if size < 1 or queue < 0 or not deadline_seconds > 0 or not grace_seconds > 0:
            raise ValueError("a bot pool needs workers >= 1, queue >= 0 and positive times")
        self.size = size
        self.queue_limit = queue
        self.deadline_seconds = deadline_seconds
        self.grace_seconds = grace_seconds
        self._workers: list[_Worker] = []  # alive (or not yet found dead)
        self._idle: list[_Worker] = []
        self._starting = 0
        self._waiters: deque[asyncio.Future[_Worker]] = deque()  # searches
        self._quick: deque[asyncio.Future[_Worker]] = deque()  # bots that answer at once
        self._tasks: set[asyncio.Task[None]] = set()
        self._finalizer = weakref.finalize(self, _stop_processes, self._workers)
        _POOLS.add(self)

    # -- life ---------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start every worker now (the app's startup), so the first requests do not wait."""
        missing = self.size - len(self._workers) - self._starting
        if missing > 0:
            started = await asyncio.gather(*(self._start_worker() for _ in range(missing)))
            for worker in started:
                self._release(worker)

    async def close(self) -> None:
        """Stop every worker (the app's shutdown); a later call starts them again."""
        workers = self._detach()
        await asyncio.to_thread(_stop_processes, workers)

    def shutdown(self) -> None:
        """``close`` from outside the pool's loop (at exit, after a test)."""
        _stop_processes(self._detach())

    def _detach(self) -> list[_Worker]:
        """Every worker, taken from the pool; waiting requests get ``BotsBusy``."""
        for lane in (self._quick, self._waiters):
            while lane:
                waiter = lane.popleft()
                if not waiter.done() and not waiter.get_loop().is_closed():
                    waiter.get_loop().call_soon_threadsafe(_fail_waiter, waiter)
        workers = list(self._workers)
        self._workers.clear()  # the same list the finalizer holds
        self._idle.clear()
        return workers

    def load(self) -> PoolLoad:
        return PoolLoad(
            workers=self.size,
            running=len(self._workers),
            busy=len(self._workers) - len(self._idle),
            queued=self._queued(),
            queue_limit=self.queue_limit,
            deadline_ms=round(self.deadline_seconds * 1000),
        )

    def deadline(self) -> float:
        """The latest deadline a request starting now may have (``time.monotonic()``)."""
        return time.monotonic() + self.deadline_seconds

    # -- the call -----------------------------------------------------------------------------
    async def suggest(
        self,
        state: State,
        player: int,
        choice: BotChoice,
        *,
        deadline: float | None = None,
        moves_left: int = 1,
    ) -> Suggestion:
        """The move of ``choice``'s bot for ``player`` (who must be to move), computed in a worker
        from the player's view of ``state``, its move checked against ``state``.

        ``deadline`` (``time.monotonic()`` seconds, capped at ``deadline_seconds`` from now) is
        when the answer is due: a search stops there, and a request still queued then gets
        ``BotsBusy``. ``moves_left`` > 1 says this is the first of that many bot moves due by
        ``deadline`` (an ``advance``): its search gets an equal share of the time left when a
        worker takes it. Bots that do not search (``random``, ``greedy``) are served before
        searches that wait. Raises ``BotError`` (``INVALID_BOT``, ``NOT_YOUR_TURN``),
        ``BotsBusy`` or ``BotFailed``; cancelling the call stops the worker's search."""
        cap = self.deadline()
        deadline = cap if deadline is None else min(deadline, cap)
        worker = await self._acquire(deadline, quick=not BOTS[choice.level].searches)
        now = time.monotonic()
        stop_at = now + max(0.0, deadline - now) / max(1, moves_left)
        task = Task(state.to_msgpack(), player, choice, stop_at)
        reply = await self._call(worker, task, stop_at + self.grace_seconds)
        kind = reply[0]
        if kind == "refused":
            raise BotError(reply[2], code=reply[1])
        if kind == "failed":
            log.error("a bot failed", extra={"level": choice.level, "traceback": reply[1]})
            raise BotFailed(f"the {choice.level} bot failed")
        suggestion: Suggestion = reply[1]
        try:
            move = check_move(state, suggestion.move)
        except IllegalMoveError as exc:
            log.error("a bot suggested an illegal move", extra={"move": str(suggestion.move)})
            raise BotFailed(f"the {choice.level} bot suggested an illegal move") from exc
        return replace(suggestion, move=move)

    async def _acquire(self, deadline: float, *, quick: bool) -> _Worker:
        while self._idle:
            worker = self._idle.pop()
            if worker.alive:
                return worker
            self._retire(worker, "exited while idle")
        if len(self._workers) + self._starting < self.size:
            return await self._start_worker()
        if self._queued() >= self.queue_limit:
            raise BotsBusy(
                f"all {self.size} bot workers are busy and {self.queue_limit} requests wait",
                self._retry_after(),
            )
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[_Worker] = loop.create_future()
        lane = self._quick if quick else self._waiters
        lane.append(waiter)

        def expire() -> None:
            if not waiter.done():
                waiter.set_exception(
                    BotsBusy("no bot worker was free before the deadline", self._retry_after())
                )

        timer = loop.call_at(loop.time() + max(0.0, deadline - time.monotonic()), expire)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._release(waiter.result())  # handed over just as the caller went away
            raise
        finally:
            timer.cancel()
            with contextlib.suppress(ValueError):
                lane.remove(waiter)

    async def _call(self, worker: _Worker, task: Task, until: float) -> tuple[Any, ...]:
        loop = asyncio.get_running_loop()
        fd = worker.answers.fileno()
        ready: asyncio.Future[None] = loop.create_future()
        worker.deadline = until - self.grace_seconds
        loop.add_reader(fd, _set_ready, ready)
        try:
            try:
                worker.tasks.send(task)
            except OSError:
                loop.remove_reader(fd)
                self._retire(worker, "its pipe is closed")
                raise BotFailed("a bot worker exited") from None
            try:
                # a task sent late (its worker just started) still gets one iteration
                wait = max(until - time.monotonic(), self.grace_seconds)
                await asyncio.wait_for(ready, wait)
            except TimeoutError:
                loop.remove_reader(fd)
                self._retire(worker, "it did not stop by its deadline")
                raise BotFailed("a bot worker did not answer by its deadline") from None
        except asyncio.CancelledError:
            loop.remove_reader(fd)
            self._drain(worker, loop)
            raise
        loop.remove_reader(fd)
        try:
            reply: tuple[Any, ...] = worker.answers.recv()
        except (EOFError, OSError):
            self._retire(worker, "it exited")
            raise BotFailed("a bot worker exited") from None
        self._release(worker)
        return reply

    def _drain(self, worker: _Worker, loop: asyncio.AbstractEventLoop) -> None:
        """The caller is gone: stop the worker's search, then drop its answer and free it (or
        replace it if it does not answer within the grace time)."""
        fd = worker.answers.fileno()
        try:
            worker.tasks.send(CANCEL)
        except OSError:
            self._retire(worker, "its pipe is closed")
            return

        def drained() -> None:
            loop.remove_reader(fd)
            timer.cancel()
            try:
                worker.answers.recv()
            except (EOFError, OSError):
                self._retire(worker, "it exited")
                return
            self._release(worker)

        def too_slow() -> None:
            loop.remove_reader(fd)
            self._retire(worker, "it did not stop when cancelled")

        loop.add_reader(fd, drained)
        timer = loop.call_later(self.grace_seconds, too_slow)

    # -- workers ------------------------------------------------------------------------------
    async def _start_worker(self) -> _Worker:
        """A new worker, once it has said it is ready (its start does not count against any
        request's deadline: ``start()`` at the app's startup makes them all beforehand)."""
        self._starting += 1
        try:
            worker = _Worker()
            loop = asyncio.get_running_loop()
            ready: asyncio.Future[None] = loop.create_future()
            fd = worker.answers.fileno()
            loop.add_reader(fd, _set_ready, ready)
            try:
                await asyncio.wait_for(ready, STARTUP_SECONDS)
                hello = worker.answers.recv()
            except (TimeoutError, EOFError, OSError, asyncio.CancelledError):
                worker.kill()
                raise
            finally:
                loop.remove_reader(fd)
            if hello != READY:
                worker.kill()
                raise BotFailed(f"a bot worker started with {hello!r}")
        finally:
            self._starting -= 1
        self._workers.append(worker)
        return worker

    def _release(self, worker: _Worker) -> None:
        """A free worker: to the first live waiter, else idle."""
        if worker not in self._workers:
            return  # retired meanwhile (the pool was shut down)
        for lane in (self._quick, self._waiters):
            while lane:
                waiter = lane.popleft()
                if not waiter.done() and not waiter.get_loop().is_closed():
                    waiter.set_result(worker)
                    return
        self._idle.append(worker)

    def _retire(self, worker: _Worker, why: str) -> None:
        worker.kill()
        if worker not in self._workers:
            return  # the pool was closed meanwhile
        log.warning("replacing a bot worker: %s", why, extra={"pid": worker.process.pid})
        self._workers.remove(worker)
        if worker in self._idle:
            self._idle.remove(worker)
        with contextlib.suppress(RuntimeError):  # no loop: the next request starts one
            task = asyncio.get_running_loop().create_task(self._replace())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _replace(self) -> None:
        """A worker in place of a lost one, started now rather than by the next request."""
        if len(self._workers) + self._starting < self.size:
            try:
                worker = await self._start_worker()
            except Exception:  # the next request tries again
                log.exception("could not start a bot worker")
                return
            self._release(worker)

    def _queued(self) -> int:
        return sum(1 for lane in (self._quick, self._waiters) for w in lane if not w.done())

    def _retry_after(self) -> int:
        """Seconds until the busy worker due first stops its search (at least 1)."""
        busy = [w.deadline for w in self._workers if w not in self._idle]
        soonest = min(busy, default=time.monotonic() + self.deadline_seconds)
        return max(1, math.ceil(soonest - time.monotonic()))


def _fail_waiter(waiter: asyncio.Future[_Worker]) -> None:
    if not waiter.done():
        waiter.set_exception(BotsBusy("the bot pool is shutting down", 1))


def _set_ready(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def check_bot_settings(settings: Settings) -> None:
    """The settings only the bots can check (settings know no bots): the stand-in level is one
    of the bots' levels. ``SettingsError`` naming the variable otherwise."""
    level = settings.table_stand_in_level
    if level not in LEVELS:
        expected = f"{', '.join(LEVELS[:-1])} or {LEVELS[-1]}"
        raise SettingsError(f"{variable('table_stand_in_level')}={level!r}: expected {expected}")


def pool_from_settings(settings: Settings) -> BotPool:
    """The pool ``Settings`` describe (``bot_workers``, ``bot_queue``, ``bot_deadline_ms``), once
    the bots' settings are checked (``check_bot_settings``)."""
    check_bot_settings(settings)
    return BotPool(
        workers=settings.bot_workers or None,
        queue=settings.bot_queue,
        deadline_seconds=settings.bot_deadline_ms / 1000,
    )
