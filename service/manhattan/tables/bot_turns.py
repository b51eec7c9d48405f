"""Every bot decision of a table goes through ``bot_move``: the one place to swap the runner
(the lead switches it to the shared bounded pool, ``suggest(state, player, choice, deadline=...)``).

For now: a bounded process pool of its own (bots are CPU-bound: never on the event loop, nor in
threads, which share the GIL), fed the seat's ``View`` only, so a bot cannot see what its seat
cannot (RULES §11). A bot that fails or misses its deadline is replaced by a uniformly random
legal move, so a table never stalls on a bot.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
import secrets
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import manhattan
from manhattan import Move, State, View

log = logging.getLogger("manhattan.tables.bots")

DEFAULT_LEVEL = "greedy"
LEVELS = ("random", "greedy", "ismcts")


@dataclass(frozen=True, slots=True)
class BotChoice:
    """A bot seat's level and budget (the ``BotChoice`` of ``POST /v1/advance``)."""

    level: str = DEFAULT_LEVEL
    iterations: int | None = None
    time_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"level": self.level}
        if self.iterations is not None:
            out["iterations"] = self.iterations
        if self.time_ms is not None:
            out["timeMs"] = self.time_ms
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any] | None) -> BotChoice:
        obj = obj or {}
        return cls(obj.get("level", DEFAULT_LEVEL), obj.get("iterations"), obj.get("timeMs"))


def _suggest_in_worker(
    view: View, level: str, iterations: int | None, time_ms: int | None, seed: int
) -> dict[str, Any]:
    from manhattan.bots import suggest

    return suggest(
        view, level=level, iterations=iterations, time_ms=time_ms, seed=seed
    ).move.to_json()


class BotRunner:
    """A bounded process pool with deadlines. ``workers`` processes at most; made on first use."""

    def __init__(self, workers: int = 2, executor: Executor | None = None) -> None:
        self.workers = workers
        self._executor = executor

    def _pool(self) -> Executor:
        if self._executor is None:
            # spawn: a fork of a process running an event loop (and Redis sockets) is unsafe.
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context)
        return self._executor

    async def bot_move(
        self, state: State, player: int, choice: BotChoice, *, deadline: float
    ) -> Move:
        """A legal move for ``player`` (to move in ``state``) chosen from that player's view,
        by ``deadline`` (``time.monotonic()``); a random legal move if the bot fails or is late."""
        view = manhattan.view(state, player)
        seed = secrets.randbelow(2**31)
        if choice.level != "random":
            budget = max(0.05, deadline - time.monotonic())
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(
                self._pool(),
                _suggest_in_worker,
                view,
                choice.level,
                choice.iterations,
                choice.time_ms,
                seed,
            )
            try:
                found = await asyncio.wait_for(future, budget)
                return manhattan.check_move(state, Move.from_json(found))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a late or failed bot: the table goes on
                log.warning("bot failed; playing a random move", extra={"error": repr(exc)})
        moves = manhattan.legal_moves(state)
        return moves[random.Random(seed).randrange(len(moves))]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
