"""Positions where the best move is clear; greedy, ismcts and expert must find it (RULES §6, §7)."""

from __future__ import annotations

import pytest

import manhattan
from manhattan.bots import suggest
from tests.engine.positions import position

BUDGETS = {"greedy": {}, "ismcts": {"iterations": 300}, "expert": {"iterations": 300}}


def _takeover_for_tallest() -> manhattan.State:
    """RULES §6, §7.3: color 1's 3-floor building at (0,0,0) is the tallest. Color 0 takes it
    with its 3-floor piece (3 >= 3): 6 floors, the tallest bonus and the building change hands.
    Building the 3-floor piece elsewhere would only tie for tallest."""
    board = {(0, 0, 0): [(1, 3)], (1, 2, 2): [(0, 1)], (3, 2, 2): [(1, 1)]}
    return position(board=board, hand=(0, 1, 2, 3), selected={0: (0, 0, 1, 0)})


def _majority_by_one_takeover() -> manhattan.State:
    """RULES §7.2: in neighborhood 2 color 1 owns two 1-floor buildings, color 0 one. Taking
    (2,0,0) with a 1-floor piece turns 1-2 into 2-1: the majority changes hands."""
    board = {
        (2, 0, 0): [(1, 1)],
        (2, 1, 2): [(1, 1)],
        (2, 1, 1): [(0, 1)],
        (5, 2, 2): [(1, 3)],
    }
    return position(board=board, hand=(0, 1, 2, 3), selected={0: (1, 0, 0, 0)})


@pytest.mark.parametrize("level", sorted(BUDGETS))
def test_takeover_that_wins_the_tallest_bonus(level: str) -> None:
    state = _takeover_for_tallest()
    s = suggest(manhattan.view(state, 0), level=level, seed=3, **BUDGETS[level])
    assert s.move == manhattan.Move.build(card=0, neighborhood=0, floors=3, color=0)


@pytest.mark.parametrize("level", sorted(BUDGETS))
def test_majority_decided_by_one_move(level: str) -> None:
    state = _majority_by_one_takeover()
    s = suggest(manhattan.view(state, 0), level=level, seed=3, **BUDGETS[level])
    assert s.move == manhattan.Move.build(card=0, neighborhood=2, floors=1, color=0)
