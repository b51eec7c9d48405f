"""The bot pool: deadlines whatever the budget, a bounded queue, cancellation that reaches the
worker, stuck workers replaced, bugs reported as bugs, and no process left behind."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

import manhattan
from manhattan.bench.engine import mid_game_state
from manhattan.bot_pool import (
    BotFailed,
    BotPool,
    BotsBusy,
    check_bot_settings,
    default_workers,
    pool_from_settings,
    usable_cpus,
)
from manhattan.bots import LEVELS, BotChoice, BotError
from manhattan.bots.choice import SERVICE_MAX_ITERATIONS
from manhattan.bots.worker import Task
from manhattan.bots.worker import run as run_task
from manhattan.games import BotBudget, GameError
from manhattan.settings import Settings, SettingsError

pytestmark = pytest.mark.anyio

STATE = mid_game_state()
MOVER = STATE.to_move or 0
LONG = BotChoice("ismcts", iterations=1_000_000)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def pool() -> AsyncIterator[BotPool]:
    # The grace is generous: these tests are about deadlines the worker keeps, and a worker
    # starved of the CPU for half a second (the whole suite on two cores) was killed as stuck
    # (a stuck worker has its own test, with its own pool).
    made = BotPool(workers=1, queue=1, deadline_seconds=0.6, grace_seconds=2.0)
    await made.start()
    yield made
    await made.close()


async def until(condition: Callable[[], bool], seconds: float = 2.0) -> None:
    """Wait for ``condition`` (a busy machine may take a while to schedule a task)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


def _pids(pool: BotPool) -> list[int]:
    return [w.process.pid for w in pool._workers]


async def test_a_suggestion_is_a_legal_move_of_the_player_from_their_view(pool: BotPool) -> None:
    found = await pool.suggest(STATE, MOVER, BotChoice("greedy", seed=3))
    assert found.move in manhattan.legal_moves(STATE)
    assert found.stats["level"] == "greedy" and found.stats["stoppedBy"] == "done"
    # the same as the bot in this process, on the same view
    local = manhattan.bots.suggest(manhattan.view(STATE, MOVER), level="greedy", seed=3)
    assert found.move == local.move


async def test_an_iteration_budget_stops_at_the_deadline_and_says_so(pool: BotPool) -> None:
    start = time.monotonic()
    found = await pool.suggest(STATE, MOVER, LONG)
    elapsed = time.monotonic() - start
    assert elapsed < 0.6 + 1.0
    assert found.stats["stoppedBy"] == "deadline"
    assert 1 <= found.stats["iterations"] < 1_000_000
    assert found.move == found.alternatives[0].move


async def test_a_sooner_deadline_of_the_caller_wins() -> None:
    """A pool deadline far from the caller's, so a worker starved of the CPU for a while (the
    whole suite on two cores once took 0.5 s of the worker's own clock for a 0.2 s deadline)
    still tells the two apart."""
    pool = BotPool(workers=1, queue=1, deadline_seconds=8.0, grace_seconds=2.0)
    await pool.start()
    try:
        found = await pool.suggest(STATE, MOVER, LONG, deadline=time.monotonic() + 0.2)
    finally:
        await pool.close()
    assert found.stats["stoppedBy"] == "deadline"
    assert found.stats["timeMs"] < 4000  # the worker's own clock: 0.2 s, not the pool's 8 s


async def test_a_small_budget_is_reproducible_within_the_deadline() -> None:
    """The same seed and iterations give the same move and alternatives. A deadline of its own
    that 40 iterations keep on a loaded machine: at the fixture's 0.6 s, the whole suite on two
    cores once stopped the second search by the deadline, at fewer iterations."""
    pool = BotPool(workers=1, queue=1, deadline_seconds=10.0, grace_seconds=2.0)
    await pool.start()
    try:
        choice = BotChoice("ismcts", seed=9, iterations=40)
        first = await pool.suggest(STATE, MOVER, choice)
        again = await pool.suggest(STATE, MOVER, choice)
    finally:
        await pool.close()
    for found in (first, again):
        assert found.stats["stoppedBy"] == "iterations" and found.stats["iterations"] == 40
    assert (first.move, first.alternatives) == (again.move, again.alternatives)


async def test_a_full_queue_is_busy_with_a_retry_after() -> None:
    pool = BotPool(workers=1, queue=1, deadline_seconds=5.0)
    try:
        await pool.start()
        soon = time.monotonic() + 0.6
        running = asyncio.ensure_future(pool.suggest(STATE, MOVER, LONG, deadline=soon))
        await until(lambda: pool.load().busy == 1)
        queued = asyncio.ensure_future(pool.suggest(STATE, MOVER, BotChoice("greedy")))
        await until(lambda: pool.load().queued == 1)
        with pytest.raises(BotsBusy) as caught:
            await pool.suggest(STATE, MOVER, BotChoice("greedy"))
        assert caught.value.retry_after == 1  # the running search stops within the second
        assert (await running).stats["stoppedBy"] == "deadline"
        assert (await queued).stats["level"] == "greedy"  # served once the worker was free
    finally:
        await pool.close()


