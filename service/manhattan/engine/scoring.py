"""Round scoring (RULES §7) and the final ranking with the edition's tiebreakers (§8)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from manhattan.engine.board import Building
from manhattan.engine.records import Breakdown
from manhattan.engine.state import State
from manhattan.engine.urban import SCORERS, scoring_card

TALLEST_BONUS: Final = 3
MAJORITY_BONUS: Final = 2


def majorities(board: Sequence[Building], colors: int) -> list[list[int]]:
    """RULES §7.2: per color, the neighborhoods where it owns strictly more buildings than every
    other color (any tie for the most: nobody; plurality counts)."""
    won: list[list[int]] = [[] for _ in range(colors)]
    for n in range(6):
        counts = [0] * colors
        for b in board[n * 9 : n * 9 + 9]:
            if b:
                counts[b[-1][0]] += 1
        best = max(counts)
        if best and counts.count(best) == 1:
            won[counts.index(best)].append(n)
    return won


def tallest_owner(board: Sequence[Building], heights: Sequence[int]) -> int | None:
    """RULES §7.3 [D7]: the owner of the one building strictly taller than all others, else None
    (two or more tied for tallest score nothing, even when one color owns all of them)."""
    top = max(heights)
    if top == 0 or heights.count(top) != 1:
        return None
    return board[heights.index(top)][-1][0]


def score_board(
    board: Sequence[Building], colors: int, urban_card: str | None = None
) -> tuple[Breakdown, ...]:
    """Score ``board`` for ``colors`` colors; ``urban_card`` adds the 4th criterion (§10)."""
    heights = [sum(f for _, f in b) for b in board]
    owned = [0] * colors
    for b in board:
        if b:
            owned[b[-1][0]] += 1
    won = majorities(board, colors)
    tallest = tallest_owner(board, heights)
    urban = SCORERS[urban_card](board, heights, colors) if urban_card in SCORERS else [0] * colors
    return tuple(
        Breakdown(
            buildings=owned[c],
            majorities=tuple(won[c]),
            tallest=TALLEST_BONUS if tallest == c else 0,
            urban=urban[c],
        )
        for c in range(colors)
    )


@dataclass(frozen=True, slots=True)
class RoundScore:
    """The scoring of one round: per color, and the urban rule that applied (if any)."""

    round: int
    colors: tuple[Breakdown, ...]
    urban: str | None
    player_colors: tuple[tuple[int, ...], ...]

    @property
    def players(self) -> list[int]:
        return [sum(self.colors[c].total for c in cs) for cs in self.player_colors]

    def to_json(self) -> dict[str, object]:
        return {
            "players": self.players,
            "round": self.round,
            "scores": [b.to_json() for b in self.colors],
            "urban": self.urban,
        }


def scoring_urban_card(state: State, *, deck_known: bool = True) -> str | None:
    """The urban rule that scores the current round (``urban.scoring_card``, RULES §10);
    ``deck_known`` False: as a player knows it, None while it is still face down."""
    if state.urban is None:
        return None
    return scoring_card(state.urban.current, state.urban.deck if deck_known else None)[0]


def score_round(state: State, *, deck_known: bool = True) -> RoundScore:
    """The round scoring of the current board, as if the round ended now; ``deck_known`` False:
    as a player may know it (RULES §11), the urban rule left out while it is face down."""
    card = scoring_urban_card(state, deck_known=deck_known)
    return RoundScore(
        round=state.round,
        colors=score_board(state.board, state.rules.color_count, card),
        urban=card,
        player_colors=state.rules.colors,
    )


@dataclass(frozen=True, slots=True)
class Placing:
    player: int
    place: int
    score: int

    def to_json(self) -> dict[str, int]:
        return {"place": self.place, "player": self.player, "score": self.score}


def player_totals(scores: Sequence[int], colors: Sequence[Sequence[int]]) -> list[int]:
    """RULES §7: a player's score is the sum of their colors' scores."""
    return [sum(scores[c] for c in cs) for cs in colors]


def rank(
    board: Sequence[Building],
    scores: Sequence[int],
    colors: Sequence[Sequence[int]],
    edition: str,
) -> list[Placing]:
    """RULES §8 [D8]: places by total; ``modern`` breaks ties by the tallest owned building, then
    by neighborhood majorities on the final board; ``classic`` ties share a place."""
    totals = player_totals(scores, colors)
    keys: list[tuple[int, ...]]
    if edition == "modern":
        heights = [sum(f for _, f in b) for b in board]
        won = majorities(board, sum(len(cs) for cs in colors))
        keys = []
        for p, cs in enumerate(colors):
            tallest = max(
                (heights[i] for i, b in enumerate(board) if b and b[-1][0] in cs), default=0
            )
            keys.append((totals[p], tallest, sum(len(won[c]) for c in cs)))
    else:
        keys = [(t,) for t in totals]
    order = sorted(range(len(colors)), key=lambda p: (tuple(-k for k in keys[p]), p))
    placings: list[Placing] = []
    for i, p in enumerate(order):
        place = placings[-1].place if i and keys[order[i - 1]] == keys[p] else i + 1
        placings.append(Placing(player=p, place=place, score=totals[p]))
    return placings


def ranking(state: State) -> list[Placing]:
    """The standings of ``state`` (the final ranking once the game is over)."""
    return rank(state.board, state.scores, state.rules.colors, state.rules.edition)
