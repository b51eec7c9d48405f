"""Legal move generation and move checking (RULES §5-6, §9), over the one placement rule of
``placement.py``.

The functions read any object shaped like a game (``State``, the mutable ``Game`` of ``play.py``
or a ``view.ViewGame``), so the public API, the analyses and the bots' fast path share the same
rules code.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from manhattan.engine.board import block_coords, floors_needed
from manhattan.engine.errors import IllegalMoveError, illegal, malformed
from manhattan.engine.moves import Move
from manhattan.engine.placement import (
    GameLike,
    Placement,
    context,
    need,
    open_hoods,
    open_neighborhoods,
)
from manhattan.engine.rules import NEIGHBORHOODS, ROTATION


def next_select_color(game: GameLike, player: int) -> int | None:
    """RULES §5.1 [D4]: the player's lowest color that has not chosen its pieces this round."""
    for color in game.rules.colors[player]:
        if not any(game.selected[color]):
            return color
    return None


def builds(game: GameLike, player: int) -> Iterator[tuple[int, int, int, int]]:
    """Every legal (card, neighborhood, color, floors) build of ``player``, in that order."""
    seat_table = ROTATION[game.rules.seats[player]]
    sizes = _selected_sizes(game, player)
    if not sizes:
        return
    ctx = context(game, player)
    board = game.board
    for card in sorted(set(game.hands[player])):
        block = seat_table[card]
        for n in open_hoods(ctx, block):
            building = board[n * 9 + block]
            for color, floors in sizes:
                need = floors_needed(building, color)  # RULES §6
                for f in floors:
                    if f >= need:
                        yield card, n, color, f


def _selected_sizes(game: GameLike, player: int) -> list[tuple[int, list[int]]]:
    """Each of the player's colors with the piece sizes it has selected (RULES §5.2)."""
    sizes = [
        (c, [f for f in range(1, 5) if game.selected[c][f - 1]]) for c in game.rules.colors[player]
    ]
    return [(c, fs) for c, fs in sizes if fs]


def has_build(game: GameLike, player: int) -> bool:
    return next(builds(game, player), None) is not None


def _select_options(supply: Sequence[int], total: int) -> Iterator[tuple[int, int, int, int]]:
    for a in range(min(supply[0], total) + 1):
        for b in range(min(supply[1], total - a) + 1):
            for c in range(min(supply[2], total - a - b) + 1):
                d = total - a - b - c
                if d <= supply[3]:
                    yield a, b, c, d


_MOVES: Final[dict[tuple[object, ...], Move]] = {}
_BUILD_TABLES: Final[dict[tuple[int, int], list[list[list[list[Move]]]]]] = {}


def _build_table(player: int, seat: int) -> list[list[list[list[Move]]]]:
    """Every build move of a player at a seat, made once: ``[card][n][color][floors - 1]``.

    Moves are immutable values, so ``legal_moves`` hands out shared instances.
    """
    table = _BUILD_TABLES.get((player, seat))
    if table is None:
        table = _BUILD_TABLES[(player, seat)] = [
            [
                [
                    [
                        Move(
                            "build",
                            card=card,
                            neighborhood=n,
                            floors=f,
                            color=color,
                            player=player,
                            block=block_coords(n * 9 + ROTATION[seat][card]),
                        )
                        for f in range(1, 5)
                    ]
                    for color in range(4)
                ]
                for n in range(NEIGHBORHOODS)
            ]
            for card in range(9)
        ]
    return table


def _build_move(player: int, seat: int, card: int, n: int, color: int, floors: int) -> Move:
    return _build_table(player, seat)[card][n][color][floors - 1]


def _forfeit_move(player: int, card: int, color: int, floors: int) -> Move:
    key = ("x", player, card, color, floors)
    move = _MOVES.get(key)
    if move is None:
        move = _MOVES[key] = Move("forfeit", card=card, floors=floors, color=color, player=player)
    return move


def _legal_builds(game: GameLike, player: int) -> list[Move]:
    """``builds`` as shared Move values; the hot path of ``legal_moves``, same rules."""
    sizes = _selected_sizes(game, player)
    if not sizes:
        return []
    seat = game.rules.seats[player]
    seat_table = ROTATION[seat]
    table = _build_table(player, seat)
    ctx = context(game, player)
    board = game.board
    moves: list[Move] = []
    for card in sorted(set(game.hands[player])):
        block = seat_table[card]
        by_hood = table[card]
        for n in open_hoods(ctx, block):
            building = board[n * 9 + block]
            # Appended one by one: compiled, that is a C loop with no list made per block.
            for color, floors in sizes:
                need = floors_needed(building, color) if building else 1  # RULES §6
                row = by_hood[n][color]
                for f in floors:
                    if f >= need:
                        moves.append(row[f - 1])
    return moves


