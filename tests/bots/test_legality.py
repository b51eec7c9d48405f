"""Bots play only legal moves: every phase, the forfeit rule [D5], every variant (RULES §5, §9,
§10), on reachable states made by replaying random legal moves (tests/strategies.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.bots import suggest
from manhattan.bots.knowledge import board_after_build, known_urban_card, view_legal_moves
from tests.engine.positions import position
from tests.strategies import states

BUDGETS = {
    "random": {},
    "beginner": {},
    "greedy": {},
    "ismcts": {"iterations": 12},
    "expert": {"iterations": 12},
}


@pytest.mark.parametrize("level", sorted(BUDGETS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(max_steps=200))
def test_suggestion_is_legal_in_reachable_states(level: str, state: manhattan.State) -> None:
    if state.is_over:
        return
    assert state.to_move is not None
    suggestion = suggest(manhattan.view(state, state.to_move), level=level, **BUDGETS[level])
    assert suggestion.move in manhattan.legal_moves(state)
    manhattan.apply_move(state, suggestion.move)  # the engine agrees


def _stuck_position() -> manhattan.State:
    """RULES §5.2 [D5]: every card in the mover's hand designates a center block, and every
    center block holds a building of color 1 that color 0 cannot take (6 floors against 0)."""
    six_floors = (
        [[(1, 4), (1, 2)]] * 3 + [[(1, 3), (1, 3)]] * 2 + [[(1, 2), (1, 2), (1, 1), (1, 1)]]
    )
    board = {(n, 1, 1): pieces for n, pieces in enumerate(six_floors)}
    return position(board=board, hand=(4, 4, 4, 4), selected={0: (1, 1, 0, 0)})


@pytest.mark.parametrize("level", sorted(BUDGETS))
def test_forfeit_when_no_placement_is_legal(level: str) -> None:
    state = _stuck_position()
    suggestion = suggest(manhattan.view(state, 0), level=level, **BUDGETS[level])
    assert suggestion.move.type == "forfeit"
    assert suggestion.move in manhattan.legal_moves(state)


@pytest.mark.parametrize("level", sorted(BUDGETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_selection_phase(level: str, players: int) -> None:
    state = manhattan.new_game(players=players, seed="select")
    suggestion = suggest(manhattan.view(state, 0), level=level, **BUDGETS[level])
    assert suggestion.move.type == "select"
    assert suggestion.move in manhattan.legal_moves(state)


FULL_GAMES: list[dict[str, Any]] = [
    {"players": 2, "edition": "classic", "variants": {}},
    {"players": 3, "edition": "classic", "variants": {"antiTrust": True, "monster": "baby"}},
    {"players": 4, "edition": "modern", "variants": {"urbanRules": True, "slowGrowth": True}},
    {
        "players": 4,
        "edition": "modern",
        "variants": {"urbanRules": True, "monster": "godzilla", "antiTrust": True},
    },
    {
        "players": 2,
        "edition": "modern",
        "variants": {"urbanRules": True, "reshuffleEachRound": True, "monster": "baby"},
    },
    {"players": 2, "edition": "classic", "variants": {}, "colors": [[0, 1], [2, 3]]},
    {"players": 3, "edition": "classic", "variants": {}, "rounds": 2, "pieces_per_round": 5},
]


def test_whole_games_in_every_variant_including_fake_news() -> None:
    """Whole games, the three levels taking turns, in every variant, the urban rules (with a
    fakeNews round, RULES §10) and custom rules; every suggestion must be legal."""
    fake_news = 0
    for i, setup in enumerate(FULL_GAMES):
        state = manhattan.new_game(seed="fake-0", **setup)
        moves = 0
        while not state.is_over:
            player = state.to_move
            assert player is not None
            level = sorted(BUDGETS)[(player + i) % 3]
            v = manhattan.view(state, player)
            fake_news += v.urban_current == "fakeNews"
            suggestion = suggest(v, level=level, seed=moves, **BUDGETS[level])
            assert suggestion.move in manhattan.legal_moves(state), (setup, suggestion.move)
            state = manhattan.apply_move(state, suggestion.move)
            moves += 1
    assert fake_news > 0  # the seeds reach a round scored by a hidden card


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(max_steps=200))
def test_what_a_bot_computes_from_its_view_is_the_engines_rule(state: manhattan.State) -> None:
    """One rule each: from the mover's view a bot's legal moves are the engine's
    (RULES §5-6, §9, §11), the board after any build or forfeit is the engine's board after
    the move, monster included (RULES §9 [D11]; no card drawn changes it), and the urban rule
    it expects to score is the engine's as a player sees it (RULES §10, fakeNews hidden)."""
    if state.is_over:
        return
    player = state.to_move
    assert player is not None
    v = manhattan.view(state, player)
    moves = manhattan.legal_moves(state)
    assert view_legal_moves(v) == moves
    expected_card = manhattan.score_round(state, deck_known=False).urban
    assert known_urban_card(v) == expected_card
    for move in moves[:25]:
        if move.type == "select":
            continue
        after = manhattan.apply_move(state, move)
        board, monster = board_after_build(v.board, v.rules, player, v.monster, move)
        assert (tuple(board), monster) == (after.board, after.monster)
