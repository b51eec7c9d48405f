"""The expert's search (``halving.py``): which moves enter it, and how it spends its budget."""

from __future__ import annotations

import random

import pytest

import manhattan
from manhattan.bots.halving import EXPERT, FUTURE_BOARD, HalvingSearch, halvings
from manhattan.bots.ismcts import root_moves
from manhattan.bots.playout import FUTURE_ROUND_WEIGHT, final_margins
from manhattan.engine.play import Game
from manhattan.engine.scoring import score_board


def _selection_view() -> manhattan.View:
    state = manhattan.new_game(players=4, seed="halving")
    assert state.phase == "select" and state.to_move is not None
    return manhattan.view(state, state.to_move)


def _build_view() -> manhattan.View:
    rng = random.Random(7)
    state = manhattan.new_game(players=4, seed="halving")
    while state.phase != "build" or state.round < 2:
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    assert state.to_move is not None
    return manhattan.view(state, state.to_move)


def test_a_selection_of_pieces_compares_every_candidate() -> None:
    view = _selection_view()
    candidates = root_moves(view)
    assert len(candidates) > EXPERT.arms  # more than a build's short list
    search = HalvingSearch(view, random.Random(1))
    assert {a.move for a in search.arms} == set(candidates)
    result = search.run(iterations=400, seconds=None)
    assert result.iterations <= 400
    assert result.arms[0].visits == max(a.visits for a in result.arms)


def test_a_build_compares_the_greedy_rankings_short_list() -> None:
    view = _build_view()
    assert len(root_moves(view)) > EXPERT.arms
    search = HalvingSearch(view, random.Random(1))
    assert len(search.arms) == EXPERT.arms
    result = search.run(iterations=200, seconds=None)
    assert 0 < result.iterations <= 200 and result.stopped_by == "iterations"


def test_a_field_halves_to_one_move_in_as_many_rounds_as_it_takes() -> None:
    assert [halvings(n) for n in (2, 3, 4, 5, 8, 12, 13, 16, 17)] == [1, 1, 2, 2, 3, 3, 3, 4, 4]


def test_a_search_spends_its_budget_on_the_rounds_it_plays() -> None:
    """A selection's field halves unevenly (13 -> 6 -> 3 -> 1, three rounds): the budget is
    planned over those three, and no simulation goes to the one move left."""
    view = _selection_view()
    search = HalvingSearch(view, random.Random(1))
    assert len(search.arms) == 13
    result = search.run(iterations=2000, seconds=None)
    assert [sum(1 for a in result.arms if a.rounds >= r) for r in (1, 2, 3)] == [6, 3, 1]
    finalist = result.arms[0]
    last_round = [a for a in result.arms if a.rounds == 2]
    # the winner was simulated exactly as often as the two it beat in the last round
    assert {a.visits for a in last_round} == {finalist.visits}
    assert 2000 * 0.95 < result.iterations <= 2000


def test_a_cut_simulation_counts_the_standing_board_for_the_rounds_left() -> None:
    """The board at a round's end counts ``FUTURE_BOARD[players][rounds left]`` times for the
    expert, and 0.6 a round left for ISMCTS (no weights given)."""
    rng = random.Random(7)
    state = manhattan.new_game(players=4, seed="halving")
    while state.round < 2:
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    game = Game(state)
    left = game.rules.rounds - game.round + 1
    board = [b.total for b in score_board(game.board, game.rules.color_count)]

    def margins(weight: float) -> list[float]:
        totals = [s + weight * b for s, b in zip(game.scores, board, strict=True)]
        return [t - max(u for q, u in enumerate(totals) if q != p) for p, t in enumerate(totals)]

    assert left == 3 and any(board)
    assert final_margins(game) == pytest.approx(margins(FUTURE_ROUND_WEIGHT * left))
    weights = FUTURE_BOARD[4]
    assert final_margins(game, weights) == pytest.approx(margins(weights[left]))
    assert weights[left] < FUTURE_ROUND_WEIGHT  # buildings change hands before they score again
