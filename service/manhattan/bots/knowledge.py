"""What a bot may compute from its player's ``View`` alone: the legal moves of the player to
move, the urban rule that scores the round, and the board after a build.

The legal moves of the player to move depend only on their own hand and on public information
(RULES §5-6, §9), so ``ViewGame`` gives ``legal_moves`` a game whose other hands are empty: the
moves it returns are exactly the legal moves of the full state, and nothing hidden is needed.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine import Move, View, legal_moves
from ..engine.board import MONSTER_STEP, Building
from ..engine.rules import ROTATION, Rules


class ViewGame:
    """``legality.GameLike`` over a View: the player's own hand, no one else's."""

    __slots__ = ("_view", "hands")

    def __init__(self, view: View) -> None:
        self._view = view
        self.hands: tuple[tuple[int, ...], ...] = tuple(
            view.hand if p == view.player else () for p in range(view.rules.players)
        )

    @property
    def rules(self) -> Rules:
        return self._view.rules

    @property
    def round(self) -> int:
        return self._view.round

    @property
    def phase(self) -> str:
        return self._view.phase

    @property
    def to_move(self) -> int | None:
        return self._view.to_move

    @property
    def board(self) -> Sequence[Building]:
        return self._view.board

    @property
    def supply(self) -> Sequence[Sequence[int]]:
        return self._view.supply

    @property
    def selected(self) -> Sequence[Sequence[int]]:
        return self._view.selected

    @property
    def monster(self) -> int | None:
        return self._view.monster


def view_legal_moves(view: View) -> list[Move]:
    """``legal_moves`` of the state behind ``view`` (the view's player must be to move)."""
    return legal_moves(ViewGame(view))


def known_urban_card(view: View) -> str | None:
    """The urban rule that will score this round, if the player can know it (RULES §10):
    under fakeNews the scoring card is still face down, so it is unknown (None)."""
    card = view.urban_current
    return None if card == "fakeNews" else card


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
        to = MONSTER_STEP[monster][board_block]
        baby = rules.variants.monster == "baby"
        if out[to] and (to != monster or baby):
            out[to] = out[to][:-1] if baby else ()
        monster = to
    return out, monster
