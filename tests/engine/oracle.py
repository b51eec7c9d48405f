"""An independent reading of RULES.md, written from the text and the contract JSON only, used to
cross-check the engine on random reachable states (and to vet the golden move counts).

Nothing here imports the engine: every function takes the state's JSON (DESIGN §2).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

Json = dict[str, Any]
PIECES = (11, 6, 4, 3)


# -- geometry ---------------------------------------------------------------------------------
def turn(r: int, c: int, seat: int) -> tuple[int, int]:
    """RULES §2: a quarter turn clockwise per seat, (r, c) -> (c, 2 - r)."""
    for _ in range(seat):
        r, c = c, 2 - r
    return r, c


def monster_step(at: tuple[int, int, int], r: int, c: int) -> tuple[int, int, int]:
    """RULES §9 [D11]: one block from ``at`` toward board-frame block (r, c) seen from the
    center, on the 9 x 6 torus (neighborhoods 0 1 2 over 3 4 5)."""
    n, rr, cc = at
    x = (n % 3) * 3 + cc + (c - 1)
    y = (n // 3) * 3 + rr + (r - 1)
    x, y = x % 9, y % 6
    return (y // 3) * 3 + x // 3, y % 3, x % 3


# -- legality ---------------------------------------------------------------------------------
def open_neighborhoods(js: Json) -> range:
    """RULES §9 [D10]."""
    if js["rules"]["variants"]["slowGrowth"]:
        return range(min(5, js["round"] + 1) + 1)
    return range(6)


def may_place(js: Json, player: int, color: int, floors: int, n: int, r: int, c: int) -> bool:
    """RULES §6 with [D6], [D9], the monster's block (§9) and slowGrowth [D10]."""
    if n not in open_neighborhoods(js):
        return False
    if js["monster"] is not None and tuple(js["monster"]) == (n, r, c):
        return False
    pieces = js["board"][n][r * 3 + c]
    if not pieces:
        return True
    top = pieces[-1][0]
    if js["rules"]["variants"]["antiTrust"] and top in js["rules"]["colors"][player]:
        return False
    if top == color:
        return True
    mine = sum(f for col, f in pieces if col == color) + floors
    theirs = sum(f for col, f in pieces if col == top)
    return mine >= theirs


