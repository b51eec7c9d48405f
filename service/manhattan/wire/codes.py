"""Every error code the service answers with, and its HTTP status (DESIGN §5 and §9).

The wire's ``Error`` shape states these codes as an enum; ``api/errors.py`` renders them and
``tables/errors.py`` raises the tables' own. Kept here, below both, so that neither depends on
the other for the list.
"""

from __future__ import annotations

#: The tables' codes -> HTTP status (DESIGN §9 "Codes").
TABLE_CODES: dict[str, int] = {
    "TABLE_NOT_FOUND": 404,
    "TABLE_FULL": 409,
    "TABLE_NOT_WAITING": 409,
    "STALE_VERSION": 409,
    "NOT_YOUR_TURN": 409,
    "BAD_SEAT": 401,
    "NOT_SEATED": 403,
    "TABLE_NOT_OVER": 409,
    "TABLE_NOT_PLAYING": 409,
    # A stream or subscription over a limit: open streams per client, spectators per table.
    "TOO_MANY_STREAMS": 429,
}

#: code -> HTTP status. The first nine codes are the contract (DESIGN §5); the rest are additions.
HTTP_STATUS: dict[str, int] = {
    "INVALID_STATE": 400,
    "INVALID_MOVE": 400,
    "ILLEGAL_MOVE": 422,
    "GAME_OVER": 409,
    "STATE_NOT_FOUND": 404,
    "BAD_TOKEN": 400,
    "PAYLOAD_TOO_LARGE": 413,
    "QUERY_TOO_COMPLEX": 400,
    "RATE_LIMITED": 429,
    "INVALID_SETUP": 400,
    "INVALID_PLAYER": 400,
    "INVALID_BOT": 400,
    "NOT_YOUR_TURN": 409,
    "INVALID_REQUEST": 400,
    "STATE_JSON_REFUSED": 403,
    "WRONG_PLAYER": 403,
    "WRONG_GAME": 403,
    "PLAYER_REQUIRED": 403,
    "STALE_TOKEN": 409,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "NOT_ACCEPTABLE": 406,
    "UNSUPPORTED_MEDIA_TYPE": 415,
    "NOT_IMPLEMENTED": 501,
    "STORE_UNAVAILABLE": 503,
    "BOTS_BUSY": 503,
    "CLIENT_CLOSED_REQUEST": 499,
    "INTERNAL_ERROR": 500,
    **TABLE_CODES,
}