def legal_moves(game: GameLike) -> list[Move]:
    """Every legal move exactly once, in a deterministic order (identical cards are one move)."""
    player = game.to_move
    if player is None or game.phase == "over":
        return []
    if game.phase == "select":
        color = next_select_color(game, player)
        assert color is not None, "a consistent state has a color to select for"
        return [
            Move("select", color=color, pieces=pieces, player=player)
            for pieces in _select_options(game.supply[color], game.rules.pieces_per_round)
        ]
    moves = _legal_builds(game, player)
    if moves:
        return moves
    # RULES §5.2 [D5]: no legal placement: discard a card and forfeit a selected piece.
    return [
        _forfeit_move(player, card, color, f)
        for card in sorted(set(game.hands[player]))
        for color in game.rules.colors[player]
        for f in range(1, 5)
        if game.selected[color][f - 1]
    ]


def check_move(game: GameLike, move: Move) -> Move:
    """The legal move ``move`` stands for, with player, color and block filled in; otherwise
    IllegalMoveError naming the rule that forbids it."""
    player = game.to_move
    if game.phase == "over" or player is None:
        raise IllegalMoveError("the game is over (RULES §8)", code="GAME_OVER")
    if move.player is not None and move.player != player:
        raise illegal(f"it is player {player}'s turn, not player {move.player}'s")
    if move.type == "select":
        return _check_select(game, player, move)
    if game.phase != "build":
        raise illegal(
            f"a {move.type} move is played in the build phase; now players select "
            "their pieces (RULES §5.1)"
        )
    color = _mover_color(game, player, move)
    assert move.card is not None and move.floors is not None
    if move.card not in game.hands[player]:
        raise illegal(f"card {move.card} is not in player {player}'s hand")
    if not game.selected[color][move.floors - 1]:
        raise illegal(f"color {color} has no {move.floors}-floor piece selected this round")
    if move.type == "forfeit":
        return _check_forfeit(game, player, color, move)
    return _check_build(game, player, color, move)


def _mover_color(game: GameLike, player: int, move: Move) -> int:
    colors = game.rules.colors[player]
    if move.color is None:
        if len(colors) > 1:
            raise malformed(
                f"player {player} plays colors {list(colors)}: the move must name its 'color'"
            )
        return colors[0]
    if move.color not in colors:
        raise illegal(f"color {move.color} is not player {player}'s (RULES §3)")
    return move.color


def _check_select(game: GameLike, player: int, move: Move) -> Move:
    if game.phase != "select":
        raise illegal(
            "pieces are selected at the start of a round; now is the build phase (RULES §5.1)"
        )
    color = next_select_color(game, player)
    assert color is not None and move.pieces is not None
    if move.color != color:
        if move.color in game.rules.colors[player]:
            raise illegal(f"player {player} chooses for color {color} first (RULES §5.1 [D4])")
        raise illegal(f"color {move.color} is not player {player}'s (RULES §3)")
    want = game.rules.pieces_per_round
    if sum(move.pieces) != want:
        raise illegal(
            f"choose exactly {want} pieces of color {color}, not {sum(move.pieces)} (RULES §5.1)"
        )
    for size, (take, left) in enumerate(zip(move.pieces, game.supply[color], strict=True), 1):
        if take > left:
            raise illegal(f"color {color} has only {left} {size}-floor piece(s) left, not {take}")
    return Move("select", color=color, pieces=move.pieces, player=player)


def _check_forfeit(game: GameLike, player: int, color: int, move: Move) -> Move:
    if has_build(game, player):
        example = _build_move(player, game.rules.seats[player], *next(builds(game, player)))
        raise illegal(
            "a card and piece may be forfeited only when no placement is legal "
            f"(RULES §5.2 [D5]); {example} is legal"
        )
    assert move.card is not None and move.floors is not None
    return _forfeit_move(player, move.card, color, move.floors)


def _check_build(game: GameLike, player: int, color: int, move: Move) -> Move:
    assert move.card is not None and move.neighborhood is not None and move.floors is not None
    seat = game.rules.seats[player]
    index = move.neighborhood * 9 + ROTATION[seat][move.card]
    where = block_coords(index)
    if move.block is not None and tuple(move.block) != where:
        raise illegal(
            f"card {move.card} designates block {list(where)} for player {player}'s "
            f"seat, not {list(move.block)} (RULES §2)"
        )
    if move.floors < need(context(game, player), index, color):
        refused = Placement(game, player).refusal(index, color, move.floors)
        assert refused is not None, "need and the refusal table agree"
        raise illegal(refused.message)
    return _build_move(player, seat, move.card, move.neighborhood, color, move.floors)


__all__ = [
    "GameLike",
    "builds",
    "check_move",
    "has_build",
    "legal_moves",
    "next_select_color",
    "open_neighborhoods",
]
