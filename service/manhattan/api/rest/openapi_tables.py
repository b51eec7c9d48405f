"""The tables' REST operations (DESIGN §9) for ``openapi.py``: paths, summaries, which shape goes
in and out, which statuses answer. The shapes themselves are ``manhattan.wire.tables``."""

from __future__ import annotations

from typing import Any, get_args

import msgspec

from manhattan.api.rest.openapi_parts import body, parameter, responses
from manhattan.wire import ref
from manhattan.wire.tables import LobbyQuery, TableEventType

_STRING = {"type": "string"}
_ID = parameter("id", "path", _STRING, required=True)
_BEARER = parameter("Authorization", "header", _STRING, "Bearer <seatToken> (or the host token)")
_KEY = parameter(
    "Manhattan-Key",
    "header",
    _STRING,
    "a platform's key (DESIGN §10); an unknown key is 401 BAD_KEY",
)
_PLAYER = parameter(
    "player",
    "query",
    {"type": "string", "minLength": 1, "maxLength": 64},
    "a platform's player id (with Manhattan-Key)",
)
_ALWAYS = (400, 413, 415, 429, 503)
_SEATED = (401, 403, 404, 409)


def _op(
    method: str,
    op: str,
    summary: str,
    ok: str,
    *,
    status: str = "200",
    errors: tuple[int, ...] = _SEATED,
    shape: str | None = None,
    path_id: bool = True,
    key: bool = False,
) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": op,
        "summary": summary,
        "parameters": [*([_ID] if path_id else []), _BEARER, *([_KEY] if key else [])],
        "responses": responses(ok, status, errors, always=_ALWAYS),
    }
    if shape is not None:
        operation["requestBody"] = body(ref(shape))
    return {method: operation}


def _events() -> dict[str, Any]:
    return {
        "get": {
            "operationId": "tableEvents",
            "summary": "Server-Sent Events: id = version; snapshot joined left started move chat "
            "timeout over; Last-Event-ID resumes, a gap gets a snapshot",
            "parameters": [
                _ID,
                _BEARER,
                parameter("ticket", "query", _STRING),
                parameter("Last-Event-ID", "header", _STRING),
            ],
            "responses": {
                **responses("Error", "200", (401, 403, 404), always=_ALWAYS),
                "200": {
                    "description": "the event stream; comments (lines starting ':') are heartbeats",
                    # OpenAPI 3.1: a text/event-stream's schema describes each event
                    "content": {"text/event-stream": {"schema": ref("TableStreamEvent")}},
                },
            },
        }
    }


def table_schemas() -> dict[str, Any]:
    """The schemas of the tables' routes that are not a body (``manhattan.wire`` holds those):
    one event of the table's stream, as an SSE reader sees it (``event``, ``data``, ``id``)."""
    return {
        "TableStreamEvent": {
            "description": "One Server-Sent Event of a table's stream: its type, its data (JSON "
            "text: a snapshot is the Table as the receiver may see it; every event carries the "
            "table's version) and its id, the table version",
            "type": "object",
            "required": ["event", "data", "id"],
            "properties": {
                "event": {"enum": list(get_args(TableEventType))},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "contentSchema": {"type": "object", "required": ["version"]},
                },
                "id": {"type": "string", "pattern": "^[0-9]{1,15}$"},
                "retry": {"type": "integer"},
            },
            "additionalProperties": False,
        }
    }


def _lobby() -> dict[str, Any]:
    """``GET /v1/tables``: its query parameters are ``wire.LobbyQuery``'s fields."""
    operation = _op(
        "get",
        "listTables",
        "A page of public waiting tables, newest activity first (filters: players, edition, "
        "open seats); with ?player=<id> and a platform key, that player's tables at the key "
        "(waiting and playing first, then the last finished)",
        "TableList",
        errors=(401,),
        path_id=False,
        key=True,
    )
    schema = msgspec.json.schema(LobbyQuery)
    fields = schema["$defs"]["LobbyQuery"]["properties"]
    operation["get"]["parameters"] += [
        parameter(name, "query", _not_null(field)) for name, field in fields.items()
    ]
    return operation


