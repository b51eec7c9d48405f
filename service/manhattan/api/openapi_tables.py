"""The OpenAPI description of the tables' REST routes (DESIGN §9), merged into ``openapi.py``."""

from __future__ import annotations

from typing import Any

from .errors import HTTP_STATUS

JSON = "application/json"
MSGPACK = "application/msgpack"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _obj(properties: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, **extra}


_NULLABLE_INT = {"type": ["integer", "null"]}
_STR = {"type": "string"}


def table_schemas() -> dict[str, Any]:
    seat = _obj(
        {
            "player": {"type": "integer"},
            "name": {"type": ["string", "null"]},
            "kind": {"enum": ["open", "human", "bot"]},
            "connected": {"type": "boolean"},
            "away": {"type": "boolean"},
        },
        ["player", "name", "kind", "connected", "away"],
    )
    return {
        "Table": _obj(
            {
                "tableId": _STR,
                "name": _STR,
                "status": {"enum": ["waiting", "playing", "over"]},
                "version": {"type": "integer"},
                "public": {"type": "boolean"},
                "turnSeconds": _NULLABLE_INT,
                "seats": {"type": "array", "items": seat},
                "toMove": _NULLABLE_INT,
                "deadline": {
                    "type": ["integer", "null"],
                    "description": "epoch milliseconds (UTC) by which the seat to move acts",
                },
                "view": {
                    "type": ["object", "null"],
                    "description": "the caller's seat's view, or the public view",
                },
                "moves": {"type": "array", "description": "the caller's legal moves on its turn"},
                "players": _NULLABLE_INT,
                "you": {"type": ["integer", "null"], "description": "the caller's seat"},
                "chat": {"type": "array"},
                "rematch": {"type": ["string", "null"]},
                "ranking": {"type": "array", "description": "when over: [{player, place, score}]"},
            },
            ["tableId", "name", "status", "version", "seats", "toMove", "deadline", "view"],
        ),
        "TableList": _obj({"tables": {"type": "array", "items": _ref("Table")}}, ["tables"]),
        "TableCreated": _obj(
            {"tableId": _STR, "hostToken": _STR, "table": _ref("Table")},
            ["tableId", "hostToken", "table"],
        ),
        "TableJoined": _obj(
            {"player": {"type": "integer"}, "seatToken": _STR, "table": _ref("Table")},
            ["player", "seatToken", "table"],
        ),
        "TableAnswer": _obj({"table": _ref("Table")}, ["table"]),
        "TableMoved": _obj(
            {
                "version": {"type": "integer"},
                "view": {"type": "object"},
                "events": {"type": "array"},
            },
            ["version", "view", "events"],
        ),
        "TableChat": _obj(
            {"version": {"type": "integer"}, "message": {"type": "object"}}, ["version", "message"]
        ),
        "TableRematch": _obj(
            {"tableId": _STR, "table": _ref("Table"), "seatToken": _STR, "hostToken": _STR},
            ["tableId", "table"],
        ),
        "TableTicket": _obj(
            {"ticket": _STR, "expiresIn": {"type": "integer"}}, ["ticket", "expiresIn"]
        ),
        "TableRecord": _obj(
            {"setup": {"type": "object"}, "moves": {"type": "array"}}, ["setup", "moves"]
        ),
    }


_ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
_BEARER = {
    "name": "Authorization",
    "in": "header",
    "required": False,
    "description": "Bearer <seatToken> (or the host token)",
    "schema": {"type": "string"},
}


def _responses(ok: str, status: str, errors: tuple[int, ...]) -> dict[str, Any]:
    media = {JSON: {"schema": _ref(ok)}, MSGPACK: {"schema": _ref(ok)}}
    out: dict[str, Any] = {status: {"description": "success", "content": media}}
    for code in sorted({400, 413, 415, 429, 503, *errors}):
        codes = ", ".join(sorted(c for c, s in HTTP_STATUS.items() if s == code))
        out[str(code)] = {
            "description": codes,
            "content": {JSON: {"schema": _ref("Error")}, MSGPACK: {"schema": _ref("Error")}},
        }
    return out


