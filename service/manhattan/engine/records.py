"""The small values a state is made of: a round's score breakdown, a scored round, the urban-rule
deck, the phases. They sit below ``state`` and the codec, which both build them."""

from __future__ import annotations

from dataclasses import dataclass

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
