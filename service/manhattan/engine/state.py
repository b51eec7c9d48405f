"""The game state: an immutable value (DESIGN §2); every transition makes a new one."""

from __future__ import annotations

from dataclasses import dataclass

from .board import Board
from .rules import Rules

Counts = tuple[int, int, int, int]  # pieces by size: 1, 2, 3, 4 floors

PHASES = ("select", "build", "over")


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One color's points for one round (RULES §7)."""

    buildings: int = 0
    majorities: tuple[int, ...] = ()  # neighborhoods where the majority bonus was won
    tallest: int = 0
    urban: int = 0

    @property
    def total(self) -> int:
        return self.buildings + 2 * len(self.majorities) + self.tallest + self.urban

    def to_json(self) -> dict[str, object]:
        return {
            "buildings": self.buildings,
            "majorities": list(self.majorities),
            "tallest": self.tallest,
            "total": self.total,
            "urban": self.urban,
        }


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A scored round: its number and the breakdown of every color."""

    round: int
    scores: tuple[Breakdown, ...]

    @property
    def colors(self) -> tuple[Breakdown, ...]:
        return self.scores

    def to_json(self) -> dict[str, object]:
        return {"round": self.round, "scores": [b.to_json() for b in self.scores]}


@dataclass(frozen=True, slots=True)
class Urban:
    """RULES §10: the urban-rule deck (hidden), the revealed cards in order, the current one."""

    deck: tuple[str, ...]
    revealed: tuple[str, ...]
    current: str | None

    def to_json(self) -> dict[str, object]:
        return {"current": self.current, "deck": list(self.deck), "revealed": list(self.revealed)}


@dataclass(frozen=True, slots=True)
class State:
    """A whole game at one moment. Build one with ``new_game`` or ``State.from_json``."""

    rules: Rules
    round: int
    phase: str
    first_player: int
    to_move: int | None
    board: Board
    supply: tuple[Counts, ...]
    selected: tuple[Counts, ...]
    hands: tuple[tuple[int, ...], ...]  # sorted: a hand is a multiset
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    scores: tuple[int, ...]
    history: tuple[RoundRecord, ...]
    monster: int | None  # flat block index
    urban: Urban | None
    seed: str
    shuffles: int

    # The codec lives in codec.py; these delegate so that the contract's spelling works.
    def to_json(self) -> dict[str, object]:
        from .codec import state_to_json

        return state_to_json(self)

    @classmethod
    def from_json(cls, obj: object) -> State:
        from .codec import state_from_json

        return state_from_json(obj)

    def to_msgpack(self) -> bytes:
        from .codec import state_to_msgpack

        return state_to_msgpack(self)

    @classmethod
    def from_msgpack(cls, data: bytes) -> State:
        from .codec import state_from_msgpack

        return state_from_msgpack(data)

    @property
    def rounds_scored(self) -> int:
        return self.rules.rounds if self.phase == "over" else self.round - 1

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def player_colors(self, player: int) -> tuple[int, ...]:
        return self.rules.colors[player]
