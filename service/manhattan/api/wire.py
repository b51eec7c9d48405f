"""Every REST request and response shape, once, with its bounds (issue 18).

Each shape is a ``msgspec.Struct``. The same class validates a request body (``read``), states the
body in the OpenAPI document (``openapi.py`` takes ``schema_components`` of these classes) and
is what the boundary test reads to send the first value inside and outside each bound. A bound
written here is therefore the bound the service enforces and the bound the document promises.

The state, view and move objects themselves are the engine's (``engine/jsonschema.py``, checked
by ``State.from_json`` with paths such as ``$.board[2]``): here they are opaque (``Any``) with a
``$ref`` to those schemas, and the handlers pass them on to the engine.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from manhattan.engine.rules import PIECES_TOTAL
from manhattan.engine.validation import MAX_SEED

from .errors import HTTP_STATUS, ApiError

REF = "#/components/schemas/{name}"


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(name=name)}


# -- closed sets and bounded numbers -----------------------------------------------------------
#: The bot levels (``manhattan.bots.LEVELS``; a test checks they agree).
BotLevel = Literal["random", "greedy", "ismcts"]
DEFAULT_BOT: BotLevel = "greedy"
Edition = Literal["classic", "modern"]
Monster = Literal["godzilla", "baby"]
#: The service's default bot budgets (``BotBudget``; settings may lower them, never raise them).
MAX_ITERATIONS = 20_000
MAX_TIME_MS = 2_000
MAX_BOT_SEED = 2**31 - 1

Player = Annotated[int, Meta(ge=0, le=3, description="a player index (0 to players - 1)")]
Seed = Annotated[int, Meta(ge=0, le=MAX_BOT_SEED, description="the bot's random seed")]
Iterations = Annotated[int, Meta(ge=1, le=MAX_ITERATIONS, description="search iterations (ismcts)")]
TimeMs = Annotated[int, Meta(ge=1, le=MAX_TIME_MS, description="time budget in milliseconds")]
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


class Shape(msgspec.Struct, forbid_unknown_fields=True, rename="camel", omit_defaults=True):
    """Every wire shape: camelCase names, unknown fields refused, defaults left out."""


class BotChoice(Shape):
    """Which bot plays, and how: the one way to name a bot everywhere (REST, GraphQL, clients)."""

    level: BotLevel = DEFAULT_BOT
    seed: Seed | None = None
    iterations: Iterations | None = None
    time_ms: TimeMs | None = None


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


class Setup(Shape):
    """A new game's options (``POST /v1/games`` takes it as the body itself)."""

    players: Annotated[int, Meta(ge=2, le=4)] = 4
    seed: Annotated[str, Meta(min_length=1, max_length=MAX_SEED)] | None = None
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


# -- request bodies ----------------------------------------------------------------------------
class StateRequest(Shape):
    state: StateIn


class MoveRequest(Shape):
    state: StateIn
    move: MoveIn


class ApplyRequest(Shape):
    """Exactly one of ``move`` and ``moves``."""

    state: StateIn
    move: MoveIn | None = None
    moves: list[MoveIn] | None = None


class PreviewRequest(Shape):
    state: StateIn
    move: MoveIn | None = None


class PlayerRequest(Shape):
    state: StateIn
    player: Player


class OptionalPlayerRequest(Shape):
    state: StateIn
    player: Player | None = None


class SuggestRequest(Shape):
    """``bot`` is a ``BotChoice``. Deprecated, still accepted: ``bot`` as a level name with
    ``seed``, ``iterations``, ``timeMs`` beside it (the form before issue 18)."""

    state: StateIn
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
                raise ApiError(
                    "INVALID_REQUEST",
                    "with 'bot' as an object, give seed, iterations and timeMs inside it",
                    path="$.bot",
                )
            return bot
        return BotChoice(bot or DEFAULT_BOT, *siblings)


class AdvanceRequest(Shape):
    state: StateIn
    player: Player | None = None
    move: MoveIn | None = None
    bot: BotChoice | None = None


class GameRecord(Shape):
    """A game to replay: ``setup`` (or ``state``) then ``moves``."""

    setup: Setup | None = None
    state: StateIn | None = None
    moves: list[MoveIn] | None = None


# -- response bodies ---------------------------------------------------------------------------
class Answer(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Every answer: camelCase names; fields may be added later, so clients ignore unknown ones."""


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


REQUESTS: tuple[type[Shape], ...] = (
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
)

# -- reading -----------------------------------------------------------------------------------
#: The code of a structural fault, by the first field of its path (default INVALID_REQUEST).
FIELD_CODES = {
    "player": "INVALID_PLAYER",
    "bot": "INVALID_BOT",
    "seed": "INVALID_BOT",  # the deprecated siblings of a suggestion's bot name
    "iterations": "INVALID_BOT",
    "timeMs": "INVALID_BOT",
    "setup": "INVALID_SETUP",
}
T = TypeVar("T", bound=msgspec.Struct)
_NAMED_FIELD = re.compile(r"(?:missing required|unknown) field `([^`]*)`")


def read(body: object, shape: type[T], code: str | None = None) -> T:
    """``body`` (decoded JSON or msgpack) as ``shape``; a fault is an ``ApiError`` with its path.

    ``code`` fixes the error code (``INVALID_SETUP`` for a setup); otherwise it follows the
    field (``FIELD_CODES``)."""
    if body is None:
        body = {}
    try:
        return msgspec.convert(body, shape, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `")
        path = where.rstrip("`") or "$"
        named = _NAMED_FIELD.search(message)
        if named is not None:  # the missing or unknown field itself, not the object holding it
            path = f"{path}.{named.group(1)}"
        field = path[2:].split(".", 1)[0].split("[", 1)[0]
        raise ApiError(
            code or FIELD_CODES.get(field, "INVALID_REQUEST"), message, path=path
        ) from None
