"""Hand-built positions in the contract format (DESIGN §2), loaded through ``State.from_json``.

Tests describe a board as ``{(n, r, c): [(color, floors), ...]}`` (bottom to top); ``position``
fills in the rest so that the state is valid (the mover holds ``hand``, the other players the
first cards left): it is set in the build phase of a round (the last
one unless ``round_`` says otherwise), supplies hold what the board and selections leave, earlier
rounds are in the history with zero points, and the cards not in a hand form the deck.
Only the public API and the JSON contract are used, never engine internals.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import manhattan

PIECES = (11, 6, 4, 3)  # RULES §1: pieces per color by size 1, 2, 3, 4 floors
Block = tuple[int, int, int]
Board = Mapping[Block, Sequence[tuple[int, int]]]

# Display names (RULES §1), used by the rulebook golden files.
MANHATTAN, CAIRO, SAO_PAULO, FRANKFURT, SYDNEY, HONG_KONG = range(6)
SOUTH, WEST, NORTH, EAST = range(4)


def turn(r: int, c: int, seat: int) -> tuple[int, int]:
    """RULES §2: card (r, c) seen from ``seat`` is (r, c) turned a quarter clockwise per seat."""
    for _ in range(seat):
        r, c = c, 2 - r
    return r, c


def card_for(seat: int, r: int, c: int) -> int:
    """The card position (holder's frame) that designates board block (r, c) from ``seat``."""
    (card,) = [p for p in range(9) if turn(p // 3, p % 3, seat) == (r, c)]
    return card


def board_json(board: Board | None) -> list[list[list[list[int]]]]:
    out: list[list[list[list[int]]]] = [[[] for _ in range(9)] for _ in range(6)]
    for (n, r, c), pieces in (board or {}).items():
        out[n][r * 3 + c] = [[color, floors] for color, floors in pieces]
    return out


def zero_breakdown() -> dict[str, Any]:
    return {"buildings": 0, "majorities": [], "tallest": 0, "urban": 0, "total": 0}


def position_json(
    *,
    players: int = 4,
    edition: str = "classic",
    variants: Mapping[str, Any] | None = None,
    board: Board | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    hand: Sequence[int] | None = None,
    selected: Mapping[int, Sequence[int]] | None = None,
    to_move: int = 0,
    first_player: int = 0,
    seats: Sequence[int] | None = None,
    monster: Block | None = None,
    round_: int | None = None,
    rounds: int | None = None,
    pieces_per_round: int | None = None,
    urban: str | None = None,
    urban_next: str | None = None,
    discard: Sequence[int] = (),
) -> dict[str, Any]:
    """The JSON of a valid build-phase position (see the module docstring)."""
    rules = manhattan.new_game(
        players=players,
        edition=edition,
        variants=dict(variants or {}),
        seats=seats,
        rounds=rounds,
        pieces_per_round=pieces_per_round,
        seed="positions",
    ).to_json()["rules"]
    k = sum(len(cs) for cs in rules["colors"])
    round_ = round_ or rules["rounds"]
    if selected is None:  # the mover has one 1-floor piece of their first color left
        selected = {rules["colors"][to_move][0]: (1, 0, 0, 0)}
    sel = [list(selected.get(c, (0, 0, 0, 0))) for c in range(k)]
    grid = board_json(board)
    used = [[0] * 4 for _ in range(k)]
    for hood in grid:
        for building in hood:
            for color, floors in building:
                used[color][floors - 1] += 1
    supply = []
    for c in range(k):
        free = [PIECES[i] - used[c][i] - sel[c][i] for i in range(4)]
        assert min(free) >= 0, f"color {c} uses more pieces than it has"
        left = 24 - round_ * rules["piecesPerRound"]
        counts = []
        for i in range(4):
            take = min(free[i], left)
            counts.append(take)
            left -= take
        assert left == 0, f"color {c}: board and selection use pieces the supply still needs"
        supply.append(counts)
    rest = Counter({p: 5 for p in range(9)})
    if hands is None:  # the mover holds ``hand``; the others the first cards left
        mine = list(hand if hand is not None else (0, 1, 2, 3))
        rest.subtract(Counter(mine))
        rest.subtract(Counter(discard))
        pool = [p for p in range(9) for _ in range(rest[p])]
        hands = [mine if p == to_move else [] for p in range(players)]
        for p in range(players):
            if p != to_move:
                hands[p], pool = pool[:4], pool[4:]
        rest = Counter({p: 5 for p in range(9)})
    hands = [list(h) for h in hands]
    rest.subtract(Counter(c for h in hands for c in h))
    rest.subtract(Counter(discard))
    assert min(rest.values()) >= 0, "more than 5 cards of a position"
    deck = [p for p in range(9) for _ in range(rest[p])]
    urban_json = None
    if rules["variants"]["urbanRules"]:
        assert urban is not None, "urbanRules needs the round's card"
        others = [u for u in manhattan.URBAN_CARDS if u not in (urban, urban_next)]
        revealed = [*others[: round_ - 1], urban]
        deck_u = ([urban_next] if urban_next else []) + others[round_ - 1 :]
        urban_json = {"deck": deck_u, "revealed": revealed, "current": urban}
    return {
        "format": "manhattan/state@1",
        "rules": rules,
        "round": round_,
        "phase": "build",
        "firstPlayer": first_player,
        "toMove": to_move,
        "board": grid,
        "supply": supply,
        "selected": sel,
        "hands": hands,
        "deck": deck,
        "discard": list(discard),
        "scores": [0] * k,
        "history": [
            {"round": i + 1, "scores": [zero_breakdown() for _ in range(k)]}
            for i in range(round_ - 1)
        ],
        "monster": list(monster) if monster is not None else None,
        "urban": urban_json,
        "seed": "positions",
        "shuffles": 0,
    }


def position(**kwargs: Any) -> manhattan.State:
    """``position_json`` loaded (and so validated) by ``State.from_json``."""
    return manhattan.State.from_json(position_json(**kwargs))


def building(state: manhattan.State, n: int, r: int, c: int) -> list[tuple[int, int]]:
    """The pieces on block (n, r, c), bottom to top, read from the contract JSON."""
    return [(p[0], p[1]) for p in state.to_json()["board"][n][r * 3 + c]]


def build(card: int, n: int, floors: int, color: int | None = None) -> manhattan.Move:
    return manhattan.Move.from_json(
        {"type": "build", "card": card, "neighborhood": n, "floors": floors}
        | ({} if color is None else {"color": color})
    )


def scores_of(state: manhattan.State) -> list[dict[str, Any]]:
    """``score_round`` as JSON breakdowns per color (DESIGN §2 breakdown format)."""
    return [b.to_json() for b in manhattan.score_round(state).colors]
