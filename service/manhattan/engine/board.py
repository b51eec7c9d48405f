"""Board geometry and building queries.

A block is addressed ``(n, r, c)`` (RULES §1) and stored at the flat index ``n*9 + r*3 + c``.
A building is a tuple of pieces bottom to top, each piece ``(color, floors)``; ``()`` is an empty
block.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

Piece = tuple[int, int]
Building = tuple[Piece, ...]
Board = tuple[Building, ...]

BLOCKS: Final = 54
MAX_FLOORS: Final = 4  # the largest piece (RULES §6: "safe" beyond it)
NO_OWNER: Final = -1


def block_index(n: int, r: int, c: int) -> int:
    return n * 9 + r * 3 + c


def block_coords(index: int) -> tuple[int, int, int]:
    n, b = divmod(index, 9)
    return n, b // 3, b % 3


def height(building: Building) -> int:
    return sum(f for _, f in building)


def owner(building: Building) -> int:
    """The color of the top piece (RULES §1), or NO_OWNER for an empty block."""
    return building[-1][0] if building else NO_OWNER


def floors_of(building: Building, color: int) -> int:
    return sum(f for c, f in building if c == color)


def floors_by_color(building: Building, colors: int) -> list[int]:
    out = [0] * colors
    for c, f in building:
        out[c] += f
    return out


def floors_needed(building: Building, color: int) -> int:
    """RULES §6: the smallest piece of ``color`` that may be placed here (1 = any piece).

    Empty or owned by ``color``: any piece. Otherwise, after placing, the floors of ``color`` must
    be at least the floors of the owner's color [D6]; a result above MAX_FLOORS means no piece can
    (the building is safe from ``color``). Anti-trust [D9] is checked by the caller.
    """
    if not building:
        return 1
    top = building[-1][0]
    if top == color:
        return 1
    mine = theirs = 0
    for c, f in building:
        if c == color:
            mine += f
        elif c == top:
            theirs += f
    return max(1, theirs - mine)


def is_safe(building: Building, colors: int) -> bool:
    """RULES §6: the owner leads every other color by more than MAX_FLOORS floors."""
    if not building:
        return False
    floors = floors_by_color(building, colors)
    top = building[-1][0]
    return all(floors[top] - f > MAX_FLOORS for c, f in enumerate(floors) if c != top)


# RULES §9 [D11]: the six neighborhoods as a 9-wide x 6-high torus of blocks (0 1 2 over 3 4 5).
TORUS_WIDTH: Final = 9
TORUS_HEIGHT: Final = 6


def torus_xy(index: int) -> tuple[int, int]:
    n, r, c = block_coords(index)
    return (n % 3) * 3 + c, (n // 3) * 3 + r


def torus_index(x: int, y: int) -> int:
    x %= TORUS_WIDTH
    y %= TORUS_HEIGHT
    return block_index((y // 3) * 3 + x // 3, y % 3, x % 3)


def _monster_steps() -> tuple[tuple[int, ...], ...]:
    table = []
    for index in range(BLOCKS):
        x, y = torus_xy(index)
        row = []
        for card_block in range(9):
            dr, dc = card_block // 3 - 1, card_block % 3 - 1
            row.append(torus_index(x + dc, y + dr))
        table.append(tuple(row))
    return tuple(table)


#: MONSTER_STEP[index][board_block] = where the monster goes from ``index`` when the played card
#: designates ``board_block`` (0..8, board frame): toward it from the center; center: stays.
MONSTER_STEP: Final[tuple[tuple[int, ...], ...]] = _monster_steps()

#: Orthogonal neighbors of each block inside its own neighborhood (for the villa rule, §10).
NEIGHBORS_IN_NEIGHBORHOOD: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        block_index(n, rr, cc)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= rr < 3 and 0 <= cc < 3
    )
    for n, r, c in (block_coords(i) for i in range(BLOCKS))
)


def heights(board: Sequence[Building]) -> list[int]:
    return [sum(f for _, f in b) for b in board]
