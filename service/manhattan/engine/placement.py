"""Where a piece may go: the placement rule of RULES §6 and §9, written once.

A placement of a ``floors`` piece of ``color`` on a block is refused, in this order, when the
block's neighborhood is not open yet (slowGrowth [D10]), the monster stands on it (§9 [D11]), the
building is already the player's (antiTrust [D9]), or the piece is too small to keep or take the
building (§6 [D6]). ``REFUSALS`` is that table; ``Placement.refusal`` walks it to say why.

Move generation, ``check_move``, the samplers of the bots' fast path and the analyses ask the
fast questions (``barred``, ``need``, ``open_hoods``) a thousand times per game, so those are
module functions over a plain ``Context`` tuple made once per question batch, each the table
written out; ``Placement`` asks them too, and ``tests/engine/test_placement.py`` checks over every
block of many positions that they answer exactly as the table does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from manhattan.engine.board import BLOCKS, MAX_FLOORS, Building, block_coords, floors_needed
from manhattan.engine.rules import NEIGHBORHOODS, PIECES_TOTAL, Rules


class GameLike(Protocol):
    """What the rules read of a game: ``State``, ``play.Game`` and ``view.ViewGame`` fit."""

    @property
    def rules(self) -> Rules: ...
    @property
    def round(self) -> int: ...
    @property
    def phase(self) -> str: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def board(self) -> Sequence[Building]: ...
    @property
    def supply(self) -> Sequence[Sequence[int]]: ...
    @property
    def selected(self) -> Sequence[Sequence[int]]: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def monster(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class Rule:
    """Where a refusal comes from: a stable ``reason`` key, the RULES section, the decision
    [D#] and the variant option, when there is one."""

    reason: str
    section: str
    decision: str | None = None
    option: str | None = None


CLOSED_NEIGHBORHOOD: Final[Rule] = Rule("closedNeighborhood", "§9", "D10", "slowGrowth")
MONSTER_BLOCK: Final[Rule] = Rule("monsterBlock", "§9", "D11", "monster")
ANTI_TRUST: Final[Rule] = Rule("antiTrust", "§9", "D9", "antiTrust")
NOT_ENOUGH_FLOORS: Final[Rule] = Rule("notEnoughFloors", "§6")
SAFE_BUILDING: Final[Rule] = Rule("safeBuilding", "§6")

#: The piece size ``Placement.need`` answers for a block no piece of the player may go on.
NO_PIECE: Final[int] = MAX_FLOORS + 1

Numbers = tuple[tuple[str, int], ...]


_ALL_OPEN: Final[range] = range(NEIGHBORHOODS)
#: RULES §9 [D10], by round (ranges are immutable, so shared): 0 .. min(5, round + 1).
_OPEN_BY_ROUND: Final[tuple[range, ...]] = tuple(
    range(min(NEIGHBORHOODS, r + 2)) for r in range(PIECES_TOTAL + 1)
)
#: The same as the number of blocks in open neighborhoods (open ones come first).
_OPEN_BLOCKS_BY_ROUND: Final[tuple[int, ...]] = tuple(9 * len(hoods) for hoods in _OPEN_BY_ROUND)
#: Back from that number to the open neighborhoods.
_BY_OPEN_BLOCKS: Final[dict[int, range]] = {
    9 * len(hoods): hoods for hoods in (*_OPEN_BY_ROUND, _ALL_OPEN)
}
_NO_MONSTER: Final = -1
_NOBODY: Final[tuple[int, ...]] = ()


def open_neighborhoods(rules: Rules, round_: int) -> range:
    """RULES §9 [D10]: with slowGrowth, neighborhoods 0 .. min(5, round + 1) are open."""
    return _OPEN_BY_ROUND[round_] if rules.variants.slow_growth else _ALL_OPEN


#: What the placement rule reads of a game for one player, as a plain tuple (cheap to make once
#: per sampler step): the board, the monster's block (-1: none), the number of blocks in open
#: neighborhoods (RULES §9 [D10]: open neighborhoods are 0 .. k, so a block is in one when its
#: index is below 9k) and the owner colors whose buildings the player may not build on (the
#: player's own under antiTrust [D9], else none).
Context = tuple[Sequence[Building], int, int, tuple[int, ...]]


def context(game: GameLike, player: int) -> Context:
    """The placement rule's ``Context`` of ``player`` in ``game`` now."""
    rules = game.rules
    variants = rules.variants
    monster = game.monster
    return (
        game.board,
        _NO_MONSTER if monster is None else monster,
        _OPEN_BLOCKS_BY_ROUND[game.round] if variants.slow_growth else BLOCKS,
        rules.colors[player] if variants.anti_trust else _NOBODY,
    )


def open_count(ctx: Context) -> int:
    """How many neighborhoods are open (they are 0 .. count - 1, RULES §9 [D10])."""
    return ctx[2] // 9


def barred(ctx: Context, index: int) -> bool:
    """Whether no piece of the player may go on block ``index``, whatever its size (RULES §9:
    a closed neighborhood, the monster's block, the player's own building under antiTrust)."""
    board, monster, open_blocks, barred_owners = ctx
    if index == monster or index >= open_blocks:
        return True
    building = board[index]
    return bool(building) and building[-1][0] in barred_owners


def need(ctx: Context, index: int, color: int) -> int:
    """The smallest piece of ``color`` that may go on ``index``; more than MAX_FLOORS
    (``NO_PIECE`` when the block is ``barred``) when none may (RULES §6, §9)."""
    board, monster, open_blocks, barred_owners = ctx
    if index == monster or index >= open_blocks:
        return NO_PIECE
    building = board[index]
    if not building:
        return 1
    if building[-1][0] in barred_owners:
        return NO_PIECE
    return floors_needed(building, color)


def open_hoods(ctx: Context, block: int) -> Sequence[int]:
    """The neighborhoods whose block at position ``block`` (0-8) is not ``barred``, in order:
    where a card designating ``block`` may build. Usually every open neighborhood."""
    _, monster, open_blocks, barred_owners = ctx
    hoods = _BY_OPEN_BLOCKS[open_blocks]
    if barred_owners or (monster != _NO_MONSTER and monster % 9 == block):
        return [n for n in hoods if not barred(ctx, n * 9 + block)]
    return hoods


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a placement is refused: the rule, the numbers involved and ``check_move``'s message."""

    rule: Rule
    numbers: Numbers
    message: str


class Placement:
    """The placement rule for one player at one moment of a game (RULES §6, §9): the fast
    questions of the module's functions over one ``Context``, and why a placement is refused."""

    __slots__ = ("anti_trust", "board", "ctx", "hoods", "monster", "own", "player", "round")

    def __init__(self, game: GameLike, player: int) -> None:
        rules = game.rules
        self.ctx = context(game, player)
        self.round = game.round
        self.player = player
        self.board = game.board
        self.monster = game.monster
        self.own = rules.colors[player]
        self.hoods = open_neighborhoods(rules, game.round)
        self.anti_trust = rules.variants.anti_trust

    def barred(self, index: int) -> bool:
        return barred(self.ctx, index)

    def open_hoods(self, block: int) -> Sequence[int]:
        return open_hoods(self.ctx, block)

    def need(self, index: int, color: int) -> int:
        return need(self.ctx, index, color)

    def refusal(self, index: int, color: int, floors: int) -> Refusal | None:
        """Why a ``floors`` piece of ``color`` may not go on ``index`` (None: it may): the first
        rule of ``REFUSALS`` it breaks."""
        for test in REFUSALS:
            found = test(self, index, color, floors)
            if found is not None:
                return found
        return None


Check = Callable[[Placement, int, int, int], Refusal | None]


def _closed(p: Placement, index: int, color: int, floors: int) -> Refusal | None:
    n = index // 9
    if n in p.hoods:
        return None
    message = f"neighborhood {n} is not open in round {p.round} (RULES §9 slowGrowth [D10])"
    return Refusal(CLOSED_NEIGHBORHOOD, (("open", len(p.hoods)),), message)


def _monster(p: Placement, index: int, color: int, floors: int) -> Refusal | None:
    if index != p.monster:
        return None
    where = list(block_coords(index))
    message = f"the monster stands on block {where}: nobody builds there (RULES §9)"
    return Refusal(MONSTER_BLOCK, (), message)


def _anti_trust(p: Placement, index: int, color: int, floors: int) -> Refusal | None:
    building = p.board[index]
    if not (p.anti_trust and building and building[-1][0] in p.own):
        return None
    where = list(block_coords(index))
    message = f"the building on {where} is already player {p.player}'s (RULES §9 antiTrust [D9])"
    return Refusal(ANTI_TRUST, (("owner", building[-1][0]),), message)


def _floors(p: Placement, index: int, color: int, floors: int) -> Refusal | None:
    """RULES §6: after placing, the mover's color needs at least the owner's floors [D6]."""
    building = p.board[index]
    need = floors_needed(building, color)
    if floors >= need:
        return None
    top = building[-1][0]
    theirs = sum(f for c, f in building if c == top)
    mine = sum(f for c, f in building if c == color)
    numbers = (
        ("floorsNeeded", need),
        ("ownerFloors", theirs),
        ("yourFloors", mine),
        ("floorsYouWouldHave", mine + floors),
        ("largestPiece", MAX_FLOORS),
    )
    safe = need > MAX_FLOORS
    base = SAFE_BUILDING if safe else NOT_ENOUGH_FLOORS
    # The player's other color is an owner like any other [D6].
    rule = Rule(base.reason, base.section, "D6") if top in p.own else base
    hint = (
        "no piece can take it: it is safe" if safe else f"needs a piece of at least {need} floors"
    )
    message = (
        f"to take the building on {list(block_coords(index))} (owner color {top} with {theirs} "
        f"floors), color {color} must reach at least {theirs} floors; it has {mine}, so it "
        f"{hint} (RULES §6)"
    )
    return Refusal(rule, numbers, message)


#: RULES §9 then §6, in the order ``check_move`` reports them.
REFUSALS: Final[tuple[Check, ...]] = (_closed, _monster, _anti_trust, _floors)


__all__ = [
    "ANTI_TRUST",
    "CLOSED_NEIGHBORHOOD",
    "MONSTER_BLOCK",
    "NOT_ENOUGH_FLOORS",
    "NO_PIECE",
    "REFUSALS",
    "SAFE_BUILDING",
    "Context",
    "GameLike",
    "Placement",
    "Refusal",
    "Rule",
    "barred",
    "context",
    "need",
    "open_count",
    "open_hoods",
    "open_neighborhoods",
]
