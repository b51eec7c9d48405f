"""What the game operations answer, as engine values: a sealed state (``Sealed``), a transition
(``Applied``), a verdict on a move (``Validation``), scores (``ScoreReport``) and a replayed game
(``Replayed``). REST and GraphQL render them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import manhattan
from manhattan import Event, Move, State, View
from manhattan.engine.scoring import RoundScore
from manhattan.games.errors import GameError


@dataclass(frozen=True, slots=True)
class Sealed:
    """A state as the service hands it out. When ``player`` is set the result is addressed to
    that player: it carries their view and a token issued to them, and no full state or id."""

    state: State
    state_id: str
    token: str
    player: int | None = None
    view: View | None = None
    strict: bool = False
    game_id: str = ""

    @property
    def shows_state(self) -> bool:
        return self.player is None and not self.strict


@dataclass(frozen=True, slots=True)
class Applied:
    sealed: Sealed
    events: list[Event]
    moves: list[Move]


@dataclass(frozen=True, slots=True)
class Validation:
    legal: bool
    move: Move | None = None
    error: GameError | None = None
    verdict: manhattan.Verdict | None = None  # the refusal explained

    @classmethod
    def of(cls, verdict: manhattan.Verdict) -> Validation:
        """The answer to "is this move legal?" from the engine's explained verdict."""
        if verdict.legal:
            return cls(True, verdict.move)
        assert verdict.code is not None and verdict.message is not None
        return cls(False, None, GameError(verdict.code, verdict.message), verdict)


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """Scores; ``player`` set: as that player may know them (RULES §11)."""

    state: State
    player: int | None = None

    @property
    def player_totals(self) -> list[int]:
        return manhattan.player_scores(self.state)

    def if_round_ended_now(self) -> RoundScore:
        # RULES §10-11: a player cannot see the urban deck, so under fakeNews their scoring
        # leaves the still face-down rule out (as preview does on a view).
        return manhattan.score_round(self.state, deck_known=self.player is None)

    def to_json(self) -> dict[str, Any]:
        state = self.state
        return {
            "round": state.round,
            "phase": state.phase,
            "scores": list(state.scores),
            "players": self.player_totals,
            "history": [r.to_json() for r in state.history],
            "ifRoundEndedNow": self.if_round_ended_now().to_json(),
            "ranking": [p.to_json() for p in manhattan.ranking(state)],
        }


@dataclass(frozen=True, slots=True)
class Replayed:
    sealed: Sealed
    moves_applied: int
    ranking: list[manhattan.Placing] = field(default_factory=list)
