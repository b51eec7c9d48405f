"""GraphQL types: thin adapters over engine values, each with a ``from_domain`` constructor.

Objects keep the engine value privately and compute a field only when a query asks for it, so a
query that wants ``stateId`` does not pay for the board; ``GameState`` is read from the state's
JSON, which the service writes for every state it hands out anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import strawberry
from strawberry.scalars import JSON

import manhattan
from manhattan.api.graphql.enums import BotLevel, EventKind, MoveKind, Phase
from manhattan.api.graphql.immutable import complete_by_identity
from manhattan.api.graphql.json_objects import FromEngineJson, FromJson
from manhattan.api.graphql.score_types import Placing, RoundRecord
from manhattan.api.graphql.wire_types import wire_type
from manhattan.bots import Suggestion
from manhattan.bots.ladder import LadderLevel
from manhattan.games import Applied, Replayed, Sealed, Validation
from manhattan.wire import games as wire
from manhattan.wire.codes import CodedError

if TYPE_CHECKING:  # derived from the wire shapes below
    MoveAlternative = Any
    Alternative = Any


def as_json_scalar(value: object) -> JSON:
    """A plain JSON-able value as strawberry's ``JSON`` scalar (a typing-only wrapper)."""
    return cast(JSON, value)


# -- moves and events -------------------------------------------------------------------------
@strawberry.type(
    name="Move",
    description="A move (manhattan/state@1 move format); null where a field does not apply.",
)
class MoveType(FromJson):
    type: MoveKind
    player: int | None
    card: int | None
    neighborhood: int | None
    floors: int | None
    color: int | None
    pieces: list[int] | None
    block: list[int] | None = strawberry.field(
        description="[neighborhood, row, column], board frame"
    )
    notation: str

    @classmethod
    def from_domain(cls, move: manhattan.Move) -> MoveType:
        """A copy of an engine move, read from its JSON like every ``FromJson`` type."""
        return cls.from_json(move.to_json())

    @classmethod
    def from_domain_list(cls, moves: list[manhattan.Move]) -> list[MoveType]:
        """Engine moves served as they are: ``manhattan.Move`` has every field of this type
        under the same name (tuples for the lists), which is all that completing a field reads
        (a test holds the two together). A long list of moves skips a copy per move."""
        return cast(list[MoveType], moves)


complete_by_identity(manhattan.Move)  # frozen, slotted, tuples inside: completes the same way

if not TYPE_CHECKING:
    _NEAR = "A legal move near a refused one (sameCardOtherPiece, ...)."
    _CONSIDERED = "A candidate move a bot considered."
    MoveAlternative = wire_type(
        wire.Alternative, name="MoveAlternative", description=_NEAR, types={"move": MoveType}
    )
    Alternative = wire_type(
        wire.BotAlternative, name="Alternative", description=_CONSIDERED, types={"move": MoveType}
    )


@strawberry.type(description="Something that happened when a move was applied.")
class Event:
    type: EventKind
    visible_to: int | None = strawberry.field(
        description="null: public; else the one player who may see it (a drawn card)"
    )
    data: JSON = strawberry.field(description="the event as JSON: {type, ...fields}")

    @classmethod
    def from_domain(cls, event: manhattan.Event) -> Event:
        return cls(
            type=event.type, visible_to=event.visible_to, data=as_json_scalar(event.to_json())
        )


@strawberry.type(description="An expected failure: the stable code and a message for players.")
class MoveRejected:
    code: str
    message: str
    path: str | None = strawberry.field(default=None, description="JSON path of a state fault")
    index: int | None = strawberry.field(default=None, description="which move of a list failed")

    @classmethod
    def from_domain(cls, error: CodedError) -> MoveRejected:
        return cls(code=error.code, message=error.message, path=error.path, index=error.index)


