"""Reading the fields a new game's setup and a stored state share: seeds, blocks, variants and
the ruleset's numbers (RULES §2-3, §9-10). ``setup`` and ``codec`` both read them, each with its
own error (``fail``); keeping them here keeps the codec from importing the game's transitions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NoReturn

from manhattan.engine.board import block_index
from manhattan.engine.rules import (
    EDITIONS,
    MONSTERS,
    PIECES_TOTAL,
    VARIANT_NAMES,
    Rules,
    Variants,
    default_colors,
    default_seats,
    preset,
)
from manhattan.engine.urban import URBAN_CARDS

Fail = Callable[[str, str], NoReturn]
MAX_SEED: Final = 128
MAX_URBAN_ROUNDS: Final[int] = len(URBAN_CARDS) - 1  # fakeNews may reveal one extra card
VARIANT_KEYS: Final[tuple[str, ...]] = tuple(VARIANT_NAMES.values())


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_variants(obj: object, path: str, fail: Fail) -> Variants:
    if isinstance(obj, Variants):
        return obj
    if obj is None:
        return Variants()
    if not isinstance(obj, Mapping):
        fail(path, "variants is an object of options")
    for key in obj:
        if key not in VARIANT_KEYS:
            fail(f"{path}.{key}", f"unknown variant; known: {', '.join(VARIANT_KEYS)}")
    values: dict[str, Any] = {}
    for field, key in VARIANT_NAMES.items():  # the flags, then the monster
        if field == "monster":
            value = obj.get(key)
            if value is not None and value not in MONSTERS:
                fail(f"{path}.{key}", "must be null, 'godzilla' or 'baby'")
        else:
            value = obj.get(key, False)
            if not isinstance(value, bool):
                fail(f"{path}.{key}", "must be true or false")
        values[field] = value
    return Variants(**values)


def make_rules(
    fail: Fail,
    *,
    edition: object,
    players: object,
    rounds: object,
    pieces_per_round: object,
    colors: object,
    seats: object,
    variants: Variants,
    path: str = "$",
    names: Mapping[str, str] | None = None,
) -> Rules:
    """Validate the ruleset's numbers (shared by ``new_game`` and ``State.from_json``)."""
    key = {
        "rounds": "rounds",
        "piecesPerRound": "piecesPerRound",
        "colors": "colors",
        "seats": "seats",
        "edition": "edition",
        "players": "players",
        **(names or {}),
    }
    if edition not in EDITIONS:
        fail(f"{path}.{key['edition']}", "edition is 'classic' or 'modern'")
    if not is_int(players) or not 2 <= players <= 4:  # type: ignore[operator]
        fail(f"{path}.{key['players']}", "players is an integer from 2 to 4")
    assert isinstance(edition, str) and isinstance(players, int)
    default_rounds, default_pieces = preset(edition, players)
    rounds = default_rounds if rounds is None else rounds
    pieces_per_round = default_pieces if pieces_per_round is None else pieces_per_round
    colors_t = _read_colors(colors, players, f"{path}.{key['colors']}", fail)
    seats_t = _read_seats(seats, players, f"{path}.{key['seats']}", fail)
    if not is_int(rounds) or not 1 <= rounds <= PIECES_TOTAL:  # type: ignore[operator]
        fail(f"{path}.{key['rounds']}", f"rounds is an integer from 1 to {PIECES_TOTAL}")
    if not is_int(pieces_per_round) or not 1 <= pieces_per_round <= PIECES_TOTAL:  # type: ignore[operator]
        fail(f"{path}.{key['piecesPerRound']}", "piecesPerRound is an integer from 1 to 24")
    assert isinstance(rounds, int) and isinstance(pieces_per_round, int)
    if rounds * pieces_per_round > PIECES_TOTAL:
        fail(
            f"{path}.{key['rounds']}",
            f"rounds × piecesPerRound must be at most {PIECES_TOTAL} (RULES §3)",
        )
    if variants.urban_rules:
        if edition != "modern":
            fail(
                f"{path}.variants.urbanRules",
                "urban rules belong to the modern edition (RULES §10)",
            )
        if rounds > MAX_URBAN_ROUNDS:
            fail(
                f"{path}.{key['rounds']}",
                f"with urban rules at most {MAX_URBAN_ROUNDS} rounds (10 cards)",
            )
    return Rules(edition, players, rounds, pieces_per_round, colors_t, seats_t, variants)


def _read_colors(obj: object, players: int, path: str, fail: Fail) -> tuple[tuple[int, ...], ...]:
    if obj is None:
        return default_colors(players)
    if not isinstance(obj, Sequence) or isinstance(obj, str) or len(obj) != players:
        fail(path, f"colors lists the colors of each of the {players} players")
    out = []
    for i, cs in enumerate(obj):
        if (
            not isinstance(cs, Sequence)
            or isinstance(cs, str)
            or not 1 <= len(cs) <= 2
            or not all(is_int(c) for c in cs)
        ):
            fail(f"{path}[{i}]", "a player has one or two colors (integers)")
        out.append(tuple(sorted(cs)))  # [D4]: a player chooses for the lower color first
    flat = sorted(c for cs in out for c in cs)
    if flat != list(range(len(flat))) or len(flat) > 4:
        fail(path, "the players' colors must be 0..k-1, each exactly once (k at most 4)")
    if len({len(cs) for cs in out}) != 1:
        fail(path, "every player has the same number of colors")
    return tuple(out)


def _read_seats(obj: object, players: int, path: str, fail: Fail) -> tuple[int, ...]:
    if obj is None:
        return default_seats(players)
    if (
        not isinstance(obj, Sequence)
        or isinstance(obj, str)
        or len(obj) != players
        or not all(is_int(s) and 0 <= s <= 3 for s in obj)
    ):
        fail(
            path, f"seats lists a seat 0-3 (South, West, North, East) for each of {players} players"
        )
    if len(set(obj)) != players:
        fail(path, "players sit at different sides of the board (RULES §2 [D1])")
    return tuple(obj)


def read_block(obj: object, path: str, fail: Fail) -> int:
    if (
        not isinstance(obj, Sequence)
        or isinstance(obj, str)
        or len(obj) != 3
        or not all(is_int(v) for v in obj)
    ):
        fail(path, "a block is [neighborhood, row, column]")
    n, r, c = obj
    if not (0 <= n < 6 and 0 <= r < 3 and 0 <= c < 3):
        fail(path, "a block is [neighborhood 0-5, row 0-2, column 0-2]")
    return block_index(n, r, c)


def is_seed(seed: object) -> bool:
    """Whether ``seed`` is a valid seed: 1 to MAX_SEED characters of valid Unicode (no lone
    surrogates; the shuffle hashes its UTF-8)."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= MAX_SEED:
        return False
    try:
        seed.encode()
    except UnicodeEncodeError:
        return False
    return True
