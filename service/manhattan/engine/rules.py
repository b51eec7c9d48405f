"""The ruleset a game is played with: player count, edition presets, seats and variants.

RULES §2 (seats and card rotation), §3 (presets [D2] [D3]), §9 and §10 (variants).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import msgspec

EDITIONS: Final[tuple[str, ...]] = ("classic", "modern")
MONSTERS: Final[tuple[str, ...]] = ("godzilla", "baby")
SEAT_NAMES: Final[tuple[str, ...]] = ("South", "West", "North", "East")

#: RULES §1: pieces per color by size, index 0 = one-floor ... 3 = four-floor.
PIECES_PER_COLOR: Final[tuple[int, ...]] = (11, 6, 4, 3)
PIECES_TOTAL: Final[int] = sum(PIECES_PER_COLOR)  # 24
CARD_POSITIONS: Final = 9
CARD_COPIES: Final = 5
HAND_SIZE: Final = 4
NEIGHBORHOODS: Final = 6
NEIGHBORHOOD_NAMES: Final[tuple[str, ...]] = (
    "Manhattan",
    "Cairo",
    "São Paulo",
    "Frankfurt",
    "Sydney",
    "Hong Kong",
)


def rotate(position: int, seat: int) -> int:
    """RULES §2: the board-frame block index that card ``position`` designates from ``seat``.

    A quarter turn clockwise per seat: (r, c) -> (c, 2 - r).
    """
    r, c = divmod(position, 3)
    for _ in range(seat):
        r, c = c, 2 - r
    return r * 3 + c


#: ROTATION[seat][card] = board-frame block index inside a neighborhood.
ROTATION: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(rotate(p, seat) for p in range(CARD_POSITIONS)) for seat in range(4)
)


@dataclass(frozen=True, slots=True)
class Variants:
    """RULES §9-10; every option on or off, in any combination.

    Built once per ruleset, as ``Rules`` is (``decoding`` remembers the rules it has read), so
    both keep ``dataclass``'s constructor: the native one the kernel's hot values write out
    (``records``) would buy nothing here."""

    anti_trust: bool = False
    slow_growth: bool = False
    urban_rules: bool = False
    reshuffle_each_round: bool = False
    monster: str | None = None

    def to_json(self) -> dict[str, object]:
        return {key: getattr(self, field) for field, key in _BY_KEY}


#: Each variant's field and its JSON name (a setup's and the state format's), in the fields'
#: order: the one spelling of the names (``validation.read_variants`` reads them).
VARIANT_NAMES: Final[dict[str, str]] = {
    "anti_trust": "antiTrust",
    "slow_growth": "slowGrowth",
    "urban_rules": "urbanRules",
    "reshuffle_each_round": "reshuffleEachRound",
    "monster": "monster",
}
#: The same, sorted by JSON name: the canonical encoding's order (``Rules.to_json``).
_BY_KEY = tuple(sorted(VARIANT_NAMES.items(), key=lambda names: names[1]))

#: Every variant off (a value: one instance serves every ruleset).
NO_VARIANTS: Final[Variants] = Variants()


def default_colors(players: int) -> tuple[tuple[int, ...], ...]:
    """RULES §3 [D3]: one color each; with 2 players, 0+2 against 1+3."""
    if players == 2:
        return ((0, 2), (1, 3))
    return tuple((p,) for p in range(players))


def default_seats(players: int) -> tuple[int, ...]:
    """RULES §2 [D1]: S W N E for 4; S W N for 3; S N (facing) for 2."""
    return {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}[players]


def preset(edition: str, players: int) -> tuple[int, int]:
    """RULES §3 [D2]: (rounds, pieces per color per round) for an edition and player count."""
    if players == 4:
        return 4, 6
    if players == 3:
        return 6, 4
    return (6 if edition == "classic" else 4), 4


@dataclass(frozen=True, slots=True)
class Rules:
    edition: str
    players: int
    rounds: int
    pieces_per_round: int
    colors: tuple[tuple[int, ...], ...]
    seats: tuple[int, ...]
    variants: Variants = NO_VARIANTS
    _tables: _Tables = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # The lookups, derived from the fields (again by ``dataclasses.replace``).
        object.__setattr__(self, "_tables", _Tables.build(self))

    @property
    def packed(self) -> msgspec.Raw:
        """``to_json`` in msgpack, encoded once per ruleset: a state's canonical encoding
        (``State.to_msgpack``) embeds it as is."""
        return self._tables.packed

    @property
    def color_count(self) -> int:
        return sum(len(c) for c in self.colors)

    @property
    def order(self) -> tuple[int, ...]:
        """Players in clockwise order of their seats (RULES §2, §5)."""
        return self._tables.order

    def next_player(self, player: int) -> int:
        """The player to the left (clockwise) of ``player``."""
        return self._tables.next_player[player]

    @property
    def owner_of_color(self) -> tuple[int, ...]:
        return self._tables.owner_of_color

    def block_of(self, player: int, card: int) -> int:
        """Block index inside a neighborhood that ``card`` designates for ``player``."""
        return ROTATION[self.seats[player]][card]

    def to_json(self) -> dict[str, object]:
        return {
            "colors": [list(c) for c in self.colors],
            "edition": self.edition,
            "piecesPerRound": self.pieces_per_round,
            "players": self.players,
            "rounds": self.rounds,
            "seats": list(self.seats),
            "variants": self.variants.to_json(),
        }


@dataclass(frozen=True, slots=True)
class _Tables:
    """Lookups derived once per ruleset (Rules is frozen and hashable). Built once per ``Rules``
    (``build`` also encodes the rules in msgpack): ``dataclass``'s constructor serves."""

    order: tuple[int, ...]
    next_player: tuple[int, ...]
    owner_of_color: tuple[int, ...]
    packed: msgspec.Raw

    @classmethod
    def build(cls, rules: Rules) -> _Tables:
        order = tuple(sorted(range(rules.players), key=lambda p: rules.seats[p]))
        nxt = [0] * rules.players
        for i, p in enumerate(order):
            nxt[p] = order[(i + 1) % len(order)]
        owner = [0] * rules.color_count
        for p, cs in enumerate(rules.colors):
            for c in cs:
                owner[c] = p
        packed = msgspec.Raw(msgspec.msgpack.encode(rules.to_json()))
        return _Tables(order, tuple(nxt), tuple(owner), packed)
