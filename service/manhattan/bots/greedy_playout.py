"""The greedy bot's policy on the engine's fast path, for simulations: every legal placement
of the player to move scored by how it changes the round's score margin (RULES §7), as the
greedy bot scores it (``greedy.move_value``), but in a few operations a placement instead of a
scoring of the whole board.

One pass over the board per step gathers what a placement can change: each neighborhood's
owned-building counts per color (majorities), the tallest height and whether one building
holds it (the tallest bonus), and each player's round score. A placement then moves at most
one building between two colors, one neighborhood's majority and the tallest bonus. The urban
rule and the monster's step are left out: a simulation's players need to play like real ones,
not to be them. The same step plays the model of a searching opponent (``model_step``), whose
weights value a few more features of a placement, or draws from it (``sampled_model_step``).
"""

from __future__ import annotations

import math
import random
from typing import Final

from manhattan.bots.greedy import FLOORS_WEIGHT, SECURITY_WEIGHT, balanced_selection
from manhattan.engine.draws import below
from manhattan.engine.placement import context, need, open_count
from manhattan.engine.play import Game
from manhattan.engine.rollout import color_to_select, random_step
from manhattan.engine.rules import ROTATION

MAJORITY_BONUS: Final = 2
TALLEST_BONUS: Final = 3


def majority(counts: list[int], base: int, colors: int, gain: int, loss: int) -> int:
    """The color with strictly the most buildings in a neighborhood (-1: none) after ``gain``
    takes one from ``loss`` (-1: from an empty block; equal: no change)."""
    best = -1
    best_count = 0
    tied = False
    for c in range(colors):
        k = counts[base + c]
        if c == gain:
            k += 1
        if c == loss:
            k -= 1
        if k > best_count:
            best, best_count, tied = c, k, False
        elif k == best_count and k > 0:
            tied = True
    return -1 if tied else best


def lead(
    building: list[tuple[int, int]] | tuple[tuple[int, int], ...], color: int, added: int
) -> int:
    """How many floors ``color`` leads every other color by (at most 5) in ``building`` with a
    piece of ``added`` floors of ``color`` on top, without making that building. Written for
    mypyc: sums and maxima in native ints (a list item's ``+=`` and the builtin ``max`` are
    generic calls when compiled)."""
    mine = added
    others = [0, 0, 0, 0]
    for c, f in building:
        if c == color:
            mine += f
        else:
            held: int = others[c]
            others[c] = held + f
    best = 0
    for held in others:
        if held > best:
            best = held
    lead = mine - best
    return 5 if lead > 5 else lead


