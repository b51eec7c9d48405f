"""``suggestMove`` and ``advance``'s bot moves: the bot choice a request may make, the hand-off
to the bot pool (``manhattan.bot_pool``: worker processes, never the event loop) and the cache
key of a reproducible suggestion. The bots themselves live in ``manhattan.bots``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import msgpack

import manhattan
from manhattan import Move, State
from manhattan.api.errors import ApiError
from manhattan.bot_pool import BotPool, BotsBusy
from manhattan.bots import LEVELS, Alternative, BotChoice, BotError

DEFAULT_BOT = "greedy"
#: A suggestion cut short by the request's deadline depends on the machine: never cached.
_UNREPRODUCIBLE = frozenset({"deadline", "cancelled"})


@dataclass(frozen=True, slots=True)
class Suggestion:
    move: Move
    bot: str
    stats: dict[str, Any] = field(default_factory=dict)
    alternatives: list[Alternative] = field(default_factory=list)

    @property
    def reproducible(self) -> bool:
        return self.stats.get("stoppedBy") not in _UNREPRODUCIBLE


@dataclass(frozen=True, slots=True)
class BotBudget:
    """This service's caps on a bot's budget (``MANHATTAN_BOT_MAX_*``)."""

    max_iterations: int = 20_000
    max_time_ms: int = 2_000


def bot_choice(
    level: object,
    *,
    seed: int | None = None,
    iterations: int | None = None,
    time_ms: int | None = None,
    budget: BotBudget | None = None,
) -> BotChoice:
    """The request's bot choice, within this service's caps, or ``INVALID_BOT``."""
    budget = budget or BotBudget()
    if iterations is not None and not 1 <= iterations <= budget.max_iterations:
        raise ApiError("INVALID_BOT", f"iterations is 1 to {budget.max_iterations} here")
    if time_ms is not None and not 1 <= time_ms <= budget.max_time_ms:
        raise ApiError("INVALID_BOT", f"timeMs is 1 to {budget.max_time_ms} here")
    try:
        return BotChoice.of(level, seed or 0, iterations, time_ms)  # type: ignore[arg-type]
    except BotError as exc:
        raise ApiError("INVALID_BOT", exc.message) from None


def suggestion_key(
    state_id: str, player: int, bot: str, iterations: int | None, seed: int | None
) -> str:
    """The cache key of a reproducible suggestion: state, player, level, budget and seed."""
    return f"{state_id}:{player}:{bot}:{iterations}:{seed or 0}"


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
    return Suggestion(move, obj["bot"], obj["stats"], alternatives)


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
    """The bot's move, computed by the pool; its refusals and a full pool as API errors (a bug
    in a bot, ``BotFailed``, is left to the 500 handler, which logs it)."""
    try:
        found = await pool.suggest(state, player, choice, deadline=deadline, moves_left=moves_left)
    except BotError as exc:
        code = exc.code if exc.code in ("INVALID_BOT", "NOT_YOUR_TURN") else "INVALID_BOT"
        raise ApiError(code, exc.message) from None
    except BotsBusy as exc:
        raise ApiError(
            "BOTS_BUSY", exc.message, headers={"Retry-After": str(exc.retry_after)}
        ) from None
    return Suggestion(found.move, choice.level, dict(found.stats), found.alternatives)


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
