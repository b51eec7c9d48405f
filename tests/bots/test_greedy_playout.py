"""The simulations' greedy policy (``greedy_playout``) plays as the greedy bot would: on
reachable positions without the urban rules or a monster, the placement it makes is one the
greedy bot values as its best (RULES §7: buildings, majorities, the tallest building)."""

from __future__ import annotations

import collections
import math
import random
from collections.abc import Callable, Iterator

import pytest

import manhattan
from manhattan.bench.opponents import dot, placement_features
from manhattan.bots.greedy import move_value, rank_moves
from manhattan.bots.greedy_playout import (
    GREEDY_VALUE,
    OPPONENT_MODEL,
    greedy_step,
    model_step,
    sampled_model_step,
)
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


def _positions(players: int) -> Iterator[tuple[int, manhattan.State, int]]:
    """(seed, a position to build from, its player to move) for up to 12 seeds."""
    for seed in range(12):
        state = _build_phase(players, seed)
        if not state.is_over:
            assert state.to_move is not None
            yield seed, state, state.to_move


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_playout_plays_a_move_the_greedy_bot_values_best(players: int) -> None:
    checked = 0
    for seed, state, player in _positions(players):
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


def _placement(move: manhattan.Move) -> tuple[int, int, int, int]:
    card, neighborhood, floors, color = move.card, move.neighborhood, move.floors, move.color
    assert card is not None and neighborhood is not None and floors is not None
    assert color is not None
    return card, neighborhood, floors, color


@pytest.mark.parametrize(
    ("step", "weights"), [(model_step, OPPONENT_MODEL), (greedy_step, GREEDY_VALUE)]
)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_policy_plays_a_placement_its_weights_value_best(
    step: Callable[[Game, random.Random], None], weights: tuple[float, ...], players: int
) -> None:
    """The features the fit reads are the ones the simulations' policies play by: the model's
    placement is one of highest ``OPPONENT_MODEL`` value, the greedy policy's one of highest
    greedy value, among every legal placement ``placement_features`` lists."""
    checked = 0
    for seed, state, player in _positions(players):
        placements = placement_features(Game(state), player)
        values = {key: dot(features, weights) for key, features in placements}
        builds = [m for m in manhattan.legal_moves(state) if m.type == "build"]
        if not builds:  # a forfeit ([D5]): nothing to choose
            continue
        assert {_placement(m) for m in builds} == set(values)
        game = Game(state)
        step(game, random.Random(seed))
        played = [
            _placement(m)
            for m in builds
            if manhattan.apply_move(state, m).board == tuple(game.board)
        ]
        assert played, "the policy made a move the rules allow"
        assert max(values[key] for key in played) == pytest.approx(max(values.values()))
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize("players", [2, 4])
def test_the_sampled_model_draws_placements_as_often_as_the_model_says(players: int) -> None:
    """Drawn 3,000 times from each of three positions, the model's five likeliest placements
    come as often as ``exp(OPPONENT_MODEL . features)`` says (each within 4.5 standard errors:
    neither the model's argmax every time nor a uniform draw), and never a placement the rules
    refuse."""
    draws = 3000
    for _, state, player in list(_positions(players))[:3]:
        placements = placement_features(Game(state), player)
        values = {key: dot(features, OPPONENT_MODEL) for key, features in placements}
        top = max(values.values())
        total = sum(math.exp(v - top) for v in values.values())
        expected = {key: math.exp(v - top) / total for key, v in values.items()}
        by_board = {
            manhattan.apply_move(state, m).board: _placement(m)
            for m in manhattan.legal_moves(state)
            if m.type == "build"
        }
        counts: collections.Counter[tuple[int, int, int, int]] = collections.Counter()
        for i in range(draws):
            game = Game(state)
            sampled_model_step(game, random.Random(i))
            counts[by_board[tuple(game.board)]] += 1
        for key in sorted(expected, key=expected.__getitem__, reverse=True)[:5]:
            p = expected[key]
            assert abs(counts[key] / draws - p) <= 4.5 * math.sqrt(p * (1 - p) / draws) + 1e-9
