"""The GraphQL schema at ``/graphql`` (DESIGN §4): its root types and their resolvers (the HTTP view
is ``view.py``).

Resolvers are a few lines each: read the inputs, call ``Operations``, adapt with ``from_domain``.
Every field that takes a state (or a setup, or a game record) returns a union with
``MoveRejected`` for its expected failures (``graphql_results``); ``legalMoves`` alone, whose
type ``[Move!]!`` the contract fixes, raises, and the view renders the error with
``extensions.code`` from the error table. Unexpected exceptions are masked.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig
from strawberry.tools import merge_types
from strawberry.types import Info

from manhattan.api.graphql import fast as graphql_fast
from manhattan.api.graphql.analysis_types import Analysis, Preview, Threats
from manhattan.api.graphql.inputs import (
    BotInput,
    GameRecord,
    GameSetup,
    MoveInput,
    StateRefInput,
    caller,
)
from manhattan.api.graphql.limits import DEFAULT_INPUT_LIMITS, InputLimits, graphql_limits
from manhattan.api.graphql.platforms import PlatformQuery
from manhattan.api.graphql.results import (
    AnalysisResult,
    ApplyResult,
    BoardSvg,
    BoardSvgResult,
    PreviewResult,
    Previews,
    PreviewsResult,
    ReplayResult,
    ScoreResult,
    StateResult,
    SuggestResult,
    ThreatsResult,
    ValidationResult,
    adapted_or_rejected,
    rejected_or,
)
from manhattan.api.graphql.score_types import Score
from manhattan.api.graphql.tables import TableMutation, TableQuery, TableSubscription
from manhattan.api.graphql.types import (
    BotLevelRating,
    MoveType,
    MoveValidation,
    Replay,
    SealedState,
    SuggestionType,
    Transition,
    as_json_scalar,
)
from manhattan.bots.ladder import ladder
from manhattan.games import BotTurn, Operations, bot_turn, rules_info

log = logging.getLogger("manhattan.api")


def ops(info: Info) -> Operations:
    operations: Operations = info.context["operations"]
    return operations


@contextlib.asynccontextmanager
async def request_bot_turn(info: Info) -> AsyncIterator[BotTurn]:
    """The request's one bot turn, held: its bot fields (aliases) run one after another, within
    one deadline."""
    turn = bot_turn(info.context, ops(info).bot_pool)
    async with turn.lock:
        yield turn


# -- the fields both Query and Mutation have ---------------------------------------------------
async def new_game(info: Info, setup: GameSetup | None = None) -> StateResult:
    async def run() -> SealedState:
        sealed = await ops(info).new_game(setup.to_wire() if setup else {}, caller(info))
        return SealedState.from_domain(sealed)

    return await rejected_or(run)


async def store_state(info: Info, state: StateRefInput) -> StateResult:
    return await adapted_or_rejected(
        lambda: ops(info).store(state.to_ref(info)), SealedState.from_domain
    )


async def apply_move(info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
    return await adapted_or_rejected(
        lambda: ops(info).apply(state.to_ref(info), [ops(info).read_move(move.to_wire())]),
        Transition.from_domain,
    )


async def apply_moves(info: Info, state: StateRefInput, moves: list[MoveInput]) -> ApplyResult:
    async def run() -> Transition:
        read = ops(info).read_moves([m.to_wire() for m in moves])  # before the state
        return Transition.from_domain(await ops(info).apply(state.to_ref(info), read))

    return await rejected_or(run)


async def replay(info: Info, game: GameRecord) -> ReplayResult:
    return await adapted_or_rejected(
        lambda: ops(info).replay(game.to_wire(), caller(info)), Replay.from_domain
    )


async def advance(
    info: Info,
    state: StateRefInput,
    bot: BotInput | None = None,
    move: MoveInput | None = None,
    player: int | None = None,
) -> ApplyResult:
    async def run() -> Transition:
        chosen = (bot or BotInput()).choice()
        async with request_bot_turn(info) as turn:
            applied = await ops(info).advance(
                state.to_ref(info),
                player=player,
                move=move and move.to_wire(),
                choice=chosen,
                deadline=turn.deadline,
            )
        return Transition.from_domain(applied)

    return await rejected_or(run)


# -- operations -------------------------------------------------------------------------------
# The fields both Query and Mutation have (the contract of the first release): one resolver and
# one description each.
NEW_GAME = "A new game (RULES §4); omitted options take their defaults."
APPLY_MOVE = "Apply one move: the new state and the events, or a rejection."
APPLY_MOVES = "Apply moves in order; a rejection names the failing index."
REPLAY = "Replay a game record; the end state or the first illegal move."


@strawberry.type
class Query:
    @strawberry.field(description="Versions, formats and vocabularies of this service.")
    def rules(self) -> JSON:
        return as_json_scalar(rules_info())

    @strawberry.field(
        description="The bot levels, strongest first, each with its default budget and its "
        "rating measured by manhattan bench ladder: pick the one nearest a player's rating."
    )
    def bots(self) -> list[BotLevelRating]:
        return [BotLevelRating.from_domain(entry) for entry in ladder().bots]

    new_game = strawberry.field(resolver=new_game, description=NEW_GAME)

    @strawberry.field(description="A state by reference (id or token), with a fresh token.")
    async def state(self, info: Info, state: StateRefInput) -> StateResult:
        return await store_state(info, state)

    @strawberry.field(
        description="Every legal move, in a deterministic order. The one field that takes a "
        "state and has no MoveRejected member (its type is fixed): a failure is a GraphQL "
        "error with extensions.code."
    )
    async def legal_moves(self, info: Info, state: StateRefInput) -> list[MoveType]:
        moves = await ops(info).legal_moves(state.to_ref(info))
        return MoveType.from_domain_list(moves)

    @strawberry.field(description="Whether a move is legal; the normalized move or the reason.")
    async def validate_move(
        self, info: Info, state: StateRefInput, move: MoveInput
    ) -> ValidationResult:
        return await adapted_or_rejected(
            lambda: ops(info).validate(state.to_ref(info), move.to_wire()),
            MoveValidation.from_domain,
        )

    apply_move = strawberry.field(resolver=apply_move, description=APPLY_MOVE)
    apply_moves = strawberry.field(resolver=apply_moves, description=APPLY_MOVES)

    @strawberry.field(description="Scores: totals, history, standings, this round if it ended now.")
    async def score(self, info: Info, state: StateRefInput) -> ScoreResult:
        return await adapted_or_rejected(
            lambda: ops(info).score(state.to_ref(info)), Score.from_domain
        )

    @strawberry.field(description="One player's view (RULES §11) and a token issued to them.")
    async def view(self, info: Info, state: StateRefInput, player: int) -> StateResult:
        return await adapted_or_rejected(
            lambda: ops(info).view(state.to_ref(info), player), SealedState.from_domain
        )

    @strawberry.field(description="A move for the player to move, from a bot.")
    async def suggest_move(
        self,
        info: Info,
        state: StateRefInput,
        player: int | None = None,
        bot: BotInput | None = None,
    ) -> SuggestResult:
        async def run() -> SuggestionType:
            chosen = (bot or BotInput()).choice()
            async with request_bot_turn(info) as turn:
                found = await ops(info).suggest(
                    state.to_ref(info), player, chosen, deadline=turn.deadline
                )
            return SuggestionType.from_domain(found)

        return await rejected_or(run)

    replay = strawberry.field(resolver=replay, description=REPLAY)

    @strawberry.field(description="Per building: height, owner, safety (engine manhattan.analyze).")
    async def analysis(self, info: Info, state: StateRefInput) -> AnalysisResult:
        return await adapted_or_rejected(
            lambda: ops(info).analysis(state.to_ref(info)), Analysis.from_domain
        )

    @strawberry.field(description="What a move would change (engine manhattan.preview).")
    async def preview(self, info: Info, state: StateRefInput, move: MoveInput) -> PreviewResult:
        return await adapted_or_rejected(
            lambda: ops(info).preview(state.to_ref(info), move.to_wire()), Preview.from_domain
        )

    @strawberry.field(description="The preview of every legal move, in legalMoves order.")
    async def preview_all(self, info: Info, state: StateRefInput) -> PreviewsResult:
        async def run() -> Previews:
            found = await ops(info).preview(state.to_ref(info))
            return Previews(previews=[Preview.from_domain(p) for p in found])

        return await rejected_or(run)

    @strawberry.field(
        description="For each building, the chance some opponent of its owner can take it on "
        "their next turn, from what the player may know (engine manhattan.threats)."
    )
    async def threats(
        self, info: Info, state: StateRefInput, player: int | None = None
    ) -> ThreatsResult:
        return await adapted_or_rejected(
            lambda: ops(info).threats(state.to_ref(info), player), Threats.from_domain
        )

    @strawberry.field(
        description="The board as SVG: the state's, or a player's view when a player is given "
        "or the token was issued to a player."
    )
    async def board_svg(
        self, info: Info, state: StateRefInput, player: int | None = None
    ) -> BoardSvgResult:
        return await adapted_or_rejected(
            lambda: ops(info).render_svg(state.to_ref(info), player), lambda svg: BoardSvg(svg=svg)
        )

    advance = strawberry.field(
        resolver=advance,
        description="A player's session step: apply their move (if given), then bots play every "
        "other seat, each from its own view, until the player is to move or the game is over. "
        "The result is addressed to the player (view, their events, a token issued to them).",
    )


@strawberry.type
class Mutation:
    """The fields that write: each caches the state it returns (and ``advance`` runs bots).
    ``newGame``, ``applyMove``, ``applyMoves``, ``replay`` and ``advance`` are also Query fields
    (the contract of the first release); the same arguments give the same answers on both."""

    store_state = strawberry.mutation(
        resolver=store_state, description="Cache a state; later requests may name it by id."
    )
    new_game = strawberry.mutation(resolver=new_game, description=NEW_GAME)
    apply_move = strawberry.mutation(resolver=apply_move, description=APPLY_MOVE)
    apply_moves = strawberry.mutation(resolver=apply_moves, description=APPLY_MOVES)
    replay = strawberry.mutation(resolver=replay, description=REPLAY)
    advance = strawberry.mutation(
        resolver=advance,
        description="A player's session step: their move (if given), then bots for every other "
        "seat until the player is to move again; addressed to the player.",
    )


#: Root fields that only read (no state stored, no position claimed, no bot run): the only ones
#: the fast path may plan (graphql_fast). A field left out runs on the general path.
PLANNABLE_FIELDS = frozenset(
    {
        "rules",
        "legalMoves",
        "validateMove",
        "score",
        "analysis",
        "preview",
        "previewAll",
        "threats",
        "boardSvg",
    }
)


class QuietSchema(strawberry.Schema):
    """Errors are logged by the view (unexpected ones only), not once per error here."""

    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        return None


@functools.cache  # one schema per distinct limits; schemas are stateless
def build_schema(
    *,
    max_depth: int = 10,
    max_aliases: int = 15,
    max_tokens: int = 2_000,
    introspection: bool = True,
    inputs: InputLimits = DEFAULT_INPUT_LIMITS,
    cache_bytes: int = 8 << 20,
    fast_path: bool = True,
) -> strawberry.Schema:
    # One extension: the limits and the parse and validation caches (see graphql_limits).
    extensions = graphql_limits(
        max_depth, max_aliases, max_tokens, introspection, cache_bytes=cache_bytes, inputs=inputs
    )
    return QuietSchema(
        query=merge_types("Query", (Query, TableQuery, PlatformQuery)),
        mutation=merge_types("Mutation", (Mutation, TableMutation)),
        subscription=TableSubscription,
        extensions=extensions,
        config=StrawberryConfig(auto_camel_case=True),
        execution_context_class=graphql_fast.execution_context_class(fast_path),
    )
