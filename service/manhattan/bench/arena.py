"""Games between bots: the referee holds the true state; each bot gets only its player's View."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import msgspec

from manhattan.bots import BotChoice, make_bot
from manhattan.engine import State, apply_move, new_game, player_scores, ranking, view


def bot_label(bot: BotChoice) -> str:
    """A bot and its budget as the tournament names it: ``greedy``, ``ismcts@500it`` or
    ``ismcts@1000ms``."""
    if bot.iterations is not None:
        return f"{bot.level}@{bot.iterations}it"
    if bot.time_ms is not None:
        return f"{bot.level}@{bot.time_ms}ms"
    return bot.level


@dataclass(frozen=True, slots=True)
class GameResult:
    places: tuple[int, ...]  # per player, 1 = first (shared places share the number)
    scores: tuple[int, ...]
    moves: int


def play_game(
    bots: list[BotChoice],
    *,
    seed: str,
    edition: str = "classic",
    variants: dict[str, object] | None = None,
) -> GameResult:
    """One game, player ``p`` played by ``bots[p]`` (its seed replaced, move by move, by one
    drawn from ``seed``); every suggestion is checked by the engine (``apply_move`` raises on an
    illegal move)."""
    state: State = new_game(players=len(bots), seed=seed, edition=edition, variants=variants)
    moves = 0
    while not state.is_over:
        player = state.to_move
        assert player is not None
        bot = msgspec.structs.replace(bots[player], seed=zlib.crc32(f"{seed}:{moves}".encode()))
        suggestion = make_bot(bot).suggest(view(state, player))
        state = apply_move(state, suggestion.move)
        moves += 1
    places = [0] * len(bots)
    for placing in ranking(state):
        places[placing.player] = placing.place
    return GameResult(tuple(places), tuple(player_scores(state)), moves)
