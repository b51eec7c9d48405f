"""GraphQL types of scores and standings: a color's points in a round (``Breakdown``), the
rounds scored (``RoundRecord``), the round's scoring if it ended now (``RoundScore``), the
standings (``Placing``, derived from its wire shape) and ``Score``, what ``score`` answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import strawberry

import manhattan
from manhattan.api.graphql.enums import Phase, UrbanCard
from manhattan.api.graphql.json_objects import FromEngineJson, FromJson
from manhattan.api.graphql.wire_types import wire_type
from manhattan.games import ScoreReport
from manhattan.wire import games as wire

if TYPE_CHECKING:  # derived from the wire shape below
    Placing = Any
else:
    Placing = wire_type(wire.Placing, name="Placing")


@strawberry.type(description="One color's points for one round (RULES §7).")
class Breakdown(FromJson):
    buildings: int
    majorities: list[int]
    tallest: int
    urban: int
    total: int


@strawberry.type
class RoundRecord(FromEngineJson):
    round: int
    scores: list[Breakdown]


@strawberry.type
class RoundScore:
    round: int
    players: list[int]
    scores: list[Breakdown]
    urban: UrbanCard | None

    @classmethod
    def from_domain(cls, score: manhattan.RoundScore) -> RoundScore:
        return cls(
            round=score.round,
            players=score.players,
            scores=[Breakdown.from_json(b.to_json()) for b in score.colors],
            urban=score.urban,
        )


@strawberry.type(description="Totals, history, standings and the round's scoring if it ended now.")
class Score:
    _report: strawberry.Private[ScoreReport]
    round: int
    phase: Phase
    scores: list[int] = strawberry.field(description="per color, cumulative")
    players: list[int] = strawberry.field(description="per player, colors summed")

    @classmethod
    def from_domain(cls, report: ScoreReport) -> Score:
        state = report.state
        return cls(
            _report=report,
            round=state.round,
            phase=state.phase,
            scores=list(state.scores),
            players=report.player_totals,
        )

    @strawberry.field
    def history(self) -> list[RoundRecord]:
        return [RoundRecord.from_domain(r) for r in self._report.state.history]

    @strawberry.field
    def if_round_ended_now(self) -> RoundScore:
        return RoundScore.from_domain(self._report.if_round_ended_now())

    @strawberry.field
    def ranking(self) -> list[Placing]:
        return [Placing.from_attributes(p) for p in manhattan.ranking(self._report.state)]
