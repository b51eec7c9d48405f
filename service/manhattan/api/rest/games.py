"""REST at ``/v1`` (DESIGN §4): one small handler per operation over ``Operations``.

A body's ``state`` is the state object itself, ``{"id": ...}`` or ``{"token": ...}``. Handlers
raise; the app's exception handlers (``app.py``) render every failure through the error table.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from manhattan import wire
from manhattan.api.disconnect import unless_disconnected
from manhattan.api.encoding import (
    JSON_TYPE,
    decode_as,
    header,
    json_body,
    moves_json,
    read_body,
    render,
    wants_msgpack,
)
from manhattan.api.errors import ApiError
from manhattan.api.rest import answers
from manhattan.api.rest.answers import answer
from manhattan.api.rest.shortcut import Endpoint
from manhattan.bots.ladder import ladder
from manhattan.engine.formats import StateFormat
from manhattan.games import (
    GAME_HEADER,
    NO_CALLER,
    PLAYER_HEADER,
    Caller,
    Operations,
    StateRef,
    StateText,
    rules_info,
)
from manhattan.wire import read
from manhattan.wire.numbers import ascii_decimal


def operations(request: Request) -> Operations:
    ops: Operations = request.app.state.operations
    return ops


def caller(request: Request) -> Caller:
    """The ``Manhattan-Game`` / ``Manhattan-Player`` headers a platform may set."""
    if header(request, GAME_HEADER) is None and header(request, PLAYER_HEADER) is None:
        return NO_CALLER
    return Caller.from_headers(request.headers)


def state_ref(request: Request, value: object) -> StateRef:
    return StateRef.from_wire(value, caller(request))


class _InlineState(msgspec.Struct, forbid_unknown_fields=True):
    """A ``StateRequest`` whose state is the state object itself: decoded from the body's bytes
    in one pass, the common case skips the generic JSON tree and its conversion."""

    state: StateFormat


_INLINE_STATE = msgspec.json.Decoder(_InlineState)
#: The legal moves' JSON body, as the game service caches it (``legal:{stateId}``).
LEGAL_JSON = "legal"


async def read_state_ref(request: Request) -> StateRef:
    """The state of a ``wire.StateRequest`` body. A JSON body that is the state object itself
    is looked up by its bytes first (sent again: parsed already), else decoded straight into
    its format and kept by its bytes once parsed (``memo.StateText``). Anything else (an id, a
    token, msgpack, a fault) is read the general way, with its errors and paths."""
    text = await json_body(request)
    if text is not None:
        known = operations(request).parsed_text(text)
        if known is not None:
            return state_ref(request, known)
        inline = decode_as(text, _INLINE_STATE)
        if inline is not None:
            return state_ref(request, StateText(inline.state, text))
    return state_ref(request, read(await read_body(request), wire.StateRequest).state)


AboutState = TypeVar("AboutState", bound=wire.StateRequest)


async def read_request(request: Request, shape: type[AboutState]) -> tuple[AboutState, StateRef]:
    """The body as ``shape``, and the reference to the state it is about."""
    body = read(await read_body(request), shape)
    return body, state_ref(request, body.state)


# -- handlers ---------------------------------------------------------------------------------
async def get_rules(request: Request) -> Response:
    return render(request, rules_info())


async def get_bots(request: Request) -> Response:
    return render(request, msgspec.to_builtins(ladder()))


async def post_games(request: Request) -> Response:
    setup = await read_body(request)
    sealed = await operations(request).new_game(setup, caller(request))
    return answer(request, answers.sealed_state(sealed), status=201)


async def post_legal_moves(request: Request) -> Response:
    ref = await read_state_ref(request)
    if wants_msgpack(request):
        moves = await operations(request).legal_moves(ref)
        return answer(request, wire.LegalMoves(moves=[m.to_json() for m in moves]))
    # ``wire.LegalMoves`` as JSON, written by the compiled engine and cached as bytes.
    encoded = await operations(request).legal_moves_encoded(ref, LEGAL_JSON, moves_json)
    return Response(encoded, media_type=JSON_TYPE)


async def post_validate(request: Request) -> Response:
    body, ref = await read_request(request, wire.MoveRequest)
    result = await operations(request).validate(ref, body.move)
    return answer(request, answers.validation(result))


async def post_apply(request: Request) -> Response:
    body = read(await read_body(request), wire.ApplyRequest)  # exactly one of move and moves
    ops = operations(request)
    # The moves first, once: a malformed one is refused before the state is looked at.
    moves = ops.moves.given(body.move, body.moves)
    applied = await ops.apply(state_ref(request, body.state), moves)
    return answer(request, answers.transition(applied))


async def post_score(request: Request) -> Response:
    ref = await read_state_ref(request)
    return answer(request, answers.score(await operations(request).score(ref)))


async def post_view(request: Request) -> Response:
    body, ref = await read_request(request, wire.PlayerRequest)
    sealed = await operations(request).view(ref, body.player)
    return answer(request, answers.sealed_state(sealed))


async def post_suggest(request: Request) -> Response:
    body, ref = await read_request(request, wire.SuggestRequest)
    work = operations(request).suggest(ref, body.player, body.choice())
    result = await unless_disconnected(request, work)
    return answer(request, answers.suggestion(result))


async def post_replay(request: Request) -> Response:
    game = await read_body(request)
    result = await operations(request).replay(game, caller(request))
    return answer(request, answers.replay(result))


async def post_analysis(request: Request) -> Response:
    ref = await read_state_ref(request)
    return answer(request, answers.analysis(await operations(request).analysis(ref)))


async def post_preview(request: Request) -> Response:
    """One move's preview; without ``move``, every legal move's (``{"previews": [...]}``)."""
    body, ref = await read_request(request, wire.PreviewRequest)
    return answer(request, answers.preview(await operations(request).preview(ref, body.move)))


async def post_threats(request: Request) -> Response:
    body, ref = await read_request(request, wire.OptionalPlayerRequest)
    result = await operations(request).threats(ref, body.player)
    return answer(request, answers.threats(result))


SVG_TYPE = "image/svg+xml"


async def get_render_svg(request: Request) -> Response:
    """``?id=…`` or ``?token=…`` (exactly one), ``&player=k`` for that player's view."""
    query = request.query_params
    for key in query:
        if key not in ("id", "token", "player", "game"):
            raise ApiError(
                "INVALID_REQUEST", f"unknown parameter {key!r}; expected id, token, player, game"
            )
    wire: dict[str, str] = {k: query[k] for k in ("id", "token", "game") if k in query}
    if ("id" in wire) == ("token" in wire):
        raise ApiError("INVALID_REQUEST", "give exactly one of 'id' or 'token'")
    player: int | None = None
    if "player" in query:
        player = ascii_decimal(query["player"], digits=2)
        if player is None:
            raise ApiError("INVALID_PLAYER", "'player' is a player index")
    svg = await operations(request).render_svg(state_ref(request, wire), player)
    return Response(svg, media_type=SVG_TYPE)


