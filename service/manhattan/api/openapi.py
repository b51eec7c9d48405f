"""The OpenAPI 3.1 document of the REST API (``GET /openapi.json``, ``schema/openapi.json``).

Written out rather than inferred, so that it states the contract exactly; the state, view, move
and rules schemas come from the engine's JSON Schema (``manhattan.engine.jsonschema``), so they
cannot drift from the code. A test checks every route here exists in the app and vice versa.
"""

from __future__ import annotations

import json
from typing import Any

import manhattan
from manhattan.engine.jsonschema import build_schema as state_json_schema
from manhattan.tables.errors import TABLE_CODES

from .errors import HTTP_STATUS
from .openapi_tables import table_paths, table_schemas

#: Codes only the tables' routes give (their own responses list them).
_TABLE_ONLY = frozenset(TABLE_CODES) - {"NOT_YOUR_TURN"}

JSON = "application/json"
MSGPACK = "application/msgpack"


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


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
    integers = {"type": "array", "items": {"type": "integer"}}
    game = {
        "type": "string",
        "pattern": "^[0-9a-f]{32}$",
        "description": "the game the caller expects: a state of another game is refused",
    }
    placing = _obj(
        {"player": {"type": "integer"}, "place": {"type": "integer"}, "score": {"type": "integer"}},
        ["player", "place", "score"],
    )
    sealed_props: dict[str, Any] = {
        "state": {**ref("state"), "description": "absent when addressed to a player or strict"},
        "stateId": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
        "token": {"type": "string", "description": "the sealed full state (opaque)"},
        "view": {**ref("view"), "description": "present when addressed to one player"},
        "gameId": {
            "type": "string",
            "pattern": "^[0-9a-f]{32}$",
            "description": "the game's id (every state of a game shares it; see Manhattan-Game)",
        },
    }
    round_score = _obj(
        {
            "round": {"type": "integer"},
            "players": integers,
            "scores": {"type": "array", "items": ref("breakdown")},
            "urban": {"type": ["string", "null"]},
        },
        ["round", "players", "scores", "urban"],
    )
    return {
        "Error": _obj(
            {
                "code": {"type": "string", "enum": sorted(HTTP_STATUS)},
                "message": {"type": "string"},
                "path": {"type": "string", "description": "JSON path of the first fault"},
                "index": {"type": "integer", "description": "which move of a list failed"},
            },
            ["code", "message"],
        ),
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
        "Sealed": _obj(sealed_props, ["token"]),
        "Transition": _obj(
            {
                **sealed_props,
                "events": {"type": "array", "items": ref("Event")},
                "moves": {"type": "array", "items": ref("move")},
            },
            ["token", "events", "moves"],
        ),
        "LegalMoves": _obj({"moves": {"type": "array", "items": ref("move")}}, ["moves"]),
        "Validation": _obj(
            {
                "legal": {"type": "boolean"},
                "move": ref("move"),
                "code": {"type": "string"},
                "message": {"type": "string"},
                "reason": {"type": "string", "description": "the rule broken (issue 9)"},
                "section": {"type": "string", "description": "its RULES section, e.g. §6"},
                "decision": {"type": ["string", "null"], "description": "its decision, D#"},
                "option": {"type": ["string", "null"], "description": "its variant option"},
                "numbers": {
                    "type": "object",
                    "additionalProperties": {"type": "integer"},
                    "description": "the numbers involved: floorsNeeded, floorsYouWouldHave...",
                },
                "alternatives": {
                    "type": "array",
                    "description": "the nearest legal moves",
                    "items": _obj(
                        {"kind": {"type": "string"}, "move": ref("move")}, ["kind", "move"]
                    ),
                },
            },
            ["legal"],
        ),
        "Score": _obj(
            {
                "round": {"type": "integer"},
                "phase": {"enum": ["select", "build", "over"]},
                "scores": {**integers, "description": "per color, cumulative"},
                "players": {**integers, "description": "per player"},
                "history": {"type": "array", "items": {"type": "object"}},
                "ifRoundEndedNow": round_score,
                "ranking": {"type": "array", "items": placing},
            },
            ["round", "phase", "scores", "players", "history", "ifRoundEndedNow", "ranking"],
        ),
        "Suggestion": _obj(
            {
                "move": ref("move"),
                "bot": {"type": "string"},
                "stats": {"type": "object"},
                "alternatives": {
                    "type": "array",
                    "items": _obj(
                        {
                            "move": ref("move"),
                            "visits": {"type": "integer"},
                            "meanScore": {"type": "number"},
                        },
                        ["move", "visits", "meanScore"],
                    ),
                },
            },
            ["move", "bot", "stats", "alternatives"],
        ),
        "Replay": _obj(
            {
                **sealed_props,
                "movesApplied": {"type": "integer"},
                "ranking": {"type": "array", "items": placing},
            },
            ["token", "movesApplied", "ranking"],
        ),
        "Analysis": _obj({"analysis": {}}, ["analysis"]),
        "Preview": {
            "description": "{preview} for one move; {previews} (every legal move) without one",
            "oneOf": [
                _obj({"preview": {}}, ["preview"]),
                _obj({"previews": {"type": "array"}}, ["previews"]),
            ],
        },
        "Threats": _obj({"threats": {"type": "object"}}, ["threats"]),
        "BotChoice": _obj(
            {
                "level": {"type": "string", "default": "greedy"},
                "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
                "iterations": {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
                "timeMs": {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
            },
            additionalProperties=False,
        ),
        "Setup": _obj(
            {
                "players": {"type": "integer", "minimum": 2, "maximum": 4},
                "seed": {"type": "string", "minLength": 1, "maxLength": 128},
                "edition": {"enum": ["classic", "modern"]},
                "variants": {"type": "object"},
                "seats": integers,
                "firstPlayer": {"type": "integer"},
                "rounds": {"type": "integer"},
                "piecesPerRound": {"type": "integer"},
                "colors": {"type": "array", "items": integers},
                "monsterStart": integers,
            },
            additionalProperties=False,
        ),
        "GameRecord": _obj(
            {
                "setup": ref("Setup"),
                "state": ref("StateRef"),
                "moves": {"type": "array", "items": ref("MoveIn")},
            },
            additionalProperties=False,
        ),
    }


def _body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {
        "required": required,
        "description": "JSON, or the same structure as application/msgpack",
        "content": {JSON: {"schema": schema}},
    }


def _request(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return _body(_obj(props, required, additionalProperties=False))


def _responses(ok: str, status: str = "200", errors: tuple[int, ...] = ()) -> dict[str, Any]:
    media = {JSON: {"schema": ref(ok)}, MSGPACK: {"schema": ref(ok)}}
    out: dict[str, Any] = {status: {"description": "success", "content": media}}
    for code in sorted({400, 413, 415, 429, *errors}):
        codes = ", ".join(
            sorted(c for c, s in HTTP_STATUS.items() if s == code and c not in _TABLE_ONLY)
        )
        out[str(code)] = {
            "description": codes,
            "content": {JSON: {"schema": ref("Error")}, MSGPACK: {"schema": ref("Error")}},
        }
    return out


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
    {
        "name": "Manhattan-Game",
        "in": "header",
        "required": False,
        "description": "every state of the request must belong to this game (gameId)",
        "schema": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
    },
    {
        "name": "Manhattan-Player",
        "in": "header",
        "required": False,
        "description": "on behalf of this player: answers are addressed to them, and a token "
        "issued to another player is refused",
        "schema": {"type": "string", "pattern": "^[0-3]$"},
    },
]

_SVG = "image/svg+xml"


def _svg_responses() -> dict[str, Any]:
    out = _responses("Error", errors=(*_STATE_ERRORS, 409))
    out["200"] = {
        "description": "the board picture",
        "content": {_SVG: {"schema": {"type": "string"}}},
    }
    return out


def _paths() -> dict[str, Any]:
    state = ref("StateRef")
    move = ref("MoveIn")
    integer = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
    return {
        "/v1/rules": {
            "get": {
                "operationId": "rules",
                "summary": "Versions, formats and vocabularies",
                "responses": {
                    "200": {
                        "description": "success",
                        "content": {
                            JSON: {"schema": {"type": "object"}},
                            MSGPACK: {"schema": {"type": "object"}},
                        },
                    }
                },
            }
        },
        "/v1/games": _post(
            "A new game (the setup object itself)",
            _body(ref("Setup"), False),
            "Sealed",
            status="201",
            errors=(403,),
            op="newGame",
        ),
        "/v1/legal-moves": _post(
            "Every legal move", _request({"state": state}, ["state"]), "LegalMoves", op="legalMoves"
        ),
        "/v1/validate": _post(
            "Whether a move is legal",
            _request({"state": state, "move": move}, ["state", "move"]),
            "Validation",
            op="validateMove",
        ),
        "/v1/apply": _post(
            "Apply one move ('move') or several in order ('moves')",
            _request(
                {"state": state, "move": move, "moves": {"type": "array", "items": move}}, ["state"]
            ),
            "Transition",
            errors=_MOVE_ERRORS,
            op="applyMove",
        ),
        "/v1/score": _post(
            "Scores and standings", _request({"state": state}, ["state"]), "Score", op="score"
        ),
        "/v1/view": _post(
            "One player's view and a token issued to them",
            _request({"state": state, "player": integer}, ["state", "player"]),
            "Sealed",
            op="view",
        ),
        "/v1/suggest": _post(
            "A move from a bot for the player to move",
            _request(
                {
                    "state": state,
                    "player": integer,
                    "bot": {"type": "string", "default": "greedy"},
                    "seed": integer,
                    "iterations": integer,
                    "timeMs": integer,
                },
                ["state"],
            ),
            "Suggestion",
            errors=_MOVE_ERRORS,
            op="suggestMove",
        ),
        "/v1/replay": _post(
            "Replay a game record",
            _body(ref("GameRecord")),
            "Replay",
            errors=_MOVE_ERRORS,
            op="replay",
        ),
        "/v1/analysis": _post(
            "Per-building analysis (engine analyze)",
            _request({"state": state}, ["state"]),
            "Analysis",
            errors=(*_STATE_ERRORS, 501),
            op="analysis",
        ),
        "/v1/preview": _post(
            "What a move would change (engine preview); without a move, every legal move's",
            _request({"state": state, "move": move}, ["state"]),
            "Preview",
            errors=(*_MOVE_ERRORS, 501),
            op="preview",
        ),
        "/v1/threats": _post(
            "The chance each building is taken on the next turn, from a player's knowledge",
            _request({"state": state, "player": integer}, ["state"]),
            "Threats",
            op="threats",
        ),
        "/v1/render.svg": {
            "get": {
                "operationId": "renderSvg",
                "summary": "The board as SVG (a player's view with player or a player's token)",
                "parameters": [
                    *CALLER_HEADERS,
                    *(
                        {"name": name, "in": "query", "required": False, "schema": schema}
                        for name, schema in (
                            ("id", {"type": "string"}),
                            ("token", {"type": "string"}),
                            ("game", {"type": "string"}),
                            ("player", {"type": "integer", "minimum": 0, "maximum": 3}),
                        )
                    ),
                ],
                "responses": _svg_responses(),
            },
            "post": {
                "operationId": "renderSvgOf",
                "summary": "The board of the state in the body as SVG",
                "parameters": CALLER_HEADERS,
                "requestBody": _request({"state": state, "player": integer}, ["state"]),
                "responses": _svg_responses(),
            },
        },
        "/v1/advance": _post(
            "A player's step: their move (optional), then bots for the other seats until the "
            "player is to move; addressed to the player",
            _request(
                {"state": state, "player": integer, "move": move, "bot": ref("BotChoice")},
                ["state"],
            ),
            "Transition",
            errors=_MOVE_ERRORS,
            op="advance",
        ),
        "/v1/states": _post(
            "Cache a state; later requests may name it by id",
            _request({"state": state}, ["state"]),
            "Sealed",
            status="201",
            op="storeState",
        ),
        "/v1/states/{id}": {
            "get": {
                "operationId": "getState",
                "summary": "A cached state by id",
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                    *CALLER_HEADERS,
                ],
                "responses": _responses("Sealed", errors=(404, 503)),
            }
        },
    }


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
        "components": {"schemas": {**_engine_schemas(), **_service_schemas(), **table_schemas()}},
    }
