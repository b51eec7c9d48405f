"""Explained rejections: why ``check_move`` refuses a move, with the rule's section and decision,
the numbers involved and the nearest legal alternatives (DESIGN §5).

``check_move`` stays the one place legality lives: ``explain`` asks it first and only then
classifies the refusal, in the order ``check_move`` checks, so a verdict never disagrees with it.
The message is ``check_move``'s own. Works on a ``View`` of the player to move (only the mover's
hand is read); on a view of another player every move is refused as not that player's turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from manhattan.engine.analysis import Source, known_game
from manhattan.engine.board import block_coords
from manhattan.engine.errors import IllegalMoveError
from manhattan.engine.legality import (
    GameLike,
    check_move,
    has_build,
    legal_moves,
    next_select_color,
)
from manhattan.engine.moves import Move
from manhattan.engine.placement import Placement, Rule
from manhattan.engine.rules import ROTATION
from manhattan.engine.state import State


@dataclass(frozen=True, slots=True)
class Alternative:
    """A legal move close to the refused one. ``kind``: ``sameCardOtherPiece`` (same card and
    neighborhood), ``samePieceOtherNeighborhood`` (same card and piece) or
    ``samePieceOtherCard`` (same piece and neighborhood, another card of the hand)."""

    kind: str
    move: Move

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "move": self.move.to_json()}


@dataclass(frozen=True, slots=True)
class Verdict:
    """``legal`` with the normalized move, or the refusal: ``code`` (DESIGN §5), ``rule``,
    ``message``, ``numbers`` (name, value) and ``alternatives``."""

    legal: bool
    move: Move
    code: str | None = None
    rule: Rule | None = None
    message: str | None = None
    numbers: tuple[tuple[str, int], ...] = ()
    alternatives: tuple[Alternative, ...] = ()

    def to_json(self) -> dict[str, Any]:
        rule = self.rule
        return {
            "legal": self.legal,
            "move": self.move.to_json(),
            "code": self.code,
            "reason": rule and rule.reason,
            "section": rule and rule.section,
            "decision": rule and rule.decision,
            "option": rule and rule.option,
            "message": self.message,
            "numbers": dict(self.numbers),
            "alternatives": [a.to_json() for a in self.alternatives],
        }


Numbers = tuple[tuple[str, int], ...]
Finding = tuple[Rule, Numbers] | None
GAME_OVER = Rule("gameOver", "§8")
NOT_YOUR_TURN = Rule("notYourTurn", "§5.2")
OTHER = Rule("other", "§5")


def _turn(game: GameLike, move: Move) -> Finding:
    player = game.to_move
    if game.phase == "over" or player is None:
        return GAME_OVER, ()
    if move.player is not None and move.player != player:
        return NOT_YOUR_TURN, (("toMove", player),)
    return None


def _select(game: GameLike, player: int, move: Move) -> Finding:
    if game.phase != "select":
        return Rule("wrongPhase", "§5.1"), ()
    color = next_select_color(game, player)
    assert color is not None and move.pieces is not None
    if move.color != color:
        if move.color in game.rules.colors[player]:
            return Rule("selectOrder", "§5.1", "D4"), (("color", color),)
        return Rule("notYourColor", "§3", "D3"), ()
    want = game.rules.pieces_per_round
    if sum(move.pieces) != want:
        return Rule("pieceCount", "§5.1"), (("piecesChosen", sum(move.pieces)), ("required", want))
    for size, (take, left) in enumerate(zip(move.pieces, game.supply[color], strict=True), 1):
        if take > left:
            numbers = (("floors", size), ("chosen", take), ("left", left))
            return Rule("supplyExhausted", "§5.1"), numbers
    return None


def _piece(game: GameLike, player: int, move: Move) -> Finding:
    if game.phase != "build":
        return Rule("wrongPhase", "§5.1"), ()
    colors = game.rules.colors[player]
    if move.color is None and len(colors) > 1:
        return Rule("colorRequired", "§3", "D3"), ()
    if move.color is not None and move.color not in colors:
        return Rule("notYourColor", "§3", "D3"), ()
    color = colors[0] if move.color is None else move.color
    assert move.card is not None and move.floors is not None
    if move.card not in game.hands[player]:
        return Rule("cardNotInHand", "§5.2"), (("card", move.card),)
    if not game.selected[color][move.floors - 1]:
        largest = max((f for f in range(1, 5) if game.selected[color][f - 1]), default=0)
        return Rule("pieceNotSelected", "§5.2"), (("floors", move.floors), ("largest", largest))
    if move.type == "forfeit" and has_build(game, player):
        return Rule("forfeitNotAllowed", "§5.2", "D5"), ()
    return None


def _place(game: GameLike, player: int, move: Move) -> Finding:
    assert move.card is not None and move.neighborhood is not None and move.floors is not None
    index = move.neighborhood * 9 + ROTATION[game.rules.seats[player]][move.card]
    if move.block is not None and tuple(move.block) != block_coords(index):
        return Rule("wrongBlock", "§2"), ()
    colors = game.rules.colors[player]
    color = colors[0] if move.color is None else move.color
    refused = Placement(game, player).refusal(index, color, move.floors)
    return None if refused is None else (refused.rule, refused.numbers)


def _classify(game: GameLike, move: Move) -> Finding:
    """The first rule ``move`` breaks, checked in ``check_move``'s order."""
    found = _turn(game, move)
    if found is not None:
        return found
    player = game.to_move
    assert player is not None
    if move.type == "select":
        return _select(game, player, move)
    found = _piece(game, player, move)
    if found is not None or move.type == "forfeit":
        return found
    return _place(game, player, move)