async def post_render_svg(request: Request) -> Response:
    body, ref = await read_request(request, wire.OptionalPlayerRequest)
    svg = await operations(request).render_svg(ref, body.player)
    return Response(svg, media_type=SVG_TYPE)


async def post_advance(request: Request) -> Response:
    """A player's session step: their move (optional), then bots for every other seat."""
    body, ref = await read_request(request, wire.AdvanceRequest)
    work = operations(request).advance(ref, player=body.player, move=body.move, choice=body.bot)
    applied = await unless_disconnected(request, work)
    return answer(request, answers.transition(applied))


async def post_states(request: Request) -> Response:
    ref = await read_state_ref(request)
    sealed = await operations(request).store(ref)
    return answer(request, answers.sealed_state(sealed), status=201)


async def get_state(request: Request) -> Response:
    sealed = await operations(request).load(request.path_params["id"], caller(request))
    return answer(request, answers.sealed_state(sealed))


def rest_routes() -> list[BaseRoute]:
    post = ["POST"]
    return [
        Route("/v1/rules", get_rules, methods=["GET"]),
        Route("/v1/bots", get_bots, methods=["GET"]),
        Route("/v1/games", post_games, methods=post),
        Route("/v1/legal-moves", post_legal_moves, methods=post),
        Route("/v1/validate", post_validate, methods=post),
        Route("/v1/apply", post_apply, methods=post),
        Route("/v1/score", post_score, methods=post),
        Route("/v1/view", post_view, methods=post),
        Route("/v1/suggest", post_suggest, methods=post),
        Route("/v1/replay", post_replay, methods=post),
        Route("/v1/analysis", post_analysis, methods=post),
        Route("/v1/preview", post_preview, methods=post),
        Route("/v1/threats", post_threats, methods=post),
        Route("/v1/render.svg", get_render_svg, methods=["GET"]),
        Route("/v1/render.svg", post_render_svg, methods=post),
        Route("/v1/advance", post_advance, methods=post),
        Route("/v1/states", post_states, methods=post),
        Route("/v1/states/{id}", get_state, methods=["GET"]),
    ]


def stateless_paths() -> dict[tuple[str, str], Endpoint]:
    """The routes above without path parameters, by (method, path): a ``Shortcut`` serves them
    without the router (``api/rest/shortcut.py``)."""
    return {
        (method, route.path): route.endpoint
        for route in rest_routes()
        if isinstance(route, Route) and "{" not in route.path
        for method in route.methods or ()
        if method != "HEAD"
    }
