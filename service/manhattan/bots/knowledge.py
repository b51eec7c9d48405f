"""What a bot may compute from its player's ``View`` alone: the legal moves of the player to
move, the urban rule that scores the round, and the board after a build.

The legal moves of the player to move depend only on their own hand and on public information
(RULES §5-6, §9), so the engine's ``ViewGame`` gives ``legal_moves`` a game whose other hands are
empty: the moves it returns are exactly the legal moves of the full state, and nothing hidden is
needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from manhattan.engine import Move, View, legal_moves
from manhattan.engine.board import Building
from manhattan.engine.monster import MONSTER_STEP, monster_hit
from manhattan.engine.rules import ROTATION, Rules
from manhattan.engine.urban import scoring_card
from manhattan.engine.view import ViewGame

__all__ = ["ViewGame", "board_after_build", "known_urban_card", "view_legal_moves"]


def view_legal_moves(view: View) -> list[Move]:
    """``legal_moves`` of the state behind ``view`` (the view's player must be to move)."""
    return legal_moves(ViewGame(view))


def known_urban_card(view: View) -> str | None:
    """The urban rule that will score this round, if the player can know it (RULES §10):
    under fakeNews the scoring card is still face down, so it is unknown (None)."""
    return scoring_card(view.urban_current, None)[0]


def board_after_build(
    board: Sequence[Building],
    rules: Rules,
    player: int,
    monster: int | None,
    move: Move,
) -> tuple[list[Building], int | None]:
    """The board and monster block right after ``move`` (a legal build or forfeit), before any
    card is drawn: the piece is placed, then the monster steps (RULES §9 [D11])."""
    assert move.card is not None
    out = list(board)
    board_block = ROTATION[rules.seats[player]][move.card]
    if move.type == "build":
        assert move.neighborhood is not None and move.color is not None
        assert move.floors is not None
        index = move.neighborhood * 9 + board_block
        out[index] = (*out[index], (move.color, move.floors))
    if monster is not None:
        kind = rules.variants.monster
        assert kind is not None
        to = MONSTER_STEP[monster][board_block]
        hit = monster_hit(kind, to != monster, out[to])
        if hit is not None:
            out[to] = hit[0]
        monster = to
    return out, monster
