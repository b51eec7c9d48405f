"""The OpenAPI 3.1 document of the REST API (``GET /openapi.json``, ``schema/openapi.json``).

Derived, not written beside the code: request and response bodies are the JSON Schema of the
shapes in ``manhattan.wire`` (the very classes the handlers validate with, bounds included); the
state, view, move and rules schemas come from the engine's JSON Schema
(``manhattan.engine.jsonschema``). What is written here is the list of operations: paths,
summaries, which shape goes in and out, which statuses may answer. A test checks every route
here exists in the app and vice versa.
"""

from __future__ import annotations

import json
from typing import Any

import manhattan
from manhattan import wire
from manhattan.api.rest.openapi_parts import (
    JSON,
    MSGPACK,
    parameter,
    responses,
    wire_schema_components,
)
from manhattan.api.rest.openapi_parts import body as _body
from manhattan.api.rest.openapi_tables import table_paths, table_schemas
from manhattan.engine.jsonschema import build_schema as state_json_schema
from manhattan.wire.codes import PLATFORM_CODES

#: Codes only the tables' and platforms' routes give (their own responses list them).
_TABLE_ONLY = (frozenset(wire.TABLE_CODES) - {"NOT_YOUR_TURN"}) | frozenset(PLATFORM_CODES)

ref = wire.ref


def _obj(
    properties: dict[str, Any], required: list[str] | None = None, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties, **extra}
    if required:
        out["required"] = required
    return out


def _engine_schemas() -> dict[str, Any]:
    text = json.dumps(state_json_schema()["$defs"]).replace("#/$defs/", "#/components/schemas/")
    defs: dict[str, Any] = json.loads(text)
    return {name: defs[name] for name in ("state", "view", "move", "rules", "breakdown")}


def _service_schemas() -> dict[str, Any]:
    game = {
        "type": "string",
        "pattern": "^[0-9a-f]{32}$",
        "description": "the game the caller expects: a state of another game is refused",
    }
    return {
        "StateRef": {
            "description": "The state object itself, or {id} of a cached state, or {token}.",
            "oneOf": [
                ref("state"),
                _obj({"id": {"type": "string"}, "game": game}, ["id"], additionalProperties=False),
                _obj(
                    {"token": {"type": "string"}, "game": game},
                    ["token"],
                    additionalProperties=False,
                ),
            ],
        },
        "MoveIn": {
            "description": "A move as JSON, as notation text ('b4n3f2'), or {notation}.",
            "oneOf": [
                ref("move"),
                {"type": "string", "maxLength": 64},
                _obj({"notation": {"type": "string"}}, ["notation"], additionalProperties=False),
            ],
        },
        "Event": _obj(
            {"type": {"enum": list(manhattan.EVENT_TYPES)}},
            ["type"],
            additionalProperties=True,
            description="{type, ...fields}; see docs/architecture.md for each type's fields",
        ),
        "Preview": {
            "description": "{preview} for one move; {previews} (every legal move) without one",
            "oneOf": [ref("MovePreview"), ref("Previews")],
        },
    }


def _wire_schemas() -> dict[str, Any]:
    return wire_schema_components(
        (*wire.REQUESTS, *wire.RESPONSES, *wire.TABLE_REQUESTS, *wire.TABLE_RESPONSES), wire.REF
    )


def _responses(ok: str, status: str = "200", errors: tuple[int, ...] = ()) -> dict[str, Any]:
    return responses(ok, status, errors, leave_out=_TABLE_ONLY)


_STATE_ERRORS = (403, 404, 503)  # strict mode, unknown id, store down while reading an id
_MOVE_ERRORS = (*_STATE_ERRORS, 409, 422)


def _post(
    summary: str,
    body: dict[str, Any],
    ok: str,
    *,
    status: str = "200",
    errors: tuple[int, ...] = _STATE_ERRORS,
    op: str,
) -> dict[str, Any]:
    return {
        "post": {
            "operationId": op,
            "summary": summary,
            "parameters": CALLER_HEADERS,
            "requestBody": body,
            "responses": _responses(ok, status, errors),
        }
    }