def legal_move_keys(js: Json) -> set[tuple[Any, ...]]:
    """Every legal move as (type, card, neighborhood, floors, color, pieces)."""
    player = js["toMove"]
    if js["phase"] == "over" or player is None:
        return set()
    colors = js["rules"]["colors"][player]
    if js["phase"] == "select":  # RULES §5.1 [D4]: lower color first
        color = min(c for c in colors if not any(js["selected"][c]))
        supply, want = js["supply"][color], js["rules"]["piecesPerRound"]
        out = set()
        for a in range(supply[0] + 1):
            for b in range(supply[1] + 1):
                for c in range(supply[2] + 1):
                    d = want - a - b - c
                    if 0 <= d <= supply[3]:
                        out.add(("select", None, None, None, color, (a, b, c, d)))
        return out
    seat = js["rules"]["seats"][player]
    cards = set(js["hands"][player])
    sizes = [(col, f) for col in colors for f in range(1, 5) if js["selected"][col][f - 1]]
    builds = set()
    for card in cards:
        r, c = turn(card // 3, card % 3, seat)
        for n in range(6):
            for col, f in sizes:
                if may_place(js, player, col, f, n, r, c):
                    builds.add(("build", card, n, f, col, None))
    if builds:
        return builds
    return {("forfeit", card, None, f, col, None) for card in cards for col, f in sizes}


def move_key(move: Json) -> tuple[Any, ...]:
    pieces = move.get("pieces")
    return (
        move["type"],
        move.get("card"),
        move.get("neighborhood"),
        move.get("floors"),
        move.get("color"),
        tuple(pieces) if pieces is not None else None,
    )


# -- scoring ----------------------------------------------------------------------------------
def _owner(pieces: list[list[int]]) -> int | None:
    return pieces[-1][0] if pieces else None


def _height(pieces: list[list[int]]) -> int:
    return sum(f for _, f in pieces)


def _unique(values: list[Any], best: Any) -> bool:
    return values.count(best) == 1


def urban_points(board: list[list[list[list[int]]]], k: int, card: str | None) -> list[int]:
    """RULES §10, card by card, from the text of the table."""
    out = [0] * k
    blocks = [(n, b, board[n][b]) for n in range(6) for b in range(9)]
    built = [(n, b, p) for n, b, p in blocks if p]
    counts = [sum(1 for b in range(9) if board[n][b]) for n in range(6)]
    if card == "bigBusiness":
        for n in range(6):
            hs = [_height(p) for p in board[n] if p]
            if hs and _unique(hs, max(hs)):
                (p,) = [p for p in board[n] if p and _height(p) == max(hs)]
                out[p[-1][0]] += 2
    elif card == "multipleTower":
        for _, _, p in built:
            if len({col for col, _ in p}) >= 3:
                out[p[-1][0]] += 2
    elif card in ("smallTown", "megacity"):
        fullest = 9 if 9 in counts else max(counts)
        target = min(counts) if card == "smallTown" else fullest
        hoods = [n for n in range(6) if counts[n] == target]
        if len(hoods) == 1:
            for p in board[hoods[0]]:
                if p:
                    out[p[-1][0]] += 1
    elif card == "fogFreeView":
        for _, _, p in built:
            if _height(p) >= 5:
                out[p[-1][0]] += 1
    elif card == "hobbitHome":
        if built:
            top = max(_height(p) for _, _, p in built)
            hoods = {n for n, _, p in built if _height(p) == top}
            if len(hoods) == 1:
                (n,) = hoods
                hs = [_height(p) for p in board[n] if p]
                if _unique(hs, min(hs)):
                    (p,) = [p for p in board[n] if p and _height(p) == min(hs)]
                    out[p[-1][0]] += 2
    elif card == "founder":  # [D12]
        for _, _, p in built:
            if p[0][0] != p[-1][0]:
                out[p[0][0]] += 1
    elif card == "villa":
        for n, b, p in built:
            r, c = divmod(b, 3)
            near = [(r + dr, c + dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
            empty = any(
                0 <= rr < 3 and 0 <= cc < 3 and not board[n][rr * 3 + cc] for rr, cc in near
            )
            if len(p) == 1 and p[0][1] == 1 and empty:
                out[p[0][0]] += 2
    elif card == "worldwideExpansion":
        for n in range(6):
            for col in {p[-1][0] for p in board[n] if p}:
                out[col] += 1
    return out


def round_scores(js: Json, card: str | None = None) -> list[Json]:
    """RULES §7: the breakdown per color of the board in ``js``."""
    board = js["board"]
    k = len(js["supply"])
    owned = Counter(_owner(p) for hood in board for p in hood if p)
    majorities: list[list[int]] = [[] for _ in range(k)]
    for n in range(6):
        per = Counter(_owner(p) for p in board[n] if p)
        if per:
            best = max(per.values())
            leaders = [col for col, v in per.items() if v == best]
            if len(leaders) == 1:
                majorities[leaders[0]].append(n)
    heights = [(_height(p), _owner(p)) for hood in board for p in hood if p]
    tallest = None
    if heights:
        top = max(h for h, _ in heights)
        owners = [o for h, o in heights if h == top]
        if len(owners) == 1:  # [D7]
            tallest = owners[0]
    urban = urban_points(board, k, card)
    out = []
    for col in range(k):
        part = {
            "buildings": owned[col],
            "majorities": majorities[col],
            "tallest": 3 if tallest == col else 0,
            "urban": urban[col],
        }
        part["total"] = (
            part["buildings"] + 2 * len(part["majorities"]) + part["tallest"] + part["urban"]
        )
        out.append(part)
    return out


def scoring_card(js: Json) -> str | None:
    """The urban rule that scores this round: the current card; under fakeNews the next one."""
    urban = js["urban"]
    if urban is None or urban["current"] is None:
        return None
    if urban["current"] == "fakeNews":
        return urban["deck"][0] if urban["deck"] else None
    return urban["current"]  # type: ignore[no-any-return]
