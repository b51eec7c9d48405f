"""The small values a state is made of: a round's score breakdown, a scored round, the urban-rule
deck, the phases. They sit below ``state`` and the codec, which both build them.

The engine's frozen dataclasses write their own ``__init__`` with ``object.__setattr__`` (what
the generated one does): mypyc compiles that to a native constructor, where it would keep the
generated ``__init__`` interpreted. ``dataclass`` still gives equality, hashing, ``repr`` and
the frozen ``__setattr__`` (assigning an attribute raises ``FrozenInstanceError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

Counts = tuple[int, int, int, int]  # pieces by size: 1, 2, 3, 4 floors

PHASES: Final[tuple[str, ...]] = ("select", "build", "over")


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One color's points for one round (RULES §7)."""

    buildings: int = 0
    majorities: tuple[int, ...] = ()  # neighborhoods where the majority bonus was won
    tallest: int = 0
    urban: int = 0

    def __init__(
        self, buildings: int = 0, majorities: tuple[int, ...] = (), tallest: int = 0, urban: int = 0
    ) -> None:
        object.__setattr__(self, "buildings", buildings)
        object.__setattr__(self, "majorities", majorities)
        object.__setattr__(self, "tallest", tallest)
        object.__setattr__(self, "urban", urban)

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

    def __init__(self, round: int, scores: tuple[Breakdown, ...]) -> None:
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "scores", scores)

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

    def __init__(
        self, deck: tuple[str, ...], revealed: tuple[str, ...], current: str | None
    ) -> None:
        object.__setattr__(self, "deck", deck)
        object.__setattr__(self, "revealed", revealed)
        object.__setattr__(self, "current", current)

    def to_json(self) -> dict[str, object]:
        return {"current": self.current, "deck": list(self.deck), "revealed": list(self.revealed)}
