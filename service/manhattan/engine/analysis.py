"""Building analysis: what a table shows beside the board (RULES §6, §9).

``analyze`` reads a full ``State`` or a player's ``View`` and reports, for every building, its
height, floors per color, owner, whether it is safe, the smallest piece of each color that would
take it, and which of the mover's cards and selected pieces reach it. On a ``View`` it reads only
what the viewer may know (RULES §11): the board, the selections, the monster, the round and the
viewer's own hand (used only when the viewer is the player to move).

The helpers here (``Source``, ``known_game``, ``mover_hand``, ``placement_need``) are shared by
``preview``, ``threats`` and ``explain``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from manhattan.engine.board import MAX_FLOORS, block_coords, floors_by_color, is_safe
from manhattan.engine.placement import GameLike, Placement
from manhattan.engine.rules import ROTATION
from manhattan.engine.state import State
from manhattan.engine.view import View, ViewGame

Source = State | View


def known_game(source: Source) -> GameLike:
    """``source`` as a ``GameLike``: a state as is, a view with only its own hand
    (``view.ViewGame``)."""
    return source if isinstance(source, State) else ViewGame(source)


def mover_hand(source: Source) -> tuple[int, ...] | None:
    """The hand of the player to move, when ``source`` may know it (RULES §11)."""
    player = source.to_move
    if player is None:
        return None
    if isinstance(source, State):
        return source.hands[player]
    return source.hand if source.player == player else None


def placement_need(game: GameLike, index: int, color: int) -> int | None:
    """The smallest piece of ``color`` that may be placed on block ``index`` now, or None when
    no piece may (the placement rule of RULES §6 and §9, ``placement.Placement``), for the player
    who owns ``color``."""
    need = Placement(game, game.rules.owner_of_color[color]).need(index, color)
    return need if need <= MAX_FLOORS else None


def take_need(game: GameLike, index: int, color: int) -> int | None:
    """The smallest piece that makes ``color`` the owner of the building on ``index`` (a
    takeover, RULES §6); None when the block is empty, already ``color``'s, or out of reach."""
    building = game.board[index]
    if not building or building[-1][0] == color:
        return None
    return placement_need(game, index, color)


def smallest_selected(selected: Sequence[int], need: int | None) -> int | None:
    """The smallest selected piece of at least ``need`` floors (RULES §5.2: selected pieces)."""
    if need is None:
        return None
    return next((f for f in range(need, MAX_FLOORS + 1) if selected[f - 1]), None)


@dataclass(frozen=True, slots=True)
class Reach:
    """The mover's ways onto one block: cards (in the mover's frame) that designate it, and
    selected pieces ``(color, floors)`` that may legally be placed there. A build needs both."""

    cards: tuple[int, ...]
    pieces: tuple[tuple[int, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "pieces": [{"color": c, "floors": f} for c, f in self.pieces],
            "canBuild": bool(self.cards and self.pieces),
        }


@dataclass(frozen=True, slots=True)
class BuildingAnalysis:
    """One building (RULES §1, §6). Per-color tuples are indexed by color.

    ``take_with[c]``: the smallest piece size (1-4) with which color ``c`` would take the building
    under the rules and variants in force now, None when it cannot (its owner, a safe building,
    the monster's block, a closed neighborhood, antiTrust). ``take_with_selected[c]``: the same
    among the pieces ``c`` has selected this round. ``reach``: the player to move's options, None
    when the source cannot know their hand (a view of another player).
    """

    block: tuple[int, int, int]
    height: int
    floors: tuple[int, ...]
    owner: int
    safe: bool
    take_with: tuple[int | None, ...]
    take_with_selected: tuple[int | None, ...]
    reach: Reach | None

    def to_json(self) -> dict[str, Any]:
        return {
            "block": list(self.block),
            "height": self.height,
            "floors": list(self.floors),
            "owner": self.owner,
            "safe": self.safe,
            "takeWith": list(self.take_with),
            "takeWithSelected": list(self.take_with_selected),
            "reach": None if self.reach is None else self.reach.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every building of the board, in block order; ``player`` is the viewer (None: full state)."""

    round: int
    phase: str
    to_move: int | None
    player: int | None
    buildings: tuple[BuildingAnalysis, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "phase": self.phase,
            "toMove": self.to_move,
            "player": self.player,
            "buildings": [b.to_json() for b in self.buildings],
        }


def _reach(game: GameLike, hand: Sequence[int], index: int) -> Reach:
    """RULES §2: a card designates the same block in every neighborhood; §5.2: selected pieces."""
    player = game.to_move
    assert player is not None
    rules = game.rules
    table = ROTATION[rules.seats[player]]
    cards = tuple(sorted({card for card in hand if table[card] == index % 9}))
    pieces: list[tuple[int, int]] = []
    # RULES §5: nothing is built during the selection phase, even with a color's pieces chosen
    # (a 2-player player between their two choices [D4]).
    for color in rules.colors[player] if game.phase == "build" else ():
        need = placement_need(game, index, color)
        if need is not None:
            pieces.extend((color, f) for f in range(need, 5) if game.selected[color][f - 1])
    return Reach(cards, tuple(pieces))


def _building(game: GameLike, index: int, hand: Sequence[int] | None) -> BuildingAnalysis:
    building = game.board[index]
    k = game.rules.color_count
    take = tuple(take_need(game, index, c) for c in range(k))
    return BuildingAnalysis(
        block=block_coords(index),
        height=sum(f for _, f in building),
        floors=tuple(floors_by_color(building, k)),
        owner=building[-1][0],
        safe=is_safe(building, k),  # RULES §6: the owner leads every color by more than 4
        take_with=take,
        take_with_selected=tuple(smallest_selected(game.selected[c], take[c]) for c in range(k)),
        reach=None if hand is None else _reach(game, hand, index),
    )


def analyze(source: Source) -> Analysis:
    """Analyze every building of ``source`` (a ``State``, or a ``View`` using only what its
    player may know). ``reach`` is filled for the player to move when their hand is known."""
    game = known_game(source)
    hand = mover_hand(source) if source.phase != "over" else None
    buildings = tuple(
        _building(game, i, hand) for i, building in enumerate(source.board) if building
    )
    return Analysis(
        round=source.round,
        phase=source.phase,
        to_move=source.to_move,
        player=source.player if isinstance(source, View) else None,
        buildings=buildings,
    )


__all__ = ["Analysis", "BuildingAnalysis", "Reach", "Source", "analyze"]
