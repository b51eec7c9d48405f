"""The greedy bot: the move with the best immediate gain, seen from its player's View only.

A build is worth the player's score margin (their round score minus the best other player's) if
the round were scored right after it (RULES §7: buildings, majorities, the tallest building,
and the round's urban rule when it is known), so takeovers, majorities and the tallest bonus all
count. Ties go to the move that leaves the building harder to take, then to the smaller piece
(big pieces are worth keeping for takeovers). Pieces are selected in proportion to what is left
of the supply, so that every round keeps a mix of sizes (RULES §5.1).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from manhattan.bots.knowledge import board_after_build, known_urban_card
from manhattan.engine import Move, View
from manhattan.engine.board import Building
from manhattan.engine.rules import Rules
from manhattan.engine.scoring import score_board

#: Tie-breaks, far below one point: how much harder the building is to take, piece size spent.
SECURITY_WEIGHT = 0.02
FLOORS_WEIGHT = 0.05


def player_margins(board: Sequence[Building], rules: Rules, urban_card: str | None) -> list[float]:
    """Each player's round score minus the best other player's, if the round ended now."""
    breakdown = score_board(board, rules.color_count, urban_card)
    totals = [sum(breakdown[c].total for c in cs) for cs in rules.colors]
    margins: list[float] = []
    for p, total in enumerate(totals):
        best_other = max(t for q, t in enumerate(totals) if q != p)
        margins.append(total - best_other)
    return margins


def _security(building: Building, color: int) -> int:
    """How many floors the owner ``color`` leads the strongest other color by (capped at 5)."""
    floors: dict[int, int] = {}
    for c, f in building:
        floors[c] = floors.get(c, 0) + f
    mine = floors.pop(color, 0)
    return min(5, mine - max(floors.values(), default=0))


def move_value(view: View, move: Move, urban_card: str | None) -> float:
    """The greedy worth of one legal move of the view's player (higher is better)."""
    player = view.player
    if move.type == "select":
        return 0.0
    assert move.floors is not None
    board, _ = board_after_build(view.board, view.rules, player, view.monster, move)
    value = player_margins(board, view.rules, urban_card)[player]
    if move.type == "forfeit":
        return value - FLOORS_WEIGHT * move.floors  # [D5] give up the smallest piece
    assert move.neighborhood is not None and move.color is not None
    index = move.neighborhood * 9 + view.rules.block_of(player, move.card or 0)
    building = board[index]
    if building and building[-1][0] == move.color:
        value += SECURITY_WEIGHT * _security(building, move.color)
    return value - FLOORS_WEIGHT * move.floors


def balanced_selection(supply: Sequence[int], count: int) -> tuple[int, int, int, int]:
    """``count`` pieces in proportion to ``supply`` (largest remainders first, ties to the
    bigger piece), so that each round keeps a mix of sizes (RULES §5.1)."""
    total = sum(supply)
    exact = [s * count / total for s in supply]
    taken = [int(x) for x in exact]
    order = sorted(range(4), key=lambda i: (-(exact[i] - taken[i]), -i))
    for i in order[: count - sum(taken)]:
        taken[i] += 1
    return taken[0], taken[1], taken[2], taken[3]


@dataclass(frozen=True, slots=True)
class RankedMove:
    move: Move
    value: float


def rank_moves(view: View, moves: Sequence[Move], rng: random.Random) -> list[RankedMove]:
    """``moves`` by greedy value, best first; equal values in an order drawn from ``rng``."""
    if moves and moves[0].type == "select":
        color = moves[0].color
        assert color is not None
        want = balanced_selection(view.supply[color], view.rules.pieces_per_round)
        ranked = [RankedMove(m, 1.0 if m.pieces == want else 0.0) for m in moves]
    else:
        urban = known_urban_card(view)
        ranked = [RankedMove(m, move_value(view, m, urban)) for m in moves]
    keys = {id(r): rng.random() for r in ranked}
    ranked.sort(key=lambda r: (-r.value, keys[id(r)]))
    return ranked
