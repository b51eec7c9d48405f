"""The simulations' greedy policy (``greedy_playout``) plays as the greedy bot would: on
reachable positions without the urban rules or a monster, the placement it makes is one the
greedy bot values as its best (RULES §7: buildings, majorities, the tallest building)."""

from __future__ import annotations

import random

import pytest

import manhattan
from manhattan.bots.greedy import move_value, rank_moves
from manhattan.bots.greedy_playout import greedy_step
from manhattan.bots.knowledge import view_legal_moves
from manhattan.engine.play import Game
from tests.engine.positions import position


def _build_phase(players: int, seed: int) -> manhattan.State:
    rng = random.Random(seed)
    state = manhattan.new_game(players=players, seed=f"gp-{seed}")
    for _ in range(rng.randrange(5, 70)):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    while state.phase != "build" and not state.is_over:
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_playout_plays_a_move_the_greedy_bot_values_best(players: int) -> None:
    checked = 0
    for seed in range(12):
        state = _build_phase(players, seed)
        if state.is_over:
            continue
        player = state.to_move
        assert player is not None
        v = manhattan.view(state, player)
        moves = view_legal_moves(v)
        best = rank_moves(v, moves, random.Random(0))[0].value
        game = Game(state)
        greedy_step(game, random.Random(seed))
        played = [m for m in moves if manhattan.apply_move(state, m).board == tuple(game.board)]
        assert played, "the playout made a move the rules allow"
        assert max(move_value(v, m, None) for m in played) == pytest.approx(best)
        checked += 1
    assert checked >= 8


def test_with_nothing_to_build_the_playout_forfeits() -> None:
    """[D5]: every card designates a center block, every center block is color 1's and out of
    reach: the only moves are forfeits, and the policy plays one."""
    six_floors = (
        [[(1, 4), (1, 2)]] * 3 + [[(1, 3), (1, 3)]] * 2 + [[(1, 2), (1, 2), (1, 1), (1, 1)]]
    )
    board = {(n, 1, 1): pieces for n, pieces in enumerate(six_floors)}
    state = position(board=board, hand=(4, 4, 4, 4), selected={0: (1, 1, 0, 0)})
    assert all(m.type == "forfeit" for m in manhattan.legal_moves(state))
    game = Game(state)
    greedy_step(game, random.Random(0))
    assert sum(game.selected[0]) == 1 and game.board == list(state.board)
