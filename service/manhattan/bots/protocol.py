"""The one interface every bot has (as OpenSpiel's ``Bot``), what it returns, and how it is told
to stop.

A bot is built from a validated ``BotChoice`` (``choice.py``) by the registry (``registry.py``)
and asked ``suggest(view, stop)``: a move for ``view.player`` from that player's ``View`` alone.
``Stop`` carries the wall-clock deadline and the cancel flag of the request it serves; a search
checks it between iterations, so a budget in iterations never outlives its request.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from manhattan.bots.choice import BotChoice
from manhattan.bots.errors import BotError
from manhattan.engine import Move, View

#: Why a bot stopped (``stats["stoppedBy"]``): its own budget ran out (``iterations``,
#: ``timeMs``), the request's wall-clock deadline came (``deadline``), the request was cancelled
#: (``cancelled``), or the bot does not search (``done``).
STOP_REASONS = ("iterations", "timeMs", "deadline", "cancelled", "done")
#: A suggestion cut short by a request's deadline depends on the machine: not reproducible.
_UNREPRODUCIBLE = frozenset({"deadline", "cancelled"})


@dataclass(frozen=True, slots=True)
class Stop:
    """When a bot must stop, whatever its budget says: at ``deadline`` (``time.monotonic()``
    seconds, shared by every process on the machine) or as soon as ``cancelled()`` is true."""

    deadline: float | None = None
    cancelled: Callable[[], bool] | None = None

    def reason(self) -> str | None:
        """``"cancelled"``, ``"deadline"`` or None (go on)."""
        if self.cancelled is not None and self.cancelled():
            return "cancelled"
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "deadline"
        return None


NEVER = Stop()


@dataclass(frozen=True, slots=True)
class Alternative:
    """A candidate move: how often the search tried it and its mean outcome for the player
    (ismcts: final score margin over the best other player; greedy: the margin if the round
    were scored right after the move; random: 0)."""

    move: Move
    visits: int
    mean_score: float

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move.to_json(), "visits": self.visits, "meanScore": self.mean_score}


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A bot's move, the level of the ``bot`` that chose it, its ranked alternatives and
    ``stats`` (camelCase keys: ``level``, ``iterations``, ``timeMs``, ``seed``, ``legalMoves``,
    ``stoppedBy``). The one suggestion: a bot's, the bot pool's and the service's answer."""

    move: Move
    bot: str
    alternatives: list[Alternative] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def reproducible(self) -> bool:
        """Whether the same view and choice always give this suggestion: not when a deadline or
        a cancel cut the search short (a budget in ``timeMs`` is never reproducible either:
        ``BotChoice.reproducible``)."""
        return self.stats.get("stoppedBy") not in _UNREPRODUCIBLE

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move.to_json(),
            "alternatives": [a.to_json() for a in self.alternatives],
            "stats": dict(self.stats),
        }


class Bot(ABC):
    """One bot level. Subclasses set ``level`` and implement ``decide``; ``suggest`` checks the
    view and fills in the common stats."""

    level: ClassVar[str]
    #: One line for a platform choosing a bot (``GET /v1/bots``).
    description: ClassVar[str]
    #: The budget in iterations when a choice gives none (None: the level does not search).
    default_iterations: ClassVar[int | None] = None
    #: Whether the bot searches until its budget or ``Stop`` ends it (the others answer in
    #: milliseconds, so a pool serves them first).
    searches: ClassVar[bool] = False

    def __init__(self, choice: BotChoice) -> None:
        self.choice = choice

    def suggest(self, view: View, stop: Stop = NEVER) -> Suggestion:
        """A move for ``view.player``, who must be to move."""
        if not isinstance(view, View):  # a State (or anything else) could carry hidden cards
            raise TypeError(
                f"a bot takes a player's View (manhattan.view), not {type(view).__name__}"
            )
        if view.phase == "over" or view.to_move != view.player:
            raise BotError(
                f"player {view.player} is not to move (to move: {view.to_move})",
                code="NOT_YOUR_TURN",
            )
        start = time.perf_counter()
        decided = self.decide(view, stop)
        stats = {
            "level": self.level,
            "iterations": decided.iterations,
            "timeMs": round((time.perf_counter() - start) * 1000, 3),
            "seed": self.choice.seed,
            "legalMoves": decided.legal_moves,
            "stoppedBy": decided.stopped_by,
        }
        return Suggestion(decided.alternatives[0].move, self.level, decided.alternatives, stats)

    @abstractmethod
    def decide(self, view: View, stop: Stop) -> Decision:
        """The ranked alternatives (best first) for the view's player, who is to move."""


@dataclass(frozen=True, slots=True)
class Decision:
    alternatives: list[Alternative]
    iterations: int
    legal_moves: int
    stopped_by: str = "done"
