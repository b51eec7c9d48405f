"""``BotChoice``: one bot choice, ``{level, seed, iterations, timeMs}``, checked when it is made.

The one class for a bot choice: requests decode straight into it (REST, GraphQL, a table's bot
seats: ``manhattan.wire``), it travels whole to the bot pool's workers and the bots read it.
A bad level or budget is refused where the choice is made, with ``INVALID_BOT``: never halfway
through a game.

Its bounds, once, in two tiers: what a request to the service may ask for is in the field
types (``Meta``: the bounds ``/openapi.json`` states and decoding enforces; a service's settings
may cap lower, ``MANHATTAN_BOT_MAX_*``), and what code may build (tournaments, benchmarks,
``manhattan.suggest``) is checked by ``__post_init__`` against the absolute bounds below.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast, get_args

import msgspec
from msgspec import Meta

from manhattan.bots.errors import BotError

#: The bot levels, in the registry's order (``registry.BOTS`` is built from them).
BotLevel = Literal["random", "beginner", "greedy", "ismcts", "expert"]
LEVELS: tuple[str, ...] = get_args(BotLevel)
#: The bot that plays when a request names none (REST, GraphQL, ``manhattan.bots.suggest``).
DEFAULT_LEVEL: BotLevel = "greedy"

#: What a request to the service may ask for (settings may lower these, never raise them).
SERVICE_MAX_ITERATIONS = 20_000
SERVICE_MAX_TIME_MS = 2_000
MAX_BOT_SEED = 2**31 - 1
#: What code may build (a tournament's or a benchmark's budget).
MAX_ITERATIONS = 1_000_000
MAX_TIME_MS = 60_000
MAX_SEED = 2**63 - 1

Seed = Annotated[int, Meta(ge=0, le=MAX_BOT_SEED, description="the bot's random seed")]
Iterations = Annotated[
    int, Meta(ge=1, le=SERVICE_MAX_ITERATIONS, description="search iterations (ismcts, expert)")
]
TimeMs = Annotated[
    int, Meta(ge=1, le=SERVICE_MAX_TIME_MS, description="time budget in milliseconds")
]


class BotChoice(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    rename="camel",
    omit_defaults=True,
):
    """Which bot plays, and how: the one way to name a bot everywhere (REST, GraphQL, clients,
    tables). ``iterations`` and ``time_ms`` budget the searching levels, ismcts and expert
    (both given: whichever runs out first; neither: the level's default); the other levels
    ignore them."""

    level: BotLevel = DEFAULT_LEVEL
    seed: Seed = 0
    iterations: Iterations | None = None
    time_ms: TimeMs | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.level, str) or self.level not in LEVELS:
            raise BotError(f"unknown bot level {self.level!r}; choose one of {', '.join(LEVELS)}")
        _check_int("seed", self.seed, -MAX_SEED, MAX_SEED)
        if self.iterations is not None:
            _check_int("iterations", self.iterations, 1, MAX_ITERATIONS)
        if self.time_ms is not None:
            _check_int("timeMs", self.time_ms, 1, MAX_TIME_MS)

    @classmethod
    def of(
        cls,
        level: str = DEFAULT_LEVEL,
        seed: int = 0,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> BotChoice:
        """A choice built in code from a level name (checked, as every choice is, by
        ``__post_init__``: a ``BotError``)."""
        return cls(cast(BotLevel, level), seed, iterations, time_ms)

    @classmethod
    def from_json(cls, obj: object) -> BotChoice:
        """The wire form, ``{"level"?, "seed"?, "iterations"?, "timeMs"?}`` (absent or null:
        the default), or a bare level name; a fault is a ``BotError``."""
        if isinstance(obj, str):
            return cls.of(obj)
        if isinstance(obj, dict):
            obj = {key: value for key, value in obj.items() if value is not None}
        try:
            return msgspec.convert(obj, cls, strict=True)
        except msgspec.ValidationError as exc:
            raise BotError(
                f"a bot choice is {{level, seed?, iterations?, timeMs?}}: {exc}"
            ) from None

    @property
    def reproducible(self) -> bool:
        """Whether the same view always gets the same suggestion (no budget in time)."""
        return self.time_ms is None

    def to_json(self) -> dict[str, Any]:
        """Every field under its wire name, an absent budget as null (``from_json`` reads it)."""
        names = zip(self.__struct_fields__, self.__struct_encode_fields__, strict=True)
        return {wire: getattr(self, field) for field, wire in names}


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BotError(f"{name} must be an integer from {low} to {high}, not {value!r}")