async def test_a_request_still_queued_at_its_deadline_is_busy() -> None:
    """Refused at its own deadline (0.1 s), long before the running search's (8 s): bounds far
    apart, so a loaded machine's late wake-up cannot blur them."""
    pool = BotPool(workers=1, queue=1, deadline_seconds=8.0, grace_seconds=2.0)
    await pool.start()
    running = asyncio.ensure_future(pool.suggest(STATE, MOVER, LONG))
    try:
        await until(lambda: pool.load().busy == 1)
        start = time.monotonic()
        with pytest.raises(BotsBusy):
            await pool.suggest(STATE, MOVER, BotChoice("greedy"), deadline=time.monotonic() + 0.1)
        assert time.monotonic() - start < 3.0
        assert not running.done()
    finally:
        running.cancel()
        await pool.close()


async def test_cancelling_a_call_stops_the_worker_and_frees_it() -> None:
    pool = BotPool(workers=1, queue=1, deadline_seconds=30.0)
    try:
        await pool.start()
        pids = _pids(pool)
        task = asyncio.ensure_future(pool.suggest(STATE, MOVER, LONG))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        start = time.monotonic()
        found = await pool.suggest(STATE, MOVER, BotChoice("greedy"))
        # the 30 s search stopped: the same worker answers the next request at once
        assert time.monotonic() - start < 2.0
        assert found.stats["level"] == "greedy" and _pids(pool) == pids
    finally:
        await pool.close()


async def test_a_stuck_worker_is_replaced() -> None:
    pool = BotPool(workers=1, queue=1, deadline_seconds=0.3, grace_seconds=0.3)
    try:
        await pool.start()
        [pid] = _pids(pool)
        await pool.suggest(STATE, MOVER, BotChoice("random"))  # the worker is up
        os.kill(pid, signal.SIGSTOP)  # it cannot answer any more
        start = time.monotonic()
        with pytest.raises(BotFailed):
            await pool.suggest(STATE, MOVER, BotChoice("greedy"))
        assert time.monotonic() - start < 0.3 + 0.3 + 2.5  # found out, not waited on forever
        found = await pool.suggest(STATE, MOVER, BotChoice("greedy"))
        assert found.stats["level"] == "greedy" and _pids(pool) != [pid]
    finally:
        await pool.close()


async def test_refusals_keep_their_code(pool: BotPool) -> None:
    other = (MOVER + 1) % STATE.rules.players
    with pytest.raises(BotError) as caught:
        await pool.suggest(STATE, other, BotChoice("greedy"))
    assert caught.value.code == "NOT_YOUR_TURN"


