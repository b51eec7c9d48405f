"""``suggestMove``: a move for the player to move, from a bot that sees only that player's view.

The bots package (``manhattan.bots.suggest(view, level=..., iterations=..., time_ms=...,
seed=...)``) answers when it is installed; otherwise the built-in ``random`` bot does: a uniform
choice among the legal moves with ``random.Random(seed)``, which depends only on the mover's own
hand and public information. The response's ``stats`` says which bot answered.

Search bots run in a worker thread so that one long suggestion does not stall every other
request on the event loop, and their budget is capped by settings.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import msgpack

import manhattan
from manhattan import Move, State

from .errors import ApiError

FALLBACK_LEVELS = ("random",)
DEFAULT_BOT = "greedy"


@dataclass(frozen=True, slots=True)
class Alternative:
    move: Move
    visits: int
    mean_score: float


@dataclass(frozen=True, slots=True)
class Suggestion:
    move: Move
    bot: str
    stats: dict[str, Any] = field(default_factory=dict)
    alternatives: list[Alternative] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class BotBudget:
    max_iterations: int = 20_000
    max_time_ms: int = 2_000


def suggestion_key(
    state_id: str, player: int, bot: str, iterations: int | None, seed: int | None
) -> str:
    """The cache key of a reproducible suggestion: state, player, level, budget and seed."""
    return f"{state_id}:{player}:{bot}:{iterations}:{seed}"


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


def bots_suggest() -> Callable[..., Any] | None:
    try:
        bots = importlib.import_module("manhattan.bots")
    except ImportError:
        return None
    found = getattr(bots, "suggest", None)
    return found if callable(found) else None


def bot_levels() -> list[str]:
    if bots_suggest() is None:
        return list(FALLBACK_LEVELS)
    levels = getattr(importlib.import_module("manhattan.bots"), "LEVELS", FALLBACK_LEVELS)
    return list(levels)


async def suggest_move(
    state: State,
    player: int,
    bot: str,
    *,
    seed: int | None = None,
    iterations: int | None = None,
    time_ms: int | None = None,
    budget: BotBudget | None = None,
) -> Suggestion:
    budget = budget or BotBudget()
    if iterations is not None and not 1 <= iterations <= budget.max_iterations:
        raise ApiError("INVALID_BOT", f"iterations is 1 to {budget.max_iterations} here")
    if time_ms is not None and not 1 <= time_ms <= budget.max_time_ms:
        raise ApiError("INVALID_BOT", f"timeMs is 1 to {budget.max_time_ms} here")
    external = bots_suggest()
    if external is None:
        return _built_in(state, bot, seed)
    view = manhattan.view(state, player)

    def run() -> Any:
        return external(view, level=bot, iterations=iterations, time_ms=time_ms, seed=seed or 0)

    try:
        result = run() if bot == "random" else await anyio.to_thread.run_sync(run)
    except ValueError as exc:  # bots.BotError: INVALID_BOT or NOT_YOUR_TURN
        code = getattr(exc, "code", "INVALID_BOT")
        raise ApiError(
            code if code in ("INVALID_BOT", "NOT_YOUR_TURN") else "INVALID_BOT", str(exc)
        ) from None
    move = manhattan.check_move(state, result.move)  # the bot's move, normalized and re-checked
    alternatives = [
        Alternative(a.move, a.visits, a.mean_score) for a in getattr(result, "alternatives", [])
    ]
    return Suggestion(move, bot, dict(result.stats), alternatives)


def _built_in(state: State, bot: str, seed: int | None) -> Suggestion:
    if bot not in FALLBACK_LEVELS:
        raise ApiError("INVALID_BOT", f"unknown bot {bot!r}; available: random")
    moves = manhattan.legal_moves(state)
    rng = random.Random(seed)
    move = moves[rng.randrange(len(moves))]
    stats = {
        "level": "random",
        "legal_moves": len(moves),
        "seed": seed,
        "note": "built-in uniform random bot (the bots package is not installed)",
    }
    return Suggestion(move, "random", stats, [Alternative(move, 0, 0.0)])
