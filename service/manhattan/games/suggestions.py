"""``suggestMove`` and ``advance``'s bot moves: this service's caps on a bot choice
(``BotBudget``), the hand-off to the bot pool (``manhattan.bot_pool``: worker processes, never
the event loop) and the cache of reproducible suggestions. The bots themselves, their
``BotChoice`` and their ``Suggestion`` live in ``manhattan.bots``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import msgpack

import manhattan
from manhattan import Move, State
from manhattan.bot_pool import BotPool, BotsBusy
from manhattan.bots import LEVELS, Alternative, BotChoice, BotError, Suggestion
from manhattan.bots.choice import SERVICE_MAX_ITERATIONS, SERVICE_MAX_TIME_MS
from manhattan.games.errors import GameError


@dataclass(frozen=True, slots=True)
class BotBudget:
    """This service's caps on a bot's budget (``MANHATTAN_BOT_MAX_*``): at most what a request
    may ask for anywhere (``BotChoice``'s field bounds, also where a cap is None), lower if the
    settings say so."""

    max_iterations: int | None = None
    max_time_ms: int | None = None

    def admit(self, choice: BotChoice) -> BotChoice:
        """``choice`` itself, if its budget is within these caps; else ``INVALID_BOT``."""
        most_iterations = self.max_iterations or SERVICE_MAX_ITERATIONS
        most_ms = self.max_time_ms or SERVICE_MAX_TIME_MS
        if choice.iterations is not None and not 1 <= choice.iterations <= most_iterations:
            raise GameError("INVALID_BOT", f"iterations is 1 to {most_iterations} here")
        if choice.time_ms is not None and not 1 <= choice.time_ms <= most_ms:
            raise GameError("INVALID_BOT", f"timeMs is 1 to {most_ms} here")
        return choice


def suggestion_key(state_id: str, player: int, choice: BotChoice) -> str:
    """The cache key of a reproducible suggestion: state, player, level, budget and seed."""
    return f"{state_id}:{player}:{choice.level}:{choice.iterations}:{choice.seed}"


def encode_suggestion(suggestion: Suggestion) -> bytes:
    data: bytes = msgpack.packb(
        {
            "move": suggestion.move.to_json(),
            "bot": suggestion.bot,
            "stats": suggestion.stats,
            "alternatives": [
                [a.move.to_json(), a.visits, a.mean_score] for a in suggestion.alternatives
            ],
        }
    )
    return data


def decode_suggestion(data: bytes, state: State) -> Suggestion:
    """A cached suggestion, its move re-checked against ``state``. It is returned exactly as it
    was computed: a "cached" flag would tell a player whether someone asked about the same full
    state before (the cache metrics count hits instead)."""
    obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    move = manhattan.check_move(state, Move.from_json(obj["move"]))
    alternatives = [
        Alternative(Move.from_json(m), int(v), float(s)) for m, v, s in obj["alternatives"]
    ]
    return Suggestion(move, obj["bot"], alternatives, obj["stats"])


def bot_levels() -> list[str]:
    return list(LEVELS)


async def suggest_move(
    pool: BotPool,
    state: State,
    player: int,
    choice: BotChoice,
    *,
    deadline: float | None,
    moves_left: int = 1,
) -> Suggestion:
    """The bot's move, computed by the pool; its refusals and a full pool as game errors (a bug
    in a bot, ``BotFailed``, is left to the 500 handler, which logs it)."""
    try:
        return await pool.suggest(state, player, choice, deadline=deadline, moves_left=moves_left)
    except BotError as exc:
        code = exc.code if exc.code in ("INVALID_BOT", "NOT_YOUR_TURN") else "INVALID_BOT"
        raise GameError(code, exc.message) from None
    except BotsBusy as exc:
        raise GameError(
            "BOTS_BUSY", exc.message, headers={"Retry-After": str(exc.retry_after)}
        ) from None


@dataclass(frozen=True, slots=True)
class BotTurn:
    """The bot work of one request that may ask for several moves (GraphQL aliases of
    ``suggestMove``): one deadline for all of them, and one at a time, so that a request holds at
    most one place in the bot pool and its total work is bounded by one deadline."""

    deadline: float
    lock: asyncio.Lock


def bot_turn(context: dict[str, Any], pool: BotPool) -> BotTurn:
    """The request's ``BotTurn``, made on its first bot field (``context``: the request's)."""
    turn: BotTurn | None = context.get("botTurn")
    if turn is None:
        turn = context["botTurn"] = BotTurn(pool.deadline(), asyncio.Lock())
    return turn
