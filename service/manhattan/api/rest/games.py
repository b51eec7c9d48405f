"""REST at ``/v1`` (DESIGN §4): one small handler per operation over ``Operations``.

A body's ``state`` is the state object itself, ``{"id": ...}`` or ``{"token": ...}``. Handlers
raise; the app's exception handlers (``app.py``) render every failure through the error table.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

import manhattan
from manhattan import wire
from manhattan.api.disconnect import unless_disconnected
from manhattan.api.encoding import JSON_TYPE, header, read_body, read_json_as, render, wants_msgpack
from manhattan.api.errors import ApiError
from manhattan.bots import Suggestion
from manhattan.bots.ladder import ladder
from manhattan.engine.formats import StateFormat
from manhattan.games import (
    GAME_HEADER,
    NO_CALLER,
    PLAYER_HEADER,
    Applied,
    Caller,
    Operations,
    Replayed,
    Sealed,
    StateRef,
    Validation,
    rules_info,
)
from manhattan.wire import read


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


async def read_state_ref(request: Request) -> StateRef:
    """The state of a ``wire.StateRequest`` body; an inline state arrives already read as its
    format (``StateRef`` takes either). Anything else (an id, a token, msgpack, a fault) is read
    the general way, with its errors and paths."""
    inline = await read_json_as(request, _INLINE_STATE)
    if inline is not None:
        return state_ref(request, inline.state)
    return state_ref(request, read(await read_body(request), wire.StateRequest).state)


AboutState = TypeVar("AboutState", bound=wire.StateRequest)


async def read_request(request: Request, shape: type[AboutState]) -> tuple[AboutState, StateRef]:
    """The body as ``shape``, and the reference to the state it is about."""
    body = read(await read_body(request), shape)
    return body, state_ref(request, body.state)


# -- renderers shared with nothing else: the REST shapes of DESIGN §4 --------------------------
def sealed_json(sealed: Sealed) -> dict[str, Any]:
    out: dict[str, Any] = {"token": sealed.token, "gameId": sealed.game_id}
    if sealed.view is not None:
        out["view"] = sealed.view.to_json()
    else:
        out["stateId"] = sealed.state_id
    if sealed.shows_state:
        out["state"] = sealed.state.to_json()
    return out


def applied_json(applied: Applied) -> dict[str, Any]:
    out = sealed_json(applied.sealed)
    out["events"] = [e.to_json() for e in applied.events]
    out["moves"] = [m.to_json() for m in applied.moves]
    return out


def validation_json(result: Validation) -> dict[str, Any]:
    if result.legal and result.move is not None:
        return {"legal": True, "move": result.move.to_json()}
    assert result.error is not None
    out: dict[str, Any] = {"legal": False, **result.error.to_json()}
    if result.verdict is not None:
        out.update(explanation_json(result.verdict))
    return out


EXPLANATION_KEYS = ("reason", "section", "decision", "option", "numbers", "alternatives")


def explanation_json(verdict: manhattan.Verdict) -> dict[str, Any]:
    """The explained refusal (issue 9): rule, numbers, nearest legal alternatives."""
    whole = verdict.to_json()
    return {key: whole[key] for key in EXPLANATION_KEYS}


def replayed_json(result: Replayed) -> dict[str, Any]:
    out = sealed_json(result.sealed)
    out["movesApplied"] = result.moves_applied
    out["ranking"] = [p.to_json() for p in result.ranking]
    return out


def suggestion_json(result: Suggestion) -> dict[str, Any]:
    return {
        "move": result.move.to_json(),
        "bot": result.bot,
        "stats": result.stats,
        "alternatives": [
            {"move": a.move.to_json(), "visits": a.visits, "meanScore": a.mean_score}
            for a in result.alternatives
        ],
    }


def as_json(value: Any) -> Any:
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


# -- handlers ---------------------------------------------------------------------------------
async def get_rules(request: Request) -> Response:
    return render(request, rules_info())


async def get_bots(request: Request) -> Response:
    return render(request, msgspec.to_builtins(ladder()))


async def post_games(request: Request) -> Response:
    setup = await read_body(request)
    sealed = await operations(request).new_game(setup, caller(request))
    return render(request, sealed_json(sealed), status=201)


async def post_legal_moves(request: Request) -> Response:
    ref = await read_state_ref(request)
    if wants_msgpack(request):
        moves = await operations(request).legal_moves(ref)
        return render(request, {"moves": [m.to_json() for m in moves]})
    encoded = await operations(request).legal_moves_body(ref)
    return Response(encoded, media_type=JSON_TYPE)


async def post_validate(request: Request) -> Response:
    body, ref = await read_request(request, wire.MoveRequest)
    result = await operations(request).validate(ref, body.move)
    return render(request, validation_json(result))


async def post_apply(request: Request) -> Response:
    body = read(await read_body(request), wire.ApplyRequest)
    ops = operations(request)
    if (body.move is None) == (body.moves is None):
        raise ApiError("INVALID_REQUEST", "give either 'move' or 'moves'", path="$")
    if body.moves is not None:
        ops.read_moves(body.moves)  # shape and count before any work
    moves = [body.move] if body.moves is None else body.moves
    # The state last: a malformed list is refused before the state is looked at.
    applied = await ops.apply(state_ref(request, body.state), moves)
    return render(request, applied_json(applied))


async def post_score(request: Request) -> Response:
    ref = await read_state_ref(request)
    report = await operations(request).score(ref)
    return render(request, report.to_json())


async def post_view(request: Request) -> Response:
    body, ref = await read_request(request, wire.PlayerRequest)
    sealed = await operations(request).view(ref, body.player)
    return render(request, sealed_json(sealed))


async def post_suggest(request: Request) -> Response:
    body, ref = await read_request(request, wire.SuggestRequest)
    work = operations(request).suggest(ref, body.player, body.choice())
    result = await unless_disconnected(request, work)
    return render(request, suggestion_json(result))


async def post_replay(request: Request) -> Response:
    game = await read_body(request)
    return render(request, replayed_json(await operations(request).replay(game, caller(request))))


async def post_analysis(request: Request) -> Response:
    ref = await read_state_ref(request)
    result = await operations(request).analysis(ref)
    return render(request, {"analysis": as_json(result)})


async def post_preview(request: Request) -> Response:
    """One move's preview; without ``move``, every legal move's (``{"previews": [...]}``)."""
    body, ref = await read_request(request, wire.PreviewRequest)
    if body.move is None:
        previews = await operations(request).preview(ref)
        return render(request, {"previews": [p.to_json() for p in previews]})
    result = await operations(request).preview(ref, body.move)
    return render(request, {"preview": as_json(result)})


async def post_threats(request: Request) -> Response:
    body, ref = await read_request(request, wire.OptionalPlayerRequest)
    result = await operations(request).threats(ref, body.player)
    return render(request, {"threats": result.to_json()})


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
        text = query["player"]
        if not (text.isascii() and text.isdigit() and len(text) < 3):
            raise ApiError("INVALID_PLAYER", "'player' is a player index")
        player = int(text)
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
    return render(request, applied_json(applied))


async def post_states(request: Request) -> Response:
    ref = await read_state_ref(request)
    sealed = await operations(request).store(ref)
    return render(request, sealed_json(sealed), status=201)


async def get_state(request: Request) -> Response:
    sealed = await operations(request).load(request.path_params["id"], caller(request))
    return render(request, sealed_json(sealed))


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
