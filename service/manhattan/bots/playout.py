"""Simulation policies for ISMCTS on the engine's fast path (``Game``, ``random_step``), and the
reward that a finished simulation gives each player.

``heuristic_step`` is a cheap greedy-ish policy: it draws a few legal placements at random (the
same rejection sampling as ``random_step``) and keeps the one with the best local gain: a new
building, a takeover, a new tallest building. It costs little more than a random step and plays
far more like a real opponent, which makes the search's estimates much less noisy.
``greedy_step`` (``greedy_playout.py``) plays as the greedy bot does, at about ten times the
heuristic's cost, and ``model_step`` and ``sampled_model_step`` as a searching opponent is
modeled to (its likeliest placement, or one drawn with the model's chances): the expert's
simulations, where opponents must play like real ones.
"""

from __future__ import annotations

import math
import random
from typing import Final

from manhattan.bots.greedy import balanced_selection
from manhattan.bots.greedy_playout import OPPONENT_MODEL, greedy_step, weighted_step
from manhattan.engine import Move
from manhattan.engine.play import Game
from manhattan.engine.rollout import Draw, Sampler, color_to_select, random_step
from manhattan.engine.rules import ROTATION
from manhattan.engine.scoring import score_board

_CANDIDATES: Final = 4  # legal placements compared per heuristic step


NEW_BUILDING: Final = 1.0
TAKEOVER: Final = 2.0
NEW_TALLEST: Final = 3.0
FLOOR_COST: Final = 0.3


def heuristic_step(game: Game, rng: random.Random) -> None:
    """One move of the player to move: a balanced selection, or the best of a few random legal
    placements by local gain."""
    tallest = max(sum(f for _, f in b) for b in game.board)
    _heuristic_step(game, rng, tallest)


def _heuristic_step(
    game: Game, rng: random.Random, tallest: int, candidates: int = _CANDIDATES
) -> int:
    """``heuristic_step`` given the board's tallest height; returns the new tallest height
    (an upper bound when a monster has since removed floors, which is good enough here)."""
    rules = game.rules
    color = color_to_select(game)
    if color is not None:
        game.select(color, balanced_selection(game.supply[color], rules.pieces_per_round))
        return tallest
    player = game.to_move
    assert player is not None
    own = rules.colors[player]
    pieces = [(c, f) for c in own for f, k in enumerate(game.selected[c], 1) if k]
    board = game.board
    sampler = Sampler(game, player, pieces)
    best: Draw | None = None
    best_gain = -math.inf
    best_height = tallest
    found = 0
    for _ in range(4 * candidates):
        drawn = sampler.draw(rng)
        if drawn is None:
            continue
        building = board[drawn[1]]
        gain = (0.0 if building[-1][0] in own else TAKEOVER) if building else NEW_BUILDING
        new_height = sum(f for _, f in building) + drawn[3]
        if new_height > tallest:
            gain += NEW_TALLEST
        gain += rng.random() * 0.5 - FLOOR_COST * drawn[3]
        if gain > best_gain:
            best, best_gain, best_height = drawn, gain, new_height
        found += 1
        if found == candidates:
            break
    if best is None:
        random_step(game, rng)
        return tallest
    card, index, color, floors = best
    game.build(card, index // 9, floors, color)
    return max(tallest, best_height)


def play_out(
    game: Game,
    rng: random.Random,
    policy: str = "random",
    *,
    to_round_end: bool = False,
    candidates: int = _CANDIDATES,
    me: int = -1,
) -> None:
    """The one rollout: play ``policy`` until the game is over, or (``to_round_end``) until the
    round in progress (the next one, from a selection) has been scored. ``modeled`` plays the
    player ``me`` with the greedy policy and every other player with the model of a searching
    opponent (``greedy_playout.model_step``); ``sampled`` draws the others' placements from
    that model (``greedy_playout.sampled_model_step``)."""
    target = game.round + 1
    if policy == "random":
        while game.phase != "over" and not (to_round_end and game.round >= target):
            random_step(game, rng)
        return
    if policy == "greedy":
        while game.phase != "over" and not (to_round_end and game.round >= target):
            greedy_step(game, rng)
        return
    if policy == "modeled" or policy == "sampled":
        sample = policy == "sampled"
        while game.phase != "over" and not (to_round_end and game.round >= target):
            if game.to_move == me:
                greedy_step(game, rng)
            else:
                weighted_step(game, rng, OPPONENT_MODEL, sample)
        return
    tallest = max(sum(f for _, f in b) for b in game.board)
    while game.phase != "over" and not (to_round_end and game.round >= target):
        tallest = _heuristic_step(game, rng, tallest, candidates)


POLICIES: Final[tuple[str, ...]] = ("random", "heuristic", "greedy", "modeled", "sampled")

MARGIN_SCALE: Final = 10.0


#: Weight of each round still to score after a truncated simulation, in board scorings: the
#: board changes, but what stands now is the best guess of what will score then. ISMCTS's; the
#: expert counts the board by weights fitted to self-play games (``halving.FUTURE_BOARD``).
FUTURE_ROUND_WEIGHT: Final = 0.6


def final_margins(game: Game, future: tuple[float, ...] = ()) -> list[float]:
    """Each player's final total minus the best other player's; after a simulation cut at a
    round's end, the totals so far plus the current board's score times ``future[k]`` with
    ``k`` rounds still to come (beyond ``future``: FUTURE_ROUND_WEIGHT a round)."""
    rules = game.rules
    scores: list[float] = [float(s) for s in game.scores]
    if game.phase != "over":
        rounds_left = rules.rounds - game.round + 1
        weight = (
            future[rounds_left] if rounds_left < len(future) else FUTURE_ROUND_WEIGHT * rounds_left
        )
        board = score_board(game.board, rules.color_count)
        for c, b in enumerate(board):
            scores[c] += weight * b.total
    totals = [sum(scores[c] for c in cs) for cs in rules.colors]
    return [t - max(u for q, u in enumerate(totals) if q != p) for p, t in enumerate(totals)]


def rewards(margins: list[float]) -> list[float]:
    """A reward in [0, 1] per player: half the result (win 1, shared first 0.5, loss 0), half
    the score margin squashed, so that a search still prefers a bigger lead or a smaller loss."""
    out = []
    for m in margins:
        result = 1.0 if m > 0 else 0.5 if m == 0 else 0.0
        out.append(0.5 * result + 0.25 * (1.0 + math.tanh(m / MARGIN_SCALE)))
    return out


def placement_gain(game: Game, move: Move, tallest: int) -> float:
    """The heuristic's local gain of a legal move (selections and forfeits: 0)."""
    if move.type != "build":
        return 0.0
    player = game.to_move
    assert player is not None and move.card is not None and move.neighborhood is not None
    assert move.floors is not None
    building = game.board[move.neighborhood * 9 + ROTATION[game.rules.seats[player]][move.card]]
    if not building:
        gain = NEW_BUILDING
    else:
        gain = 0.0 if building[-1][0] in game.rules.colors[player] else TAKEOVER
    if sum(f for _, f in building) + move.floors > tallest:
        gain += NEW_TALLEST
    return gain - FLOOR_COST * move.floors
