"""The GraphQL schema at ``/graphql`` (DESIGN §4): inputs, resolvers and the HTTP view.

Resolvers are a few lines each: read the inputs, call ``Operations``, adapt with ``from_domain``.
Every field that takes a state (or a setup, or a game record) returns a union with
``MoveRejected`` for its expected failures (``graphql_results``); ``legalMoves`` alone, whose
type ``[Move!]!`` the contract fixes, raises, and the view renders the error with
``extensions.code`` from the error table. Unexpected exceptions are masked.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import Any

import strawberry
from cross_web import HTTPException
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

from graphql import GraphQLError
from manhattan.api.disconnect import unless_disconnected
from manhattan.api.encoding import dump_json, load_json
from manhattan.api.errors import HTTP_STATUS, INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
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
    rejected_or,
)
from manhattan.api.graphql.types import (
    MoveType,
    MoveValidation,
    Replay,
    Score,
    SealedState,
    SuggestionType,
    Transition,
    as_json_scalar,
)
from manhattan.api.limits import DEFAULT_INPUT_LIMITS, InputLimits, graphql_limits
from manhattan.games import Operations, bot_turn, rules_info

log = logging.getLogger("manhattan.api")


def ops(info: Info) -> Operations:
    operations: Operations = info.context["operations"]
    return operations


# -- the fields both Query and Mutation have ---------------------------------------------------
async def new_game(info: Info, setup: GameSetup | None) -> StateResult:
    async def run() -> SealedState:
        sealed = await ops(info).new_game(setup.to_wire() if setup else {}, caller(info))
        return SealedState.from_domain(sealed)

    return await rejected_or(run)


async def store_state(info: Info, state: StateRefInput) -> StateResult:
    async def run() -> SealedState:
        return SealedState.from_domain(await ops(info).store(state.to_ref(info)))

    return await rejected_or(run)


async def apply_move(info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
    async def run() -> Transition:
        return Transition.from_domain(await ops(info).apply(state.to_ref(info), [move.to_wire()]))

    return await rejected_or(run)


async def apply_moves(info: Info, state: StateRefInput, moves: list[MoveInput]) -> ApplyResult:
    async def run() -> Transition:
        given = [m.to_wire() for m in moves]
        ops(info).read_moves(given)
        return Transition.from_domain(await ops(info).apply(state.to_ref(info), given))

    return await rejected_or(run)


async def replay(info: Info, game: GameRecord) -> ReplayResult:
    async def run() -> Replay:
        return Replay.from_domain(await ops(info).replay(game.to_wire(), caller(info)))

    return await rejected_or(run)


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
                choice=chosen,
                deadline=turn.deadline,
            )
        return Transition.from_domain(applied)

    return await rejected_or(run)


# -- operations -------------------------------------------------------------------------------
@strawberry.type
class Query:
    @strawberry.field(description="Versions, formats and vocabularies of this service.")
    def rules(self) -> JSON:
        return as_json_scalar(rules_info())

    @strawberry.field(description="A new game (RULES §4); omitted options take their defaults.")
    async def new_game(self, info: Info, setup: GameSetup | None = None) -> StateResult:
        return await new_game(info, setup)

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
        async def run() -> MoveValidation:
            result = await ops(info).validate(state.to_ref(info), move.to_wire())
            return MoveValidation.from_domain(result)

        return await rejected_or(run)

    @strawberry.field(description="Apply one move: the new state and the events, or a rejection.")
    async def apply_move(self, info: Info, state: StateRefInput, move: MoveInput) -> ApplyResult:
        return await apply_move(info, state, move)

    @strawberry.field(description="Apply moves in order; a rejection names the failing index.")
    async def apply_moves(
        self, info: Info, state: StateRefInput, moves: list[MoveInput]
    ) -> ApplyResult:
        return await apply_moves(info, state, moves)

    @strawberry.field(description="Scores: totals, history, standings, this round if it ended now.")
    async def score(self, info: Info, state: StateRefInput) -> ScoreResult:
        async def run() -> Score:
            return Score.from_domain(await ops(info).score(state.to_ref(info)))

        return await rejected_or(run)

    @strawberry.field(description="One player's view (RULES §11) and a token issued to them.")
    async def view(self, info: Info, state: StateRefInput, player: int) -> StateResult:
        async def run() -> SealedState:
            return SealedState.from_domain(await ops(info).view(state.to_ref(info), player))

        return await rejected_or(run)

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
            turn = bot_turn(info.context, ops(info).bot_pool)
            async with turn.lock:  # aliases one after another, within one deadline
                found = await ops(info).suggest(
                    state.to_ref(info), player, chosen, deadline=turn.deadline
                )
            return SuggestionType.from_domain(found)

        return await rejected_or(run)

    @strawberry.field(description="Replay a game record; the end state or the first illegal move.")
    async def replay(self, info: Info, game: GameRecord) -> ReplayResult:
        return await replay(info, game)

    @strawberry.field(description="Per building: height, owner, safety (engine manhattan.analyze).")
    async def analysis(self, info: Info, state: StateRefInput) -> AnalysisResult:
        async def run() -> Analysis:
            return Analysis.from_domain(await ops(info).analysis(state.to_ref(info)))

        return await rejected_or(run)

    @strawberry.field(description="What a move would change (engine manhattan.preview).")
    async def preview(self, info: Info, state: StateRefInput, move: MoveInput) -> PreviewResult:
        async def run() -> Preview:
            found = await ops(info).preview(state.to_ref(info), move.to_wire())
            return Preview.from_domain(found)

        return await rejected_or(run)

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
        async def run() -> Threats:
            return Threats.from_domain(await ops(info).threats(state.to_ref(info), player))

        return await rejected_or(run)

    @strawberry.field(
        description="The board as SVG: the state's, or a player's view when a player is given "
        "or the token was issued to a player."
    )
    async def board_svg(
        self, info: Info, state: StateRefInput, player: int | None = None
    ) -> BoardSvgResult:
        async def run() -> BoardSvg:
            return BoardSvg(svg=await ops(info).render_svg(state.to_ref(info), player))

        return await rejected_or(run)

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
    async def store_state(self, info: Info, state: StateRefInput) -> StateResult:
        return await store_state(info, state)

    @strawberry.mutation(description="A new game (RULES §4); omitted options take their defaults.")
    async def new_game(self, info: Info, setup: GameSetup | None = None) -> StateResult:
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
    from manhattan.api.graphql.tables import TableMutation, TableQuery, TableSubscription

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
