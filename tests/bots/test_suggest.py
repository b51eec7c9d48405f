"""The ``suggest`` contract: shape, errors with codes, reproducibility by seed."""

from __future__ import annotations

import random

import pytest

import manhattan
from manhattan.bots import BotError, Suggestion, suggest


def mid_game(players: int = 4, seed: str = "mid", steps: int = 40) -> manhattan.State:
    rng = random.Random(seed)
    state = manhattan.new_game(players=players, seed=seed)
    for _ in range(steps):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


def test_the_same_seed_reproduces_an_ismcts_suggestion() -> None:
    state = mid_game()
    assert state.to_move is not None
    v = manhattan.view(state, state.to_move)
    first = suggest(v, level="ismcts", iterations=150, seed=7)
    again = suggest(v, level="ismcts", iterations=150, seed=7)
    assert first.move == again.move
    assert [(a.move, a.visits, a.mean_score) for a in first.alternatives] == [
        (a.move, a.visits, a.mean_score) for a in again.alternatives
    ]


def test_suggestion_shape_and_json() -> None:
    state = mid_game()
    assert state.to_move is not None
    s = suggest(manhattan.view(state, state.to_move), level="ismcts", iterations=60, seed=1)
    assert isinstance(s, Suggestion)
    assert s.stats["iterations"] == 60 and s.stats["level"] == "ismcts" and s.stats["seed"] == 1
    assert s.alternatives[0].move == s.move
    visits = [a.visits for a in s.alternatives]
    assert visits == sorted(visits, reverse=True) and sum(visits) == 60
    obj = s.to_json()
    assert manhattan.Move.from_json(obj["move"]) == s.move
    assert {"iterations", "timeMs", "level", "seed", "legalMoves", "stoppedBy"} <= set(obj["stats"])


def test_a_time_budget_stops_the_search() -> None:
    state = mid_game()
    assert state.to_move is not None
    s = suggest(manhattan.view(state, state.to_move), level="ismcts", time_ms=50)
    assert (
        s.stats["iterations"] >= 1 and s.stats["timeMs"] < 1000 and s.stats["stoppedBy"] == "timeMs"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"level": "minimax"},
        {"level": "ismcts", "iterations": 0},
        {"level": "ismcts", "time_ms": -5},
        {"level": "ismcts", "iterations": 1.5},
    ],
)
def test_bad_requests_are_invalid_bot(kwargs: dict[str, object]) -> None:
    state = mid_game()
    assert state.to_move is not None
    with pytest.raises(BotError) as caught:
        suggest(manhattan.view(state, state.to_move), **kwargs)  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_BOT"
    assert isinstance(caught.value, ValueError)


def test_a_player_not_to_move_gets_not_your_turn() -> None:
    state = mid_game()
    assert state.to_move is not None
    other = (state.to_move + 1) % 4
    with pytest.raises(BotError) as caught:
        suggest(manhattan.view(state, other))
    assert caught.value.code == "NOT_YOUR_TURN"