def _op(
    method: str,
    op: str,
    summary: str,
    ok: str,
    *,
    status: str = "200",
    errors: tuple[int, ...] = (401, 403, 404, 409),
    body: dict[str, Any] | None = None,
    path_id: bool = True,
) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": op,
        "summary": summary,
        "parameters": [*([_ID] if path_id else []), _BEARER],
        "responses": _responses(ok, status, errors),
    }
    if body is not None:
        operation["requestBody"] = {
            "required": True,
            "description": "JSON, or the same structure as application/msgpack",
            "content": {JSON: {"schema": body}},
        }
    return {method: operation}


def table_paths() -> dict[str, Any]:
    setup = _ref("Setup")
    seat = {"oneOf": [{"const": "open"}, _obj({"bot": _ref("BotChoice")}, ["bot"])]}
    create = _obj(
        {
            "setup": setup,
            "seats": {"type": "array", "items": seat, "minItems": 2, "maxItems": 4},
            "public": {"type": "boolean"},
            "turnSeconds": {"type": ["integer", "null"], "minimum": 1, "maximum": 86_400},
            "name": {"type": "string", "maxLength": 40},
        },
        [],
        additionalProperties=False,
    )
    events = {
        "get": {
            "operationId": "tableEvents",
            "summary": "Server-Sent Events: id = version; snapshot joined left started move chat "
            "timeout over; Last-Event-ID resumes, a gap gets a snapshot",
            "parameters": [
                _ID,
                _BEARER,
                {"name": "ticket", "in": "query", "required": False, "schema": _STR},
                {"name": "Last-Event-ID", "in": "header", "required": False, "schema": _STR},
            ],
            "responses": {
                **_responses("Error", "200", (401, 403, 404)),
                "200": {
                    "description": "the event stream",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
            },
        }
    }
    return {
        "/v1/tables": {
            **_op(
                "post",
                "createTable",
                "A table; the seed is drawn by the service",
                "TableCreated",
                status="201",
                errors=(),
                body=create,
                path_id=False,
            ),
            **_op(
                "get",
                "listTables",
                "Public tables waiting for players",
                "TableList",
                errors=(),
                path_id=False,
            ),
        },
        "/v1/tables/{id}": _op("get", "getTable", "The table as the caller may see it", "Table"),
        "/v1/tables/{id}/join": _op(
            "post",
            "joinTable",
            "Take a free seat (or the one asked for), atomically",
            "TableJoined",
            body=_obj(
                {
                    "name": {"type": "string", "minLength": 1, "maxLength": 40},
                    "seat": {"type": "integer"},
                },
                ["name"],
                additionalProperties=False,
            ),
        ),
        "/v1/tables/{id}/start": _op(
            "post", "startTable", "Start: the host or anyone seated", "TableAnswer"
        ),
        "/v1/tables/{id}/moves": _op(
            "post",
            "tableMove",
            "The bearer's move at a version; moveId makes retries safe",
            "TableMoved",
            errors=(401, 403, 404, 409, 422),
            body=_obj(
                {"move": _ref("MoveIn"), "version": {"type": "integer"}, "moveId": _STR},
                ["move", "version"],
                additionalProperties=False,
            ),
        ),
        "/v1/tables/{id}/preview": _op(
            "post",
            "previewTableMove",
            "The seat's move previewed from its own view (without a move: every legal move's)",
            "Preview",
            errors=(400, 401, 403, 404, 409, 422),
            body=_obj({"move": _ref("MoveIn")}, [], additionalProperties=False),
        ),
        "/v1/tables/{id}/validate": _op(
            "post",
            "validateTableMove",
            "Whether the seat's move is legal, and why not, from its own view",
            "Validation",
            errors=(400, 401, 403, 404, 409),
            body=_obj({"move": _ref("MoveIn")}, ["move"], additionalProperties=False),
        ),
        "/v1/tables/{id}/leave": _op("post", "leaveTable", "Leave the seat", "TableAnswer"),
        "/v1/tables/{id}/chat": _op(
            "post",
            "sendChat",
            "A short message to the table",
            "TableChat",
            body=_obj({"text": {"type": "string"}}, ["text"], additionalProperties=False),
        ),
        "/v1/tables/{id}/rematch": _op(
            "post", "rematch", "A new table for the same people", "TableRematch"
        ),
        "/v1/tables/{id}/ticket": _op(
            "post", "tableTicket", "A single-use ticket (60 s) for the event stream", "TableTicket"
        ),
        "/v1/tables/{id}/events": events,
        "/v1/tables/{id}/record": _op(
            "get", "tableRecord", "The record (setup with seed, moves) once over", "TableRecord"
        ),
    }
