"""Games between bots: the referee holds the true state; each bot gets only its player's View."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from manhattan.bots.suggestion import suggest
from manhattan.engine import State, apply_move, new_game, player_scores, ranking, view


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot and its budget: ``level`` plus iterations or milliseconds per move (ismcts)."""

    level: str
    iterations: int | None = None
    time_ms: int | None = None

    @property
    def label(self) -> str:
        if self.iterations is not None:
            return f"{self.level}@{self.iterations}it"
        if self.time_ms is not None:
            return f"{self.level}@{self.time_ms}ms"
        return self.level

    @classmethod
    def parse(cls, text: str) -> BotSpec:
        """``greedy``, ``ismcts@500it`` or ``ismcts@1000ms``."""
        level, _, budget = text.partition("@")
        if not budget:
            return cls(level)
        if budget.endswith("ms"):
            return cls(level, time_ms=int(budget[:-2]))
        return cls(level, iterations=int(budget.removesuffix("it")))


@dataclass(frozen=True, slots=True)
class GameResult:
    places: tuple[int, ...]  # per player, 1 = first (shared places share the number)
    scores: tuple[int, ...]
    moves: int


def play_game(
    bots: list[BotSpec],
    *,
    seed: str,
    edition: str = "classic",
    variants: dict[str, object] | None = None,
) -> GameResult:
    """One game, player ``p`` played by ``bots[p]``; every suggestion is checked by the engine
    (``apply_move`` raises on an illegal move)."""
    state: State = new_game(players=len(bots), seed=seed, edition=edition, variants=variants)
    moves = 0
    while not state.is_over:
        player = state.to_move
        assert player is not None
        bot = bots[player]
        suggestion = suggest(
            view(state, player),
            level=bot.level,
            iterations=bot.iterations,
            time_ms=bot.time_ms,
            seed=zlib.crc32(f"{seed}:{moves}".encode()),
        )
        state = apply_move(state, suggestion.move)
        moves += 1
    places = [0] * len(bots)
    for placing in ranking(state):
        places[placing.player] = placing.place
    return GameResult(tuple(places), tuple(player_scores(state)), moves)