def _not_null(field: dict[str, Any]) -> dict[str, Any]:
    """A query parameter's schema: absent is its null, so the null member goes."""
    members = [m for m in field.get("anyOf", ()) if m != {"type": "null"}]
    if len(members) != 1:
        return field
    found = {**members[0], **{k: v for k, v in field.items() if k not in ("anyOf", "default")}}
    return found


def table_paths() -> dict[str, Any]:
    return {
        "/v1/tables": {
            **_op(
                "post",
                "createTable",
                "A table; the seed is drawn by the service. With a platform key: reserved "
                "seats (seatTokens), autoStart, rated",
                "TableCreated",
                status="201",
                errors=(401,),  # BAD_KEY: a Manhattan-Key header naming no key (DESIGN §10)
                shape="NewTable",
                path_id=False,
                key=True,
            ),
            "get": _list_tables(),
        },
        "/v1/tables/{id}": _op(
            "get", "getTable", "The table as the caller may see it", "Table", key=True
        ),
        "/v1/tables/{id}/join": _op(
            "post",
            "joinTable",
            "Take a free seat (or the one asked for), atomically",
            "TableJoined",
            shape="JoinTable",
        ),
        "/v1/tables/{id}/start": _op(
            "post",
            "startTable",
            "Start: the host, anyone seated or the table's platform key",
            "TableAnswer",
            key=True,
        ),
        "/v1/tables/{id}/moves": _op(
            "post",
            "tableMove",
            "The bearer's move at a version; moveId makes retries safe",
            "TableMoved",
            errors=(*_SEATED, 422),
            shape="TableMoveRequest",
        ),
        "/v1/tables/{id}/preview": _op(
            "post",
            "previewTableMove",
            "The seat's move previewed from its own view (without a move: every legal move's)",
            "Preview",
            errors=(*_SEATED, 422),
            shape="SeatPreviewRequest",
        ),
        "/v1/tables/{id}/validate": _op(
            "post",
            "validateTableMove",
            "Whether the seat's move is legal, and why not, from its own view",
            "Validation",
            shape="SeatMoveRequest",
        ),
        "/v1/tables/{id}/leave": _op("post", "leaveTable", "Leave the seat", "TableAnswer"),
        "/v1/tables/{id}/chat": _op(
            "post", "sendChat", "A short message to the table", "TableChat", shape="ChatRequest"
        ),
        "/v1/tables/{id}/rematch": _op(
            "post", "rematch", "A new table for the same people", "TableRematch"
        ),
        "/v1/tables/{id}/ticket": _op(
            "post", "tableTicket", "A single-use ticket (60 s) for the event stream", "TableTicket"
        ),
        "/v1/tables/{id}/events": _events(),
        "/v1/tables/{id}/history": _op(
            "get",
            "tableHistory",
            "What happened so far as the caller may see it: the start, every move with the "
            "events the caller may see, recent joins, leaves, timeouts and the end",
            "TableHistory",
            key=True,
        ),
        "/v1/tables/{id}/record": _op(
            "get", "tableRecord", "The record (setup with seed, moves) once over", "TableRecord"
        ),
        "/v1/ratings": _ratings(),
    }


def _list_tables() -> dict[str, Any]:
    """``GET /v1/tables``: a lobby page, or with ``player`` (and a key) that player's tables."""
    operation = _lobby()["get"]
    operation["parameters"].append(_PLAYER)
    either = {"anyOf": [ref("TableList"), ref("MyTables")]}
    for media in operation["responses"]["200"]["content"].values():
        media["schema"] = either
    return dict(operation)


def _ratings() -> dict[str, Any]:
    """``GET /v1/ratings``: one player's rating or a page of the key's ratings."""
    operation = _op(
        "get",
        "ratings",
        "With a platform key: a player's OpenSkill rating (?player=<id>; 404 PLAYER_NOT_FOUND "
        "before a first rated game), or the key's players by ordinal, a page at a time",
        "RatingList",
        errors=(401, 404),
        path_id=False,
        key=True,
    )["get"]
    operation["parameters"] += [
        _PLAYER,
        parameter(
            "limit", "query", {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}
        ),
        parameter("cursor", "query", _STRING, "the next of the page before"),
    ]
    either = {"anyOf": [ref("RatingList"), ref("Rating")]}
    for media in operation["responses"]["200"]["content"].values():
        media["schema"] = either
    return {"get": operation}