def test_a_bug_in_a_bot_is_a_failure_with_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    from manhattan.bots import levels

    def broken(self: object, view: object, stop: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(levels.GreedyBot, "decide", broken)
    answer = run_task(Task(STATE.to_msgpack(), MOVER, BotChoice("greedy"), time.monotonic() + 1))
    assert answer[0] == "failed" and "ZeroDivisionError: a bug" in answer[1]
    other = (MOVER + 1) % STATE.rules.players
    refused = run_task(Task(STATE.to_msgpack(), other, BotChoice("greedy"), time.monotonic()))
    assert refused[:2] == ("refused", "NOT_YOUR_TURN")


def test_a_task_crosses_the_pipe_whole_and_equal() -> None:
    """The worker's frames carry the ``BotChoice`` itself: it arrives equal, as a ``BotChoice``,
    also beyond the wire's bounds (``advance`` plays seed + k; a tournament longer budgets)."""
    sent = Task(STATE.to_msgpack(), MOVER, BotChoice("ismcts", 2**31 + 7, 50_000), 12.5)
    ours, theirs = multiprocessing.Pipe()
    try:
        ours.send(sent)
        received = theirs.recv()
    finally:
        ours.close()
        theirs.close()
    assert received == sent and type(received.choice) is BotChoice


async def test_the_worker_plays_the_choice_it_was_sent(pool: BotPool) -> None:
    choice = BotChoice("ismcts", seed=2**31 + 7, iterations=5)
    found = await pool.suggest(STATE, MOVER, choice)
    assert (found.bot, found.stats["level"], found.stats["seed"]) == ("ismcts", "ismcts", 2**31 + 7)
    assert found.stats["iterations"] == 5 and found.reproducible
    again = await pool.suggest(STATE, MOVER, choice)
    assert again.move == found.move and again.alternatives == found.alternatives


async def test_close_leaves_no_process() -> None:
    pool = BotPool(workers=2, queue=0, deadline_seconds=1.0)
    await pool.start()
    await asyncio.gather(*(pool.suggest(STATE, MOVER, BotChoice("random")) for _ in range(2)))
    processes = [w.process for w in pool._workers]
    assert len(processes) == 2
    await pool.close()
    assert all(p.poll() is not None for p in processes)
    assert pool.load().running == 0
    # a closed pool starts again on demand (an app whose shutdown ran, driven again)
    assert (await pool.suggest(STATE, MOVER, BotChoice("random"))).move
    pool.shutdown()


def test_settings_and_defaults(tmp_path: Path) -> None:
    assert 1 <= default_workers() <= 4
    assert default_workers() <= max(1, (os.cpu_count() or 1) - 1)
    with pytest.raises(ValueError):
        BotPool(workers=0)
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("150000 100000\n")  # a container limited to 1.5 cores
    assert usable_cpus(str(cpu_max)) == min(2, len(os.sched_getaffinity(0)))
    cpu_max.write_text("max 100000\n")
    assert usable_cpus(str(cpu_max)) == len(os.sched_getaffinity(0))
    assert usable_cpus(str(tmp_path / "absent")) == len(os.sched_getaffinity(0))
    settings = Settings.from_env(
        {
            "MANHATTAN_BOT_WORKERS": "3",
            "MANHATTAN_BOT_QUEUE": "0",
            "MANHATTAN_BOT_DEADLINE_MS": "800",
        }
    )
    made = pool_from_settings(settings)
    assert (made.size, made.queue_limit, made.deadline_seconds) == (3, 0, 0.8)
    assert pool_from_settings(Settings()).size == default_workers()
    with pytest.raises(SettingsError):
        Settings.from_env({"MANHATTAN_BOT_WORKERS": "-1"})


async def test_quick_bots_are_served_before_waiting_searches() -> None:
    # The waiting search's deadline is far enough that a slow machine cannot expire it in the
    # queue (which would finish it first, with BOTS_BUSY); the running one stops after 1 s.
    pool = BotPool(workers=1, queue=4, deadline_seconds=4.0)
    try:
        await pool.start()
        running = asyncio.ensure_future(
            pool.suggest(STATE, MOVER, LONG, deadline=time.monotonic() + 1.0)
        )
        await asyncio.sleep(0.1)
        search = asyncio.ensure_future(pool.suggest(STATE, MOVER, LONG, deadline=pool.deadline()))
        await asyncio.sleep(0.05)
        greedy = asyncio.ensure_future(pool.suggest(STATE, MOVER, BotChoice("greedy")))
        done, _ = await asyncio.wait({search, greedy}, return_when=asyncio.FIRST_COMPLETED)
        assert done == {greedy}  # queued after the search, served before it
        await asyncio.gather(running, search, greedy)
    finally:
        await pool.close()


async def test_moves_left_share_the_time_left_when_a_worker_takes_the_move() -> None:
    pool = BotPool(workers=1, queue=1, deadline_seconds=3.0, grace_seconds=1.0)
    try:
        found = await pool.suggest(STATE, MOVER, LONG, moves_left=3)
    finally:
        await pool.close()
    # about a third of the 3 s deadline (slack for a loaded machine), not all of it
    assert found.stats["timeMs"] < 2000 and found.stats["stoppedBy"] == "deadline"


def test_the_bots_check_their_own_settings() -> None:
    """Settings know no bots: a stand-in level is read as text, and the bot pool (which knows
    both) refuses one the bots do not have, naming the variable, before any pool is made."""
    assert Settings().table_stand_in_level in LEVELS
    for level in LEVELS:
        check_bot_settings(Settings.from_env({"MANHATTAN_TABLE_STAND_IN_LEVEL": level}))
    wrong = Settings.from_env({"MANHATTAN_TABLE_STAND_IN_LEVEL": "clever"})
    with pytest.raises(SettingsError, match="MANHATTAN_TABLE_STAND_IN_LEVEL='clever'"):
        pool_from_settings(wrong)


def test_unset_bot_caps_are_the_bots_own_bounds() -> None:
    settings = Settings.from_env({"MANHATTAN_BOT_MAX_TIME_MS": "50"})
    assert (settings.bot_max_iterations, settings.bot_max_time_ms) == (None, 50)
    budget = BotBudget(settings.bot_max_iterations, settings.bot_max_time_ms)
    most = BotChoice.of("ismcts", iterations=SERVICE_MAX_ITERATIONS, time_ms=50)
    assert budget.admit(most) is most
    with pytest.raises(GameError, match="timeMs is 1 to 50 here"):
        budget.admit(BotChoice.of("ismcts", time_ms=51))