def _alternatives(game: GameLike, move: Move) -> tuple[Alternative, ...]:
    """Legal builds nearest to a refused build: same card with another piece, same piece in
    another neighborhood, same piece in the same neighborhood with another card."""
    if move.type != "build" or game.phase != "build" or game.to_move is None:
        return ()
    colors = game.rules.colors[game.to_move]
    color = colors[0] if move.color is None else move.color
    piece = (color, move.floors)
    near = move.floors or 0

    def same_piece(m: Move) -> bool:
        return (m.color, m.floors) == piece

    kinds: list[tuple[str, Callable[[Move], bool]]] = [
        (
            "sameCardOtherPiece",
            lambda m: (m.card, m.neighborhood) == (move.card, move.neighborhood),
        ),
        ("samePieceOtherNeighborhood", lambda m: m.card == move.card and same_piece(m)),
        ("samePieceOtherCard", lambda m: m.neighborhood == move.neighborhood and same_piece(m)),
    ]
    builds = [m for m in legal_moves(game) if m.type == "build"]
    out: list[Alternative] = []
    for kind, keep in kinds:
        found = sorted((m for m in builds if keep(m)), key=lambda m: abs((m.floors or 0) - near))
        out.extend(Alternative(kind, m) for m in found)
    return tuple(out)


def explain(source: Source, move: Move) -> Verdict:
    """Whether ``move`` is legal in ``source`` and, if not, which rule it breaks, the numbers
    involved and the nearest legal alternatives."""
    if not isinstance(source, State) and source.player != source.to_move:
        message = (
            f"it is player {source.to_move}'s turn; this view is player {source.player}'s"
            if source.to_move is not None
            else "the game is over (RULES §8)"
        )
        rule = NOT_YOUR_TURN if source.to_move is not None else GAME_OVER
        code = "ILLEGAL_MOVE" if source.to_move is not None else "GAME_OVER"
        return Verdict(False, move, code, rule, message)
    game = known_game(source)
    try:
        legal = check_move(game, move)
    except IllegalMoveError as err:
        rule, numbers = _classify(game, move) or (OTHER, ())
        return Verdict(False, move, err.code, rule, err.message, numbers, _alternatives(game, move))
    return Verdict(True, legal)


__all__ = ["Alternative", "Rule", "Verdict", "explain"]