# -- states -----------------------------------------------------------------------------------
@strawberry.type(name="GameState", description="A full state: typed fields and the raw JSON.")
class GameState(FromEngineJson):
    """Read from the state's JSON (``FromEngineJson``): the service writes that JSON for every
    state it hands out, and each field is its key."""

    json: JSON = strawberry.field(
        description="the state object (manhattan/state@1, schema/state.schema.json)"
    )
    rules: JSON
    round: int
    phase: Phase
    first_player: int
    to_move: int | None
    board: list[list[list[list[int]]]] = strawberry.field(
        description="board[n][r*3+c] = pieces bottom to top as [color, floors]"
    )
    supply: list[list[int]]
    selected: list[list[int]]
    hands: list[list[int]]
    deck: list[int]
    discard: list[int]
    scores: list[int]
    history: list[RoundRecord]
    monster: list[int] | None
    urban: JSON | None
    seed: str
    shuffles: int


class ViewJson:
    """A view already in its JSON form (manhattan/view@1), as tables hand it out: what
    ``PlayerView`` reads of a ``manhattan.View``, where a table's public view has no player."""

    def __init__(self, obj: dict[str, Any]) -> None:
        self._json = obj
        self.player: int | None = obj["player"]
        self.round: int = obj["round"]
        self.phase: str = obj["phase"]
        self.to_move: int | None = obj["toMove"]
        self.hand: list[int] = obj["hand"]
        self.hand_sizes: list[int] = obj["handSizes"]
        self.deck_size: int = obj["deckSize"]
        self.scores: list[int] = obj["scores"]

    def to_json(self) -> dict[str, Any]:
        return self._json


@strawberry.type(
    name="PlayerView",
    description="What one player may know (RULES §11); at a table, for anyone not seated, the "
    "public view (no hand, player null).",
)
class PlayerView:
    _view: strawberry.Private[manhattan.View | ViewJson]

    @classmethod
    def from_domain(cls, view: manhattan.View) -> PlayerView:
        return cls(_view=view)

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> PlayerView:
        """A view in its JSON form: a table's seat view or its public view."""
        return cls(_view=ViewJson(obj))

    @strawberry.field(description="the view as JSON (format manhattan/view@1)")
    def json(self) -> JSON:
        return as_json_scalar(self._view.to_json())

    @strawberry.field(description="null: a table's public view")
    def player(self) -> int | None:
        return self._view.player

    @strawberry.field
    def round(self) -> int:
        return self._view.round

    @strawberry.field
    def phase(self) -> Phase:
        return self._view.phase

    @strawberry.field
    def to_move(self) -> int | None:
        return self._view.to_move

    @strawberry.field
    def hand(self) -> list[int]:
        return list(self._view.hand)

    @strawberry.field
    def hand_sizes(self) -> list[int]:
        return list(self._view.hand_sizes)

    @strawberry.field
    def deck_size(self) -> int:
        return self._view.deck_size

    @strawberry.field
    def scores(self) -> list[int]:
        return list(self._view.scores)


def _sealed_fields(sealed: Sealed) -> dict[str, Any]:
    return {
        "state": GameState.from_domain(sealed.state) if sealed.shows_state else None,
        "state_id": None if sealed.view is not None else sealed.state_id,
        "token": sealed.token,
        "view": None if sealed.view is None else PlayerView.from_domain(sealed.view),
        "game_id": sealed.game_id,
    }


_STATE_DOC = "null when the result is addressed to one player, or in strict mode"
_GAME_DOC = (
    "the id of the game (same for every state of it); a platform may send it back in the "
    "Manhattan-Game header so that a state of another game is refused"
)


@strawberry.type(name="SealedFields")
class _SealedFields:
    """The first fields of every answer that hands out a state (``_sealed_fields``): a base
    only, in no schema (its subclasses are the GraphQL types)."""

    state: GameState | None = strawberry.field(description=_STATE_DOC)
    state_id: str | None
    token: str
    view: PlayerView | None
    game_id: str = strawberry.field(description=_GAME_DOC)


@strawberry.type(description="A state as the service hands it out: id, token, state or view.")
class SealedState(_SealedFields):
    @classmethod
    def from_domain(cls, sealed: Sealed) -> SealedState:
        return cls(**_sealed_fields(sealed))