#: Set by a trusted platform that relays its players' requests (trust model: README).
CALLER_HEADERS: list[dict[str, Any]] = [
    parameter(
        "Manhattan-Game",
        "header",
        {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        "every state of the request must belong to this game (gameId)",
    ),
    parameter(
        "Manhattan-Player",
        "header",
        {"type": "string", "pattern": "^[0-3]$"},
        "on behalf of this player: answers are addressed to them, and a token "
        "issued to another player is refused",
    ),
]

_SVG = "image/svg+xml"


def _svg_responses() -> dict[str, Any]:
    out = _responses("Error", errors=(*_STATE_ERRORS, 409))
    out["200"] = {
        "description": "the board picture",
        "content": {_SVG: {"schema": {"type": "string"}}},
    }
    return out


#: The stateless POST operations: path, summary, body shape, answer shape, operationId, and
#: what differs from a plain read of a state (success status, error statuses, optional body).
_POSTS: tuple[tuple[str, str, str, str, str, dict[str, Any]], ...] = (
    ("/v1/games", "A new game (the setup object itself)", "Setup", "SealedState", "newGame",
     {"status": "201", "errors": (403,), "required": False}),
    ("/v1/legal-moves", "Every legal move", "StateRequest", "LegalMoves", "legalMoves", {}),
    ("/v1/validate", "Whether a move is legal", "MoveRequest", "Validation", "validateMove", {}),
    ("/v1/apply", "Apply one move ('move') or several in order ('moves')", "ApplyRequest",
     "Transition", "applyMove", {"errors": _MOVE_ERRORS}),
    ("/v1/score", "Scores and standings", "StateRequest", "Score", "score", {}),
    ("/v1/view", "One player's view and a token issued to them", "PlayerRequest", "SealedState",
     "view", {}),
    ("/v1/suggest", "A move from a bot for the player to move", "SuggestRequest", "Suggestion",
     "suggestMove", {"errors": _MOVE_ERRORS}),
    ("/v1/replay", "Replay a game record", "GameRecord", "Replay", "replay",
     {"errors": _MOVE_ERRORS}),
    ("/v1/analysis", "Per-building analysis (engine analyze)", "StateRequest", "Analysis",
     "analysis", {"errors": (*_STATE_ERRORS, 501)}),
    ("/v1/preview", "What a move would change (engine preview); without a move, every legal "
     "move's", "PreviewRequest", "Preview", "preview", {"errors": (*_MOVE_ERRORS, 501)}),
    ("/v1/threats", "The chance each building is taken on the next turn, from a player's "
     "knowledge", "OptionalPlayerRequest", "Threats", "threats", {}),
    ("/v1/advance", "A player's step: their move (optional), then bots for the other seats "
     "until the player is to move; addressed to the player", "AdvanceRequest", "Transition",
     "advance", {"errors": _MOVE_ERRORS}),
    ("/v1/states", "Cache a state; later requests may name it by id", "StateRequest",
     "SealedState", "storeState", {"status": "201"}),
)  # fmt: skip


def _post_paths() -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for path, summary, shape, ok, op, options in _POSTS:
        required = options.get("required", True)
        status = options.get("status", "200")
        errors = options.get("errors", _STATE_ERRORS)
        paths[path] = _post(
            summary, _body(ref(shape), required), ok, status=status, errors=errors, op=op
        )
    return paths


def _render_paths() -> dict[str, Any]:
    queries = (
        ("id", {"type": "string"}),
        ("token", {"type": "string"}),
        ("game", {"type": "string"}),
        ("player", {"type": "integer", "minimum": 0, "maximum": 3}),
    )
    return {
        "/v1/render.svg": {
            "get": {
                "operationId": "renderSvg",
                "summary": "The board as SVG (a player's view with player or a player's token)",
                "parameters": [
                    *CALLER_HEADERS,
                    *(parameter(name, "query", schema) for name, schema in queries),
                ],
                "responses": _svg_responses(),
            },
            "post": {
                "operationId": "renderSvgOf",
                "summary": "The board of the state in the body as SVG",
                "parameters": CALLER_HEADERS,
                "requestBody": _body(ref("OptionalPlayerRequest")),
                "responses": _svg_responses(),
            },
        }
    }


def _get_paths() -> dict[str, Any]:
    rules = {"schema": {"type": "object"}}
    return {
        "/v1/rules": {
            "get": {
                "operationId": "rules",
                "summary": "Versions, formats and vocabularies",
                "responses": {
                    "200": {"description": "success", "content": {JSON: rules, MSGPACK: rules}}
                },
            }
        },
        "/v1/bots": {
            "get": {
                "operationId": "bots",
                "summary": "The bot levels with their budgets and measured ratings",
                "responses": responses("Ladder", always=(429,)),
            }
        },
        "/v1/states/{id}": {
            "get": {
                "operationId": "getState",
                "summary": "A cached state by id",
                "parameters": [
                    parameter("id", "path", {"type": "string"}, required=True),
                    *CALLER_HEADERS,
                ],
                "responses": _responses("SealedState", errors=(404, 503)),
            }
        },
    }


def _paths() -> dict[str, Any]:
    """Every stateless path, in the order the document has always listed them."""
    found = {**_get_paths(), **_post_paths(), **_render_paths()}
    order = (
        "/v1/rules",
        "/v1/bots",
        *(p[0] for p in _POSTS[:-2]),
        "/v1/render.svg",
        *(p[0] for p in _POSTS[-2:]),
        "/v1/states/{id}",
    )
    return {path: found[path] for path in order}


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Manhattan rules-as-a-service",
            "version": f"1.{manhattan.RULES_VERSION}",
            "description": (
                "Adjudicates the board game Manhattan. Every operation is also on GraphQL at "
                "/graphql. Bodies are JSON or msgpack (Content-Type / Accept)."
            ),
        },
        "paths": {**_paths(), **table_paths()},
        "components": {
            "schemas": {
                **_engine_schemas(),
                **_service_schemas(),
                **_wire_schemas(),
                **table_schemas(),
            }
        },
    }
