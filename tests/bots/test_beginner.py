"""The beginner plays plausible, beatable moves (for new players): far better than random,
clearly worse than greedy, and never one of the moves the greedy ranking puts last."""

from __future__ import annotations

import random

import manhattan
from manhattan.bench.arena import play_game
from manhattan.bots import BotChoice, suggest
from manhattan.bots.greedy import move_value, rank_moves
from manhattan.bots.knowledge import known_urban_card, view_legal_moves
from manhattan.bots.levels import BEGINNER_CHOICES


def wins(candidate: str, field: str, games: int) -> int:
    won = 0
    for i in range(games):
        seat = i % 2
        bots = [BotChoice.of(field), BotChoice.of(field)]
        bots[seat] = BotChoice.of(candidate)
        places = play_game(bots, seed=f"beginner-{i}").places
        won += places[seat] == 1 and places.count(1) == 1
    return won


def test_the_beginner_beats_random_and_loses_to_greedy() -> None:
    assert wins("beginner", "random", 8) >= 7
    assert wins("beginner", "greedy", 8) <= 3


def test_the_beginner_builds_one_of_the_greedy_rankings_best_and_not_always_the_best() -> None:
    state = manhattan.new_game(players=4, seed="beginner-moves")
    builds = best = 0
    for step in range(60):
        player = state.to_move
        assert player is not None
        v = manhattan.view(state, player)
        move = suggest(v, level="beginner", seed=step).move
        if move.type == "build":
            values = sorted(
                (r.value for r in rank_moves(v, view_legal_moves(v), random.Random(0))),
                reverse=True,
            )
            value = move_value(v, move, known_urban_card(v))
            assert value >= values[min(BEGINNER_CHOICES, len(values)) - 1] - 1e-9
            builds += 1
            best += value >= values[0] - 1e-9
        state = manhattan.apply_move(state, move)
    assert builds >= 30 and 0 < best < builds