@strawberry.type(description="The state after one or more moves, and what happened.")
class Transition(_SealedFields):
    events: list[Event]
    moves: list[MoveType]

    @classmethod
    def from_domain(cls, applied: Applied) -> Transition:
        return cls(
            **_sealed_fields(applied.sealed),
            events=[Event.from_domain(e) for e in applied.events],
            moves=[MoveType.from_domain(m) for m in applied.moves],
        )


@strawberry.type(description="A whole game record replayed to its end.")
class Replay(_SealedFields):
    moves_applied: int
    ranking: list[Placing]

    @classmethod
    def from_domain(cls, replayed: Replayed) -> Replay:
        return cls(
            **_sealed_fields(replayed.sealed),
            moves_applied=replayed.moves_applied,
            ranking=[Placing.from_attributes(p) for p in replayed.ranking],
        )


@strawberry.type(name="Validation", description="Whether a move is legal, and why not.")
class MoveValidation:
    legal: bool
    move: MoveType | None = strawberry.field(description="the normalized legal move")
    code: str | None
    message: str | None
    reason: str | None = strawberry.field(default=None, description="the rule broken, a key")
    section: str | None = strawberry.field(default=None, description="its RULES section")
    decision: str | None = strawberry.field(default=None, description="its decision, D#")
    option: str | None = strawberry.field(default=None, description="the variant option")
    numbers: JSON | None = strawberry.field(default=None, description="name -> value")
    alternatives: list[MoveAlternative] = strawberry.field(
        default_factory=list, description="the nearest legal moves"
    )

    @classmethod
    def from_domain(cls, result: Validation) -> MoveValidation:
        if result.legal and result.move is not None:
            return cls(legal=True, move=MoveType.from_domain(result.move), code=None, message=None)
        assert result.error is not None
        verdict = result.verdict
        rule = verdict.rule if verdict is not None else None
        return cls(
            legal=False,
            move=None,
            code=result.error.code,
            message=result.error.message,
            reason=None if rule is None else rule.reason,
            section=None if rule is None else rule.section,
            decision=None if rule is None else rule.decision,
            option=None if rule is None else rule.option,
            numbers=None if verdict is None else as_json_scalar(dict(verdict.numbers)),
            alternatives=[]
            if verdict is None
            else [
                MoveAlternative(kind=a.kind, move=MoveType.from_domain(a.move))
                for a in verdict.alternatives
            ],
        )


@strawberry.type(name="Suggestion")
class SuggestionType:
    move: MoveType
    bot: BotLevel
    stats: JSON
    alternatives: list[Alternative]

    @classmethod
    def from_domain(cls, suggestion: Suggestion) -> SuggestionType:
        return cls(
            move=MoveType.from_domain(suggestion.move),
            bot=suggestion.bot,
            stats=as_json_scalar(suggestion.stats),
            alternatives=[
                Alternative(
                    move=MoveType.from_domain(a.move), visits=a.visits, mean_score=a.mean_score
                )
                for a in suggestion.alternatives
            ],
        )


@strawberry.type(
    name="BotLevelRating",
    description="A bot level at its default budget and its rating measured by manhattan bench "
    "ladder (OpenSkill Plackett-Luce, as the platforms' ratings; ordinal is mu - 3 sigma).",
)
class BotLevelRating:
    level: BotLevel
    description: str
    iterations: int | None = strawberry.field(
        description="The default budget in search iterations a move (null: no search)."
    )
    mu: float
    sigma: float
    ordinal: float
    games: int = strawberry.field(description="Ladder games the level played.")

    @classmethod
    def from_domain(cls, entry: LadderLevel) -> BotLevelRating:
        return cls(
            level=entry.level,
            description=entry.description,
            iterations=entry.iterations,
            mu=entry.mu,
            sigma=entry.sigma,
            ordinal=entry.ordinal,
            games=entry.games,
        )
