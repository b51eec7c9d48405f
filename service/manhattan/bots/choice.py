"""``BotChoice``: one bot choice, ``{level, seed, iterations, timeMs}``, checked when it is made.

The same value is read from REST and GraphQL requests, sent to the bot pool's workers and used
by tables, so a bad level or budget is refused once, where the choice is made, with
``INVALID_BOT``: never halfway through a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .protocol import BotError

#: Absolute bounds of a budget; a service caps them lower (``MANHATTAN_BOT_MAX_*``).
MAX_ITERATIONS = 1_000_000
MAX_TIME_MS = 60_000
MAX_SEED = 2**63 - 1
DEFAULT_LEVEL = "greedy"
WIRE_KEYS = frozenset({"level", "seed", "iterations", "timeMs"})


@dataclass(frozen=True, slots=True)
class BotChoice:
    """A bot level and its budget. ``iterations`` and ``time_ms`` budget the ismcts search (both
    given: whichever runs out first; neither: its default); the other levels ignore them."""

    level: str = DEFAULT_LEVEL
    seed: int = 0
    iterations: int | None = None
    time_ms: int | None = None

    def __post_init__(self) -> None:
        from .registry import BOTS  # the registry imports every bot, which import this module

        if not isinstance(self.level, str) or self.level not in BOTS:
            raise BotError(f"unknown bot level {self.level!r}; choose one of {', '.join(BOTS)}")
        _check_int("seed", self.seed, -MAX_SEED, MAX_SEED)
        if self.iterations is not None:
            _check_int("iterations", self.iterations, 1, MAX_ITERATIONS)
        if self.time_ms is not None:
            _check_int("timeMs", self.time_ms, 1, MAX_TIME_MS)

    @classmethod
    def from_json(cls, obj: object) -> BotChoice:
        """The wire form: ``{"level", "seed"?, "iterations"?, "timeMs"?}`` (absent or null:
        the default), or a bare level name."""
        if isinstance(obj, str):
            return cls(obj)
        if not isinstance(obj, Mapping) or not set(obj) <= WIRE_KEYS:
            raise BotError('a bot choice is {"level", "seed"?, "iterations"?, "timeMs"?}')
        level = obj.get("level")
        return cls(
            DEFAULT_LEVEL if level is None else level,
            obj.get("seed") or 0,
            obj.get("iterations"),
            obj.get("timeMs"),
        )

    @property
    def reproducible(self) -> bool:
        """Whether the same view always gets the same suggestion (no budget in time)."""
        return self.time_ms is None

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "seed": self.seed,
            "iterations": self.iterations,
            "timeMs": self.time_ms,
        }


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BotError(f"{name} must be an integer from {low} to {high}, not {value!r}")
