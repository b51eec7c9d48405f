"""Bots play only legal moves: every phase, the forfeit rule [D5], every variant (RULES §5, §9,
§10), on reachable states made by replaying random legal moves (tests/strategies.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.bots import suggest
from tests.engine.positions import position
from tests.strategies import states

BUDGETS = {"random": {}, "greedy": {}, "ismcts": {"iterations": 12}}


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
