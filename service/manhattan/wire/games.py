"""The stateless API's request and response shapes (``/v1/games``, ``/v1/apply``, ...), once,
with their bounds.

Each shape is a ``msgspec.Struct``. The same class validates a request body (``read``), states
the body in the OpenAPI document (``api/rest/openapi.py`` takes ``schema_components`` of these
classes) and is what the boundary test reads to send the first value inside and outside each
bound. A bound written here is therefore the bound the service enforces and the bound the document
promises.

The state, view and move objects themselves are the engine's (``engine/jsonschema.py``, checked
by ``State.from_json`` with paths such as ``$.board[2]``): here they are opaque (``Any``) with a
``$ref`` to those schemas, and the handlers pass them on to the engine.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from manhattan.bots.choice import (
    DEFAULT_LEVEL,
    BotChoice,
    BotLevel,
    Iterations,
    Seed,
    TimeMs,
)
from manhattan.bots.ladder import Ladder, LadderLevel
from manhattan.engine.rules import PIECES_TOTAL
from manhattan.engine.validation import MAX_SEED
from manhattan.wire.codes import HTTP_STATUS
from manhattan.wire.reading import Answer, Shape, WireError, ref

# -- closed sets and bounded numbers -----------------------------------------------------------
Edition = Literal["classic", "modern"]
Monster = Literal["godzilla", "baby"]

Player = Annotated[int, Meta(ge=0, le=3, description="a player index (0 to players - 1)")]
Hex32 = Annotated[str, Meta(pattern="^[0-9a-f]{32}$")]
StateIn = Annotated[
    Any,
    Meta(
        description="the state object itself, or {id} of a cached state, or {token}",
        extra_json_schema=ref("StateRef"),
    ),
]
MoveIn = Annotated[
    Any, Meta(description="a move as JSON or as notation", extra_json_schema=ref("MoveIn"))
]
MoveOut = Annotated[Any, Meta(extra_json_schema=ref("move"))]


class Variants(Shape):
    anti_trust: bool = False
    slow_growth: bool = False
    urban_rules: bool = False
    reshuffle_each_round: bool = False
    monster: Monster | None = None


Seat = Annotated[int, Meta(ge=0, le=3, description="0-3: South, West, North, East")]
PlayerColors = Annotated[
    list[Annotated[int, Meta(ge=0, le=3)]],
    Meta(min_length=1, max_length=2, description="a player's one or two colors"),
]


class GameOptions(Shape):
    """A game's options but its player count and seed (a table's setup: ``TableSetup``)."""

    edition: Edition = "classic"
    variants: Variants | None = None
    seats: Annotated[list[Seat], Meta(min_length=2, max_length=4)] | None = None
    first_player: Player = 0
    rounds: Annotated[int, Meta(ge=1, le=PIECES_TOTAL)] | None = None
    pieces_per_round: Annotated[int, Meta(ge=1, le=PIECES_TOTAL)] | None = None
    colors: Annotated[list[PlayerColors], Meta(min_length=2, max_length=4)] | None = None
    monster_start: (
        Annotated[
            tuple[
                Annotated[int, Meta(ge=0, le=5)],
                Annotated[int, Meta(ge=0, le=2)],
                Annotated[int, Meta(ge=0, le=2)],
            ],
            Meta(description="[neighborhood, row, column]"),
        ]
        | None
    ) = None


class Setup(GameOptions):
    """A new game's options (``POST /v1/games`` takes it as the body itself)."""

    players: Annotated[int, Meta(ge=2, le=4)] = 4
    seed: Annotated[str, Meta(min_length=1, max_length=MAX_SEED)] | None = None


# -- request bodies ----------------------------------------------------------------------------
# A request about one state; those below that take more inherit ``state`` (first, as before).
# (No docstring: it would become the schemas' description.)
class StateRequest(Shape):
    state: StateIn


class MoveRequest(StateRequest):
    move: MoveIn


class ApplyRequest(StateRequest):
    """Exactly one of ``move`` and ``moves``."""

    move: MoveIn | None = None
    moves: list[MoveIn] | None = None

    def __post_init__(self) -> None:
        # msgspec reports this as the body's fault (``read``: INVALID_REQUEST at ``$``).
        if (self.move is None) == (self.moves is None):
            raise ValueError("give either 'move' or 'moves'")


class PreviewRequest(StateRequest):
    move: MoveIn | None = None


class PlayerRequest(StateRequest):
    player: Player


class OptionalPlayerRequest(StateRequest):
    player: Player | None = None


