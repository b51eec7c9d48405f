"""``suggestMove``: a move for the player to move, from a bot that sees only that player's view.

Until the bots package exposes ``manhattan.bots.suggest``, the built-in bot is ``random``: a
uniform choice among the legal moves with ``random.Random(seed)``. The legal moves of the player
to move depend only on their own hand and public information, so this leaks nothing (DESIGN §7).
The response's ``stats`` says which bot answered.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import manhattan
from manhattan import Move, State

from .errors import ApiError

BUILT_IN_BOTS = ("random",)


@dataclass(frozen=True, slots=True)
class Suggestion:
    move: Move
    bot: str
    stats: dict[str, Any] = field(default_factory=dict)


def _bots_suggest() -> Callable[..., Any] | None:
    try:
        bots = importlib.import_module("manhattan.bots")
    except ImportError:
        return None
    found = getattr(bots, "suggest", None)
    return found if callable(found) else None


def suggest_move(state: State, player: int, bot: str, seed: int | None) -> Suggestion:
    external = _bots_suggest()
    if external is not None and bot not in BUILT_IN_BOTS:
        return _from_bots_package(external, state, player, bot, seed)
    if bot not in BUILT_IN_BOTS:
        raise ApiError("INVALID_REQUEST", f"unknown bot {bot!r}; available: random")
    moves = manhattan.legal_moves(state)
    rng = random.Random(seed)
    move = moves[rng.randrange(len(moves))]
    stats = {
        "bot": "random",
        "legalMoves": len(moves),
        "seed": seed,
        "note": "built-in uniform random bot (the bots package offers no suggest() yet)",
    }
    return Suggestion(move, "random", stats)


def _from_bots_package(
    suggest: Callable[..., Any], state: State, player: int, bot: str, seed: int | None
) -> Suggestion:
    view = manhattan.view(state, player)
    try:
        result = suggest(view, bot, seed=seed)
    except (ValueError, KeyError) as exc:
        raise ApiError("INVALID_REQUEST", f"bot {bot!r}: {exc}") from None
    move = result if isinstance(result, Move) else getattr(result, "move", None)
    if not isinstance(move, Move):
        raise ApiError("INTERNAL_ERROR", f"bot {bot!r} returned no move")
    checked = manhattan.check_move(state, move)
    stats = getattr(result, "stats", None)
    return Suggestion(checked, bot, dict(stats) if isinstance(stats, dict) else {"bot": bot})
