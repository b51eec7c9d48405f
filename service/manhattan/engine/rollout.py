"""The bots' fast path: random moves on a mutable ``Game`` with the same rules code.

``random_step`` plays one random legal move without building the full move list: it draws a
(card, neighborhood, piece) triple at random and keeps it if legal (``draw_placement``: rejection
sampling gives each legal triple the same chance), and only after repeated misses enumerates
with ``builds``, which also finds the forfeit case [D5]. The loop that plays a game out with it
(or with a bot's policy) is ``bots.playout.play_out``.
"""

from __future__ import annotations

import random

from manhattan.engine.draws import below
from manhattan.engine.legality import builds, next_select_color
from manhattan.engine.placement import Context, context, need, open_count
from manhattan.engine.play import Game
from manhattan.engine.rules import ROTATION

#: A placement drawn: (card, flat block index, color, floors).
Draw = tuple[int, int, int, int]

_TRIES = 12


def random_selection(
    supply: list[int], count: int, rng: random.Random
) -> tuple[int, int, int, int]:
    """``count`` pieces drawn one by one, uniformly from what is left of ``supply``."""
    left = list(supply)
    total = sum(left)
    taken = [0, 0, 0, 0]
    for _ in range(count):
        r = below(rng, total)
        size = 0
        while r >= left[size]:
            r -= left[size]
            size += 1
        left[size] -= 1
        taken[size] += 1
        total -= 1
    return taken[0], taken[1], taken[2], taken[3]


class Sampler:
    """Random placements of one player's ``pieces`` ((color, floors) pairs) on the open blocks
    their cards reach."""

    def __init__(self, game: Game, player: int, pieces: list[tuple[int, int]]) -> None:
        self.hand = game.hands[player]
        self.table = ROTATION[game.rules.seats[player]]
        self.ctx: Context = context(game, player)
        self.hoods = open_count(self.ctx)  # neighborhoods 0 .. hoods - 1 (RULES §9 [D10])
        self.pieces = pieces

    def draw(self, rng: random.Random) -> Draw | None:
        """One uniformly drawn (card, block, piece); None when the rules forbid it there."""
        hand, pieces = self.hand, self.pieces
        card = hand[below(rng, len(hand))]
        index = below(rng, self.hoods) * 9 + self.table[card]
        color, floors = pieces[below(rng, len(pieces))]
        if floors < need(self.ctx, index, color):  # RULES §6, §9
            return None
        return card, index, color, floors


def color_to_select(game: Game) -> int | None:
    """The color whose pieces the player to move selects now (RULES §5.1), or None when the
    game is not in its selection phase: the first question of every rollout step."""
    if game.phase != "select":
        return None
    player = game.to_move
    assert player is not None
    color = next_select_color(game, player)
    assert color is not None
    return color


def random_step(game: Game, rng: random.Random) -> None:
    """Play one random legal move of the player to move."""
    rules = game.rules
    color = color_to_select(game)
    if color is not None:
        game.select(color, random_selection(game.supply[color], rules.pieces_per_round, rng))
        return
    player = game.to_move
    assert player is not None
    pieces = [
        (c, f)
        for c in rules.colors[player]
        for f, k in enumerate(game.selected[c], 1)
        for _ in range(k)
    ]
    sampler = Sampler(game, player, pieces)
    for _ in range(_TRIES):
        drawn = sampler.draw(rng)
        if drawn is not None:
            card, index, color, floors = drawn
            game.build(card, index // 9, floors, color)
            return
    hand = game.hands[player]
    options = list(builds(game, player))
    if options:
        card, n, color, floors = options[below(rng, len(options))]
        game.build(card, n, floors, color)
        return
    color, floors = pieces[below(rng, len(pieces))]  # RULES §5.2 [D5]
    game.forfeit(hand[below(rng, len(hand))], floors, color)
