"""The GraphQL schema at ``/graphql`` (DESIGN §4): inputs, resolvers and the HTTP view.

Resolvers are a few lines each: read the inputs, call ``Operations``, adapt with ``from_domain``.
Move operations return a union with ``MoveRejected``; other fields raise, and the view renders the
error with ``extensions.code`` from the error table. Unexpected exceptions are masked.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import Any

import strawberry
from cross_web import HTTPException
from graphql import GraphQLError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import MissingQueryError, StrawberryGraphQLError
from strawberry.http import GraphQLHTTPResponse
from strawberry.scalars import JSON
from strawberry.schema.config import StrawberryConfig
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.tools import merge_types
from strawberry.types import ExecutionResult, Info
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UNSET

from .. import wire
from . import graphql_fast
from .disconnect import unless_disconnected
from .encoding import dump_json, load_json
from .errors import HTTP_STATUS, INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
from .graphql_analysis_types import Analysis, Preview, Threats
from .graphql_types import (
    ApplyResult,
    MoveRejected,
    MoveType,
    MoveValidation,
    Replay,
    ReplayResult,
    Score,
    SealedState,
    SuggestionType,
    SuggestResult,
    Transition,
    as_json_scalar,
)
from .limits import DEFAULT_INPUT_LIMITS, InputLimits, graphql_limits
from .operations import Caller, Operations, StateRef, rules_info
from .suggestions import DEFAULT_BOT, bot_turn

log = logging.getLogger("manhattan.api")


# -- inputs -----------------------------------------------------------------------------------
@strawberry.input(
    name="StateRef", one_of=True, description="A state: exactly one of json, id or token."
)
class StateRefInput:
    json: JSON | None = strawberry.UNSET
    id: str | None = strawberry.UNSET
    token: str | None = strawberry.UNSET

    def to_ref(self, info: Info | None = None) -> StateRef:
        """The reference, with the ``Manhattan-Game``/``-Player`` headers of the request."""
        if self.id is not UNSET and self.id is not None:
            ref = StateRef(id=self.id)
        elif self.token is not UNSET and self.token is not None:
            ref = StateRef(token=self.token)
        else:
            ref = StateRef.from_wire(None if self.json is UNSET else self.json)
        return ref if info is None else ref.bound(caller(info))


@strawberry.input(name="MoveInput", description="A move as fields (DESIGN §2) or as notation.")
class MoveInput:
    type: str | None = None
    card: int | None = None
    neighborhood: int | None = None
    floors: int | None = None
    color: int | None = None
    pieces: list[int] | None = None
    player: int | None = None
    block: list[int] | None = None
    notation: str | None = strawberry.field(
        default=None, description="e.g. 'b4n3f2' or 's0:2,2,1,1'"
    )

    def to_wire(self) -> dict[str, Any]:
        fields = {
            "type": self.type,
            "card": self.card,
            "neighborhood": self.neighborhood,
            "floors": self.floors,
            "color": self.color,
            "pieces": self.pieces,
            "player": self.player,
            "block": self.block,
            "notation": self.notation,
        }
        given = {k: v for k, v in fields.items() if v is not None and v is not UNSET}
        if self.type is not None:
            given.pop("notation", None)  # echoed notation is informative only
        return given


@strawberry.input(name="VariantsInput")
class VariantsInput:
    anti_trust: bool = False
    slow_growth: bool = False
    urban_rules: bool = False
    reshuffle_each_round: bool = False
    monster: str | None = None


@strawberry.input(name="GameSetup", description="Options of a new game; omitted: the defaults.")
class GameSetup:
    players: int | None = None
    seed: str | None = None
    edition: str | None = None
    variants: VariantsInput | None = None
    seats: list[int] | None = None
    first_player: int | None = None
    rounds: int | None = None
    pieces_per_round: int | None = None
    colors: list[list[int]] | None = None
    monster_start: list[int] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": self.players,
            "seed": self.seed,
            "edition": self.edition,
            "seats": self.seats,
            "firstPlayer": self.first_player,
            "rounds": self.rounds,
            "piecesPerRound": self.pieces_per_round,
            "colors": self.colors,
            "monsterStart": self.monster_start,
        }
        if self.variants is not None:
            v = self.variants
            out["variants"] = {
                "antiTrust": v.anti_trust,
                "slowGrowth": v.slow_growth,
                "urbanRules": v.urban_rules,
                "reshuffleEachRound": v.reshuffle_each_round,
                "monster": v.monster,
            }
        return {k: v for k, v in out.items() if v is not None}


@strawberry.input(name="GameRecord", description="A game: a setup (or a state) and its moves.")
class GameRecord:
    moves: list[MoveInput]
    setup: GameSetup | None = None
    state: StateRefInput | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"moves": [m.to_wire() for m in self.moves]}
        if self.setup is not None:
            out["setup"] = self.setup.to_wire()
        if self.state is not None:
            ref = self.state.to_ref()
            out["state"] = (
                ref.json
                if ref.json is not None
                else ({"id": ref.id} if ref.id is not None else {"token": ref.token})
            )
        return out


@strawberry.input(
    name="BotInput",
    description="Which bot plays, and how: level (random, greedy, ismcts), seed (0 to 2^31-1), "
    "iterations (1 to 20000), timeMs (1 to 2000); the same bounds as REST's BotChoice.",
)
class BotInput:
    level: str = DEFAULT_BOT
    seed: int = 0
    iterations: int | None = None
    time_ms: int | None = None

    def choice(self) -> wire.BotChoice:
        return bot_choice(self.level, self.seed, self.iterations, self.time_ms)


def bot_choice(
    level: str, seed: int | None, iterations: int | None, time_ms: int | None
) -> wire.BotChoice:
    """The arguments as ``wire.BotChoice``, checked against its bounds (``INVALID_BOT``)."""
    given = {"level": level, "seed": seed, "iterations": iterations, "timeMs": time_ms}
    return wire.read(
        {k: v for k, v in given.items() if v is not None}, wire.BotChoice, "INVALID_BOT"
    )


def ops(info: Info) -> Operations:
    operations: Operations = info.context["operations"]
    return operations


def caller(info: Info) -> Caller:
    """The ``Manhattan-Game`` / ``Manhattan-Player`` headers a platform may set."""
    request: Request = info.context["request"]
    return Caller.from_headers(request.headers)


async def rejected_or(coro: Any) -> Any:
    """Await a move operation; its expected failures become a ``MoveRejected`` result."""
    try:
        return await coro
    except Exception as exc:
        error = to_api_error(exc)
        if error is None:
            raise
        return MoveRejected.from_domain(error)


# -- the fields both Query and Mutation have ---------------------------------------------------
async def new_game(info: Info, setup: GameSetup | None) -> SealedState:
    sealed = await ops(info).new_game(setup.to_wire() if setup else {}, caller(info))
    return SealedState.from_domain(sealed)


async def apply_move(info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
    async def run() -> Transition:
        return Transition.from_domain(await ops(info).apply(state.to_ref(info), [move.to_wire()]))

    result: ApplyResult = await rejected_or(run())
    return result


async def apply_moves(info: Info, state: StateRefInput, moves: list[MoveInput]) -> ApplyResult:
    async def run() -> Transition:
        given = [m.to_wire() for m in moves]
        ops(info).read_moves(given)
        return Transition.from_domain(await ops(info).apply(state.to_ref(info), given))

    result: ApplyResult = await rejected_or(run())
    return result


async def replay(info: Info, game: GameRecord) -> ReplayResult:
    async def run() -> Replay:
        return Replay.from_domain(await ops(info).replay(game.to_wire(), caller(info)))

    result: ReplayResult = await rejected_or(run())
    return result


async def advance(
    info: Info,
    state: StateRefInput,
    bot: BotInput | None,
    move: MoveInput | None,
    player: int | None,
) -> ApplyResult:
    async def run() -> Transition:
        chosen = (bot or BotInput()).choice()
        turn = bot_turn(info.context, ops(info).bot_pool)
        async with turn.lock:  # aliases one after another, within one deadline
            applied = await ops(info).advance(
                state.to_ref(info),
                player=player,
                move=move and move.to_wire(),
                bot=chosen.level,
                seed=chosen.seed or 0,
                iterations=chosen.iterations,
                time_ms=chosen.time_ms,
                deadline=turn.deadline,
            )
        return Transition.from_domain(applied)

    result: ApplyResult = await rejected_or(run())
    return result


# -- operations -------------------------------------------------------------------------------
@strawberry.type
class Query:
    @strawberry.field(description="Versions, formats and vocabularies of this service.")
    def rules(self) -> JSON:
        return as_json_scalar(rules_info())

    @strawberry.field(description="A new game (RULES §4); omitted options take their defaults.")
    async def new_game(self, info: Info, setup: GameSetup | None = None) -> SealedState:
        return await new_game(info, setup)

    @strawberry.field(description="A state by reference (id or token), with a fresh token.")
    async def state(self, info: Info, state: StateRefInput) -> SealedState:
        return SealedState.from_domain(await ops(info).store(state.to_ref(info)))

    @strawberry.field(description="Every legal move, in a deterministic order.")
    async def legal_moves(self, info: Info, state: StateRefInput) -> list[MoveType]:
        moves = await ops(info).legal_moves(state.to_ref(info))
        return MoveType.from_domain_list(moves)

    @strawberry.field(description="Whether a move is legal; the normalized move or the reason.")
    async def validate_move(
        self, info: Info, state: StateRefInput, move: MoveInput
    ) -> MoveValidation:
        result = await ops(info).validate(state.to_ref(info), move.to_wire())
        return MoveValidation.from_domain(result)

    @strawberry.field(description="Apply one move: the new state and the events, or a rejection.")
    async def apply_move(self, info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
        return await apply_move(info, state, move)

    @strawberry.field(description="Apply moves in order; a rejection names the failing index.")
    async def apply_moves(
        self, info: Info, state: StateRefInput, moves: list[MoveInput]
    ) -> ApplyResult:
        return await apply_moves(info, state, moves)

    @strawberry.field(description="Scores: totals, history, standings, this round if it ended now.")
    async def score(self, info: Info, state: StateRefInput) -> Score:
        return Score.from_domain(await ops(info).score(state.to_ref(info)))

    @strawberry.field(description="One player's view (RULES §11) and a token issued to them.")
    async def view(self, info: Info, state: StateRefInput, player: int) -> SealedState:
        return SealedState.from_domain(await ops(info).view(state.to_ref(info), player))

    @strawberry.field(description="A move for the player to move, from a bot.")
    async def suggest_move(
        self,
        info: Info,
        state: StateRefInput,
        player: int | None = None,
        bot: str = DEFAULT_BOT,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> SuggestResult:
        async def run() -> SuggestionType:
            chosen = bot_choice(bot, seed, iterations, time_ms)
            turn = bot_turn(info.context, ops(info).bot_pool)
            async with turn.lock:  # aliases one after another, within one deadline
                found = await ops(info).suggest(
                    state.to_ref(info),
                    player,
                    chosen.level,
                    seed=chosen.seed,
                    iterations=chosen.iterations,
                    time_ms=chosen.time_ms,
                    deadline=turn.deadline,
                )
            return SuggestionType.from_domain(found)

        result: SuggestResult = await rejected_or(run())
        return result

    @strawberry.field(description="Replay a game record; the end state or the first illegal move.")
    async def replay(self, info: Info, game: GameRecord) -> ReplayResult:
        return await replay(info, game)

    @strawberry.field(description="Per building: height, owner, safety (engine manhattan.analyze).")
    async def analysis(self, info: Info, state: StateRefInput) -> Analysis:
        return Analysis.from_domain(await ops(info).analysis(state.to_ref(info)))

    @strawberry.field(description="What a move would change (engine manhattan.preview).")
    async def preview(self, info: Info, state: StateRefInput, move: MoveInput) -> Preview:
        return Preview.from_domain(await ops(info).preview(state.to_ref(info), move.to_wire()))

    @strawberry.field(description="The preview of every legal move, in legalMoves order.")
    async def preview_all(self, info: Info, state: StateRefInput) -> list[Preview]:
        return [Preview.from_domain(p) for p in await ops(info).preview(state.to_ref(info))]

    @strawberry.field(
        description="For each building, the chance some opponent of its owner can take it on "
        "their next turn, from what the player may know (engine manhattan.threats)."
    )
    async def threats(self, info: Info, state: StateRefInput, player: int | None = None) -> Threats:
        return Threats.from_domain(await ops(info).threats(state.to_ref(info), player))

    @strawberry.field(
        description="The board as SVG: the state's, or a player's view when a player is given "
        "or the token was issued to a player."
    )
    async def board_svg(self, info: Info, state: StateRefInput, player: int | None = None) -> str:
        return await ops(info).render_svg(state.to_ref(info), player)

    @strawberry.field(
        description="A player's session step: apply their move (if given), then bots play every "
        "other seat, each from its own view, until the player is to move or the game is over. "
        "The result is addressed to the player (view, their events, a token issued to them)."
    )
    async def advance(
        self,
        info: Info,
        state: StateRefInput,
        bot: BotInput | None = None,
        move: MoveInput | None = None,
        player: int | None = None,
    ) -> ApplyResult:
        return await advance(info, state, bot, move, player)


@strawberry.type
class Mutation:
    """The fields that write: each caches the state it returns (and ``advance`` runs bots).
    ``newGame``, ``applyMove``, ``applyMoves``, ``replay`` and ``advance`` are also Query fields
    (the contract of the first release); the same arguments give the same answers on both."""

    @strawberry.mutation(description="Cache a state; later requests may name it by id.")
    async def store_state(self, info: Info, state: StateRefInput) -> SealedState:
        return SealedState.from_domain(await ops(info).store(state.to_ref(info)))

    @strawberry.mutation(description="A new game (RULES §4); omitted options take their defaults.")
    async def new_game(self, info: Info, setup: GameSetup | None = None) -> SealedState:
        return await new_game(info, setup)

    @strawberry.mutation(
        description="Apply one move: the new state and the events, or a rejection."
    )
    async def apply_move(self, info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
        return await apply_move(info, state, move)

    @strawberry.mutation(description="Apply moves in order; a rejection names the failing index.")
    async def apply_moves(
        self, info: Info, state: StateRefInput, moves: list[MoveInput]
    ) -> ApplyResult:
        return await apply_moves(info, state, moves)

    @strawberry.mutation(
        description="Replay a game record; the end state or the first illegal move."
    )
    async def replay(self, info: Info, game: GameRecord) -> ReplayResult:
        return await replay(info, game)

    @strawberry.mutation(
        description="A player's session step: their move (if given), then bots for every other "
        "seat until the player is to move again; addressed to the player."
    )
    async def advance(
        self,
        info: Info,
        state: StateRefInput,
        bot: BotInput | None = None,
        move: MoveInput | None = None,
        player: int | None = None,
    ) -> ApplyResult:
        return await advance(info, state, bot, move, player)


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
    # Tables (DESIGN §9) add their fields; imported here because they use this module's inputs.
    from .graphql_tables import TableMutation, TableQuery, TableSubscription

    return QuietSchema(
        query=merge_types("Query", (Query, TableQuery)),
        mutation=merge_types("Mutation", (Mutation, TableMutation)),
        subscription=TableSubscription,
        extensions=extensions,
        config=StrawberryConfig(auto_camel_case=True),
        execution_context_class=graphql_fast.execution_context_class(fast_path),
    )


# -- HTTP -------------------------------------------------------------------------------------
def format_error(error: GraphQLError) -> dict[str, Any]:
    """One error of a response, with ``extensions.code`` from the error table and a
    ``classification`` (``BAD_USER_INPUT`` for the caller's errors, ``INTERNAL_SERVER_ERROR``
    for ours) that generic GraphQL tooling understands; bugs are masked."""
    original = error.original_error
    formatted = error.formatted
    extensions = dict(formatted.get("extensions") or {})
    if original is None or isinstance(original, GraphQLError | StrawberryGraphQLError):
        if "code" not in extensions:
            too_many_tokens = "tokens" in error.message and "more than" in error.message
            extensions["code"] = (
                "QUERY_TOO_COMPLEX" if too_many_tokens else "GRAPHQL_VALIDATION_FAILED"
            )
    else:
        api = to_api_error(original)
        if api is None:
            log.error("unexpected error in a resolver", exc_info=original)
            formatted["message"] = INTERNAL_ERROR_MESSAGE
            extensions = {"code": "INTERNAL_ERROR", "classification": "INTERNAL_SERVER_ERROR"}
        else:
            formatted["message"] = api.message
            extensions["code"] = api.code
            if api.path is not None:
                extensions["statePath"] = api.path
    status = HTTP_STATUS.get(extensions["code"], 400)
    extensions["classification"] = "BAD_USER_INPUT" if status < 500 else "INTERNAL_SERVER_ERROR"
    formatted["extensions"] = extensions
    return dict(formatted)


_NOT_AN_OBJECT = 'a GraphQL request is a JSON object such as {"query": "{ rules }"}'
_POST_OPERATIONS = frozenset(OperationType.from_http("POST"))
#: A body that may ask for fields that run bots; JSON's ``\\u`` escapes could spell their names.
_BOT_FIELDS = re.compile(rb"suggestMove|advance|\\u")


class GraphQLApp(GraphQL[dict[str, Any], None]):
    """strawberry's ASGI app with coded errors and JSON bodies for transport errors.

    The common request, one operation POSTed as ``application/json``, takes a lean path
    (``_lean_post``) that does what strawberry's view does for it without its generic request
    adapter, content-type parsing and dispatch; everything else goes through the view.
    """

    def __init__(
        self, schema: strawberry.Schema, *, fast_path: bool = True, **options: Any
    ) -> None:
        super().__init__(schema, **options)
        # The lean path only handles plain results: no HTTP stream transports (SSE, multipart
        # subscriptions), no incremental delivery, no multipart uploads. Subscriptions run over
        # WebSocket only (graphql-transport-ws), so a POST never carries one: the lean path
        # refuses them as the view does.
        self._lean = (
            not self._stream_transport_map
            and not self.multipart_uploads_enabled
            and not schema.config.enable_experimental_incremental_execution
            and type(self).get_root_value is GraphQL.get_root_value
        )
        self._compiled = graphql_fast.compiled_queries(
            schema, PLANNABLE_FIELDS, on=self._lean and fast_path
        )

    def encode_json(self, data: object) -> bytes:
        return dump_json(data)  # orjson: a large share of a list response's cost otherwise

    def decode_json(self, data: str | bytes) -> object:
        """A body nested too deeply for the parser, or with ``NaN``/``Infinity``, is bad JSON
        (400), not a server error."""
        try:
            return load_json(data)
        except json.JSONDecodeError:
            raise
        except RecursionError:
            raise json.JSONDecodeError("nested too deeply", "", 0) from None
        except ValueError as exc:  # a non-finite constant, or bytes that are not text
            raise json.JSONDecodeError(str(exc), "", 0) from None

    async def parse_http_body(self, request: Any) -> Any:
        """strawberry's, for a JSON body that is an object (or a batch); it would fail on any
        other JSON value with a server error. (The common request never gets here: see
        ``_lean_post``, which refuses such bodies itself.)"""
        if request.method != "GET" and "application/json" in (request.content_type or ""):
            data = self.parse_json(await request.get_body())
            if not isinstance(data, dict | list):
                raise HTTPException(400, _NOT_AN_OBJECT)
        return await super().parse_http_body(request)

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> dict[str, Any]:
        return {
            "request": request,
            "response": response,
            "operations": request.app.state.operations,
        }

    async def process_result(
        self, request: Request, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            errors = [format_error(e) for e in result.errors]
            for error in errors:
                request.app.state.metrics.count_error(error["extensions"]["code"])
            data["errors"] = errors  # type: ignore[typeddict-item]
        if result.extensions:
            data["extensions"] = result.extensions
        return data

    async def _lean_post(self, request: Request) -> Response | None:
        """The response to a POST of one operation as ``application/json``, as strawberry's
        view would make it (same context, execution, result processing and response), or None
        when the request is anything else: the view then handles it, from the start."""
        content_type = request.headers.get("content-type", "")
        if content_type.partition(";")[0].strip(" \t") != "application/json":
            return None  # strawberry matches the media type case-sensitively, as here
        try:
            data = self.decode_json(await request.body())  # cached on the request for the view
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict):
            return None  # a batch, or a body the view refuses (parse_http_body)
        query = data.get("query")
        variables = data.get("variables")
        operation_name = data.get("operationName")
        extensions = data.get("extensions")
        if (
            not isinstance(query, str)
            or not query
            or not isinstance(variables, dict | None)
            or not isinstance(operation_name, str | None)
            or not isinstance(extensions, dict | None)
        ):
            return None
        sub_response = await self.get_sub_response(request)
        context = await self.get_context(request, response=sub_response)
        if self._compiled is not None:
            plan = self._compiled.plan(query, operation_name)
            if plan is not None:
                planned = await self._compiled.execute(plan, variables, context)
                if planned is not None and not planned.errors:
                    return self.create_response(
                        response_data={"data": planned.data}, sub_response=sub_response
                    )
                if planned is not None:  # failed fields, answered as the general path would
                    result = ExecutionResult(data=planned.data, errors=planned.errors)
                    response_data = await self.process_result(request, result)
                    self._handle_errors(planned.errors, response_data)
                    return self.create_response(
                        response_data=response_data, sub_response=sub_response
                    )
        try:
            result = await self.schema.execute(
                query,
                root_value=None,  # the view's get_root_value, not overridden (see __init__)
                variable_values=variables,
                context_value=context,
                operation_name=operation_name,
                allowed_operation_types=_POST_OPERATIONS,
                operation_extensions=extensions,
            )
        except CannotGetOperationTypeError as e:
            raise HTTPException(400, e.as_http_error_reason()) from e
        except InvalidOperationTypeError as e:
            raise HTTPException(400, e.as_http_error_reason("POST")) from e
        except MissingQueryError as e:
            raise HTTPException(400, "No GraphQL query found in the request") from e
        response_data = await self.process_result(request, result)
        if result.errors:
            self._handle_errors(result.errors, response_data)
        return self.create_response(response_data=response_data, sub_response=sub_response)

    async def _respond(self, request: Request, scope: Any) -> Response:
        response = None
        if self._lean and scope["method"] == "POST":
            response = await self._lean_post(request)
        if response is None:
            response = await self.run(request)
        return response

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope, receive=receive)
        try:
            # A request that may run bots stops them if its client hangs up (the body is read
            # first, and kept on the request for the paths below).
            if scope["method"] == "POST" and _BOT_FIELDS.search(await request.body()):
                response = await unless_disconnected(request, self._respond(request, scope))
            else:
                response = await self._respond(request, scope)
        except HTTPException as exc:
            code = {405: "METHOD_NOT_ALLOWED", 404: "NOT_FOUND"}.get(
                exc.status_code, "INVALID_REQUEST"
            )
            error = ApiError(code, exc.reason)
            response = JSONResponse(error.to_json(), status_code=error.status)
        await response(scope, receive, send)