class RoundPicture:
    """What a placement can change, gathered once a step: owners, heights, neighborhood counts
    and majorities, the tallest building, each player's round score so far. Gathered in one
    pass in native ints (no generator per building, no builtin ``max``: both generic calls when
    compiled)."""

    def __init__(self, game: Game) -> None:
        rules = game.rules
        colors = rules.color_count
        self.colors = colors
        self.owner_of = rules.owner_of_color
        board = game.board
        blocks = len(board)
        owners = [-1] * blocks
        heights = [0] * blocks
        counts = [0] * (6 * colors)
        tallest = 0
        at_top = 0  # buildings of the tallest height (above 0)
        first_top = -1
        for index in range(blocks):
            building = board[index]
            if not building:
                continue
            owner = building[-1][0]
            height = 0
            for _, f in building:
                height += f
            owners[index] = owner
            heights[index] = height
            slot = (index // 9) * colors + owner
            held: int = counts[slot]
            counts[slot] = held + 1
            if height > tallest:
                tallest, at_top, first_top = height, 1, index
            elif height == tallest:
                at_top += 1
        self.owners = owners
        self.heights = heights
        self.counts = counts
        self.majorities = [majority(counts, n * colors, colors, -1, -1) for n in range(6)]
        self.tallest = tallest
        self.tallest_color = owners[first_top] if at_top == 1 else -1
        totals = [0] * rules.players
        owner_of = self.owner_of
        for owner in owners:
            if owner >= 0:
                p = owner_of[owner]
                score: int = totals[p]
                totals[p] = score + 1
        for m in self.majorities:
            if m >= 0:
                p = owner_of[m]
                score = totals[p]
                totals[p] = score + MAJORITY_BONUS
        if self.tallest_color >= 0:
            p = owner_of[self.tallest_color]
            score = totals[p]
            totals[p] = score + TALLEST_BONUS
        self.totals = totals

    def margin_after(self, player: int, index: int, color: int, floors: int) -> float:
        """The player's round score minus the best other's after the placement."""
        owner_of = self.owner_of
        t = list(self.totals)
        before = self.owners[index]
        if before != color:
            _add(t, owner_of[color], 1)
            if before >= 0:
                _add(t, owner_of[before], -1)
            n = index // 9
            was = self.majorities[n]
            now = majority(self.counts, n * self.colors, self.colors, color, before)
            if now != was:
                if was >= 0:
                    _add(t, owner_of[was], -MAJORITY_BONUS)
                if now >= 0:
                    _add(t, owner_of[now], MAJORITY_BONUS)
        height = self.heights[index] + floors
        was_top = self.tallest_color
        now_top = color if height > self.tallest else -1 if height == self.tallest else was_top
        if now_top != was_top:
            if was_top >= 0:
                _add(t, owner_of[was_top], -TALLEST_BONUS)
            if now_top >= 0:
                _add(t, owner_of[now_top], TALLEST_BONUS)
        best = -1_000_000
        for p in range(len(t)):
            if p != player:
                other: int = t[p]
                if other > best:
                    best = other
        mine: int = t[player]
        return mine - best


def _add(totals: list[int], player: int, points: int) -> None:
    score: int = totals[player]
    totals[player] = score + points


#: What the model of a searching opponent weighs in a placement: its round margin (as
#: ``greedy_step`` scores it), the piece's floors, the floors the building is then led by
#: (``lead``), a takeover of another player's building, an empty block, a new tallest building,
#: and the building's new height.
FEATURES: Final = ("margin", "floors", "lead", "takeover", "empty", "newTallest", "height")
#: The weights, fitted by ``manhattan bench opponents --games 20 --jobs 2`` to the builds of
#: ``ismcts`` bots at 2,000 iterations a move (``bench/opponents.py``). The greedy value is
#: (1, -0.05, 0.02, 0, 0, 0, 0): a searching player takes over and opens blocks much more
#: readily than it stacks on its own buildings, and shuns a tallest building the others can
#: still overtake before the scoring.
OPPONENT_MODEL: Final[tuple[float, ...]] = (1.142, -0.433, 0.203, 3.026, 2.475, -2.374, 0.224)
#: The greedy bot's value (``greedy.move_value``) in the same terms.
# (Both typed as tuples of any length: mypyc keeps them as Python tuples. As fixed-length tuples
# of floats it keeps them unboxed, and its check that such a constant is set misfires.)
GREEDY_VALUE: Final[tuple[float, ...]] = (1.0, -FLOORS_WEIGHT, SECURITY_WEIGHT, 0.0, 0.0, 0.0, 0.0)


def greedy_step(game: Game, rng: random.Random) -> None:
    """One move of the player to move as the greedy bot plays: a balanced selection, or the
    placement with the best round margin (ties: the safer building, the smaller piece, then the
    first found from a random neighborhood); [D5] when nothing can be built."""
    weighted_step(game, rng, GREEDY_VALUE)


def model_step(game: Game, rng: random.Random) -> None:
    """One move of the player to move as the model of a searching opponent plays it; the
    expert's simulations play the other players with it (``halving.py``)."""
    weighted_step(game, rng, OPPONENT_MODEL)


def sampled_model_step(game: Game, rng: random.Random) -> None:
    """One move of the player to move drawn from the model of a searching opponent: each
    placement with a chance proportional to ``exp(OPPONENT_MODEL . features)``, as the model was
    fitted, rather than always its most likely one."""
    weighted_step(game, rng, OPPONENT_MODEL, True)


def weighted_step(
    game: Game, rng: random.Random, weights: tuple[float, ...], sample: bool = False
) -> None:
    """A balanced selection, or the placement of highest value under ``weights`` (of
    ``FEATURES``; ties: the first found from a random neighborhood), or with ``sample`` one
    drawn with a chance proportional to ``exp(value)``; [D5] when nothing can be built. A
    weight of 0 adds exactly nothing, so the greedy weights give the greedy value to the last
    bit."""
    rules = game.rules
    color = color_to_select(game)
    if color is not None:
        game.select(color, balanced_selection(game.supply[color], rules.pieces_per_round))
        return
    player = game.to_move
    assert player is not None
    pieces = [(c, f) for c in rules.colors[player] for f, k in enumerate(game.selected[c], 1) if k]
    ctx = context(game, player)
    hoods = open_count(ctx)
    table = ROTATION[rules.seats[player]]
    picture = RoundPicture(game)
    board = game.board
    owner_of = rules.owner_of_color
    start = below(rng, hoods)
    # (read once into native floats: a tuple item is boxed on every read)
    w_margin: float = weights[0]
    w_floors: float = weights[1]
    w_lead: float = weights[2]
    w_takeover: float = weights[3]
    w_empty: float = weights[4]
    w_tallest: float = weights[5]
    w_height: float = weights[6]
    tallest = picture.tallest
    best_value = -math.inf
    best = (-1, -1, -1, -1)
    values: list[float] = []
    moves: list[tuple[int, int, int, int]] = []
    for card in sorted(set(game.hands[player])):
        block = table[card]
        for k in range(hoods):
            n = (start + k) % hoods
            index = n * 9 + block
            before = picture.owners[index]
            shape = w_empty if before < 0 else w_takeover if owner_of[before] != player else 0.0
            for c, f in pieces:
                if f < need(ctx, index, c):
                    continue
                height = picture.heights[index] + f
                value = w_margin * picture.margin_after(player, index, c, f) + w_floors * f
                value += w_lead * lead(board[index], c, f) + shape + w_height * height
                if height > tallest:
                    value += w_tallest
                if sample:
                    values.append(value)
                    moves.append((card, n, f, c))
                if value > best_value:
                    best_value = value
                    best = (card, n, f, c)
    if best[0] < 0:
        random_step(game, rng)  # no legal placement: the forfeit of [D5]
        return
    if sample:
        top = best_value
        best = rng.choices(moves, [math.exp(v - top) for v in values])[0]
    game.build(best[0], best[1], best[2], best[3])