class SuggestRequest(StateRequest):
    """``bot`` is a ``BotChoice``. Deprecated, still accepted: ``bot`` as a level name with
    ``seed``, ``iterations``, ``timeMs`` beside it (the older form, still accepted)."""

    player: Player | None = None
    bot: BotChoice | BotLevel | None = None
    seed: Annotated[Seed | None, Meta(description="deprecated: bot.seed")] = None
    iterations: Annotated[Iterations | None, Meta(description="deprecated: bot.iterations")] = None
    time_ms: Annotated[TimeMs | None, Meta(description="deprecated: bot.timeMs")] = None

    def choice(self) -> BotChoice:
        bot = self.bot
        siblings = (self.seed, self.iterations, self.time_ms)
        if isinstance(bot, BotChoice):
            if siblings != (None, None, None):
                raise WireError(
                    "INVALID_REQUEST",
                    "with 'bot' as an object, give seed, iterations and timeMs inside it",
                    path="$.bot",
                )
            return bot
        seed, iterations, time_ms = siblings
        return BotChoice(bot or DEFAULT_LEVEL, seed or 0, iterations, time_ms)


class AdvanceRequest(StateRequest):
    player: Player | None = None
    move: MoveIn | None = None
    bot: BotChoice | None = None


class GameRecord(Shape):
    """A game to replay: ``setup`` (or ``state``) then ``moves``."""

    setup: Setup | None = None
    state: StateIn | None = None
    moves: list[MoveIn] | None = None


# -- response bodies ---------------------------------------------------------------------------
ErrorCode = Annotated[str, Meta(extra_json_schema={"enum": sorted(HTTP_STATUS)})]


class Error(Answer):
    code: ErrorCode
    message: str
    path: Annotated[str | None, Meta(description="JSON path of the first fault")] = None
    index: Annotated[int | None, Meta(description="which move of a list failed")] = None


class SealedState(Answer):
    """A state as the service hands it out: ``state`` and ``stateId``, or, addressed to one
    player, their ``view``; always a ``token`` and the ``gameId``."""

    token: Annotated[str, Meta(description="the sealed full state (opaque)")]
    game_id: Annotated[Hex32, Meta(description="the game's id (see Manhattan-Game)")]
    state_id: Hex32 | None = None
    state: Annotated[Any, Meta(extra_json_schema=ref("state"))] = None
    view: Annotated[Any, Meta(extra_json_schema=ref("view"))] = None


class Transition(SealedState, kw_only=True):
    events: list[Annotated[Any, Meta(extra_json_schema=ref("Event"))]]
    moves: list[MoveOut]


class LegalMoves(Answer):
    moves: list[MoveOut]


class Alternative(Answer):
    kind: str
    move: MoveOut


class Validation(Answer):
    legal: bool
    move: MoveOut = None
    code: ErrorCode | None = None
    message: str | None = None
    reason: Annotated[str | None, Meta(description="the rule broken")] = None
    section: Annotated[str | None, Meta(description="its RULES section, e.g. §6")] = None
    decision: str | None = None
    option: str | None = None
    numbers: dict[str, int] | None = None
    alternatives: list[Alternative] | None = None


class Placing(Answer):
    player: int
    place: int
    score: int


class Replay(SealedState, kw_only=True):
    moves_applied: int
    ranking: list[Placing]


class BotAlternative(Answer):
    move: MoveOut
    visits: int
    mean_score: float


class Suggestion(Answer):
    move: MoveOut
    bot: BotLevel
    stats: dict[str, Any]
    alternatives: list[BotAlternative]


class RoundScore(Answer):
    """A round's scoring: points per player, each color's breakdown, the urban rule scored."""

    round: int
    players: list[int]
    scores: list[Annotated[Any, Meta(extra_json_schema=ref("breakdown"))]]
    urban: str | None


class Score(Answer):
    round: int
    phase: Literal["select", "build", "over"]
    scores: Annotated[list[int], Meta(description="per color, cumulative")]
    players: Annotated[list[int], Meta(description="per player")]
    history: list[dict[str, Any]]
    if_round_ended_now: RoundScore
    ranking: list[Placing]


class Analysis(Answer):
    analysis: Any


class MovePreview(Answer):
    preview: Any


class Previews(Answer):
    previews: list[Any]


class Threats(Answer):
    threats: dict[str, Any]


REQUESTS: tuple[type[msgspec.Struct], ...] = (
    BotChoice,
    Setup,
    StateRequest,
    MoveRequest,
    ApplyRequest,
    PreviewRequest,
    PlayerRequest,
    OptionalPlayerRequest,
    SuggestRequest,
    AdvanceRequest,
    GameRecord,
)
RESPONSES: tuple[type[msgspec.Struct], ...] = (
    Error,
    SealedState,
    Transition,
    LegalMoves,
    Validation,
    Replay,
    Suggestion,
    Score,
    Analysis,
    MovePreview,
    Previews,
    Threats,
    Ladder,
    LadderLevel,
)
