"""The bots' strength targets (slow: run with ``pytest -m slow tests/bots``). The tournament
command measures the same with confidence intervals; these tests check the point estimates on
a smaller number of seeded games."""

from __future__ import annotations

import pytest

from manhattan.bench.arena import play_game
from manhattan.bots import BotChoice

pytestmark = pytest.mark.slow


def win_rate(candidate: BotChoice, field: BotChoice, players: int, games: int) -> float:
    wins = 0
    for i in range(games):
        seat = i % players
        bots = [field] * players
        bots[seat] = candidate
        result = play_game(bots, seed=f"strength-{players}-{i}")
        wins += result.places[seat] == 1 and result.places.count(1) == 1
    return wins / games


def test_greedy_beats_random_in_90_percent_of_2_player_games() -> None:
    assert win_rate(BotChoice("greedy"), BotChoice("random"), 2, 60) >= 0.9


def test_ismcts_beats_greedy_in_70_percent_of_2_player_games() -> None:
    assert win_rate(BotChoice("ismcts", time_ms=1000), BotChoice("greedy"), 2, 40) >= 0.7


def test_ismcts_wins_45_percent_of_4_player_games_against_greedy() -> None:
    assert win_rate(BotChoice("ismcts", time_ms=1000), BotChoice("greedy"), 4, 40) >= 0.45


def test_expert_wins_more_4_player_games_against_greedy_than_a_random_seat() -> None:
    """The expert's target is 60 % (``manhattan tournament``, 200 games); here a clear margin
    over a random seat's 25 % on a few games."""
    assert win_rate(BotChoice("expert"), BotChoice("greedy"), 4, 16) >= 0.45


def test_expert_beats_greedy_in_2_player_games() -> None:
    assert win_rate(BotChoice("expert"), BotChoice("greedy"), 2, 10) >= 0.8
