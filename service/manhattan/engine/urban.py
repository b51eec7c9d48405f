"""RULES §10: the ten urban-rule cards, each scored per color from the board at round end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from manhattan.engine.board import BLOCKS, NEIGHBORS_IN_NEIGHBORHOOD, Building

URBAN_CARDS: Final[tuple[str, ...]] = (
    "bigBusiness",
    "multipleTower",
    "smallTown",
    "fogFreeView",
    "hobbitHome",
    "founder",
    "villa",
    "megacity",
    "worldwideExpansion",
    "fakeNews",
)

_NEIGHBORHOODS: Final[range] = range(6)
FAKE_NEWS: Final = "fakeNews"


def scoring_card(current: str | None, deck: Sequence[str] | None) -> tuple[str | None, bool]:
    """RULES §10: (the urban rule that scores the round, whether it is known). It is the current
    card; under fakeNews the next card of the urban deck, revealed at scoring (none left: no
    rule). ``deck`` None stands for a deck the reader may not see (a player's view): under
    fakeNews the scoring rule is then unknown, (None, False)."""
    if current != FAKE_NEWS:
        return current, True
    if deck is None:
        return None, False
    return (deck[0] if deck else None), True


def _blocks(n: int) -> range:
    return range(n * 9, n * 9 + 9)


def _owner_scores_two_if_unique(
    out: list[int],
    board: Sequence[Building],
    heights: Sequence[int],
    blocks: Sequence[int],
    pick: Callable[[Sequence[int]], int],
) -> None:
    """Give 2 to the owner of the strictly highest/lowest (``pick``) building among ``blocks``."""
    built = [i for i in blocks if board[i]]
    if not built:
        return
    target = pick([heights[i] for i in built])
    winners = [i for i in built if heights[i] == target]
    if len(winners) == 1:
        out[board[winners[0]][-1][0]] += 2


def big_business(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """2 to the owner of the strictly tallest building of each neighborhood."""
    out = [0] * colors
    for n in _NEIGHBORHOODS:
        _owner_scores_two_if_unique(out, board, heights, _blocks(n), max)
    return out


def multiple_tower(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """2 per property holding pieces of at least 3 different colors."""
    out = [0] * colors
    for b in board:
        if b and len({c for c, _ in b}) >= 3:
            out[b[-1][0]] += 2
    return out


def _count_buildings(board: Sequence[Building]) -> list[int]:
    return [sum(1 for i in _blocks(n) if board[i]) for n in _NEIGHBORHOODS]


def _one_per_property_in_unique(
    board: Sequence[Building], colors: int, counts: list[int], pick: Callable[[list[int]], int]
) -> list[int]:
    out = [0] * colors
    target = pick(counts)
    chosen = [n for n in _NEIGHBORHOODS if counts[n] == target]
    if len(chosen) == 1:
        for i in _blocks(chosen[0]):
            if board[i]:
                out[board[i][-1][0]] += 1
    return out


def small_town(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """1 per property in the one neighborhood with the fewest buildings (a tie: nobody)."""
    return _one_per_property_in_unique(board, colors, _count_buildings(board), min)


def megacity(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """1 per property in the fully built neighborhood, else in the one with the most buildings.

    Several complete neighborhoods tie for the most (9) and score nothing: the re-edition's note
    "if more than one neighborhood fulfils the condition, no points" (docs/rules-notes.md, N2).
    """
    return _one_per_property_in_unique(board, colors, _count_buildings(board), max)


def fog_free_view(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """1 per property of at least 5 floors."""
    out = [0] * colors
    for i, b in enumerate(board):
        if b and heights[i] >= 5:
            out[b[-1][0]] += 1
    return out


def hobbit_home(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """2 to the owner of the strictly lowest building in the neighborhood of the board's tallest.

    The tallest buildings must all stand in one neighborhood (tied across neighborhoods: nobody).
    """
    out = [0] * colors
    top = max(heights)
    if top == 0:
        return out
    homes = {i // 9 for i in range(BLOCKS) if heights[i] == top}
    if len(homes) == 1:
        _owner_scores_two_if_unique(out, board, heights, _blocks(homes.pop()), min)
    return out


def founder(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """[D12] 1 to the color of each building's ground floor when it no longer owns the building."""
    out = [0] * colors
    for b in board:
        if b and b[0][0] != b[-1][0]:
            out[b[0][0]] += 1
    return out


def villa(board: Sequence[Building], heights: Sequence[int], colors: int) -> list[int]:
    """2 per property that is a single one-floor piece with an empty orthogonal neighbor
    inside its neighborhood."""
    out = [0] * colors
    for i, b in enumerate(board):
        if len(b) == 1 and b[0][1] == 1 and any(not board[j] for j in NEIGHBORS_IN_NEIGHBORHOOD[i]):
            out[b[0][0]] += 2
    return out


def worldwide_expansion(
    board: Sequence[Building], heights: Sequence[int], colors: int
) -> list[int]:
    """1 per neighborhood where the color owns at least one property."""
    out = [0] * colors
    for n in _NEIGHBORHOODS:
        for c in {board[i][-1][0] for i in _blocks(n) if board[i]}:
            out[c] += 1
    return out


UrbanScorer = Callable[[Sequence[Building], Sequence[int], int], list[int]]

SCORERS: Final[dict[str, UrbanScorer]] = {
    "bigBusiness": big_business,
    "multipleTower": multiple_tower,
    "smallTown": small_town,
    "fogFreeView": fog_free_view,
    "hobbitHome": hobbit_home,
    "founder": founder,
    "villa": villa,
    "megacity": megacity,
    "worldwideExpansion": worldwide_expansion,
}
