"""``suggest``: the entry point the API calls. A bot sees only its player's ``View``.

Levels: ``random`` (a uniform legal move), ``greedy`` (best immediate gain, ``greedy.py``) and
``ismcts`` (information-set MCTS, ``ismcts.py``). With a budget in ``iterations`` the same view
and seed always give the same suggestion; a ``time_ms`` budget depends on the machine's speed, so
its suggestion is not reproducible (the number of iterations done is in ``stats``).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..engine import Move, View
from .greedy import rank_moves
from .ismcts import Search, ranked_children
from .knowledge import view_legal_moves

LEVELS = ("random", "greedy", "ismcts")
DEFAULT_ISMCTS_ITERATIONS = 1000
MAX_ITERATIONS = 1_000_000
MAX_TIME_MS = 60_000


class BotError(ValueError):
    """A request the bots cannot serve; ``code`` is ``INVALID_BOT`` (unknown level, bad budget)
    or ``NOT_YOUR_TURN`` (the view's player is not the player to move, or the game is over)."""

    def __init__(self, message: str, *, code: str = "INVALID_BOT") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Alternative:
    """A candidate move: how often the search tried it and its mean outcome for the player
    (ismcts: final score margin over the best other player; greedy: the margin if the round
    were scored right after the move; random: 0)."""

    move: Move
    visits: int
    mean_score: float

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move.to_json(), "visits": self.visits, "meanScore": self.mean_score}


@dataclass(frozen=True, slots=True)
class Suggestion:
    move: Move
    alternatives: list[Alternative] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move.to_json(),
            "alternatives": [a.to_json() for a in self.alternatives],
            "stats": dict(self.stats),
        }


def _check_budget(iterations: int | None, time_ms: int | None) -> None:
    for name, value, high in (
        ("iterations", iterations, MAX_ITERATIONS),
        ("time_ms", time_ms, MAX_TIME_MS),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise BotError(f"{name} must be an integer from 1 to {high}, not {value!r}")


def suggest(
    view: View,
    *,
    level: str = "greedy",
    iterations: int | None = None,
    time_ms: int | None = None,
    seed: int = 0,
) -> Suggestion:
    """A move for ``view.player``, who must be to move. ``iterations`` and ``time_ms`` budget the
    ismcts search (both given: whichever runs out first; neither: 1000 iterations)."""
    if not isinstance(view, View):  # a State (or anything else) could carry hidden information
        raise TypeError(f"a bot takes a player's View (manhattan.view), not {type(view).__name__}")
    if level not in LEVELS:
        raise BotError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    _check_budget(iterations, time_ms)
    if view.phase == "over" or view.to_move != view.player:
        raise BotError(
            f"player {view.player} is not to move (to move: {view.to_move})", code="NOT_YOUR_TURN"
        )
    start = time.perf_counter()
    rng = random.Random(seed)
    moves = view_legal_moves(view)
    if level == "random":
        move = moves[rng.randrange(len(moves))]
        alternatives = [Alternative(move, 0, 0.0)]
        done = 1
    elif level == "greedy":
        ranked = rank_moves(view, moves, rng)
        alternatives = [Alternative(r.move, 0, r.value) for r in ranked]
        move, done = ranked[0].move, 1
    else:
        if iterations is None and time_ms is None:
            iterations = DEFAULT_ISMCTS_ITERATIONS
        search = Search(view, rng)
        result = search.run(
            iterations=iterations, seconds=None if time_ms is None else time_ms / 1000
        )
        alternatives = [
            Alternative(n.move, n.visits, n.margin_sum / n.visits)  # type: ignore[arg-type]
            for n in ranked_children(result.root)
            if n.visits
        ]
        move, done = alternatives[0].move, result.iterations
    stats = {
        "level": level,
        "iterations": done,
        "time_ms": round((time.perf_counter() - start) * 1000, 3),
        "seed": seed,
        "legal_moves": len(moves),
    }
    return Suggestion(move, alternatives, stats)
